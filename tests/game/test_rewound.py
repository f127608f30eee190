"""The position before the last movement step, rebuilt from a game's own boards (``play.rewound``),
against the position the game really had then; and undo, which starts from it, against the game as
it was before each step. Played in memory: the game of ``tests/files/test_game.py`` (forks, a fork of
a fork, retreats, builds, waives) and random multiversal games with the sustain phase (timelines
dissolved) and eliminations, saved and read back between steps so that the boards are the file's."""

from __future__ import annotations

import dataclasses
import random

import pytest

from fivedp_asp.lab.compare.lockstep import opening as classic_opening
from fivedp_asp.game.random_orders import OrderGenerator, Travel, head_orders, ordered_unit, travel_orders
from fivedp_asp.engine.step import MOVEMENT, next_phase
from fivedp_asp.files.games import game_text, load_game, start_of
from fivedp_asp.game.play import adjudicate, rewound, undo
from fivedp_asp.game.state import Game, new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import Multiverse
from fivedp_asp.model.settings import Settings

from tests.files.test_game import GAME, assert_same_game, board_state, opening, play_in_memory

MAP = load_map("standard")


def position(mv: Multiverse) -> dict:
    return {"boards": {k: board_state(mv.boards[k]) for k in sorted(mv.boards)}, "forks": dict(mv.forks),
            "eliminated": mv.eliminated, "winner": mv.winner, "dissolved": mv.dissolved, "due": mv.sustain_due}


def check_every_step(games: list[Game], tmp_path) -> int:
    """``games[i]`` is the game after ``i`` steps. After each step, read back from its file: rewound
    gives the game before the last movement step, and undo gives the game before the step."""
    checked = 0
    for n in range(1, len(games)):
        path = tmp_path / "g.yaml"
        path.write_text(game_text(games[n]), encoding="utf-8")
        read = load_game(path)
        movement = [i for i, h in enumerate(read.history) if h["phase"] == MOVEMENT]
        back = rewound(read)
        if not movement:
            assert back is None
        else:
            last, mv = back
            assert last == movement[-1]
            want = games[last].mv
            assert position(mv) == position(want), f"after step {n}: the position before step {last + 1}"
            sustained = any(h["phase"] == "sustain" for h in read.history[last + 1:])
            assert mv.sustain_held == (None if sustained else want.sustain_held)
            checked += 1
        undone, entry = undo(read, start_of)
        assert entry == read.history[-1]
        assert_same_game(dataclasses.replace(undone, pending={}), games[n - 1], f"undo of step {n}")
    return checked


@pytest.mark.slow
def test_the_played_game(tmp_path):
    mv = opening(tmp_path)
    games = [new_game(mv)]
    for k in range(1, len(GAME) + 1):
        games.append(play_in_memory(mv, GAME[:k])[0])
    games = [dataclasses.replace(g, pending={}) for g in games]
    assert check_every_step(games, tmp_path) == len(GAME)  # every step has a movement step at or before it


def random_games(seed: int, steps: int, options: dict, *, travel: tuple[int, int] = (1, 4),
                 namespace: str = "rewound") -> list[Game]:
    """A random multiversal game played step by step through the game layer (the classic generator on
    every head, ``travel`` moves and supports across boards a movement step): the game after each
    step, from the start. The same seed (in ``namespace``) gives the same game."""
    rng = random.Random(f"{namespace}/{seed}")
    gen = OrderGenerator(MAP, rng)
    game = new_game(dataclasses.replace(classic_opening(MAP), players=tuple(MAP.powers),
                                        options=Settings.of(options)))
    games = [game]
    for _ in range(steps):
        lines: dict[str, list[str]] = {}
        travelling: dict = {}
        phase = next_phase(game.mv)
        if phase == MOVEMENT:
            for power, line in travel_orders(game.mv, rng, rng.randint(*travel), Travel(empty_share=0.3)):
                travelling.setdefault(ordered_unit(line, MAP), (power, line))
        for power, text in head_orders(game.mv, gen, phase):
            if ordered_unit(text, MAP) not in travelling:
                lines.setdefault(power, []).append(text)
        for power, line in travelling.values():
            lines.setdefault(power, []).append(line)
        game, _ = adjudicate(dataclasses.replace(game, pending=lines), reasons=False)
        games.append(game)
        if game.mv.winner:
            break
    return games


@pytest.mark.slow
@pytest.mark.parametrize("seed, options", [(1, {"sustain": True}), (2, {"sustain": True, "adjacency": "any"}),
                                           (3, {"adjacency": "any"})])
def test_random_games(tmp_path, seed, options):
    games = random_games(seed, 14, options)
    assert check_every_step(games, tmp_path) > 5
    if options.get("sustain"):
        assert any(g.mv.dissolved for g in games) or any(h["phase"] == "sustain" for h in games[-1].history)


@pytest.mark.slow
def test_a_random_game_with_an_elimination(tmp_path):
    """Thirty random steps under ``adjacency: any`` in which a power is eliminated."""
    games = random_games(7, 30, {"adjacency": "any"})
    assert any(g.mv.eliminated for g in games)
    assert check_every_step(games, tmp_path) > 20
