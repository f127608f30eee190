"""The declared table of the predicates the encodings read (input facts) and show (answers).

Each predicate is declared once, in ``PREDICATES``: its name, the kind of each argument (a board, a
place, a location, a name, a number, an order id, ...) and whether the Python side writes it (an input
fact), reads it from an answer (shown by a ``#show`` of ``asp/``), or both. Everything else follows
from the declaration:

- a fact is a tuple ``(name, value, ...)`` (``terms.Fact``); ``fact_lines`` spells it by the
  declaration of ``name`` with that many arguments, through a speller generated once from the kinds of
  its arguments (numbering a phase apart in a joint program as the kinds say: order ids, timelines,
  boards and places, games). A fact of a predicate not declared as an input is refused.
- an answer's atom, read as its argument text (``engine/answer.py``), is decoded into Python values by
  a reader generated once from the declaration of the shown predicate: one regular expression made of
  its arguments' patterns, and, for a text that does not fit it (a name clingo had to escape), the
  symbol walked argument by argument (``decode_symbol``).

To add a predicate: declare it here, with the kinds of its arguments, beside the encoding that reads or
shows it; tests/solver/test_predicates.py holds the table to the encodings (every ``#show``, every
predicate an encoding reads that no rule derives).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Flag
from functools import lru_cache
from typing import Any, Callable, Iterable

import clingo

from ..limits import MAX_TIMELINES, MAX_TURN
from . import terms
from .terms import Fact, name_of

# -- the kinds of arguments ---------------------------------------------------------------------------

_NAME = r'"?([^",()\\]+)"?'  # a constant, or a string clingo spells without an escape
_INT = r"(-?\d+)"
_BOARD = rf"b\({_INT},{_INT}\)"
_PLACE = rf"p\({_BOARD},{_NAME}\)"


def _board_of(sym: clingo.Symbol) -> tuple[int, int]:
    timeline, turn = sym.arguments
    return timeline.number, turn.number


def _place_of(sym: clingo.Symbol) -> tuple[int, int, str]:
    board, province = sym.arguments
    return (*_board_of(board), name_of(province))


def _location_of(sym: clingo.Symbol) -> str:
    return terms.read_location(sym)


def _decision_of(sym: clingo.Symbol) -> tuple[str, tuple[int, int, str]]:
    return sym.name, _place_of(sym.arguments[0])


def _optional_place_of(sym: clingo.Symbol) -> tuple[int, int, str] | None:
    return None if sym.type == clingo.SymbolType.Function and sym.name == "none" else _place_of(sym)


def _detail_of(sym: clingo.Symbol) -> tuple:
    """A reason's detail: ``()`` for ``none``, else its name and its arguments (numbers and names)."""
    if sym.type == clingo.SymbolType.Function and sym.name == "none" and not sym.arguments:
        return ()
    return (sym.name, *(a.number if a.type == clingo.SymbolType.Number else name_of(a) for a in sym.arguments))


def _detail_text(name: str | None, args: str | None) -> tuple:
    """A reason's detail from its text (``_detail_of`` for a detail of plain numbers and names)."""
    if name is None:
        return ()
    return (name, *(int(a) if a.lstrip("-").isdigit() else a for a in args.split(","))) if args else (name,)


@dataclass(frozen=True)
class Kind:
    """How one argument is spelled and read back.

    ``spell``: how the value ``V`` is spelled in a fact, a piece of a generated f-string (replacement
    fields and text: an interval is two numbers, ``{V.first+di}..{V.last+di}``), in a function that
    also sees ``places``, a cache of places spelled, ``dt``/``di``/``k``, the numbers a joint program
    moves timelines, order ids and games up by, and the helpers ``_board``/``_place``/``_term``), None
    when Python never writes it. ``pattern``: a regular expression reading it from an atom's text, its
    groups then made a value by ``read``, a Python expression over ``G(n)``, the n-th group of this
    argument. ``of_symbol``: the same value from the argument as a clingo symbol."""

    name: str
    spell: str | None
    pattern: str
    read: str
    of_symbol: Callable[[clingo.Symbol], Any]

    @property
    def groups(self) -> int:
        return re.compile(self.pattern).groups


