"""Tests of fivedp_asp/game/: the game's state and its rules of play."""
