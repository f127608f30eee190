"""What a picture shows: frames (the multiverse after a step, the orders drawn on it, the step's
text), made from scenarios and game files as ``fivedp game`` tells them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ..model.kinds import Result
from ..errors import InputError
from ..model.multiverse import Multiverse
from ..model.orders import ResolvedOrder, OrderKind


@dataclass(frozen=True)
class DrawnOrder:
    """An order to draw, with its result (None where the picture does not know it)."""

    order: ResolvedOrder
    result: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Frame:
    """One position of the step selector: the multiverse after a step, the orders of the step drawn on
    it, and the step's text. ``step`` is the number of the step it shows (None for a position that is
    no step: the start, a game as it stands, the boards' records); ``label`` names the position in the
    selector (by default ``step N / M``)."""

    title: str
    mv: Multiverse
    orders: tuple[DrawnOrder, ...] = ()
    text: tuple[str, ...] = ()
    new_timelines: tuple[int, ...] = ()
    acting: frozenset[tuple[int, int]] = frozenset()
    phase: str = "movement"
    step: int | None = None
    label: str = ""



def _drawn_orders(report, lines: Mapping[str, Iterable[str]]) -> tuple[DrawnOrder, ...]:
    """The step's orders resolved against the multiverse they were given in, with their results."""
    from ..engine.step import read_orders

    results = {}
    for o in report.outcomes:
        results.setdefault((o.power, o.text), (o.result, o.reason))
    out = []
    seen = set()
    for _, r in read_orders(report.before, lines):
        if (r.power, r.text) in seen:
            continue
        seen.add((r.power, r.text))
        result, reason = results.get((r.power, r.text), (None, None))
        out.append(DrawnOrder(r, result, reason))
    return tuple(out)


def scenario_frames(path: str) -> tuple[str, list[Frame]]:
    """A scenario: each step, its multiverse after it, its orders, and its results as ``fivedp game``
    prints them (an order line that leaves boards out with the order it was read as, each disbanded
    unit with its board and why it went), so that units of many boards are told apart."""
    from ..files.scenarios import read_scenario, check_scenario

    scenario = read_scenario(path)
    run = check_scenario(scenario)
    title = f"{scenario.id}: {scenario.title}" if scenario.title else scenario.id
    frames = []
    if not run.reports:
        frames.append(Frame("Start", scenario.start, label="start"))
    for i, (report, step) in enumerate(zip(run.reports, scenario.steps), 1):
        frames.append(_step_frame(report, step.orders, i))
    return title, frames


def _step_frame(report, orders: Mapping[str, Iterable[str]], i: int) -> Frame:
    """Step ``i`` drawn: the multiverse after it, its orders with their results, its text."""
    from .text import step_lines

    lines = step_lines(report, i, detail=True)
    new = tuple(t for t in report.after.forks if t not in report.before.forks)
    acting = frozenset(b.key for b in report.before.heads if b.phase == report.phase)
    return Frame(lines[0], report.after, _drawn_orders(report, orders), tuple(lines[1:]), new, acting, report.phase,
                 step=i)


def game_frames(path: str) -> tuple[str, list[Frame]]:
    """A game: each step played, replayed from the game's start with the orders it recorded (as
    ``fivedp game export`` writes them), then the multiverse as it stands with the waiting orders."""
    from pathlib import Path

    from ..files.games import load_game

    title = f"Game {Path(path).stem}"
    return title, game_pictures(load_game(path), title)


