"""A position written in a scenario document (its ``start``; a game file's recorded start too):
units, centres and dislodged units, each checked with the line it was written on, and the small
readers of a scenario's values (a unit, a power, a province, a list, a mapping) that the reading
of steps and expectations shares. Every problem is a ``ScenarioError`` naming the file and line.
"""

from __future__ import annotations

from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from ..errors import InputError, NotationError
from ..inputs import LoadError
from ..yaml_lines import key_line, line_of
from ..shapes import Fields, Opt, Text
from ..limits import MAX_TURN
from ..model.map import GameMap
from ..model.multiverse import ADJUSTMENT, MOVEMENT, PHASES, RETREAT, Multiverse, Retreat, Unit, make_board
from ..model.notation import parse_unit
from ..model.settings import Settings

START_KEYS = {"turn", "phase", "units", "centers", "dislodged", "boards", "forks"}


# -- lines ---------------------------------------------------------------------------------------

_line = line_of


def _key_line(data: Any, key: str) -> int:
    """The line a key was written on (0 when it is not there)."""
    return key_line(data, key)


def _list(value: Any, what: str, path: str, line: int) -> list:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise ScenarioError(path, _line(value) or line, f"'{what}' must be a list")
    return list(value)



class ScenarioError(InputError):
    def __init__(self, path: str, line: int, problem: str):
        self.path, self.line, self.problem = path, line, problem
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")


@contextmanager
def _within(path: str, line: int) -> Iterator[None]:
    """Errors about a value that carries no line of its own (a null, a boolean) are placed on the
    line of the part being read (the start, a step), so that every message names a line."""
    try:
        yield
    except (ScenarioError, LoadError) as exc:
        if exc.line or not line:
            raise
        raise ScenarioError(path, line, exc.problem) from None


def _unit(text: Any, power: str, game_map: GameMap, path: str) -> tuple[Unit, Any]:
    try:
        spec = parse_unit(str(text), game_map)
    except NotationError as exc:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: {exc.problem}") from None
    if spec.kind is None:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: say whether it is an army (A) or a fleet (F)")
    try:
        loc = game_map.unit_location(spec.kind, spec.where.province, spec.where.coast)
    except ValueError as exc:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: {exc}") from None
    return Unit(spec.kind, power, loc), spec


def _power(text: Any, game_map: GameMap, path: str) -> str:
    power = game_map.power(str(text))
    if power is None:
        raise ScenarioError(path, _line(text), f"unknown power {str(text)!r} (powers: {', '.join(game_map.powers)})")
    return power


def _mapping(value: Any, what: str, path: str, line: int) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ScenarioError(path, _line(value) or line, f"'{what}' must be a mapping")
    return value  # the loaded mapping itself: it knows the lines of its keys


def _province(text: Any, game_map: GameMap, path: str) -> str:
    prov = game_map.province(str(text))
    if prov is None:
        raise ScenarioError(path, _line(text), f"unknown province {str(text)!r}")
    return prov


def _on_board(spec: Any, text: Any, on: tuple[tuple[int, int], str] | None, path: str) -> None:
    """A unit listed under a board of a start of several boards stands on that board: a designation
    written with it must name that board, or the unit would stand on two boards at once."""
    if on is None:
        return
    (tl, turn), name = on
    w = spec.where
    if (w.timeline is not None and w.timeline != tl) or (w.turn is not None and w.turn != turn):
        raise ScenarioError(path, _line(text), f"unit {str(text)!r} is listed under board {name} but names another "
                                               "board: a unit stands on the one board it is listed under")


def _units(raw: Any, game_map: GameMap, path: str, line: int,
           on: tuple[tuple[int, int], str] | None = None) -> list[Unit]:
    """A board's units by power, no two in one province."""
    units: list[Unit] = []
    for power_text, lines in _mapping(raw, "units", path, line).items():
        power = _power(power_text, game_map, path)
        for text in _list(lines, f"units of {power}", path, _line(power_text)):
            unit, spec = _unit(text, power, game_map, path)
            _on_board(spec, text, on, path)
            if any(u.province == unit.province for u in units):
                raise ScenarioError(path, _line(text), f"two units in {game_map.provinces[unit.province].name}")
            units.append(unit)
    return units


