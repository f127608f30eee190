"""One phase through both engines: run, compare, and classify every disagreement.

A disagreement is *excused* when it falls under one of the reference's documented deviations from
DATC v3.1 (or under one of our own documented rule choices). The check is made by emulation: the
deviation is reproduced on our side (the orders, or the reading of our result, are changed the way
the deviating rule reads them) and our engine is run again; the disagreement is excused only if our
engine, so emulating, then agrees with the reference on everything.

The deviations are each reference's own: its adapter carries them (``ReferenceAdjudicator.emulators``
and ``deviations``; the ``diplomacy`` package's are in ``diplomacy_deviations.py``, pydip's in
``pydip_deviations.py``) and :func:`play_phase` hands them to :func:`classify` with the phase, so this
module never names one. It holds what every emulation is made of: :class:`Emulation`, the
:class:`Context` it reads, and the readings of orders and results they share (:func:`convoyed_move`;
the removals of an adjustment, :func:`adjustment_removals` and :func:`removed_by_order`).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Callable, Iterable, Mapping, Sequence

from ...model.kinds import Result, UnitKind
from ...errors import InputError, NotationError
from ...model.map import GameMap
from ...model.multiverse import ADJUSTMENT, Board, Multiverse, Unit, unit_text
from ...model.notation import format_order, parse_order
from ...model.orders import Convoy, Disband, Move, UnitSpec, Where
from ...engine.step import StepReport, step
from ...model.geography import Geography
from .reference import GivenOrder, PhaseResult, Position, ReferenceAdjudicator



@dataclass(frozen=True)
class Difference:
    kind: str  # result | dislodged | unit | centre | retreat | phase
    subject: str
    ours: str
    theirs: str

    def describe(self, reference: str) -> str:
        return f"{self.subject}: fivedp {self.ours}; {reference} {self.theirs}"


@dataclass(frozen=True)
class Verdict:
    differences: tuple[Difference, ...] = ()
    excused_by: tuple[str, ...] = ()  # DATC case ids (or 4.B.4 for our rule choice)
    explanation: str = ""

    @property
    def agree(self) -> bool:
        return not self.differences

    @property
    def real(self) -> bool:
        return bool(self.differences) and not self.excused_by


@dataclass
class PhaseRun:
    mv: Multiverse
    given: list[GivenOrder]
    report: StepReport
    ours: PhaseResult
    theirs: PhaseResult
    verdict: Verdict
    seconds: dict[str, float] = field(default_factory=dict)  # ours, reference, classify


# -- orders ----------------------------------------------------------------------------------------


def parse_given(orders: Mapping[str, Sequence[str]], game_map: GameMap) -> list[GivenOrder]:
    out = []
    for power_text, lines in orders.items():
        power = game_map.power(power_text)
        if power is None:
            raise InputError(f"unknown power {power_text!r}")
        for line in lines or ():
            try:
                order = parse_order(str(line), game_map)
            except NotationError as exc:
                raise InputError(f"{power} order {line!r}: {exc.problem} (column {exc.position + 1})") from None
            out.append(GivenOrder(power, str(line), order))
    return out


def orders_dict(given: Sequence[GivenOrder]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for g in given:
        out.setdefault(g.power, []).append(g.text)
    return out


def unit_spec(unit: Unit) -> UnitSpec:
    prov, _, coast = unit.location.partition("/")
    return UnitSpec(Where(prov, coast or None), unit.kind)


def _given(power: str, order, game_map: GameMap) -> GivenOrder:
    return GivenOrder(power, format_order(order, game_map), order)


# -- our engine as a PhaseResult -------------------------------------------------------------------


def ours_phase(mv: Multiverse, given: Sequence[GivenOrder], geo: Geography,
               report: StepReport | None = None, reasons: bool = True) -> tuple[StepReport, PhaseResult]:
    """Our engine on the phase; ``reasons`` puts each order's reason into the result's notes (only a
    written finding prints them, ``minimize.scenario_yaml``: the other callers judge and need none)."""
    orders = orders_dict(given)
    report = report or step(mv, orders, reasons=reasons)
    # outcomes come power by power in the order of ``orders``; put them back in the order given
    index: list[int] = []
    for power in orders:
        index += [i for i, g in enumerate(given) if g.power == power]
    results = [""] * len(given)
    notes = [""] * len(given)
    for i, outcome in zip(index, report.outcomes):
        results[i] = outcome.result
        notes[i] = outcome.reason or ""
    after = report.after.heads[0]
    result = PhaseResult(tuple(results), frozenset(u for _, u in report.dislodged),
                         Position.of(after, mv.game_map, geo), tuple(notes))
    return report, result


# -- comparing -------------------------------------------------------------------------------------


def _unit_desc(unit: Unit | None, game_map: GameMap) -> str:
    return f"{unit.power} {unit_text(unit, game_map)}" if unit else "empty"


def _options_desc(options: frozenset[str] | None, game_map: GameMap) -> str:
    if options is None:
        return "no retreat pending"
    return "may retreat to " + (", ".join(sorted(game_map.short_name(o) for o in options)) or "nowhere")


def compare(given: Sequence[GivenOrder], ours: PhaseResult, theirs: PhaseResult, game_map: GameMap,
            skip: Iterable[int] = ()) -> list[Difference]:
    """Every difference between the two results; a line repeating an earlier one of its power is
    the same order and is not compared again."""
    skip = set(skip)
    diffs: list[Difference] = []
    seen = set()
    for i, g in enumerate(given):
        key = (g.power, g.order)
        if key in seen or i in skip:
            continue
        seen.add(key)
        if ours.results[i] != theirs.results[i]:
            diffs.append(Difference("result", f"{g.power}: {g.text}", ours.results[i], theirs.results[i]))
    for u in sorted(ours.dislodged ^ theirs.dislodged, key=lambda u: u.location):
        mine = u in ours.dislodged
        diffs.append(Difference("dislodged", _unit_desc(u, game_map), "dislodged" if mine else "not dislodged",
                                "not dislodged" if mine else "dislodged"))
    a, b = ours.after, theirs.after
    if not (ours.ended or theirs.ended) and (a.turn, a.phase) != (b.turn, b.phase):
        diffs.append(Difference("phase", "next phase", Position(a.turn, a.phase, frozenset(), {}).season,
                                Position(b.turn, b.phase, frozenset(), {}).season))
    mine_u = {u.province: u for u in a.units}
    theirs_u = {u.province: u for u in b.units}
    for prov in sorted(set(mine_u) | set(theirs_u)):
        if mine_u.get(prov) != theirs_u.get(prov):
            diffs.append(Difference("unit", game_map.provinces[prov].name, _unit_desc(mine_u.get(prov), game_map),
                                    _unit_desc(theirs_u.get(prov), game_map)))
    for prov in sorted(set(a.centers) | set(b.centers)):
        if a.centers.get(prov) != b.centers.get(prov):
            diffs.append(Difference("centre", f"centre {game_map.provinces[prov].name}",
                                    f"owned by {a.centers.get(prov, 'nobody')}", f"owned by {b.centers.get(prov, 'nobody')}"))
    if not (ours.ended or theirs.ended):
        for u in sorted(set(a.retreats) | set(b.retreats), key=lambda u: u.location):
            if a.retreats.get(u) != b.retreats.get(u):
                diffs.append(Difference("retreat", _unit_desc(u, game_map), _options_desc(a.retreats.get(u), game_map),
                                        _options_desc(b.retreats.get(u), game_map)))
    return diffs


# -- convoy intent, as docs/rules.md §2.5 and DATC 4.A.3 read it -------------------------------------


def _fleet_seas(board: Board, geo: Geography) -> list[str]:
    return sorted(u.province for u in board.units.values() if u.kind == UnitKind.FLEET and geo.is_sea(u.province))


def convoyed_move(board: Board, given: Sequence[GivenOrder], i: int, geo: Geography) -> bool:
    """Whether army move ``i`` goes by convoy: it needs one, or it may use one and says ``via convoy``
    or a fleet of its own power is ordered to convoy it there."""
    order = given[i].order
    if not isinstance(order, Move):
        return False
    unit = board.units.get(order.unit.where.province)
    if unit is None or unit.kind != UnitKind.ARMY or unit.power != given[i].power:
        return False
    dest = order.dest.province
    if not geo.route_exists(unit.province, dest, _fleet_seas(board, geo)):
        return False
    if not geo.can_reach(UnitKind.ARMY, unit.location, dest) or order.via_convoy:
        return True
    for g in given:
        o = g.order
        if isinstance(o, Convoy) and g.power == unit.power and o.target.where.province == unit.province \
                and o.dest.province == dest:
            fleet = board.units.get(o.unit.where.province)
            if fleet and fleet.kind == UnitKind.FLEET and fleet.power == unit.power and geo.is_sea(fleet.province):
                return True
    return False


# -- emulations --------------------------------------------------------------------------------------


@dataclass
class Emulation:
    """A deviation reproduced on our side: changed orders, extra orders, a changed board, and a
    change to how our result is read. ``cases`` are the DATC ids it stands for."""

    cases: tuple[str, ...]
    replace: dict[int, GivenOrder] = field(default_factory=dict)
    skip: set[int] = field(default_factory=set)
    extra: list[GivenOrder] = field(default_factory=list)
    board: Callable[[Board], Board] | None = None
    post: Callable[[PhaseResult, Sequence[GivenOrder]], PhaseResult] | None = None
    check: Callable[[PhaseResult], str | None] | None = None  # a last check; a message means "not excused"


@dataclass
class Context:
    """What an emulator reads: the phase, both engines' results on it, and the reference."""

    mv: Multiverse
    given: list[GivenOrder]
    report: StepReport
    ours: PhaseResult
    theirs: PhaseResult
    geo: Geography
    # the reference's known deviations: how each is emulated, and what each DATC id stands for
    # (the reference adapter's own; a reference that declares none has none)
    emulators: Sequence[Callable[["Context"], list["Emulation"]]] = ()
    deviations: Mapping[str, str] = field(default_factory=dict)
    # the reference being compared: an emulation may need its own names for our places
    reference: ReferenceAdjudicator | None = None

    @property
    def board(self) -> Board:
        return self.mv.heads[0]

    @property
    def map(self) -> GameMap:
        return self.mv.game_map

    @property
    def phase(self) -> str:
        return self.board.phase


