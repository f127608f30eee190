"""The PyPI ``diplomacy`` package (1.1.2) as a reference adjudicator.

Only the package's public game interface is used to set positions, submit orders and process a
phase; its per-unit result codes and its record of the orders it accepted are read afterwards.

How its answers map to our vocabulary (docs/case-format.md):

- An order the package refuses when it is submitted (it logs an error and keeps no order for the
  unit, which then holds, or in a retreat phase stores the order as ``VOID``) is ``invalid``: our
  engine's notion of an illegal order that is replaced by a hold.
- A move succeeds when the package reports no code for it (the unit moved); any of ``bounce``,
  ``no convoy``, ``void``, ``dislodged`` means it fails.
- A hold succeeds unless the unit is ``dislodged``.
- A support succeeds when it matched what the supported unit was ordered to do and it was neither
  ``cut`` nor its supporter ``dislodged``. The package also writes ``void`` on a *matching* support
  that could not help (the supported army lost its convoy; the support would dislodge a unit of the
  supporter's own power) and ``no convoy`` on a support of an army whose convoy failed: those
  supports were given, so they succeed, as in our engine where a support is given unless cut.
- A convoy succeeds when the package reports no code for the fleet, the army's move did not lose its
  convoy, and the fleet lies on a complete chain of fleets convoying that army with no code either
  (our definition: the fleet takes part in a route the army uses).
- A retreat succeeds when the unit arrives; a disband in a retreat phase succeeds.
- A build or removal succeeds when it is carried out (code ``''``); one accepted but not carried
  out (``void`` at processing: too many builds or removals) fails; a waive succeeds when the power
  had builds to waive.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Sequence

from ...model.kinds import Result, UnitKind
from ...errors import InputError
from ...model.map import GameMap
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Unit
from ...model.orders import Build, Convoy, Disband, Hold, Move, SupportHold, SupportMove, UnitSpec, Waive, Where
from . import diplomacy_deviations
from ...model.geography import Geography
from .reference import GivenOrder, PhaseResult, Position, ReferenceAdjudicator

INSTALL_HINT = "pip install 'fivedp-asp[reference]'"


def _import_game():
    try:
        from diplomacy import Game
    except ImportError:
        raise InputError(f"the reference 'diplomacy' needs the diplomacy package: {INSTALL_HINT}") from None
    try:
        from diplomacy.version import PACKAGE_VERSION
    except ImportError:  # pragma: no cover - every release has it
        PACKAGE_VERSION = "?"
    return Game, PACKAGE_VERSION


def _loc(location: str) -> str:
    return location.upper()


def _unit_key(unit: Unit) -> str:
    return f"{unit.letter} {_loc(unit.location)}"


def _read_unit(text: str, power: str) -> Unit:
    letter, loc = text.split()
    return Unit(UnitKind.ARMY if letter == "A" else UnitKind.FLEET, power, loc.lower())


class DiplomacyReference(ReferenceAdjudicator):
    name = "diplomacy"
    emulators = diplomacy_deviations.EMULATORS
    deviations = diplomacy_deviations.DEVIATIONS
    found_by_compare = diplomacy_deviations.FOUND_BY_COMPARE

    def __init__(self, game_map: GameMap):
        self._Game, self.version = _import_game()
        if game_map.name != "standard":
            raise InputError(f"the reference 'diplomacy' plays only the standard map, not {game_map.name!r}")
        self.map = game_map
        self.game = None
        self.position: Position | None = None
        self._powers = {p.upper(): p for p in game_map.powers}
        self._geo = Geography(game_map)

    # -- positions ---------------------------------------------------------------------------

    def load(self, position: Position) -> None:
        game = self._Game()
        game.set_current_phase(position.season)
        game.clear_units()
        game.clear_centers()
        for upper, power in self._powers.items():
            units = [_unit_key(u) for u in sorted(position.units, key=lambda u: u.location) if u.power == power]
            units += ["*" + _unit_key(u) for u in sorted(position.retreats, key=lambda u: u.location) if u.power == power]
            game.set_units(upper, units, reset=True)
            centers = sorted(_loc(p) for p, owner in position.centers.items() if owner == power)
            game.set_centers(upper, centers, reset=True)
        # the retreat options come with the position (they depend on the battle, which is gone)
        game.dislodged = {}
        for unit, options in position.retreats.items():
            game.get_power(unit.power.upper()).retreats[_unit_key(unit)] = sorted(_loc(o) for o in options)
            game.dislodged[_unit_key(unit)] = ""
        game.clear_cache()
        game.build_caches()
        self.game, self.position = game, position

    def _read_position(self, turn: int, phase: str) -> Position:
        units, centers, retreats = set(), {}, {}
        for upper, power in self._powers.items():
            p = self.game.get_power(upper)
            units |= {_read_unit(u, power) for u in p.units}
            centers.update({c.lower(): power for c in p.centers})
            for u, options in p.retreats.items():
                retreats[_read_unit(u, power)] = frozenset(o.lower() for o in options)
        return Position(turn, phase, frozenset(units), MappingProxyType(centers), MappingProxyType(retreats))

    def _phase_after(self) -> tuple[int, str, bool]:
        """Our (turn, phase) of where the package stands now, and whether its game is over."""
        name = self.game.get_current_phase()
        if name in ("COMPLETED", "FORMING"):
            return -1, "ended", True
        season, year, kind = name[0], int(name[1:5]), name[-1]
        battle = 2 * (year - 1901) + (season == "F")
        if kind == "M":
            return battle, MOVEMENT, False
        if kind == "R":
            return battle + 1, RETREAT, False
        return 2 * (year - 1901) + 2, ADJUSTMENT, False

    # -- orders ------------------------------------------------------------------------------

    def _units_by_province(self) -> dict[str, Unit]:
        assert self.position is not None
        out = {u.province: u for u in self.position.units}
        if self.position.phase == RETREAT:
            out.update({u.province: u for u in self.position.retreats})
        return out

    def _unit_text(self, spec: UnitSpec, units: dict[str, Unit]) -> str | None:
        where = spec.where
        if where.timeline not in (None, 0):
            return None
        there = units.get(where.province)
        kind = spec.kind or (there.kind if there else UnitKind.ARMY)
        loc = where.province + (f"/{where.coast}" if where.coast else "")
        return f"{'A' if kind == UnitKind.ARMY else 'F'} {_loc(loc)}"

    @staticmethod
    def _where(where: Where) -> str:
        return _loc(where.province + (f"/{where.coast}" if where.coast else ""))

    def translate(self, given: GivenOrder) -> str | None:
        """Our order in the package's notation, or None when it cannot be said there."""
        units = self._units_by_province()
        phase = self.position.phase
        order = given.order
        if isinstance(order, Waive):
            return "WAIVE"
        unit = self._unit_text(order.unit, units)
        if unit is None:
            return None
        if isinstance(order, Hold):
            return f"{unit} H"
        if isinstance(order, Move):
            if phase == RETREAT:
                return f"{unit} R {self._where(order.dest)}"
            return f"{unit} - {self._where(order.dest)}" + (" VIA" if order.via_convoy else "")
        if isinstance(order, Disband):
            return f"{unit} D"
        if isinstance(order, Build):
            kind = order.unit.kind or (UnitKind.FLEET if order.unit.where.coast else UnitKind.ARMY)
            return f"{'A' if kind == UnitKind.ARMY else 'F'} {self._where(order.unit.where)} B"
        target = self._unit_text(order.target, units)
        if target is None:
            return None
        if isinstance(order, SupportHold):
            return f"{unit} S {target}"
        if isinstance(order, SupportMove):
            return f"{unit} S {target} - {self._where(order.dest)}"
        if isinstance(order, Convoy):
            return f"{unit} C {target} - {self._where(order.dest)}"
        return None

    def adjudicate(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        if self.game is None or self.position is None:
            raise RuntimeError("load a position first")
        lines = [self.translate(g) for g in orders]
        phase = self.position.phase
        if phase == MOVEMENT:
            accepted = self._submit_movement(orders, lines)
        elif phase == RETREAT:
            accepted = self._submit_retreats(orders, lines)
        else:
            accepted = self._submit_adjustments(orders, lines)
        before = self.position
        commands = self._commands() if phase == MOVEMENT else {}
        self.game.error = []
        self.game.process()
        codes = {unit: [str(c) for c in codes] for unit, codes in self.game.result_history.last_value().items()}
        turn, next_phase, ended = self._phase_after()
        after = self._read_position(turn, next_phase)
        results, notes = [], []
        for g, line, acc in zip(orders, lines, accepted):
            if acc is None:
                results.append(Result.INVALID)
                notes.append(f"refused {line!r}" if line else "cannot be written for this reference")
                continue
            key, command = acc
            result = self._result(phase, g, key, command, codes, commands, before)
            results.append(result)
            shown = ",".join(c for c in codes.get(key, []) if c) or "ok"
            notes.append(f"{key} {command}: {shown}")
        dislodged = frozenset()
        if phase == MOVEMENT:
            by_key = {_unit_key(u): u for u in before.units}
            dislodged = frozenset(by_key[k] for k, cs in codes.items() if "dislodged" in cs and k in by_key)
        self.position = after
        return PhaseResult(tuple(results), dislodged, after, tuple(notes), ended)

    # -- submitting --------------------------------------------------------------------------

    def _submit_movement(self, orders, lines):
        """One line at a time, so that each refusal is seen: (unit key, order kept) or None."""
        out = []
        for g, line in zip(orders, lines):
            if line is None:
                out.append(None)
                continue
            power = self.game.get_power(g.power.upper())
            before = dict(power.orders)
            self.game.set_orders(g.power.upper(), [line])
            changed = [k for k, v in power.orders.items() if before.get(k) != v]
            if changed:
                out.append((changed[0], power.orders[changed[0]]))
                continue
            # unchanged: refused, or the very same order again
            key = " ".join(line.split()[:2])
            same = [k for k, v in power.orders.items() if k[2:5] == key[2:5] and f"{k} {v}" == line]
            out.append((same[0], power.orders[same[0]]) if same else None)
        return out

    def _submit_retreats(self, orders, lines):
        out = []
        for g, line in zip(orders, lines):
            if line is None:
                out.append(None)
                continue
            power = self.game.get_power(g.power.upper())
            self.game.set_orders(g.power.upper(), [line])
            entry = power.adjust[-1] if power.adjust else "VOID"
            if entry.startswith("VOID"):
                out.append(None)
            else:
                word = entry.split()
                out.append((" ".join(word[:2]), " ".join(word[2:])))
        return out

    def _submit_adjustments(self, orders, lines):
        """A power's lines go in together (the package checks sites and counts over the whole list);
        every line leaves one entry, in order, apart from waives the package trims or adds."""
        out: list = [None] * len(orders)
        by_power: dict[str, list[int]] = {}
        for i, g in enumerate(orders):
            by_power.setdefault(g.power, []).append(i)
        for power_name, idx in by_power.items():
            power = self.game.get_power(power_name.upper())
            sent = [i for i in idx if lines[i] is not None]
            self.game.set_orders(power_name.upper(), [lines[i] for i in sent])
            entries = iter([e for e in power.adjust if e != "WAIVE"] + [None])
            pending = next(entries)
            for i in sent:
                if lines[i] == "WAIVE":
                    if pending == "VOID WAIVE":
                        pending = next(entries)
                    else:
                        out[i] = ("WAIVE", "")
                    continue
                entry, pending = pending, next(entries)
                if entry is None or entry.startswith("VOID"):
                    continue
                word = entry.split()
                out[i] = (" ".join(word[:2]), " ".join(word[2:]))
        return out

    def _commands(self) -> dict[str, str]:
        """Every unit's order as the package kept it (units without one hold)."""
        out = {}
        for p in self.game.powers.values():
            for u in p.units:
                out[u] = p.orders.get(u, "H")
        return out

    # -- reading results ---------------------------------------------------------------------

    def _result(self, phase, given, key, command, codes, commands, before: Position) -> str:
        got = [c for c in codes.get(key, []) if c]
        if phase == MOVEMENT:
            verb = command.split()[0] if command else "H"
            if verb == "-":
                return Result.FAILS if got else Result.SUCCEEDS
            if verb == "H":
                return Result.FAILS if "dislodged" in got else Result.SUCCEEDS
            if verb == "S":
                if "cut" in got or "dislodged" in got or not self._support_matches(command, commands):
                    return Result.FAILS
                if "void" in got or "no convoy" in got:
                    if self._coast_differs(command, commands):
                        # voided because the support names another coast than the move takes (6.B.9)
                        return Result.FAILS
                    # a matching support the package set aside (its army lost the convoy, or it would
                    # dislodge its own side) is no longer checked for cuts: check the direct attacks
                    return Result.FAILS if self._attacked(key, command, commands, codes, before) else Result.SUCCEEDS
                return Result.SUCCEEDS
            if verb == "C":
                return Result.SUCCEEDS if not got and self._carries(key, command, commands, codes) else Result.FAILS
            return Result.FAILS
        if phase == RETREAT:
            if command == "D":
                return Result.SUCCEEDS
            return Result.FAILS if ("bounce" in got or "disband" in got) else Result.SUCCEEDS
        # adjustment
        if key == "WAIVE":
            builds = sum(1 for o in before.centers.values() if o == given.power) - sum(
                1 for u in before.units if u.power == given.power)
            return Result.SUCCEEDS if builds > 0 else Result.FAILS
        # codes are kept per unit, so another power's refused order for the same place adds "void":
        # what counts is that this build or removal was carried out ("")
        return Result.SUCCEEDS if "" in codes.get(key, []) else Result.FAILS

    def _carries(self, key: str, command: str, commands: dict[str, str], codes: dict[str, list[str]]) -> bool:
        """Whether the fleet lies on a complete chain of fleets that the package kept convoying this
        army (same order, not dislodged, no code), the army's convoy not having failed. The package's
        own list of paths is not used: it drops a route while a disruption is only possible and does
        not restore it when the fleet survives."""
        word = command.split()
        army = " ".join(word[1:3]) if word[1] in ("A", "F") else f"A {word[1]}"
        dest = word[-1][:3]
        his = commands.get(army, "H").split()
        if his[0] != "-" or (his[-2] if his[-1] == "VIA" else his[-1])[:3] != dest:
            return False
        if "no convoy" in codes.get(army, []):
            return False
        carriers = set()
        for unit, order in commands.items():
            w = order.split()
            if unit[0] == "F" and w[0] == "C" and " ".join(w[1:3]) == army and w[-1][:3] == dest \
                    and not [c for c in codes.get(unit, []) if c]:
                carriers.add(unit[2:].lower())
        geo = self._geo
        seas = sorted(carriers)
        origin = army[2:5].lower()
        return key[2:].lower() in geo.seas_reached(seas, origin) & geo.seas_reached(seas, dest.lower())

    @staticmethod
    def _attacked(key: str, command: str, commands: dict[str, str], codes: dict[str, list[str]],
                  before: Position) -> bool:
        """Whether another power's move into the supporter's province, not from the province the
        support is given into and not a move that lost its convoy, cuts the support."""
        owners = {_unit_key(u): u.power for u in before.units}
        word = command.split()
        target = word[-1][:3] if "-" in word else (word[2] if word[1] in ("A", "F") else word[1])[:3]
        for unit, order in commands.items():
            his = order.split()
            if his[0] != "-" or unit == key:
                continue
            dest = his[-2] if his[-1] == "VIA" else his[-1]
            if dest[:3] == key[2:5] and owners.get(unit) != owners.get(key) and unit[2:5] != target \
                    and "no convoy" not in codes.get(unit, []):
                return True
        return False

    @staticmethod
    def _coast_differs(command: str, commands: dict[str, str]) -> bool:
        """A support of a move naming a coast other than the one the move names."""
        word = command.split()
        if "-" not in word or "/" not in word[-1]:
            return False
        target_prov = word[2][:3] if word[1] in ("A", "F") else word[1][:3]
        supported = next((u for u in commands if u[2:5] == target_prov), None)
        if supported is None:
            return False
        his = commands[supported].split()
        dest = his[-2] if his[-1] == "VIA" else his[-1]
        return his[0] == "-" and "/" in dest and dest != word[-1]

    @staticmethod
    def _support_matches(command: str, commands: dict[str, str]) -> bool:
        word = command.split()
        if word[-1] == "H":
            word = word[:-1]
        target_prov = word[2][:3] if word[1] in ("A", "F") else word[1][:3]
        supported = next((u for u in commands if u[2:5] == target_prov), None)
        if supported is None:
            return False
        his = commands[supported].split()
        moving = his[0] == "-"
        if "-" not in word:
            return not moving
        if not moving:
            return False
        dest = his[-2] if his[-1] == "VIA" else his[-1]
        return dest[:3] == word[-1][:3]