BOARD = Kind("board", "{_board(V,dt)}", _BOARD, "(int(G(0)),int(G(1)))", _board_of)
"""``b(T,N)``, a ``(timeline, turn)`` pair; a joint program moves its timeline up."""
PLACE = Kind("place", "{places.get(V) or _place(V,places,dt)}", _PLACE, "(int(G(0)),int(G(1)),G(2))", _place_of)
"""``p(b(T,N),P)``, a ``(timeline, turn, province)`` triple, the province a plain name."""
LOCATION = Kind("location", "{V!s}", rf"(?:c\({_NAME},{_NAME}\)|{_NAME})",
                '(G(0)+"/"+G(1) if G(0) is not None else G(2))', _location_of)
"""A location spelled by ``terms.location`` (``c(spa,nc)``, ``mun``); read back as ``spa/nc``."""
NAME = Kind("name", "{V!s}", _NAME, "G(0)", name_of)
"""A name spelled by ``terms.const`` (or a constant such as ``army``, ``none``); read back in lower case."""
INT = Kind("int", "{V}", _INT, "int(G(0))", lambda s: s.number)
"""A plain number (a turn, a count, a flag, a rank): the same in every phase of a joint program."""
ORDER = Kind("order", "{V+di}", _INT, "int(G(0))", lambda s: s.number)
"""An order id; a joint program moves it up by its phase's share of ids."""
ORDERS = Kind("orders", "{V.first+di}..{V.last+di}", r"(-?\d+\.\.-?\d+)", "G(0)", str)
"""``terms.OrderIds``: an interval of order ids, ``F..L``."""
TIMELINE = Kind("timeline", "{V+dt}", _INT, "int(G(0))", lambda s: s.number)
"""A timeline given as a plain number; a joint program moves it up."""
GAME = Kind("game", "{V+k}", _INT, "int(G(0))", lambda s: s.number)
"""The game a fact belongs to; a joint program numbers its games apart."""
DECISION = Kind("decision", "{V[0]}({places.get(V[1]) or _place(V[1],places,dt)})",
                rf"(\w+)\({_PLACE}\)", "(G(0),(int(G(1)),int(G(2)),G(3)))", _decision_of)
"""A decision ``moves(p(...))``: a ``(name, place)`` pair."""
OPTIONAL_PLACE = Kind("place or none", None, rf"(?:none|{_PLACE})",
                      "(None if G(0) is None else (int(G(0)),int(G(1)),G(2)))", _optional_place_of)
"""A place, or ``none``: read back as None."""
DETAIL = Kind("detail", None, r'(?:none|(\w+)\(([^()"]*)\))', "_detail_text(G(0),G(1))", _detail_of)
"""A reason's detail: ``none`` (``()``) or a term of numbers and names (``("s", "hold", 1, 1)``)."""
TERM = Kind("term", "{_term(V,k,dt,di)}", r"(.+)", "G(0)", str)
"""Any term: spelled from its value as ``terms`` says (a function term as a tuple), read back as its
text; a term read back must be a predicate's last argument (its pattern takes the rest of the text)."""


class Role(Flag):
    INPUT = 1  # written by the Python side as facts
    SHOWN = 2  # shown by an encoding and read from its answers


INPUT, SHOWN = Role.INPUT, Role.SHOWN


@dataclass(frozen=True)
class Predicate:
    name: str
    args: tuple[Kind, ...]
    role: Role
    meaning: str

    @property
    def arity(self) -> int:
        return len(self.args)

    @property
    def signature(self) -> tuple[str, int]:
        return self.name, len(self.args)


def _p(name: str, args: Iterable[Kind], role: Role, meaning: str) -> Predicate:
    return Predicate(name, tuple(args), role, meaning)


# -- the table ----------------------------------------------------------------------------------------

