"""Benchmarks (``fivedp bench``): how long adjudication takes, and what it grows with.

- ``multiverse``: generated multiverses with a chosen number of heads (boards in play) and of
  boards of history; one movement step with ordinary orders on every head plus time-travel orders.
  Prints time per step, clingo's grounding and solving time, and the ground program's size.
- ``classic``: recorded random-game phases through our whole pipeline and through the reference
  adjudicator (``fivedp_asp.compare``), median per phase and the ratio. The reference says of each
  order no more than a result code (bounce, cut, void, dislodged: what our results and dislodgements
  say without reasons), so ours are timed without reasons (``step(..., reasons=False)``), and again
  with them, so that what the reasons cost stays visible.
- ``big``: one step on a map made of N disjoint copies of a DATC position (circular movement 6.C.1,
  Pandin's paradox 6.F.16, the betrayal paradox 6.F.18): how the time grows with independent
  paradoxes, and whether every copy comes out as the DATC says.

Timings are wall-clock medians over repeated runs on this machine; no test asserts a time. The
benchmarks read no reason, so they adjudicate without them (``step.step``), the classic suite's
second column apart.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Sequence

from ..model.map import GameMap, load_map
from ..model.multiverse import Board, Multiverse, Record, Unit, make_board, opening
from ..model.notation import parse_order, timeline_name
from ..model.orders import Hold, Place, ResolvedOrder, UnitSpec, Where
from ..model.settings import Settings
from ..engine.batch import STAGES
from ..engine.step import step


def _holding_record(timeline: int, turn: int, units: list[Unit]) -> Record:
    """A record in which every unit held: a past that can be fought again."""
    orders = tuple(
        ResolvedOrder(u.power, f"{u.letter} {u.province} H", Hold(UnitSpec(Where(u.province, None, timeline, turn))),
                      "hold", Place(timeline, turn, u.province))
        for u in units)
    return Record(orders, (), MappingProxyType({}))


def synthetic_multiverse(heads: int, history: int, game_map: GameMap | None = None) -> Multiverse:
    """``heads`` timelines whose heads all stand at the same turn, with about ``history`` boards in all.

    Timeline a runs from turn 0; every other timeline forks from a board of a, spread over its turns,
    so that parents, children and siblings (the family adjacency) all occur. Every past board holds
    the opening position and a record in which all units held.
    """
    game_map = game_map or load_map("standard")
    units = list(opening(game_map).heads[0].units.values())
    centers = {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    # depth d: timeline a has d+1 boards, each other timeline about d/2 on average
    depth = max(2, round(2 * history / (heads + 1)))
    boards: dict[tuple[int, int], Board] = {}
    forks: dict[int, tuple[int, int]] = {}
    for t in range(heads):
        first = 0 if t == 0 else 1 + (t * 7) % (depth - 1)
        if t:
            forks[t] = (0, first - 1)
        for n in range(first, depth + 1):
            board = make_board(t, n, units, centers)
            if n < depth:
                board = Board(t, n, board.units, board.centers, record=_holding_record(t, n, units))
            boards[(t, n)] = board
    return Multiverse(game_map, MappingProxyType(boards), MappingProxyType(forks), players=tuple(game_map.powers))


def step_orders(mv: Multiverse, time_travel: int, seed: int) -> tuple[dict[str, list[str]], int]:
    """Orders for every unit on every head: most move to a neighbour or hold; ``time_travel`` of them
    move into the previous turn of their own timeline or of a neighbouring timeline."""
    rng = random.Random(seed)
    m = mv.game_map
    orders: dict[str, list[str]] = {}
    candidates = []
    for head in mv.heads:
        tl = timeline_name(head.timeline)
        for unit in head.units.values():
            here = f"{unit.letter} {tl}-{m.short_name(unit.location)}@{head.turn}"
            steps = sorted(b for a, b in m.edges(unit.kind) if a == unit.location)
            if steps and rng.random() < 0.7:
                line = f"{here} - {tl}-{m.short_name(rng.choice(steps))}@{head.turn}"
            else:
                line = f"{here} H"
            orders.setdefault(unit.power, []).append(line)
            candidates.append((head, unit, here, steps))
    made = 0
    for head, unit, here, steps in rng.sample(candidates, min(time_travel, len(candidates))):
        parent = mv.forks.get(head.timeline, (head.timeline, 0))[0]
        target_tl = rng.choice([head.timeline, parent])
        if mv.board(target_tl, head.turn - 1) is None:
            target_tl = head.timeline
        dest = rng.choice(steps) if steps and rng.random() < 0.5 else unit.location
        line = f"{here} - {timeline_name(target_tl)}-{m.short_name(dest)}@{head.turn - 1}"
        lines = orders[unit.power]
        lines[:] = [x for x in lines if not x.startswith(here + " ")] + [line]
        made += 1
    return orders, made


@dataclass(frozen=True)
class MultiverseRow:
    heads: int
    history: int
    orders: int
    time_travel: int
    step_ms: float
    ground_ms: float
    solve_ms: float
    atoms: int
    rules: int
    forks: int
    # the reference (the `diplomacy` package) on the same head boards, one at a time, with the orders
    # that stay on their board (a time-travel order holds there): ms a board, and ours a board over it;
    # None when the package is not installed
    reference_board_ms: float | None = None

    @property
    def ratio(self) -> float | None:
        """Our step's time a head over the reference's time a board."""
        if not self.reference_board_ms:
            return None
        return self.step_ms / self.heads / self.reference_board_ms


_ORDER_LINE = re.compile(r"([AF]) (\w+)-(\S+)@(\d+)(?: - (\w+)-(\S+)@(\d+)| H)\Z")


def board_orders(orders: dict[str, list[str]]) -> dict[tuple[str, int], dict[str, list[str]]]:
    """``step_orders``'s lines as each head board's own orders in the standard notation, by head
    (timeline name, turn): a move to its own board stays a move, a time-travel order becomes a hold.
    This is what the reference can adjudicate of the step, one board at a time."""
    out: dict[tuple[str, int], dict[str, list[str]]] = {}
    for power, lines in orders.items():
        for line in lines:
            m = _ORDER_LINE.match(line)
            if m is None:
                raise ValueError(f"not a line step_orders writes: {line!r}")
            letter, tl, prov, turn, tl2, prov2, turn2 = m.groups()
            stays = tl2 is not None and (tl2, turn2) == (tl, turn)
            classic = f"{letter} {prov} - {prov2}" if stays else f"{letter} {prov} H"
            out.setdefault((tl, int(turn)), {}).setdefault(power, []).append(classic)
    return out


def reference_per_board(mv: Multiverse, orders: dict[str, list[str]], repeat: int) -> float | None:
    """The reference's median time a head board (best of ``repeat`` each) on ``board_orders``; None
    without the reference package."""
    import importlib.util

    if importlib.util.find_spec("diplomacy") is None:
        return None
    from ..compare.diplomacy_ref import DiplomacyReference
    from ..compare.geo import Geography
    from ..compare.judge import parse_given
    from ..compare.reference import Position

    geo = Geography(mv.game_map)
    ref = DiplomacyReference(mv.game_map)
    heads = {(timeline_name(h.timeline), h.turn): h for h in mv.heads}
    times = []
    for key, lines in board_orders(orders).items():
        position = Position.of(heads[key], mv.game_map, geo)
        ref.load(position)
        theirs: dict[str, list[str]] = {}
        for g in parse_given(lines, mv.game_map):
            line = ref.translate(g)
            if line is not None:
                theirs.setdefault(g.power.upper(), []).append(line)
        phase = RecordedPhase(mv, lines, "movement", position, theirs)
        times.append(min(_time_reference(phase, ref) for _ in range(repeat)))
    return statistics.median(times) * 1000


def bench_multiverse(heads: int, history: int, time_travel: int, repeat: int = 5, seed: int = 1) -> MultiverseRow:
    """One movement step on a synthetic multiverse (median of ``repeat``), and the reference on
    each of its head boards alone (``reference_per_board``)."""
    mv = synthetic_multiverse(heads, history)
    orders, made = step_orders(mv, time_travel, seed)
    times, grounds, solves = [], [], []
    report = None
    for _ in range(repeat):
        _uncached()
        t0 = time.perf_counter()
        report = step(mv, orders, statistics=True, reasons=False)
        times.append(time.perf_counter() - t0)
        grounds.append(report.solution.ground_seconds)
        solves.append(report.solution.solve_seconds)
    assert report is not None and report.solution is not None
    return MultiverseRow(
        heads=heads, history=len(mv.boards), orders=sum(map(len, orders.values())), time_travel=made,
        step_ms=statistics.median(times) * 1000, ground_ms=statistics.median(grounds) * 1000,
        solve_ms=statistics.median(solves) * 1000, atoms=report.solution.atoms_count,
        rules=report.solution.rules_count, forks=len(report.after.timelines) - len(mv.timelines),
        reference_board_ms=reference_per_board(mv, orders, repeat))


MULTIVERSE_HEADER = (f"{'heads':>5} {'history':>7} {'orders':>6} {'travel':>6} {'step ms':>8} {'ground ms':>9} "
                     f"{'solve ms':>8} {'atoms':>7} {'rules':>7} {'forks':>5} {'ms/board':>8} {'ref ms':>6} {'ratio':>5}")


def format_row(r: MultiverseRow) -> str:
    return (f"{r.heads:>5} {r.history:>7} {r.orders:>6} {r.time_travel:>6} {r.step_ms:>8.1f} {r.ground_ms:>9.1f} "
            f"{r.solve_ms:>8.1f} {r.atoms:>7} {r.rules:>7} {r.forks:>5} {r.step_ms / r.heads:>8.2f} "
            + (f"{r.reference_board_ms:>6.2f} {r.ratio:>5.1f}" if r.ratio is not None else f"{'-':>6} {'-':>5}"))


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
    from ..solver.driver import encoding_size, solve_decisions, solve_in_universe
    from ..engine.step import steps as step_queries

    seconds = dict.fromkeys(STAGES, 0.0)
    programs: list[str] = []
    sizes: list[tuple[int, int, int]] = []
    _uncached()
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
    from ..engine.batch import Stages, step_many

    best: Stages | None = None
    for _ in range(repeat):
        stages = Stages()
        _uncached()
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


# -- classic: against the reference ----------------------------------------------------------------


@dataclass(frozen=True)
class RecordedPhase:
    mv: Multiverse  # the position before the phase, for our engine
    orders: dict[str, list[str]]  # our notation
    phase: str
    position: object  # the same position for the reference (compare.reference.Position)
    reference_orders: dict[str, list[str]]  # the same orders in the reference's notation


def record_phases(movement_phases: int, seed: int, game_map: GameMap | None = None) -> list[RecordedPhase]:
    """Plays seeded random games from the standard opening with our engine until ``movement_phases``
    movement phases are recorded, with every retreat and adjustment phase between them."""
    from ..compare.diplomacy_ref import DiplomacyReference
    from ..compare.geo import Geography
    from ..compare.judge import parse_given
    from ..compare.random_games import OrderGenerator
    from ..compare.reference import Position
    from ..engine.step import next_phase

    game_map = game_map or load_map("standard")
    geo = Geography(game_map)
    translator = DiplomacyReference(game_map)
    phases: list[RecordedPhase] = []
    movement = game = 0
    while movement < movement_phases:
        rng = random.Random(f"fivedp-bench/{seed}/{game}")
        gen = OrderGenerator(game_map, rng)
        # a real game: every power a player, so elimination and victory are checked after each phase
        mv = opening(game_map)
        for _ in range(60):  # phases per game: about ten years
            if movement >= movement_phases:
                break
            board, phase = mv.heads[0], next_phase(mv)
            orders = gen.orders(board, phase)
            given = parse_given(orders, game_map)
            position = Position.of(board, game_map, geo)
            translator.load(position)
            theirs: dict[str, list[str]] = {}
            for g in given:
                line = translator.translate(g)
                if line is not None:
                    theirs.setdefault(g.power.upper(), []).append(line)
            phases.append(RecordedPhase(mv, orders, phase, position, theirs))
            movement += phase == "movement"
            mv = step(mv, orders, reasons=False).after
            if mv.winner:
                break
        game += 1
    return phases


def _uncached() -> None:
    """Order text in: the timed run reads its orders afresh, not from the parser's cache."""
    parse_order.cache_clear()


