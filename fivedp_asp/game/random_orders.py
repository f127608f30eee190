"""Random orders for a classic board, drawn from each unit's legal orders (plus a few illegal ones).

The generator works on our own map data only. In a movement phase every unit gets one order:

- a hold, or a move to a neighbouring location (fleets name a coast where there are two; when only
  one coast can be reached the coast is sometimes left out, as players do);
- a support of a neighbour's hold or move, usually of the order that neighbour was actually given,
  sometimes of another move it could make;
- convoys: an army on a coast with a chain of fleets in the seas may be planned a convoyed move
  (``via convoy`` when the destination is also reachable overland, sometimes without it), and the
  fleets of the chain then convoy it; now and then a chain is left incomplete;
- with probability ``illegal_share`` an order is replaced by an illegal one (a move to a province the
  unit cannot reach, an army to sea or a fleet inland, a support the supporter cannot give or of a
  move that is impossible, a convoy by an army, by a coastal fleet or of a fleet, a move to its own
  province, a move ``via convoy`` that no fleet could ever carry), and a power may add an order for
  another power's unit or for an empty province.

Retreats: each dislodged unit retreats to one of its options, disbands, or (rarely) gets no order
or an illegal retreat. Adjustments: powers build in free home centres (army or fleet, with a coast
for St Petersburg) or waive; powers with too many units remove the right number, sometimes too
few (civil disorder then decides) or one too many; plus a small share of illegal builds and
removals. Everything is drawn from one ``random.Random``, so a seed gives the same orders again.

Multiversal games (``multiverse_orders``) give every head waiting for the phase the classic
generator's orders, designated to the head's own board, and in movement steps add orders across
boards (``travel_orders``): moves and supports from heads into the turn before, onto other heads and
onto the parent timeline's boards, which fork timelines when they win. The random games of the
benchmarks, of ``fivedp explore --random-games --multiverse`` and of the tests all draw them here,
each with its own ``Travel`` style, so that a seed keeps giving the same game.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Sequence

from ..model.kinds import UnitKind
from ..model.map import GameMap
from ..model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, Multiverse, Unit
from ..model.notation import format_order, parse_order, timeline_name
from ..model.orders import (
    Build, Convoy, Disband, Hold, Move, Order, SupportHold, SupportMove, UnitSpec, Waive, Where,
)
from ..model.geography import Geography

P_CONVOY_PLAN = 0.35  # an army with a possible route is planned a convoy
P_BROKEN_CHAIN = 0.1  # a planned chain misses one fleet's order
P_SUPPORT = 0.3
P_HOLD = 0.1
P_MATCHING_SUPPORT = 0.8
P_WRONG_COAST_SUPPORT = 0.03


def _where(location: str) -> Where:
    prov, _, coast = location.partition("/")
    return Where(prov, coast or None)


def _spec(unit: Unit) -> UnitSpec:
    return UnitSpec(_where(unit.location), unit.kind)


class OrderGenerator:
    def __init__(self, game_map: GameMap, rng: random.Random, illegal_share: float = 0.05):
        self.map = game_map
        self.geo = Geography(game_map)
        self.rng = rng
        self.illegal_share = illegal_share

    # -- entry point -----------------------------------------------------------------------------

    def orders(self, board: Board, phase: str) -> dict[str, list[str]]:
        """Order lines per power for the phase the board waits for."""
        if phase == RETREAT:
            drawn = self.retreats(board)
        elif phase == ADJUSTMENT:
            drawn = self.adjustments(board)
        else:
            drawn = self.movement(board)
        out: dict[str, list[str]] = {}
        for power, order in drawn:
            out.setdefault(power, []).append(format_order(order, self.map))
        return out

    def _illegal(self) -> bool:
        return self.rng.random() < self.illegal_share

    # -- movement --------------------------------------------------------------------------------

    def _move_where(self, unit: Unit, location: str) -> Where:
        """A destination; a coast that is the only one the fleet can reach is sometimes left out."""
        prov = self.map.province_of(location)
        if unit.kind == UnitKind.FLEET and "/" in location:
            if len(self.geo.coasts_reachable(UnitKind.FLEET, unit.location, prov)) == 1 and self.rng.random() < 0.3:
                return Where(prov)
            return _where(location)
        return Where(prov)

    def _resolved_coast(self, unit: Unit, dest: Where) -> str | None:
        if dest.coast:
            return dest.coast
        reach = self.geo.coasts_reachable(unit.kind, unit.location, dest.province)
        if len(reach) == 1 and "/" in reach[0]:
            return reach[0].split("/")[1]
        return None

    def movement(self, board: Board) -> list[tuple[str, Order]]:
        rng, geo = self.rng, self.geo
        units = sorted(board.units.values(), key=lambda u: u.location)
        plan: dict[str, Order] = {}
        seas = sorted(u.province for u in units if u.kind == UnitKind.FLEET and geo.is_sea(u.province))

        armies = [u for u in units if u.kind == UnitKind.ARMY and geo.is_coastal(u.province)]
        rng.shuffle(armies)
        for army in armies:
            free = [s for s in seas if s not in plan]
            routes = geo.convoy_routes(army.province, free)
            if not routes or rng.random() >= P_CONVOY_PLAN:
                continue
            dest = rng.choice(sorted(routes))
            adjacent = geo.can_reach(UnitKind.ARMY, army.location, dest)
            via = rng.random() < (0.75 if adjacent else 0.3)
            plan[army.province] = Move(_spec(army), Where(dest), via_convoy=via)
            chain = list(routes[dest])
            if rng.random() < P_BROKEN_CHAIN:
                chain.remove(rng.choice(chain))
            for sea in chain:
                plan[sea] = Convoy(_spec(board.units[sea]), _spec(army), Where(dest))

        supporters = []
        for unit in units:
            if unit.province in plan:
                continue
            r = rng.random()
            if r < P_HOLD:
                plan[unit.province] = Hold(_spec(unit))
            elif r < P_HOLD + P_SUPPORT:
                supporters.append(unit)
            else:
                plan[unit.province] = self._random_move(unit, seas)
        rng.shuffle(supporters)
        for unit in supporters:
            plan[unit.province] = self._support(unit, board, plan, seas)

        out = []
        for unit in units:
            order = plan[unit.province]
            if self._illegal():
                order = self._illegal_order(unit, board, seas) or order
            out.append((unit.power, order))
        for power in sorted({u.power for u in units}):
            if self._illegal():
                extra = self._stray_order(power, board)
                if extra:
                    out.append((power, extra))
        return out

    def _random_move(self, unit: Unit, seas: Sequence[str]) -> Order:
        rng, geo = self.rng, self.geo
        options = list(geo.steps(unit.kind, unit.location))
        if unit.kind == UnitKind.ARMY and geo.is_coastal(unit.province) and rng.random() < 0.1:
            far = sorted(d for d in geo.convoy_routes(unit.province, seas)
                         if not geo.can_reach(UnitKind.ARMY, unit.location, d))
            if far:  # a move that needs a convoy nobody may give
                return Move(_spec(unit), Where(rng.choice(far)), via_convoy=rng.random() < 0.5)
        if not options:
            return Hold(_spec(unit))
        return Move(_spec(unit), self._move_where(unit, rng.choice(options)))

    def _support(self, unit: Unit, board: Board, plan: dict[str, Order], seas: Sequence[str]) -> Order:
        rng, geo = self.rng, self.geo
        reach = self.map.step_provinces.get((unit.kind, unit.location), frozenset())  # what it can support into
        away = reach - {unit.province}  # what it can support a move into
        matching: list[Order] = []
        # the other supports as (target, destination location or None to hold): only the one drawn is made
        other: list[tuple[Unit, str | None]] = []
        for target in sorted(board.units.values(), key=lambda u: u.location):
            if target == unit:
                continue
            planned = plan.get(target.province)
            if isinstance(planned, Move):
                dest = planned.dest.province
                if dest in away:
                    matching.append(self._support_move(unit, target, planned.dest))
            elif planned is not None and target.province in reach:
                matching.append(SupportHold(_spec(unit), _spec(target)))
            if target.province in reach:
                other.append((target, None))
            for loc in geo.steps(target.kind, target.location):
                if self.map.province_of(loc) in away:
                    other.append((target, loc))
        if matching and rng.random() < P_MATCHING_SUPPORT:
            return rng.choice(matching)
        if other:
            target, loc = rng.choice(other)
            if loc is None:
                return SupportHold(_spec(unit), _spec(target))
            coast = loc.split("/")[1] if "/" in loc else None
            return SupportMove(_spec(unit), _spec(target), Where(self.map.province_of(loc), coast))
        return self._random_move(unit, seas)

    def _support_move(self, unit: Unit, target: Unit, dest: Where) -> Order:
        """Support of a planned move, naming the coast the way careful players do."""
        coast = self._resolved_coast(target, dest) if target.kind == UnitKind.FLEET else None
        if coast is not None:
            reach = self.geo.coasts_reachable(UnitKind.FLEET, target.location, dest.province)
            r = self.rng.random()
            if r < P_WRONG_COAST_SUPPORT:
                others = [loc.split("/")[1] for loc in reach if loc.split("/")[1] != coast]
                if others:  # a coast the fleet could reach but is not moving to (DATC 6.B.9)
                    coast = self.rng.choice(others)
            elif len(reach) == 1 and r < 0.25:
                coast = None
        return SupportMove(_spec(unit), _spec(target), Where(dest.province, coast))

    # -- illegal orders --------------------------------------------------------------------------

    def _illegal_order(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        rng = self.rng
        makers = [self._far_move, self._wrong_terrain_move, self._unreachable_support,
                  self._impossible_move_support, self._bad_convoy, self._own_place, self._convoy_nobody_can_give]
        rng.shuffle(makers)
        for make in makers:
            order = make(unit, board, seas)
            if order is not None:
                return order
        return None

    def _far_move(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        geo = self.geo
        near = set(geo.step_provinces(unit.kind, unit.location)) | {unit.province}
        if unit.kind == UnitKind.ARMY and geo.is_coastal(unit.province):
            near |= set(geo.convoy_routes(unit.province, seas))
        kinds = ("land", "coast") if unit.kind == UnitKind.ARMY else ("sea",)
        far = sorted(p.id for p in self.map.provinces.values() if p.type in kinds and p.id not in near)
        if not far:
            return None
        return Move(_spec(unit), Where(self.rng.choice(far)))

    def _wrong_terrain_move(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        geo = self.geo
        if unit.kind == UnitKind.ARMY:
            wrong = sorted(self.map.province_of(l) for l in geo.steps(UnitKind.FLEET, unit.location)
                           if geo.is_sea(self.map.province_of(l)))
        else:
            loc = unit.province
            wrong = sorted(p for p in geo.step_provinces(UnitKind.ARMY, loc) if self.map.provinces[p].is_land) \
                if self.map.provinces[loc].type == "coast" else []
        if not wrong:
            return None
        return Move(_spec(unit), Where(self.rng.choice(wrong)))

    def _unreachable_support(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        targets = sorted((u for u in board.units.values()
                          if u != unit and not self.geo.can_reach(unit.kind, unit.location, u.province)),
                         key=lambda u: u.location)
        if not targets:
            return None
        return SupportHold(_spec(unit), _spec(self.rng.choice(targets)))

    def _impossible_move_support(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        geo = self.geo
        reach = geo.step_provinces(unit.kind, unit.location)
        options = []
        for target in sorted(board.units.values(), key=lambda u: u.location):
            if target == unit:
                continue
            can = set(geo.step_provinces(target.kind, target.location)) | {target.province}
            if target.kind == UnitKind.ARMY and geo.is_coastal(target.province):
                can |= set(geo.convoy_routes(target.province, seas))
            for dest in reach:
                prov = self.map.provinces[dest]
                fits = prov.type in (("land", "coast") if target.kind == UnitKind.ARMY else ("sea", "coast"))
                if dest not in can and fits and not prov.coasts:
                    options.append((target, dest))
        if not options:
            return None
        target, dest = self.rng.choice(options)
        return SupportMove(_spec(unit), _spec(target), Where(dest))

    def _bad_convoy(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        geo = self.geo
        others = sorted((u for u in board.units.values() if u != unit), key=lambda u: u.location)
        armies = [u for u in others if u.kind == UnitKind.ARMY]
        fleets = [u for u in others if u.kind == UnitKind.FLEET]
        coastal = sorted(p.id for p in self.map.provinces.values() if p.is_coastal)
        if unit.kind == UnitKind.ARMY or not geo.is_sea(unit.province):
            if not armies:
                return None
            army = self.rng.choice(armies)  # an army, or a fleet on a coast, cannot convoy
            return Convoy(_spec(unit), _spec(army), Where(self.rng.choice(coastal)))
        if not fleets:
            return None
        fleet = self.rng.choice(fleets)  # a fleet cannot be convoyed
        return Convoy(_spec(unit), _spec(fleet), Where(self.rng.choice(coastal)))

    def _convoy_nobody_can_give(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        """``via convoy`` to a neighbouring coast that no chain of fleets could reach: an order that
        can never be valid, so illegal (DATC 4.E.1, as the missing fleet of 6.D.32)."""
        geo = self.geo
        if unit.kind != UnitKind.ARMY or not geo.is_coastal(unit.province):
            return None
        routes = geo.convoy_routes(unit.province, seas)
        near = sorted(p for p in geo.step_provinces(UnitKind.ARMY, unit.location) if geo.is_coastal(p) and p not in routes)
        if not near:
            return None
        return Move(_spec(unit), Where(self.rng.choice(near)), via_convoy=True)

    def _own_place(self, unit: Unit, board: Board, seas: Sequence[str]) -> Order | None:
        return Move(_spec(unit), _where(unit.location))

    def _stray_order(self, power: str, board: Board) -> Order | None:
        """An order for another power's unit, or for a province where nobody stands."""
        rng = self.rng
        foreign = sorted((u for u in board.units.values() if u.power != power), key=lambda u: u.location)
        if foreign and rng.random() < 0.5:
            unit = rng.choice(foreign)
            return Hold(_spec(unit))
        empty = sorted(p.id for p in self.map.provinces.values()
                       if p.type in ("land", "coast") and not p.coasts and p.id not in board.units)
        if not empty:
            return None
        prov = rng.choice(empty)
        steps = self.geo.steps(UnitKind.ARMY, prov)
        if not steps:
            return None
        return Move(UnitSpec(Where(prov), UnitKind.ARMY), Where(self.map.province_of(rng.choice(steps))))

    # -- retreats --------------------------------------------------------------------------------

    def retreats(self, board: Board) -> list[tuple[str, Order]]:
        rng, geo = self.rng, self.geo
        out = []
        for r in sorted(board.retreats, key=lambda r: r.unit.location):
            unit = r.unit
            options = sorted(geo.retreat_options(board, r))
            x = rng.random()
            if x < self.illegal_share:
                closed = sorted(set(geo.steps(unit.kind, unit.location)) - set(options))
                if closed:
                    out.append((unit.power, Move(_spec(unit), _where(rng.choice(closed)))))
                    continue
            if x < 0.05 + self.illegal_share:
                continue  # no order: the unit is disbanded
            if options and x < 0.85:
                out.append((unit.power, Move(_spec(unit), _where(rng.choice(options)))))
            else:
                out.append((unit.power, Disband(_spec(unit))))
        return out

    # -- adjustments -----------------------------------------------------------------------------

    def adjustments(self, board: Board) -> list[tuple[str, Order]]:
        rng = self.rng
        out: list[tuple[str, Order]] = []
        powers = sorted({u.power for u in board.units.values()} | set(board.centers.values()))
        for power in powers:
            units = sorted((u for u in board.units.values() if u.power == power), key=lambda u: u.location)
            centers = sorted(p for p, o in board.centers.items() if o == power)
            balance = len(centers) - len(units)
            if balance > 0:
                free = [h for h in self.map.home_centers(power) if h in centers and h not in board.units]
                free.sort()
                n = min(balance, len(free))
                k = n if rng.random() < 0.6 else rng.randint(0, n)
                for site in rng.sample(free, k):
                    out.append((power, self._build(site)))
                if k < n and rng.random() < 0.5:
                    out.append((power, Waive()))
            elif balance < 0:
                need = -balance
                x = rng.random()
                count = need if x < 0.8 else (rng.randint(0, need - 1) if x < 0.95 else need + 1)
                for unit in rng.sample(units, min(count, len(units))):
                    out.append((power, Disband(_spec(unit))))
            if self._illegal():
                bad = self._illegal_adjustment(power, board, units)
                if bad is not None:
                    out.append((power, bad))
        return out

    def _build(self, site: str) -> Order:
        prov = self.map.provinces[site]
        if prov.is_land or (prov.is_coastal and not prov.coasts and self.rng.random() < 0.5):
            return Build(UnitSpec(Where(site), UnitKind.ARMY))
        if prov.coasts:
            if self.rng.random() < 0.4:
                return Build(UnitSpec(Where(site), UnitKind.ARMY))
            return Build(UnitSpec(Where(site, self.rng.choice(prov.coasts)), UnitKind.FLEET))
        return Build(UnitSpec(Where(site), UnitKind.FLEET))

    def _illegal_adjustment(self, power: str, board: Board, units: Sequence[Unit]) -> Order | None:
        rng = self.rng
        choices = []
        others = sorted(h for p in self.map.powers if p != power for h in self.map.home_centers(p))
        choices.append(Build(UnitSpec(Where(rng.choice(others)), UnitKind.ARMY)))  # someone else's home centre
        occupied = sorted(h for h in self.map.home_centers(power) if h in board.units)
        if occupied:
            choices.append(Build(UnitSpec(Where(rng.choice(occupied)), UnitKind.ARMY)))
        inland = sorted(h for h in self.map.home_centers(power) if self.map.provinces[h].is_land)
        if inland:
            choices.append(Build(UnitSpec(Where(rng.choice(inland)), UnitKind.FLEET)))
        foreign = sorted((u for u in board.units.values() if u.power != power), key=lambda u: u.location)
        if foreign:
            choices.append(Disband(_spec(rng.choice(foreign))))
        return rng.choice(choices)