PREDICATES: tuple[Predicate, ...] = (
    # the map (engine/facts.py; asp/movement/geography.lp, legality.lp, retreat/, adjustment/)
    _p("ptype", (NAME, NAME), INPUT, "province P is of type T (land, coast, sea, impassable)"),
    _p("loc", (LOCATION, NAME), INPUT, "location L lies in province P"),
    _p("edge", (NAME, LOCATION, LOCATION), INPUT, "a unit of kind K may step from L1 to L2"),
    _p("sea_adj", (NAME, NAME), INPUT, "two seas a convoy chain may link (geography.lp, once per map)"),
    _p("sea_next", (NAME, NAME), INPUT, "sea S touches coastal province P (geography.lp, once per map)"),
    _p("center", (NAME,), INPUT, "P is a supply centre"),
    _p("home", (NAME, NAME), INPUT, "P is a home centre of power Pw"),
    _p("padj", (NAME, NAME), INPUT, "provinces adjacent for any unit (civil disorder)"),
    _p("fadj", (NAME, NAME), INPUT, "provinces adjacent for fleets (civil disorder, datc_4d8)"),
    _p("name_rank", (NAME, INT), INPUT, "the alphabetical rank of a province's name (civil disorder)"),
    _p("distance", (BOARD, NAME, NAME, INT), INPUT, "Pw's unit in P is N provinces from its nearest centre"),
    # boards, units, orders (engine/facts.py, guards.py; asp/movement/)
    _p("board", (BOARD,), INPUT, "the board exists"),
    _p("unit", (PLACE, NAME, NAME, LOCATION), INPUT, "a unit of kind K and power Pw at place U, location L"),
    _p("fork", (TIMELINE, TIMELINE, INT), INPUT, "timeline T forked from board b(Tp,K)"),
    _p("head", (BOARD,), INPUT, "B is a head (a board in play)"),
    _p("past_board", (BOARD,), INPUT, "B is written and is not a head"),
    _p("board_pair", (BOARD, BOARD), INPUT, "a pair of boards whose adjacency is asked (possible.py)"),
    _p("dissolved", (TIMELINE,), INPUT | SHOWN, "timeline T is out of play (the sustain phase shows it)"),
    _p("recorded", (DECISION, NAME), INPUT, "a past board's decision D was V (true, false)"),
    _p("record_of", (BOARD, DECISION, NAME), INPUT, "decision D is in board B's record with value V"),
    _p("order", (ORDER, PLACE, NAME), INPUT, "order I, written by power Pw, for the unit at place U"),
    _p("new", (ORDERS,), INPUT, "the orders given in this step (the others are recorded)"),
    _p("ordered_hold", (ORDER,), INPUT, "order I is a hold"),
    _p("ordered_move", (ORDER, PLACE, NAME, INT), INPUT, "a move to place D, coast C or none, V=1 via convoy"),
    _p("ordered_path", (ORDER, INT, NAME), INPUT, "the K-th sea of the convoy path a move names"),
    _p("ordered_support_hold", (ORDER, PLACE), INPUT, "support the unit at place S to hold"),
    _p("ordered_support_move", (ORDER, PLACE, PLACE, NAME), INPUT, "support the unit at S moving to D (coast C)"),
    _p("ordered_convoy", (ORDER, PLACE, PLACE), INPUT, "convoy the army at place S to place D"),
    _p("ordered_open_convoy", (ORDER,), INPUT, "a convoy with no subject (option open_convoys)"),
    _p("ordered_jump_assist", (ORDER, PLACE, PLACE), INPUT, "assist the unit at S moving to D (jump_assists)"),
    _p("ordered_other", (ORDER, NAME), INPUT, "an order of another verb (retreat, disband, build, ...)"),
    _p("swapped", (PLACE, PLACE), INPUT, "the units at U and V are ordered into each other's place"),
    _p("left", (PLACE,), INPUT, "a recorded journey into a board already past succeeded"),
    _p("stuck", (PLACE,), INPUT, "a recorded journey into a board already past failed"),
    _p("doubtful_unit", (ORDER,), INPUT, "guard: order I may lack its unit, board or convoy (guards.lp)"),
    _p("repeats_place", (ORDER,), INPUT, "guard: order I names one place twice"),
    _p("names_coast", (ORDER,), INPUT, "guard: order I names a coast of its destination"),
    _p("ordered_twice", (PLACE,), INPUT, "guard: the unit at U has two or more new orders"),
    _p("coasts_in_reach", (), INPUT, "guard: some unit could step into two coasts of one province"),
    _p("across_boards", (), INPUT, "guard: some order names a board other than its unit's"),
    _p("several_convoys", (), INPUT, "guard: a convoy network of two or more fleets may exist"),
    _p("one_of_several_orders", (), INPUT, "the candidates of possible.py are not one another's rivals"),
    # retreats (engine/retreat.py; asp/retreat/)
    _p("dislodged_unit", (PLACE, NAME, NAME, LOCATION), INPUT, "a dislodged unit that must retreat from U"),
    _p("barred", (PLACE, NAME), INPUT, "province P is closed to the retreat of the unit at U"),
    # adjustments (engine/adjustment.py; asp/adjustment/)
    _p("owns", (BOARD, NAME, NAME), INPUT, "power Pw owns centre P on board B"),
    _p("ordered_build", (ORDER, NAME, NAME), INPUT, "a build of kind K (or none) on coast C (or none)"),
    _p("ordered_waive", (ORDER, NAME), INPUT, "power Pw waives a build"),
    _p("waive_on", (ORDER, BOARD), INPUT, "the boards of a waive's phase"),
    # sustain (engine/sustain.py; asp/sustain/)
    _p("in_play", (TIMELINE,), INPUT, "timeline T is in play"),
    _p("time_center", (NAME,), INPUT, "C is a time centre"),
    _p("owner", (NAME, TIMELINE, NAME), INPUT, "power Pw owns time centre C on the head of timeline T"),
    _p("sustain_order", (ORDER, NAME, TIMELINE, INT), INPUT, "all of Pw's fractions to timeline V"),
    _p("center_order", (ORDER, NAME, NAME, TIMELINE, INT), INPUT, "Pw's fractions of centre C to timeline V"),
    # victory (engine/victory.py; asp/victory/)
    _p("head", (GAME, TERM), INPUT, "B is a head of game G (a board, or h(K) in the victory universe)"),
    _p("player", (GAME, NAME), INPUT, "power Pw plays game G"),
    _p("out", (GAME, NAME), INPUT, "power Pw was eliminated before"),
    _p("has_units", (BOARD, NAME), INPUT, "power Pw has units on head B"),
    _p("center_count", (BOARD, NAME, INT), INPUT, "power Pw owns N centres on head B"),
    # a map's geometry (model/geometry.py; asp/geometry.lp)
    _p("territory", (NAME, NAME), INPUT, "territory T has region R"),
    _p("border_size", (NAME, INT), INPUT, "T's border has N points"),
    _p("border", (NAME, INT, TERM), INPUT, "the I-th point (X,Y) of T's border"),
    _p("coast", (LOCATION, NAME), INPUT, "C is a fleet location on the coast of territory T"),
    _p("path_size", (LOCATION, INT, INT), INPUT, "path K of coast C has N points"),
    _p("coast_point", (LOCATION, INT, INT, TERM), INPUT, "the I-th point of path K of coast C"),
    # answers (asp/show/)
    _p("illegal", (ORDER, TERM), SHOWN, "order I is ignored for reason R (its text)"),
    _p("legal", (ORDER,), SHOWN, "order I stands (show/legality.lp)"),
    _p("order_result", (ORDER, TERM), SHOWN, "legal order I succeeds or fails (its text)"),
    _p("moves", (PLACE,), SHOWN, "the decision: the move of the unit at U succeeds"),
    _p("dislodged", (PLACE,), SHOWN, "the decision: the unit at U is dislodged"),
    _p("given", (PLACE,), SHOWN, "the decision: the support of S is given"),
    _p("path", (PLACE,), SHOWN, "the decision: the convoy path of the army at A holds"),
    _p("assist_given", (PLACE,), SHOWN, "the decision: the jump assist of S is given"),
    _p("convoys", (PLACE, PLACE), SHOWN, "fleet F gives a matching convoy to the army at A"),
    _p("move", (PLACE, PLACE), SHOWN, "the unit at U moves to place D (an effective move)"),
    _p("arrives", (PLACE, LOCATION), SHOWN, "the unit from U now stands at location L"),
    _p("dislodged_by", (PLACE, PLACE), SHOWN, "the unit at U was dislodged by the move from V"),
    _p("bounced", (PLACE,), SHOWN, "a place entered in vain that nobody holds now"),
    _p("convoyed", (PLACE,), SHOWN, "the move of the unit at U goes by convoy"),
    _p("scope", (BOARD,), SHOWN, "B's battle was fought in this step"),
    _p("reaches", (ORDER, BOARD), SHOWN, "new order I brought past board B into the step's battles"),
    _p("advance", (BOARD,), SHOWN, "B advances"),
    _p("fork", (BOARD,), SHOWN, "past board X forks"),
    _p("owner", (DECISION, BOARD), SHOWN, "decision D is owned by board B"),
    _p("convoy_origin_barred", (), SHOWN, "(datc_4a5 barred) a convoyed attacker's province is closed"),
    _p("reason", (ORDER, NAME, OPTIONAL_PLACE, DETAIL), SHOWN, "why order I has its result"),
    _p("retreats_to", (PLACE, LOCATION), SHOWN, "the unit from U retreats to location L"),
    _p("disbanded", (PLACE,), SHOWN, "the dislodged unit at U is disbanded"),
    _p("option", (PLACE, NAME), SHOWN, "the unit at U may retreat to province P"),
    _p("built", (PLACE, NAME, LOCATION), SHOWN, "a unit of kind K is built at U, location L"),
    _p("removed", (PLACE,), SHOWN, "the unit at U is removed"),
    _p("balance", (BOARD, NAME, INT), SHOWN, "power Pw's centres minus units on board B"),
    _p("removals_unordered", (BOARD,), SHOWN, "a power is short of removals on board B"),
    _p("vote", (NAME, TIMELINE, TIMELINE), SHOWN, "the fraction of timeline T of centre C goes to V"),
    _p("fraction", (NAME, TIMELINE, NAME), SHOWN, "the fraction of timeline T of centre C is Pw's"),
    _p("share", (NAME, TIMELINE, INT), SHOWN, "timeline V received S of centre C's fractions"),
    _p("sustains", (NAME, TIMELINE), SHOWN, "centre C sustains timeline V"),
    _p("eliminated", (GAME, NAME), SHOWN, "power Pw is eliminated in game G"),
    _p("winner", (GAME, NAME), SHOWN, "power Pw wins game G"),
    _p("board_adj", (BOARD, BOARD), SHOWN, "units on B1 may act on B2 (shown when possible.py asks)"),
    _p("army_edge", (NAME, NAME), SHOWN, "an army may step between two territories (geometry)"),
    _p("fleet_edge", (LOCATION, LOCATION), SHOWN, "a fleet may step between two locations (geometry)"),
)

