"""The adjustment phase (docs/rules.md §5): builds and disbands on the boards whose centres and units
differ in number (``asp/adjustment.lp``, ``asp/adjustment/``), and when a board waits for it: after
a Fall battle and its retreats, centres go to their occupiers (``settle``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from ..solver import terms as t
from ..solver.predicates import render
from ..solver.terms import Fact, OrderId
from .facts import adjustment_map_facts, board_facts, distance_facts, order_facts
from ..model.multiverse import ADJUSTMENT, Board, Multiverse, Unit, make_board
from .answer import Answer
from ..solver.driver import solve_decisions
from .phase import Query, StepReport, Steps, once_per, outcomes, program
from ..model.orders import OrderKind


def needs_adjustment(board: Board, mv: Multiverse) -> bool:
    powers = {u.power for u in board.units.values()} | set(board.centers.values())
    for power in powers:
        units = sum(1 for u in board.units.values() if u.power == power)
        centers = sum(1 for p in board.centers.values() if p == power)
        if units > centers:
            return True
        free_home = [h for h in mv.game_map.home_centers(power) if board.centers.get(h) == power and h not in board.units]
        if centers > units and free_home:
            return True
    return False


def settle(board: Board, mv: Multiverse) -> Board:
    """After a Fall battle and its retreats: centres go to their occupiers, then adjustments if any."""
    if board.retreats or board.turn == 0 or board.turn % 2 == 1:
        return board
    centers = dict(board.centers)
    for prov, unit in board.units.items():
        if mv.game_map.provinces[prov].center:
            centers[prov] = unit.power
    board = make_board(board.timeline, board.turn, board.units.values(), centers)
    return replace(board, adjustment_due=needs_adjustment(board, mv))


def _adjustment_facts(mv: Multiverse, boards: Sequence[Board], orders) -> tuple[Fact, ...]:
    facts = board_facts(mv, boards)
    for b in boards:
        for prov, power in sorted(b.centers.items()):
            facts.append(("owns", b.key, t.const(power), t.const(prov)))
    for i, r in orders:
        if r.kind is OrderKind.BUILD:
            kind = r.unit_kind or "none"
            coast = t.const(r.unit.coast) if r.unit.coast else "none"
            facts.append(("ordered_build", OrderId(i), kind, coast))
        elif r.kind is OrderKind.WAIVE:
            facts.append(("ordered_waive", OrderId(i), t.const(r.power)))
            # the boards a waive may use: those of its phase, also when phases are answered together
            facts += [("waive_on", OrderId(i), b.key) for b in boards]
    facts += [f for f in order_facts(orders) if f[0] != "ordered_other" or f[2] == OrderKind.DISBAND]
    return tuple(facts)


def adjustment_balances(mv: Multiverse) -> Mapping[tuple[tuple[int, int], str], int]:
    """(board, power) -> centres minus units on every head waiting for adjustments, as the adjustment
    program counts them: builds allowed when positive, disbands owed when negative. Worked out once
    per multiverse (``once_per``)."""
    return once_per(mv, "_adjustment_balances", lambda: _balances(mv))


def _balances(mv: Multiverse) -> dict[tuple[tuple[int, int], str], int]:
    boards = [b for b in mv.heads if b.phase == ADJUSTMENT]
    if not boards:
        return {}
    # the balances never depend on the removals nobody ordered: the map's adjacency is not needed
    answer = Answer.of(solve_decisions(program(mv, "adjustment"), render(_adjustment_facts(mv, boards, [])),
                                       adjustment_map_facts(mv.game_map, civil_disorder=False)).atoms)
    powers = t.by_name(mv.game_map.powers)
    out = {}
    for key, power, n in answer.values("balance"):
        out[(key, powers[power])] = n
    return out


def adjudicate(mv: Multiverse, orders, reasons: bool = True) -> Steps:
    """The adjustment phase of every head waiting for it, as queries (``phase.Query``): the step's report
    (``reasons``: why each order has its result, ``phase.outcomes``)."""
    boards = [b for b in mv.heads if b.phase == ADJUSTMENT]
    facts = _adjustment_facts(mv, boards, orders)
    # first without the map's adjacency and names, which only a power short of removals needs (civil
    # disorder); when the answer says a power is short, again with them
    answer = Answer.of((yield Query(program(mv, "adjustment", reasons), facts,
                                    adjustment_map_facts(mv.game_map, civil_disorder=False))).atoms)
    if "removals_unordered" in answer.texts:
        short = set(answer.boards("removals_unordered"))
        facts += tuple(distance_facts(mv.game_map, [b for b in boards if b.key in short]))
        answer = Answer.of((yield Query(program(mv, "adjustment", reasons), facts,
                                        adjustment_map_facts(mv.game_map))).atoms)
    removed = answer.places("removed")
    built = {u: (kind, loc) for u, kind, loc in answer.values("built")}
    new_boards, disbanded = [], []
    for b in boards:
        units = [u for u in b.units.values() if (b.timeline, b.turn, u.province) not in removed]
        disbanded += [(b.key, u) for u in b.units.values() if (b.timeline, b.turn, u.province) in removed]
        for (tl, tn, prov), (kind, loc) in built.items():
            if (tl, tn) == b.key:
                power = b.centers[prov]
                units.append(Unit(kind, power, loc))
        new_boards.append(make_board(b.timeline, b.turn, units, b.centers))
    after = mv.with_boards(new_boards)
    return StepReport(ADJUSTMENT, mv, after, outcomes(mv, orders, answer, reasons=reasons), disbanded=tuple(disbanded))

