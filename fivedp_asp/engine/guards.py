"""The guard facts of a movement program: facts written only when a rule that starts from them can
fire, so that in most steps those rules ground nothing.

The solver grounds only the rules that can fire on a phase's facts (``solver/program.py``): a rule
whose positive body names a predicate with no fact and no rule to derive one is left out. The rules
about rare orders therefore name a guard in their body, a fact written here from the orders and
boards as written: each guard is a superset of what its rules can use, so leaving them out changes
no answer. ``asp/movement/guards.lp`` declares them and names the rules that start from each:

- ``doubtful_unit(I)``: order I's unit is missing or another power's, or the unit it supports or
  convoys is missing, or it names a board not written, or it is a convoy by an army, by a unit off
  the sea, or of a fleet (the rules refusing orders for want of a unit, a board or a convoy's fleet
  and army);
- ``repeats_place(I)``: order I names one place twice, its unit's, the unit it supports or convoys,
  its destination (the rules about orders into their own place);
- ``names_coast(I)``: a move or support I names a coast of its destination (the rules about named
  coasts);
- ``ordered_twice(U)``: the unit at place U has two or more new orders (conflicting orders);
- ``coasts_in_reach``: some unit could step into two locations of one province (two coasts) along the
  edges written (an ambiguous coast, for a move or a support);
- ``across_boards``: some order, new or recorded, names a board other than its unit's (adjacency of
  two boards, far orders and jumps, supports and convoys across boards): none in a classic phase;
- ``several_convoys``: two or more convoy orders name one army, or an open convoy is ordered (the
  dead ends of a convoy network of two or more fleets).

Rules of your own may derive the hooks those rules read (``mentions/2``, ``convoys/2``, ``step/3``,
``board_pair/2``, ``step_query/4``) whatever the orders: with them loaded (``own_rules``), the three
flags are always written and every order is doubtful.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ..model.kinds import UnitKind
from ..solver.driver import is_rule_text
from ..solver.terms import Fact, OrderId
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse, Unit
from ..model.orders import Place, ResolvedOrder, OrderKind


def own_rules(mv: Multiverse) -> bool:
    """Whether the movement program loads rules of your own (``RuleText`` among its logic files): they
    may derive any hook (``step/3``, ``convoys/2``, ``mentions/2``), so every fact that only guards
    built-in rules is written then (the ``own_rules`` argument of the builders below). Read once a step."""
    return any(is_rule_text(f) for f in mv.options.files("movement"))


def doubtful_unit_facts(game_map: GameMap, boards: Iterable[Board], orders: Iterable[tuple[int, ResolvedOrder]],
                        own_rules: bool) -> list[Fact]:
    """``doubtful_unit(I)`` for each order that ``_doubtful`` finds on these boards (those written), and
    for every order when rules of your own are loaded (they may name places through the hook
    ``mentions/2``). The eight rules that refuse orders for want of a unit, a board or a convoy's
    fleet and army start from it."""
    units = {(b.timeline, b.turn): b.units for b in boards}
    return [("doubtful_unit", OrderId(n)) for n, r in orders
            if r.unit is not None and (own_rules or _doubtful(r, units, game_map))]


def _doubtful(r: ResolvedOrder, units: Mapping[tuple[int, int], Mapping[str, Unit]], game_map: GameMap) -> bool:
    """Whether order ``r`` may be refused for the units or boards it names: its unit is missing or
    another power's, the unit it supports or convoys is missing, it names a board not written, or it
    is a convoy by an army or by a unit off the sea, or of a fleet."""
    u, target, dest = r.unit, r.target, r.dest
    here = units.get((u.timeline, u.turn), {}).get(u.province)
    if here is None or here.power != r.power:
        return True
    there = None if target is None else units.get((target.timeline, target.turn), {}).get(target.province)
    if (target is not None and there is None) or (dest is not None and (dest.timeline, dest.turn) not in units):
        return True
    if r.kind is not OrderKind.CONVOY:
        return False
    province = game_map.provinces.get(u.province)
    return (here.kind != UnitKind.FLEET or there is None or there.kind != UnitKind.ARMY or province is None
            or not province.is_sea)


def repeats_place(unit: tuple[int, int, str], target: tuple[int, int, str] | None,
                  dest: tuple[int, int, str] | None) -> bool:
    """Whether an order names one place twice (``repeats_place/1``): its unit's, the unit it supports or
    convoys, its destination, each as a fact's argument (``facts.place_term``). Read by
    ``facts.order_facts`` as it spells each order."""
    return unit == target or unit == dest or (target is not None and target == dest)


def names_coast(dest: Place | None) -> bool:
    """Whether a move or support names a coast of its destination (``names_coast/1``). Read by
    ``facts.order_facts`` as it spells each order."""
    return bool(dest.coast)


def ordered_twice_facts(new: Sequence[tuple[int, ResolvedOrder]]) -> list[Fact]:
    """``ordered_twice(U)``: the unit at U has two or more new orders; conflicting orders start from it."""
    first: dict[tuple[int, int, str], int] = {}
    twice: set[tuple[int, int, str]] = set()
    for i, r in new:
        if r.unit is not None and first.setdefault(place := (r.unit.timeline, r.unit.turn, r.unit.province), i) != i:
            twice.add(place)
    return [("ordered_twice", u) for u in sorted(twice)]


def coasts_in_reach_facts(game_map: GameMap, steps: Mapping[tuple[str, str], Iterable[str] | None],
                          own_rules: bool) -> list[Fact]:
    """``coasts_in_reach`` when a (kind, location) unit of ``steps`` has edges into two locations of one
    province among the provinces given for it (None: any), or when rules of your own are loaded; else
    nothing. A unit's steps into one destination come from its edges into that province (same board or
    another, asp/movement/legality.lp), so two of them are two coasts: the rules about several coasts in
    reach (an ambiguous coast, for a move or a support) can fire only then."""
    if own_rules:
        return [("coasts_in_reach",)]
    for (kind, loc), provinces in steps.items():
        wanted = None if provinces is None else set(provinces)
        seen: set[str] = set()
        for to in game_map.neighbours.get((kind, loc), ()):
            prov = game_map.province_of(to)
            if wanted is None or prov in wanted:
                if prov in seen:
                    return [("coasts_in_reach",)]
                seen.add(prov)
    return []


def across_facts(orders: Iterable[ResolvedOrder], own_rules: bool) -> list[Fact]:
    """``across_boards`` when some of these orders names a board other than its unit's, or when the
    movement program loads rules of your own; else nothing. The rules about orders across boards
    (board adjacency of two boards, far orders and jumps, convoys and supports across boards:
    asp/movement/boards.lp, legality.lp, the adjacency option files) can fire only then, and
    need it: so a classic phase, on one board, grounds none of them. Rules of your own may name
    other boards through the hooks (``mentions/2``, ``board_pair/2``, ``step_query/4``) whatever
    the orders, so with them it is always written."""
    for r in orders:
        if r.unit is not None and any(p is not None and p.board != r.unit.board for p in (r.target, r.dest)):
            return [("across_boards",)]
    if own_rules:
        return [("across_boards",)]
    return []


def several_convoys_facts(orders: Iterable[ResolvedOrder], own_rules: bool) -> list[Fact]:
    """``several_convoys`` when two or more of these orders (new and recorded) convoy one army, or one is
    an open convoy (option open_convoys: it may carry any army), or rules of your own are loaded (they may
    derive ``convoys/2``); else nothing. Only then can an army's convoy network hold two fleets, and the
    rules about dead ends of a network (asp/movement/convoy.lp) fire: most steps with convoys have one
    fleet an army, and those five rules then ground nothing."""
    if own_rules:
        return [("several_convoys",)]
    armies: set[tuple[int, int, str]] = set()
    for r in orders:
        if r.unit is None:
            continue  # no order/3 fact: no convoy of it
        if r.kind is OrderKind.OPEN_CONVOY:
            return [("several_convoys",)]
        if r.kind is OrderKind.CONVOY and r.target is not None:
            army = (r.target.timeline, r.target.turn, r.target.province)
            if army in armies:
                return [("several_convoys",)]
            armies.add(army)
    return []
