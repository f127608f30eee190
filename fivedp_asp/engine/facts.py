"""Builds the ASP facts of a step: the map, the boards in play, their units and the orders.

Only boards that are heads or that an order mentions are written, so the program's size follows
the boards in play, not the length of history. A phase's facts are values (``terms.Fact``: tuples of
a predicate and its arguments), spelled by ``predicates.render`` when the program is made, so that a
joint program (batch.py) numbers each phase apart as it spells it. The map's facts, the same for
every step, are spelled once here and kept.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain
from typing import Iterable, Iterator, NamedTuple, Sequence

from ..model.kinds import UnitKind
from ..solver import terms as t
from ..solver.driver import DEFAULT_TIME_LIMIT, solve_decisions
from ..solver.predicates import fact_lines, render
from ..solver.terms import Fact, OrderId, OrderIds, Timeline
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse
from ..model.orders import Place, ResolvedOrder, OrderKind
from .guards import (across_facts, coasts_in_reach_facts, doubtful_unit_facts, names_coast, ordered_twice_facts,
                     own_rules, repeats_place, several_convoys_facts)


def _touches_sea(game_map: GameMap, a: str, b: str) -> bool:
    return game_map.provinces[game_map.province_of(a)].is_sea or game_map.provinces[game_map.province_of(b)].is_sea


@lru_cache(maxsize=8)
def map_facts(game_map: GameMap) -> str:
    """The geography every movement step needs, the same string for every step on this map: province
    types, locations, and the sea graph that convoy routes are traced through (``sea_graph_facts``,
    derived from the fleet edges with a sea at one end, which are not handed over themselves). Edges
    come with the units standing on them (edge_facts), in a movement phase only those into the
    provinces its orders name for them (step_edge_facts)."""
    facts: list[Fact] = []
    sea_edges: list[Fact] = []
    for prov in game_map.provinces.values():
        p = t.const(prov.id)
        facts.append(("ptype", p, prov.type))
        for kind in UnitKind:
            for loc in game_map.locations(prov.id, kind):
                facts.append(("loc", t.location(loc), p))
    for a, b in sorted(game_map.edges(UnitKind.FLEET)):
        if _touches_sea(game_map, a, b):
            sea_edges.append(("edge", UnitKind.FLEET, t.location(a), t.location(b)))
    text = "\n".join(sorted(set(fact_lines(facts)))) + "\n"
    return text + sea_graph_facts(text + "\n".join(fact_lines(sea_edges)) + "\n")


_SEA_GRAPH = ("sea_adj", "sea_next")


def sea_graph_facts(geography: str) -> str:
    """The sea graph that convoy routes are traced through (``sea_adj/2``, ``sea_next/2``), derived from
    a map's facts by asp/movement/geography.lp, grounded here once per map: the same for every step, it
    cost every movement program two rules joined over all the map's sea edges when derived there.
    It belongs to the map, not to a step: the step's time limit does not bound it (a limit run out
    here would name a step of no boards and no orders), the default limit does."""
    atoms = solve_decisions(("movement/geography.lp",), geography, time_limit=DEFAULT_TIME_LIMIT).atoms
    sea = fact_lines((a.name, *(str(x) for x in a.arguments)) for a in atoms if a.name in _SEA_GRAPH)
    return "".join(sorted(line + "\n" for line in sea))


def edge_facts(game_map: GameMap, units: Iterable[tuple[str, str]]) -> list[Fact]:
    """Every edge from where these (kind, location) units stand (``map_facts`` has none)."""
    facts: list[Fact] = []
    for kind, loc in sorted(set(units)):
        for to in game_map.neighbours.get((kind, loc), ()):
            facts.append(("edge", kind, t.location(loc), t.location(to)))
    return facts


def step_edge_facts(game_map: GameMap, steps: dict[tuple[str, str], set[str]]) -> list[Fact]:
    """The edges that ``edge_facts`` gives from where these (kind, location) units stand, only those
    into the provinces given for each: the movement rules read a unit's edges only to step into a
    province an order names for it (``step/3`` of asp/movement/legality.lp and of the jump assists'
    option file, through ``step_query/4`` and ``jump_query/4``); a unit's other edges join nothing."""
    facts: list[Fact] = []
    for (kind, loc), provinces in sorted(steps.items()):
        for to in game_map.neighbours.get((kind, loc), ()):
            if game_map.province_of(to) in provinces:
                facts.append(("edge", kind, t.location(loc), t.location(to)))
    return facts


