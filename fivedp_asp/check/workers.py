"""Files worked through in batches, in this process or in worker processes (``--jobs``).

``fivedp check`` and ``fivedp explore`` (and its studies) run their items a batch at a time, each
batch in lockstep (``batch.py``); with more than one job, worker processes take the batches in turn,
and with a Dask scheduler (``--scheduler``), the workers of a Dask cluster do. Results come back in the
order of the items either way, so the output does not depend on what ran it.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_batches(items: Sequence[T], run: Callable[[list[T]], list[R]], size: int, jobs: int = 1,
               scheduler: str | None = None) -> Iterator[R]:
    """``run`` over batches of at most ``size`` items (smaller, when that gives every worker one),
    its results flattened in the order of the items. ``run`` must be picklable when ``jobs`` > 1 or
    with a ``scheduler``: a Dask scheduler's address, or ``local`` for a local cluster of ``jobs``
    worker processes (docs/explore.md, "On a cluster")."""
    if jobs > 1 or scheduler is not None:
        size = max(1, min(size, -(-len(items) // max(jobs, 1))))
    batches = [list(items[i:i + size]) for i in range(0, len(items), size)]
    if scheduler is not None:
        yield from _on_dask(batches, run, scheduler, jobs)
        return
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


def _on_dask(batches: list, run: Callable, scheduler: str, jobs: int) -> Iterator:
    """The batches on a Dask cluster, their results in the order of the batches (so the output is the
    one of a local run); the client, and a local cluster made here, are closed at the end."""
    from ..errors import InputError

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'fivedp-asp[dist]'") from None
    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=max(jobs, 1), threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout="20s")
    except OSError as exc:
        raise InputError(f"--scheduler {scheduler[:80]}: cannot reach the Dask scheduler ({exc})") from None
    try:
        futures = client.map(run, batches, pure=False)
        for future in futures:
            yield from future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
