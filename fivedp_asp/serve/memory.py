"""What a server process holds for long, kept out of the way of Python's cycle collector.

A served game of a few hundred boards is hundreds of thousands of small objects (boards, units,
recorded orders, their places), and the listings and drawings made of it add more. Python's collector
walks every one of them in each full collection, and it starts one whenever the objects that lived
long enough have grown by a quarter: with a 311-board game held, that was every dozen or so legal-order
questions, and the question that set it off took 0.2 to 0.6 s longer than its neighbours
(docs/benchmarks.md). Nearly all of these objects are freed by reference counting alone (the game's
values are frozen dataclasses that make no cycles), so the full collections found nothing to free.

So after each piece of solving work the server moves every object then alive out of the collector's
reach (``gc.freeze``: a constant-time move, nothing is copied). Later collections walk only what was
made since; objects moved out are still freed as soon as nothing refers to them. What reference
counting cannot free, objects that refer to one another in a cycle, would stay if they were moved
out while already unreachable: every ``SWEEP_SECONDS`` they are all put back and collected once
(``sweep``), so that memory held that way is bounded by what the server makes in that time.

The collector is the interpreter's own: ``fivedp serve`` turns this on for its process
(``make_app(..., settle=True)``); a program that runs the application among its own objects decides.
"""

from __future__ import annotations

import gc
import time
from typing import Callable

from ..errors import UsageError

SWEEP_SECONDS = 300.0


class LongLived:
    """Moves what is alive out of the collector's reach after each piece of work (``settle``), and puts
    it all back for one full collection every ``sweep_seconds`` (``sweep``). ``close`` puts it back."""

    def __init__(self, sweep_seconds: float = SWEEP_SECONDS, clock: Callable[[], float] = time.monotonic):
        if isinstance(sweep_seconds, bool) or not isinstance(sweep_seconds, (int, float)) or not sweep_seconds > 0:
            raise UsageError(f"sweep_seconds: give a positive number of seconds, not {sweep_seconds!r}")
        self.sweep_seconds = float(sweep_seconds)
        self.clock = clock
        self._swept = clock()
        self.sweeps = 0  # full collections done by ``sweep`` (what a test and the log can count)

    def settle(self) -> None:
        """After a piece of work: everything alive now is left out of later collections; a sweep when
        the last is ``sweep_seconds`` old."""
        if self.clock() - self._swept >= self.sweep_seconds:
            self.sweep()
        else:
            gc.freeze()

    def sweep(self) -> None:
        """Every object back in the collector's reach, one full collection (what cycles became
        unreachable since the last sweep are freed), then all that survived out of reach again."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._swept = self.clock()
        self.sweeps += 1

    def close(self) -> None:
        """Every object back in the collector's reach, as the interpreter keeps them by default."""
        gc.unfreeze()
