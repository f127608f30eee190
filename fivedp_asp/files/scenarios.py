"""Scenario (case) files: loading them with errors that name file and line, running and checking them.

The keys are the contract of ``docs/case-format.md``. Designations in ``expect`` are read against
the multiverse as it was *before* the step, so ``A Tyrolia`` in ``dislodged`` means the unit that
stood on the board the orders were given on.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from ..errors import InputError, NotationError, OrderError, quoted
from ..inputs import LoadError
from ..yaml_lines import key_line, line_of, value_line, load_yaml, plain
from ..shapes import Anything, Choice, Fields, ListOf, MapOf, Opt, Text, Whole
from ..limits import MAX_TURN
from ..model.map import GameMap, load_map
from ..model.multiverse import ADJUSTMENT, MOVEMENT, PHASES, RETREAT, SUSTAIN, Board, Multiverse, Retreat, Unit, board_name_readings, make_board
from ..model.notation import parse_timeline, parse_unit, timeline_name
from ..engine.options import RULES, problem as option_problem
from ..engine.userrules import validated
from ..engine.resolve import subject_place
from ..engine.answer import CAUSE_KINDS
from ..engine.batch import step_many

if TYPE_CHECKING:
    from ..engine.step import StepReport

RESULTS = ("succeeds", "fails", "invalid")
CASE_KEYS = {"id", "title", "description", "options", "start", "steps", "map"}
START_KEYS = {"turn", "phase", "units", "centers", "dislodged"}
STEP_KEYS = {"orders", "expect", "note"}
EXPECT_KEYS = {"results", "reasons", "dislodged", "boards", "retreats", "timelines", "centers",
               "phase", "in_play", "sustained", "dissolved", "winner"}


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


@dataclass(frozen=True)
class ScenarioStep:
    orders: dict[str, list[str]]
    expect: dict[str, Any]
    line: int


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    path: str
    start: Multiverse
    steps: tuple[ScenarioStep, ...]
    description: str = ""
    options: dict[str, Any] = field(default_factory=dict)


_NAMED_UNITS = Opt(MapOf(Text(), Opt(ListOf(Text()))))
START_SCHEMA = Fields({"turn": Whole(0, MAX_TURN), "phase": Choice(PHASES), "units": _NAMED_UNITS,
                       "centers": _NAMED_UNITS, "dislodged": Opt(MapOf(Text(), Opt(ListOf(Anything()))))})
CASE_SCHEMA = Fields({"id": Text(numbers=True), "title": Opt(Text(numbers=True)), "description": Opt(Text(numbers=True)),
                      "options": Opt(MapOf(Text(), Anything())), "start": Opt(START_SCHEMA),
                      "steps": ListOf(Anything()), "map": Text()}, required=("id", "steps"))
"""The shape of a scenario file (docs/case-format.md), checked before its meaning; the steps are
checked one by one as they are read (``load_case``), with the messages of the case format."""


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


_PLACED = Opt(MapOf(Text(numbers=True), Opt(MapOf(Text(), Opt(ListOf(Text()))))))
STEP_SCHEMA = Fields({
    "orders": Opt(MapOf(Text(), Opt(ListOf(Text())))), "note": Anything(),
    "expect": Opt(Fields({"results": Opt(MapOf(Text(), Anything())), "reasons": Opt(MapOf(Text(), Anything())),
                          "dislodged": Opt(ListOf(Text())),
                          "boards": _PLACED, "retreats": _PLACED, "centers": _PLACED,
                          "timelines": Opt(ListOf(Text(numbers=True))), "phase": Anything(),
                          "in_play": Opt(ListOf(Text(numbers=True))), "dissolved": Opt(ListOf(Text(numbers=True))),
                          "sustained": Opt(MapOf(Text(), Anything())), "winner": Anything()})),
})
"""The types within a step, checked after the step's own checks (which give the case format's messages)."""


# -- loading -----------------------------------------------------------------------------------


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


def _start(data: dict, game_map: GameMap, options: dict, path: str) -> Multiverse:
    start = _mapping(data.get("start"), "start", path, _key_line(data, "start"))
    for key in start:
        if key not in START_KEYS:
            raise ScenarioError(path, _line(key), f"unknown key {str(key)!r} in start (known: {', '.join(sorted(START_KEYS))})")
    turn = start.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= MAX_TURN:
        raise ScenarioError(path, _line(turn) or _key_line(start, "turn"), f"start.turn must be a whole number from 0 to {MAX_TURN}")
    turn = int(turn)
    phase = str(start.get("phase", MOVEMENT))
    if phase not in PHASES:
        raise ScenarioError(path, _line(start.get("phase")) or _key_line(start, "phase"), f"start.phase must be one of {', '.join(PHASES)}")
    units: list[Unit] = []
    raw_units = start["units"] if "units" in start else game_map.start
    for power_text, lines in _mapping(raw_units, "units", path, _key_line(start, "units")).items():
        power = _power(power_text, game_map, path)
        for text in _list(lines, f"units of {power}", path, _line(power_text)):
            unit, _ = _unit(text, power, game_map, path)
            if any(u.province == unit.province for u in units):
                raise ScenarioError(path, _line(text), f"two units in {game_map.provinces[unit.province].name}")
            units.append(unit)
    if "centers" in start:
        centers = {}
        for power_text, provs in _mapping(start["centers"], "centers", path, _key_line(start, "centers")).items():
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
    else:
        centers = {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    retreats = []
    if "dislodged" in start:
        if phase != RETREAT:
            raise ScenarioError(path, _key_line(start, "dislodged"), "start.dislodged needs start.phase: retreat")
        for power_text, items in _mapping(start["dislodged"], "dislodged", path, _key_line(start, "dislodged")).items():
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
                unit, _ = _unit(item.get("unit"), power, game_map, path)
                if any(r.unit.province == unit.province for r in retreats):
                    raise ScenarioError(path, _line(item.get("unit")), f"two dislodged units in "
                                                                   f"{game_map.provinces[unit.province].name}")
                attacker = item.get("attacker_from")
                retreats.append(Retreat(unit, _province(attacker, game_map, path) if attacker else None))
    board = make_board(0, turn, units, centers, retreats=tuple(retreats), adjustment_due=phase == ADJUSTMENT)
    players = tuple(p for p in game_map.powers if p in {u.power for u in units} | set(centers.values()))
    return Multiverse(game_map, MappingProxyType({board.key: board}), MappingProxyType({}),
                      MappingProxyType(options), players=players)


def read_start(data: dict, game_map: GameMap, options: dict, path: str) -> Multiverse:
    """The multiverse a scenario document's ``start`` describes, checked as ``load_case`` checks it
    (a CaseError naming the line): a game's recorded start is read so when the game is replayed."""
    return _start(data, game_map, options, path)


