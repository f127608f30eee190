"""Imported by a server of forks (``apart.py``, and the tests' forked commands) before it forks
anything: the built-in encodings parsed and analysed once there (``encodings.parse_builtin``), so that
every child it forks starts with them in its caches instead of parsing them again. A module of its
own because a server of forks runs what it preloads by importing it.

Parsing here is only a head start: a file that cannot be read leaves the server of forks running (an
exception from a preloaded module other than an ImportError would end it, and with it every child it
was to fork), and the child that reads the file reports it with its line, as a process of its own does."""

from __future__ import annotations

from ..errors import FivedpError
from .encodings import parse_builtin

try:
    parse_builtin()
except (FivedpError, OSError, RuntimeError):
    pass
