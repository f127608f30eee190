"""Python's cycle collector held off while a step runs.

A step allocates tens of thousands of container objects (facts, parsed orders, the new boards) that
reference counting frees without help: the step makes no reference cycles of its own (the one it
made, driver to clock and back, is broken with a weak reference in ``solver/backup.py``). The
collector does not know that. Counting those allocations, it runs its young collections dozens of
times a step and, with a big multiverse held in memory, full collections that walk every board of
it, each of them long with a big multiverse (docs/benchmarks.md). Held off during the step, the collector runs fewer times afterwards,
over what is left then.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """The automatic collector off for the ``with`` block, then back as it was: a caller that keeps it
    off keeps it off. The switch is the interpreter's own, so a thread that turns it off while another
    is inside this block finds it on again when that block ends; nothing is lost then, a collection
    only comes later or sooner."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
