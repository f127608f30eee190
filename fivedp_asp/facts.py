"""Builds the ASP facts of a step: the map, the boards in play, their units and the orders.

Only boards that are heads or that an order mentions are written, so the program's size follows
the boards in play, not the length of history.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, NamedTuple, Sequence

from . import terms as t
from .map import GameMap
from .multiverse import Board, Multiverse
from .orders import Place, ResolvedOrder


def _touches_sea(game_map: GameMap, a: str, b: str) -> bool:
    return game_map.provinces[game_map.province_of(a)].is_sea or game_map.provinces[game_map.province_of(b)].is_sea


@lru_cache(maxsize=8)
def map_facts(game_map: GameMap) -> str:
    """The geography every movement or retreat step needs, the same string for every step on this
    map: province types, locations, and the sea graph (fleet edges with a sea at one end), which
    convoy routes are traced through. Other edges come with the units standing on them (edge_facts)."""
    lines: list[str] = []
    for prov in game_map.provinces.values():
        p = t.const(prov.id)
        lines.append(f"ptype({p},{prov.type}).")
        for kind in ("army", "fleet"):
            for loc in game_map.locations(prov.id, kind):
                lines.append(f"loc({t.location(loc)},{p}).")
    for a, b in sorted(game_map.edges("fleet")):
        if _touches_sea(game_map, a, b):
            lines.append(f"edge(fleet,{t.location(a)},{t.location(b)}).")
    return "\n".join(sorted(set(lines))) + "\n"


def edge_facts(game_map: GameMap, units: Iterable[tuple[str, str]], every: bool = False) -> list[str]:
    """The edges from where these (kind, location) units stand that ``map_facts`` leaves out; with
    ``every``, all their edges (for ``retreat_map_facts``, which has none)."""
    lines = []
    for kind, loc in sorted(set(units)):
        for to in game_map.neighbours.get((kind, loc), ()):
            if every or kind == "army" or not _touches_sea(game_map, loc, to):
                lines.append(f"edge({kind},{t.location(loc)},{t.location(to)}).")
    return lines


@lru_cache(maxsize=8)
def retreat_map_facts(game_map: GameMap) -> str:
    """What retreats read of the map besides the edges from where the dislodged units stand (given with
    the phase's facts, ``edge_facts(every=True)``): province types and locations. The sea graph that
    ``map_facts`` adds for convoy routes is more than half of its facts, and no retreat goes by convoy."""
    return "".join(line + "\n" for line in map_facts(game_map).splitlines() if not line.startswith("edge("))


@lru_cache(maxsize=8)
def center_facts(game_map: GameMap) -> str:
    """Supply centres and home centres (victory and adjustments)."""
    lines = []
    for prov in game_map.provinces.values():
        if prov.center:
            lines.append(f"center({t.const(prov.id)}).")
        if prov.home:
            lines.append(f"home({t.const(prov.home)},{t.const(prov.id)}).")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=16)
def adjustment_map_facts(game_map: GameMap, civil_disorder: bool = True) -> str:
    """What adjustments read of the map: province types, locations (coasts), centres and home centres;
    with ``civil_disorder``, also province adjacency (any unit, and fleets alone) and alphabetical ranks,
    which only the removals a power did not order read (civil_disorder.lp, datc_4d8) and which are
    two thirds of the map's facts: a phase is first adjudicated without them, and again with them only
    when a power is short of removals (``removals_unordered``, step.py)."""
    lines = {line for line in map_facts(game_map).splitlines() if not line.startswith("edge(")}
    if civil_disorder:
        for kind in ("army", "fleet"):
            for a, b in game_map.edges(kind):
                # province adjacency whatever the unit type (civil disorder distances)
                lines.add(f"padj({t.const(game_map.province_of(a))},{t.const(game_map.province_of(b))}).")
                if kind == "fleet":
                    # fleet adjacency of provinces (the older civil disorder rule, option datc_4d8)
                    lines.add(f"fadj({t.const(game_map.province_of(a))},{t.const(game_map.province_of(b))}).")
        by_name = sorted(game_map.provinces.values(), key=lambda p: p.name.lower())
        lines |= {f"name_rank({t.const(p.id)},{rank})." for rank, p in enumerate(by_name)}
    return "\n".join(sorted(lines)) + "\n" + center_facts(game_map)


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
                # a written convoy path (DATC 4.A.6): read only by the datc_4a6 option files
                for k, sea in enumerate(getattr(r.order, "path", ())):
                    lines.append(f"ordered_path({i},{k},{t.const(sea.province)}).")
            case "support_hold":
                lines.append(f"ordered_support_hold({i},{place_term(r.target)}).")
            case "support_move":
                lines.append(
                    f"ordered_support_move({i},{place_term(r.target)},{place_term(r.dest)},{_coast(r.dest)})."
                )
            case "convoy":
                lines.append(f"ordered_convoy({i},{place_term(r.target)},{place_term(r.dest)}).")
            case "open_convoy":
                lines.append(f"ordered_open_convoy({i}).")
            case "jump_assist":
                lines.append(f"ordered_jump_assist({i},{place_term(r.target)},{place_term(r.dest)}).")
            case other:
                lines.append(f"ordered_other({i},{other}).")
    return lines


def _decision_term(name: str, place: tuple[int, int, str]) -> str:
    return f"{name}({t.place(*place)})"


def record_facts(board: Board, *, own: bool) -> list[str]:
    """A past board's recorded decisions: ``recorded/2`` to hold them, ``record_of/3`` to compare (own)."""
    if board.record is None:
        return []
    lines = []
    for (name, place), value in sorted(board.record.decisions.items()):
        term = _decision_term(name, place)
        lines.append(f"recorded({term},{str(value).lower()}).")
        if own:
            lines.append(f"record_of({t.board(*board.key)},{term},{str(value).lower()}).")
    return lines


def reached_boards(r: ResolvedOrder) -> set[tuple[int, int]]:
    """The boards whose battle a new order joins (RULES.md §5: a move's destination, a support's target board)."""
    match r.kind:
        case "move" | "support_move":
            return {r.dest.board}
        case "support_hold":
            return {r.target.board}
    return set()


class MovementFacts(NamedTuple):
    text: str
    recorded: list[tuple[int, ResolvedOrder]]  # the recorded orders included (ids after the new ones)
    departed: frozenset[tuple[int, int, str]]  # units whose recorded journey took them off their board


def _acts_on(r: ResolvedOrder) -> tuple[int, int] | None:
    """The board an order acts on, when it is not the unit's own board."""
    target = {"move": r.dest, "support_move": r.dest, "support_hold": r.target, "jump_assist": r.dest}.get(r.kind)
    if target is None or target.board == r.unit.board:
        return None
    return target.board


def movement_facts(mv: Multiverse, orders: Sequence[tuple[int, ResolvedOrder]]) -> MovementFacts:
    """Facts for a movement step.

    The boards written are the heads, the past boards new orders reach (their battles may be fought
    again, with their recorded orders), and, one step further, the boards of units those recorded
    orders name, whose decisions are held at their recorded values.

    A board's battle is its record plus the new orders (RULES.md §5). A recorded order that acted on
    another board without being part of that board's battle — a journey into a board that was already
    past, recorded only with its own board (§6) — does not join that battle when both are fought
    again: a move counts only by its recorded outcome at its origin (``left``/``stuck``), a support
    not at all.
    """
    heads = {b.key for b in mv.heads}
    candidates = set(heads)
    for _, r in orders:
        candidates |= {k for k in reached_boards(r) if k in mv.boards}
    past = sorted(candidates - heads)
    recorded: dict[tuple[int, int, str], ResolvedOrder] = {}

    def take(place: tuple[int, int, str]) -> None:
        board = mv.boards.get(place[:2])
        r = board.record.order_of(place[2]) if board and board.record else None
        if r is not None:
            recorded.setdefault(place, r)

    for key in past:
        rec = mv.boards[key].record
        if rec is None:
            continue
        for r in rec.orders:
            recorded.setdefault((r.unit.timeline, r.unit.turn, r.unit.province), r)
        for place in rec.incoming:
            take(place)
    # the supported and convoyed units of recorded orders, so that matching can be judged
    for r in list(recorded.values()):
        if r.target is not None:
            take((r.target.timeline, r.target.turn, r.target.province))
    # a recorded jump stays legal only with its recorded assists (RULES.md §9.2): take them along
    for r in list(recorded.values()):
        dest = mv.boards.get(r.dest.board) if r.kind == "move" else None
        for place in dest.record.incoming if dest and dest.record else ():
            board = mv.boards.get(place[:2])
            a = board.record.order_of(place[2]) if board and board.record else None
            if a is not None and a.kind == "jump_assist" and a.target.board == r.unit.board \
                    and a.target.province == r.unit.province:
                take(place)
    journeys: list[str] = []
    departed = set()
    for place, r in list(recorded.items()):
        other = _acts_on(r)
        board = mv.boards.get(other) if other else None
        if other is None or (board is not None and board.record is not None and place in board.record.incoming):
            continue
        del recorded[place]
        if r.kind == "move":
            src = mv.boards[place[:2]].record
            went = bool(src and src.decisions.get(("moves", place)))
            journeys.append(f"{'left' if went else 'stuck'}({t.place(*place)}).")
            if went:
                departed.add(place)
    next_id = max((i for i, _ in orders), default=-1) + 1
    # a recorded hold adds nothing: a unit without an order holds
    recorded_orders = [(next_id + n, r) for n, r in enumerate(r for r in recorded.values() if r.kind != "hold")]
    involved = set(candidates)
    for _, r in list(orders) + recorded_orders:
        involved |= {p.board for p in (r.unit, r.target, r.dest) if p is not None and p.board in mv.boards}
    boards = [mv.boards[k] for k in sorted(involved)]
    lines = board_facts(mv, boards)
    lines += edge_facts(mv.game_map, ((u.kind, u.location) for b in boards for u in b.units.values()))
    lines += [f"head({t.board(*k)})." for k in sorted(heads)]
    for b in boards:
        if b.key not in heads:
            lines.append(f"past_board({t.board(*b.key)}).")
            lines += record_facts(b, own=b.key in candidates)
    lines += order_facts(orders)
    if orders:
        # new orders have the ids 0..k-1 (recorded ones come after): one interval fact
        lines.append(f"new(0..{max(i for i, _ in orders)}).")
    lines += order_facts(recorded_orders)
    lines += journeys
    return MovementFacts("\n".join(lines) + "\n", recorded_orders, frozenset(departed))
