"""Scenario files: loading them with errors that name file and line, running them.

The keys are the contract of ``docs/case-format.md``; the start position is read by
``positions.py``, what each step expects by ``expectations.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from ..errors import InputError, OrderError, quoted
from ..inputs import LoadError
from ..yaml_lines import key_line, line_of, value_line, load_yaml, plain
from ..shapes import Anything, Choice, Fields, ListOf, MapOf, Opt, Text, Whole
from ..limits import MAX_TURN
from ..model.map import GameMap, load_map
from ..model.multiverse import PHASES, Multiverse
from ..model.options import RULES
from ..model.settings import Settings, problem as option_problem
from ..engine.userrules import validated
from ..engine.batch import step_many
from .expectations import (EXPECT_KEYS, RESULTS, _check_expect_shape, _check_expected_centres, _reason_kinds,
                           check_step, check_winner)
from .positions import ScenarioError, _key_line, _line, _list, _mapping, _power, _within
from .starts import read_start

if TYPE_CHECKING:
    from ..engine.step import StepReport

__all__ = ["Scenario", "ScenarioError", "ScenarioRun", "ScenarioStep", "check_scenario", "check_scenarios",
           "find_scenarios", "read_scenario", "read_start"]

SCENARIO_KEYS = {"id", "title", "description", "options", "start", "steps", "map"}
STEP_KEYS = {"orders", "expect", "note"}


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
    options: Settings = field(default_factory=Settings)  # the same value as ``start.options``
    # a start of several boards as written (plain values): what a game begun from it records as its start
    start_document: Mapping[str, Any] | None = None


_NAMED_UNITS = Opt(MapOf(Text(), Opt(ListOf(Text()))))
START_SCHEMA = Fields({"turn": Whole(0, MAX_TURN), "phase": Choice(PHASES), "units": _NAMED_UNITS,
                       "centers": _NAMED_UNITS, "dislodged": Opt(MapOf(Text(), Opt(ListOf(Anything())))),
                       "boards": Opt(MapOf(Text(numbers=True), Anything())), "forks": Opt(MapOf(Text(), Text(numbers=True)))})
SCENARIO_SCHEMA = Fields({"id": Text(numbers=True), "title": Opt(Text(numbers=True)), "description": Opt(Text(numbers=True)),
                      "options": Opt(MapOf(Text(), Anything())), "start": Opt(START_SCHEMA),
                      "steps": ListOf(Anything()), "map": Text()}, required=("id", "steps"))
"""The shape of a scenario file (docs/case-format.md), checked before its meaning; the steps are
checked one by one as they are read (``read_scenario``), with the messages of the scenario format."""


_PLACED = Opt(MapOf(Text(numbers=True), Opt(MapOf(Text(), Opt(ListOf(Text()))))))
STEP_SCHEMA = Fields({
    "orders": Opt(MapOf(Text(), Opt(ListOf(Text())))), "note": Anything(),
    "expect": Opt(Fields({"results": Opt(MapOf(Text(), Anything())), "reasons": Opt(MapOf(Text(), Anything())),
                          "dislodged": Opt(ListOf(Text())),
                          "boards": _PLACED, "retreats": _PLACED, "centers": _PLACED,
                          "timelines": Opt(ListOf(Text(numbers=True))), "phase": Anything(),
                          "in_play": Opt(ListOf(Text(numbers=True))), "dissolved": Opt(ListOf(Text(numbers=True))),
                          "sustained": Opt(MapOf(Text(), Anything())), "winner": Anything(),
                          "no_boards": Opt(ListOf(Text(numbers=True))), "rejudged": Opt(MapOf(Text(), Anything()))})),
})
"""The types within a step, checked after the step's own checks (which give the scenario format's messages)."""



_EMPTY_HINTS = {
    ("steps", "orders"): "write the orders, or 'orders: {}' for a step in which nobody orders anything",
    ("steps", "orders", "*"): "write its orders, or '[]' for none",
    ("steps", "expect"): "write what to expect, or leave 'expect' out",
    ("steps", "note"): "write the note, or leave it out",
    ("steps", "expect", "winner"): "write 'none' for no winner",
    ("steps", "expect", "sustained", "*"): "write 'none' for a centre that sustained no timeline",
    ("start", "units"): "write '{}' for a board without units, or leave it out for the map's opening position",
    ("start", "centers"): "write '{}' for no centre owned, or leave it out for every power's home centres",
    ("start", "boards", "*", "units"): "write '{}' for a board without units",
    ("start", "boards", "*", "centers"): "write '{}' for no centre owned, or leave it out for every power's home centres",
    ("start", "boards", "*", "orders"): "write the orders recorded on the board, or leave it out when its units held",
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
        SCENARIO_SCHEMA.check(data, "", path, 1)
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
        own = validated({RULES: plain(raw_options[rules_key])}, Path(path).parent) if rules_key is not None \
            else Settings()
    except InputError as exc:
        raise ScenarioError(path, _line(rules_key), str(exc)) from None
    for key, value in raw_options.items():
        reason = option_problem(str(key), value, own) if str(key) != RULES else None
        if reason:
            raise ScenarioError(path, _line(key), reason)
    # plain values, not the loader's line-numbered strings: options are saved in game files
    options = validated(plain(raw_options), Path(path).parent)
    with _within(path, _key_line(data, "start") or 1):
        start = read_start(data, game_map, options, path)
    steps = []
    steps_line = _key_line(data, "steps")
    for n, raw in enumerate(_list(data["steps"], "steps", path, steps_line)):
        with _within(path, value_line(data["steps"], n) or steps_line):
            steps.append(_step(raw, n, game_map, path, steps_line))
    several = isinstance(data.get("start"), Mapping) and "boards" in data["start"]
    return Scenario(str(data["id"]), str(data.get("title", "")), path, start, tuple(steps),
                    str(data.get("description", "") or ""), options, plain(data["start"]) if several else None)


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
    for key in ("results", "rejudged"):
        for line, result in (expect.get(key) or {}).items():
            if result not in RESULTS:
                raise ScenarioError(path, _line(line), f"result of {line!r} must be one of {', '.join(RESULTS)}")
    for line, want in (expect.get("reasons") or {}).items():
        _reason_kinds(line, want, path)
    STEP_SCHEMA.check(raw, f"step {n + 1}", path, line_of(raw) or steps_line)
    _check_expected_centres(expect, game_map, path)
    first = next(iter(raw), None)
    return ScenarioStep(orders, expect, _line(first))



def find_scenarios(paths: list[str]) -> Iterator[Path]:
    for p in paths:
        path = Path(p)
        if path.is_dir():
            yield from sorted(q for q in path.rglob("*") if q.suffix in (".yaml", ".yml"))
        elif path.exists():
            yield path
        else:
            raise InputError(f"{p}: no such file or directory")


@dataclass(frozen=True)
class ScenarioRun:
    scenario: Scenario
    reports: tuple[StepReport, ...]
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


def check_scenario(scenario: Scenario) -> ScenarioRun:
    run = check_scenarios([scenario])[0]
    if isinstance(run, Exception):
        raise run
    return run


def _step_error(scenario: Scenario, s: ScenarioStep, exc: Exception, mv: Multiverse | None = None) -> Exception:
    """A step's error as the scenario's: bad input placed on its file and line."""
    if isinstance(exc, OrderError):
        line = next((_line(x) for lines in s.orders.values() for x in lines if str(x) == exc.text), s.line)
        return ScenarioError(scenario.path, line, str(exc))
    if isinstance(exc, InputError) and not isinstance(exc, ScenarioError):
        return ScenarioError(scenario.path, s.line, str(exc))
    from ..engine.unsettled import unsettled

    exc = unsettled(exc, scenario.options, s.orders, mv)  # a rule of your own that leaves the step unsettled
    return ScenarioError(scenario.path, s.line, str(exc)) if isinstance(exc, InputError) else exc


def _after_win(scenario: Scenario, first: int, mv: Multiverse) -> list[str]:
    """The steps from ``first`` (counted from 0) on, which come after the game was won: the game is over
    (docs/rules.md §6.7), so none is adjudicated. Such a step gives no orders and may expect only
    ``winner`` (checked against the standing); any other is refused, with its line, rather than played
    as if the game went on."""
    problems = []
    for i in range(first, len(scenario.steps)):
        s = scenario.steps[i]
        extra = sorted(str(k) for k in s.expect if str(k) != "winner")
        if any(s.orders.values()) or extra:
            what = "gives orders" if any(s.orders.values()) else f"expects {', '.join(map(repr, extra))}"
            raise ScenarioError(scenario.path, s.line,
                                f"step {i + 1} {what}, but {mv.winner} won the game in step {first}: no step "
                                "is played after a win (a step after it may only expect 'winner')")
        if "winner" in s.expect:
            with _within(scenario.path, s.line):
                problems += check_winner(f"step {i + 1} (after the win)", s.expect["winner"], mv, scenario.path)
    return problems


def check_scenarios(scenarios: Sequence[Scenario]) -> list[ScenarioRun | Exception]:
    """Runs scenarios in lockstep, step by step, the phases waiting at each step adjudicated together
    (``batch.step_many``): the same runs as one at a time, in the same order. A scenario that cannot run
    (bad input, an engine defect) gives its exception in place of its run; the others are unaffected."""
    runs: list[ScenarioRun | Exception | None] = [None] * len(scenarios)
    positions = [scenario.start for scenario in scenarios]
    reports: list[list[StepReport]] = [[] for _ in scenarios]
    problems: list[list[str]] = [[] for _ in scenarios]
    waiting = [n for n, scenario in enumerate(scenarios) if scenario.steps]
    for n, scenario in enumerate(scenarios):
        if not scenario.steps:
            runs[n] = ScenarioRun(scenario, (), ())
    while waiting:
        playing = []
        for n in waiting:
            if positions[n].winner is None:
                playing.append(n)
                continue
            try:
                problems[n] += _after_win(scenarios[n], len(reports[n]), positions[n])
            except ScenarioError as exc:
                runs[n] = exc
                continue
            runs[n] = ScenarioRun(scenarios[n], tuple(reports[n]), tuple(problems[n]))
        waiting = playing
        if not waiting:
            break
        done = step_many([(positions[n], scenarios[n].steps[len(reports[n])].orders) for n in waiting])
        still = []
        for n, report in zip(waiting, done):
            scenario = scenarios[n]
            i = len(reports[n])
            s = scenario.steps[i]
            if isinstance(report, Exception):
                runs[n] = _step_error(scenario, s, report, positions[n])
                continue
            reports[n].append(report)
            try:
                with _within(scenario.path, s.line):
                    problems[n] += check_step(scenario.path, i, report, s.expect)
            except Exception as exc:  # noqa: BLE001 - this scenario's own error, given back as its result
                runs[n] = exc
                continue
            positions[n] = report.after
            if i + 1 < len(scenario.steps):
                still.append(n)
            else:
                runs[n] = ScenarioRun(scenario, tuple(reports[n]), tuple(problems[n]))
        waiting = still
    return runs  # type: ignore[return-value]
