"""Commands run at the same moment on one game, many times, as the shells of several players (and a
game master) would run them: after every round, what each command said is compared with what the
game file holds. Nothing a command reported as taken is missing, nothing lands on a phase its author
did not see (``--step N`` says which phase that is), and a command refused as stale changed nothing.

The interleavings are the operating system's, so each round may go either way; the tests count the
ways (``ROUNDS`` rounds each; ``FIVEDP_RACE_ROUNDS`` sets more) and fail on the first round whose files
disagree with what the commands said. ``tests/files/test_store.py`` places the other write exactly
between a command's read and write, once each way."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests import forked

from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.files.sealed import read_sealed
from fivedp_asp.files.store import Change, transact
from fivedp_asp.game.play import adjudicate, submit_orders
from fivedp_asp.game.state import new_game, phase_key
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

ROUNDS = int(os.environ.get("FIVEDP_RACE_ROUNDS", "20"))
STALE = "the game has moved on"


def at_once(cwd: Path, *commands: list[str]) -> list[subprocess.CompletedProcess]:
    """The commands started together, each as its own process running ``fivedp``'s ``main`` (forked,
    ``tests/forked.py``: they start within a moment of each other), and waited for."""
    handles = [forked.started(cwd, c) for c in commands]
    done = [forked.ended(h) for h in handles]
    for c, p in zip(commands, done):
        assert "Traceback" not in p.stderr, (c, p.stderr)
    return done


def fresh(folder: Path, name: str, *open_orders: tuple[str, list[str]]) -> Path:
    path = folder / name
    game = new_game(opening(load_map("standard")))
    for power, lines in open_orders:
        game = submit_orders(game, power, lines).game
    save_game(path, game)
    return path


def step_orders(path: Path, step: int) -> dict:
    history = load_game(path).history
    return history[step - 1]["orders"] if len(history) >= step else {}


@pytest.mark.slow
def test_sealing_while_adjudicating_loses_no_sealed_set(tmp_path):
    """Austria has sealed; Germany seals while the game master adjudicates. Germany's set is either
    in step 1 (sealed before the adjudication wrote), sealed for step 2 (Germany's command read the
    game after step 1 was saved: it says so), or refused as stale (it says so) — never reported
    sealed and then gone."""
    ways: Counter = Counter()
    for n in range(ROUNDS):
        path = fresh(tmp_path, f"g{n}.yaml")
        transact(path, lambda _g, s: Change(None, sealed=s.with_set("Austria", ("A Vie - Gal",))))
        adj, sealer = at_once(tmp_path, ["game", "adjudicate", path.name],
                              ["game", "orders", path.name, "--power", "Germany", "--sealed", "A Mun - Ruh", "F Kie - Den"])
        assert adj.returncode == 0, adj.stderr
        first = step_orders(path, 1)
        assert first.get("Austria") == ["A Vie - Gal"], f"round {n}: Austria's sealed set is not in step 1"
        germany = ["A Mun - Ruh", "F Kie - Den"]
        if sealer.returncode == 2:
            assert STALE in sealer.stderr, sealer.stderr
            assert "Germany" not in first and not read_sealed(path, phase_key(load_game(path))).orders
            ways["refused as stale"] += 1
        elif "sealed for step 1" in sealer.stdout:
            assert sealer.returncode == 0
            assert first.get("Germany") == germany, f"round {n}: Germany was told its set was sealed, the step lacks it"
            ways["in step 1"] += 1
        else:
            assert sealer.returncode == 0 and "sealed for step 2" in sealer.stdout, sealer
            assert "Germany" not in first
            assert read_sealed(path, phase_key(load_game(path))).orders == {"Germany": tuple(germany)}
            ways["sealed for step 2"] += 1
    assert sum(ways.values()) == ROUNDS
    print(dict(ways))


@pytest.mark.slow
def test_orders_racing_an_adjudication_land_on_their_own_phase_or_nowhere(tmp_path):
    """A Spring order (``--step 1``) given while Spring is adjudicated: in step 1, or refused."""
    ways: Counter = Counter()
    for n in range(ROUNDS):
        path = fresh(tmp_path, f"g{n}.yaml", ("Austria", ["A Vie - Gal"]))
        adj, giver = at_once(tmp_path, ["game", "adjudicate", path.name],
                             ["game", "orders", path.name, "--step", "1", "--power", "Germany", "A Mun - Tyr"])
        assert adj.returncode == 0, adj.stderr
        game = load_game(path)
        assert len(game.history) == 1
        if giver.returncode == 0:
            assert step_orders(path, 1).get("Germany") == ["A Mun - Tyr"], f"round {n}: taken, but not in step 1"
            ways["in step 1"] += 1
        else:
            assert giver.returncode == 2 and STALE in giver.stderr, giver
            assert "Germany" not in step_orders(path, 1)
            ways["refused as stale"] += 1
        assert game.pending == {}, f"round {n}: a Spring order waits in Fall"
    print(dict(ways))


@pytest.mark.slow
def test_orders_racing_an_undo_never_replace_the_restored_orders(tmp_path):
    """A Fall order (``--step 2``) given while Spring is taken back: the Fall order waits in Fall (and
    the undo is refused: orders wait), or it is refused and Spring's own orders wait again."""
    ways: Counter = Counter()
    for n in range(ROUNDS):
        path = fresh(tmp_path, f"g{n}.yaml", ("Germany", ["A Mun - Tyr"]))
        game, _ = adjudicate(load_game(path))
        save_game(path, game)
        undo, giver = at_once(tmp_path, ["game", "undo", path.name],
                              ["game", "orders", path.name, "--step", "2", "--power", "Germany", "A Tyr - Boh"])
        game = load_game(path)
        if giver.returncode == 0:
            assert undo.returncode == 2 and ("waiting" in undo.stderr or STALE in undo.stderr), undo
            assert len(game.history) == 1 and game.pending == {"Germany": ["A Tyr - Boh"]}
            ways["Fall order kept, undo refused"] += 1
        else:
            assert giver.returncode == 2 and STALE in giver.stderr, giver
            assert undo.returncode == 0, undo.stderr
            assert len(game.history) == 0 and game.pending == {"Germany": ["A Mun - Tyr"]}, f"round {n}"
            ways["undone, Fall order refused"] += 1
    print(dict(ways))