_EMPTY_HINTS = {
    ("steps", "orders"): "write the orders, or 'orders: {}' for a step in which nobody orders anything",
    ("steps", "orders", "*"): "write its orders, or '[]' for none",
    ("steps", "expect"): "write what to expect, or leave 'expect' out",
    ("steps", "note"): "write the note, or leave it out",
    ("steps", "expect", "winner"): "write 'none' for no winner",
    ("steps", "expect", "sustained", "*"): "write 'none' for a centre that sustained no timeline",
    ("start", "units"): "write '{}' for a board without units, or leave it out for the map's opening position",
    ("start", "centers"): "write '{}' for no centre owned, or leave it out for every power's home centres",
}
"""How to write a value left out, by where the key is (``*``: any power or centre); else ``_EMPTY_HINT``."""
_EMPTY_HINT = "write '{}' for an empty mapping or '[]' for an empty list, or leave the key out"


def _empty_hint(trail: tuple[str, ...]) -> str:
    return next((hint for shape, hint in _EMPTY_HINTS.items()
                 if len(shape) == len(trail) and all(s in ("*", t) for s, t in zip(shape, trail))), _EMPTY_HINT)


def _first_empty(value: Any, trail: tuple[str, ...], line: int) -> tuple[tuple[str, ...], int, int | None] | None:
    """The first key without a value, or empty list item, within ``value`` (found at ``trail``, written
    on ``line``): its key path, its line, and for a list item its index; None when there is none."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            at = key_line(value, key) or line
            if item is None:
                return (*trail, str(key)), at, None
            found = _first_empty(item, (*trail, str(key)), at)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            at = value_line(value, i) or line
            if item is None:
                return trail, at, i
            found = _first_empty(item, trail, at)
            if found is not None:
                return found
    return None


def _refuse_empty_values(data: Mapping, path: str) -> None:
    """No key of a scenario is written without a value and no list item is empty: the contract gives an
    empty value no meaning (``{}``, ``[]`` and ``none`` are written out), and a key left empty is how a
    file cut short or an unfinished edit reads — ``steps: - orders:`` at the end of a file would be a
    step in which nobody orders anything, ``start: units:`` a board without units, ``expect: results:``
    a check of nothing. A null step (``- ``) is left to ``_step``, which says so, and the options' values to
    their own check, which names the values each option takes."""
    for key, value in data.items():
        at = key_line(data, key)
        if key == "steps" and isinstance(value, list):
            for n, step in enumerate(value):
                found = _first_empty(step, (), value_line(value, n) or at) if isinstance(step, Mapping) else None
                if found is not None:
                    trail, line, item = found
                    _empty_value(path, line, f"step {n + 1}: ", trail, item, ("steps", *trail))
            continue
        if value is None:
            found: tuple | None = ((str(key),), at, None)
        else:
            found = _first_empty(value, (str(key),), at) if key != "options" else None
        if found is not None:
            trail, line, item = found
            _empty_value(path, line, "", trail, item, trail)


def _empty_value(path: str, line: int, step: str, trail: tuple[str, ...], item: int | None,
                 shape: tuple[str, ...]) -> None:
    name = quoted(".".join(trail))
    if item is not None:
        raise ScenarioError(path, line, f"{step}{name} item {item + 1} is empty: write it, or take its '-' away")
    raise ScenarioError(path, line, f"{step}{name} has no value: {_empty_hint(shape)}")


def read_scenario(path: str | Path) -> Scenario:
    path = str(path)
    data = load_yaml(path, "scenario")
    if not isinstance(data, dict):
        raise ScenarioError(path, line_of(data) or 1, "a case must be a mapping with at least 'id' and 'steps'")
    try:
        CASE_SCHEMA.check(data, "", path, 1)
    except LoadError as exc:
        raise ScenarioError(path, exc.line, exc.problem) from None
    _refuse_empty_values(data, path)
    map_name = data.get("map", "standard")
    try:
        map_path = Path(path).parent / str(map_name)
        game_map = load_map(str(map_path) if map_path.suffix in (".yaml", ".yml") and map_path.exists() else str(map_name))
    except InputError as exc:
        raise ScenarioError(path, _line(map_name), str(exc)) from None
    raw_options = _mapping(data.get("options"), "options", path, _key_line(data, "options"))
    # rules of your own (options: rules:) first: they add options and values (userrules.py)
    rules_key = next((k for k in raw_options if str(k) == RULES), None)
    try:
        own = validated({RULES: plain(raw_options[rules_key])}, Path(path).parent) if rules_key is not None else {}
    except InputError as exc:
        raise ScenarioError(path, _line(rules_key), str(exc)) from None
    for key, value in raw_options.items():
        reason = option_problem(str(key), value, own) if str(key) != RULES else None
        if reason:
            raise ScenarioError(path, _line(key), reason)
    # plain values, not the loader's line-numbered strings: options are saved in game files
    options = validated(plain(raw_options), Path(path).parent)
    with _within(path, _key_line(data, "start") or 1):
        start = _start(data, game_map, options, path)
    steps = []
    steps_line = _key_line(data, "steps")
    for n, raw in enumerate(_list(data["steps"], "steps", path, steps_line)):
        with _within(path, value_line(data["steps"], n) or steps_line):
            steps.append(_step(raw, n, game_map, path, steps_line))
    return Scenario(str(data["id"]), str(data.get("title", "")), path, start, tuple(steps),
                str(data.get("description", "") or ""), options)


def _step(raw: Any, n: int, game_map: GameMap, path: str, steps_line: int) -> ScenarioStep:
    """One step of a scenario, checked key by key (``n`` counts from 0)."""
    if raw is None:
        # a bare `-` or `- null` is more likely an unfinished step than a deliberate empty one; the
        # error carries no line, so ``_within`` places it on the step's own line
        raise ScenarioError(path, 0, f"step {n + 1} is empty (null): write `- {{}}` for a step in which nobody "
                                 "orders anything")
    raw = _mapping(raw, "a step", path, steps_line)
    for key in raw:
        if key not in STEP_KEYS:
            raise ScenarioError(path, _line(key), f"unknown key {str(key)!r} in a step (known: {', '.join(sorted(STEP_KEYS))})")
    orders = {}
    for power_text, lines in _mapping(raw.get("orders"), "orders", path, _key_line(raw, "orders")).items():
        _power(power_text, game_map, path)
        orders[power_text] = list(_list(lines, f"orders of {power_text}", path, _line(power_text)))
    expect = _mapping(raw.get("expect"), "expect", path, _key_line(raw, "expect"))
    for key in expect:
        if key not in EXPECT_KEYS:
            raise ScenarioError(path, _line(key), f"unknown key {str(key)!r} in expect (known: {', '.join(sorted(EXPECT_KEYS))})")
    _check_expect_shape(expect, path)
    for line, result in (expect.get("results") or {}).items():
        if result not in RESULTS:
            raise ScenarioError(path, _line(line), f"result of {line!r} must be one of {', '.join(RESULTS)}")
    for line, want in (expect.get("reasons") or {}).items():
        _reason_kinds(line, want, path)
    STEP_SCHEMA.check(raw, f"step {n + 1}", path, line_of(raw) or steps_line)
    _check_expected_centres(expect, game_map, path)
    first = next(iter(raw), None)
    return ScenarioStep(orders, expect, _line(first))


def _reason_kinds(line: Any, want: Any, path: str) -> dict[str, list | None]:
    """An expected reason: a kind, a list of kinds, or kinds with the units each must name (None: any)."""
    if isinstance(want, str):
        kinds: dict[str, list | None] = {want: None}
    elif isinstance(want, (list, tuple)):
        kinds = {}
        for item in want:
            if isinstance(item, Mapping):
                kinds.update({k: _list(v, f"reasons of {line}", path, _line(line)) for k, v in item.items()})
            else:
                kinds[item] = None
    elif isinstance(want, Mapping):
        kinds = {k: _list(v, f"reasons of {line}", path, _line(line)) for k, v in want.items()}
    else:
        raise ScenarioError(path, _line(line), f"reasons of {str(line)!r}: a kind, a list of kinds, or kinds with their units")
    for kind in kinds:
        if kind not in CAUSE_KINDS:
            raise ScenarioError(path, _line(kind) or _line(line),
                            f"reasons of {str(line)!r}: unknown kind {str(kind)!r} (kinds: {', '.join(CAUSE_KINDS)})")
    return {str(k): v for k, v in kinds.items()}


def _check_expect_shape(expect: dict, path: str) -> None:
    """Each expectation key has the shape the contract gives it, so checking never trips over a list."""
    for key in ("results", "reasons", "boards", "retreats", "centers"):
        _mapping(expect.get(key), key, path, _key_line(expect, key))
    _list(expect.get("dislodged"), "dislodged", path, _key_line(expect, "dislodged"))
    _list(expect.get("timelines"), "timelines", path, _key_line(expect, "timelines"))
    _list(expect.get("in_play"), "in_play", path, _key_line(expect, "in_play"))
    _list(expect.get("dissolved"), "dissolved", path, _key_line(expect, "dissolved"))
    _mapping(expect.get("sustained"), "sustained", path, _key_line(expect, "sustained"))
    phase = expect.get("phase")
    if phase is not None and str(phase) not in (*PHASES, SUSTAIN):
        raise ScenarioError(path, _line(phase) or _key_line(expect, "phase"),
                        f"expect.phase must be one of {', '.join((*PHASES, SUSTAIN))}")
    for key in ("boards", "retreats", "centers"):
        for name, powers in (expect.get(key) or {}).items():
            for power, items in _mapping(powers, f"{key} of {name}", path, _line(name)).items():
                _list(items, f"{key} of {name} for {power}", path, _line(power))


def _check_expected_centres(expect: dict, game_map: GameMap, path: str) -> None:
    """``expect.centers`` names powers and supply centres of the map: a province that is no supply
    centre can never be owned, so such an expectation is a mistake in the case, reported when it is
    loaded (bad input) rather than as a case that fails."""
    for name, powers in (expect.get("centers") or {}).items():
        for power_text, provs in (powers or {}).items():
            _power(power_text, game_map, path)
            for text in provs or ():
                prov = _province(text, game_map, path)
                if not game_map.provinces[prov].center:
                    raise ScenarioError(path, _line(text), f"expect.centers of {name}: {game_map.provinces[prov].name} "
                                                       "is not a supply centre")


def find_scenarios(paths: list[str]) -> Iterator[Path]:
    for p in paths:
        path = Path(p)
        if path.is_dir():
            yield from sorted(q for q in path.rglob("*") if q.suffix in (".yaml", ".yml"))
        elif path.exists():
            yield path
        else:
            raise InputError(f"{p}: no such file or directory")


# -- checking ----------------------------------------------------------------------------------

UnitKey = tuple[tuple[int, int], str, str, str | None]  # board, kind, province, coast (None: any)


def _expected_unit(text: Any, board: tuple[int, int] | None, mv: Multiverse, path: str) -> UnitKey:
    """An expected unit; without a board it is designated like an order's unit, relative to ``mv``."""
    try:
        spec = parse_unit(str(text), mv.game_map)
    except NotationError as exc:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: {exc.problem}") from None
    if spec.kind is None:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: say whether it is an army (A) or a fleet (F)")
    if board is None:
        try:
            board = subject_place(mv, spec.where, str(text)).board
        except InputError as exc:
            raise ScenarioError(path, _line(text), str(exc)) from None
    coast = spec.where.coast if spec.kind == "fleet" else None
    return board, spec.kind or "?", spec.where.province, coast