def _step_queries(orders: Iterable[ResolvedOrder]) -> Iterator[tuple[Place, str]]:
    """The (unit place, province) pairs the movement rules ask whether a unit could step into
    (``step_query/4``, ``jump_query/4``): a move's unit to its destination; a support's unit to the
    province it supports into, and a supported move's unit too; a jump assist's unit to the assisted
    unit's province."""
    for r in orders:
        if r.unit is None:
            continue  # no order/3 fact: the rules ask nothing about it
        if r.kind in (OrderKind.MOVE, OrderKind.SUPPORT_MOVE) and r.dest is not None:
            yield r.unit, r.dest.province
            if r.kind is OrderKind.SUPPORT_MOVE and r.target is not None:
                yield r.target, r.dest.province
        elif r.kind in (OrderKind.SUPPORT_HOLD, OrderKind.JUMP_ASSIST) and r.target is not None:
            yield r.unit, r.target.province


def asked_edge_facts(mv: Multiverse, boards: Sequence[Board], orders: Iterable[ResolvedOrder], own: bool) -> list[Fact]:
    """The edges a movement program reads for these orders on these boards, with ``coasts_in_reach``
    when it can matter: only those its questions ask (``step_edge_facts``), or every unit's edges when
    rules of your own are loaded, since those read edge/3 as they like (docs/rules-of-your-own.md).
    A step and the legal-orders listing write them alike, so a listed order is judged on what a step
    would give it."""
    if own:
        facts = edge_facts(mv.game_map, ((u.kind, u.location) for b in boards for u in b.units.values()))
        return facts + coasts_in_reach_facts(mv.game_map, {}, own)
    on = {b.key: b for b in boards}
    steps: dict[tuple[str, str], set[str]] = {}
    # one unit's listing asks thousands of questions of a few units: each asked once
    for (timeline, turn, at), province in {((p.timeline, p.turn, p.province), province)
                                           for p, province in _step_queries(orders)}:
        board = on.get((timeline, turn))
        unit = board.units.get(at) if board is not None else None
        if unit is not None:
            steps.setdefault((unit.kind, unit.location), set()).add(province)
    return step_edge_facts(mv.game_map, steps) + coasts_in_reach_facts(mv.game_map, steps, own)


def retreat_loc_facts(game_map: GameMap, units: Iterable[tuple[str, str]], provinces: Iterable[str]) -> list[Fact]:
    """All that retreats read of the map besides the edges from where the dislodged units stand (given
    with the phase's facts, ``edge_facts``): ``loc/2`` of every location one of those edges
    leads to and of every location of the provinces the orders move to (the coasts an order may name).
    The retreat rules (asp/retreat/, and the option files of retreats) read no other location and no
    province type: a rule that comes to read more must be given it here. The map's locations and types
    were most of a retreat program's atoms when they were all handed over."""
    locations: set[str] = set()
    for kind, loc in set(units):
        locations.update(game_map.neighbours.get((kind, loc), ()))
    for prov in set(provinces):
        if prov in game_map.provinces:
            locations.update(game_map.locations(prov, UnitKind.ARMY) + game_map.locations(prov, UnitKind.FLEET))
    return sorted(("loc", t.location(loc), t.const(game_map.province_of(loc))) for loc in locations)


@lru_cache(maxsize=8)
def center_facts(game_map: GameMap) -> str:
    """Supply centres and home centres (victory and adjustments)."""
    facts: list[Fact] = []
    for prov in game_map.provinces.values():
        if prov.center:
            facts.append(("center", t.const(prov.id)))
        if prov.home:
            facts.append(("home", t.const(prov.home), t.const(prov.id)))
    return render(facts)


