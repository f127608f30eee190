"""The library API: everything ``fivedp`` does, for programs (docs/api.md).

Values are immutable: submitting orders or adjudicating returns a new :class:`Game`, the old one is
unchanged. Boards are addressed by name (``"a0"``, ``"b3"``, ``"b1@3"``), powers by name
(``"Germany"``), orders by the text a player writes, in any notation the command line reads. JSON
documents follow ``fivedp_asp/schema/fivedp.schema.json``.

Every function checks its arguments here, at the boundary, before anything else runs, so that a
caller's mistake is named where it was made rather than failing deep inside. What can come out is
documented (docs/api.md, "Errors"), all of it a subclass of :class:`FivedpError`:

- :class:`UsageError` (also a ``TypeError``): an argument of the wrong type;
- :class:`InputError` (also a ``ValueError``): a value that cannot be used — bad order text, an
  unknown board or power, a damaged file, a name with a NUL character, a limit exceeded;
- :class:`FileError` (an ``InputError``, also an ``OSError``): a file that cannot be read or written;
- :class:`AdjudicationError`: an engine defect.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping as _Mapping
from collections.abc import Sequence as _Sequence
from pathlib import Path
from typing import Any, Mapping, Sequence

from .files import games as _game
from .game import play as _play
from .game import state as _state
from .report import jsonout
from .files.scenarios import Scenario, ScenarioRun, read_scenario, check_scenario
from .files.scenarios import check_scenarios as _check_scenarios
from .errors import AdjudicationError, FileError, FivedpError, InputError, UsageError, quoted
from .game.play import Accepted, Duty, Submission
from .game.state import Game
from .files.layout import JsonRefused, load_json
from .inputs import check_order_lines, path_name
from .limits import MAX_FILE_BYTES, MAX_ORDERS
from .model.map import GameMap
from .model.map import load_map as _load_map
from .model.multiverse import Board, Multiverse, Unit, board_name, opening
from .model.options import RULES
from .model.settings import Settings
from .engine.userrules import validated
from .engine.possible import PossibleOrder
from .engine.possible import legal_orders as _legal_orders
from .engine.answer import OrderOutcome
from .solver.driver import time_limit as _time_limit
from .engine.step import StepReport
from .engine.step import next_phase as _next_phase
from .files.verify import Divergence, VerifyReport
from .files.verify import verify_game as _verify_game


# -- the boundary ------------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    """How a message names the type of a wrong argument."""
    return "None" if value is None else type(value).__name__


def _wrong(func: str, arg: str, expected: str, value: Any) -> UsageError:
    return UsageError(f"{func}(): {arg} must be {expected}, not {_kind(value)}")


def _need_game(func: str, value: Any, arg: str = "game") -> Game:
    if not isinstance(value, Game):
        raise _wrong(func, arg, "a Game", value)
    return value


def _need_report(func: str, value: Any) -> StepReport:
    if not isinstance(value, StepReport):
        raise _wrong(func, "report", "a StepReport", value)
    return value


def _need_text(func: str, arg: str, value: Any, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _wrong(func, arg, "a str" + (" or None" if optional else ""), value)
    return value


def _need_flag(func: str, arg: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _wrong(func, arg, "True or False", value)
    return value


def _need_seconds(func: str, value: Any) -> float | None:
    """A time limit: None (the default) or a number of seconds; its range is checked by the solver's
    ``check_time_limit`` (InputError)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise _wrong(func, "time_limit", "a number of seconds or None", value)
    return value


def _need_path(func: str, value: Any, what: str, arg: str = "path") -> str:
    """A file name (str or os.PathLike); bytes and every other type are a UsageError, a name with a
    NUL character an InputError (``inputs.path_name``)."""
    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise _wrong(func, arg, "a str or an os.PathLike", value)
    try:
        return path_name(value, what)
    except UsageError:  # a PathLike whose path is bytes
        raise _wrong(func, arg, "a str or an os.PathLike of a str", value) from None


