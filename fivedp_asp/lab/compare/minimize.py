"""A real disagreement as a small scenario: delta debugging, then a YAML file for ``fivedp check``.

A :class:`Repro` is the phase where the engines disagreed: the board, the orders, and for a retreat
phase whose standoff bars a scenario cannot state, the movement phase before it. Shrinking drops
units (with their orders), then single orders, then supply-centre ownerships, keeping each cut while
the engines still disagree in a way no documented deviation excuses (``ddmin``, Zeller and
Hildebrandt 2002, with the complements of the parts tried at each granularity).

The written scenario states the start position and the orders as both engines received them. Its
``expect`` holds only the results both engines agree on; the disputed ones are described in
``description`` with what each engine said, for a person to decide by DATC v3.1.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable, Sequence

from ...files.scenarios import read_scenario, check_scenario
from ...errors import AdjudicationError, InputError
from ...inputs import write_file
from ...model.map import GameMap
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, make_board, season_name, unit_text
from ...model.geography import Geography
from .judge import GivenOrder, PhaseRun, play_phase, single_board
from .reference import Position, ReferenceAdjudicator


@dataclass
class Repro:
    board: Board
    given: list[GivenOrder]
    pre: tuple[Board, list[GivenOrder]] | None = None  # the movement phase before a retreat phase


def _order_province(g: GivenOrder) -> str | None:
    unit = getattr(g.order, "unit", None)
    return unit.where.province if unit is not None else None


def run_repro(repro: Repro, reference: ReferenceAdjudicator, geo: Geography, reasons: bool = True) -> list[PhaseRun]:
    """The repro's phases through both engines, the reference put at the start position first and,
    after a phase where they disagreed, at our engine's position (as the lockstep games do).
    ``reasons``: our reasons in the runs' notes, which only the written scenario prints."""
    game_map = geo.map
    runs = []
    if repro.pre is not None:
        first = play_phase(single_board(game_map, repro.pre[0]), repro.pre[1], reference, geo, load=True,
                           reasons=reasons)
        runs.append(first)
        mv = first.report.after
        if mv.heads[0].phase != RETREAT:
            return runs
        runs.append(play_phase(mv, repro.given, reference, geo, load=bool(first.verdict.differences), reasons=reasons))
        return runs
    runs.append(play_phase(single_board(game_map, repro.board), repro.given, reference, geo, load=True,
                           reasons=reasons))
    return runs


def still_real(repro: Repro, reference: ReferenceAdjudicator, geo: Geography, focus: frozenset = frozenset()) -> bool:
    """The engines still disagree, no deviation excuses it, and (given a ``focus``) at least one of
    those differences is still there, so that shrinking does not wander off to another problem."""
    try:
        runs = run_repro(repro, reference, geo, reasons=False)  # shrinking only judges
    except AdjudicationError:
        return False
    wanted = RETREAT if repro.pre is not None else repro.board.phase
    for r in runs:
        if r.mv.heads[0].phase == wanted and r.verdict.real:
            diffs = set(r.verdict.differences)
            if not focus:
                return True
            # one original difference is still there, and no order's result disagrees in a new way
            if focus & diffs and all(d in focus for d in diffs if d.kind == "result"):
                return True
    return False


# -- delta debugging ---------------------------------------------------------------------------------


