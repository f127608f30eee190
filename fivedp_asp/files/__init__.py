"""What is kept on disk: scenario files, game files (their layout, checksum and consistency,
sealed orders) and the replay that proves a game file."""
