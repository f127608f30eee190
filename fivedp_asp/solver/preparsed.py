"""Imported by a server of forks (``apart.py``, and the tests' forked commands) before it forks
anything: the built-in encodings parsed and analysed once there (``encodings.parse_builtin``), so that
every child it forks starts with them in its caches instead of parsing them again. A module of its
own because a server of forks runs what it preloads by importing it."""

from __future__ import annotations

from .encodings import parse_builtin

parse_builtin()