_INPUTS: dict[tuple[str, int], Predicate] = {p.signature: p for p in PREDICATES if p.role & INPUT}
_SHOWN: dict[str, Predicate] = {p.name: p for p in PREDICATES if p.role & SHOWN}
_DECLARED: dict[tuple[str, int], Predicate] = {p.signature: p for p in PREDICATES}


def _check_table() -> None:
    """The table's own consistency, checked when the module loads: one declaration a signature, one
    shown predicate a name (answers are kept by name), names spelled as identifiers, and a term read
    back only last."""
    seen: set[tuple[str, int]] = set()
    for p in PREDICATES:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", p.name) or p.signature in seen:
            raise ValueError(f"predicate {p.name}/{p.arity} declared twice or not an identifier")
        seen.add(p.signature)
        if p.role & SHOWN and TERM in p.args[:-1]:
            raise ValueError(f"shown predicate {p.name}/{p.arity} has a term before its last argument")
    if len(_SHOWN) != sum(1 for p in PREDICATES if p.role & SHOWN):
        raise ValueError("two shown predicates share a name")


_check_table()


def declared(name: str, arity: int) -> Predicate | None:
    """The declaration of ``name/arity`` (an input, shown, or both), None when there is none."""
    return _DECLARED.get((name, arity))


def shown(name: str) -> Predicate:
    """The declaration of the shown predicate ``name``; a predicate read from an answer must be one."""
    try:
        return _SHOWN[name]
    except KeyError:
        raise KeyError(f"{name} is not a shown predicate of solver/predicates.py") from None