def _time_ours(p: RecordedPhase, reasons: bool = False) -> float:
    _uncached()
    t0 = time.perf_counter()
    report = step(p.mv, p.orders, reasons=reasons)
    _ = [(o.result, o.reason) for o in report.outcomes], report.after.heads  # results and positions out
    return time.perf_counter() - t0


def _time_reference(p: RecordedPhase, ref) -> float:
    ref.load(p.position)  # positions are set up outside the timer, as ours are
    game = ref.game
    t0 = time.perf_counter()
    for power, lines in p.reference_orders.items():
        game.set_orders(power, lines)
    game.process()
    _ = game.result_history.last_value(), {n: (list(pw.units), list(pw.centers)) for n, pw in game.powers.items()}
    return time.perf_counter() - t0


def _time_ours_together(group: list[RecordedPhase], reasons: bool = False) -> float:
    from ..engine.batch import step_many

    _uncached()
    t0 = time.perf_counter()
    reports = step_many([(p.mv, p.orders) for p in group], reasons=reasons)
    _ = [[(o.result, o.reason) for o in r.outcomes] + [r.after.heads] for r in reports]  # results and positions out
    return time.perf_counter() - t0


def bench_batches(phases: list[RecordedPhase], batch: int, repeat: int, ref, progress=None) -> dict:
    """Per phase, ``batch`` phases adjudicated together (``batch.step_many``) against the reference one
    phase at a time: the time of each group (best of ``repeat``) over its size, median over groups.
    Ours without reasons (``ours_ms``) and, run alternately with it, with them (``ours_reasons_ms``)."""
    ours, reasoned, theirs = [], [], []
    groups = [phases[i:i + batch] for i in range(0, len(phases), batch)]
    for n, group in enumerate(groups):
        plain, full = _alternately(lambda: _time_ours_together(group), lambda: _time_ours_together(group, True), repeat)
        ours.append(plain / len(group))
        reasoned.append(full / len(group))
        theirs.append(sum(min(_time_reference(p, ref) for _ in range(repeat)) for p in group) / len(group))
        if progress:
            progress(n, len(groups))
    return {"batch": batch, "groups": len(groups), "phases": len(phases),
            "ours_ms": statistics.median(ours) * 1000, "ours_reasons_ms": statistics.median(reasoned) * 1000,
            "reference_ms": statistics.median(theirs) * 1000}


