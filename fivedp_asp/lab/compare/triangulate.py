"""Triangulation: classic scenarios (or random games) through this engine and two or more references.

``fivedp compare --reference diplomacy --reference pydip PATH...`` compares each scenario step by
step with every reference (scenarios.compare_scenario; the references follow this engine's history) and
reports the steps where the references do not all say the same thing: which reference this engine
agrees with, and, for each reference it does not, whether that reference's difference is one of
its known deviations (the DATC case and its entry: diplomacy_deviations.py for diplomacy,
pydip_deviations.py for pydip) or unexplained. A step where the references agree with each other but
not with this engine is the strongest sign of a defect here, and is reported as such. ``--games N``
does the same over the random games of ``fivedp compare --games`` (this engine plays them; every
reference adjudicates each phase from this engine's position).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ...model.kinds import Phase
from ...files.scenarios import find_scenarios
from ...model.map import GameMap
from .reference import ReferenceAdjudicator
from .scenarios import compare_scenario


@dataclass(frozen=True)
class Reading:
    """One reference's view of one step, against this engine."""

    reference: str
    agrees: bool
    excused_by: tuple[str, ...]
    explanation: str
    differences: tuple[str, ...]  # as the comparison describes them


@dataclass(frozen=True)
class Split:
    """A step the references do not all read alike (or all read against this engine)."""

    scenario: str  # its id, or "game N" in a random game
    step: int
    season: str
    readings: tuple[Reading, ...]

    @property
    def siding(self) -> tuple[str, ...]:
        """The references this engine agrees with here."""
        return tuple(r.reference for r in self.readings if r.agrees)

    @property
    def against_all(self) -> bool:
        """Every reference differs from this engine, and all in the same way."""
        return not self.siding and len({r.differences for r in self.readings}) == 1


@dataclass
class Triangulation:
    steps: int = 0  # steps every reference compared
    all_agree: int = 0
    skipped: int = 0
    errors: int = 0
    splits: list = None  # type: ignore[assignment]
    sides: Counter = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.splits = []
        self.sides = Counter()


def triangulate(paths: Sequence[str], references: Sequence[ReferenceAdjudicator], game_map: GameMap) -> Triangulation:
    out = Triangulation()
    for path in find_scenarios(list(paths)):
        comps = [compare_scenario(Path(path), ref, game_map.name) for ref in references]
        if any(c.error for c in comps):
            out.errors += 1
            continue
        if any(c.skipped for c in comps) and not any(c.steps for c in comps):
            out.skipped += 1
            continue
        scenario_id = comps[0].scenario.id if comps[0].scenario else str(path)
        for steps in zip(*(c.steps for c in comps)):
            out.steps += 1
            readings = _readings(references, [s.run for s in steps])
            if all(r.agrees for r in readings):
                out.all_agree += 1
                continue
            split = Split(scenario_id, steps[0].index, steps[0].season, readings)
            out.splits.append(split)
            out.sides[split.siding or (("all, alike",) if split.against_all else ())] += 1
    return out


def _readings(references: Sequence[ReferenceAdjudicator], runs) -> tuple[Reading, ...]:
    return tuple(Reading(ref.title, run.verdict.agree, run.verdict.excused_by, run.verdict.explanation,
                         tuple(f"{d.subject}: fivedp {d.ours}, it {d.theirs}" for d in run.verdict.differences))
                 for ref, run in zip(references, runs))


def triangulate_games(references: Sequence[ReferenceAdjudicator], game_map: GameMap, *, games: int, seed: int,
                      years: int) -> Triangulation:
    """The random games of ``fivedp compare --games`` (the same seeds, so the same games), this engine
    playing them and every reference adjudicating each phase from this engine's position."""
    import random

    from ...engine.step import next_phase, step
    from ...model.geography import Geography
    from .judge import orders_dict, parse_given, play_phase
    from .lockstep import opening
    from ...game.random_orders import OrderGenerator
    from .reference import Position

    out = Triangulation()
    geo = Geography(game_map)
    for index in range(1, games + 1):
        gen = OrderGenerator(game_map, random.Random(f"fivedp-compare/{seed}/{index}"), 0.05)
        mv = opening(game_map)
        played = 0
        while True:
            board = mv.heads[0]
            phase = next_phase(mv)
            if board.turn >= 2 * years and phase == Phase.MOVEMENT:
                break
            given = parse_given(gen.orders(board, phase), game_map)
            try:
                report = step(mv, orders_dict(given), reasons=False)  # only the verdicts are read
            except Exception:  # noqa: BLE001 - counted; `fivedp compare --games` reports engine failures
                out.errors += 1
                break
            runs = [play_phase(mv, given, ref, geo, load=True, report=report) for ref in references]
            out.steps += 1
            played += 1
            readings = _readings(references, runs)
            if all(r.agrees for r in readings):
                out.all_agree += 1
            else:
                season = Position(board.turn, phase, frozenset(), {}).season
                split = Split(f"game {index}", played, season, readings)
                out.splits.append(split)
                out.sides[split.siding or (("all, alike",) if split.against_all else ())] += 1
            if any(run.theirs.ended for run in runs):
                break
            mv = report.after
    return out


def _why(r: Reading) -> str:
    if r.excused_by:
        return f"{r.reference} deviates, known: {', '.join(r.excused_by)} ({r.explanation})"
    return f"{r.reference} differs, unexplained (REAL): {'; '.join(r.differences[:3])}"


def triangulation_lines(t: Triangulation, references: Sequence[ReferenceAdjudicator], *,
                        games: bool = False) -> list[str]:
    lines = []
    for s in t.splits:
        head = f"SPLIT {s.scenario} {'phase' if games else 'step'} {s.step} ({s.season}): "
        if s.siding:
            head += f"fivedp agrees with {', '.join(s.siding)}"
        elif s.against_all and all(r.excused_by for r in s.readings):
            head += "the references agree with each other against fivedp, each by a known deviation"
        elif s.against_all:
            head += "the references agree with each other, NOT with fivedp"
        else:
            head += "fivedp agrees with none of them"
        lines.append(head)
        lines += [f"  {_why(r)}" for r in s.readings if not r.agrees]
    names = " and ".join(r.title for r in references)
    lines.append(f"fivedp, {names}: {t.steps} {'phases' if games else 'steps'} compared by all"
                 + (f" ({t.skipped} scenarios skipped: multiverse or not classic)" if t.skipped else "")
                 + (f", {t.errors} {'games stopped by an engine failure' if games else 'with errors'}"
                    if t.errors else ""))
    lines.append(f"  all agree: {t.all_agree}")
    lines.append(f"  the references disagree, or differ from fivedp: {len(t.splits)}")
    for side, n in sorted(t.sides.items(), key=lambda kv: -kv[1]):
        label = ("fivedp with " + ", ".join(side)) if side and side != ("all, alike",) else \
            ("the references together against fivedp" if side else "fivedp with none")
        lines.append(f"    {label}: {n}")
    real = sum(1 for s in t.splits for r in s.readings if not r.agrees and not r.excused_by)
    lines.append(f"  unexplained differences (a reference's, or a defect of fivedp): {real}")
    return lines
