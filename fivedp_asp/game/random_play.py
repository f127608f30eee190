"""Seeded random games: the one place a game is played at random from the opening.

Every step gives every unit on every head waiting for the phase an order drawn by the random order
generator (``random_orders.OrderGenerator``), designated to its own board, and in movement steps a
few moves and supports from heads into the past, into a parent timeline or onto another head, which
is what forks timelines (``random_orders.travel_orders``). How a step's orders are drawn is a
``Draw``; the games of the tests, the benchmarks and the pictures keep their own draws, because a
draw with a seed fixes the games it gives and changing one would change every game its seeds gave.
A unit ordered across boards keeps that order alone: with its head order too, both orders would be
illegal (DATC 4.D.3).

- ``random_game``: a scenario of random steps (the material of the large pictures and of the
  tests of many timelines); every order names its boards, so the scenario replays to the same
  multiverse.
- ``random_game_until``: a game played at random until it has some number of timelines and waits
  for a phase (the large games of ``fivedp bench`` and of the tests of legal orders).
- ``study_orders``: a step's orders as the random games of ``fivedp explore`` draw them.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace
from typing import Any, Iterator

from ..engine.step import MOVEMENT, next_phase, step
from ..errors import UsageError
from ..model.map import GameMap, load_map
from ..model.multiverse import Multiverse, opening
from ..model.settings import Settings
from .random_orders import OrderGenerator, Travel, head_orders, multiverse_orders, ordered_unit, travel_orders
from .state import Game, new_game

Orders = dict[str, list[str]]


@dataclass(frozen=True)
class Draw:
    """How a step's orders are drawn: the number of orders across boards in a movement step (a range
    drawn from, or the number of timelines still wanted when ``per_timeline``), their ``Travel``
    style, and whether they are drawn before the heads' orders (``first``) or after them."""

    travel: tuple[int, int] = (2, 6)
    style: Travel = Travel()
    first: bool = True
    per_timeline: int | None = None

    def orders(self, mv: Multiverse, gen: OrderGenerator, rng: random.Random) -> Orders:
        """The order lines per power of ``mv``'s next step."""
        phase = next_phase(mv)
        if not self.first:
            count = self.per_timeline if self.per_timeline is not None else self.travel
            return multiverse_orders(mv, gen, rng, phase, count, self.style, travel_replaces=True)
        lines: Orders = {}
        travelling: dict[Any, tuple[str, str]] = {}  # a unit's own board and province → its order across boards
        if phase == MOVEMENT:
            for power, line in travel_orders(mv, rng, rng.randint(*self.travel), self.style):
                travelling.setdefault(ordered_unit(line, mv.game_map), (power, line))
        for power, text in head_orders(mv, gen, phase):
            if ordered_unit(text, mv.game_map) not in travelling:
                lines.setdefault(power, []).append(text)
        for power, line in travelling.values():
            lines.setdefault(power, []).append(line)
        return lines


def _steps(mv: Multiverse, draw: Draw, gen: OrderGenerator, rng: random.Random) -> Iterator[tuple[Orders, Multiverse]]:
    """Random steps from ``mv`` for as long as the caller asks: each step's orders and the multiverse
    it leads to."""
    while True:
        orders = draw.orders(mv, gen, rng)
        mv = step(mv, orders, reasons=False).after  # only the orders and the positions are kept
        yield orders, mv


def random_game(seed: int, steps: int, travel: tuple[int, int] = (2, 6), timelines: int | None = None,
                empty_share: float = 0.0, game_map: GameMap | None = None) -> tuple[dict, Multiverse]:
    """A scenario of ``steps`` random steps from the opening (stopping early once it has ``timelines``
    timelines, when given), and the multiverse it ends in. ``travel`` bounds the number of moves and
    supports across boards per movement step; ``empty_share`` (0 to 1) of those moves go to empty
    places, which forks timelines more often."""
    if steps < 0 or travel[0] < 0 or travel[0] > travel[1] or not 0.0 <= empty_share <= 1.0:
        raise UsageError(f"random_game: steps {steps}, travel {travel} or empty_share {empty_share} out of range")
    game_map = game_map or load_map("standard")
    rng = random.Random(f"fivedp-randomplay/{seed}")
    gen = OrderGenerator(game_map, rng)
    draw = Draw(travel, Travel(empty_share=empty_share))
    played: list[Orders] = []
    mv = opening(game_map)  # every power plays: elimination and victory apply as in a scenario's start
    for orders, mv in itertools.islice(_steps(mv, draw, gen, rng), steps):
        played.append(orders)
        if mv.winner or (timelines is not None and len(mv.timelines) >= timelines):
            break
    scenario = {"id": f"random game {seed}", "title": f"{len(played)} random steps, {len(mv.timelines)} timelines, "
            f"{len(mv.boards)} boards", "steps": [{"orders": orders} for orders in played]}
    return scenario, mv


def random_game_until(timelines: int = 28, seed: int = 1, options: Settings | None = None,
                      max_steps: int = 400, phase: str = MOVEMENT, history: bool = False) -> Game | None:
    """A game played at random from the opening until it has ``timelines`` timelines and waits for
    ``phase``; None when that does not happen within ``max_steps`` steps. Each movement step draws
    as many moves across boards as ``timelines``, each supported where a neighbour can, so the
    multiverse widens within a few years. The same seed gives the same game. ``history``: the steps
    are played as a game plays them (``play.adjudicate``), so the game holds its history, as a game
    played at a table would (the same multiverse; slower)."""
    if timelines < 1 or max_steps < 0:
        raise UsageError(f"random_game_until: {timelines} timelines within {max_steps} steps")
    game_map = load_map("standard")
    rng = random.Random(f"fivedp-random-game/{seed}")
    gen = OrderGenerator(game_map, rng)
    game = new_game(opening(game_map, options))
    draw = Draw(style=Travel(parent_same_turn=False, supported_moves=True), first=False, per_timeline=timelines)
    taken = 0
    while not (next_phase(game.mv) == phase and len(game.mv.timelines) >= timelines):
        orders = draw.orders(game.mv, gen, rng)
        if history:
            from .play import adjudicate

            game, _ = adjudicate(replace(game, pending=orders), reasons=False)
        else:  # only the orders and the positions are kept
            game = replace(game, mv=step(game.mv, orders, reasons=False).after)
        taken += 1
        if game.mv.winner or taken >= max_steps:
            return None
    return game


STUDY_DRAW = Draw((1, 4), Travel(move_share=0.6), first=False)
"""The draw of a multiversal study game: one to four orders across boards, six in ten of them moves."""


def study_orders(mv: Multiverse, gen: OrderGenerator, rng: random.Random, multiverse: bool) -> Orders:
    """The orders of a study game's next step: the first head's alone in a classic game; in a
    multiversal one ``STUDY_DRAW``'s, a unit drawn twice by its power keeping the first."""
    if not multiverse:
        return gen.orders(mv.heads[0], next_phase(mv))
    seen: set = set()
    out: Orders = {}
    for power, lines in STUDY_DRAW.orders(mv, gen, rng).items():
        for line in lines:
            unit = ordered_unit(line, mv.game_map)
            if unit is None or (power, unit) not in seen:  # another power's order for it is a stray one
                seen.add((power, unit))
                out.setdefault(power, []).append(line)
    return out
