"""The one mapping between Python values and ASP terms.

Facts are built as values (tuples, see "facts as values" below) and go in as the text that
``predicates.render`` spells from their predicates' declarations with the spellings here (fast to
build, one ``Control.add``); answers come out as ``clingo.Symbol`` and are decoded by the same
declarations (solver/predicates.py). Nothing else in the package spells a term.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

import clingo

from ..errors import InputError
from ..limits import MAX_TIMELINES, MAX_TURN

_IDENT = re.compile(r"[a-z][a-zA-Z0-9_]*\Z")
_KEYWORDS = frozenset({"not"})
"""Identifiers the solver's language keeps for itself: spelled as strings."""


@lru_cache(maxsize=4096)
def const(name: str) -> str:
    """A name as an ASP term in lower case: a constant when it is a plain identifier, else a string,
    escaped exactly as clingo spells it (a backslash, a double quote and a line break), so that two
    names differing in anything but case are two terms and ``name_of`` reads each back as
    ``name.lower()`` (a map refuses two powers equal ignoring case: model/map.py). Remembered: the
    few names of a map and its powers are spelled again and again."""
    lowered = name.lower()
    if _IDENT.match(lowered) and lowered not in _KEYWORDS:
        return lowered
    return '"' + lowered.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def by_name(names: Iterable[str]) -> dict[str, str]:
    """What ``name_of`` reads back from the term of each name (``const``) → the name: how a power (or
    any name) in a solver's answer is told by its own spelling again."""
    return {name.lower(): name for name in names}


def board(timeline: int, turn: int) -> str:
    """A board term. Numbers beyond the limits never reach the solver: clingo's integers are 32-bit,
    so a turn of 2**32 would silently name turn 0, a real board (docs/limits.md)."""
    if not (0 <= timeline < MAX_TIMELINES and 0 <= turn <= MAX_TURN):
        raise InputError(f"board of timeline {timeline} turn {turn} is beyond the limits "
                         f"({MAX_TIMELINES:,} timelines, turns 0 to {MAX_TURN:,})")
    return f"b({timeline},{turn})"


def place(timeline: int, turn: int, province: str) -> str:
    return f"p({board(timeline, turn)},{const(province)})"


def location(loc: str) -> str:
    """``spa/nc`` → ``c(spa,nc)``; a province-level location is the province constant."""
    prov, _, coast = loc.partition("/")
    return f"c({const(prov)},{const(coast)})" if coast else const(prov)


# -- reading symbols ------------------------------------------------------------------------------


def name_of(sym: clingo.Symbol) -> str:
    return sym.string if sym.type == clingo.SymbolType.String else sym.name


# Reading a symbol's text once is much cheaper than walking its arguments through the C API.
_PLACE = re.compile(r'p\(b\((-?\d+),(-?\d+)\),"?([^",]+)"?\)\Z')


def read_place(sym: clingo.Symbol) -> tuple[int, int, str]:
    """``p(b(T,N),P)`` → (timeline, turn, province): a place the driver names (a backup rule's units);
    the places of an answer's atoms are read by their predicates' declarations (solver/predicates.py)."""
    m = _PLACE.match(str(sym))
    if m is None:
        raise ValueError(f"not a place: {sym}")
    return int(m[1]), int(m[2]), m[3]


def read_location(sym: clingo.Symbol) -> str:
    if sym.type == clingo.SymbolType.Function and sym.name == "c" and len(sym.arguments) == 2:
        prov, coast = sym.arguments
        return f"{name_of(prov)}/{name_of(coast)}"
    return name_of(sym)


# -- reading answers ------------------------------------------------------------------------------
# An answer's atoms are read once as text (``symbol_texts``: one spelling a symbol) and decoded by their
# predicates' declarations (``predicates.reader``).


def symbol_texts(symbols: Sequence[clingo.Symbol]) -> list[str]:
    """The text of each symbol, as ``str`` spells it: two calls into clingo a symbol. Spelling many
    symbols at once, as one tuple symbol made of them, costs fewer calls, but clingo keeps every
    symbol ever made, that tuple too: memory held for every atom read, for as long as the process
    runs, which a game server or a long comparison run would pay for good (docs/benchmarks.md)."""
    return [str(sym) for sym in symbols]


