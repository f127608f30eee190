"""The limits fivedp holds on its inputs (docs/limits.md).

Numbers are bounded to what the game can mean and what the solver represents exactly (clingo
integers are 32-bit: a turn of 2**32 would wrap to turn 0 and name a real board). Sizes are bounded
so that a server taking orders from strangers can promise every command finishes: a file, an
order line, a step's boards in play, units and orders each have a ceiling well above any game
played so far, within which a step still adjudicates quickly (docs/benchmarks.md).
"""

from __future__ import annotations

MAX_TURN = 10_000
"""The last turn a board may have (turn 10,000 is Spring 6901)."""

MAX_TIMELINES = 10_000
"""Timelines per multiverse: indices 0 .. 9,999 (``a`` .. ``p384``)."""

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Largest scenario, map, game or order file read."""

MAX_DEPTH = 32
"""Deepest nesting of YAML lists and mappings (the formats need 6)."""

MAX_ORDER_CHARS = 1_000
"""Longest order line."""

MAX_NUMBER_DIGITS = 18
"""Longest integer written in a file or an order (anything longer is beyond every limit here)."""

MAX_HEADS = 256
"""Most boards in play (taking orders) in one step."""

MAX_UNITS = 8_192
"""Most units (and dislodged units) on the boards in play in one step."""

MAX_ORDERS = 16_384
"""Most order lines in one step or one submission."""

MAX_BOARDS = 1_000_000
"""Most boards in a multiverse (the whole history of every timeline)."""

# -- maps drawn as geometry (fivedp_asp/model/geometry.py) ------------------------------------------------

MAX_GEOMETRY_COORD = 1_000_000
"""Largest coordinate magnitude of a geometry point, and the largest drawing size."""

MAX_TERRITORIES = 10_000
"""Most territories (provinces) in one geometry."""

MAX_BORDER_POINTS = 100_000
"""Most points in one territory's border."""

MAX_GEOMETRY_POINTS = 400_000
"""Most points in one geometry, borders, coasts and canals together."""

MAX_ID_CHARS = 32
"""Longest territory or coast id in a geometry."""

MAX_GEOMETRY_TESTS = 5_000_000
"""Most segment tests spent checking a geometry's borders for crossings and points on other borders
(a drawing whose borders are this dense in one place is refused rather than checked at length)."""
