"""Work done apart: in a child process with a time limit and a memory limit.

clingo cannot interrupt its grounder: a program whose grounding never ends (a rule of your own such
as ``p(X+1) :- p(X).``) holds the process until its memory is gone, whatever the time limit says.
Such work is done in a child process, whose address space may grow by at most a given number of
bytes (``RLIMIT_AS``) and which the parent kills when its time is up. It sends its result back through
a pipe (pickled), or the exception the work raised.

How the child is made depends on the process asking:
- **one thread** (a command): ``os.fork``. The child starts as a copy of the parent, caches included,
  so nothing needs to be handed to it.
- **several threads, in a process that asked for it** (``fork_by_a_server``: the game server, whose
  solver threads work side by side): a fork copies every lock as it is at that moment, and a lock
  another thread holds then (clingo's own, while that thread grounds another game) is never released
  in the child, which waits on it until its time is up: a rule that grounds in a moment would be
  reported as grounding without end. The child is forked instead by a server of forks
  (``multiprocessing``'s ``forkserver``: a fresh interpreter with one thread, started once per
  process, the solver's modules imported in it), and the work and its arguments are handed to it
  pickled: ``work`` is then a function defined at a module's top level.
- **several threads otherwise** (a script of threads, a Dask worker): ``os.fork``, as before.

Only programs with rules of your own are run this way (``driver.solve_decisions``,
``driver.refusals_alone``): the built-in encodings' grounding is bounded by the input limits
(``limits.py``), and their programs are ground in the process itself, as before, at no extra cost.
Where there is no ``fork`` (Windows), the work runs in the process itself, without these limits.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
import threading
import time
from typing import Any, Callable, NoReturn, TypeVar

try:
    import resource
except ImportError:  # not a POSIX system
    resource = None  # type: ignore[assignment]

T = TypeVar("T")

_NO_ANSWER = 70  # the exit status of a child that could not send its answer
_OUT_OF_MEMORY = 71  # ... because its memory ran out while it did
_CHUNK = 1 << 20


class LimitHit(Exception):
    """Work done apart that hit a limit: ``kind`` is ``"time"`` or ``"memory"``; ``detail`` says more
    when there is more to say (the signal that ended the child). The caller says what was too big."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind, detail)
        self.kind = kind
        self.detail = detail


def can_run_apart() -> bool:
    """Whether work can be done apart here (a system with ``fork``)."""
    return hasattr(os, "fork")


def run_apart(work: Callable[..., T], seconds: float, memory: int | None, args: tuple = ()) -> T:
    """``work(*args)`` done in a child process: its result, or the exception it raised, raised again
    here. LimitHit when it takes longer than ``seconds`` (the child is killed) or when its address
    space would grow by more than ``memory`` bytes (None: no memory limit). The result must pickle;
    in a process of several threads, ``work`` and ``args`` must pickle too (the module's docstring)."""
    if not callable(work):
        raise TypeError("work must be callable")
    if not isinstance(args, tuple):
        raise TypeError("args must be a tuple")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0:
        raise ValueError("seconds must be a positive number")
    if memory is not None and (not isinstance(memory, int) or isinstance(memory, bool) or memory <= 0):
        raise ValueError("memory must be a positive number of bytes, or None")
    if not can_run_apart():
        return work(*args)
    if _served.is_set() and threading.active_count() > 1:
        return _served_apart(work, args, seconds, memory)
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(read_fd)
        os.close(write_fd)
        raise
    if pid == 0:
        _child(lambda: work(*args), read_fd, write_fd, memory)
    os.close(write_fd)
    return _answer(pid, read_fd, seconds)


# set once a process asks for a server of forks (``fork_by_a_server``): a choice of the process, as
# ``multiprocessing``'s start method is
_served = threading.Event()


def fork_by_a_server() -> None:
    """From now on, work apart asked while this process has several threads is forked by the server of
    forks (the module's docstring). Asked by the game server's application, whose solver threads work
    side by side. Not the default: the server of forks hands each child the main module to import again
    (``multiprocessing``'s way), which a script of several threads without the ``if __name__ ==
    "__main__":`` guard cannot bear; a process that has not asked forks itself, as it always did."""
    _served.set()


# the modules the server of forks imports once, so that each child it forks has them: the solver, and
# the built-in encodings parsed (a child solving a program with rules of your own reads every file of it)
_PRELOAD = ["fivedp_asp.solver.driver", "fivedp_asp.solver.preparsed"]


def _fork_server() -> Any:
    """The server of forks (``multiprocessing``'s, one per process, started on its first fork)."""
    import multiprocessing

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # read when it starts; the same list every time
    return context