@dataclass(frozen=True)
class Removals:
    """The units each engine removed in an adjustment where the two removed different ones: what
    the emulations of a reference's civil disorder start from."""

    before: frozenset[Unit]  # the units on the board before the adjustment
    ours: frozenset[Unit]  # the units our engine removed
    theirs: frozenset[Unit]  # the units the reference removed


def adjustment_removals(ctx: Context) -> Removals | None:
    """The removals of both engines, or None outside an adjustment or when they removed the same units."""
    if ctx.phase != ADJUSTMENT:
        return None
    before = frozenset(ctx.board.units.values())
    ours = before - set(ctx.ours.after.units)
    theirs = before - set(ctx.theirs.after.units)
    return None if ours == theirs else Removals(before, ours, theirs)


def removed_by_order(ctx: Context, result: PhaseResult) -> set[Unit]:
    """The units of the board whose written removal (a disband) succeeds in ``result``; an engine's
    other removals are its civil disorder."""
    out = set()
    for i, g in enumerate(ctx.given):
        if isinstance(g.order, Disband) and result.results[i] == Result.SUCCEEDS:
            unit = ctx.board.units.get(g.order.unit.where.province)
            if unit is not None:
                out.add(unit)
    return out


def _apply(ctx: Context, emus: Sequence[Emulation]) -> tuple[list[Difference], str | None]:
    given = list(ctx.given)
    skip: set[int] = set()
    board = ctx.board
    for e in emus:
        for i, g in e.replace.items():
            given[i] = g
        skip |= e.skip
        if e.board:
            board = e.board(board)
    n = len(given)
    for e in emus:
        given += e.extra
    skip |= set(range(n, len(given)))
    mv = ctx.mv.with_boards([board])
    _, ours = ours_phase(mv, given, ctx.geo, reasons=False)  # an emulation is judged, never printed
    for e in sorted(emus, key=lambda e: e.board is None):  # undo changed boards before other readings
        if e.post:
            ours = e.post(ours, given)
    theirs = ctx.theirs
    if len(given) > n:  # extra orders have no reference result
        theirs = replace(theirs, results=theirs.results + ("",) * (len(given) - n))
    diffs = compare(given, ours, theirs, ctx.map, skip)
    problem = None
    for e in emus:
        if e.check:
            problem = e.check(ours) or problem
    return diffs, problem