def _need_sequence(func: str, arg: str, value: Any, item: str) -> list:
    """A list, tuple or other sequence; a str, bytes, a path or a mapping (which iterate, but are one
    thing) is a UsageError, as is a generator (which has no length to bound)."""
    if isinstance(value, (str, bytes, bytearray, os.PathLike, _Mapping)) or not isinstance(value, _Sequence):
        raise _wrong(func, arg, f"a list (or another sequence) of {item}", value)
    return value  # type: ignore[return-value]


def _need_lines(func: str, value: Any) -> list[str]:
    lines = _need_sequence(func, "lines", value, "str")
    if len(lines) > MAX_ORDERS:  # before looking at each line
        raise InputError(f"{len(lines):,} order lines (the limit is {MAX_ORDERS:,})")
    for n, line in enumerate(lines):
        if not isinstance(line, str):
            raise _wrong(func, f"lines[{n}]", "a str", line)
    out = list(lines)
    check_order_lines(out)  # the command line's checks: no control characters, UTF-8
    return out


def _need_options(func: str, value: Any) -> Settings:
    if value is None:
        return Settings()
    if not isinstance(value, _Mapping):
        raise _wrong(func, "options", "a mapping of option names to values, or None", value)
    for key, v in value.items():
        if not isinstance(key, str):
            raise _wrong(func, "an option's name", "a str", key)
        if key == RULES:  # rules of one's own: a mapping of names to logic files, checked by ``validated``
            if not isinstance(v, _Mapping):
                raise _wrong(func, f"option {quoted(key)}", "a mapping of rule names to logic files", v)
        elif not isinstance(v, (str, bool)):
            raise _wrong(func, f"option {quoted(key)}", "a str or a bool", v)
    return validated(value)


# -- the functions -----------------------------------------------------------------------------------


def load_map(name: str = "standard") -> GameMap:
    """A map by name (``standard``) or by the path of a map file."""
    return _load_map(_need_path("load_map", name, "map file", "name"))


def settings(options: Mapping[str, Any] | None = None) -> Settings:
    """The rule settings of an ``options`` mapping, as a scenario's ``options:`` writes them: names
    and values of ``fivedp_asp/model/options.py`` (unknown ones raise InputError), and under
    ``rules`` rules of your own, each file read and checked once, here."""
    return _need_options("settings", options)


def new_game(settings: Settings | None = None, *, map: str = "standard") -> Game:
    """A game from the map's opening position (Spring 1901, board ``a0``) under these rule settings
    (:func:`settings` builds them from a mapping; None: every option at its default)."""
    if settings is not None and not isinstance(settings, Settings):
        hint = " (fivedp_asp.settings(mapping) builds them from a mapping)" if isinstance(settings, _Mapping) else ""
        raise _wrong("new_game", "settings", f"a Settings or None{hint}", settings)
    game_map = load_map(_need_path("new_game", map, "map file", "map"))
    return _state.new_game(opening(game_map, settings if settings is not None else Settings()))


def load_scenario(path: str | Path) -> Scenario:
    """A scenario file (docs/case-format.md), checked."""
    return read_scenario(_need_path("load_scenario", path, "scenario"))


def run_scenario(path: str | Path, *, time_limit: float | None = None) -> ScenarioRun:
    """Adjudicates every step of a scenario and checks its expectations (``run.passed``, ``run.problems``).
    ``time_limit``: seconds for each program solved (default 600); beyond it, TimeLimitError (an InputError)."""
    checked = _need_path("run_scenario", path, "scenario")
    with _time_limit(_need_seconds("run_scenario", time_limit)):
        return check_scenario(read_scenario(checked))


def game_from_scenario(path: str | Path) -> Game:
    """A game that starts where the scenario starts (its root board and options); its steps are not played."""
    scenario = read_scenario(_need_path("game_from_scenario", path, "scenario"))
    return _state.new_game(scenario.start, scenario.start_document)


def load_game(path: str | Path) -> Game:
    """A game file written by ``fivedp game`` or :func:`save_game`."""
    return _game.load_game(_need_path("load_game", path, "game file"))


