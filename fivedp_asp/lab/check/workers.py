"""Files worked through in batches, in this process or in worker processes (``--jobs``).

``fivedp check`` and ``fivedp explore`` (and its studies) run their items a batch at a time, each
batch in lockstep (``batch.py``); with more than one job, worker processes take the batches in turn,
and with a Dask scheduler (``--scheduler``), the workers of a Dask cluster do. Results come back in the
order of the items either way, so the output does not depend on what ran it.

A cluster is outside this process and may fail in ways a pool of our own processes does not: the
address may name nothing, or a service that is not a Dask scheduler, and the scheduler or every
worker may go away half way. Each of these ends the run within a bounded time (``CONNECT_SECONDS``,
``LOST_SECONDS``) as bad input, with one line saying what happened and how far the run got; Dask's own
log lines and warnings are kept off the terminal meanwhile (docs/limits.md, "Dask clusters").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence, TypeVar
from urllib.parse import urlsplit

from ...errors import InputError, UsageError, cut_text, quoted

T = TypeVar("T")
R = TypeVar("R")

CONNECT_SECONDS = 10.0
"""How long a scheduler has to accept the connection and answer as a Dask scheduler."""

LOST_SECONDS = 30.0
"""How long a run waits for a cluster whose scheduler does not answer, or that has no worker, before
it is given up as lost (a worker's restart, or a scheduler's pause, takes less)."""

POLL_SECONDS = 1.0
"""How often a run that waits for a batch asks the scheduler how many workers it has."""

ACCEPTED = ("give tcp://HOST:PORT (or HOST:PORT), tls://HOST:PORT with TLS set up in Dask's configuration, "
            "or local for a local cluster")


def in_batches(items: Sequence[T], run: Callable[[list[T]], list[R]], size: int, jobs: int = 1,
               scheduler: str | None = None, what: str = "items") -> Iterator[R]:
    """``run`` over batches of at most ``size`` items (smaller, when that gives every worker one),
    its results flattened in the order of the items. ``run`` must be picklable when ``jobs`` > 1 or
    with a ``scheduler``: a Dask scheduler's address, or ``local`` for a local cluster of ``jobs``
    worker processes (docs/explore.md, "On a cluster"). ``what`` names the items in the message of a
    lost cluster ("files", "games").

    The address is checked here, before any item is run, so that a bad one is told before anything
    is printed; a cluster is reached at the first result asked for."""
    if not callable(run):
        raise UsageError(f"in_batches: run must be callable, not {type(run).__name__}")
    if not isinstance(what, str):
        raise UsageError(f"in_batches: what must be text, not {type(what).__name__}")
    for name, value in (("size", size), ("jobs", jobs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"in_batches: {name} must be a whole number of at least 1, not {value!r}")
    address = None if scheduler is None else scheduler_address(scheduler)
    if jobs > 1 or address is not None:
        size = max(1, min(size, -(-len(items) // jobs)))
    batches = [list(items[i:i + size]) for i in range(0, len(items), size)]
    if address is not None:
        return _on_dask(batches, run, address, jobs, what)
    return _here(batches, run, jobs)


def _here(batches: list[list], run: Callable, jobs: int) -> Iterator:
    """The batches in this process, or in a pool of ``jobs`` worker processes of our own."""
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


# -- the address of a scheduler ------------------------------------------------------------------


def scheduler_address(text: str) -> str:
    """The address ``--scheduler`` gives, as Dask is handed it (``HOST:PORT`` becomes
    ``tcp://HOST:PORT``), or ``local``. Only what this module can reach from another process is
    accepted: Dask's other transports (``inproc`` is one process's own, ``ucx`` and ``ws`` need
    what the ``dist`` extra does not bring) fail later, and less clearly, than here."""
    if not isinstance(text, str):
        raise UsageError(f"scheduler_address: the address must be text, not {type(text).__name__}")
    if text == "local":
        return text
    if not text.strip():
        raise _bad(text, "no address")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme not in ("tcp", "tls"):
        raise _bad(text, f"{quoted(scheme, 20)} addresses are not supported")
    try:
        parts = urlsplit(f"//{rest}")
        port = parts.port
    except ValueError:
        raise _bad(text, "the port must be a number from 1 to 65535") from None
    if parts.path or parts.query or parts.fragment or "?" in rest or "#" in rest:
        raise _bad(text, "an address has a host and a port only, not a path")
    if parts.username is not None:
        raise _bad(text, "an address has a host and a port only, not a user name")
    if not parts.hostname:
        raise _bad(text, "no host")
    if port is None:
        raise _bad(text, "no port")
    if not 1 <= port <= 65535:
        raise _bad(text, "the port must be a number from 1 to 65535")
    return f"{scheme}://{parts.netloc}"


def _bad(text: str, problem: str) -> InputError:
    return InputError(f"--scheduler {quoted(text)}: {problem}; {ACCEPTED}")


# -- a Dask cluster ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Progress:
    """How far a run on a cluster got: ``done`` batches of ``batches`` came back, in order."""

    address: str
    batches: tuple[int, ...]  # the number of items in each batch
    what: str

    def lost(self, done: int, why: str) -> InputError:
        """The cluster lost after ``done`` batches: what was done and what was not, by item number."""
        total, first = sum(self.batches), sum(self.batches[:done])
        n = len(self.batches)
        if n == 1:
            told = f"its one batch ({self.what} 1 to {total}) was not done"
        elif done == 0:
            told = f"none of the {n} batches ({self.what} 1 to {total}) was done"
        else:
            told = (f"{done} of {n} batches were done ({self.what} 1 to {first} of {total}), "
                    f"the other {n - done} ({self.what} {first + 1} to {total}) were not")
        return InputError(f"lost the Dask cluster at {self.address}: {why}; {told}")


def _on_dask(batches: list[list], run: Callable, address: str, jobs: int, what: str) -> Iterator:
    """The batches on a Dask cluster, their results in the order of the batches (so the output is the
    one of a local run); the client, and a local cluster made here, are closed at the end, whatever
    ends the run."""
    try:
        import distributed
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'fivedp-asp[dist]'") from None
    with _quiet():
        client, cluster = _connect(distributed, address, jobs)
        try:
            yield from _results(distributed, client, batches, run, _Progress(address, tuple(map(len, batches)), what))
        finally:
            _close(client, cluster)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's log lines and warnings off the terminal while a cluster is used: a lost connection makes
    Dask log tracebacks that say less than the one line this module prints. Logging and the warnings
    filters are the process's, so both are put back as they were."""
    disabled = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(disabled)


