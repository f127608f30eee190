"""What an order line says about its own unit — the written unit type and coast — read by the DATC
readings the options choose (DATC 4.B.5, 4.C.1, 4.C.2; options ``datc_4b5``, ``datc_4c1``, ``datc_4c2``).

By default these designations are ignored: the unit is found by its place (the DATC preferences).
Another reading refuses a line before adjudication: it becomes an illegal order, reported ``invalid``
with its reason, exactly like a line that names no place of the multiverse. These are notation
questions, so they are settled here, from the written lines, and never reach the logic programs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .multiverse import Multiverse, Unit
from .options import chosen
from .orders import ResolvedOrder


def _unit(mv: Multiverse, r: ResolvedOrder) -> Unit | None:
    """The unit the line orders: one standing on its board, or one waiting there to retreat."""
    if r.unit is None or r.kind in ("build", "waive", "unplaced"):
        return None
    board = mv.boards.get(r.unit.board)
    if board is None:
        return None
    unit = board.units.get(r.unit.province)
    if unit is None:
        unit = next((x.unit for x in board.retreats if x.unit.province == r.unit.province), None)
    return unit


def _kind_problem(mv: Multiverse, r: ResolvedOrder, unit: Unit, others: Sequence[ResolvedOrder]) -> str | None:
    if r.unit_kind is None:
        reading = chosen(mv.options, "datc_4c1")
        if reading == "invalid":
            return "unit type missing"
        if reading == "valid_unless_other" and any(o.unit_kind == unit.kind for o in others):
            return "unit type missing, another order gives it"
    elif r.unit_kind != unit.kind:
        reading = chosen(mv.options, "datc_4c2")
        if reading == "invalid":
            return "wrong unit type"
        if reading == "valid_unless_other" and any(o.unit_kind == unit.kind for o in others):
            return "wrong unit type, another order gives the right one"
    return None


def _coast_problem(mv: Multiverse, r: ResolvedOrder, unit: Unit) -> str | None:
    written = r.unit.coast if r.unit else None
    actual = unit.location.partition("/")[2] or None
    if written is not None and written != actual and chosen(mv.options, "datc_4b5") == "fails":
        return "wrong coast of the unit"
    return None


def refuse_written(mv: Multiverse, orders: list[tuple[int, ResolvedOrder]]) -> list[tuple[int, ResolvedOrder]]:
    """The lines with each line that the chosen readings refuse made illegal, under an id of its own
    (a refused line must not share the id of an accepted line that reads the same)."""
    fresh = max((i for i, _ in orders), default=-1) + 1
    out = []
    for i, r in orders:
        unit = _unit(mv, r)
        problem = None
        if unit is not None:
            others = [o for _, o in orders if o is not r and o.power == r.power and o.unit is not None
                      and o.unit.board == r.unit.board and o.unit.province == r.unit.province
                      and o.kind not in ("build", "waive")]
            problem = _kind_problem(mv, r, unit, others) or _coast_problem(mv, r, unit)
        if problem:
            out.append((fresh, replace(r, kind="unplaced", unit=None, problem=problem)))
            fresh += 1
        else:
            out.append((i, r))
    return out
