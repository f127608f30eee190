"""A power eliminated before a fork of a board where it still stood: the game goes on, every command
opens the file the program wrote (the play that once wrote a file no command could open again), and
a file an earlier fivedp wrote with such units on a head opens too."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fivedp_asp.cli import main
from fivedp_asp.files.games import game_text, load_game
from fivedp_asp.files.integrity import reseal
from fivedp_asp.files.verify import verify_game
from fivedp_asp.model.multiverse import Unit, make_board

START = """\
id: eliminated
title: Germany is eliminated, then a fork of a0 would bring its army back
start:
  units:
    Germany: [A Ruhr]
    France: [A Burgundy, A Belgium, A Paris]
    England: [F North Sea]
  centers:
    France: [Paris, Brest, Marseilles]
    England: [London]
steps: []
"""


def run(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def ok(*args) -> str:
    code, out, err = run(*args)
    assert code == 0, (args, out, err)
    return out


@pytest.fixture
def forked(tmp_path: Path) -> Path:
    """The game after the fork: Germany eliminated at step 2, b1 forked from a0 at step 3."""
    (tmp_path / "start.yaml").write_text(START, encoding="utf-8")
    path = tmp_path / "g.yaml"
    ok("game", "new", path, "--from", tmp_path / "start.yaml")
    ok("game", "orders", path, "A Bur - Ruh", "A Bel S A Bur - Ruh")
    ok("game", "adjudicate", path)
    assert "Eliminated: Germany" in ok("game", "adjudicate", path)
    ok("game", "orders", path, "F Nth - a-Bel@0")
    out = ok("game", "adjudicate", path)
    assert "  New timeline b: forked from a0" in out.splitlines()
    assert ("  Disbanded: A Ruh on b1 (Germany is eliminated: its units leave every board made after its "
            "elimination)") in out.splitlines()
    return path


@pytest.mark.slow
def test_every_command_opens_the_game_after_the_fork(forked):
    path = forked
    game = load_game(path)
    assert "Germany" not in {u.power for h in game.mv.heads for u in h.units.values()}
    assert game.mv.boards[(0, 0)].units["ruh"].power == "Germany"  # history keeps it
    assert ok("game", "verify", path).startswith(f"{path}: 3 steps replayed")
    ok("game", "show", path)
    ok("game", "show", path, "b1")
    ok("game", "history", path)
    ok("game", "possible", path, "--power", "France")
    ok("game", "orders", path, "--check")
    ok("game", "undo", path)
    ok("game", "adjudicate", path)
    ok("game", "orders", path, "Build A a-Mar")
    assert "    Build A a-Mar  succeeds" in ok("game", "adjudicate", path).splitlines()
    assert ok("game", "verify", path).startswith(f"{path}: 4 steps replayed")


def test_a_file_with_such_units_on_a_head_opens_without_them(forked):
    """Earlier versions of fivedp wrote the army onto b1 and then refused the file: it opens, without
    the army, and plays on."""
    path = forked
    game = load_game(path)
    b1 = game.mv.boards[(1, 1)]
    ghost = make_board(1, 1, [*b1.units.values(), Unit("army", "Germany", "ruh")], b1.centers)
    written = dataclasses.replace(game, mv=game.mv.with_boards([ghost]))
    path.write_text(game_text(written), encoding="utf-8")
    assert "Germany:\n      - A Ruh" in path.read_text(encoding="utf-8")
    again = load_game(path)
    assert "ruh" not in again.mv.boards[(1, 1)].units
    assert verify_game(again).honest
    ok("game", "adjudicate", path)


def test_a_power_called_eliminated_that_no_step_eliminated_is_still_refused(forked):
    """Only what a fork could have brought back is left out when reading; an edit that eliminates a
    power by hand is damage, as before."""
    path = forked
    text = path.read_text(encoding="utf-8").replace("eliminated:\n- Germany\n", "eliminated:\n- England\n- Germany\n")
    path.write_text(reseal(text), encoding="utf-8")
    code, _, err = run("game", "show", path)
    assert code == 2 and "eliminated: England still has units or centres on board" in err, err


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_file_a_random_game_writes_opens(tmp_path, seed):
    """Random multiversal games under ``adjacency: any`` (moves into the past and across timelines
    every step, many forks), saved and read back after every step, then verified. Seed 2 eliminates
    Germany and later forks a board where its units stood: the file written then was refused."""
    from tests.game.test_rewound import random_games

    path = tmp_path / "g.yaml"
    for game in random_games(seed, 30, {"adjacency": "any"}, travel=(2, 6), namespace="open")[1:]:
        path.write_text(game_text(game), encoding="utf-8")
        read = load_game(path)
        assert not [u for h in read.mv.heads for u in h.units.values() if u.power in read.mv.eliminated]
    if seed == 2:
        assert "Germany" in game.mv.eliminated
    assert verify_game(load_game(path)).honest