def _matches(expected: set[UnitKey], actual: set[UnitKey]) -> bool:
    if len(expected) != len(actual):
        return False
    pool = set(actual)
    for b, k, p, c in expected:
        hit = next((a for a in pool if a[:3] == (b, k, p) and (c is None or a[3] == c)), None)
        if hit is None:
            return False
        pool.discard(hit)
    return True


def _key(board: tuple[int, int], u: Unit) -> UnitKey:
    coast = u.location.split("/", 1)[1] if "/" in u.location else None
    return board, u.kind, u.province, coast


def _show(keys: set[UnitKey]) -> str:
    return ", ".join(sorted(f"{'A' if k == 'army' else 'F'} {p}{'/' + c if c else ''}" for _, k, p, c in keys)) or "none"


def _board_named(name: Any, mv: Multiverse, path: str) -> Board | None:
    """A board by name. ``b10`` may be timeline b turn 10 or timeline b1 turn 0: the one that exists is
    meant; ``b1@0`` (timeline, @, turn) says it without doubt."""
    readings = board_name_readings(str(name))
    if not readings:
        raise ScenarioError(path, _line(name), f"board name {str(name)!r} must be a timeline and a turn, like a1, b3 or b1@0")
    found = [mv.boards[k] for k in readings if k in mv.boards]
    if len(found) > 1:
        raise ScenarioError(path, _line(name), f"board name {str(name)!r} is ambiguous: write it as timeline@turn")
    return found[0] if found else None


