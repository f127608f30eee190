"""A game's state as a value: the multiverse, the orders waiting for the next phase, the history of
every step played and the position the game began with.

Nothing here plays or touches a file: playing (``game.play``) returns a new :class:`Game`, and
``files.games`` reads and writes games, so that a program can hold, compare and replay games without
either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse, unit_text


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


def new_game(mv: Multiverse) -> Game:
    """A game beginning at ``mv``, its root board recorded as the start (with any units waiting to
    retreat there)."""
    root = mv.boards[min(mv.boards)]
    units, centers = position_data(mv.game_map, root)
    start: dict[str, Any] = {"turn": root.turn, "phase": root.phase, "units": units, "centers": centers}
    if root.retreats:
        dislodged: dict[str, list] = {}
        for r in root.retreats:
            item = {"unit": unit_text(r.unit, mv.game_map)}
            if r.attacker_from:
                item["attacker_from"] = r.attacker_from.capitalize()
            dislodged.setdefault(r.unit.power, []).append(item)
        start["dislodged"] = dislodged
    return Game(mv, start=start)