def ddmin(items: Sequence[Hashable], test: Callable[[list], bool], budget: list[int]) -> list:
    """A 1-minimal sublist of ``items`` for which ``test`` holds (``test(items)`` is assumed).
    ``budget[0]`` counts down the tests allowed; when it runs out the best so far is returned."""
    items = list(items)
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        size = -(-len(items) // n)
        parts = [items[i:i + size] for i in range(0, len(items), size)]
        for part in parts:
            if budget[0] <= 0:
                break
            rest = [x for x in items if x not in part]
            budget[0] -= 1
            if test(rest):
                items, n = rest, max(n - 1, 2)
                break
        else:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    if len(items) == 1 and budget[0] > 0:
        budget[0] -= 1
        if test([]):
            items = []
    return items


def _filtered(board: Board, units: set[str], centres: set[str]) -> Board:
    return make_board(board.timeline, board.turn, [u for p, u in board.units.items() if p in units],
                      {p: o for p, o in board.centers.items() if p in centres},
                      retreats=tuple(r for r in board.retreats if r.unit.province in units),
                      adjustment_due=board.adjustment_due)


def _with(repro: Repro, units: set[str], orders: set[int], centres: set[str], pre_orders: set[int]) -> Repro:
    if repro.pre is not None:
        board0, given0 = repro.pre
        board0 = _filtered(board0, units, centres)
        g0 = [g for i, g in enumerate(given0) if i in pre_orders
              and (_order_province(g) in units or _order_province(g) not in repro.pre[0].units)]
        given = [g for i, g in enumerate(repro.given) if i in orders]
        return Repro(repro.board, given, (board0, g0))
    board = _filtered(repro.board, units, centres)
    all_units = set(repro.board.units) | {r.unit.province for r in repro.board.retreats}
    given = [g for i, g in enumerate(repro.given) if i in orders
             and (_order_province(g) in units or _order_province(g) not in all_units)]
    return Repro(board, given)


def shrink(repro: Repro, reference: ReferenceAdjudicator, geo: Geography, budget: int = 400,
           focus: frozenset = frozenset()) -> Repro:
    base = repro.pre[0] if repro.pre is not None else repro.board
    units = set(base.units) | {r.unit.province for r in base.retreats}
    centres = set(base.centers)
    orders = set(range(len(repro.given)))
    pre_orders = set(range(len(repro.pre[1]))) if repro.pre is not None else set()
    left = [budget]

    def test(u=None, o=None, c=None, p=None) -> bool:
        if c is not None and centres and not c:
            return False  # with no centre owned at all the reference hands out home centres
        candidate = _with(repro, set(units if u is None else u), set(orders if o is None else o),
                          set(centres if c is None else c), set(pre_orders if p is None else p))
        return still_real(candidate, reference, geo, focus)

    units = set(ddmin(sorted(units), lambda xs: test(u=xs), left))
    if repro.pre is not None:
        pre_orders = set(ddmin(sorted(pre_orders), lambda xs: test(p=xs), left))
    orders = set(ddmin(sorted(orders), lambda xs: test(o=xs), left))
    centres = set(ddmin(sorted(centres), lambda xs: test(c=xs), left))
    return _with(repro, units, orders, centres, pre_orders)


# -- writing -----------------------------------------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 /().-]*[A-Za-z0-9)]\Z|[A-Za-z]\Z")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "none"}


def _q(text: str) -> str:
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS and ": " not in text and " #" not in text:
        return text
    return json.dumps(text)


def _flow(items: Sequence[str]) -> str:
    return "[" + ", ".join(_q(x) for x in items) + "]"


def _agreed(run: PhaseRun) -> dict[str, str]:
    counts: dict[str, int] = {}
    for g in run.given:
        counts[g.text] = counts.get(g.text, 0) + 1
    out = {}
    for i, g in enumerate(run.given):
        if counts[g.text] == 1 and run.ours.results[i] == run.theirs.results[i]:
            out[g.text] = run.ours.results[i]
    return out


def _orders_yaml(given: Sequence[GivenOrder], indent: str) -> list[str]:
    lines = []
    by_power: dict[str, list[str]] = {}
    for g in given:
        by_power.setdefault(g.power, []).append(g.text)
    if not by_power:
        return [f"{indent}orders: {{}}"]
    lines.append(f"{indent}orders:")
    for power, texts in by_power.items():
        lines.append(f"{indent}  {power}:")
        lines += [f"{indent}    - {_q(t)}" for t in texts]
    return lines


def _phase_title(board: Board) -> str:
    pos = Position(board.turn, board.phase, frozenset(), {})
    kind = {MOVEMENT: "movement", RETREAT: "retreats", ADJUSTMENT: "adjustments"}[board.phase]
    if board.phase == ADJUSTMENT:
        return f"Winter {1901 + (board.turn - 1) // 2} {kind} ({pos.season})"
    if board.phase == RETREAT:
        return f"{season_name(board.turn - 1)} {kind} ({pos.season})"
    return f"{season_name(board.turn)} {kind} ({pos.season})"


def scenario_yaml(repro: Repro, runs: list[PhaseRun], game_map: GameMap, *, scenario_id: str, origin: str,
                  reference: str) -> str:
    start = repro.pre[0] if repro.pre is not None else repro.board
    last = runs[-1]
    title = f"fivedp and {reference} disagree: {_phase_title(last.mv.heads[0])}"
    desc = [f"Found by {origin}, then shrunk by delta debugging.",
            f"fivedp and {reference} disagree on this phase:"]
    for d in last.verdict.differences:
        desc.append(f"  - {d.describe(reference)}")
    for i, g in enumerate(last.given):
        if last.ours.results[i] != last.theirs.results[i]:
            ours = last.ours.results[i] + (f" ({last.ours.notes[i]})" if last.ours.notes[i] else "")
            desc.append(f"  {g.power}: {g.text} -- fivedp: {ours}; {reference}: {last.theirs.notes[i]}")
    if repro.pre is not None:
        desc.append("The first step only sets up the retreats (the standoffs that bar them cannot be")
        desc.append("written in a start position); the disagreement is in the second step.")
        if runs[0].verdict.differences:
            desc.append(f"The engines differ on the first step too ({runs[0].verdict.explanation or 'see above'});")
            desc.append(f"{reference} was then put at fivedp's position, as in the game.")
    desc.append("expect lists only the results both engines agree on; decide the rest by DATC v3.1.")
    out = [f"id: {_q(scenario_id)}", f"title: {_q(title)}", "description: |"]
    out += [f"  {line}" for line in desc]
    out.append("start:")
    out.append(f"  turn: {start.turn}")
    out.append(f"  phase: {start.phase}")
    out.append("  units:")
    powers = sorted({u.power for u in start.units.values()})
    if not powers:
        out[-1] = "  units: {}"
    for power in powers:
        units = sorted((u for u in start.units.values() if u.power == power), key=lambda u: u.location)
        out.append(f"    {power}: {_flow([unit_text(u, game_map) for u in units])}")
    owners = sorted(set(start.centers.values()))
    if owners:
        out.append("  centers:")
        for power in owners:
            provs = sorted(p for p, o in start.centers.items() if o == power)
            out.append(f"    {power}: {_flow([game_map.short_name(p) for p in provs])}")
    else:
        out.append("  centers: {}")
    if start.retreats:
        out.append("  dislodged:")
        for power in sorted({r.unit.power for r in start.retreats}):
            out.append(f"    {power}:")
            for r in sorted((r for r in start.retreats if r.unit.power == power), key=lambda r: r.unit.location):
                item = f"{{unit: {_q(unit_text(r.unit, game_map))}"
                if r.attacker_from:
                    item += f", attacker_from: {_q(game_map.short_name(r.attacker_from))}"
                out.append(f"      - {item}}}")
    out.append("steps:")
    for run in runs:
        block = _orders_yaml(run.given, "    ")
        block[0] = "  - " + block[0].lstrip()
        out += block
        agreed = _agreed(run)
        if agreed:
            out.append("    expect:")
            out.append("      results:")
            out += [f"        {_q(text)}: {result}" for text, result in agreed.items()]
    return "\n".join(out) + "\n"


def write_scenario(path: Path, repro: Repro, reference: ReferenceAdjudicator, geo: Geography, *,
                   scenario_id: str, origin: str, replace: bool = True) -> tuple[list[PhaseRun], list[str]]:
    """Writes the scenario (over a file of its name only with ``replace``); returns the runs it records
    and any problem found reading it back."""
    runs = run_repro(repro, reference, geo)
    text = scenario_yaml(repro, runs, geo.map, scenario_id=scenario_id, origin=origin, reference=reference.title)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, text, "scenario", replace=replace)  # atomic: a scenario is never left half written
    try:  # the scenario must load, and our engine must meet the agreed expectations
        run = check_scenario(read_scenario(path))
    except (InputError, AdjudicationError) as exc:
        return runs, [f"the written scenario does not run: {exc}"]
    return runs, list(run.problems)