def check_step(case: Scenario, index: int, report: StepReport, expect: dict) -> list[str]:
    """Every difference between the expectation and the report, as one line each."""
    path, before, after = case.path, report.before, report.after
    where = f"step {index + 1} ({report.phase})"
    problems = []
    by_text: dict[str, list] = {}
    for o in report.outcomes:
        by_text.setdefault(o.text, []).append(o)
    for line, want in (expect.get("results") or {}).items():
        got = by_text.get(str(line))
        if not got:
            problems.append(f"{where}: results: no order {str(line)!r} in this step")
            continue
        for o in got:
            if o.result != want:
                reason = f" ({o.reason})" if o.reason else ""
                problems.append(f"{where}: results: {str(line)!r} expected {want}, got {o.result}{reason}")
    for line, raw in (expect.get("reasons") or {}).items():
        got = by_text.get(str(line))
        if not got:
            problems.append(f"{where}: reasons: no order {str(line)!r} in this step")
            continue
        for kind, units in _reason_kinds(line, raw, path).items():
            for o in got:
                named = [c for c in o.explanation if c.kind == kind]
                shown = f" (got: {o.reason or 'no reason'})"
                if not named:
                    problems.append(f"{where}: reasons: {str(line)!r} expected {kind}{shown}")
                    continue
                if units is None:
                    continue
                want_u = {_expected_unit(u, None, before, path) for u in units}
                got_u = {_expected_unit(u, None, before, path) for c in named for u in c.units}
                if not _matches(want_u, got_u):
                    problems.append(f"{where}: reasons: {str(line)!r} expected {kind} naming {_show(want_u)}, "
                                    f"got {_show(got_u)}")
    if "dislodged" in expect:
        want = {_expected_unit(u, None, before, path) for u in expect["dislodged"] or ()}
        got = {_key(b, u) for b, u in report.dislodged}
        if not _matches(want, got):
            problems.append(f"{where}: dislodged: expected {_show(want)}, got {_show(got)}")
    for name, powers in (expect.get("boards") or {}).items():
        board = _board_named(name, after, path)
        if board is None:
            problems.append(f"{where}: boards: there is no board {name}")
            continue
        want = set()
        for power_text, units in (powers or {}).items():
            power = _power(power_text, after.game_map, path)
            for u in units or ():
                key = _expected_unit(u, board.key, after, path)
                want.add(key + (power,))
        got = {_key(board.key, u) + (u.power,) for u in board.units.values()}
        if not _matches_owned(want, got):
            problems.append(f"{where}: boards: {name} expected {_show_owned(want)}, got {_show_owned(got)}")
    for name, powers in (expect.get("retreats") or {}).items():
        board = _board_named(name, after, path)
        want = {_expected_unit(u, board.key if board else (0, 0), after, path) + (_power(p, after.game_map, path),)
                for p, units in (powers or {}).items() for u in units or ()}
        got = {_key(board.key, r.unit) + (r.unit.power,) for r in board.retreats} if board else set()
        if not _matches_owned(want, got):
            problems.append(f"{where}: retreats: {name} expected {_show_owned(want)}, got {_show_owned(got)}")
    if "timelines" in expect:
        want_t = []
        for x in expect["timelines"] or ():
            try:
                want_t.append(parse_timeline(str(x)))
            except NotationError as exc:
                raise ScenarioError(path, _line(x), f"timeline {str(x)!r}: {exc.problem}") from None
        want_t.sort()
        if want_t != list(after.timelines):
            problems.append(f"{where}: timelines: expected {[timeline_name(x) for x in want_t]}, "
                            f"got {[timeline_name(x) for x in after.timelines]}")
    problems += _check_sustain(report, expect, where, path)
    for name, powers in (expect.get("centers") or {}).items():
        board = _board_named(name, after, path)
        if board is None:
            problems.append(f"{where}: centers: there is no board {name}")
            continue
        want_c = {_province(p, after.game_map, path): _power(pw, after.game_map, path)
                  for pw, provs in (powers or {}).items() for p in provs or ()}
        if want_c != dict(board.centers):
            problems.append(f"{where}: centers: {name} expected {sorted(want_c.items())}, got {sorted(board.centers.items())}")
    return problems