def _centres(raw: Any, game_map: GameMap, path: str, line: int) -> dict[str, str]:
    """A board's supply-centre owners, complete: a centre not listed is unowned."""
    centers: dict[str, str] = {}
    for power_text, provs in _mapping(raw, "centers", path, line).items():
        power = _power(power_text, game_map, path)
        for text in _list(provs, f"centers of {power}", path, _line(power_text)):
            prov = _province(text, game_map, path)
            if not game_map.provinces[prov].center:
                raise ScenarioError(path, _line(text), f"{game_map.provinces[prov].name} is not a supply centre")
            if prov in centers:
                owners = power if centers[prov] == power else f"{centers[prov]} and {power}"
                raise ScenarioError(path, _line(text), f"{game_map.provinces[prov].name} is owned twice (by {owners}): "
                                                   "a centre has one owner")
            centers[prov] = power
    return centers


def _dislodged(raw: Any, game_map: GameMap, path: str, line: int,
               on: tuple[tuple[int, int], str] | None = None) -> list[Retreat]:
    """The units waiting to retreat onto a board, each with the province its attack came from."""
    retreats: list[Retreat] = []
    for power_text, items in _mapping(raw, "dislodged", path, line).items():
        power = _power(power_text, game_map, path)
        for item in _list(items, f"dislodged of {power}", path, _line(power_text)):
            if isinstance(item, Mapping):
                Fields({"unit": Text(), "attacker_from": Opt(Text())}, required=("unit",)).check(
                    item, f"a dislodged unit of {power}", path, _line(power_text))
            else:
                Text().check(item, f"a dislodged unit of {power}", path, _line(power_text))
                item = {"unit": item}
            if not item.get("unit"):
                raise ScenarioError(path, _line(power_text), f"a dislodged unit of {power} needs 'unit'")
            unit, spec = _unit(item.get("unit"), power, game_map, path)
            _on_board(spec, item.get("unit"), on, path)
            if any(r.unit.province == unit.province for r in retreats):
                raise ScenarioError(path, _line(item.get("unit")), f"two dislodged units in "
                                                               f"{game_map.provinces[unit.province].name}")
            attacker = item.get("attacker_from")
            retreats.append(Retreat(unit, _province(attacker, game_map, path) if attacker else None))
    return retreats


def _start(data: dict, game_map: GameMap, settings: Settings, path: str) -> Multiverse:
    start = _mapping(data.get("start"), "start", path, _key_line(data, "start"))
    for key in start:
        if key not in START_KEYS:
            raise ScenarioError(path, _line(key), f"unknown key {str(key)!r} in start (known: {', '.join(sorted(START_KEYS))})")
    if "forks" in start:
        raise ScenarioError(path, _key_line(start, "forks"), "start.forks needs start.boards: the boards the "
                                                             "timelines forked from")
    turn = start.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= MAX_TURN:
        raise ScenarioError(path, _line(turn) or _key_line(start, "turn"), f"start.turn must be a whole number from 0 to {MAX_TURN}")
    turn = int(turn)
    phase = str(start.get("phase", MOVEMENT))
    if phase not in PHASES:
        raise ScenarioError(path, _line(start.get("phase")) or _key_line(start, "phase"), f"start.phase must be one of {', '.join(PHASES)}")
    raw_units = start["units"] if "units" in start else game_map.start
    units = _units(raw_units, game_map, path, _key_line(start, "units"))
    if "centers" in start:
        centers = _centres(start["centers"], game_map, path, _key_line(start, "centers"))
    else:
        centers = {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    retreats: list[Retreat] = []
    if "dislodged" in start:
        if phase != RETREAT:
            raise ScenarioError(path, _key_line(start, "dislodged"), "start.dislodged needs start.phase: retreat")
        retreats = _dislodged(start["dislodged"], game_map, path, _key_line(start, "dislodged"))
    board = make_board(0, turn, units, centers, retreats=tuple(retreats), adjustment_due=phase == ADJUSTMENT)
    players = tuple(p for p in game_map.powers if p in {u.power for u in units} | set(centers.values()))
    return Multiverse(game_map, MappingProxyType({board.key: board}), MappingProxyType({}),
                      settings, players=players)
