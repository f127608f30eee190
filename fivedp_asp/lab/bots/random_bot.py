"""The ``random`` bot: the random order generator of ``fivedp compare`` (``game.random_orders``), with
legal orders only.

On each head it has units on, the generator draws every unit's order as it does for a random game
(holds, moves, supports mostly of what the neighbour was drawn to do, convoys along chains of fleets),
with no illegal share; an order the engine would not accept from the power (``View.legal_on``: the
orders on that board the rules accept, under some of the option sets the view allows) is replaced by
one of that unit's legal orders, drawn at random. Playing across boards (``View.travel``), each unit
also has a small chance of giving instead one of its orders across boards (``View.legal`` for that
unit): a move or support into the past or onto another timeline, a jump assist when some option set
allows them (with the jump itself ordered when the jumping unit is the power's own), and a fleet at
sea sometimes gives an open convoy when one is allowed. Retreats and adjustments are the generator's,
kept to what is legal: at most as many builds as the power may make (one per centre) and as many
removals as it must.

Everything is drawn from ``view.rng()``, so a view gives the same orders again.
"""

from __future__ import annotations

import random
from typing import Sequence

from ...model.kinds import OrderKind
from ...game.random_orders import OrderGenerator, designated
from ...engine.possible import PossibleOrder
from ...game.play import unit_designation
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, Unit
from ...model.notation import format_order, parse_order, parse_unit
from ...model.orders import Build, Disband, JumpAssist, Move, UnitSpec, Waive
from ...errors import UsageError
from .view import View

P_TRAVEL = 0.06
"""The chance that a unit gives one of its orders across boards instead (``View.travel``)."""

P_OPEN_CONVOY = 0.15
"""The chance that a fleet at sea gives an open convoy, where the view allows one."""


def random_bot(view: View) -> list[str]:
    """The power's orders for the next phase, drawn at random among legal ones (see the module)."""
    if not isinstance(view, View):
        raise UsageError(f"random_bot: view must be a View, not {type(view).__name__}")
    rng = view.rng()
    phase = view.phase
    if phase == MOVEMENT:
        return _movement(view, rng)
    if phase == RETREAT:
        return _retreats(view, rng)
    if phase == ADJUSTMENT:
        return _adjustments(view, rng)
    return []  # the sustain phase: without an order every fraction supports its own timeline


def _by_province(listed: Sequence[PossibleOrder], view: View) -> dict[str, list[str]]:
    """Listed orders by the province of the unit they order. A listed order names its unit as it
    stands on its board (``p.unit``, ``A Mun``): that is read once per unit rather than the whole
    order once per order (``unit`` empty, a build or waive: the order itself is read)."""
    out: dict[str, list[str]] = {}
    provinces: dict[str, str] = {}
    for p in listed:
        if p.unit:
            if p.unit not in provinces:
                provinces[p.unit] = parse_unit(p.unit, view.game_map).where.province
            province: str | None = provinces[p.unit]
        else:
            unit = getattr(parse_order(p.order, view.game_map), "unit", None)
            province = None if unit is None else unit.where.province
        if province is not None:
            out.setdefault(province, []).append(p.order)
    return out


def _movement(view: View, rng: random.Random) -> list[str]:
    m = view.game_map
    gen = OrderGenerator(m, rng, illegal_share=0.0)
    lines: list[str] = []
    jumps: list[tuple[str, str]] = []  # (assist, jump) for the power's own jumps, ordered last
    for head in view.heads():
        if not any(u.power == view.power for u in head.units.values()):
            continue
        legal = _by_province(view.legal_on(head), view)
        allowed = {x for v in legal.values() for x in v}
        drawn = {order.unit.where.province: format_order(designated(order, head), m)
                 for power, order in gen.movement(head) if power == view.power}
        for unit in sorted((u for u in head.units.values() if u.power == view.power), key=lambda u: u.location):
            mine = legal.get(unit.province, [])
            line = drawn.get(unit.province)
            if line not in allowed:
                line = rng.choice(mine) if mine else None
            opens = [x for x in mine if x.endswith(" C")]
            if opens and rng.random() < P_OPEN_CONVOY:
                line = opens[0]
            if view.travel and rng.random() < P_TRAVEL:
                line = _across(view, head, unit, rng, jumps) or line
            if line is not None:
                lines.append(line)
    kept = _one_each(lines + [jump for _, jump in jumps], view)
    # a jump whose assist gave way to another order of its unit (a jump of its own) would be short of it
    short = {jump for assist, jump in jumps if assist not in kept}
    return [line for line in kept if line not in short]