def _timeline_list(items: Any, path: str) -> list[int]:
    out = []
    for x in items or ():
        try:
            out.append(parse_timeline(str(x)))
        except NotationError as exc:
            raise ScenarioError(path, _line(x), f"timeline {str(x)!r}: {exc.problem}") from None
    return sorted(out)


def _check_sustain(report: StepReport, expect: dict, where: str, path: str) -> list[str]:
    """The phase the step was, the timelines in play after it, and a sustain phase's outcome
    (docs/rules.md §6.8.3): what each listed time centre sustained, and exactly which timelines dissolved."""
    problems = []
    names = lambda tls: [timeline_name(x) for x in tls]  # noqa: E731
    if "phase" in expect and str(expect["phase"]) != report.phase:
        problems.append(f"{where}: phase: expected {expect['phase']}, got {report.phase}")
    if "in_play" in expect:
        want = _timeline_list(expect["in_play"], path)
        if want != list(report.after.in_play):
            problems.append(f"{where}: in_play: expected {names(want)}, got {names(report.after.in_play)}")
    if "winner" in expect:
        raw = expect["winner"]
        want_w = None if raw is None or str(raw).lower() == "none" else _power(raw, report.after.game_map, path)
        if want_w != report.after.winner:
            problems.append(f"{where}: winner: expected {want_w or 'none'}, got {report.after.winner or 'none'}")
    result = report.sustain
    if "dissolved" in expect:
        want = _timeline_list(expect["dissolved"], path)
        got = list(result.dissolved) if result else []
        if want != got:
            problems.append(f"{where}: dissolved: expected {names(want)}, got {names(got)}")
    for centre, timeline in (expect.get("sustained") or {}).items():
        prov = _province(centre, report.before.game_map, path)
        vote = next((c for c in result.centres if c.center == prov), None) if result else None
        if result is None:
            problems.append(f"{where}: sustained: this step is no sustain phase")
            continue
        if vote is None:
            problems.append(f"{where}: sustained: {centre} is not a time centre")
            continue
        want_tl = None if timeline is None or str(timeline).lower() == "none" else _timeline_list([timeline], path)[0]
        if want_tl != vote.sustains:
            got = timeline_name(vote.sustains) if vote.sustains is not None else "none"
            problems.append(f"{where}: sustained: {centre} expected {timeline if want_tl is not None else 'none'}, "
                            f"got {got}")
    return problems