# -- spelling facts -----------------------------------------------------------------------------------


def _board(v: tuple[int, int], dt: int) -> str:
    """A board's text with its timeline moved up; the limits are those of the unmoved board."""
    if not (0 <= v[0] < MAX_TIMELINES and 0 <= v[1] <= MAX_TURN):
        terms.board(v[0], v[1])  # raises the limit's error
    return f"b({v[0] + dt},{v[1]})"


def _place(v: tuple[int, int, str], places: dict, dt: int) -> str:
    text = places[v] = terms.place_text(v[0], v[1], v[2], dt)
    return text


_SPELLING_HELPERS = {"_board": _board, "_place": _place, "_term": terms.term}


@lru_cache(maxsize=None)
def _speller(p: Predicate) -> Callable[[Fact, dict, int, int, int], str]:
    """A function spelling a fact of ``p`` (``(name, value, ...)``) as one line of program text: one
    f-string made of its arguments' spellings, generated once per predicate."""
    if not p.args:
        line = f"{p.name}."
        return lambda f, places, dt, di, k: line
    parts = []
    for n, kind in enumerate(p.args, start=1):
        if kind.spell is None:
            raise ValueError(f"{p.name}/{p.arity}: a {kind.name} argument is never written")
        parts.append(kind.spell.replace("V", f"f[{n}]"))
    source = f'def spell(f, places, dt, di, k):\n    return f"{p.name}({",".join(parts)})."\n'
    scope = dict(_SPELLING_HELPERS)
    exec(compile(source, f"<speller of {p.name}/{p.arity}>", "exec"), scope)
    return scope["spell"]


