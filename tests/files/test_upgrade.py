"""Game files and sealed orders written by the release before the chained phase key (fivedp at
commit a846659: ``tests/data/release-a846659``) play on: their sealed sets, which name phases by the
key of the last step only, are taken as the sets of the phases they were given for."""

from __future__ import annotations

import shutil
from pathlib import Path

from fivedp_asp.files.games import load_game
from fivedp_asp.files.sealed import raw_sealed
from fivedp_asp.files.verify import verify_game
from fivedp_asp.game.state import KEY_DIGITS, phase_key

from tests.cli.test_play import fivedp, ok

DATA = Path(__file__).resolve().parent.parent / "data" / "release-a846659"


def _copy(tmp_path: Path, name: str) -> Path:
    for suffix in ("", ".sealed"):
        shutil.copyfile(DATA / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    return tmp_path / name


def test_a_sealed_set_of_the_earlier_release_is_opened_at_adjudication(tmp_path):
    """Germany sealed A Ruh - Bel for step 2 under that release's key; France's open order waits.
    Both are in step 2; the sealed file then names its phases by the chained key."""
    path = _copy(tmp_path, "game.yaml")
    assert b'"phase": "2-2ac10460"' in raw_sealed(path)
    shown = ok(fivedp(tmp_path, "game", "show", "game.yaml"))
    assert "Germany: orders sealed (1 line)" in shown
    out = ok(fivedp(tmp_path, "game", "adjudicate", "game.yaml"))
    assert "Sealed orders opened: Germany" in out
    game = load_game(path)
    assert game.history[1]["orders"] == {"France": ["A Bur - Mun"], "Germany": ["A Ruh - Bel"]}
    assert verify_game(game).honest
    # what is kept for an undo of step 2 is written under the new key, and sealed again by the undo
    assert f'"phase": "{phase_key(load_game(path))}"'.encode() in raw_sealed(path)
    assert len(phase_key(game).split("-")[1]) == KEY_DIGITS
    out = ok(fivedp(tmp_path, "game", "undo", "game.yaml"))
    assert "Sealed again: Germany" in out and load_game(path).pending == {"France": ["A Bur - Mun"]}


def test_opened_sets_of_the_earlier_release_are_sealed_again_by_an_undo(tmp_path):
    """Step 1 was adjudicated by that release with both powers' sealed sets: undone now, they are
    sealed again, not turned into open orders everyone could read."""
    path = _copy(tmp_path, "undoable.yaml")
    out = ok(fivedp(tmp_path, "game", "undo", "undoable.yaml"))
    assert "Sealed again: France, Germany" in out
    game = load_game(path)
    assert game.pending == {} and not game.history
    shown = ok(fivedp(tmp_path, "game", "show", "undoable.yaml"))
    assert "Pic" not in shown and "orders sealed (1 line)" in shown
    out = ok(fivedp(tmp_path, "game", "adjudicate", "undoable.yaml"))
    assert load_game(path).history[0]["orders"] == {"France": ["A Par - Pic"], "Germany": ["A Mun - Bur"]}
