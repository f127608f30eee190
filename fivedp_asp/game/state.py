"""A game's state as a value: the multiverse, the orders waiting for the next phase, the history of
every step played and the position the game began with.

Nothing here plays or touches a file: playing (``game.play``) returns a new :class:`Game`, and
``files.games`` reads and writes games, so that a program can hold, compare and replay games without
either.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ..model.kinds import OrderKind, Phase, Result
from ..errors import InputError, UsageError, quoted
from ..model.map import GameMap
from ..engine.resolve import resolved_text
from ..model.multiverse import Board, Multiverse, board_name, unit_text
from ..model.notation import timeline_name
from ..yaml_lines import json_line


@dataclass(frozen=True)
class Game:
    """One game: ``mv`` the whole multiverse, ``pending`` the order lines waiting for the next phase
    by power, ``history`` one plain entry per step (the orders given and the results they got), and
    ``start`` the root board as the game began, written as a scenario's start (so that the game can
    be exported as a scenario and replayed from its beginning)."""

    mv: Multiverse
    pending: dict[str, list[str]] = field(default_factory=dict)
    # one entry per step; a tuple, or a StoredHistory for a game read from a file
    history: Sequence[dict] = ()
    start: dict = field(default_factory=dict)  # the root board as the game began, for export


def position_data(m: GameMap, b: Board) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """A board's units and centres by power, as order notation writes them (``A Mun``, ``Mun``): the
    position a game began with (``Game.start``) and every board of a game file are written so."""
    units: dict[str, list[str]] = {}
    for u in sorted(b.units.values(), key=lambda u: u.location):
        units.setdefault(u.power, []).append(unit_text(u, m))
    centers: dict[str, list[str]] = {}
    for prov, owner in sorted(b.centers.items()):
        centers.setdefault(owner, []).append(prov.capitalize())
    return units, centers


def new_game(mv: Multiverse, start: dict | None = None) -> Game:
    """A game beginning at ``mv``, its root board recorded as the start (with any units waiting to
    retreat there); of several boards, all of them (``boards_start``); or ``start``, the scenario's
    start of several boards that ``mv`` was read from (``start.boards``), recorded as written."""
    if start is not None:
        if not isinstance(start, dict) or "boards" not in start:
            raise UsageError("new_game: start must be a scenario's start of several boards (with 'boards')")
        return Game(mv, start=dict(start))
    if len(mv.boards) > 1:
        return Game(mv, start=boards_start(mv))
    root = mv.boards[min(mv.boards)]
    units, centers = position_data(mv.game_map, root)
    start: dict[str, Any] = {"turn": root.turn, "phase": str(root.phase), "units": units, "centers": centers}
    if root.retreats:
        start["dislodged"] = _dislodged_data(mv.game_map, root)
    return Game(mv, start=start)


def boards_start(mv: Multiverse) -> dict[str, Any]:
    """Every board of ``mv`` written as a scenario's start of several boards (docs/case-format.md):
    each board's units and centres, a head's phase, a past board's recorded orders with the results
    its record gives them (a move its ``moves`` decision, a support ``given``, a hold not being
    dislodged, a convoy its army's ``path``), and the forks. Read back (``files.starts``), the results
    give the same records."""
    def decided(name: str, place: Any) -> bool:
        record = mv.boards[place.board].record if place.board in mv.boards else None
        return bool(record and record.decisions.get((name, (place.timeline, place.turn, place.province))))

    def succeeded(r: Any) -> bool:
        if r.kind == OrderKind.MOVE:
            return decided("moves", r.unit)
        if r.kind == OrderKind.HOLD:
            return not decided("dislodged", r.unit)
        if r.kind == OrderKind.CONVOY:
            return decided("path", r.target)
        return decided("given", r.unit)

    boards: dict[str, Any] = {}
    for key in sorted(mv.boards):
        b = mv.boards[key]
        units, centers = position_data(mv.game_map, b)
        data: dict[str, Any] = {"units": units, "centers": centers}
        if b.record is not None:
            orders: dict[str, dict[str, str]] = {}
            for r in b.record.orders:
                # a document's plain text, as a start read from a file holds it
                result = Result.SUCCEEDS if succeeded(r) else Result.FAILS
                orders.setdefault(r.power, {})[resolved_text(r, mv.game_map)] = result.value
            data["orders"] = orders
        elif b.phase != Phase.MOVEMENT:
            data["phase"] = str(b.phase)  # plain text, as a start read from a file holds it
        if b.retreats:
            data["dislodged"] = _dislodged_data(mv.game_map, b)
        boards[board_name(*key)] = data
    return {"boards": boards, "forks": {timeline_name(t): board_name(*p) for t, p in sorted(mv.forks.items())}}


def _dislodged_data(m: GameMap, b: Board) -> dict[str, list]:
    dislodged: dict[str, list] = {}
    for r in b.retreats:
        item = {"unit": unit_text(r.unit, m)}
        if r.attacker_from:
            item["attacker_from"] = r.attacker_from.capitalize()
        dislodged.setdefault(r.unit.power, []).append(item)
    return dislodged


#: the digits of a phase key's digest (64 bits); the keys of releases before the chained digest had 8
KEY_DIGITS = 16


def phase_keys(game: Game) -> list[str]:
    """The phase key (``phase_key``) of every phase the game has waited for, the first step's first
    and the phase waiting now last: one pass over the history."""
    if not isinstance(game, Game):
        raise UsageError(f"phase_keys: game must be a Game, not {type(game).__name__}")
    start = json.dumps(game.start, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=list)
    chain = hashlib.sha256(b"fivedp-phase\n" + start.encode("ascii")).digest()
    keys = [f"1-{chain.hex()[:KEY_DIGITS]}"]
    history = game.history
    stored = getattr(history, "stored_line", None)  # a history read from a file (``files.layout.StoredHistory``)
    for i in range(len(history)):
        # each step as the game file writes its line: a stored line as it is, a new step as it will be
        text = (stored(i) if stored is not None else None) or json_line(history[i])
        chain = hashlib.sha256(chain + text.encode("utf-8")).digest()
        keys.append(f"{i + 2}-{chain.hex()[:KEY_DIGITS]}")
    return keys


def phase_key(game: Game) -> str:
    """The phase the game waits for, as a short token (``3-9f2c41d07a1b22c3``): the number of the step
    to play next and a digest chained over the start and every step played, each as the game file
    writes its line. Orders are given against a position; a store takes them only while the game
    still waits for the phase they were given for, so a step adjudicated, or undone and played again
    otherwise, in between makes them stale instead of moving them to a phase their author never saw.
    Since the digest covers every step, a phase reached again after an undo has the key it had only
    when every step up to it was played again as it was. The token changes only when the history
    does: giving orders leaves it as it is. A few milliseconds for a game of 300 boards: stored lines
    are hashed as they are, never parsed."""
    return phase_keys(game)[-1]


def legacy_phase_key(game: Game) -> str:
    """The phase key as releases before the chained digest wrote it (``3-9f2c41d0``: the step number
    and a digest of the last step only, the same after an undo and a different step that looks the
    same). Only read back: a sealed file of such a release names its phase so, and a served games
    database of such a release is converted at start (``serve.database``)."""
    if not isinstance(game, Game):
        raise UsageError(f"legacy_phase_key: game must be a Game, not {type(game).__name__}")
    last = game.history[-1] if game.history else {"start": game.start}
    text = json.dumps(last, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=list)
    return f"{len(game.history) + 1}-{hashlib.sha256(text.encode('ascii')).hexdigest()[:8]}"


def earlier_keys(game: Game) -> dict[str, str]:
    """The keys an earlier release (``legacy_phase_key``) gave the phase the game waits for and the
    phase before the last step, each mapped to its key now: what a sealed file or a database written
    by such a release names, converted."""
    if not isinstance(game, Game):
        raise UsageError(f"earlier_keys: game must be a Game, not {type(game).__name__}")
    keys = phase_keys(game)
    found = {legacy_phase_key(game): keys[-1]}
    if game.history:
        found[legacy_phase_key(replace(game, history=game.history[:-1]))] = keys[-2]
    return found


def phase_step(key: str) -> int:
    """The step number a phase key (``phase_key``, or a key of an earlier release) names."""
    if not isinstance(key, str):
        raise UsageError(f"phase_step: key must be a str, not {type(key).__name__}")
    number, _, digest = key.partition("-")
    if (not number.isascii() or not number.isdigit() or len(number) > 9 or len(digest) not in (8, KEY_DIGITS)
            or not all(c in "0123456789abcdef" for c in digest)):
        raise InputError(f"not a phase key: {quoted(key, 40)} (a step number, '-' and {KEY_DIGITS} hexadecimal digits)")
    return int(number)
