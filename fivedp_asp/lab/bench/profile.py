"""``fivedp bench --profile``: where a step's time goes, stage by stage (facts, grounding, solving,
reading the answer), with the programs' sizes; and the same for phases adjudicated together.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Sequence

from ...model.multiverse import Multiverse
from ...engine.batch import STAGES

from .classic import RecordedPhase, uncached


# -- where a step's time goes ----------------------------------------------------------------------

STAGE_NOTES = {
    "parse": "reading the order text (the parser's cache cleared) and checking the limits",
    "facts": "Python building the first program's facts",
    "add": "handing the encoding (cached syntax tree) and the facts' text to clingo",
    "ground": "clingo grounding",
    "solve": "the driver's solver calls and reading the model's shown atoms",
    "free": "releasing the program",
    "answer": "Python reading answers into results and positions, and building any later program's facts",
}


@dataclass(frozen=True)
class StageProfile:
    """Where one step's time went (seconds per stage, ``STAGES``), how many programs it grounded, and
    the size of its first program: statements handed to the grounder, ground rules and atoms."""

    phase: str
    seconds: dict[str, float]
    programs: tuple[str, ...]
    statements: int
    rules: int
    atoms: int


def profile_step(mv: Multiverse, orders, reasons: bool = False) -> StageProfile:
    """Runs one step as ``step.run`` does, timing each stage (``STAGES``); clingo's statistics are read
    for every program, which costs a little time outside the stages (about 0.4 ms a movement program). Without reasons unless asked,
    as the other benchmarks measure."""
    from ...solver.driver import encoding_size, solve_decisions, solve_in_universe
    from ...engine.step import steps as step_queries

    seconds = dict.fromkeys(STAGES, 0.0)
    programs: list[str] = []
    sizes: list[tuple[int, int, int]] = []
    uncached()
    t0 = time.perf_counter()
    queries = step_queries(mv, orders, statistics=True, reasons=reasons)
    t1 = time.perf_counter()
    seconds["parse"] = t1 - t0
    try:
        query = next(queries)
        seconds["facts"] = time.perf_counter() - t1
        building = "facts"  # the stage that spells a program's facts: the first program's, then later ones'
        while True:
            r0 = time.perf_counter()
            text = query.text() if query.universe is None else ""
            q0 = time.perf_counter()
            seconds[building] += q0 - r0
            building = "answer"
            if query.universe is not None:
                # answered as ``step.run`` answers it: on a program grounded once (not counted as grounded)
                solution = solve_in_universe(query.programs, query.universe, query.static)
            else:
                solution = solve_decisions(query.programs, text, query.static, statistics=True, names=query.names())
            q1 = time.perf_counter()
            seconds["add"] += solution.add_seconds
            seconds["ground"] += solution.ground_seconds - solution.add_seconds
            seconds["solve"] += solution.solve_seconds
            # what is left of the call is releasing the program (reading the statistics is not a stage)
            seconds["free"] += ((q1 - q0) - solution.ground_seconds - solution.solve_seconds
                                - solution.statistics_seconds)
            if query.universe is None:
                programs.append(query.programs[0].removesuffix(".lp"))
                sizes.append((encoding_size(query.programs, text, query.static, query.names()),
                              solution.rules_count, solution.atoms_count))
            q2 = time.perf_counter()
            try:
                query = queries.send(solution)
            finally:
                seconds["answer"] += time.perf_counter() - q2
    except StopIteration as stop:
        report = stop.value
    return StageProfile(report.phase, seconds, tuple(programs), *sizes[0])


def profile_rows(profiles: Sequence[StageProfile]) -> list[str]:
    """The median of each stage per phase kind, in milliseconds, and the programs and sizes."""
    by_phase: dict[str, list[StageProfile]] = {}
    for p in profiles:
        by_phase.setdefault(p.phase, []).append(p)
    lines = [f"{'phase':<11} {'n':>4} " + " ".join(f"{s:>7}" for s in STAGES)
             + f" {'total':>7} {'programs':>8} {'stmts':>6} {'rules':>7} {'atoms':>7}"]
    for phase, group in by_phase.items():
        med = {s: statistics.median(p.seconds[s] for p in group) * 1000 for s in STAGES}
        total = statistics.median(sum(p.seconds.values()) for p in group) * 1000
        n_programs = statistics.median(len(p.programs) for p in group)
        lines.append(f"{phase:<11} {len(group):>4} " + " ".join(f"{med[s]:>7.2f}" for s in STAGES)
                     + f" {total:>7.2f} {n_programs:>8.1f} {statistics.median(p.statements for p in group):>6.0f}"
                     f" {statistics.median(p.rules for p in group):>7.0f} {statistics.median(p.atoms for p in group):>7.0f}")
    return lines


@dataclass(frozen=True)
class BatchProfile:
    """Where the time of one group of phases adjudicated together went (``batch.Stages``), per phase."""

    phases: int
    seconds: dict[str, float]  # per phase
    programs: int  # programs grounded for the group
    alone: int  # phases answered again in a program of their own
    rules: float  # ground rules per phase, over every program
    atoms: float


def profile_batch(group: Sequence[RecordedPhase], repeat: int = 3) -> BatchProfile:
    """The phases adjudicated together as ``bench_batches`` times them (``batch.step_many``, without
    reasons), each stage timed; the fastest of ``repeat`` runs. clingo's statistics are read for every
    program, outside the stages."""
    from ...engine.batch import Stages, step_many

    best: Stages | None = None
    for _ in range(repeat):
        stages = Stages()
        uncached()
        step_many([(p.mv, p.orders) for p in group], statistics=True, reasons=False, stages=stages)
        if best is None or sum(stages.seconds.values()) < sum(best.seconds.values()):
            best = stages
    assert best is not None
    n = len(group)
    return BatchProfile(n, {k: v / n for k, v in best.seconds.items()}, best.programs, best.alone,
                        best.rules / n, best.atoms / n)


# what a stage holds when phases are adjudicated together, where it differs from one at a time
BATCH_STAGE_NOTES = {
    "facts": "Python building the phases' first programs' facts, and spelling every program's facts",
    "add": "handing each program's encoding (cached syntax tree) and facts' text to clingo",
    "answer": "Python sharing the joint answers out and reading them, and building later programs' facts",
}


def print_batch_profile(profiles: Sequence[BatchProfile]) -> None:
    """The median over groups of each stage per phase, in milliseconds, and the programs and sizes."""
    med = {s: statistics.median(p.seconds[s] for p in profiles) * 1000 for s in STAGES}
    total = statistics.median(sum(p.seconds.values()) for p in profiles) * 1000
    print(f"{'groups':>6} {'phases':>6} " + " ".join(f"{s:>7}" for s in STAGES)
          + f" {'total':>7} {'programs':>8} {'alone':>5} {'rules':>7} {'atoms':>7}")
    print(f"{len(profiles):>6} {sum(p.phases for p in profiles):>6} " + " ".join(f"{med[s]:>7.2f}" for s in STAGES)
          + f" {total:>7.2f} {statistics.median(p.programs for p in profiles):>8.1f}"
          f" {statistics.median(p.alone for p in profiles):>5.1f} {statistics.median(p.rules for p in profiles):>7.0f}"
          f" {statistics.median(p.atoms for p in profiles):>7.0f}")
    print("ms per phase: a group's stage times (its fastest run) over its phases, median over groups; programs: "
          "programs grounded a group; alone: phases a group answered again in a program of their own (the joint "
          "program left them open: several models); rules, atoms: ground rules and atoms a phase, every program")
    for s in STAGES:
        print(f"  {s:<7} {BATCH_STAGE_NOTES.get(s, STAGE_NOTES[s])}")


def print_profile(profiles_of_runs: Sequence[Sequence[StageProfile]]) -> None:
    """Prints the stage table of the fastest run of each step (``profile_rows``) and what the stages are."""
    best = [min(runs, key=lambda p: sum(p.seconds.values())) for runs in zip(*profiles_of_runs)]
    for line in profile_rows(best):
        print(line)
    print("ms per step, median over steps (each the fastest of its runs); programs: programs grounded a step;"
          " stmts, rules, atoms: the first program's encoding statements, ground rules and atoms")
    for s in STAGES:
        print(f"  {s:<7} {STAGE_NOTES[s]}")
