"""Seeded random multiversal games, written as scenarios: test and benchmark material for large
multiverses (the pictures of tens of timelines and hundreds of boards).

Each step gives every unit on every head board waiting for the phase an order drawn by the classic
order generator (``compare.random_games``), designated to its own board, and in movement steps a few
moves and supports from heads into the past, into a parent timeline or onto another head, which is
what forks timelines (``compare.random_games.travel_orders``, drawn before the heads' orders; a
unit ordered across boards keeps that order alone). The same seed gives the same game; the scenario
replays to the same multiverse because every order names its boards.
"""

from __future__ import annotations

import dataclasses
import random

from ..model.map import GameMap, load_map
from ..model.multiverse import Multiverse
from ..engine.step import MOVEMENT, next_phase, step


def random_game(seed: int, steps: int, travel: tuple[int, int] = (2, 6), timelines: int | None = None,
                empty_share: float = 0.0, game_map: GameMap | None = None) -> tuple[dict, Multiverse]:
    """A scenario of ``steps`` random steps from the standard opening (stopping early once it has
    ``timelines`` timelines, when given), and the multiverse it ends in. ``travel`` bounds the
    number of moves and supports across boards per movement step; ``empty_share`` (0 to 1) of those
    moves go to empty places, which forks timelines more often."""
    from ..compare.lockstep import opening
    from ..compare.random_games import OrderGenerator, Travel, head_orders, ordered_unit, travel_orders

    game_map = game_map or load_map("standard")
    rng = random.Random(f"fivedp-randomplay/{seed}")
    gen = OrderGenerator(game_map, rng)
    style = Travel(empty_share=empty_share)
    # every power plays, as in a scenario's start: elimination and victory apply alike in both
    mv = dataclasses.replace(opening(game_map), players=tuple(game_map.powers))
    played = []
    for _ in range(steps):
        phase = next_phase(mv)
        lines: dict[str, list[str]] = {}
        travelling: dict[tuple, tuple[str, str]] = {}  # a unit's own board and province → its order across boards
        if phase == MOVEMENT:
            for power, line in travel_orders(mv, rng, rng.randint(*travel), style):
                travelling.setdefault(ordered_unit(line, game_map), (power, line))
        for power, text in head_orders(mv, gen, phase):
            # a unit ordered across boards is given that order alone
            if ordered_unit(text, game_map) not in travelling:
                lines.setdefault(power, []).append(text)
        for power, line in travelling.values():
            lines.setdefault(power, []).append(line)
        mv = step(mv, lines, reasons=False).after  # only the orders and the positions are kept
        played.append({"orders": lines})
        if mv.winner or (timelines is not None and len(mv.timelines) >= timelines):
            break
    case = {"id": f"random game {seed}", "title": f"{len(played)} random steps, {len(mv.timelines)} timelines, "
            f"{len(mv.boards)} boards", "steps": played}
    return case, mv
