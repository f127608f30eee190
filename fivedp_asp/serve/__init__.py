"""fivedp serve: a game server that players reach from their own browsers (docs/server.md)."""
