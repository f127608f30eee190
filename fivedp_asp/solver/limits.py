"""The limits a solver program runs within: its time (every program), and the memory of a program
with rules of your own (ground in a child process, ``apart.py``).

Both are set around a command or an API call with a context manager (``time_limit``,
``memory_limit``). One program's time is kept by a ``_Clock``, which says how big the step was when
it runs out.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..errors import InputError, TimeLimitError, UsageError

DEFAULT_TIME_LIMIT = 600.0  # seconds for one solver program: far beyond any real game's step

# The time limit of the commands and API calls running in this context: set around a command with
# ``time_limit`` (a context variable, so that concurrent callers and worker processes started inside
# the block each see their own value, and nothing outlives the block).
_TIME_LIMIT: ContextVar[float] = ContextVar("fivedp_time_limit", default=DEFAULT_TIME_LIMIT)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Every program solved inside the block must be settled within ``seconds`` (None: the default)."""
    limit = check_time_limit(seconds)
    token = _TIME_LIMIT.set(limit)
    try:
        yield
    finally:
        _TIME_LIMIT.reset(token)


def time_limit_in_effect() -> float:
    """The time limit set around the caller (``time_limit``), in seconds."""
    return _TIME_LIMIT.get()


# A program with rules of your own is ground and solved apart, in a child process (``apart.py``),
# whose memory may grow by at most this many MiB: grounding cannot be interrupted, and such a rule
# can make it grow without end. Set around a command with ``memory_limit``, as the time limit is.
DEFAULT_MEMORY_LIMIT = 4096
_MIB = 1 << 20
_MEMORY_LIMIT: ContextVar[int] = ContextVar("fivedp_memory_limit", default=DEFAULT_MEMORY_LIMIT)


@contextmanager
def memory_limit(mib: int | str | None) -> Iterator[None]:
    """Every program with rules of your own ground inside the block may use at most ``mib`` MiB more
    memory than the process had (None: the default)."""
    limit = check_memory_limit(mib)
    token = _MEMORY_LIMIT.set(limit)
    try:
        yield
    finally:
        _MEMORY_LIMIT.reset(token)


def check_memory_limit(mib: int | str | None) -> int:
    """The limit in MiB, or InputError for one that is not a whole number of MiB, at least 1."""
    if mib is None:
        return DEFAULT_MEMORY_LIMIT
    text = str(mib).strip()
    whole = not isinstance(mib, bool) and isinstance(mib, (int, str)) and text.isascii() and text.isdigit()
    if not whole or len(text) > 9 or int(text) < 1:
        raise InputError(f"memory limit {text[:40]!r}: give a whole number of MiB (at least 1)")
    return int(text)


def check_time_limit(seconds: float | None) -> float:
    """The limit in seconds, or InputError for one that is not a positive number."""
    if seconds is None:
        return DEFAULT_TIME_LIMIT
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise InputError(f"time limit {str(seconds)[:40]!r}: give a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise InputError(f"time limit {str(seconds)[:40]!r}: give a positive number of seconds")
    return value


# What the message of a limit reached tells its reader to do: the command line's flags by default; a
# server sets what its players and its operator can do instead (``limit_remedies``, serve.store).
_TIME_REMEDY: ContextVar[str] = ContextVar("fivedp_time_remedy", default="raise --time-limit (time_limit= in the API)")
_MEMORY_REMEDY: ContextVar[str] = ContextVar("fivedp_memory_remedy", default="raise --memory-limit")


@contextmanager
def limit_remedies(time_remedy: str, memory_remedy: str) -> Iterator[None]:
    """Inside the block, a time or memory limit reached says ``time_remedy`` or ``memory_remedy`` as
    what to do about it (the caller knows what its readers can change; the command line's flags are
    no use to a player of a served game)."""
    if not all(isinstance(r, str) and r.strip() for r in (time_remedy, memory_remedy)):
        raise UsageError("limit_remedies: give what to do about each limit as a sentence")
    tokens = _TIME_REMEDY.set(time_remedy), _MEMORY_REMEDY.set(memory_remedy)
    try:
        yield
    finally:
        _TIME_REMEDY.reset(tokens[0])
        _MEMORY_REMEDY.reset(tokens[1])


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


@dataclass
class _Clock:
    """The time left for one program, and what to say when it runs out (``size``: the driver tells it
    the step's size once it knows it; not a value, so not frozen)."""

    limit: float
    started: float = field(default_factory=time.monotonic)
    size: Callable[[], str] = lambda: ""

    def left(self) -> float:
        return self.limit - (time.monotonic() - self.started)

    def check(self) -> None:
        if self.left() <= 0:
            self.exceeded()

    def exceeded(self) -> None:
        size = self.size()
        raise TimeLimitError(f"this step is too big to settle within the time limit of {self.limit:g} s"
                             f"{f' ({size})' if size else ''}; {_TIME_REMEDY.get()}")
