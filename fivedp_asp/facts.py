"""Builds the ASP facts of a step: the map, the boards in play, their units and the orders.

Only boards that are heads or that an order mentions are written, so the program's size follows
the boards in play, not the length of history.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from . import terms as t
from .map import GameMap
from .multiverse import Board, Multiverse
from .resolve import Place, ResolvedOrder


@lru_cache(maxsize=8)
def map_facts(game_map: GameMap) -> str:
    """The geography as facts; the same string for every step on this map."""
    lines: list[str] = []
    for prov in game_map.provinces.values():
        p = t.const(prov.id)
        lines.append(f"ptype({p},{prov.type}).")
        for kind in ("army", "fleet"):
            for loc in game_map.locations(prov.id, kind):
                lines.append(f"loc({t.location(loc)},{p}).")
    for kind in ("army", "fleet"):
        for a, b in sorted(game_map.edges(kind)):
            lines.append(f"edge({kind},{t.location(a)},{t.location(b)}).")
            # province adjacency whatever the unit type (civil disorder distances)
            lines.append(f"padj({t.const(game_map.province_of(a))},{t.const(game_map.province_of(b))}).")
    for prov in game_map.provinces.values():
        if prov.center:
            lines.append(f"center({t.const(prov.id)}).")
        if prov.home:
            lines.append(f"home({t.const(prov.home)},{t.const(prov.id)}).")
    by_name = sorted(game_map.provinces.values(), key=lambda p: p.name.lower())
    lines += [f"name_rank({t.const(p.id)},{rank})." for rank, p in enumerate(by_name)]
    return "\n".join(sorted(set(lines))) + "\n"


def place_term(place: Place) -> str:
    return t.place(place.timeline, place.turn, place.province)


def board_facts(mv: Multiverse, boards: Iterable[Board]) -> list[str]:
    lines = []
    for board in boards:
        lines.append(f"board({t.board(*board.key)}).")
        for unit in board.units.values():
            lines.append(
                f"unit({t.place(board.timeline, board.turn, unit.province)},{unit.kind},"
                f"{t.const(unit.power)},{t.location(unit.location)})."
            )
    for child, (parent, turn) in sorted(mv.forks.items()):
        lines.append(f"fork({child},{parent},{turn}).")
    return lines


def _coast(place: Place | None) -> str:
    return t.const(place.coast) if place and place.coast else "none"


def order_facts(orders: Sequence[tuple[int, ResolvedOrder]]) -> list[str]:
    """One ``order/3`` fact per order id plus the fact of its verb."""
    lines = []
    for i, r in orders:
        if r.unit is None:
            continue
        lines.append(f"order({i},{place_term(r.unit)},{t.const(r.power)}).")
        match r.kind:
            case "hold":
                lines.append(f"ordered_hold({i}).")
            case "move":
                lines.append(f"ordered_move({i},{place_term(r.dest)},{_coast(r.dest)},{int(r.via_convoy)}).")
            case "support_hold":
                lines.append(f"ordered_support_hold({i},{place_term(r.target)}).")
            case "support_move":
                lines.append(
                    f"ordered_support_move({i},{place_term(r.target)},{place_term(r.dest)},{_coast(r.dest)})."
                )
            case "convoy":
                lines.append(f"ordered_convoy({i},{place_term(r.target)},{place_term(r.dest)}).")
            case other:
                lines.append(f"ordered_other({i},{other}).")
    return lines


def movement_facts(mv: Multiverse, orders: Sequence[tuple[int, ResolvedOrder]]) -> str:
    mentioned = {p.board for _, r in orders for p in (r.unit, r.target, r.dest) if p is not None}
    boards = {b.key: b for b in mv.heads}
    for key in mentioned:
        if key in mv.boards:
            boards.setdefault(key, mv.boards[key])
    lines = board_facts(mv, boards.values())
    lines += [f"head({t.board(*b.key)})." for b in mv.heads]
    lines += order_facts(orders)
    return "\n".join(lines) + "\n"
