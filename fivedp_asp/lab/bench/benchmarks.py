"""Benchmarks (``fivedp bench``): how long adjudication takes, and what it grows with.

- ``multiverse``: generated multiverses (``positions.synthetic_multiverse``) with a chosen number of
  heads (boards in play) and of boards of history; one movement step with ordinary orders on every
  head plus time-travel orders. Prints time per step, clingo's grounding and solving time, and the
  ground program's size.
- ``big``: one step on a map made of N disjoint copies of a DATC position (circular movement 6.C.1,
  Pandin's paradox 6.F.16, the betrayal paradox 6.F.18): how the time grows with independent
  paradoxes, and whether every copy comes out as the DATC says.
- ``game``, ``possible``, ``selfplay``: the game file commands, legal orders on a large game, games
  between bots. ``classic`` (against the reference adjudicator) is ``classic.py``'s, ``--profile``
  ``profile.py``'s, ``serve`` ``serve.py``'s.

Timings are wall-clock medians over repeated runs on this machine; no test asserts a time. The
benchmarks read no reason, so they adjudicate without them (``step.step``).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable

from ...model.map import load_map
from ...model.multiverse import Multiverse
from ...model.notation import timeline_name
from ...engine.step import step

from .classic import RecordedPhase, time_reference, uncached
from .positions import board_orders, copied_position, copies_as_datc, step_orders, synthetic_game, synthetic_multiverse


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


def reference_per_board(mv: Multiverse, orders: dict[str, list[str]], repeat: int) -> float | None:
    """The reference's median time a head board (best of ``repeat`` each) on ``board_orders``; None
    without the reference package."""
    import importlib.util

    if importlib.util.find_spec("diplomacy") is None:
        return None
    from ..compare.diplomacy_ref import DiplomacyReference
    from ...model.geography import Geography
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
        times.append(min(time_reference(phase, ref) for _ in range(repeat)))
    return statistics.median(times) * 1000


def bench_multiverse(heads: int, history: int, time_travel: int, repeat: int = 5, seed: int = 1) -> MultiverseRow:
    """One movement step on a synthetic multiverse (median of ``repeat``), and the reference on
    each of its head boards alone (``reference_per_board``)."""
    mv = synthetic_multiverse(heads, history)
    orders, made = step_orders(mv, time_travel, seed)
    times, grounds, solves = [], [], []
    report = None
    for _ in range(repeat):
        uncached()
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


def bench_possible(timelines: int, seed: int, repeat: int) -> list[dict]:
    """``api.legal_orders`` on ``random_game_until(timelines, seed)``: for the first power with units on the
    first head, all its orders, its moves, its orders into its second head's board, and one unit's;
    processor time (the best of ``repeat``) and the process's peak memory so far."""
    import resource

    from ...engine.possible import legal_orders

    from ...game.random_play import random_game_until

    game = random_game_until(timelines, seed)
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

    from ...files.games import load_game, save_game

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.yaml"
        game = synthetic_game(steps)
        started = time.perf_counter()
        save_game(path, game)
        save_s = time.perf_counter() - started
        unit = sorted(game.mv.heads[0].units.values(), key=lambda u: u.location)[0]
        order = f"{unit.letter} a-{game.mv.game_map.short_name(unit.location)}@{game.mv.heads[0].turn} H"

        def timed(*argv: str) -> float:
            uncached()  # as a command run as a program: nothing parsed before
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                status = command(list(argv))
            if status != 0:
                raise RuntimeError(f"fivedp {' '.join(argv)} exited {status}")
            return time.perf_counter() - started

        load = []
        for _ in range(repeat):
            uncached()
            started = time.perf_counter()
            load_game(path)
            load.append(time.perf_counter() - started)
        orders = [timed("game", "orders", str(path), "--power", unit.power, order) for _ in range(repeat)]
        show = [timed("game", "show", str(path)) for _ in range(repeat)]
        return {"steps": steps, "boards": len(game.mv.boards), "bytes": path.stat().st_size, "save_s": save_s,
                "load_s": statistics.median(load), "orders_s": statistics.median(orders),
                "show_s": statistics.median(show)}


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
        uncached()
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