@lru_cache(maxsize=16)
def adjustment_map_facts(game_map: GameMap, civil_disorder: bool = True) -> str:
    """What adjustments read of the map: province types, locations (coasts), centres and home centres;
    with ``civil_disorder``, also province adjacency (any unit, and fleets alone) and alphabetical ranks,
    which only the removals a power did not order read (civil_disorder.lp, datc_4d8) and which are
    two thirds of the map's facts: a phase is first adjudicated without them, and again with them only
    when a power is short of removals (``removals_unordered``, step.py)."""
    lines = {line for line in map_facts(game_map).splitlines() if not line.startswith(("edge(", *_SEA_GRAPH))}
    if civil_disorder:
        facts: list[Fact] = []
        for kind in UnitKind:
            for a, b in game_map.edges(kind):
                # province adjacency whatever the unit type (civil disorder distances)
                facts.append(("padj", t.const(game_map.province_of(a)), t.const(game_map.province_of(b))))
                if kind == UnitKind.FLEET:
                    # fleet adjacency of provinces (the older civil disorder rule, option datc_4d8)
                    facts.append(("fadj", t.const(game_map.province_of(a)), t.const(game_map.province_of(b))))
        by_name = sorted(game_map.provinces.values(), key=lambda p: p.name.lower())
        facts += [("name_rank", t.const(p.id), rank) for rank, p in enumerate(by_name)]
        lines |= set(fact_lines(facts))
    return "\n".join(sorted(lines)) + "\n" + center_facts(game_map)


@lru_cache(maxsize=8)
def _province_adjacency(game_map: GameMap) -> dict[str, frozenset[str]]:
    """Province adjacency whatever the unit type, as ``padj/2`` states it (``adjustment_map_facts``)."""
    adj: dict[str, set[str]] = {}
    for kind in UnitKind:
        for a, b in game_map.edges(kind):
            adj.setdefault(game_map.province_of(a), set()).add(game_map.province_of(b))
    return {p: frozenset(q) for p, q in adj.items()}


CIVIL_DISORDER_REACH = 20  # the farthest distance the civil disorder rule tells apart (DATC 4.D.8)


def distance_facts(game_map: GameMap, boards: Iterable[Board]) -> list[Fact]:
    """``distance(B,Pw,P,N)``: on board B, the province P where power Pw has a unit is N provinces from
    the nearest centre Pw owns there (counted through provinces it does not own, any unit type, up to
    ``CIVIL_DISORDER_REACH``), for the removals a power did not order (asp/adjustment/civil_disorder.lp).
    A breadth-first search here: the same distances as a rule that extends every walk of length N by one
    province, which derived each province at every length its walks reach (thousands of ground rules a
    board and power short of removals, most of such a program's grounding)."""
    adj = _province_adjacency(game_map)
    facts: list[Fact] = []
    for b in boards:
        for power in sorted({u.power for u in b.units.values()}):
            owned = {p for p, o in b.centers.items() if o == power}
            wanted = {u.province for u in b.units.values() if u.power == power}
            seen = {p: 0 for p in owned}
            frontier = sorted(owned)
            for n in range(1, CIVIL_DISORDER_REACH + 1):
                nxt = []
                for p in frontier:
                    for q in adj.get(p, ()):
                        if q not in seen:
                            seen[q] = n
                            nxt.append(q)
                frontier = nxt
            facts += [("distance", b.key, t.const(power), t.const(p), seen[p]) for p in sorted(wanted) if p in seen]
    return facts


def place_term(place: Place) -> tuple[int, int, str]:
    """A place as a fact's argument: its board and province (the coast is not part of it)."""
    return place.timeline, place.turn, place.province


def board_facts(mv: Multiverse, boards: Iterable[Board]) -> list[Fact]:
    facts: list[Fact] = []
    for board in boards:
        facts.append(("board", board.key))
        for unit in board.units.values():
            facts.append(("unit", (board.timeline, board.turn, unit.province), unit.kind, t.const(unit.power),
                          t.location(unit.location)))
    for child, (parent, turn) in sorted(mv.forks.items()):
        facts.append(("fork", Timeline(child), Timeline(parent), turn))
    return facts


def _coast(place: Place | None) -> str:
    return t.const(place.coast) if place and place.coast else "none"