@pytest.mark.slow
def test_seven_players_and_an_adjudication_lose_nothing(tmp_path):
    """Seven powers give their orders for step 1 at once while the game master adjudicates: each
    power's command either was taken (and its orders are in step 1) or was refused as stale."""
    powers = {"Austria": ["A Vie - Gal"], "England": ["F Lon - Nth"], "France": ["A Par - Bur"],
              "Germany": ["A Mun - Ruh"], "Italy": ["A Ven - Pie"], "Russia": ["A War - Gal"], "Turkey": ["A Con - Bul"]}
    lost = taken = refused = 0
    for n in range(max(ROUNDS // 4, 3)):
        path = fresh(tmp_path, f"g{n}.yaml")
        commands = [["game", "orders", path.name, "--step", "1", "--power", p, *lines] for p, lines in powers.items()]
        *givers, adj = at_once(tmp_path, *commands, ["game", "adjudicate", path.name])
        assert adj.returncode == 0, adj.stderr
        first = step_orders(path, 1)
        for (power, lines), p in zip(powers.items(), givers):
            if p.returncode == 0:
                taken += 1
                lost += first.get(power) != lines
            else:
                assert p.returncode == 2 and STALE in p.stderr, p
                assert power not in first
                refused += 1
        assert load_game(path).pending == {}
    assert lost == 0
    print(json.dumps({"taken": taken, "refused as stale": refused, "lost": lost}))


@pytest.mark.slow
def test_orders_without_a_step_racing_an_undo_say_the_step_they_landed_on(tmp_path):
    """``game orders`` without ``--step`` cannot know the phase its author saw: run while Spring is
    taken back, it lands on Fall (and the undo is refused: orders wait) or on the restored Spring,
    replacing Spring's own order. Either way its first line names the step and the phase it acted
    on, and the files hold the orders there; so does ``--json``. Read before the undo and written
    after it, it is refused."""
    ways: Counter = Counter()
    for n in range(ROUNDS):
        path = fresh(tmp_path, f"g{n}.yaml", ("Germany", ["A Mun S A Ber"]))
        spring = phase_key(load_game(path))
        game, _ = adjudicate(load_game(path))
        save_game(path, game)
        fall = phase_key(game)
        json_round = n % 2 == 1
        undo, giver = at_once(tmp_path, ["game", "undo", path.name],
                              ["game", "orders", path.name, "--power", "Germany", "A Mun - Tyr",
                               *(["--json"] if json_round else [])])
        game = load_game(path)
        if giver.returncode == 2:
            # read while Fall waited, written after the undo: refused, as the phase it read is gone
            assert STALE in giver.stderr and "given for step 2" in giver.stderr, giver.stderr
            assert undo.returncode == 0 and len(game.history) == 0 and game.pending == {"Germany": ["A Mun S A Ber"]}
            ways["refused as stale"] += 1
            continue
        assert giver.returncode == 0, giver.stderr
        acted = (json.loads(giver.stdout)["acted_on"] if json_round
                 else _acted(giver.stdout.splitlines()[0]))
        if acted["step"] == 2:
            assert acted["key"] == fall and acted["waiting_for"] == "movement on a1"
            assert undo.returncode == 2 and len(game.history) == 1 and game.pending == {"Germany": ["A Mun - Tyr"]}
            ways["on Fall, undo refused"] += 1
        else:
            assert acted == {"step": 1, "waiting_for": "movement on a0", "key": spring}, acted
            assert undo.returncode == 0 and len(game.history) == 0
            assert game.pending == {"Germany": ["A Mun - Tyr"]}, f"round {n}: said step 1, the file disagrees"
            if not json_round:
                assert "Replaced: Germany: A Mun S A Ber  by  A Mun - Tyr" in giver.stdout
            ways["on the restored Spring, said so"] += 1
    print(dict(ways))


def _acted(line: str) -> dict:
    """The step, phase and key the first line of ``game orders`` names."""
    import re

    found = re.fullmatch(r"Orders for step (\d+): (.+) \(phase (\S+)\)", line)
    assert found, f"the first line names no step and phase: {line!r}"
    return {"step": int(found[1]), "waiting_for": found[2], "key": found[3]}
