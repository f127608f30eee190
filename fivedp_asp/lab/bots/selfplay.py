"""Games between bots: ``fivedp selfplay`` and the games of ``fivedp explore --bot-games``.

Each game starts from the standard opening with the options given and is played step by step: every
power that is still in the game gets a :class:`~fivedp_asp.lab.bots.view.View` of it and its bot's order
lines, then the phase is adjudicated. A game ends when a power has won or after ``years`` game years
(twice as many movement steps: in a multiverse every head moves in each). A view's seed is drawn from
the run's secret, the game's number, the step and the power (``view_seed``), so that the same game
number under other options starts from the same draws (a study's columns). When only built-in bots
play, the secret is made of the run's seed, and a game is played again the same way; when a bot of your
own plays, it is drawn at random for the run, and that bot, in a process of its own
(bots/sandbox.py), is given only its own seed, a hash from which neither the secret nor another
power's seed can be worked out. Each power's tries (``View.simulate``) are counted by the runner per
phase (``view.Ledger``), whatever views a bot makes.

Many games are played in lockstep: each step, the phases all of them wait for are adjudicated
together (``batch.step_many``); a batch of games goes to a worker process or a Dask worker as a unit
(``check.workers.in_batches``), and comes back as plain data (:class:`Played`), with the game file's
text when it is to be written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ...engine.batch import step_many
from ...engine.step import next_phase
from ...errors import AdjudicationError, InputError, NotationError, UsageError, crash_message, quoted
from ...game.play import adjudicate
from ...game.state import Game, new_game
from ...model.map import GameMap, load_map
from ...model.multiverse import MOVEMENT, Multiverse, opening
from ...model.notation import parse_order, timeline_name
from ...model.settings import Settings
from .registry import Seats, is_builtin, load_bot
from .sandbox import Sandbox, answer_lines
from .view import DEFAULT_BUDGET, RUNNER, Ledger, Listings, View

BATCH = 8
"""Games played together in lockstep: the unit of work given to a worker."""


@dataclass(frozen=True)
class Table:
    """A game to play: its number (which, with the run's seed, seeds it) and its settings."""

    number: int
    options: Settings = field(default_factory=Settings)

    def __post_init__(self) -> None:
        if not isinstance(self.options, Settings):
            raise UsageError(f"Table: options must be a Settings, not {type(self.options).__name__}")


@dataclass(frozen=True)
class Played:
    """How a game ended, as plain data. ``centres``: each power's supply centres summed over the heads
    in play (in a classic game, the one board's); ``unique``: the distinct centres each power owns on
    some head in play; ``by_timeline``: per timeline in play, its head's centres by power. ``years``:
    movement steps played over two. ``text``: the game file, when asked for; ``error``: why the game
    stopped early (its next step could not be adjudicated), or None; ``status`` says what kind of
    problem that was, as exit statuses do: 2 input beyond what the engine takes, 3 an engine defect."""

    number: int
    winner: str | None
    steps: int
    years: float
    timelines: int
    in_play: int
    boards: int
    centres: Mapping[str, int]
    unique: Mapping[str, int]
    by_timeline: Mapping[str, Mapping[str, int]]
    eliminated: tuple[str, ...] = ()
    text: str | None = None
    error: str | None = None
    status: int = 0


def _counts(mv: Multiverse) -> tuple[dict[str, int], dict[str, int], dict[str, dict[str, int]]]:
    powers = mv.players or mv.game_map.powers
    summed = {p: 0 for p in powers}
    unique: dict[str, set[str]] = {p: set() for p in powers}
    per: dict[str, dict[str, int]] = {}
    for head in mv.heads:
        here = {p: 0 for p in powers}
        for province, owner in head.centers.items():
            if owner in here:
                here[owner] += 1
                summed[owner] += 1
                unique[owner].add(province)
        per[timeline_name(head.timeline)] = here
    return summed, {p: len(v) for p, v in unique.items()}, per


def played(number: int, game: Game, steps: int, moves: int, *, text: bool = False,
           error: str | None = None, status: int = 0) -> Played:
    """A game as it stands, summed up."""
    if not isinstance(game, Game):
        raise UsageError(f"played: game must be a Game, not {type(game).__name__}")
    mv = game.mv
    summed, unique, per = _counts(mv)
    file_text = None
    if text:
        from ...files.games import game_text

        file_text = game_text(game)
    return Played(number, mv.winner, steps, moves / 2, len(mv.timelines), len(mv.heads), len(mv.boards), summed,
                  unique, per, tuple(sorted(mv.eliminated)), file_text, error, status)


def run_secret(seed: int, seats: Seats) -> str:
    """The secret the views' seeds are drawn from: made of ``seed`` when only built-in bots play (the
    games are played again the same way), drawn at random when a bot of your own plays."""
    if all(is_builtin(name) for _, name in seats.bots):
        return f"fivedp-selfplay/{seed}"
    return "fivedp-selfplay-secret/" + secrets.token_hex(32)


def view_seed(secret: str, number: int, step: int, power: str, *, own: bool) -> str:
    """The seed of ``power``'s view at ``step`` of game ``number``. A built-in bot, which runs in the
    runner, gets the text itself; a bot of your own (``own``) a hash of it, which tells nothing of the
    secret."""
    text = f"{secret}/{number}/{step}/{power}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if own else text


def _check_lines(lines: Any, name: str, power: str, where: str, game_map: GameMap) -> list[str]:
    """A bot's answer as order lines, each one that can be read; InputError naming the bot otherwise."""
    lines = answer_lines(lines)
    if isinstance(lines, str):
        raise InputError(f"bot {quoted(name)} ({power}, {where}) {lines}")
    for line in lines:
        try:
            parse_order(line, game_map)
        except NotationError as exc:
            raise InputError(f"bot {quoted(name)} ({power}, {where}): order {quoted(line)}: {exc.problem}") from None
    return lines


def _orders(game: Game, seats: Seats, bots: Mapping[str, Any], secret: str, number: int, step: int, *,
            travel: bool, settings: tuple[Settings, ...], budget: int) -> dict[str, list[str]]:
    """Every power's orders for the game's next phase, from its bot: a built-in one called here, a bot
    of your own in its process (``bots[name]`` is then its :class:`Sandbox`); each power's tries
    counted by a ledger of its own for the phase."""
    mv = game.mv
    out: dict[str, list[str]] = {}
    # the built-in bots share one listing of the phase's legal orders (a bot of your own, in its own
    # process, lists its own)
    listings = Listings(mv)
    for power in mv.players:
        if power in mv.eliminated:
            continue
        name = seats.of(power)
        own = not is_builtin(name)
        view = View(game, power, view_seed(secret, number, step, power, own=own), settings, travel, budget,
                    listings=None if own else listings)
        where = f"game {number}, step {step + 1}"
        ledger = Ledger(budget)
        if own:
            lines = bots[name].call(view, ledger, f"{power}, {where}")
        else:
            token = RUNNER.set(ledger)
            try:
                lines = bots[name](view)
            finally:
                RUNNER.reset(token)
        lines = _check_lines(lines, name, power, where, mv.game_map)
        if lines:
            out[power] = lines
    return out


def play_tables(tables: Sequence[Table], seed: int, years: int, seats: Seats, *, travel: bool = False,
                settings: tuple[Settings, ...] = (), budget: int = DEFAULT_BUDGET, text: bool = False,
                game_map: GameMap | None = None, secret: str | None = None,
                time_limit: float | None = None) -> list[Played]:
    """The games of ``tables`` played in lockstep to a win or ``years`` years, each summed up (with its
    game file's text when ``text``). ``travel``: the bots play across boards. ``settings``: further
    option settings whose orders the bots may draw from (a study's other columns). ``secret``: the
    run's secret (``run_secret`` by default). ``time_limit``: seconds a call of a bot of your own may
    take."""
    if not isinstance(seats, Seats):
        raise UsageError(f"play_tables: seats must be Seats, not {type(seats).__name__}")
    with ExitStack() as stack:
        sandboxes = {name: stack.enter_context(Sandbox(name, time_limit))
                     for _, name in seats.bots if not is_builtin(name)}
        return _play(tables, seed, years, seats, sandboxes, travel=travel, settings=settings, budget=budget,
                     text=text, game_map=game_map, secret=secret)


def _play(tables: Sequence[Table], seed: int, years: int, seats: Seats, sandboxes: Mapping[str, Sandbox], *,
          travel: bool, settings: tuple[Settings, ...], budget: int, text: bool, game_map: GameMap | None,
          secret: str | None) -> list[Played]:
    for name, value in (("seed", seed), ("years", years), ("budget", budget)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"play_tables: {name} must be a whole number, not {value!r:.40}")
    if years < 1 or budget < 0:
        raise UsageError("play_tables: years must be at least 1 and budget at least 0")
    game_map = game_map or load_map("standard")
    if secret is not None and not isinstance(secret, str):
        raise UsageError(f"play_tables: secret must be text, not {type(secret).__name__}")
    secret = secret if secret is not None else run_secret(seed, seats)
    bots = {name: sandboxes[name] if name in sandboxes else load_bot(name) for _, name in seats.bots}
    games = [new_game(opening(game_map, t.options)) for t in tables]
    steps = [0] * len(tables)
    moves = [0] * len(tables)
    out: list[Played | None] = [None] * len(tables)
    limit = 8 * years + 8  # four phases a movement turn at most (movement, retreats, sustain, adjustments)
    playing = list(range(len(tables)))
    while playing:
        asked = []
        for i in playing:
            orders = _orders(games[i], seats, bots, secret, tables[i].number, steps[i], travel=travel,
                             settings=settings, budget=budget)
            games[i] = dataclasses.replace(games[i], pending=orders)
            asked.append((games[i].mv, orders))
        reports = step_many(asked, reasons=False)
        still = []
        for i, report in zip(playing, reports):
            if isinstance(report, Exception):
                why = str(report) if isinstance(report, (InputError, AdjudicationError)) \
                    else crash_message(report).splitlines()[0]
                out[i] = played(tables[i].number, dataclasses.replace(games[i], pending={}), steps[i], moves[i],
                                text=text, error=f"step {steps[i] + 1}: {why}",
                                status=2 if isinstance(report, InputError) else 3)
                continue
            games[i], _ = adjudicate(games[i], report, reasons=False)
            steps[i] += 1
            moves[i] += report.phase == MOVEMENT
            mv = games[i].mv
            if mv.winner or (moves[i] >= 2 * years and next_phase(mv) == MOVEMENT) or steps[i] >= limit:
                out[i] = played(tables[i].number, games[i], steps[i], moves[i], text=text)
                continue
            still.append(i)
        playing = still
    return [p for p in out if p is not None]


def play_batch(numbers: Sequence[int], seed: int, years: int, seats: Seats, options: Settings,
               travel: bool, budget: int, text: bool, secret: str | None = None,
               time_limit: float | None = None) -> list[Played]:
    """Games ``numbers`` under ``options``, as a worker plays a batch of them."""
    return play_tables([Table(n, options) for n in numbers], seed, years, seats, travel=travel, budget=budget,
                       text=text, secret=secret, time_limit=time_limit)


def play_games(count: int, seed: int, years: int, seats: Seats, *, options: Settings | None = None,
               travel: bool = False, budget: int = DEFAULT_BUDGET, text: bool = False, jobs: int = 1,
               scheduler: str | None = None, time_limit: float | None = None) -> Iterable[Played]:
    """Games 1 to ``count``, in order, a batch at a time (in worker processes with ``jobs``, on a Dask
    cluster with ``scheduler``), all from one secret (``run_secret``). ``time_limit``: seconds a call
    of a bot of your own may take."""
    from functools import partial

    from ..check.workers import in_batches

    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise UsageError(f"play_games: count must be a whole number of at least 1, not {count!r:.40}")
    if options is not None and not isinstance(options, Settings):
        raise UsageError(f"play_games: options must be a Settings, not {type(options).__name__}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise UsageError(f"play_games: time_limit must be a number of seconds above 0, not {time_limit!r:.40}")
    run = partial(play_batch, seed=seed, years=years, seats=seats, options=options or Settings(), travel=travel,
                  budget=budget, text=text, secret=run_secret(seed, seats), time_limit=time_limit)
    return in_batches(list(range(1, count + 1)), run, BATCH, jobs, scheduler=scheduler, what="games")


# -- reports --------------------------------------------------------------------------------------


def _centres_text(counts: Mapping[str, int]) -> str:
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{p} {n}" for p, n in ranked if n) or "none"


def game_lines(p: Played, multiverse: bool) -> list[str]:
    """One game's outcome, as ``fivedp selfplay`` prints it."""
    years = f"{p.years:g} year{'' if p.years == 1 else 's'}"
    end = f"{p.winner} won after {years}" if p.winner else f"no winner after {years}"
    timelines = f"{p.timelines} timeline{'' if p.timelines == 1 else 's'}"
    if p.in_play != p.timelines:
        timelines += f" ({p.in_play} in play)"
    lines = [f"  game {p.number}: {end}; {p.steps} steps, {timelines}, {p.boards} boards"]
    if p.error:
        lines.append(f"    stopped: {p.error}")
    if multiverse:
        lines.append(f"    centres summed over the heads: {_centres_text(p.centres)}")
        lines.append(f"    centres by name (unique): {_centres_text(p.unique)}")
        for tl, counts in p.by_timeline.items():
            lines.append(f"    {tl}: {_centres_text(counts)}")
    else:
        lines.append(f"    centres: {_centres_text(p.centres)}")
    if p.eliminated:
        lines.append(f"    eliminated: {', '.join(p.eliminated)}")
    return lines


def summary_lines(games: Sequence[Played], seats: Seats, multiverse: bool = False) -> list[str]:
    """Per power: its bot, its mean final centres (summed over the heads in a multiverse) and its wins."""
    if not games:
        return []
    summed = " (centres summed over the heads)" if multiverse else ""
    lines = [f"Summary of {len(games)} game{'' if len(games) == 1 else 's'}{summed}:"]
    for power, bot in seats.bots:
        mean = sum(g.centres.get(power, 0) for g in games) / len(games)
        wins = sum(1 for g in games if g.winner == power)
        lines.append(f"  {power:<8} {bot:<10} mean centres {mean:5.2f}, won {wins}")
    return lines


def game_json(p: Played, file: str | None = None) -> dict:
    out: dict[str, Any] = {
        "game": p.number, "winner": p.winner, "final_centres": dict(p.centres), "unique_centres": dict(p.unique),
        "by_timeline": {tl: dict(c) for tl, c in p.by_timeline.items()}, "steps": p.steps, "years": p.years,
        "timelines": p.timelines, "in_play": p.in_play, "boards": p.boards, "eliminated": list(p.eliminated),
        "error": p.error,
    }
    if file is not None:
        out["file"] = file
    return out
