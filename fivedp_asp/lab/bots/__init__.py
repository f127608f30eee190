"""Players that are programs: bots, the games they play against each other, and bots of your own."""
