"""What the written lines say beyond their orders, read by the DATC readings the options choose:
the written unit type and coast of the ordered unit (DATC 4.B.5, 4.C.1, 4.C.2; options ``datc_4b5``,
``datc_4c1``, ``datc_4c2``), the nationality written for a supported or convoyed unit (4.C.5, 4.C.6;
``datc_4c5``, ``datc_4c6``) and the moves that supports and convoys imply (DATC 4.E.3, ``datc_4e3``).

By default the designations are ignored (the unit is found by its place) and nothing is implied (the
DATC preferences). Another reading refuses a line before adjudication: it becomes an illegal order,
reported ``invalid`` with its reason, exactly like a line that names no place of the multiverse; or
adds an implied move as an order of its own, which is then judged (and recorded) like a written one.
These are questions about the text, so they are settled here and never reach the logic programs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..model import orders as o
from ..model.multiverse import Multiverse, Unit
from ..model.notation import format_order
from ..model.orders import ResolvedOrder, OrderKind


def _unit(mv: Multiverse, r: ResolvedOrder) -> Unit | None:
    """The unit the line orders: one waiting on its board to retreat, or one standing there. A
    dislodged unit waits in the province its attacker now holds; while it waits, its board's step is
    a retreat phase and every order for that province is the dislodged unit's, never the attacker's."""
    if r.unit is None or r.kind in (OrderKind.BUILD, OrderKind.WAIVE, OrderKind.UNPLACED):
        return None
    board = mv.boards.get(r.unit.board)
    if board is None:
        return None
    waiting = next((x.unit for x in board.retreats if x.unit.province == r.unit.province), None)
    return waiting if waiting is not None else board.units.get(r.unit.province)


def _kind_problem(mv: Multiverse, r: ResolvedOrder, unit: Unit, others: Sequence[ResolvedOrder]) -> str | None:
    if r.unit_kind is None:
        reading = mv.options.chosen("datc_4c1")
        if reading == "invalid":
            return "unit type missing"
        if reading == "valid_unless_other" and any(o.unit_kind == unit.kind for o in others):
            return "unit type missing, another order gives it"
    elif r.unit_kind != unit.kind:
        reading = mv.options.chosen("datc_4c2")
        if reading == "invalid":
            return "wrong unit type"
        if reading == "valid_unless_other" and any(o.unit_kind == unit.kind for o in others):
            return "wrong unit type, another order gives the right one"
    return None


def _coast_problem(mv: Multiverse, r: ResolvedOrder, unit: Unit) -> str | None:
    written = r.unit.coast if r.unit else None
    if written is None:
        return None
    actual = unit.location.partition("/")[2] or None
    if written != actual and mv.options.chosen("datc_4b5") == "fails":
        return "wrong coast of the unit"
    return None


def _nationality_problem(mv: Multiverse, r: ResolvedOrder, others: Sequence[ResolvedOrder]) -> str | None:
    if r.kind not in (OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.CONVOY) or r.target is None:
        return None
    board = mv.boards.get(r.target.board)
    unit = board.units.get(r.target.province) if board else None
    if unit is None:
        return None
    written = r.order.target.power
    corrected = any(getattr(getattr(x.order, "target", None), "power", None) == unit.power for x in others)
    if written is None and unit.power != r.power:
        reading = mv.options.chosen("datc_4c5")
        if reading == "invalid":
            return "nationality missing"
        if reading == "valid_unless_other" and corrected:
            return "nationality missing, another order gives it"
    elif written is not None and written != unit.power:
        reading = mv.options.chosen("datc_4c6")
        if reading == "invalid":
            return "wrong nationality"
        if reading == "valid_unless_other" and corrected:
            return "wrong nationality, another order gives the right one"
    return None


def kind_note(mv: Multiverse, r: ResolvedOrder) -> str | None:
    """What to add to the reason of an illegal order whose line gives its unit the wrong type (``A Kie -
    Ruh`` for the fleet in Kiel): the rules judge the unit that stands there (DATC 4.C.2), so a reason
    such as ``fleet to land`` is about a unit the line does not name; the note says which it is
    (``the unit in Kiel is a fleet, not an army``). None when the type written is the unit's, or none
    is written."""
    unit = _unit(mv, r)
    if unit is None or r.unit_kind is None or r.unit_kind == unit.kind:
        return None
    name = mv.game_map.provinces[unit.province].name
    return f"the unit in {name} is {_a(unit.kind)}, not {_a(r.unit_kind)}"


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


# orders whose target's nationality may be written
_TARGETED = frozenset({OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.CONVOY})


def refuse_written(mv: Multiverse, orders: list[tuple[int, ResolvedOrder]]) -> list[tuple[int, ResolvedOrder]]:
    """The lines with each line that the chosen readings refuse made illegal, under an id of its own
    (a refused line must not share the id of an accepted line that reads the same)."""
    fresh = max((i for i, _ in orders), default=-1) + 1
    # the lines of one power for one unit, grouped once (a scan per line would be quadratic)
    same_unit: dict[tuple, list[ResolvedOrder]] = {}
    for _, r in orders:
        if r.unit is not None and r.kind not in (OrderKind.BUILD, OrderKind.WAIVE):
            same_unit.setdefault((r.power, r.unit.board, r.unit.province), []).append(r)
    out = []
    for i, r in orders:
        unit = _unit(mv, r)
        problem = None
        # a line can be refused only for a unit type, coast or nationality written differently from
        # the unit's (or left out): most lines are checked by these three comparisons alone
        if unit is not None and (r.unit_kind != unit.kind or r.unit.coast is not None
                                 or (r.kind in _TARGETED and r.target is not None)):
            others = [o for o in same_unit.get((r.power, r.unit.board, r.unit.province), ()) if o is not r]
            problem = (_kind_problem(mv, r, unit, others) or _coast_problem(mv, r, unit)
                       or _nationality_problem(mv, r, others))
        if problem:
            out.append((fresh, replace(r, kind=OrderKind.UNPLACED, unit=None, problem=problem)))
            fresh += 1
        else:
            out.append((i, r))
    return out


def implied_orders(mv: Multiverse, orders: list[tuple[int, ResolvedOrder]]) -> list[tuple[int, ResolvedOrder]]:
    """With ``datc_4e3: allowed``, the lines plus one move for each unit that has no written order and
    that its own power supports in a move or convoys (DATC 4.E.3 (a): "an explicit order takes
    precedence over an implicit order. And a implicit order can never be deduced from orders from
    another player"). Several lines implying one move imply it once; different moves conflict (4.D.3)."""
    if mv.options.chosen("datc_4e3") != "allowed":
        return orders
    ordered = {(r.unit.board, r.unit.province) for _, r in orders if r.unit is not None}
    out = list(orders)
    ids: dict[tuple, int] = {}
    fresh = max((i for i, _ in orders), default=-1) + 1
    for _, r in orders:
        if r.kind not in (OrderKind.SUPPORT_MOVE, OrderKind.CONVOY) or r.target is None or r.dest is None:
            continue
        board = mv.boards.get(r.target.board)
        unit = board.units.get(r.target.province) if board else None
        if unit is None or unit.power != r.power or (r.target.board, r.target.province) in ordered:
            continue
        key = (r.target, r.dest)
        if key in ids:
            continue
        ids[key] = fresh
        parsed = r.order
        move = o.Move(parsed.target, parsed.dest)
        text = f"{format_order(move, mv.game_map, brief=False)} (implied by {r.text})"
        out.append((fresh, ResolvedOrder(r.power, text, move, OrderKind.MOVE, r.target, dest=r.dest,
                                         unit_kind=unit.kind)))
        fresh += 1
    return out