def order_facts(orders: Sequence[tuple[int, ResolvedOrder]]) -> list[Fact]:
    """One ``order/3`` fact per order id plus the fact of its verb, and the guards of each order
    (``guards.py``): ``names_coast/1`` for a move or support that names its destination's coast,
    ``repeats_place/1`` for an order that names one place twice."""
    facts: list[Fact] = []
    append = facts.append
    # the places spelled inline as place_term does (a big step writes thousands of them)
    for n, r in orders:
        u = r.unit
        if u is None:
            continue
        i = OrderId(n)
        kind, dest, target = r.kind, r.dest, r.target
        up = (u.timeline, u.turn, u.province)
        tp = (target.timeline, target.turn, target.province) if target is not None else None
        dp = (dest.timeline, dest.turn, dest.province) if dest is not None else None
        append(("order", i, up, t.const(r.power)))
        if repeats_place(up, tp, dp):
            append(("repeats_place", i))
        if kind is OrderKind.HOLD:
            append(("ordered_hold", i))
        elif kind is OrderKind.MOVE:
            append(("ordered_move", i, dp, _coast(dest), int(r.via_convoy)))
            if names_coast(dest):
                append(("names_coast", i))
            # a written convoy path (DATC 4.A.6): read only by the datc_4a6 option files
            for k, sea in enumerate(getattr(r.order, "path", ())):
                append(("ordered_path", i, k, t.const(sea.province)))
        elif kind is OrderKind.SUPPORT_HOLD:
            append(("ordered_support_hold", i, tp))
        elif kind is OrderKind.SUPPORT_MOVE:
            append(("ordered_support_move", i, tp, dp, _coast(dest)))
            if names_coast(dest):
                append(("names_coast", i))
        elif kind is OrderKind.CONVOY:
            append(("ordered_convoy", i, tp, dp))
        elif kind is OrderKind.OPEN_CONVOY:
            append(("ordered_open_convoy", i))
        elif kind is OrderKind.JUMP_ASSIST:
            append(("ordered_jump_assist", i, tp, dp))
        else:
            append(("ordered_other", i, kind))
    return facts


def pairing_facts(new: Sequence[tuple[int, ResolvedOrder]], recorded: Sequence[tuple[int, ResolvedOrder]]) -> list[Fact]:
    """Which orders come in pairs, as written: ``ordered_twice(U)``, the unit at U has two or more new
    orders (a guard, ``guards.py``); ``swapped(U,V)``, the units at U and V are ordered (new or recorded
    orders) into each other's place. Conflicting orders and head-to-head battles start from such pairs;
    most steps have none, and the six rules about them then ground nothing."""
    moves: set[tuple[tuple[int, int, str], tuple[int, int, str]]] = set()
    for _, r in chain(new, recorded):
        if r.kind is OrderKind.MOVE and r.unit is not None and r.dest is not None:
            moves.add((place_term(r.unit), place_term(r.dest)))
    facts = ordered_twice_facts(new)
    facts += [("swapped", u, v) for u, v in sorted(m for m in moves if m[0] != m[1] and (m[1], m[0]) in moves)]
    return facts


def record_facts(board: Board, *, own: bool) -> list[Fact]:
    """A past board's recorded decisions: ``recorded/2`` to hold them, ``record_of/3`` to compare (own)."""
    if board.record is None:
        return []
    facts: list[Fact] = []
    for (name, place), value in sorted(board.record.decisions.items()):
        term = (name, place)
        facts.append(("recorded", term, str(value).lower()))
        if own:
            facts.append(("record_of", board.key, term, str(value).lower()))
    return facts


def reached_board(r: ResolvedOrder) -> tuple[int, int] | None:
    """The board whose battle a new order joins (docs/rules.md §6.4: a move's destination, a support's
    target board), or None."""
    match r.kind:
        case OrderKind.MOVE | OrderKind.SUPPORT_MOVE:
            return r.dest.timeline, r.dest.turn
        case OrderKind.SUPPORT_HOLD:
            return r.target.timeline, r.target.turn
    return None


class MovementFacts(NamedTuple):
    facts: tuple[Fact, ...]
    recorded: list[tuple[int, ResolvedOrder]]  # the recorded orders included (ids after the new ones)
    departed: frozenset[tuple[int, int, str]]  # units whose recorded journey took them off their board


def _acts_on(r: ResolvedOrder) -> tuple[int, int] | None:
    """The board an order acts on, when it is not the unit's own board."""
    target = {OrderKind.MOVE: r.dest, OrderKind.SUPPORT_MOVE: r.dest, OrderKind.SUPPORT_HOLD: r.target,
              OrderKind.JUMP_ASSIST: r.dest}.get(r.kind)
    if target is None or target.board == r.unit.board:
        return None
    return target.board


