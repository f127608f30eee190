"""Faults around a command that changes a game: the exit status says whether the game changed.

A report that cannot be written (standard output on a full disk, ``> /dev/full``) after the game was
saved is exit status 4 with a message naming standard output and what was saved, so that a script
does not do the work again; a command that saved nothing and cannot write is exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.game.play import submit_orders
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

FULL = Path("/dev/full")
pytestmark = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


def to_full(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The command as a process whose standard output is a full disk."""
    with open(FULL, "w") as full:
        return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "g.yaml"
    save_game(path, submit_orders(new_game(opening(load_map("standard"))), "Germany", ["A Mun - Tyr"]).game)
    return path


@pytest.mark.slow
def test_an_adjudication_saved_but_not_reported_is_status_4(game_file):
    p = to_full(game_file.parent, "game", "adjudicate", "g.yaml", "--step", "1")
    assert p.returncode == 4, p
    assert p.stderr == ("error: standard output: cannot write the report: No space left on device; but step 1 was "
                        "adjudicated and saved in g.yaml: do not repeat the command (fivedp game show shows the "
                        "game as it is)\n")
    assert len(load_game(game_file).history) == 1
    # a script that repeats it all the same, with the step it meant, plays no second step
    again = to_full(game_file.parent, "game", "adjudicate", "g.yaml", "--step", "1")
    assert again.returncode == 2 and "the game has moved on: step 1 has been adjudicated" in again.stderr
    assert len(load_game(game_file).history) == 1


@pytest.mark.parametrize("args, saved", [
    (["game", "orders", "g.yaml", "A Ber - Kie"], "the orders taken were saved in g.yaml for step 1"),
    (["game", "orders", "g.yaml", "--power", "Austria", "--sealed", "A Vie - Gal"],
     "the sealed set was saved beside g.yaml"),
    (["game", "new", "h.yaml"], "the new game was saved in h.yaml"),
])
@pytest.mark.slow
def test_other_changes_saved_but_not_reported_are_status_4(game_file, args, saved):
    p = to_full(game_file.parent, *args)
    assert p.returncode == 4 and f"; but {saved}: do not repeat" in p.stderr, p
    assert p.stderr.startswith("error: standard output: cannot write the report: No space left on device")


@pytest.mark.slow
def test_a_reading_command_that_cannot_write_changed_nothing(game_file):
    before = game_file.read_bytes()
    for args in (["game", "show", "g.yaml"], ["game", "orders", "g.yaml", "--check"], ["game", "history", "g.yaml"]):
        p = to_full(game_file.parent, *args)
        assert p.returncode == 2 and p.stderr == "error: standard output: cannot write: No space left on device\n", p
    assert game_file.read_bytes() == before


@pytest.mark.slow
def test_an_undo_saved_but_not_reported_names_the_log(game_file, tmp_path):
    subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "game", "adjudicate", "g.yaml"], cwd=tmp_path,
                   capture_output=True, check=True, timeout=120)
    p = to_full(tmp_path, "game", "undo", "g.yaml")
    assert p.returncode == 4 and "but step 1 was taken back in g.yaml (and kept in g.yaml.undone)" in p.stderr, p
    assert load_game(game_file).history == ()
