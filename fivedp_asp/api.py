"""The library API: everything ``fivedp`` does, for programs (docs/api.md).

Values are immutable: submitting orders or adjudicating returns a new :class:`Game`, the old one is
unchanged. Boards are addressed by name (``"a0"``, ``"b3"``, ``"b1@3"``), powers by name
(``"Germany"``), orders by the text a player writes, in any notation the command line reads. Bad
input raises :class:`InputError` (its message says what is wrong); an engine defect raises
:class:`AdjudicationError`. JSON documents follow ``fivedp_asp/schema/fivedp.schema.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import game as _game
from . import jsonout
from .cases import Case, CaseRun, load_case, run_case
from .cases import run_cases as _run_cases
from .errors import InputError
from .game import Accepted, Duty, Game, Submission
from .map import GameMap
from .map import load_map as _load_map
from .multiverse import Board, Multiverse, board_name, opening
from .options import validated
from .possible import PossibleOrder
from .possible import legal_orders as _legal_orders
from .results import OrderOutcome
from .step import StepReport
from .step import next_phase as _next_phase


def load_map(name: str = "standard") -> GameMap:
    """A map by name (``standard``) or by the path of a map file."""
    return _load_map(name)


def new_game(options: Mapping[str, Any] | None = None, *, map: str = "standard") -> Game:
    """A game from the map's opening position (Spring 1901, board ``a0``) with these rule options
    (names and values of ``fivedp_asp/options.py``; unknown ones raise InputError)."""
    return _game.new_game(opening(load_map(map), validated(options or {})))


def load_scenario(path: str | Path) -> Case:
    """A scenario file (docs/case-format.md), checked."""
    return load_case(path)


def run_scenario(path: str | Path) -> CaseRun:
    """Adjudicates every step of a scenario and checks its expectations (``run.passed``, ``run.problems``)."""
    return run_case(load_case(path))


def game_from_scenario(path: str | Path) -> Game:
    """A game that starts where the scenario starts (its root board and options); its steps are not played."""
    return _game.new_game(load_case(path).start)


def load_game(path: str | Path) -> Game:
    """A game file written by ``fivedp game`` or :func:`save_game`."""
    return _game.load_game(path)


def save_game(game: Game, path: str | Path) -> None:
    """Writes the game file atomically (the old file stays whole until the new one is on disk)."""
    _game.save_game(path, game)


def submit_orders(game: Game, lines: list[str], *, power: str | None = None, replace: bool = False) -> Submission:
    """Orders for the next phase. ``power`` is read from each unit when not given (or from a
    ``Germany:`` prefix); a later order for a unit replaces its waiting one (``Submission.accepted``
    says which); ``replace`` first withdraws the power's waiting orders. Orders of another phase
    raise InputError naming the next phase. The new game is ``Submission.game``."""
    return _game.submit_orders(game, power, lines, replace_all=replace)


def check_orders(game: Game) -> tuple[OrderOutcome, ...]:
    """The waiting orders the rules would ignore, each with its ``reason``."""
    return _game.check_orders(game)


def adjudicate(game: Game) -> tuple[Game, StepReport]:
    """Adjudicates the next phase with the waiting orders: the game after it, and the step's report
    (``report.outcomes``: every order with its result and reason). A step that a rule of your own
    leaves with no single adjudication raises ``RuleError`` (an ``InputError``) naming the rule."""
    from .errors import AdjudicationError
    from .userrules import unsettled

    try:
        return _game.adjudicate(game)
    except AdjudicationError as exc:
        raise unsettled(exc, game.mv.options, game.pending, game.mv) from None


def adjudicate_many(games: Sequence[Game]) -> list[tuple[Game, StepReport] | Exception]:
    """:func:`adjudicate` for many independent games at once, their phases answered together in one
    program (faster than one by one when there are many); the same results, in the same order. A game
    that cannot be adjudicated gives its exception (``InputError``, ``AdjudicationError``) in its place."""
    from .batch import step_many

    out: list[tuple[Game, StepReport] | Exception] = []
    over = {n: InputError(f"the game is over: {g.mv.winner} has won") for n, g in enumerate(games) if g.mv.winner}
    playing = [n for n in range(len(games)) if n not in over]
    reports = dict(zip(playing, step_many([(games[n].mv, games[n].pending) for n in playing])))
    for n, game in enumerate(games):
        report = over.get(n) or reports[n]
        out.append(report if isinstance(report, Exception) else _game.adjudicate(game, report))
    return out


def run_scenarios(paths: Sequence[str | Path]) -> list[CaseRun | Exception]:
    """:func:`run_scenario` for many files, their steps adjudicated in lockstep (as ``fivedp check``
    does); a file that cannot be read or run gives its exception in its place."""
    loaded: list[Case | Exception] = []
    for path in paths:
        try:
            loaded.append(load_case(path))
        except InputError as exc:
            loaded.append(exc)
    runs = iter(_run_cases([c for c in loaded if isinstance(c, Case)]))
    return [c if isinstance(c, Exception) else next(runs) for c in loaded]


def results(report: StepReport) -> tuple[OrderOutcome, ...]:
    """Every order line of a step with its result (``succeeds``, ``fails``, ``invalid``) and reason."""
    return report.outcomes


def next_phase(game: Game) -> str | None:
    """``movement``, ``retreat`` or ``adjustment`` (or a phase a later version adds); None once won."""
    return None if game.mv.winner else _next_phase(game.mv)


def duties(game: Game) -> tuple[Duty, ...]:
    """What each power must do in the next phase, head by head: orders due, retreat options per
    dislodged unit, builds and disbands owed."""
    return _game.duties(game)


def legal_orders(game: Game, *, power: str | None = None, unit: str | None = None) -> tuple[PossibleOrder, ...]:
    """The orders the rules accept in the next phase, fully designated (``A a-Mun@2 - b-Mun@2``)."""
    return _legal_orders(game.mv, power=power, unit=unit)


def board(game: Game | Multiverse, name: str) -> Board:
    """The board with this name (any board, head or past); InputError when there is none."""
    mv = game.mv if isinstance(game, Game) else game
    found = mv.find_board(name)
    if found is None:
        raise InputError(f"no board {name!r} (boards: {', '.join(board_name(*k) for k in sorted(mv.boards))})")
    return found


def heads(game: Game) -> tuple[Board, ...]:
    """The latest board of every timeline, in timeline order."""
    return game.mv.heads


def board_json(game: Game, name: str) -> dict:
    """A board as JSON (its units, centres, retreats and phase), and the orders given on it with their results."""
    return jsonout.board_document(game, board(game, name))


def game_json(game: Game) -> dict:
    """The game as ``fivedp game show --json`` prints it: heads, forks, options, standing, what comes next."""
    return jsonout.game_document(game)


def step_json(game: Game, report: StepReport) -> dict:
    """A step as ``fivedp game adjudicate --json`` prints it (``game`` is the game after the step)."""
    return jsonout.game_step_document(game, report)


def history_json(game: Game) -> dict:
    return jsonout.history_document(game)


def to_json(game: Game) -> str:
    """The whole game (every board, waiting orders, history) as JSON; :func:`from_json` reads it back
    to the same game, and writing that again gives the same text."""
    return json.dumps(_game.game_data(game), indent=2, sort_keys=False)


def from_json(text: str) -> Game:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"<json>: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    return _game.game_from_data(data, "<json>")


def schema() -> dict:
    """The JSON Schema of every document above (``format`` 1)."""
    return jsonout.load_schema()


__all__ = [
    "Accepted", "Board", "Case", "CaseRun", "Duty", "Game", "GameMap", "OrderOutcome", "PossibleOrder", "StepReport",
    "Submission", "adjudicate", "adjudicate_many", "board", "board_json", "check_orders", "duties", "from_json", "game_from_scenario",
    "game_json", "heads", "history_json", "legal_orders", "load_game", "load_map", "load_scenario", "new_game",
    "next_phase", "results", "run_scenario", "run_scenarios", "save_game", "schema", "step_json", "submit_orders", "to_json",
]
