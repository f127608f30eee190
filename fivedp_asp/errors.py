"""Errors that reach the user as a message, never as a traceback."""

from __future__ import annotations


class InputError(Exception):
    """Bad input: a file, a line or an order that cannot be understood. The message says where and what."""


class NotationError(InputError):
    """An order or designation that cannot be parsed; ``position`` is the 0-based column of the problem."""

    def __init__(self, text: str, position: int, problem: str):
        self.text = text
        self.position = position
        self.problem = problem
        super().__init__(f"cannot parse {text!r} at column {position + 1}: {problem}")


class AdjudicationError(Exception):
    """The solver found no way to adjudicate a step: an engine defect, reported with the facts involved."""


class OrderError(InputError):
    """An order line that cannot be read; ``text`` is the line, so a caller can say where it was written."""

    def __init__(self, text: str, message: str):
        self.text = text
        super().__init__(message)


class EncodingError(AdjudicationError):
    """A logic program that clingo cannot read or ground: the message carries clingo's file and line."""


class RuleError(InputError):
    """A rule of your own (``--rule``, a scenario's ``options: rules:``) that cannot be used: clingo cannot
    read it, it breaks the contract of docs/rules-of-your-own.md, or it leaves a step with no single
    adjudication. The message names the file (line and column where there is one) and the problem."""
