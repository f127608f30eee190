"""``fivedp bench classic``: recorded random-game phases through our whole pipeline and through the
reference adjudicator (``fivedp_asp.lab.compare``), median per phase and the ratio, one phase at a
time or several in one program. The reference says of each order no more than a result code, so ours
are timed without reasons, and again with them, so that what the reasons cost stays visible.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from ...model.kinds import Phase
from ...model.map import GameMap, load_map
from ...model.multiverse import Multiverse, opening
from ...model.notation import parse_order
from ...engine.step import step


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
    from ...model.geography import Geography
    from ..compare.judge import parse_given
    from ...game.random_orders import OrderGenerator
    from ..compare.reference import Position
    from ...engine.step import next_phase

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
            movement += phase == Phase.MOVEMENT
            mv = step(mv, orders, reasons=False).after
            if mv.winner:
                break
        game += 1
    return phases


def uncached() -> None:
    """Order text in: the timed run reads its orders afresh, not from the parser's cache."""
    parse_order.cache_clear()


def _time_ours(p: RecordedPhase, reasons: bool = False) -> float:
    uncached()
    t0 = time.perf_counter()
    report = step(p.mv, p.orders, reasons=reasons)
    _ = [(o.result, o.reason) for o in report.outcomes], report.after.heads  # results and positions out
    return time.perf_counter() - t0


def time_reference(p: RecordedPhase, ref) -> float:
    ref.load(p.position)  # positions are set up outside the timer, as ours are
    game = ref.game
    t0 = time.perf_counter()
    for power, lines in p.reference_orders.items():
        game.set_orders(power, lines)
    game.process()
    _ = game.result_history.last_value(), {n: (list(pw.units), list(pw.centers)) for n, pw in game.powers.items()}
    return time.perf_counter() - t0


def _time_ours_together(group: list[RecordedPhase], reasons: bool = False) -> float:
    from ...engine.batch import step_many

    uncached()
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
        theirs.append(sum(min(time_reference(p, ref) for _ in range(repeat)) for p in group) / len(group))
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
        theirs.setdefault(p.phase, []).append(min(time_reference(p, ref) for _ in range(repeat)))
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