def _alternately(first: Callable[[], float], second: Callable[[], float], repeat: int) -> tuple[float, float]:
    """The best of ``repeat`` runs of each, the two run in turn (which goes first alternating too), so
    that a change in the machine's load falls on both alike."""
    a, b = [], []
    for k in range(repeat):
        if k % 2:
            b.append(second())
            a.append(first())
        else:
            a.append(first())
            b.append(second())
    return min(a), min(b)


def bench_classic(movement_phases: int = 500, seed: int = 1, repeat: int = 3, progress=None,
                  batch: int = 1) -> dict:
    """Median time per phase of both pipelines over the same recorded phases (best of ``repeat`` per phase);
    with ``batch`` above 1, the phases adjudicated ``batch`` at a time (``bench_batches``). Ours is
    timed without reasons (``ours_ms``; the reference gives result codes only) and, alternately with that, with
    them (``ours_reasons_ms``)."""
    from ..compare.reference import get_reference

    phases = record_phases(movement_phases, seed)
    ref = get_reference("diplomacy", load_map("standard"))
    if batch > 1:
        return bench_batches(phases, batch, repeat, ref, progress)
    ours: dict[str, list[float]] = {}
    reasoned: dict[str, list[float]] = {}
    theirs: dict[str, list[float]] = {}
    for i, p in enumerate(phases):
        plain, full = _alternately(lambda: _time_ours(p), lambda: _time_ours(p, True), repeat)
        ours.setdefault(p.phase, []).append(plain)
        reasoned.setdefault(p.phase, []).append(full)
        theirs.setdefault(p.phase, []).append(min(_time_reference(p, ref) for _ in range(repeat)))
        if progress and i % 100 == 0:
            progress(i, len(phases))

    def every(times: dict[str, list[float]]) -> list[float]:
        return [x for v in times.values() for x in v]

    return {
        "phases": {k: len(v) for k, v in ours.items()},
        "ours_ms": {k: statistics.median(v) * 1000 for k, v in ours.items()},
        "ours_reasons_ms": {k: statistics.median(v) * 1000 for k, v in reasoned.items()},
        "reference_ms": {k: statistics.median(v) * 1000 for k, v in theirs.items()},
        "ours_all_ms": statistics.median(every(ours)) * 1000,
        "ours_reasons_all_ms": statistics.median(every(reasoned)) * 1000,
        "reference_all_ms": statistics.median(every(theirs)) * 1000,
    }