def save_game(game: Game, path: str | Path) -> None:
    """Writes the game file atomically (the old file stays whole until the new one is on disk; a
    symbolic link is written through to its target). A failure raises FileError naming the file."""
    _need_game("save_game", game)
    _game.save_game(_need_path("save_game", path, "game file"), game)


def submit_orders(game: Game, lines: Sequence[str], *, power: str | None = None, replace: bool = False,
                  check: bool = False, force: bool = False) -> Submission:
    """Orders for the next phase. ``power`` is read from each unit when not given (or from a
    ``Germany:`` prefix); a later order for a unit replaces its waiting one (``Submission.accepted``
    says which); ``replace`` first withdraws the power's waiting orders. Orders of another phase
    raise InputError naming the next phase, and so do more than ``limits.MAX_ORDERS`` lines (the
    command line's limit). The new game is ``Submission.game``.

    ``check`` asks the legality rules about each line (one adjudication on a copy): every
    ``Accepted`` then has ``legal`` and ``reason``, and an illegal line that would replace a legal
    waiting order is not taken but listed in ``Submission.refused`` (``force`` takes it anyway).
    Without ``check`` (the default) every line is taken, as before."""
    _need_game("submit_orders", game)
    checked = _need_lines("submit_orders", lines)
    _need_text("submit_orders", "power", power, optional=True)
    _need_flag("submit_orders", "replace", replace)
    _need_flag("submit_orders", "check", check)
    _need_flag("submit_orders", "force", force)
    return _play.submit_orders(game, power, checked, replace_all=replace, check=check, force=force)


def check_orders(game: Game) -> tuple[OrderOutcome, ...]:
    """The waiting orders the rules would ignore (result ``invalid``) and, in an adjustment phase, the
    legal ones that fail whatever else is ordered (result ``fails``: a build beyond the builds
    allowed, ...), each with its ``reason``."""
    return _play.check_orders(_need_game("check_orders", game))


def adjudicate(game: Game, *, time_limit: float | None = None, reasons: bool = True) -> tuple[Game, StepReport]:
    """Adjudicates the next phase with the waiting orders: the game after it, and the step's report
    (``report.outcomes``: every order with its result and reason). ``time_limit``: seconds for each
    program solved (default 600); a step not settled by then raises TimeLimitError (an InputError). A
    step that a rule of your own leaves with no single adjudication raises ``RuleError`` (an
    ``InputError``) naming the rule. ``reasons=False``: faster, the rules of reasons are not grounded;
    a legal order's outcome (and its history entry) then has no reason and no explanation, and an
    invalid order keeps its reason."""
    from .engine.unsettled import unsettled

    _need_game("adjudicate", game)
    reasons = _need_flag("adjudicate", "reasons", reasons)
    with _time_limit(_need_seconds("adjudicate", time_limit)):
        try:
            return _play.adjudicate(game, reasons=reasons)
        except AdjudicationError as exc:
            raise unsettled(exc, game.mv.options, game.pending, game.mv) from None


def adjudicate_many(games: Sequence[Game], *, time_limit: float | None = None,
                    reasons: bool = True) -> list[tuple[Game, StepReport] | Exception]:
    """:func:`adjudicate` for many independent games at once, their phases answered together in one
    program (faster than one by one when there are many); the same results, in the same order. A game
    that cannot be adjudicated gives its exception (``InputError``, ``AdjudicationError``) in its
    place. ``games`` must be a sequence of Game (a single Game, a str or a path is a UsageError).
    ``reasons`` as for :func:`adjudicate`."""
    from .engine.batch import step_many

    games = list(_need_sequence("adjudicate_many", "games", games, "Game"))
    for n, g in enumerate(games):
        _need_game("adjudicate_many", g, f"games[{n}]")
    seconds = _need_seconds("adjudicate_many", time_limit)
    reasons = _need_flag("adjudicate_many", "reasons", reasons)
    out: list[tuple[Game, StepReport] | Exception] = []
    over = {n: InputError(f"the game is over: {g.mv.winner} has won") for n, g in enumerate(games) if g.mv.winner}
    playing = [n for n in range(len(games)) if n not in over]
    with _time_limit(seconds):
        reports = dict(zip(playing, step_many([(games[n].mv, games[n].pending) for n in playing], reasons=reasons)))
    for n, game in enumerate(games):
        report = over.get(n) or reports[n]
        out.append(report if isinstance(report, Exception) else _play.adjudicate(game, report))
    return out


