"""Errors that reach the user as a message, never as a traceback.

Every error the package raises on purpose derives from :class:`FivedpError`, so that a program using
the API (docs/api.md) can catch them all at once; each kind also derives from the built-in exception a
Python programmer would expect for that misuse (``TypeError`` for an argument of the wrong type,
``ValueError`` for a value that cannot be used, ``OSError`` for a file that cannot be read or written).

A message quotes at most a short prefix of the input it is about (:func:`quoted`, :func:`shown_path`):
an order line of twenty megabytes is reported in one short line, never echoed whole.

A defect of fivedp itself (any other exception) is told in one short message that says where to
report it (:func:`crash_message`), by the command line and by the tools that go on with other files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

QUOTE_CHARS = 80
"""The longest piece of offending input (an order line, a value, a name) a message quotes whole."""

PATH_CHARS = 200
"""The longest file name a message gives whole (file names are how the user finds the file again)."""

MESSAGE_CHARS = 900
"""The longest message of an error: a longer one (a message built around an input not passed through
:func:`quoted`) keeps its start and its end, with the length of what was left out between them."""


def quoted(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of a piece of input, cut to its first ``limit`` characters (then ``…`` and its length).
    Text is quoted; any other value (a number read from a file) is shown as ``repr`` shows it."""
    if not isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= limit else f"{shown[:limit]}… ({len(shown):,} characters)"
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"


def shown_path(path: Any) -> str:
    """A file name as messages give it: whole unless it is longer than ``PATH_CHARS`` characters."""
    try:
        name = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    except (TypeError, ValueError):
        name = repr(path)
    if len(name) <= PATH_CHARS:
        return name
    return f"{name[:PATH_CHARS]}… ({len(name):,} characters)"


def _bounded(message: str) -> str:
    """The message itself when short; else its start and end with what was left out counted."""
    if len(message) <= MESSAGE_CHARS:
        return message
    keep = MESSAGE_CHARS // 2
    return f"{message[:keep]} … [{len(message) - 2 * keep:,} characters left out] … {message[-keep:]}"


class FivedpError(Exception):
    """The base of every error fivedp raises on purpose (bad input, misuse of the API, an engine defect)."""


class UsageError(FivedpError, TypeError):
    """An API function called with an argument of the wrong type (``None`` for a game, bytes for a
    path, a string where a list of order lines belongs): a defect of the calling program, raised at
    the API's boundary before anything is done. The message names the function, the argument and the
    type expected and given."""


class InputError(FivedpError, ValueError):
    """Bad input: a file, a line or an order that cannot be understood, or a value an API function
    cannot use. The message says where and what; it is bounded in length (``MESSAGE_CHARS``)."""

    def __init__(self, *args: Any):
        if len(args) == 1 and isinstance(args[0], str):
            args = (_bounded(args[0]),)
        super().__init__(*args)


class FileError(InputError, OSError):
    """A file that cannot be read or written: missing, not a regular file (a FIFO, a device, a
    folder), no permission, a full disk. The message names the file; ``path`` is its name and
    ``errno`` the system's error number when there is one."""

    def __init__(self, path: Any, problem: str, errno: int | None = None):
        super().__init__(f"{shown_path(path)}: {problem}")
        self.path = path
        self.problem = problem
        self.errno = errno
        self.filename = path
        self.strerror = problem

    def __str__(self) -> str:
        return str(self.args[0])


class NotationError(InputError):
    """An order or designation that cannot be parsed; ``position`` is the 0-based column of the problem."""

    def __init__(self, text: str, position: int, problem: str):
        self.text = text
        self.position = position
        self.problem = problem
        super().__init__(f"cannot parse {quoted(text)} at column {position + 1}: {problem}")


class AdjudicationError(FivedpError):
    """The solver found no way to adjudicate a step: an engine defect, reported with the facts involved."""


class OrderError(InputError):
    """An order line that cannot be read; ``text`` is the line, so a caller can say where it was written."""

    def __init__(self, text: str, message: str):
        self.text = text
        super().__init__(message)


class EncodingError(AdjudicationError):
    """A logic program that clingo cannot read or ground: the message carries clingo's file and line."""


class TimeLimitError(InputError):
    """A step too big to settle within the time limit (``--time-limit``, ``time_limit=``). It is the
    input's size that the user controls, so it is reported like bad input: exit status 2, with the
    step's size and how to raise the limit."""


class MemoryLimitError(InputError):
    """A step with rules of your own whose program needs more memory than the memory limit allows
    (``--memory-limit``): reported like the time limit, as bad input with the step's size."""


class RuleError(InputError):
    """A rule of your own (``--rule``, a scenario's ``options: rules:``) that cannot be used: clingo cannot
    read it, it breaks the contract of docs/rules-of-your-own.md, or it leaves a step with no single
    adjudication. The message names the file (line and column where there is one) and the problem."""


# -- defects: what the user is told when fivedp itself fails ---------------------------------------


REPORT_HINT = ("This is a defect in fivedp, not in your input: please report it with the command and its files "
               "(see 'Reporting problems' in README.md).")


def cut_text(text: str, limit: int = 300) -> str:
    """A message from outside fivedp (the system's, an unexpected exception's) cut to its start: it
    may hold the input it failed on, whole."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def crash_message(exc: BaseException) -> str:
    """A defect in fivedp itself: one short message saying so, what failed and where to report it."""
    import traceback

    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return (f"internal error: {type(exc).__name__}: {cut_text(str(exc))}{where}\n"
            + REPORT_HINT)