def classify(ctx: Context, diffs: Sequence[Difference]) -> Verdict:
    if not diffs:
        return Verdict()
    emus = [e for make in ctx.emulators for e in make(ctx)]
    deviations = ctx.deviations
    notes: list[str] = []

    def explains(chosen: list[Emulation]) -> bool:
        left, problem = _apply(ctx, chosen)
        if left:
            return False
        if problem:
            notes.append(problem)
            return False
        return True

    # all applicable deviations together, then as few of them as still explain everything
    chosen: list[Emulation] | None = None
    if emus and explains(emus):
        chosen = list(emus)
        for e in list(chosen):
            if len(chosen) > 1 and explains([x for x in chosen if x is not e]):
                chosen.remove(e)
        explains(chosen)  # leaves each emulation's findings (its cases) for this set
    else:  # a deviation that spoils the others: small sets alone
        for n in range(1, min(len(emus), 3) + 1):
            for combo in itertools.islice(itertools.combinations(emus, n), 64):
                if explains(list(combo)):
                    chosen = list(combo)
                    break
            if chosen:
                break
    if chosen is None:
        return Verdict(tuple(diffs), (), "; ".join(dict.fromkeys(notes)))
    cases = tuple(sorted({c for e in chosen for c in e.cases}, key=case_key))
    return Verdict(tuple(diffs), cases or ("?",), "; ".join(deviations.get(c, c) for c in cases))