def run_scenarios(paths: Sequence[str | Path], *, time_limit: float | None = None) -> list[ScenarioRun | Exception]:
    """:func:`run_scenario` for many files, their steps adjudicated in lockstep (as ``fivedp check``
    does); a file that cannot be read or run gives its exception in its place. ``paths`` must be a
    sequence of file names: one str or path alone is a UsageError (it is not iterated)."""
    names = [_need_path("run_scenarios", p, "scenario", f"paths[{n}]")
             for n, p in enumerate(_need_sequence("run_scenarios", "paths", paths, "str or os.PathLike"))]
    seconds = _need_seconds("run_scenarios", time_limit)
    loaded: list[Scenario | Exception] = []
    for name in names:
        try:
            loaded.append(read_scenario(name))
        except InputError as exc:
            loaded.append(exc)
    with _time_limit(seconds):
        runs = iter(_check_scenarios([c for c in loaded if isinstance(c, Scenario)]))
    return [c if isinstance(c, Exception) else next(runs) for c in loaded]


def results(report: StepReport) -> tuple[OrderOutcome, ...]:
    """Every order line of a step with its result (``succeeds``, ``fails``, ``invalid``) and reason."""
    return _need_report("results", report).outcomes


def next_phase(game: Game) -> str | None:
    """``movement``, ``retreat`` or ``adjustment`` (or a phase a later version adds); None once won."""
    _need_game("next_phase", game)
    return None if game.mv.winner else _next_phase(game.mv)


def duties(game: Game) -> tuple[Duty, ...]:
    """What each power must do in the next phase, head by head: orders due, retreat options per
    dislodged unit, builds and disbands owed."""
    return _play.duties(_need_game("duties", game))


def legal_orders(game: Game, *, power: str | None = None, unit: str | None = None,
                 kind: str | Sequence[str] | None = None, to: str | None = None) -> tuple[PossibleOrder, ...]:
    """The orders the rules accept in the next phase, fully designated (``A a-Mun@2 - b-Mun@2``);
    ``kind`` keeps those of these kinds (``move``, ``support``, ...), ``to`` those whose destination is
    on that board (``b3``)."""
    _need_game("legal_orders", game)
    _need_text("legal_orders", "power", power, optional=True)
    _need_text("legal_orders", "unit", unit, optional=True)
    if kind is not None and not isinstance(kind, str):
        for k in _need_sequence("legal_orders", "kind", kind, "str"):
            _need_text("legal_orders", "kind", k)
    _need_text("legal_orders", "to", to, optional=True)
    return _legal_orders(game.mv, power=power, unit=unit, kind=kind, to=to)


def board(game: Game | Multiverse, name: str) -> Board:
    """The board with this name (any board, head or past); InputError when there is none."""
    return _board("board", game, name)


def _board(_func: str, game: Any, name: Any) -> Board:
    if not isinstance(game, (Game, Multiverse)):
        raise _wrong(_func, "game", "a Game or a Multiverse", game)
    _need_text(_func, "name", name)
    mv = game.mv if isinstance(game, Game) else game
    found = mv.find_board(name)
    if found is None:
        names = sorted(mv.boards)
        listed = ", ".join(board_name(*k) for k in names[:20]) + (f", … ({len(names):,} boards)" if len(names) > 20 else "")
        raise InputError(f"no board {quoted(name)} (boards: {listed})")
    return found


def board_units(game: Game | Multiverse, name: str) -> dict[str, Unit]:
    """The units of the board with this name, keyed by their province as printed (``"Mun"``,
    ``"Stp"``; the coast is the unit's own, ``unit_text``); ``board(...).units`` keys the same units
    by the engine's lower-case province ids (``"mun"``)."""
    found = _board("board_units", game, name)
    m = (game.mv if isinstance(game, Game) else game).game_map
    return {m.short_name(province): unit for province, unit in sorted(found.units.items())}