def movement_facts(mv: Multiverse, orders: Sequence[tuple[int, ResolvedOrder]]) -> MovementFacts:
    """Facts for a movement step.

    The boards written are the heads, the past boards new orders reach (their battles may be fought
    again, with their recorded orders), and, one step further, the boards of units those recorded
    orders name, whose decisions are held at their recorded values.

    A board's battle is its record plus the new orders (docs/rules.md §6.4). A recorded order that acted on
    another board without being part of that board's battle — a journey into a board that was already
    past, recorded only with its own board (§6.4) — does not join that battle when both are fought
    again: a move counts only by its recorded outcome at its origin (``left``/``stuck``), a support
    not at all.
    """
    heads = {b.key for b in mv.heads}
    candidates = set(heads)
    known = mv.boards
    # a loop of plain statements: a big step has many orders
    for _, r in orders:
        key = reached_board(r)
        if key is not None and key in known:
            candidates.add(key)
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
    # the units on past boards that new supports of a move and convoys name, so that a support or
    # convoy that does not match says what the unit did (its board's record: it gets no new order);
    # a new support to hold reaches its unit's board, whose recorded orders are taken above
    for _, r in orders:
        if r.kind in (OrderKind.SUPPORT_MOVE, OrderKind.CONVOY) and r.target is not None and r.target.board not in heads:
            take((r.target.timeline, r.target.turn, r.target.province))
    # the supported and convoyed units of recorded orders, so that matching can be judged
    for r in list(recorded.values()):
        if r.target is not None:
            take((r.target.timeline, r.target.turn, r.target.province))
    # a recorded jump stays legal only with its recorded assists (docs/rules.md §6.8.2): take them along
    for r in list(recorded.values()):
        dest = mv.boards.get(r.dest.board) if r.kind is OrderKind.MOVE else None
        for place in dest.record.incoming if dest and dest.record else ():
            board = mv.boards.get(place[:2])
            a = board.record.order_of(place[2]) if board and board.record else None
            if a is not None and a.kind is OrderKind.JUMP_ASSIST and a.target.board == r.unit.board \
                    and a.target.province == r.unit.province:
                take(place)
    journeys: list[Fact] = []
    departed = set()
    for place, r in list(recorded.items()):
        other = _acts_on(r)
        board = mv.boards.get(other) if other else None
        if other is None or (board is not None and board.record is not None and place in board.record.incoming):
            continue
        del recorded[place]
        if r.kind is OrderKind.MOVE:
            src = mv.boards[place[:2]].record
            went = bool(src and src.decisions.get(("moves", place)))
            journeys.append(("left" if went else "stuck", place))
            if went:
                departed.add(place)
    next_id = max((i for i, _ in orders), default=-1) + 1
    # a recorded hold adds nothing: a unit without an order holds
    recorded_orders = [(next_id + n, r) for n, r in enumerate(r for r in recorded.values() if r.kind is not OrderKind.HOLD)]
    involved = set(candidates)
    for _, r in chain(orders, recorded_orders):
        for p in (r.unit, r.target, r.dest):
            if p is not None:
                key = (p.timeline, p.turn)
                if key in known:
                    involved.add(key)
    boards = [mv.boards[k] for k in sorted(involved)]
    facts = board_facts(mv, boards)
    own = own_rules(mv)
    facts += asked_edge_facts(mv, boards, (r for _, r in chain(orders, recorded_orders)), own)
    facts += [("head", k) for k in sorted(heads)]
    for b in boards:
        if b.key not in heads:
            facts.append(("past_board", b.key))
            facts += record_facts(b, own=b.key in candidates)
    facts += order_facts(orders)
    if orders:
        # new orders have the ids 0..k-1 (recorded ones come after): one interval fact
        facts.append(("new", OrderIds(0, max(i for i, _ in orders))))
    facts += order_facts(recorded_orders)
    facts += pairing_facts(orders, recorded_orders)
    facts += doubtful_unit_facts(mv.game_map, boards, chain(orders, recorded_orders), own)
    facts += across_facts(chain((r for _, r in orders), (r for _, r in recorded_orders)), own)
    facts += several_convoys_facts((r for _, r in chain(orders, recorded_orders)), own)
    facts += journeys
    return MovementFacts(tuple(facts), recorded_orders, frozenset(departed))