# -- facts as values ---------------------------------------------------------------------------------
# A fact is a tuple: its predicate's name, then its arguments as values. An argument is
# A fact's predicate is declared in solver/predicates.py, which says the kind of each argument and
# spells it (``predicates.fact_lines``); inside an argument declared a term, the values themselves say:
#   - a ``str``: a term already spelled (a constant through ``const``, a location, ``army``);
#   - an ``int``: a number;
#   - a board ``(timeline, turn)`` or a place ``(timeline, turn, province)``, the province a plain name;
#   - a function term ``(name, argument, ...)`` (a tuple whose first item is a ``str``; the name ``""``
#     makes a tuple term, ``(X,Y)``);
#   - an ``OrderId``, a ``Timeline`` or a ``Game``: numbers that name one phase's orders, timelines or
#     game, and an ``OrderIds`` interval (``new(0..K)``).
# Facts are spelled by ``predicates.fact_lines`` alone. Given a phase number k, it numbers the phase apart
# from every other in a joint program (engine/batch.py): timelines (of boards, places and timeline
# arguments) move up by k * TIMELINE_STRIDE, order ids by k * ORDER_STRIDE and the game by k. Which
# numbers move is said by the declaration's kinds of arguments (and, inside a term, by the values' own
# classes), so a fact is numbered the same wherever it is built.

TIMELINE_STRIDE = MAX_TIMELINES  # no timeline of a phase reaches the next phase's first; 10,000, a power of ten that batch._shifted_board reads off the text
ORDER_STRIDE = 1 << 20  # more than the order ids of one step: new orders (limits.MAX_ORDERS) and recorded ones


class OrderId(int):
    """An order's id: numbered apart in a joint program. The numbered kinds are ``int`` subclasses, made
    and spelled as cheaply as the numbers they are (a phase has dozens of them)."""

    __slots__ = ()


class Timeline(int):
    """A timeline given as a plain number (``fork/3``, ``dissolved/1``, the sustain phase's facts): numbered
    apart in a joint program."""

    __slots__ = ()


class Game(int):
    """The game a fact belongs to (the victory rules judge a game's heads together)."""

    __slots__ = ()


class OrderIds(NamedTuple):
    """The order ids ``first..last``, one interval term."""

    first: int
    last: int


Fact = tuple  # (predicate name, *arguments), the arguments as above: plain tuples, the cheapest to build


def term(a, k: int, dt: int, di: int) -> str:
    """One argument spelled from its value (an argument that ``predicates`` declares a term); places and
    boards are checked against the limits with their own numbers, before they are moved up."""
    kind = type(a)
    if kind is tuple:
        first = a[0]
        if type(first) is str:
            return f"{first}({','.join([x if type(x) is str else term(x, k, dt, di) for x in a[1:]])})"
        if len(a) == 3:
            return place_text(first, a[1], a[2], dt)
        if not (0 <= first < MAX_TIMELINES and 0 <= a[1] <= MAX_TURN):
            board(first, a[1])  # raises the limit's error
        return f"b({first + dt},{a[1]})"
    if kind is int:
        return str(a)
    if kind is OrderId:
        return str(a + di)
    if kind is Timeline:
        return str(a + dt)
    if kind is Game:
        return str(a + k)
    if kind is OrderIds:
        return f"{a.first + di}..{a.last + di}"
    if isinstance(a, str):  # a name read with its source line (a str subclass), spelled as it is
        return str(a)
    raise TypeError(f"not a fact's argument: {a!r}")


def place_text(timeline: int, turn: int, province: str, dt: int) -> str:
    """``p(b(T,N),P)`` with the timeline moved up by ``dt``; the limits are those of the unmoved board."""
    if not (0 <= timeline < MAX_TIMELINES and 0 <= turn <= MAX_TURN):
        board(timeline, turn)  # raises the limit's error
    return f"p(b({timeline + dt},{turn}),{const(province)})"