def _matches_owned(want: set, got: set) -> bool:
    return all(_matches({w[:4] for w in want if w[4] == p}, {g[:4] for g in got if g[4] == p})
               for p in {x[4] for x in want | got})


def _show_owned(keys: set) -> str:
    powers = sorted({k[4] for k in keys})
    return "; ".join(f"{p}: {_show({k[:4] for k in keys if k[4] == p})}" for p in powers) or "nothing"


@dataclass(frozen=True)
class ScenarioRun:
    case: Scenario
    reports: tuple[StepReport, ...]
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


def check_scenario(case: Scenario) -> ScenarioRun:
    run = check_scenarios([case])[0]
    if isinstance(run, Exception):
        raise run
    return run


def _step_error(case: Scenario, s: ScenarioStep, exc: Exception, mv: Multiverse | None = None) -> Exception:
    """A step's error as the scenario's: bad input placed on its file and line."""
    if isinstance(exc, OrderError):
        line = next((_line(x) for lines in s.orders.values() for x in lines if str(x) == exc.text), s.line)
        return ScenarioError(case.path, line, str(exc))
    if isinstance(exc, InputError) and not isinstance(exc, ScenarioError):
        return ScenarioError(case.path, s.line, str(exc))
    from ..engine.unsettled import unsettled

    exc = unsettled(exc, case.options, s.orders, mv)  # a rule of your own that leaves the step unsettled
    return ScenarioError(case.path, s.line, str(exc)) if isinstance(exc, InputError) else exc