# -- a random multiversal game ----------------------------------------------------------------------


def random_game(timelines: int = 28, seed: int = 1, options: Settings | None = None, max_steps: int = 400,
                phase: str = "movement"):
    """A game played at random from the opening until it has ``timelines`` timelines and waits for
    ``phase`` (``fivedp game possible`` and other benchmarks measure on it); None when that does not
    happen within ``max_steps`` steps. Every head gets the classic random generator's orders
    (compare/random_games.py, a few of them illegal); each movement step adds as many time-travel
    moves as ``timelines``, some supported, which fork timelines when they win. The same seed gives
    the same game. Seed 1 with 28 timelines: 274 boards."""
    from ..compare.random_games import OrderGenerator, Travel, multiverse_orders
    from ..game.state import new_game
    from ..engine.step import next_phase

    game_map = load_map("standard")
    rng = random.Random(f"fivedp-random-game/{seed}")
    gen = OrderGenerator(game_map, rng)
    mv = opening(game_map, options)
    start = new_game(mv)
    for _ in range(max_steps):
        now = next_phase(mv)
        if now == phase and len(mv.timelines) >= timelines:
            return replace(start, mv=mv)
        # as many time-travel moves as timelines wanted, each supported where a neighbour can: the
        # multiverse widens within a few years
        orders = multiverse_orders(mv, gen, rng, now, timelines, Travel(parent_same_turn=False, supported_moves=True),
                                   travel_replaces=True)
        mv = step(mv, orders, reasons=False).after
        if mv.winner:
            break
    return None


