"""The retreat phase (docs/rules.md §4): where dislodged units may go, and where they go
(``asp/retreat.lp``, ``asp/retreat/``).

The same program also answers, before any order, which units have somewhere to go: those without
are disbanded at once after a movement step, and the rest are what a player is shown.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from ..solver import terms as t
from ..solver.predicates import render
from ..solver.terms import Fact
from .facts import board_facts, edge_facts, order_facts, retreat_loc_facts
from ..model.multiverse import RETREAT, Board, Multiverse, Unit, make_board
from .answer import Answer
from ..solver.driver import solve_decisions
from .adjustment import settle
from .phase import Query, StepReport, Steps, once_per, outcomes, program
from ..model.orders import OrderKind


def _retreat_facts(mv: Multiverse, boards: Sequence[Board], orders) -> tuple[Fact, ...]:
    """The facts of a retreat program, the map's included: the few edges and locations the dislodged
    units and the orders reach (the phase needs no map facts that are the same for every phase)."""
    facts = board_facts(mv, boards)
    dislodged = [(r.unit.kind, r.unit.location) for b in boards for r in b.retreats]
    facts += edge_facts(mv.game_map, dislodged)
    facts += retreat_loc_facts(mv.game_map, dislodged, (r.dest.province for _, r in orders if r.kind is OrderKind.MOVE and r.dest))
    for b in boards:
        for r in b.retreats:
            u = r.unit
            place = (b.timeline, b.turn, u.province)
            facts.append(("dislodged_unit", place, u.kind, t.const(u.power), t.location(u.location)))
            for prov in sorted(r.barred | ({r.attacker_from} if r.attacker_from else set())):
                facts.append(("barred", place, t.const(prov)))
    facts += order_facts(orders)
    return tuple(facts)


def drop_hopeless_retreats(mv: Multiverse, boards: Sequence[Board]):
    """Dislodged units with nowhere to go are disbanded at once; boards with none left skip the phase."""
    waiting = [b for b in boards if b.retreats]
    if not waiting:
        return mv, ()
    answer = Answer.of((yield Query(program(mv, "retreat"), _retreat_facts(mv, waiting, []))).atoms)
    can_move = answer.first_places("option")
    updated, gone = [], []
    for b in waiting:
        keep = tuple(r for r in b.retreats if (b.timeline, b.turn, r.unit.province) in can_move)
        gone += [(b.key, r.unit) for r in b.retreats if r not in keep]
        updated.append(replace(b, retreats=keep))
    return mv.with_boards(updated), tuple(gone)


def retreat_options(mv: Multiverse) -> Mapping[tuple[int, int, str], tuple[str, ...]]:
    """Where each unit waiting to retreat on a head may go (provinces), as the retreat program sees it
    before any order: what a player is shown, not a ruling on any particular order. Worked out once
    per multiverse (``once_per``)."""
    return once_per(mv, "_retreat_options", lambda: _options(mv))


def _options(mv: Multiverse) -> dict[tuple[int, int, str], tuple[str, ...]]:
    waiting = [b for b in mv.heads if b.retreats]
    if not waiting:
        return {}
    answer = Answer.of(solve_decisions(program(mv, "retreat"), render(_retreat_facts(mv, waiting, []))).atoms)
    options: dict[tuple[int, int, str], list[str]] = {
        (b.timeline, b.turn, r.unit.province): [] for b in waiting for r in b.retreats}
    for unit, province in answer.values("option"):
        options.setdefault(unit, []).append(province)
    return {k: tuple(sorted(v)) for k, v in options.items()}


def adjudicate(mv: Multiverse, orders, reasons: bool = True) -> Steps:
    """The retreat phase of every head waiting for it, as queries (``phase.Query``): the step's report
    (``reasons``: why each order has its result, ``phase.outcomes``)."""
    boards = [b for b in mv.heads if b.phase == RETREAT]
    answer = Answer.of((yield Query(program(mv, "retreat", reasons), _retreat_facts(mv, boards, orders))).atoms)
    arrivals = answer.arrivals("retreats_to")
    new_boards, disbanded = [], []
    for b in boards:
        units = list(b.units.values())
        for r in b.retreats:
            loc = arrivals.get((b.timeline, b.turn, r.unit.province))
            if loc is None:
                disbanded.append((b.key, r.unit))
            else:
                units.append(Unit(r.unit.kind, r.unit.power, loc))
        board = make_board(b.timeline, b.turn, units, b.centers)
        new_boards.append(settle(board, mv))
    after = mv.with_boards(new_boards)
    return StepReport(RETREAT, mv, after, outcomes(mv, orders, answer, reasons=reasons), disbanded=tuple(disbanded))