def fact_lines(facts: Iterable[Fact], phase: int = 0) -> list[str]:
    """Each fact spelled as clingo reads it, one line each, by its predicate's declaration; ``phase``
    k numbers them as the k-th phase of a joint program (0: as they are): timelines (of boards, places
    and timeline arguments) move up by k * TIMELINE_STRIDE, order ids by k * ORDER_STRIDE, games by k.
    A fact of a predicate not declared as an input is refused (a ``ValueError``, an engine defect)."""
    if not isinstance(phase, int) or phase < 0:
        raise ValueError(f"not a phase number: {phase!r}")
    dt, di = phase * terms.TIMELINE_STRIDE, phase * terms.ORDER_STRIDE
    places: dict[tuple, str] = {}  # a place is named by a unit, its order and others' orders: spelled once
    spellers: dict[tuple[str, int], Callable] = {}
    lines: list[str] = []
    append = lines.append
    for f in facts:
        key = (f[0], len(f) - 1)
        spell = spellers.get(key)
        if spell is None:
            p = _INPUTS.get(key)
            if p is None:
                raise ValueError(f"a fact of {key[0]}/{key[1]}, which solver/predicates.py does not declare "
                                 "as an input")
            spell = spellers[key] = _speller(p)
        append(spell(f, places, dt, di, phase))
    return lines


def render(facts: Iterable[Fact], phase: int = 0) -> str:
    """The program text of these facts (``fact_lines``), a line each."""
    lines = fact_lines(facts, phase)
    return "\n".join(lines) + "\n" if lines else ""


# -- reading answers ----------------------------------------------------------------------------------


def decode_symbol(sym: clingo.Symbol) -> tuple:
    """The arguments of a shown atom as Python values, by its predicate's declaration."""
    p = shown(sym.name)
    if len(sym.arguments) != p.arity:
        raise ValueError(f"{sym} is not {p.name}/{p.arity}")
    return tuple(kind.of_symbol(a) for kind, a in zip(p.args, sym.arguments))


@lru_cache(maxsize=None)
def reader(p: Predicate) -> Callable[[Iterable[str]], list[tuple]]:
    """A function reading the argument texts of atoms of ``p`` (each what follows ``name(`` up to its
    closing parenthesis) into Python values, a tuple an atom: one regular expression made of its
    arguments' patterns and one tuple expression over its groups, in one list comprehension generated
    once per predicate (no call an atom); a text the expression does not fit (a name clingo escapes) is
    parsed and walked as a symbol (``decode_symbol``). Numbers alone, and a number and a term's text,
    are split at their commas instead: the commonest atoms (``order_result/2``), read cheaper so."""
    numbers = (INT, ORDER, TIMELINE, GAME)
    if p.args and all(k in numbers for k in p.args):
        if len(p.args) == 1:
            return lambda texts: [(int(x),) for x in texts]
        return lambda texts: [tuple(map(int, x.split(","))) for x in texts]
    if len(p.args) == 2 and p.args[0] in numbers and p.args[1] is TERM:
        return lambda texts: [(int(a), c) for a, _, c in (x.partition(",") for x in texts)]
    pattern, values, group = [], [], 1
    for kind in p.args:
        pattern.append(kind.pattern)
        first = group
        values.append(re.sub(r"G\((\d+)\)", lambda m: f"m[{first + int(m[1])}]", kind.read))
        group += kind.groups
    match = re.compile(",".join(pattern) + r"\Z", re.S).match
    value = f"({', '.join(values)}{',' if len(values) == 1 else ''})"
    source = (f"def read(texts):\n"
              f"    return [{value} if (m := match(x)) is not None else slow(x) for x in texts]\n")
    scope = {"match": match, "_detail_text": _detail_text,
             "slow": lambda text: decode_symbol(clingo.parse_term(f"{p.name}({text})"))}
    exec(compile(source, f"<reader of {p.name}/{p.arity}>", "exec"), scope)
    return scope["read"]