# -- multiversal games ----------------------------------------------------------------------------


def designated(order: Any, board: Board) -> Any:
    """``order`` with every place that names no board put on ``board``: the classic generator writes
    orders without boards, and in a multiverse each must name the board it is given on."""
    if isinstance(order, Where):
        return Where(order.province, order.coast, board.timeline if order.timeline is None else order.timeline,
                     board.turn if order.turn is None else order.turn)
    if dataclasses.is_dataclass(order) and not isinstance(order, type):
        return dataclasses.replace(order, **{f.name: designated(getattr(order, f.name), board)
                                             for f in dataclasses.fields(order)})
    return order


def ordered_unit(line: str, game_map: GameMap) -> tuple[int, int, str] | None:
    """The board and province (timeline, turn, province) of the unit a designated order line orders;
    None for a line that orders no unit (a build, a waive)."""
    unit = getattr(parse_order(line, game_map), "unit", None)
    return None if unit is None else (unit.where.timeline, unit.where.turn, unit.where.province)


def head_orders(mv: Multiverse, gen: OrderGenerator, phase: str) -> list[tuple[str, str]]:
    """(power, order line) for every head waiting for ``phase``, head by head, as ``gen`` draws them,
    each line designated to its head's board. A list rather than lines per power, so that a caller
    may leave some out and still keep the order in which powers first appear."""
    game_map = mv.game_map
    out = []
    for head in mv.heads:
        if head.phase != phase:
            continue
        for power, lines in gen.orders(head, phase).items():
            out.extend((power, format_order(designated(parse_order(line, game_map), head), game_map))
                       for line in lines)
    return out