def _across(view: View, head: Board, unit: Unit, rng: random.Random, jumps: list[tuple[str, str]]) -> str | None:
    """One of the unit's orders that leave its board, drawn at random (None when it has none). A
    jump assist is drawn only for one of the power's own units jumping two turns back on its own
    timeline, a jump of length 1 that one assist makes legal; it comes with that unit's jump, added
    to ``jumps`` with the assist."""
    name = unit_designation(view.mv, head.key, unit)
    kinds = (OrderKind.MOVE, OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.JUMP_ASSIST)
    listed = [p for p in view.legal(unit=name, kind=kinds) if _leaves(p.order, head, view)]
    if not listed:
        return None
    pick = rng.choice(listed)
    order = parse_order(pick.order, view.game_map)
    if isinstance(order, JumpAssist):
        target = order.target.where
        board = view.mv.boards.get((target.timeline, target.turn))
        there = board.units.get(target.province) if board is not None else None
        if there is None or there.power != view.power or order.dest.timeline != target.timeline \
                or target.turn - order.dest.turn != 2:
            return None
        jumps.append((pick.order, format_order(Move(UnitSpec(target, there.kind), order.dest), view.game_map)))
    return pick.order


def _leaves(text: str, head: Board, view: View) -> bool:
    """Whether an order names a board other than ``head``."""
    order = parse_order(text, view.game_map)
    places = [getattr(order, "dest", None), getattr(getattr(order, "target", None), "where", None)]
    return any(p is not None and (p.timeline, p.turn) != head.key for p in places)


def _one_each(lines: list[str], view: View) -> list[str]:
    """The lines with one order per unit, the last one written for a unit kept (a jump ordered for a
    unit that also drew an order of its own replaces that order): two orders for one unit would
    make both of them illegal (DATC 4.D.3)."""
    by_unit: dict[tuple, str] = {}
    for line in lines:
        where = parse_order(line, view.game_map).unit.where
        key = (where.timeline, where.turn, where.province)
        by_unit.pop(key, None)
        by_unit[key] = line
    return list(by_unit.values())


def _retreats(view: View, rng: random.Random) -> list[str]:
    m = view.game_map
    gen = OrderGenerator(m, rng, illegal_share=0.0)
    lines = []
    for head in view.heads():
        if not any(r.unit.power == view.power for r in head.retreats):
            continue
        legal = _by_province([p for p in view.legal() if p.board == head.name], view)
        for power, order in gen.retreats(head):
            if power != view.power:
                continue
            mine = legal.get(order.unit.where.province, [])
            line = format_order(designated(order, head), m)
            if line in mine or mine:
                lines.append(line if line in mine else rng.choice(mine))
    return lines


def _adjustments(view: View, rng: random.Random) -> list[str]:
    m = view.game_map
    gen = OrderGenerator(m, rng, illegal_share=0.0)
    lines = []
    for head, balance in view.adjusting():
        legal = {p.order for p in view.legal() if p.board == head.name}
        builds: set[str] = set()
        disbands = 0
        for power, order in gen.adjustments(head):
            if power != view.power:
                continue
            line = format_order(designated(order, head), m)
            if line not in legal:
                continue
            if isinstance(order, Build) and balance > 0 and len(builds) < balance \
                    and order.unit.where.province not in builds:
                builds.add(order.unit.where.province)
                lines.append(line)
            elif isinstance(order, Waive) and balance > 0 and len(builds) < balance:
                builds.add(f"waive {len(builds)}")
                lines.append(line)
            elif isinstance(order, Disband) and balance < 0 and disbands < -balance:
                disbands += 1
                lines.append(line)
    return lines
