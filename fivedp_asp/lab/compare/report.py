"""The summaries ``fivedp compare`` prints at the end of a run."""

from __future__ import annotations

from collections import Counter

from ...model.multiverse import PHASES
from .judge import case_key
from .lockstep import Tally
from .scenarios import ScenarioTally


def _excused_lines(excused: Counter, deviations=None, found=None) -> list[str]:
    """Excused differences by DATC case: a phase excused by several cases counts for each. The
    reference's own list of deviations, when given, names them."""
    deviations = {} if deviations is None else deviations
    found = frozenset() if found is None else found
    by_case: Counter = Counter()
    for cases, n in excused.items():
        for case in cases:
            by_case[case] += n
    lines = []
    for case in sorted(by_case, key=case_key):
        origin = " (found by fivedp compare, not in the reference's documented list)" if case in found else ""
        lines.append(f"    {case:<7} {by_case[case]:>5}  {deviations.get(case, '')}{origin}")
    return lines


def games_summary(tally: Tally, *, reference: str, games: int, seed: int, years: int, elapsed: float,
                  deviations=None, found=None) -> list[str]:
    lines = [f"fivedp against {reference}: {games} games of {years} years, seed {seed}"]
    kinds = ", ".join(f"{k} {tally.phases[k]}" for k in PHASES if tally.phases[k])
    lines.append(f"  phases compared: {tally.compared} ({kinds})")
    lines.append(f"  agreements: {tally.agree}")
    excused = sum(tally.excused.values())
    lines.append(f"  excused differences: {excused} phases")
    lines += _excused_lines(tally.excused, deviations, found)
    total = sum(1 + len(f.again) for f in tally.findings)
    lines.append(f"  real disagreements: {total}" + (f" of {len(tally.findings)} kinds" if total else ""))
    for f in tally.findings:
        where = str(f.path) if f.path else "(not written)"
        again = f" (and {len(f.again)} more like it: {', '.join(f.again[:3])}{', ...' if len(f.again) > 3 else ''})" \
            if f.again else ""
        lines.append(f"    {where}  [{f.where}] {f.summary}{again}")
        lines += [f"      note: {p}" for p in f.problems]
    s = tally.seconds
    per_phase = 1000 * s["ours"] / max(tally.compared, 1)
    lines.append(f"  time: {elapsed:.1f} s; fivedp {s['ours']:.1f} s ({per_phase:.0f} ms a phase), "
                 f"{reference} {s['reference']:.1f} s, classifying {s['classify']:.1f} s, shrinking {s['shrink']:.1f} s")
    return lines


def scenarios_summary(tally: ScenarioTally, *, reference: str, deviations=None, found=None) -> list[str]:
    lines = [f"fivedp against {reference}: {tally.scenarios} scenarios"
             + (f" ({tally.skipped} skipped: multiverse or not classic)" if tally.skipped else "")
             + (f", {tally.errors} with errors" if tally.errors else "")]
    lines.append(f"  steps compared: {tally.steps}")
    lines.append(f"  agreements: {tally.agree}")
    lines.append(f"  excused differences: {sum(tally.excused.values())} steps")
    lines += _excused_lines(tally.excused, deviations, found)
    lines.append(f"  real disagreements: {len(tally.real)}" + (f" ({', '.join(tally.real)})" if tally.real else ""))
    lines.append(f"  time: {tally.seconds:.1f} s")
    return lines