def dask_setup(worker: Any) -> None:
    """Run by Dask in each worker process of a local cluster as it starts (this module is the
    workers' ``preload``, ``_connect``): such a process shares the user's terminal, and all it could
    print there is Dask's (its log, the traceback of a worker ended while it closes), never a result,
    which comes back as a value. So its standard error goes nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
    finally:
        os.close(devnull)


def _connect(distributed: Any, address: str, jobs: int) -> tuple[Any, Any]:
    """A client of the cluster at ``address`` (and the local cluster it uses, for ``local``)."""
    if address == "local":
        cluster = distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.CRITICAL,
                                           preload=[__name__])
        return distributed.Client(cluster), cluster
    security = distributed.Security()
    if address.startswith("tls://") and security.get_connection_args("client")["ssl_context"] is None:
        raise _bad(address, "tls:// needs TLS set up in Dask's configuration (distributed.comm.tls: its "
                            "ca-file and the client's cert and key), and none is")
    _reach(address)
    _ask_identity(distributed, address, security)
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS, security=security), None
    except Exception as exc:  # noqa: BLE001 - it answered as a scheduler a moment ago: now it does not
        raise _unreachable(address, f"{type(exc).__name__}: {cut_text(str(exc), 200)}") from None


def _unreachable(address: str, why: str) -> InputError:
    return InputError(f"cannot reach a Dask scheduler at {address}: {why}")


def _reach(address: str) -> None:
    """A TCP connection to the address, made and closed at once, so that a port nobody listens on or a
    host that does not exist is told at once (Dask would try again until its timeout)."""
    parts = urlsplit("//" + address.split("://", 1)[1])
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_SECONDS):
            pass
    except socket.gaierror as exc:
        raise _unreachable(address, f"no such host ({exc.strerror})") from None
    except ConnectionRefusedError:
        raise _unreachable(address, "connection refused (nothing listens on that port)") from None
    except TimeoutError:
        raise _unreachable(address, f"no answer within {CONNECT_SECONDS:g} s") from None
    except OSError as exc:
        raise _unreachable(address, exc.strerror or cut_text(str(exc), 200)) from None


def _ask_identity(distributed: Any, address: str, security: Any) -> None:
    """Asks the service at ``address`` what it is, within ``CONNECT_SECONDS``: a Dask client handed to
    a service that accepts and never speaks waits for minutes, and one handed to a service that speaks
    another protocol reads its first bytes as a length (and runs out of memory)."""
    from distributed.core import rpc

    async def identity() -> Any:
        async with rpc(address, timeout=CONNECT_SECONDS,
                       connection_args=security.get_connection_args("client")) as service:
            return await service.identity()

    try:
        # in a thread of its own, so that a caller running an event loop of its own is no hindrance
        with ThreadPoolExecutor(max_workers=1) as thread:
            found = thread.submit(asyncio.run, asyncio.wait_for(identity(), CONNECT_SECONDS)).result()
    except TimeoutError:
        raise _unreachable(address, f"no answer within {CONNECT_SECONDS:g} s (is it a Dask scheduler?)") from None
    except Exception as exc:  # noqa: BLE001 - whatever its answer broke, the service is not a scheduler
        raise _unreachable(address, f"the service there does not answer as a Dask scheduler "
                                    f"({type(exc).__name__})") from None
    kind = found.get("type") if isinstance(found, dict) else None
    if kind != "Scheduler":
        named = f"a Dask {str(kind).lower()}" if kind else "a service that is not Dask"
        raise _unreachable(address, f"it is {named}, not a scheduler")


def _results(distributed: Any, client: Any, batches: list[list], run: Callable, progress: _Progress) -> Iterator:
    """The results of the batches, in order. Between answers the scheduler is asked how many workers
    it has: a scheduler gone, silent, or without a worker for ``LOST_SECONDS`` ends the run as a lost
    cluster, naming the batches that were done (their results were handed on already, once each)."""
    futures = client.map(run, batches, pure=False)
    waiting_since: float | None = None
    for done, future in enumerate(futures):
        while True:
            try:
                results = future.result(timeout=POLL_SECONDS)
                break
            except TimeoutError:
                pass  # not yet: see below whether anyone is working on it
            except distributed.CancelledError:
                raise progress.lost(done, "its scheduler went away") from None
            except distributed.KilledWorker:
                raise progress.lost(done, f"batch {done + 1} ended every worker process that ran it (out of "
                                          f"memory, or killed)") from None
            if client.status not in ("running", "connecting"):
                raise progress.lost(done, "its scheduler went away")
            asked = time.monotonic()
            why = _unwell(client)
            if why is None:
                waiting_since = None
                continue
            waiting_since = waiting_since or asked
            if time.monotonic() - waiting_since >= LOST_SECONDS:
                raise progress.lost(done, why)
        waiting_since = None
        yield from results


def _unwell(client: Any) -> str | None:
    """What keeps the cluster from running batches now, or ``None`` when it has a worker. A busy
    scheduler may be slow to answer, so it has as long as a new connection has."""
    try:
        workers = client.nthreads(callback_timeout=CONNECT_SECONDS)
    except Exception:  # noqa: BLE001 - no answer, whatever the reason, is what is counted
        return f"its scheduler has not answered for {LOST_SECONDS:g} s"
    return None if workers else f"it has had no worker for {LOST_SECONDS:g} s"


def _close(client: Any, cluster: Any) -> None:
    """The client and a local cluster closed, within a bounded time even when the scheduler is gone
    or silent."""
    with contextlib.suppress(Exception):
        client.close(timeout=CONNECT_SECONDS)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=CONNECT_SECONDS)
