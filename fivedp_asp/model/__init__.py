"""The values the game is made of: maps (as data or geometry), orders and their notation, and the
multiverse of boards and timelines. Values only; nothing here adjudicates."""