def check_scenarios(cases: Sequence[Scenario]) -> list[ScenarioRun | Exception]:
    """Runs scenarios in lockstep, step by step, the phases waiting at each step adjudicated together
    (``batch.step_many``): the same runs as one at a time, in the same order. A scenario that cannot run
    (bad input, an engine defect) gives its exception in place of its run; the others are unaffected."""
    runs: list[ScenarioRun | Exception | None] = [None] * len(cases)
    positions = [case.start for case in cases]
    reports: list[list[StepReport]] = [[] for _ in cases]
    problems: list[list[str]] = [[] for _ in cases]
    waiting = [n for n, case in enumerate(cases) if case.steps]
    for n, case in enumerate(cases):
        if not case.steps:
            runs[n] = ScenarioRun(case, (), ())
    while waiting:
        done = step_many([(positions[n], cases[n].steps[len(reports[n])].orders) for n in waiting])
        still = []
        for n, report in zip(waiting, done):
            case = cases[n]
            i = len(reports[n])
            s = case.steps[i]
            if isinstance(report, Exception):
                runs[n] = _step_error(case, s, report, positions[n])
                continue
            reports[n].append(report)
            try:
                with _within(case.path, s.line):
                    problems[n] += check_step(case, i, report, s.expect)
            except Exception as exc:  # noqa: BLE001 - this scenario's own error, given back as its result
                runs[n] = exc
                continue
            positions[n] = report.after
            if i + 1 < len(case.steps):
                still.append(n)
            else:
                runs[n] = ScenarioRun(case, tuple(reports[n]), tuple(problems[n]))
        waiting = still
    return runs  # type: ignore[return-value]