def case_key(case: str):
    parts = case.split(".")
    return tuple((int(p) if p.isdigit() else 0, p) for p in parts)


# -- one phase ---------------------------------------------------------------------------------------


def play_phase(mv: Multiverse, given: list[GivenOrder], reference: ReferenceAdjudicator, geo: Geography,
               *, load: bool, report: StepReport | None = None, seconds: float = 0.0,
               reasons: bool = True) -> PhaseRun:
    """Our engine and the reference on the same phase; ``load`` first puts the reference at ``mv``.
    ``report`` is our engine's report when it was adjudicated already (with other phases, taking
    ``seconds``); ``reasons`` as for ``ours_phase``."""
    t0 = time.perf_counter()
    report, ours = ours_phase(mv, given, geo, report, reasons)
    t1 = time.perf_counter()
    if seconds:
        t0 = t1 - seconds
    if load:
        reference.load(Position.of(mv.heads[0], mv.game_map, geo))
    theirs = reference.adjudicate(given)
    t2 = time.perf_counter()
    diffs = compare(given, ours, theirs, mv.game_map)
    context = Context(mv, given, report, ours, theirs, geo, reference.emulators, reference.deviations, reference)
    verdict = classify(context, diffs) if diffs else Verdict()
    seconds = {"ours": t1 - t0, "reference": t2 - t1, "classify": time.perf_counter() - t2}
    return PhaseRun(mv, given, report, ours, theirs, verdict, seconds)


def single_board(game_map: GameMap, board: Board) -> Multiverse:
    """A multiverse of ``board`` alone, under the default settings (classic play)."""
    return Multiverse(game_map, MappingProxyType({board.key: board}), MappingProxyType({}))


def is_classic(mv: Multiverse) -> bool:
    return mv.timelines == (0,) and not mv.forks
