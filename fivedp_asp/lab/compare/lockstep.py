"""Random games played in lockstep by our engine and a reference.

Each game starts from the standard opening and runs through every phase kind (movement, retreats,
winter adjustments) for a number of years. Both engines get the same randomly drawn orders; after
each phase their per-order results, dislodged units, positions, pending retreats and supply centres
are compared (:mod:`judge`). A disagreement that one of the reference's documented deviations
explains is counted as excused with its DATC case; any other is shrunk (:mod:`minimize`) and written
as a scenario. After any disagreement the reference is put at our engine's position, so the game
goes on from one state. A game ends after its last winter, when the reference declares a winner, or
when our engine cannot adjudicate (an engine defect, also written out).
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generator, TextIO

from ...model.kinds import Result
from ...errors import AdjudicationError, EncodingError
from ...inputs import write_file
from ...model.map import GameMap
from ...model.multiverse import MOVEMENT, RETREAT, Multiverse
from ...model.multiverse import opening as standard_opening
from ...engine.step import StepReport, next_phase, step
from ...model.geography import Geography
from .judge import PhaseRun, Verdict, orders_dict, parse_given, play_phase
from .minimize import Repro, shrink, write_scenario
from ...game.random_orders import OrderGenerator
from .reference import Position, ReferenceAdjudicator


def opening(game_map: GameMap) -> Multiverse:
    """The map's starting position for lockstep play: a classic position with no players, so that no
    victory check ends a game the reference goes on playing."""
    return replace(standard_opening(game_map), players=())


@dataclass
class Finding:
    """A real disagreement (or an engine failure) and where it was written."""

    where: str  # "game 7, F1903M"
    summary: str
    path: Path | None = None
    problems: list[str] = field(default_factory=list)
    again: list[str] = field(default_factory=list)  # later phases with the same kind of disagreement


@dataclass
class Tally:
    phases: Counter = field(default_factory=Counter)  # by phase kind
    agree: int = 0
    excused: Counter = field(default_factory=Counter)  # by DATC case ids (a tuple)
    findings: list[Finding] = field(default_factory=list)
    seconds: Counter = field(default_factory=Counter)

    @property
    def compared(self) -> int:
        return sum(self.phases.values())

    def add(self, run: PhaseRun) -> None:
        self.phases[run.mv.heads[0].phase] += 1
        for k, v in run.seconds.items():
            self.seconds[k] += v
        if run.verdict.agree:
            self.agree += 1
        elif run.verdict.excused_by:
            self.excused[run.verdict.excused_by] += 1

    def merge(self, other: "Tally") -> None:
        self.phases.update(other.phases)
        self.agree += other.agree
        self.excused.update(other.excused)
        self.findings += other.findings
        self.seconds.update(other.seconds)


def _first(verdict: Verdict, reference: str) -> str:
    d = verdict.differences[0]
    more = f" (+{len(verdict.differences) - 1} more)" if len(verdict.differences) > 1 else ""
    return d.describe(reference) + more


def signature(run: PhaseRun) -> tuple:
    """What kind of disagreement this is, to write one scenario per kind: the verbs of the orders whose
    results differ (only those one engine refused, when there are such) with both results, or else the
    kinds of the differences."""
    by_text = {f"{g.power}: {g.text}": g for g in run.given}
    out = set()
    results = [d for d in run.verdict.differences if d.kind == "result" and d.subject in by_text]
    # an order one engine found illegal is the root of whatever else differs
    roots = [d for d in results if Result.INVALID in (d.ours, d.theirs)] or results
    for d in roots:
        order = by_text[d.subject].order
        out.add((type(order).__name__, getattr(order, "via_convoy", False), d.ours, d.theirs))
    if not out:
        out = {(d.kind,) for d in run.verdict.differences}
    return (run.mv.heads[0].phase, tuple(sorted(out)))


def play_game(index: int, seed: int, reference: ReferenceAdjudicator, game_map: GameMap, *, years: int,
              out: Path, illegal_share: float = 0.05, shrink_budget: int = 400,
              origin: str = "", seen: dict | None = None, replace: bool = True) -> Tally:
    """One game; ``seen`` (kind of disagreement -> its finding) is shared by the games of a run so
    that a kind found again is counted with its first scenario instead of written again."""
    game = _game(index, seed, reference, game_map, years=years, out=out, illegal_share=illegal_share,
                 shrink_budget=shrink_budget, origin=origin, seen=seen, replace=replace)
    try:
        mv, orders = next(game)
        while True:
            started = time.perf_counter()
            try:
                report: StepReport | Exception = step(mv, orders, reasons=False)  # judged, never printed
            except AdjudicationError as exc:
                report = exc
            mv, orders = game.send((report, time.perf_counter() - started))
    except StopIteration as stop:
        return stop.value


Request = tuple[Multiverse, dict]


def _game(index: int, seed: int, reference: ReferenceAdjudicator, game_map: GameMap, *, years: int,
          out: Path, illegal_share: float = 0.05, shrink_budget: int = 400,
          origin: str = "", seen: dict | None = None,
          replace: bool = True) -> Generator[Request, tuple[StepReport | Exception, float], Tally]:
    """One game as a generator: it yields each phase our engine must adjudicate, (position, orders),
    and is sent our report (or the engine's error) with the engine's time for it, so that many games
    can be adjudicated together. A scenario it writes into ``out`` replaces a file of its name only
    with ``replace``.
    The reference is put at the game's position before each of its phases, since games take turns."""
    seen = {} if seen is None else seen
    geo = Geography(game_map)
    rng = random.Random(f"fivedp-compare/{seed}/{index}")
    gen = OrderGenerator(game_map, rng, illegal_share)
    tally = Tally()
    mv = opening(game_map)
    reference.load(Position.of(mv.heads[0], game_map, geo))
    previous: PhaseRun | None = None
    while True:
        board = mv.heads[0]
        phase = next_phase(mv)
        if board.turn >= 2 * years and phase == MOVEMENT:
            break
        given = parse_given(gen.orders(board, phase), game_map)
        season = Position(board.turn, phase, frozenset(), {}).season
        where = f"game {index}, {season}"
        report, seconds = yield mv, orders_dict(given)
        try:
            if isinstance(report, Exception):
                raise report
            run = play_phase(mv, given, reference, geo, load=True, report=report, seconds=seconds)
        except EncodingError:
            raise  # the logic programs are broken: not a finding about the rules (exit 3)
        except AdjudicationError as exc:
            tally.findings.append(_engine_failure(mv, given, exc, where, out, seed, index, season, game_map, replace))
            break
        tally.add(run)
        if run.verdict.real:
            kind = signature(run)
            if kind in seen:
                seen[kind].again.append(where)
            else:
                started = time.perf_counter()
                finding = _write(run, previous, reference, geo, out=out, where=where, seed=seed, index=index,
                                 season=season, budget=shrink_budget, origin=origin, replace=replace)
                seen[kind] = finding
                tally.findings.append(finding)
                tally.seconds["shrink"] += time.perf_counter() - started
        if run.theirs.ended:
            break
        mv = run.report.after
        if run.verdict.differences or run.verdict.real:
            reference.load(Position.of(mv.heads[0], game_map, geo))
        previous = run
    return tally


_FINDING = "s{seed}-g{index:03d}-{season}{suffix}.yaml"
"""The name of a finding's scenario in ``--out DIR``: a disagreement, or (suffix ``-engine-error``) a
phase our engine could not adjudicate."""


def finding_patterns(seed: int, games: int) -> list[str]:
    """The names a run of games 1 to ``games`` may write into its folder (``fnmatch`` patterns, the
    season left open): what ``fivedp compare --out`` must not find there unless given ``--force``."""
    return [_FINDING.format(seed=seed, index=n, season="*", suffix="") for n in range(1, games + 1)]


def _write(run: PhaseRun, previous: PhaseRun | None, reference: ReferenceAdjudicator, geo: Geography, *,
           out: Path, where: str, seed: int, index: int, season: str, budget: int, origin: str,
           replace: bool = True) -> Finding:
    board = run.mv.heads[0]
    pre = None
    if board.phase == RETREAT and any(r.barred for r in board.retreats) and previous is not None:
        pre = (previous.mv.heads[0], previous.given)
    repro = Repro(board, list(run.given), pre)
    summary = _first(run.verdict, reference.title)
    path = out / _FINDING.format(seed=seed, index=index, season=season, suffix="")
    scenario_id = f"compare s{seed} g{index} {season}"
    try:
        small = shrink(repro, reference, geo, budget, frozenset(run.verdict.differences))
        runs, problems = write_scenario(path, small, reference, geo, scenario_id=scenario_id,
                                        origin=origin or f"random game {index} of seed {seed}", replace=replace)
    except Exception:  # noqa: BLE001 - a finding must be reported even if writing it fails
        return Finding(where, summary, None, [traceback.format_exc(limit=3)])
    last = runs[-1].verdict if runs else run.verdict
    if last.differences:
        summary = _first(last, reference.title)
    return Finding(where, summary, path, problems)


def _engine_failure(mv: Multiverse, given, exc: Exception, where: str, out: Path, seed: int, index: int,
                    season: str, game_map: GameMap, replace: bool = True) -> Finding:
    from .judge import orders_dict

    path = out / _FINDING.format(seed=seed, index=index, season=season, suffix="-engine-error")
    board = mv.heads[0]
    lines = [f"id: \"compare s{seed} g{index} {season} engine error\"",
             "description: |", f"  fivedp could not adjudicate this phase: {str(exc).splitlines()[0]}",
             f"  (the board is written as it stood; {len(board.units)} units)", "start:",
             f"  turn: {board.turn}", f"  phase: {board.phase}", "  units:"]
    for power in sorted({u.power for u in board.units.values()}):
        units = sorted(f"{u.letter} {game_map.short_name(u.location)}" for u in board.units.values() if u.power == power)
        lines.append(f"    {power}: [{', '.join(units)}]")
    lines.append("  centers:")
    for power in sorted(set(board.centers.values())):
        provs = sorted(game_map.short_name(p) for p, o in board.centers.items() if o == power)
        lines.append(f"    {power}: [{', '.join(provs)}]")
    lines.append("steps:")
    lines.append("  - orders:" if given else "  - orders: {}")  # a key with no value is refused
    for power, texts in orders_dict(given).items():
        lines.append(f"      {power}:")
        lines += [f"        - \"{t}\"" for t in texts]
    out.mkdir(parents=True, exist_ok=True)
    write_file(path, "\n".join(lines) + "\n", "scenario", replace=replace)
    return Finding(where, f"fivedp could not adjudicate: {str(exc).splitlines()[0]}", path)


def run_games(reference: ReferenceAdjudicator, game_map: GameMap, *, games: int, seed: int, years: int,
              out: Path, progress: TextIO | None = None, illegal_share: float = 0.05,
              origin: str = "", batch: int = 16, indices: range | None = None, replace: bool = True) -> Tally:
    """``games`` random games (those of ``indices``, 1 to ``games`` when not given), ``batch`` of them at a
    time in lockstep: the phases waiting in those games are adjudicated together (``batch.step_many``);
    each game's line is printed, in order, when its group of games has ended. Their findings go into
    ``out`` as ``finding_patterns`` names them, replacing a file there only with ``replace``."""
    from ...engine.batch import step_many

    progress = progress or sys.stderr
    total = Tally()
    seen: dict = {}
    indices = indices or range(1, games + 1)
    for first in range(0, len(indices), batch):
        started = {}
        finished: dict[int, tuple[Tally, float]] = {}
        running: dict[int, tuple[Generator, Request]] = {}
        for index in indices[first:first + batch]:
            started[index] = time.perf_counter()
            game = _game(index, seed, reference, game_map, years=years, out=out, illegal_share=illegal_share,
                         origin=origin, seen=seen, replace=replace)
            running[index] = (game, next(game))
        while running:
            order = sorted(running)
            t0 = time.perf_counter()
            # the games' reports are judged and never printed (a finding is adjudicated again, with reasons)
            reports = step_many([running[i][1] for i in order], reasons=False)
            share = (time.perf_counter() - t0) / len(order)
            for index, report in zip(order, reports):
                game, _ = running.pop(index)
                try:
                    # the engine's time for the phases adjudicated together is split evenly among them
                    running[index] = (game, game.send((report, share)))
                except StopIteration as stop:
                    finished[index] = (stop.value, time.perf_counter() - started[index])
        # games are reported and counted in their order, whichever ended first
        for index, (tally, seconds) in sorted(finished.items()):
            total.merge(tally)
            _progress(progress, index, games, tally, seen, seconds)
    return total


def _progress(progress: TextIO, index: int, games: int, tally: Tally, seen: dict, seconds: float) -> None:
    excused = sum(tally.excused.values())
    real = sum(1 for f in seen.values() for w in [f.where, *f.again] if w.startswith(f"game {index},"))
    cases = ", ".join(sorted({c for key in tally.excused for c in key}))
    print(f"game {index}/{games}: {tally.compared} phases, {tally.agree} agree, {excused} excused"
          f"{f' [{cases}]' if cases else ''}, {real} real  ({seconds:.1f} s)", file=progress, flush=True)


def _games_part(job: tuple) -> Tally:
    reference_name, indices, kwargs = job
    from ...model.map import load_map
    from .reference import get_reference

    game_map = load_map("standard")
    return run_games(get_reference(reference_name, game_map), game_map, indices=indices, **kwargs)


def run_games_parallel(reference_name: str, jobs: int, *, games: int, **kwargs) -> Tally:
    """``run_games`` over ``jobs`` worker processes, each with its own reference and its share of the
    games (every ``jobs``-th game). A kind of disagreement found by two workers is written by both."""
    from concurrent.futures import ProcessPoolExecutor

    total = Tally()
    parts = [(reference_name, range(1 + n, games + 1, jobs), {"games": games, **kwargs}) for n in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for tally in pool.map(_games_part, [p for p in parts if len(p[1])]):
            total.merge(tally)
    return total