def _served_apart(work: Callable[..., T], args: tuple, seconds: float, memory: int | None) -> Any:
    """``run_apart`` from a process of several threads: the child forked by the server of forks; its
    time counted from the moment it runs (the server's first start, a fresh interpreter, is not the
    work's)."""
    context = _fork_server()
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_served_child, args=(work, args, writer, memory), daemon=True)
    try:
        child.start()
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        reader.close()
        writer.close()
        raise TypeError(f"work done apart from a process of several threads must pickle: {exc}") from None
    writer.close()
    try:
        if not reader.poll(seconds):
            raise LimitHit("time")
        try:
            data = reader.recv_bytes()
        except EOFError:
            data = b""
    finally:
        reader.close()
        if child.is_alive():
            child.kill()
        child.join()
    if not data:
        code = child.exitcode or 0
        if code == _OUT_OF_MEMORY:
            raise LimitHit("memory")
        if code < 0:
            raise LimitHit("memory", f"it was ended by signal {-code}")
        raise RuntimeError(f"a child process ended without an answer (exit status {code})")
    return _outcome(data)


def _served_child(work: Callable[..., Any], args: tuple, writer: Any, memory: int | None) -> NoReturn:
    """The life of a child of the server of forks: as ``_child``, its outcome sent through ``writer``."""
    _live(lambda: work(*args), memory, writer.send_bytes)


def _child(work: Callable[[], Any], read_fd: int, write_fd: int, memory: int | None) -> NoReturn:
    """The life of a forked child: the work, its outcome written to the pipe. Nothing here may raise
    into the parent's code, which the child would then go on running."""
    try:
        os.close(read_fd)
    except OSError:
        pass

    def send(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view[:_CHUNK]):]

    _live(work, memory, send)


def _live(work: Callable[[], Any], memory: int | None, send: Callable[[bytes], None]) -> NoReturn:
    """A child's whole life, however it was made: the work within the memory limit, its outcome sent,
    and an exit that runs none of the parent's exit handlers and flushes none of its buffers
    (``os._exit``), its status saying when no answer could be sent."""
    status = _NO_ANSWER
    try:
        if memory is not None:
            _limit_memory(memory)
        try:
            outcome: tuple[str, Any] = ("value", work())
        except MemoryError:
            outcome = ("memory", None)
        except BaseException as exc:  # noqa: BLE001 - raised again in the parent
            outcome = ("raised", exc)
        send(_pickled(outcome))
        status = 0
    except MemoryError:
        status = _OUT_OF_MEMORY
    except BaseException:  # noqa: BLE001 - the parent sees a child without an answer
        pass
    finally:
        os._exit(status)


def _pickled(outcome: tuple[str, Any]) -> bytes:
    """The outcome as bytes; an exception that does not survive pickling is sent as a RuntimeError
    with its type and message."""
    kind, payload = outcome
    if kind == "raised":
        try:
            data = pickle.dumps(outcome)
            pickle.loads(data)
            return data
        except Exception:  # noqa: BLE001 - an exception whose arguments do not rebuild it
            return pickle.dumps(("raised", RuntimeError(f"{type(payload).__name__}: {payload}")))
    return pickle.dumps(outcome)


def _limit_memory(extra: int) -> None:
    """Lets the address space grow by ``extra`` bytes from what it is now (what the child shares with
    the parent is counted in what it is now), never beyond a lower limit set already. Without
    ``/proc`` (not Linux) the address space is not known, and no limit is set."""
    if resource is None:
        return
    try:
        with open("/proc/self/statm", "rb") as statm:
            now = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = now + extra
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


def _answer(pid: int, read_fd: int, seconds: float) -> Any:
    """Reads the child's outcome until it closes the pipe or the time is up; the child is killed
    unless it finished, and always waited for (no zombie is left, whatever interrupts the wait)."""
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    finished = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(read_fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LimitHit("time")
                if not selector.select(left):
                    continue
                chunk = os.read(read_fd, _CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
        finished = True
    finally:
        os.close(read_fd)
        if not finished:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    if not chunks:
        code = os.waitstatus_to_exitcode(status)
        if code == _OUT_OF_MEMORY:
            raise LimitHit("memory")
        if code < 0:
            # a child that ends by a signal without an answer (the kernel's out-of-memory killer, an
            # abort where an allocation failed) has most likely run out of memory
            raise LimitHit("memory", f"it was ended by signal {-code}")
        raise RuntimeError(f"a child process ended without an answer (exit status {code})")
    return _outcome(b"".join(chunks))


def _outcome(data: bytes) -> Any:
    """The child's answer: its value, or what it raised raised again."""
    kind, payload = pickle.loads(data)
    if kind == "value":
        return payload
    if kind == "memory":
        raise LimitHit("memory")
    raise payload
