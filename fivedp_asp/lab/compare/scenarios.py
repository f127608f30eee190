"""Scenario files through both engines: every order whose result differs, every position that differs.

Only classic scenarios can be compared (one timeline, the standard map). Each step is adjudicated by
our engine and by the reference; the reference starts at the scenario's start position and, after a
step where the two differ, is put at our engine's position, so later steps compare like with like.
Differences are classified as in the random games (:mod:`judge`).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Iterator

from ...files.scenarios import Scenario, ScenarioError, find_scenarios, read_scenario
from ...errors import AdjudicationError, EncodingError, InputError
from ...model.map import GameMap
from ...model.multiverse import Board
from ...model.notation import parse_order
from ...model.options import REGISTRY, show
from ...model.orders import Where
from ...engine.step import next_phase
from ...model.geography import Geography
from .judge import PhaseRun, is_classic, parse_given, play_phase
from .reference import Position, ReferenceAdjudicator


@dataclass
class StepComparison:
    index: int  # 1-based step number
    season: str
    run: PhaseRun


@dataclass
class ScenarioComparison:
    path: Path
    scenario: Scenario | None = None
    steps: list[StepComparison] = field(default_factory=list)
    skipped: str | None = None  # why the scenario could not be compared
    error: str | None = None  # bad input or an engine failure

    @property
    def real(self) -> bool:
        return any(s.run.verdict.real for s in self.steps)


def _designations(value) -> bool:
    """Whether a parsed order names a timeline or a turn anywhere (time travel, or another board)."""
    if isinstance(value, Where):
        return value.timeline is not None or value.turn is not None
    if is_dataclass(value):
        return any(_designations(getattr(value, f.name)) for f in fields(value))
    return False


def multiverse_reason(scenario: Scenario) -> str | None:
    """Why a scenario is outside classic play, or None. The reference knows one board per turn: a
    scenario with options other than the defaults, or whose orders name a timeline or a turn, cannot
    be compared (its differences would not be disagreements about the classic rules)."""
    if scenario.options.rules:
        return "it carries rules of your own (options: rules)"
    for name, value in scenario.options.plain().items():
        if value != REGISTRY[name].default:
            return f"option {name} is {show(value)}, not its default"
    for i, s in enumerate(scenario.steps, 1):
        for lines in s.orders.values():
            for line in lines or ():
                try:
                    order = parse_order(str(line), scenario.start.game_map)
                except InputError:
                    continue  # reported as bad input when the step is played
                if _designations(order):
                    return f"step {i}: order {str(line)!r} names a timeline or a turn (time travel)"
    return None


def compare_scenario(path: Path, reference: ReferenceAdjudicator, game_map_name: str = "standard") -> ScenarioComparison:
    out = ScenarioComparison(path)
    try:
        scenario = read_scenario(path)
    except InputError as exc:
        out.error = str(exc)
        return out
    out.scenario = scenario
    mv = scenario.start
    if not is_classic(mv) or mv.game_map.name != game_map_name:
        out.skipped = "not a classic standard-map scenario"
        return out
    reason = multiverse_reason(scenario)
    if reason:
        out.skipped = f"a multiverse scenario ({reason})"
        return out
    geo = Geography(mv.game_map)
    load = True
    for i, s in enumerate(scenario.steps, 1):
        if not is_classic(mv):
            out.skipped = f"step {i} leaves classic play"
            break
        board: Board = mv.heads[0]
        phase = next_phase(mv)
        season = Position(board.turn, phase, frozenset(), {}).season
        try:
            given = parse_given(s.orders, mv.game_map)
            run = play_phase(mv, given, reference, geo, load=load, reasons=False)  # only the verdicts are printed
        except ScenarioError as exc:
            out.error = str(exc)
            break
        except InputError as exc:
            out.error = f"{path}: step {i}: {exc}"
            break
        except EncodingError:
            raise  # the logic programs are broken: no comparison can run (exit 3)
        except AdjudicationError as exc:
            out.error = f"{path}: step {i}: fivedp could not adjudicate: {str(exc).splitlines()[0]}"
            break
        out.steps.append(StepComparison(i, season, run))
        mv = run.report.after
        load = bool(run.verdict.differences)
        if run.theirs.ended:
            break
    return out


def compare_paths(paths: list[str], reference: ReferenceAdjudicator, game_map: GameMap) -> Iterator[ScenarioComparison]:
    for path in find_scenarios(paths):
        yield compare_scenario(path, reference, game_map.name)


@dataclass
class ScenarioTally:
    scenarios: int = 0
    skipped: int = 0
    errors: int = 0
    steps: int = 0
    agree: int = 0
    excused: Counter = field(default_factory=Counter)
    real: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, c: ScenarioComparison) -> None:
        self.scenarios += 1
        self.skipped += c.skipped is not None and not c.steps
        self.errors += c.error is not None
        for s in c.steps:
            self.steps += 1
            v = s.run.verdict
            if v.agree:
                self.agree += 1
            elif v.excused_by:
                self.excused[v.excused_by] += 1
            else:
                self.real.append(f"{c.scenario.id if c.scenario else c.path} step {s.index}")


def scenario_lines(c: ScenarioComparison, reference: str) -> list[str]:
    """What to print for one scenario: nothing when the engines agree throughout."""
    name = c.scenario.id if c.scenario else str(c.path)
    if c.error:
        return [f"ERROR {c.error}"]
    lines = []
    for s in c.steps:
        v = s.run.verdict
        if v.agree:
            continue
        tag = f"excused: {', '.join(v.excused_by)}" if v.excused_by else "REAL"
        lines.append(f"DIFF {name} step {s.index} ({s.season}) [{tag}]")
        lines += [f"  {d.describe(reference)}" for d in v.differences]
        if v.explanation and not v.excused_by:
            lines.append(f"  ({v.explanation})")
    if c.skipped and not c.steps:
        lines.append(f"skip {name}: {c.skipped}")
    return lines


def run_scenarios(paths: list[str], reference: ReferenceAdjudicator, game_map: GameMap, *, verbose: bool = False,
                  out=None) -> ScenarioTally:
    import sys

    out = out or sys.stdout
    tally = ScenarioTally()
    started = time.perf_counter()
    for c in compare_paths(paths, reference, game_map):
        tally.add(c)
        lines = scenario_lines(c, reference.title)
        if not lines and verbose and c.scenario:
            lines = [f"ok   {c.scenario.id}"]
        for line in lines:
            print(line, file=out)
    tally.seconds = time.perf_counter() - started
    return tally
