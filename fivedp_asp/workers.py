"""Files worked through in batches, in this process or in worker processes (``--jobs``).

``fivedp check`` and ``fivedp explore`` run their files a batch at a time, each batch in lockstep
(``batch.py``); with more than one job, worker processes take the batches in turn. Results come back
in the order of the files either way, so the output does not depend on the number of jobs.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_batches(items: Sequence[T], run: Callable[[list[T]], list[R]], size: int, jobs: int = 1) -> Iterator[R]:
    """``run`` over batches of at most ``size`` items (smaller, when that gives every worker one),
    its results flattened in the order of the items. ``run`` must be picklable when ``jobs`` > 1."""
    if jobs > 1:
        size = max(1, min(size, -(-len(items) // jobs)))
    batches = [list(items[i:i + size]) for i in range(0, len(items), size)]
    if jobs <= 1 or len(batches) < 2:
        for b in batches:
            yield from run(b)
        return
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        for results in pool.map(run, batches):
            yield from results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