def heads(game: Game) -> tuple[Board, ...]:
    """The latest board of every timeline, in timeline order."""
    return _need_game("heads", game).mv.heads


def board_json(game: Game, name: str) -> dict:
    """A board as JSON (its units, centres, retreats and phase), and the orders given on it with their results."""
    _need_game("board_json", game)
    _need_text("board_json", "name", name)
    return jsonout.board_document(game, board(game, name))


def game_json(game: Game) -> dict:
    """The game as ``fivedp game show --json`` prints it: heads, forks, options, standing, what comes next."""
    return jsonout.game_document(_need_game("game_json", game))


def step_json(game: Game, report: StepReport) -> dict:
    """A step as ``fivedp game adjudicate --json`` prints it (``game`` is the game after the step,
    ``report`` the step's report, as :func:`adjudicate` returns both): ``kind: step``, the step
    (every order's outcome, dislodged and disbanded units, new timelines, changed boards) and what
    comes next."""
    return jsonout.game_step_document(_need_game("step_json", game), _need_report("step_json", report))


def history_json(game: Game) -> dict:
    """The steps played as ``fivedp game history --json`` prints them."""
    return jsonout.history_document(_need_game("history_json", game))


def to_json(game: Game) -> str:
    """The whole game (every board, waiting orders, history) as JSON; :func:`from_json` reads it back
    to the same game, and writing that again gives the same text."""
    return json.dumps(_game.game_data(_need_game("to_json", game)), indent=2, sort_keys=False)


def from_json(text: str) -> Game:
    """The game :func:`to_json` wrote. Refused (InputError) like a damaged game file: text that is not
    JSON, longer than the file-size limit, nested more than ``limits.MAX_DEPTH`` deep, with an integer
    of more than ``limits.MAX_NUMBER_DIGITS`` digits, a key twice in one object, ``NaN`` or
    ``Infinity``, or content that is not a consistent game."""
    if not isinstance(text, str):
        raise _wrong("from_json", "text", "a str", text)
    if len(text) > MAX_FILE_BYTES:
        raise InputError(f"<json>: too large ({len(text):,} characters; the limit is {MAX_FILE_BYTES:,})")
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"<json>: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    except JsonRefused as exc:
        raise InputError(f"<json>: {exc}") from None
    return _game.game_from_data(data, "<json>")


def schema() -> dict:
    """The JSON Schema of every document above (``format`` 1)."""
    return jsonout.load_schema()


def verify_game(game: Game) -> VerifyReport:
    """Replays the game from its recorded start with its recorded options and orders and compares every
    board, record, result, fork and the standing with it (``fivedp game verify``, docs/game-format.md):
    ``report.honest``, or ``report.divergence``, the first difference (step, board, part, recorded and
    replayed). A divergence is a result, not an exception; an engine defect raises AdjudicationError."""
    _need_game("verify_game", game)
    return _verify_game(game)


# the names these types had before "scenario" was the one word for them: kept for programs using them
Case = Scenario
CaseRun = ScenarioRun

__all__ = [
    "Accepted", "AdjudicationError", "Settings", "Board", "Case", "CaseRun", "Scenario", "ScenarioRun", "Duty", "FileError", "FivedpError", "Game", "GameMap", "OrderOutcome", "PossibleOrder", "StepReport", "Unit",
    "Submission", "adjudicate", "adjudicate_many", "board", "board_json", "board_units", "check_orders", "duties", "from_json", "game_from_scenario",
    "game_json", "heads", "history_json", "InputError", "legal_orders", "load_game", "load_map", "load_scenario", "new_game",
    "next_phase", "results", "run_scenario", "run_scenarios", "save_game", "schema", "settings", "step_json", "submit_orders", "to_json",
    "UsageError", "Divergence", "VerifyReport", "verify_game",
]