def bench_possible(timelines: int, seed: int, repeat: int) -> list[dict]:
    """``api.legal_orders`` on ``random_game(timelines, seed)``: for the first power with units on the
    first head, all its orders, its moves, its orders into its second head's board, and one unit's;
    processor time (the best of ``repeat``) and the process's peak memory so far."""
    import resource

    from ..engine.possible import legal_orders

    game = random_game(timelines, seed)
    mv = game.mv
    head = mv.heads[0]
    unit = sorted(head.units.values(), key=lambda u: u.location)[0]
    power = unit.power
    written = f"{unit.letter} {head.name[:-len(str(head.turn))]}-{mv.game_map.short_name(unit.location)}"
    other = mv.heads[1].name if len(mv.heads) > 1 else head.name
    questions = [(f"--power {power}", {"power": power}),
                 (f"--power {power} --kind move", {"power": power, "kind": "move"}),
                 (f"--power {power} --to {other}", {"power": power, "to": other}),
                 (f"--unit '{written}'", {"unit": written})]
    rows = []
    for label, kw in questions:
        best, count = float("inf"), 0
        for _ in range(repeat):
            started = time.process_time()
            count = len(legal_orders(mv, **kw))
            best = min(best, time.process_time() - started)
        rows.append({"question": label, "orders": count, "cpu_s": best, "boards": len(mv.boards),
                     "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
    return rows


# -- game: the game file commands -------------------------------------------------------------------


def synthetic_game(steps: int, heads: int = 8):
    """A game file's content as long games have it: ``heads`` timelines with about ``4 * steps`` past
    boards (each with a record), and ``steps`` history entries of 34 orders each."""
    from ..game.state import Game

    mv = synthetic_multiverse(heads, 4 * steps)
    head = mv.heads[0]
    lines = [f"{u.letter} {timeline_name(head.timeline)}-{mv.game_map.short_name(u.location)}@{head.turn} H"
             for u in sorted(head.units.values(), key=lambda u: u.location)]
    entry = {"phase": "movement", "boards": [head.name],
             "orders": {"Germany": lines},
             "results": [{"power": "Germany", "order": line, "result": "succeeds"} for line in lines]}
    history = tuple({**entry, "results": [dict(r) for r in entry["results"]]} for _ in range(steps))
    return Game(mv, {}, history, {})


def start_seconds(repeat: int) -> float:
    """What every ``fivedp`` command costs before it does anything: the interpreter's start and the
    package's imports (the fastest of ``repeat`` runs)."""
    import subprocess
    import sys

    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import fivedp_asp.cli"], check=True)
        times.append(time.perf_counter() - started)
    return min(times)


def bench_game(steps: int, repeat: int, command: Callable[[list[str]], int]) -> dict:
    """``fivedp game orders`` and ``fivedp game show`` on a game file of ``steps`` steps, in process
    (the interpreter's start, ``start_seconds``, comes on top); medians of ``repeat`` runs.
    ``command`` is the ``fivedp`` command's entry point (arguments in, exit status out), given by the
    command line that runs the benchmark, so the whole command is timed as a user runs it."""
    import contextlib
    import io
    import statistics
    import tempfile
    import time
    from pathlib import Path

    from ..files.games import load_game, save_game

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.yaml"
        game = synthetic_game(steps)
        started = time.perf_counter()
        save_game(path, game)
        save_s = time.perf_counter() - started
        unit = sorted(game.mv.heads[0].units.values(), key=lambda u: u.location)[0]
        order = f"{unit.letter} a-{game.mv.game_map.short_name(unit.location)}@{game.mv.heads[0].turn} H"

        def timed(*argv: str) -> float:
            _uncached()  # as a command run as a program: nothing parsed before
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                status = command(list(argv))
            if status != 0:
                raise RuntimeError(f"fivedp {' '.join(argv)} exited {status}")
            return time.perf_counter() - started

        load = []
        for _ in range(repeat):
            _uncached()
            started = time.perf_counter()
            load_game(path)
            load.append(time.perf_counter() - started)
        orders = [timed("game", "orders", str(path), "--power", unit.power, order) for _ in range(repeat)]
        show = [timed("game", "show", str(path)) for _ in range(repeat)]
        return {"steps": steps, "boards": len(game.mv.boards), "bytes": path.stat().st_size, "save_s": save_s,
                "load_s": statistics.median(load), "orders_s": statistics.median(orders),
                "show_s": statistics.median(show)}


# -- big: many independent copies of one DATC position in one step -----------------------------------


def _copy_tag(k: int) -> str:
    """Three letters naming copy ``k`` (``aaa``, ``aab``, ...): province ids stay plain identifiers, and
    a copy's province is written like any other (``Lonaab``)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[k // 676 % 26] + letters[k // 26 % 26] + letters[k % 26]


def copied_map(base: GameMap, provinces: set[str], copies: int) -> GameMap:
    """A map made of ``copies`` disjoint copies of ``provinces`` of ``base``, each with the adjacency
    among them that ``base`` has (an edge leaving the set is dropped). Copy k's province ``lon`` is
    ``lon`` followed by k's tag (``lonaab``, named ``London aab``); powers and coasts are ``base``'s."""
    from dataclasses import replace as _replace

    from ..model.map import Province

    provs: dict[str, Province] = {}
    army: set[tuple[str, str]] = set()
    fleet: set[tuple[str, str]] = set()

    def moved(loc: str, tag: str) -> str:
        prov, slash, coast = loc.partition("/")
        return f"{prov}{tag}{slash}{coast}"

    for k in range(copies):
        tag = _copy_tag(k)
        for pid in sorted(provinces):
            p = base.provinces[pid]
            provs[pid + tag] = _replace(p, id=pid + tag, name=f"{p.name} {tag}", aliases=(), capital=False)
        for edges, out in ((base.army_edges, army), (base.fleet_edges, fleet)):
            out.update((moved(a, tag), moved(b, tag)) for a, b in edges
                       if a.split("/")[0] in provinces and b.split("/")[0] in provinces)
    return GameMap(name=f"{base.name}-x{copies}", title=f"{copies} copies of {len(provinces)} provinces of {base.name}",
                   powers=base.powers, provinces=MappingProxyType(provs), coast_names=base.coast_names,
                   army_edges=frozenset(army), fleet_edges=frozenset(fleet), start=MappingProxyType({}),
                   power_aliases=base.power_aliases, coast_aliases=base.coast_aliases, source="<copies>")


@dataclass(frozen=True)
class Position:
    """A one-board DATC position: units (``F Ankara``, by power) and orders (by power), in the
    standard map's names."""

    units: dict[str, tuple[str, ...]]
    orders: dict[str, tuple[str, ...]]


# The positions of the big benchmark, as the DATC (v3.1, chapter 6) writes them.
POSITIONS = {
    "6.C.1": Position(
        {"Turkey": ("F Ankara", "A Constantinople", "A Smyrna")},
        {"Turkey": ("F Ankara - Constantinople", "A Constantinople - Smyrna", "A Smyrna - Ankara")}),
    "6.F.16": Position(
        {"England": ("F London", "F Wales"), "France": ("A Brest", "F English Channel"),
         "Germany": ("F North Sea", "F Belgium")},
        {"England": ("F London Supports F Wales - English Channel", "F Wales - English Channel"),
         "France": ("A Brest - London", "F English Channel Convoys A Brest - London"),
         "Germany": ("F North Sea Supports F Belgium - English Channel", "F Belgium - English Channel")}),
    "6.F.18": Position(
        {"England": ("F North Sea", "A London", "F English Channel"), "France": ("F Belgium",),
         "Germany": ("F Helgoland Bight", "F Skagerrak")},
        {"England": ("F North Sea Convoys A London - Belgium", "A London - Belgium",
                     "F English Channel Supports A London - Belgium"),
         "France": ("F Belgium Supports F North Sea",),
         "Germany": ("F Helgoland Bight Supports F Skagerrak - North Sea", "F Skagerrak - North Sea")}),
}

# What the DATC (v3.1, chapter 6) says each order of a position gives: 6.C.1 "All three units will
# move"; 6.F.16 (Szykman rule) the support of London is not cut, the Channel not dislodged, "none of the
# units succeed to move", and the convoy of the paradox fails; 6.F.18 (Szykman rule) the convoy fails,
# so the move of London fails and the support of Belgium is not cut.
DATC_RESULTS = {
    "6.C.1": {"F Ankara - Constantinople": "succeeds", "A Constantinople - Smyrna": "succeeds",
              "A Smyrna - Ankara": "succeeds"},
    "6.F.16": {"F London Supports F Wales - English Channel": "succeeds", "F Wales - English Channel": "fails",
               "A Brest - London": "fails", "F English Channel Convoys A Brest - London": "fails",
               "F North Sea Supports F Belgium - English Channel": "succeeds", "F Belgium - English Channel": "fails"},
    "6.F.18": {"F North Sea Convoys A London - Belgium": "fails", "A London - Belgium": "fails",
               "F English Channel Supports A London - Belgium": "succeeds", "F Belgium Supports F North Sea": "succeeds",
               "F Helgoland Bight Supports F Skagerrak - North Sea": "succeeds", "F Skagerrak - North Sea": "fails"},
}


@lru_cache(maxsize=4)
def _names(base: GameMap):
    """A pattern matching the province names of ``base`` (longest first), and each name's province."""
    import re

    names = sorted({p.name for p in base.provinces.values()}, key=len, reverse=True)
    return (re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b"),
            {p.name: p.id for p in base.provinces.values()})


def _rename(text: str, base: GameMap, tag: str) -> str:
    """``text`` with every province name of ``base`` in it replaced by its copy's (``London`` → ``Lonaab``)."""
    pattern, by_name = _names(base)
    return pattern.sub(lambda m: (by_name[m[1]] + tag).capitalize(), text)


def copied_position(name: str, copies: int) -> tuple[Multiverse, dict[str, list[str]], list[dict[str, list[str]]]]:
    """``copies`` copies of the DATC position ``name`` side by side on one board of a map made for
    them (``copied_map``): the multiverse, every copy's orders together, and each copy's orders apart."""
    import re

    base = load_map("standard")
    pos = POSITIONS[name]
    by_name = {p.name: p.id for p in base.provinces.values()}
    used = {by_name[n] for lines in (*pos.units.values(), *pos.orders.values()) for line in lines
            for n in by_name if re.search(rf"\b{re.escape(n)}\b", line)}
    game_map = copied_map(base, used, copies)
    units: list[Unit] = []
    orders: dict[str, list[str]] = {}
    per_copy: list[dict[str, list[str]]] = []
    for k in range(copies):
        tag = _copy_tag(k)
        for power, lines in pos.units.items():
            for line in lines:
                letter, _, where = line.partition(" ")
                units.append(Unit("army" if letter == "A" else "fleet", power, by_name[where] + tag))
        mine = {power: [_rename(line, base, tag) for line in lines] for power, lines in pos.orders.items()}
        per_copy.append(mine)
        for power, lines in mine.items():
            orders.setdefault(power, []).extend(lines)
    board = make_board(0, 0, units, {})
    mv = Multiverse(game_map, MappingProxyType({(0, 0): board}), MappingProxyType({}), players=tuple(game_map.powers))
    return mv, orders, per_copy


def copies_as_datc(name: str, copies: int, outcomes) -> int:
    """How many of the copies got, order for order, the results the DATC states for the single case."""
    base = load_map("standard")
    got = {o.text: o.result for o in outcomes}
    return sum(1 for k in range(copies)
               if all(got.get(_rename(line, base, _copy_tag(k))) == want for line, want in DATC_RESULTS[name].items()))


@dataclass(frozen=True)
class BigRow:
    position: str
    copies: int
    orders: int
    seconds: float
    backups: int
    as_datc: int


def bench_big(name: str, copies: int, repeat: int = 1) -> BigRow:
    """One movement step of ``copies`` copies of a DATC position side by side (``copied_position``):
    the best time of ``repeat`` runs, the backup rules applied and the copies that came out as the DATC says."""
    mv, orders, _ = copied_position(name, copies)
    times = []
    report = None
    for _ in range(repeat):
        _uncached()
        t0 = time.perf_counter()
        report = step(mv, orders, reasons=False)  # results and backup rules are read, no reason
        times.append(time.perf_counter() - t0)
    assert report is not None
    return BigRow(name, copies, sum(map(len, orders.values())), min(times), len(report.backups),
                  copies_as_datc(name, copies, report.outcomes))


BIG_RUNS = (("6.C.1", (128, 512, 1024)), ("6.F.18", (20, 100, 1000)), ("6.F.16", (20, 100, 1000)))


# -- games between bots ----------------------------------------------------------------------------


def bench_selfplay(games: int, years: int, seed: int, multiverse: bool, bot: str = "greedy") -> list[dict]:
    """Games of seven ``bot`` players from the standard opening, one at a time (seeds' games 1 to
    ``games``), each to a win or ``years`` years: per game its steps, timelines, and wall-clock and
    processor seconds (the bots' thinking, their tries on copies and the adjudication together)."""
    from ..bots.registry import parse_seats
    from ..bots.selfplay import Table, play_tables

    game_map = load_map("standard")
    seats = parse_seats([f"all={bot}"], game_map)
    rows = []
    for number in range(1, games + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        played = play_tables([Table(number)], seed, years, seats, travel=multiverse, game_map=game_map)[0]
        rows.append({"game": number, "steps": played.steps, "years": played.years, "timelines": played.timelines,
                     "boards": played.boards, "wall_s": time.perf_counter() - wall,
                     "cpu_s": time.process_time() - cpu, "error": played.error})
    return rows
