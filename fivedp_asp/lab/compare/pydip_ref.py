"""The PyPI ``pydip`` package (0.1.8) as a second reference adjudicator (``--reference pydip``).

pydip resolves one phase at a time from Python objects: players with units, a list of commands, and
functions for movement (``resolve_turn``), retreats (``resolve_retreats``) and adjustments
(``calculate_adjustments``, ``resolve_adjustment``). It keeps no game, so the position lives here,
and this adapter does what a game would: it chooses the next phase and updates supply centres after
Fall. Its known deviations from the DATC are in ``pydip_deviations.py`` (docs/compare.md).

How its answers map to our vocabulary (docs/case-format.md):

- A move to the unit's own province is pydip's hold (its hold is such a move): the unit holds and
  the order is ``invalid``, as the DATC has it (6.A.4).
- A command pydip's constructor refuses (it asserts its legality: a move to a place the unit cannot
  reach, a support it could not give, a convoy by a fleet not at sea, a build on no owned home
  centre) is ``invalid``: our illegal order replaced by a hold (a disband or a waive where those
  apply). A unit given no command holds, as pydip asks.
- An army's move is a convoyed move (``ConvoyMoveCommand``) when it is written ``via convoy``, when
  the army cannot reach the destination by land, or when a fleet of its own power is ordered to
  convoy it there (DATC 4.A.3, 2000 rulebook, as our engine reads it); any other move is a plain
  ``MoveCommand``.
- A convoy succeeds, as in our engine, only when its fleet lies on a chain of fleets (not dislodged)
  convoying that army from its province to its destination.
- pydip decides each command by Kruijswijk's method and keeps the decision per unit: a move succeeds
  when its decision is true; a hold succeeds unless the unit is dislodged; a support succeeds when it
  is given (its decision) and matches what the supported unit was ordered to do; a convoy succeeds
  when the fleet is not dislodged, the army was ordered that move by convoy, and pydip finds the
  army a convoy path.
- A retreat succeeds when the unit arrives; a disband in a retreat phase succeeds. A build or
  removal succeeds when it is carried out; a waive succeeds when the power had builds to waive.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Sequence

from ...model.kinds import OrderKind, Result, UnitKind
from ...errors import InputError
from ...model.map import GameMap
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Unit
from ...model.orders import Build, Convoy, Disband, Hold, Move, SupportHold, SupportMove, Waive, Where
from . import pydip_deviations
from ...model.geography import Geography
from .reference import GivenOrder, PhaseResult, Position, ReferenceAdjudicator

INSTALL_HINT = "pip install 'fivedp-asp[pydip]'"
_COAST_WORD = {"North": "nc", "South": "sc", "East": "ec", "West": "wc"}


def _import():
    try:
        import pydip  # noqa: F401
        from pydip.map.predefined import vanilla_dip
    except ImportError:
        raise InputError(f"the reference 'pydip' needs the pydip package: {INSTALL_HINT}") from None
    try:
        from importlib.metadata import version

        found = version("pydip")
    except Exception:  # noqa: BLE001 - a version is only shown
        found = "?"
    return vanilla_dip, found


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


class PydipReference(ReferenceAdjudicator):
    name = "pydip"
    emulators = pydip_deviations.EMULATORS
    deviations = pydip_deviations.DEVIATIONS
    found_by_compare = pydip_deviations.FOUND_BY_COMPARE

    def __init__(self, game_map: GameMap):
        self._vanilla, self.version = _import()
        if game_map.name != "standard":
            raise InputError(f"the reference 'pydip' plays only the standard map, not {game_map.name!r}")
        self.map = game_map
        self.pmap = self._vanilla.generate_map()
        self.supply = self._vanilla.generate_supply_center_map()
        self.homes = self._vanilla.generate_home_territories()
        self._geo = Geography(game_map)
        self.position: Position | None = None
        by_name = {_norm(p.name): pid for pid, p in game_map.provinces.items()}
        self.land: dict[str, str] = {}  # our province -> pydip's territory (land or sea)
        self.coast: dict[str, str] = {}  # our location (bre, spa/nc) -> pydip's coast territory
        self.ours: dict[str, str] = {}  # pydip's territory -> our location
        for name, territory in self.pmap.name_map.items():
            if name.endswith(" Coast"):
                continue
            # pydip writes "Eastern Mediterranean Sea" and "St. Petersburg"
            pid = by_name.get(_norm(name)) or by_name.get(_norm(name.removesuffix(" Sea")))
            if pid is None:
                raise InputError(f"pydip's territory {name!r} is not on our map")
            self.land[pid] = name
            self.ours[name] = pid
            for coast in getattr(territory, "coasts", ()) or ():
                words = coast.name.removeprefix(name).split()
                code = _COAST_WORD.get(words[0]) if len(words) == 2 else None
                loc = pid if code is None else f"{pid}/{self._our_coast(pid, code)}"
                self.coast[loc] = coast.name
                self.ours[coast.name] = loc

    def _our_coast(self, pid: str, code: str) -> str:
        coasts = self.map.provinces[pid].coasts
        # pydip calls Bulgaria's east coast its north coast
        return code if code in coasts else next(c for c in coasts if c != "sc")

    # -- positions ---------------------------------------------------------------------------

    def load(self, position: Position) -> None:
        self.position = position

    def _where(self, unit: Unit) -> str:
        """Where pydip puts a unit: a fleet on a coast territory (or a sea), an army on the land."""
        if unit.kind == UnitKind.FLEET and unit.location in self.coast:
            return self.coast[unit.location]
        return self.land[unit.province]

    def _players(self, units: Sequence[Unit]) -> tuple[dict, dict]:
        from pydip.player.player import Player
        from pydip.player.unit import UnitTypes

        players, pieces = {}, {}
        for power in self.map.powers:
            mine = [u for u in units if u.power == power]
            config = [{"territory_name": self._where(u),
                       "unit_type": UnitTypes.TROOP if u.kind == UnitKind.ARMY else UnitTypes.FLEET} for u in mine]
            players[power] = Player(power, self.pmap, config)
            for u, piece in zip(mine, self._pieces(players[power], config)):
                pieces[u.province] = (u, piece)
        return players, pieces

    @staticmethod
    def _pieces(player, config) -> list:
        at = {p.position: p for p in player.units}
        return [at[c["territory_name"]] for c in config]

    def _ownership(self, centers) -> Any:
        from pydip.map.map import OwnershipMap

        owned = {p: {self.land[c] for c, o in centers.items() if o == p} for p in self.map.powers}
        return OwnershipMap(self.supply, owned, self.homes)

    def _position(self, turn: int, phase: str, units, centers, retreats=None) -> Position:
        return Position(turn, phase, frozenset(units), MappingProxyType(dict(centers)),
                        MappingProxyType(dict(retreats or {})))

    def _after_battle(self, turn: int, units: list[Unit], centers: dict, retreats: dict) -> Position:
        """Where the game stands after a battle (``turn`` the battle's) or its retreats."""
        if retreats:
            return self._position(turn + 1, RETREAT, units, centers, retreats)
        return self._after_retreats(turn + 1, units, centers)

    def _after_retreats(self, turn: int, units: list[Unit], centers: dict) -> Position:
        if turn % 2 == 1:  # after a Spring battle: the Fall movement
            return self._position(turn, MOVEMENT, units, centers)
        from pydip.turn.adjustment import calculate_adjustments

        player_units = {p: {self._piece_of(u) for u in units if u.power == p} for p in self.map.powers}
        owned, _ = calculate_adjustments(self._ownership(centers), player_units)
        centers = {self.ours[t]: p for p, ts in owned.owned_territories.items() for t in ts}
        phase = ADJUSTMENT if self._adjustment_due(units, centers) else MOVEMENT
        return self._position(turn, phase, units, centers)

    def _piece_of(self, unit: Unit):
        from pydip.player.unit import Unit as Piece, UnitTypes

        return Piece(UnitTypes.TROOP if unit.kind == UnitKind.ARMY else UnitTypes.FLEET, self._where(unit))

    def _adjustment_due(self, units: list[Unit], centers: dict) -> bool:
        """A power has more units than centres, or more centres than units and a free home centre
        to build on (a game skips the adjustment phase otherwise)."""
        occupied = {u.province for u in units}
        for power in self.map.powers:
            n_units = sum(1 for u in units if u.power == power)
            n_centres = sum(1 for o in centers.values() if o == power)
            if n_units > n_centres:
                return True
            free = [h for h in self.map.home_centers(power) if centers.get(h) == power and h not in occupied]
            if n_centres > n_units and free:
                return True
        return False

    def _unit(self, piece, power: str) -> Unit:
        from pydip.player.unit import UnitTypes

        kind = UnitKind.ARMY if piece.unit_type == UnitTypes.TROOP else UnitKind.FLEET
        return Unit(kind, power, self.ours[piece.position])

    # -- adjudicating -----------------------------------------------------------------------------

    def adjudicate(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        if self.position is None:
            raise RuntimeError("load a position first")
        phase = self.position.phase
        if phase == MOVEMENT:
            result = self._movement(orders)
        elif phase == RETREAT:
            result = self._retreats(orders)
        else:
            result = self._adjustments(orders)
        self.position = result.after
        return result

    def _dest_coast(self, unit: Unit, dest: Where, *, any_coast: bool = False) -> str | None:
        """pydip's territory a fleet moves to: the coast named, the province's only coast, the sea, or
        the only coast of several it can reach (``any_coast``: the first it can reach, for supports,
        which pydip reads by province). None when there is no such place."""
        if dest.coast:
            return self.coast.get(f"{dest.province}/{dest.coast}")
        if dest.province in self.coast:
            return self.coast[dest.province]
        if dest.province in self.land and not self.map.provinces[dest.province].coasts:
            return self.land[dest.province]
        reach = [self.coast[loc] for loc in sorted(self.coast) if loc.startswith(dest.province + "/")
                 and self.coast[loc] in self.pmap.adjacency.get(self._where(unit), ())]
        if len(reach) == 1 or (reach and any_coast):
            return reach[0]
        return None

    def _movement(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        from pydip.player.command.command import (ConvoyMoveCommand, ConvoyTransportCommand, HoldCommand,
                                                  MoveCommand, SupportCommand)
        from pydip.turn import resolve as pydip_resolve

        before = self.position
        units = sorted(before.units, key=lambda u: u.location)
        players, pieces = self._players(units)
        convoying: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (army, dest) -> [(fleet's sea, power)]
        for o in orders:
            if isinstance(o.order, Convoy):
                convoying.setdefault((o.order.target.where.province, o.order.dest.province), []).append(
                    (o.order.unit.where.province, o.power))
        # an army goes by convoy when a fleet of its own power that could take part in a route (over any
        # seas: the order is legal) is ordered to convoy it
        seas = {p for p in self.map.provinces if self._geo.is_sea(p)}
        convoyed_by_own = {(army, dest, power) for (army, dest), fleets in convoying.items() for sea, power in fleets
                           if self._on_route(sea, army, dest, seas)}
        commands: dict[str, Any] = {}  # our province -> the command kept for its unit
        kept: list[str | None] = []
        for g in orders:
            order = g.order
            here = pieces.get(getattr(getattr(order, "unit", None), "where", Where("")).province)
            if here is None or here[0].power != g.power or here[0].province in commands:
                kept.append(None)
                continue
            unit, piece = here
            player = players[g.power]
            try:
                if isinstance(order, Hold):
                    command = HoldCommand(player, piece)
                elif isinstance(order, Move) and order.dest.province == unit.province:
                    # pydip's hold is a move to the unit's own place: the written move is not made
                    commands[unit.province] = HoldCommand(player, piece)
                    kept.append(None)
                    continue
                elif isinstance(order, Move):
                    dest = order.dest.province
                    if unit.kind == UnitKind.ARMY:
                        by_land = self.land[dest] in self._land_reach(piece)
                        if order.via_convoy or not by_land or (unit.province, dest, g.power) in convoyed_by_own:
                            command = ConvoyMoveCommand(player, piece, self.land[dest])
                        else:
                            command = MoveCommand(player, piece, self.land[dest])
                    else:
                        target = self._dest_coast(unit, order.dest)
                        if target is None:
                            raise AssertionError("no such coast")
                        command = MoveCommand(player, piece, target)
                elif isinstance(order, (SupportHold, SupportMove)):
                    other = pieces.get(order.target.where.province)
                    if other is None:
                        raise AssertionError("no unit to support")
                    o_unit, o_piece = other
                    if isinstance(order, SupportHold):
                        dest = o_piece.position
                    elif o_unit.kind == UnitKind.FLEET:
                        dest = self._dest_coast(o_unit, order.dest, any_coast=True)
                    else:
                        dest = self.land.get(order.dest.province)
                    if dest is None:
                        raise AssertionError("no such place")
                    command = SupportCommand(player, piece, o_piece, dest)
                elif isinstance(order, Convoy):
                    other = pieces.get(order.target.where.province)
                    if other is None:
                        raise AssertionError("no unit to convoy")
                    command = ConvoyTransportCommand(player, piece, other[1], self.land[order.dest.province])
                else:
                    raise AssertionError("not an order of a movement phase")
            except (AssertionError, KeyError):
                kept.append(None)
                continue
            commands[unit.province] = command
            kept.append(unit.province)
        for prov, (unit, piece) in pieces.items():
            if prov not in commands:
                commands[prov] = HoldCommand(players[unit.power], piece)
        retreat_map = pydip_resolve.resolve_turn(self.pmap, list(commands.values()))
        decided = dict(pydip_resolve.resolution_map)  # pydip keeps each unit's decision here
        command_map = __import__("pydip.turn.command_map", fromlist=["CommandMap"]).CommandMap(
            self.pmap, list(commands.values()))
        after_units, retreats, dislodged = [], {}, set()
        for power, entries in retreat_map.items():
            for piece, options in entries.items():
                unit = self._unit(piece, power)
                if options is None:
                    after_units.append(unit)
                else:
                    dislodged.add(unit)
                    if options:  # pydip keeps a unit with nowhere to go pending; a game disbands it
                        retreats[unit] = frozenset(self.ours[t] for t in options)
        results, notes = [], []
        for g, prov in zip(orders, kept):
            if prov is None:
                results.append(Result.INVALID)
                notes.append("refused")
                continue
            command = commands[prov]
            unit = pieces[prov][0]
            ok = bool(decided.get(command.unit.position, False))
            if isinstance(command, (MoveCommand,)) and not isinstance(command, HoldCommand):
                result = ok
            elif isinstance(command, ConvoyMoveCommand):
                result = ok
            elif isinstance(command, HoldCommand):
                result = unit not in dislodged
            elif isinstance(command, SupportCommand):
                result = ok and self._matches(command, commands)
            else:  # a convoy
                army = next((c for c in commands.values() if c.unit == command.transported_unit), None)
                carriers = {self.ours[c.unit.position] for c in commands.values()
                            if isinstance(c, ConvoyTransportCommand) and c.transported_unit == command.transported_unit
                            and c.destination == command.destination and decided.get(c.unit.position)}
                result = (ok and isinstance(army, ConvoyMoveCommand) and army.destination == command.destination
                          and pydip_resolve._has_path(self.pmap, command_map, army)
                          and self._on_route(unit.province, self.ours[army.unit.position],
                                             self.ours[army.destination], carriers))
            results.append(Result.SUCCEEDS if result else Result.FAILS)
            notes.append(f"{command!r}: {'true' if ok else 'false'}")
        after = self._after_battle(before.turn, after_units, dict(before.centers), retreats)
        return PhaseResult(tuple(results), frozenset(dislodged), after, tuple(notes))

    def _on_route(self, sea: str, origin: str, dest: str, seas: set[str]) -> bool:
        """Whether the fleet in ``sea`` lies on a chain of the ``seas`` from the army's province to its
        destination (our engine's convoy succeeds only so; pydip has no such notion)."""
        return sea in self._geo.seas_reached(sorted(seas), origin) & self._geo.seas_reached(sorted(seas), dest)

    def _land_reach(self, piece) -> set[str]:
        return {t for t in self.pmap.adjacency.get(piece.position, ()) if not t.endswith(" Coast")}

    def _matches(self, support, commands: dict) -> bool:
        from pydip.player.command.command import ConvoyMoveCommand, HoldCommand, MoveCommand

        rel = self.pmap.relevant_name_for_territory
        other = next((c for c in commands.values() if c.unit == support.supported_unit), None)
        if other is None:
            return False
        holding = isinstance(other, HoldCommand) or not isinstance(other, (MoveCommand, ConvoyMoveCommand))
        if rel(support.destination) == rel(support.supported_unit.position):
            return holding
        return not holding and rel(other.destination) == rel(support.destination)

    def _retreats(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        from pydip.player.command.retreat_command import RetreatDisbandCommand, RetreatMoveCommand
        from pydip.turn.retreat import resolve_retreats

        before = self.position
        staying = sorted(before.units, key=lambda u: u.location)
        leaving = sorted(before.retreats, key=lambda u: u.location)
        players, pieces = self._players(staying)
        retreat_map: dict = {p: {} for p in self.map.powers}
        for u in staying:
            retreat_map[u.power][self._piece_of(u)] = None
        from pydip.player.unit import Unit as Piece

        dislodged_pieces = {}
        for u in leaving:
            piece = self._piece_of(u)
            players[u.power].units.append(piece)
            options = set()
            for loc in before.retreats[u]:
                options.add(self.coast[loc] if u.kind == UnitKind.FLEET and loc in self.coast
                            else self.land[loc.split("/")[0]])
            retreat_map[u.power][piece] = options
            dislodged_pieces[u.province] = (u, piece)
        commands, kept = {}, []
        for g in orders:
            order = g.order
            here = dislodged_pieces.get(getattr(getattr(order, "unit", None), "where", Where("")).province)
            if here is None or here[0].power != g.power or here[0].province in commands:
                kept.append(None)
                continue
            unit, piece = here
            try:
                if isinstance(order, Disband):
                    command = RetreatDisbandCommand(retreat_map, players[g.power], piece)
                elif isinstance(order, Move):
                    target = (self._dest_coast(unit, order.dest) if unit.kind == UnitKind.FLEET
                              else self.land.get(order.dest.province))
                    command = RetreatMoveCommand(retreat_map, players[g.power], piece, target)
                else:
                    raise AssertionError("not a retreat")
            except (AssertionError, KeyError):
                kept.append(None)
                continue
            commands[unit.province] = command
            kept.append(unit.province)
        for prov, (unit, piece) in dislodged_pieces.items():
            if prov not in commands:
                commands[prov] = RetreatDisbandCommand(retreat_map, players[unit.power], piece)
        final = resolve_retreats(retreat_map, list(commands.values()))
        after_units = [self._unit(piece, power) for power, pcs in final.items() for piece in pcs]
        arrived = {(u.power, u.location) for u in after_units}
        results = []
        for g, prov in zip(orders, kept):
            if prov is None:
                results.append(Result.INVALID)
                continue
            command = commands[prov]
            if isinstance(command, RetreatDisbandCommand):
                results.append(Result.SUCCEEDS)
            else:
                results.append(Result.SUCCEEDS if (g.power, self.ours[command.destination]) in arrived else Result.FAILS)
        after = self._after_retreats(before.turn, after_units, dict(before.centers))
        _ = Piece
        return PhaseResult(tuple(results), frozenset(), after, ())

    def _adjustments(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        from pydip.player.command.adjustment_command import AdjustmentCreateCommand, AdjustmentDisbandCommand
        from pydip.player.unit import Unit as Piece, UnitTypes
        from pydip.turn.adjustment import resolve_adjustment

        before = self.position
        units = sorted(before.units, key=lambda u: u.location)
        players, pieces = self._players(units)
        ownership = self._ownership(before.centers)
        counts = {p: sum(1 for o in before.centers.values() if o == p) - sum(1 for u in units if u.power == p)
                  for p in self.map.powers}
        # no build where no home centre is free: a game does not offer them
        commands, kept = [], []
        for g in orders:
            order = g.order
            try:
                if isinstance(order, Waive):
                    kept.append((OrderKind.WAIVE, None))
                    continue
                if isinstance(order, Build):
                    where = order.unit.where
                    kind = order.unit.kind or (UnitKind.FLEET if where.coast else UnitKind.ARMY)
                    name = (self.coast.get(f"{where.province}/{where.coast}" if where.coast else where.province)
                            if kind == UnitKind.FLEET else self.land[where.province])
                    if name is None:
                        raise AssertionError("no coast")
                    piece = Piece(UnitTypes.TROOP if kind == UnitKind.ARMY else UnitTypes.FLEET, name)
                    if counts.get(g.power, 0) <= 0:
                        raise AssertionError("no builds")
                    command = AdjustmentCreateCommand(ownership, players[g.power], piece)
                elif isinstance(order, Disband):
                    here = pieces.get(order.unit.where.province)
                    if here is None or here[0].power != g.power or counts.get(g.power, 0) >= 0:
                        raise AssertionError("no such unit to remove")
                    command = AdjustmentDisbandCommand(players[g.power], here[1])
                else:
                    raise AssertionError("not an adjustment")
            except (AssertionError, KeyError):
                kept.append(None)
                continue
            commands.append(command)
            kept.append(("command", command))
        player_units = {p: {self._piece_of(u) for u in units if u.power == p} for p in self.map.powers}
        final = resolve_adjustment(ownership, counts, player_units, commands)
        after_units = [self._unit(piece, power) for power, pcs in final.items() for piece in pcs]
        results = []
        for g, entry in zip(orders, kept):
            if entry is None:
                results.append(Result.INVALID)
            elif entry[0] == OrderKind.WAIVE:
                results.append(Result.SUCCEEDS if counts.get(g.power, 0) > 0 else Result.FAILS)
            else:
                command = entry[1]
                there = command.unit in final.get(g.power, set())
                done = there if isinstance(command, AdjustmentCreateCommand) else not there
                results.append(Result.SUCCEEDS if done else Result.FAILS)
        after = self._position(before.turn, MOVEMENT, after_units, before.centers)
        return PhaseResult(tuple(results), frozenset(), after, ())