def game_pictures(game, title: str, steps: list[Frame] | None = None) -> list[Frame]:
    """The frames of a game: ``steps`` (the steps played, drawn already; by default replayed here,
    or the boards' records when a replay does not reach the game), then the multiverse as it stands
    with the game's waiting orders (the server draws a player's own only)."""
    from ..engine.step import next_phase
    from ..game.play import reading

    mv = game.mv
    frames = list(steps) if steps is not None else game_steps(game, title)
    text = [f"Timelines: {len(mv.timelines)}, boards: {len(mv.boards)}, steps played: {len(game.history)}"]
    if mv.winner:
        text.append(f"{mv.winner} has won.")
    text.append(f"Next: {next_phase(mv)}" + (", waiting orders:" if game.pending else ", no orders waiting"))
    for power, lines in sorted(game.pending.items()):
        shown = []
        for line in lines:
            qualified = reading(mv, power, line)  # as fivedp game prints it: the board of every unit
            shown.append(line + (f" (read as {qualified})" if qualified else ""))
        text.append(f"  {power}: " + "; ".join(shown))
    acting = frozenset(b.key for b in mv.heads if b.phase == next_phase(mv))
    label = "now: as it stands, " + ("orders waiting" if game.pending else "no orders waiting")
    frames.append(Frame("Now", mv, (), tuple(text), acting=acting, label=label))
    return frames


def game_steps(game, title: str, replayed: int | None = None, known: list[Frame] | None = None) -> list[Frame]:
    """The steps a game played, replayed (``replayed``: only when there are at most that many), or
    else the boards as their records have them. ``known``: the frames of the game's first steps, as
    this function drew them for the same history earlier (a server keeps them while a game goes
    on): only the steps after them are replayed, from the multiverse the last of them ends in."""
    if not game.history:
        return []
    if replayed is not None and len(game.history) > replayed:
        return [_recorded_frame(game.mv, len(game.history))]
    frames = None
    if known and len(known) <= len(game.history) and [f.step for f in known] == list(range(1, len(known) + 1)):
        frames = _extended(game, list(known))
    if frames is None:
        frames = _replayed(game, title)
    return frames if frames is not None else [_recorded_frame(game.mv, len(game.history))]


def _extended(game, frames: list[Frame]) -> list[Frame] | None:
    """``frames`` (the first steps of the game, replayed) followed by the game's later steps, each
    replayed as a scenario's step is (``scenario_frames``); None when a replayed step's results are
    not those the history recorded, or the replay does not end where the game is."""
    from ..engine.step import step

    mv = frames[-1].mv
    for i in range(len(frames) + 1, len(game.history) + 1):
        entry = game.history[i - 1]
        orders = entry.get("orders", {})
        report = step(mv, orders)
        recorded: dict[str, set] = {}
        for r in entry.get("results", ()):
            recorded.setdefault(r["order"], set()).add(r["result"])
        got = {o.text: o.result for o in report.outcomes}
        if any(len(results) == 1 and got.get(text) not in results for text, results in recorded.items()):
            return None
        frames.append(_step_frame(report, orders, i))
        mv = report.after
    if set(mv.boards) != set(game.mv.boards):
        return None
    return frames


def _replayed(game, title: str) -> list[Frame] | None:
    """The game's steps replayed as a scenario; None when the replay does not end where the game is
    (then the boards' records are drawn instead)."""
    import tempfile
    from pathlib import Path

    from ..yaml_lines import dump_yaml

    from ..files.games import export_scenario

    scenario = export_scenario(game, title)
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "game.yaml"
        file.write_text(dump_yaml(scenario, sort_keys=False, allow_unicode=True), encoding="utf-8")
        try:
            _, frames = scenario_frames(str(file))
        except InputError:
            return None
    end = frames[-1].mv if frames else None
    if end is None or set(end.boards) != set(game.mv.boards):
        return None
    return frames


def _recorded_frame(mv: Multiverse, steps: int) -> Frame:
    """Every board with the orders it was fought with, from its record (a move marked by its decision)."""
    orders = []
    for board in mv.boards.values():
        if board.record is None:
            continue
        for r in board.record.orders:
            result = None
            if r.kind is OrderKind.MOVE and r.unit is not None:
                moved = board.record.decisions.get(("moves", (r.unit.timeline, r.unit.turn, r.unit.province)))
                result = None if moved is None else (Result.SUCCEEDS if moved else Result.FAILS)
            orders.append(DrawnOrder(r, result))
    return Frame(f"Every board, with the orders it was fought with ({steps} steps)", mv, tuple(orders),
                 label=f"every board, from its record ({steps} steps)")