@dataclasses.dataclass(frozen=True)
class Travel:
    """How ``travel_orders`` draws its orders across boards. Each user keeps its own style because a
    style, with a seed, fixes the games drawn: changing one changes every game its seeds gave."""

    move_share: float = 0.7  # moves; the rest are supports to hold of a unit on the board reached
    empty_share: float | None = None  # when given, this share of moves go to a place empty on that board
    parent_same_turn: bool = True  # the parent timeline's board of the head's own turn is a target too
    supported_moves: bool = False  # every order a move, supported by a unit of its head next to the mover
    sorted_units: bool = True  # units drawn in the order of their locations, else in the board's own order


def travel_orders(mv: Multiverse, rng: random.Random, count: int, style: Travel = Travel()) -> list[tuple[str, str]]:
    """Up to ``count`` (power, order line) across boards: a unit of a random head moves to, or
    supports a unit on, the board before the head, another head, or a board of the head's parent
    timeline (a draw that finds no board or no unit is skipped)."""
    game_map = mv.game_map

    def at(board: Board, location: str) -> str:
        return f"{timeline_name(board.timeline)}-{game_map.short_name(location)}@{board.turn}"

    def units(board: Board) -> list[Unit]:
        found = list(board.units.values())
        return sorted(found, key=lambda u: u.location) if style.sorted_units else found

    out = []
    for _ in range(count):
        head = rng.choice(mv.heads)
        if not head.units:
            continue
        unit = rng.choice(units(head))
        targets = [(head.timeline, head.turn - 1)] + [h.key for h in mv.heads if h.key != head.key]
        if head.timeline in mv.forks:
            parent = mv.forks[head.timeline][0]
            targets.append((parent, head.turn - 1))
            if style.parent_same_turn:
                targets.append((parent, head.turn))
        board = mv.board(*rng.choice(targets))
        if board is None:
            continue
        here = f"{unit.letter} {at(head, unit.location)}"
        if style.supported_moves or rng.random() < style.move_share or not board.units:
            near = list(game_map.neighbours.get((unit.kind, unit.location), ())) + [unit.location]
            if style.empty_share is None:
                dest = rng.choice(near)
            else:
                # an empty place forks the board reached when the move succeeds
                empty = [loc for loc in near if game_map.province_of(loc) not in board.units]
                dest = rng.choice(empty if empty and rng.random() < style.empty_share else near)
            move = f"{here} - {at(board, dest)}"
            out.append((unit.power, move))
            if style.supported_moves:
                helpers = [u for u in head.units.values() if u is not unit and any(
                    game_map.province_of(x) == unit.province for x in game_map.neighbours.get((u.kind, u.location), ()))]
                if helpers:
                    helper = rng.choice(sorted(helpers, key=lambda u: u.location))
                    out.append((helper.power, f"{helper.letter} {at(head, helper.location)} S {move}"))
        else:
            other = rng.choice(units(board))
            out.append((unit.power, f"{here} S {other.letter} {at(board, other.location)}"))
    return out


def multiverse_orders(mv: Multiverse, gen: OrderGenerator, rng: random.Random, phase: str,
                      travel: int | tuple[int, int], style: Travel = Travel(),
                      travel_replaces: bool = False) -> dict[str, list[str]]:
    """Order lines per power for a step of a multiversal game: the heads' orders (``head_orders``),
    then in a movement step the orders across boards (``travel_orders``), ``travel`` of them or a
    number drawn from that range. With ``travel_replaces`` a unit ordered across boards (or
    supporting such an order) loses its head order; otherwise it keeps both orders."""
    orders: dict[str, list[str]] = {}
    for power, line in head_orders(mv, gen, phase):
        orders.setdefault(power, []).append(line)
    if phase != MOVEMENT:
        return orders
    across = travel_orders(mv, rng, travel if isinstance(travel, int) else rng.randint(*travel), style)
    if travel_replaces:
        moved = {ordered_unit(line, mv.game_map) for _, line in across}
        orders = {p: [x for x in v if ordered_unit(x, mv.game_map) not in moved] for p, v in orders.items()}
    for power, line in across:
        orders.setdefault(power, []).append(line)
    return orders
