"""The one mapping between Python values and ASP terms.

Facts go in as strings (fast to build, one ``Control.add``); answers come out as
``clingo.Symbol`` and are read back here. Nothing else in the package spells a term.
"""

from __future__ import annotations

import re
from functools import lru_cache

import clingo

from ..errors import InputError
from ..limits import MAX_TIMELINES, MAX_TURN

_IDENT = re.compile(r"[a-z][a-zA-Z0-9_]*\Z")


@lru_cache(maxsize=4096)
def const(name: str) -> str:
    """A name as an ASP constant, quoted when it is not a plain lower-case identifier (the few names of
    a map and its powers are spelled again and again: remembered)."""
    lowered = name.lower()
    return lowered if _IDENT.match(lowered) else '"' + lowered.replace('"', '') + '"'


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


# -- reading answers ------------------------------------------------------------------------


def name_of(sym: clingo.Symbol) -> str:
    return sym.string if sym.type == clingo.SymbolType.String else sym.name


# Reading a symbol's text once is much cheaper than walking its arguments through the C API.
_BOARD = re.compile(r"b\((-?\d+),(-?\d+)\)\Z")
_PLACE = re.compile(r'p\(b\((-?\d+),(-?\d+)\),"?([^",]+)"?\)\Z')


def read_place(sym: clingo.Symbol) -> tuple[int, int, str]:
    """``p(b(T,N),P)`` → (timeline, turn, province)."""
    m = _PLACE.match(str(sym))
    if m is None:
        raise ValueError(f"not a place: {sym}")
    return int(m[1]), int(m[2]), m[3]


def read_location(sym: clingo.Symbol) -> str:
    if sym.type == clingo.SymbolType.Function and sym.name == "c" and len(sym.arguments) == 2:
        prov, coast = sym.arguments
        return f"{name_of(prov)}/{name_of(coast)}"
    return name_of(sym)



# -- reading answers from their text -----------------------------------------------------------------
# An answer's atoms are read once as text (one call into clingo per atom) and taken apart here.

_PLACE_TEXT = r'p\(b\((-?\d+),(-?\d+)\),"?([^",()]+)"?\)'
_PLACE_ONLY = re.compile(_PLACE_TEXT + r"\Z")
_PLACE_PAIR = re.compile(_PLACE_TEXT + "," + _PLACE_TEXT + r"\Z")
_PLACE_LOC = re.compile(_PLACE_TEXT + r',(?:c\("?([^",()]+)"?,"?([^",()]+)"?\)|"?([^",()]+)"?)\Z')
_DECISION_OWNER = re.compile(r"(\w+)\(" + _PLACE_TEXT + r"\),b\((-?\d+),(-?\d+)\)\Z")


def place_of(text: str) -> tuple[int, int, str]:
    """``p(b(T,N),P)`` as text → (timeline, turn, province)."""
    m = _PLACE_ONLY.match(text)
    if m is None:
        raise ValueError(f"not a place: {text}")
    return int(m[1]), int(m[2]), m[3]


_LEADING_PLACE = re.compile(_PLACE_TEXT + r"(?:,|\Z)")


def leading_place_of(text: str) -> tuple[int, int, str]:
    """The place an atom's arguments begin with: ``p(b(T,N),P),...``."""
    m = _LEADING_PLACE.match(text)
    if m is None:
        raise ValueError(f"does not begin with a place: {text}")
    return int(m[1]), int(m[2]), m[3]


def place_pair_of(text: str) -> tuple[tuple[int, int, str], tuple[int, int, str]]:
    m = _PLACE_PAIR.match(text)
    if m is None:
        raise ValueError(f"not two places: {text}")
    return (int(m[1]), int(m[2]), m[3]), (int(m[4]), int(m[5]), m[6])


def place_location_of(text: str) -> tuple[tuple[int, int, str], str]:
    """``p(b(T,N),P),L`` → (place, location), the location ``spa/nc`` for ``c(spa,nc)``."""
    m = _PLACE_LOC.match(text)
    if m is None:
        raise ValueError(f"not a place and a location: {text}")
    loc = f"{m[4]}/{m[5]}" if m[4] else m[6]
    return (int(m[1]), int(m[2]), m[3]), loc


def decision_owner_of(text: str) -> tuple[tuple[str, tuple[int, int, str]], tuple[int, int]]:
    """``moves(p(b(T,N),P)),b(T2,N2)`` → ((decision name, place), owning board)."""
    m = _DECISION_OWNER.match(text)
    if m is None:
        raise ValueError(f"not a decision and its owner: {text}")
    return (m[1], (int(m[2]), int(m[3]), m[4])), (int(m[5]), int(m[6]))


def board_of(text: str) -> tuple[int, int]:
    m = _BOARD.match(text)
    if m is None:
        raise ValueError(f"not a board: {text}")
    return int(m[1]), int(m[2])


def reason_of(sym: clingo.Symbol) -> tuple[int, str, tuple[int, int, str] | None, tuple]:
    """``reason(I,K,V,X)`` → (order id, kind, unit place or None, detail). The detail is ``()`` for
    ``none``, else the name and arguments of X: ``("s", "hold", 1, 1)``, ``("did", "moves")``,
    ``("rule", "szykman")``, ``("n", 2)``."""
    i, kind, unit, detail = sym.arguments
    place = None if unit.type == clingo.SymbolType.Function and unit.name == "none" else read_place(unit)
    if detail.type == clingo.SymbolType.Function and detail.name == "none" and not detail.arguments:
        parts: tuple = ()
    else:
        parts = (detail.name, *(a.number if a.type == clingo.SymbolType.Number else name_of(a)
                                for a in detail.arguments))
    return i.number, kind.name, place, parts


_REASON = re.compile(r'(-?\d+),(\w+),(?:none|' + _PLACE_TEXT + r'),(?:none|(\w+)\(([^()"]*)\))\Z')


def reason_text_of(text: str) -> tuple[int, str, tuple[int, int, str] | None, tuple]:
    """``reason/4``'s arguments as text → what ``reason_of`` reads from the symbol (a detail whose
    arguments are not plain numbers and names is read through clingo)."""
    m = _REASON.match(text)
    if m is None:
        return reason_of(clingo.parse_term(f"reason({text})"))
    place = (int(m[3]), int(m[4]), m[5]) if m[3] is not None else None
    if m[6] is None:
        return int(m[1]), m[2], place, ()
    args = tuple(int(a) if a.lstrip("-").isdigit() else a for a in m[7].split(",")) if m[7] else ()
    return int(m[1]), m[2], place, (m[6], *args)
