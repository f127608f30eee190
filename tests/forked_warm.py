"""Imported by the server of forks of the tests' forked commands (``tests/forked.py``) before it forks
any: the standard map loaded, and one movement step and its legal orders worked out on it, so that the
caches a command fills on its first step (the map's facts, parsed; the rules a step's facts can fire)
are filled once there and every forked command starts with them, as the encodings (``preparsed``).
Only a head start: whatever fails here (a test's environment setting a limit the step cannot keep) is
left for the commands to meet, since an exception here would end the server of forks."""

from __future__ import annotations

from fivedp_asp.engine.possible import legal_orders
from fivedp_asp.engine.step import step
from fivedp_asp.errors import FivedpError
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening
from fivedp_asp.model.settings import Settings

try:
    _position = opening(load_map("standard"), Settings())
    step(_position, {"France": ["A Par - Bur"], "Germany": ["A Mun - Bur"]})
    legal_orders(_position, unit="A Par")
except (FivedpError, OSError, RuntimeError):
    pass
