"""The results as text: steps, boards and sustain phases in the lines ``fivedp adjudicate`` and
``fivedp game`` print, and the pictures (render.py) show beside each step.

Each function returns lines and prints nothing, so the command line, the pictures and the tests read
one wording. The JSON documents (jsonout.py) hold the same facts as data; the pieces both need (the
boards a step changed, why a unit was disbanded) live there, and this module reads them.
"""

from __future__ import annotations

from ..model.kinds import Phase
from ..engine.step import StepReport
from ..engine.answer import SustainResult
from ..engine.sustain import fraction_shares
from ..model.multiverse import Board, Multiverse, board_name, season_name, unit_text
from ..model.notation import timeline_name
from .jsonout import changed_boards, disband_reason

PHASE_TITLES = {Phase.MOVEMENT: "movement", Phase.RETREAT: "retreats", Phase.ADJUSTMENT: "adjustments",
                Phase.SUSTAIN: "sustain"}


def board_lines(mv: Multiverse, board: Board) -> list[str]:
    waiting = "" if board.phase == Phase.MOVEMENT else f", waiting for {board.phase}"
    lines = [f"  {board.name} ({season_name(board.turn)}){waiting}"]
    powers = sorted({u.power for u in board.units.values()} | {r.unit.power for r in board.retreats}
                    | set(board.centers.values()))
    for power in powers:
        units = sorted(unit_text(u, mv.game_map) for u in board.units.values() if u.power == power)
        centers = sorted(p.capitalize() for p, owner in board.centers.items() if owner == power)
        retreating = sorted(unit_text(r.unit, mv.game_map) for r in board.retreats if r.unit.power == power)
        text = f"    {power}: {', '.join(units) or '-'}"
        if retreating:
            text += f"; must retreat: {', '.join(retreating)}"
        lines.append(text + f"  [{len(centers)} centre{'' if len(centers) == 1 else 's'}: {', '.join(centers)}]")
    return lines


def _fraction_text(fraction: tuple[int, str, int]) -> str:
    own, power, voted = fraction
    return f"{timeline_name(own)} ({power}) -> {timeline_name(voted)}"


def sustain_lines(result: SustainResult, game_map) -> list[str]:
    """Per time centre the fractions cast and the timeline chosen, then the timelines dissolved."""
    lines = []
    for c in result.centres:
        name = game_map.provinces[c.center].name
        chosen = timeline_name(c.sustains) if c.sustains is not None else "nothing (no fraction cast)"
        cast = ", ".join(_fraction_text(f) for f in c.fractions) or "-"
        n = len(result.timelines)
        shares = "".join(f", {timeline_name(tl)} {k}/{n}" for tl, k in fraction_shares(c.fractions))
        lines.append(f"  {name}: {cast}; sustains {chosen}{' (' + shares[2:] + ')' if shares else ''}")
    dissolved = ", ".join(timeline_name(tl) for tl in result.dissolved) or "none"
    lines.append(f"  Dissolved: {dissolved}")
    return lines


def step_lines(report: StepReport, index: int, *, detail: bool = False) -> list[str]:
    """A step in words. ``detail`` (``fivedp game``) adds below each line that leaves boards out the
    fully designated order it was read as (``game.reading``), and why each disbanded unit went."""
    before = report.before
    if report.sustain is not None:
        timelines = ", ".join(timeline_name(tl) for tl in report.sustain.timelines)
        lines = [f"Step {index}: sustain phase of {1901 + report.sustain.year} (timelines in play: {timelines})"]
    else:
        acting = [b for b in before.heads if b.phase == report.phase]
        where = ", ".join(f"{b.name} ({season_name(b.turn)})" for b in acting)
        lines = [f"Step {index}: {PHASE_TITLES.get(report.phase, report.phase)} on {where}"]
    width = max((len(o.text) for o in report.outcomes), default=0)
    power = None
    for o in sorted(report.outcomes, key=lambda o: o.power):
        if o.power != power:
            power = o.power
            lines.append(f"  {power}")
        reason = f" ({o.reason})" if o.reason else ""
        lines.append(f"    {o.text.ljust(width)}  {o.result}{reason}")
        if detail:
            from ..game.play import reading

            qualified = reading(before, o.power, o.text)
            if qualified:
                lines.append(f"      read as {qualified}")
    if report.sustain is not None:
        lines += sustain_lines(report.sustain, before.game_map)
    for key, because in report.refought:
        lines.append(f"  Fought again: {board_name(*key)} (because of {'; '.join(because)})")
    if report.dislodged:
        def by(n: int, board: tuple[int, int]) -> str:
            # the attacker, without its board when it came from the victim's own board
            if n >= len(report.dislodgers):
                return ""
            letter, _, where = report.dislodgers[n].partition(" ")
            own = f"{timeline_name(board[0])}-"
            if where.startswith(own) and where.endswith(f"@{board[1]}"):
                where = where[len(own):-len(f"@{board[1]}")]
            return f" (by {letter} {where})"

        lines.append("  Dislodged: " + ", ".join(f"{unit_text(u, before.game_map)} on {before.boards[k].name}{by(n, k)}"
                                                 for n, (k, u) in enumerate(report.dislodged)))
    if report.disbanded:
        lines.append("  Disbanded: " + ", ".join(f"{unit_text(u, before.game_map)}" + (
            f" on {board_name(*k)} ({disband_reason(report, k, u)})" if detail else "")
            for k, u in report.disbanded))
    for note in report.backups:
        lines.append(f"  Backup rule: {note}")
    for tl, (parent, turn) in sorted(report.after.forks.items()):
        if tl not in report.before.forks:
            lines.append(f"  New timeline {timeline_name(tl)}: forked from {timeline_name(parent)}{turn}")
    changed = changed_boards(report)
    if changed or report.sustain is None:
        lines.append("  Positions:")
    for board in changed:
        lines += ["  " + line for line in board_lines(report.after, board)]
    return lines
