"""The file store's promises (``files/store.py``), each with the other command's write placed exactly
between a command's read and its write: nothing lost, nothing applied to a phase its author did not
see, the sealed orders and the game changed together. ``tests/cli/test_races.py`` runs the commands
themselves at the same moment, many times, as players' shells would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fivedp_asp.cli import main
from fivedp_asp.errors import FileError, InputError, UsageError
from fivedp_asp.files.games import load_game
from fivedp_asp.files.sealed import Sealed, read_sealed, sealed_path
from fivedp_asp.files.store import Change, StalePhase, transact, undo_log_path
from fivedp_asp.game.play import adjudicate, submit_orders
from fivedp_asp.game.state import phase_key, phase_step


def give(power: str, *lines: str):
    """A change that gives ``power`` these open orders."""
    return lambda game, _sealed: Change(None, game=submit_orders(game, power, list(lines)).game)


def seal(power: str, *lines: str):
    """A change that seals ``power``'s set."""
    return lambda _game, sealed: Change(None, sealed=sealed.with_set(power, tuple(lines)))


def play(game, sealed):
    """What ``game adjudicate`` does: the sealed sets replace their powers' open orders, the step is
    adjudicated, the sealed sets are removed."""
    for power, lines in sealed.orders.items():
        game = submit_orders(game, power, list(lines), replace_all=True).game
    new, _ = adjudicate(game)
    return Change(None, game=new, sealed=Sealed(phase_key(new), {}))


def meanwhile(path: Path, other, change):
    """``change``, with ``other`` (a change) written by another command between its first read and its write."""
    calls = []

    def first_sees_another_write(game, sealed):
        calls.append(1)
        if len(calls) == 1:
            transact(path, other)
        return change(game, sealed)

    return first_sees_another_write, calls


def step_orders(path: Path, step: int) -> dict:
    return load_game(path).history[step - 1]["orders"]


def test_a_sealed_set_given_while_a_step_is_adjudicated_is_in_the_step(new_game_file):
    """Germany seals between the adjudication's read and its write: the adjudication is worked out
    again with Germany's set (the phase is the same), so the set is neither lost nor left behind."""
    path = new_game_file
    transact(path, seal("Austria", "A Vie - Gal"))
    change, calls = meanwhile(path, seal("Germany", "A Mun - Ruh", "F Kie - Den"), play)
    transact(path, change)
    assert len(calls) == 2
    assert step_orders(path, 1) == {"Austria": ["A Vie - Gal"], "Germany": ["A Mun - Ruh", "F Kie - Den"]}
    assert not sealed_path(path).exists()


def test_a_sealed_set_checked_before_a_step_was_adjudicated_is_refused(new_game_file):
    """The step is adjudicated between the seal's read and its write: the set was given for step 1
    and is refused, not kept for step 2."""
    path = new_game_file
    change, _ = meanwhile(path, play, seal("Germany", "A Mun - Ruh"))
    with pytest.raises(StalePhase, match=r"step 1 has been adjudicated, and it now waits for step 2 "
                                         r"\(movement on a1\); .* for step 1, so nothing was done"):
        transact(path, change, doing="this set was sealed for step {step}")
    assert not sealed_path(path).exists()
    assert step_orders(path, 1) == {}


def test_orders_given_while_a_step_is_adjudicated_never_land_on_the_next_phase(new_game_file):
    """A Spring order racing the adjudication of Spring: refused, never taken for Fall."""
    path = new_game_file
    change, _ = meanwhile(path, play, give("Germany", "A Mun - Tyr"))
    with pytest.raises(StalePhase, match="step 1 has been adjudicated"):
        transact(path, change)
    game = load_game(path)
    assert game.pending == {} and len(game.history) == 1


def test_orders_given_while_a_step_is_undone_never_replace_the_restored_orders(new_game_file):
    """A Fall order racing an undo of Spring: refused; Spring's restored orders stay as they were."""
    path = new_game_file
    transact(path, give("Germany", "A Mun - Tyr"))
    transact(path, play)

    def take_back(game, _sealed):
        from fivedp_asp.files.games import start_of
        from fivedp_asp.game.play import undo

        new, entry = undo(game, start_of)
        return Change(None, game=new, undone={"step": len(game.history), "entry": entry})

    change, _ = meanwhile(path, take_back, give("Germany", "A Tyr - Boh"))
    with pytest.raises(StalePhase, match=r"step 1 has been taken back \(undo\)"):
        transact(path, change)
    assert load_game(path).pending == {"Germany": ["A Mun - Tyr"]}


def test_two_adjudications_at_once_play_one_step(new_game_file):
    path = new_game_file
    change, _ = meanwhile(path, play, play)
    with pytest.raises(StalePhase):
        transact(path, change)
    assert len(load_game(path).history) == 1


def test_orders_of_another_power_in_between_are_both_kept(new_game_file):
    path = new_game_file
    change, calls = meanwhile(path, give("England", "F Lon - Eng"), give("France", "A Par - Bur"))
    transact(path, change)
    assert len(calls) == 2
    assert load_game(path).pending == {"England": ["F Lon - Eng"], "France": ["A Par - Bur"]}


def test_a_change_for_a_named_phase_is_refused_on_another(new_game_file):
    path = new_game_file
    key = phase_key(load_game(path))
    assert phase_step(key) == 1
    transact(path, play)
    for wanted in (key, 1, 3):
        with pytest.raises(StalePhase, match="now waits for step 2"):
            transact(path, give("Germany", "A Mun - Tyr"), phase=wanted)
    transact(path, give("Germany", "A Mun - Tyr"), phase=2)
    assert load_game(path).pending == {"Germany": ["A Mun - Tyr"]}
    with pytest.raises(UsageError):
        transact(path, play, phase=2.0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not a phase key"):
        transact(path, play, phase="2")


def test_the_phase_key_changes_with_the_position_only(new_game_file):
    """Orders leave the key as it is; a step changes it; a step undone and played again with other
    orders is another phase with the same number."""
    path = new_game_file
    opening = phase_key(load_game(path))
    transact(path, give("Germany", "A Mun - Tyr"))
    assert phase_key(load_game(path)) == opening
    transact(path, play)
    after_tyr = phase_key(load_game(path))
    assert phase_step(after_tyr) == 2 and after_tyr != opening
    game = load_game(path)
    from fivedp_asp.files.games import start_of
    from fivedp_asp.game.play import undo

    undone, _ = undo(game, start_of)
    assert phase_key(undone) == opening
    other, _ = adjudicate(submit_orders(undone, "Germany", ["A Mun - Boh"], replace_all=True).game)
    assert phase_step(phase_key(other)) == 2 and phase_key(other) != after_tyr


def _undo_step(game, sealed):
    from fivedp_asp.files.games import start_of
    from fivedp_asp.game.table import take_back

    new, kept, back = take_back(game, sealed, start_of)
    return Change(None, game=new, sealed=kept, undone={"step": back.step, "entry": back.entry})


def test_an_undone_branch_ending_like_the_branch_played_is_another_phase(new_game_file):
    """France plays A Par - Pic, then a step where nobody orders; both are undone; France plays
    A Par - Bur, then again a step where nobody orders. The last steps look the same, the games do
    not: a change worked out in the Picardy branch (its key kept by a script, or its read made before
    the undo) is refused, and the game file holds the Burgundy branch."""
    path = new_game_file
    transact(path, give("France", "A Par - Pic"))
    transact(path, play)
    transact(path, play)
    picardy = phase_key(load_game(path))
    transact(path, _undo_step)
    transact(path, _undo_step)
    transact(path, give("France", "A Par - Bur"), phase=1)  # replaces the restored A Par - Pic
    assert load_game(path).pending == {"France": ["A Par - Bur"]}
    transact(path, play)
    transact(path, play)
    burgundy = phase_key(load_game(path))
    assert phase_step(burgundy) == phase_step(picardy) == 3 and burgundy != picardy
    with pytest.raises(StalePhase, match=r"has been taken back and played again"):
        transact(path, give("France", "A Pic - Bel"), phase=picardy)
    game = load_game(path)
    assert game.pending == {} and [h["orders"].get("France") for h in game.history] == [["A Par - Bur"], None]
    assert "A Bur" in {u for u in _units(game, "France")}


def test_a_change_read_in_the_undone_branch_is_worked_out_again_or_refused(new_game_file):
    """A change first read in the Picardy branch, whose write comes after the host undid both steps
    and played the Burgundy branch: refused as stale, not written onto the Burgundy branch."""
    path = new_game_file
    transact(path, give("France", "A Par - Pic"))
    transact(path, play)
    transact(path, play)

    calls = []

    def replay(game, sealed):
        calls.append(1)
        if len(calls) == 1:  # between the first read and the write, the host plays the other branch
            transact(path, _undo_step)
            transact(path, _undo_step)
            transact(path, give("France", "A Par - Bur"), phase=1)
            transact(path, play)
            transact(path, play)
        return Change(None, game=submit_orders(game, "France", ["A Pic - Bel"]).game)

    with pytest.raises(StalePhase):
        transact(path, replay)
    assert calls == [1]
    game = load_game(path)
    assert game.pending == {} and game.history[0]["orders"]["France"] == ["A Par - Bur"]


def _units(game, power: str) -> list[str]:
    from fivedp_asp.model.multiverse import unit_text

    return [unit_text(u, game.mv.game_map) for b in game.mv.heads for u in b.units.values() if u.power == power]


# -- the sealed file and the undo log --------------------------------------------------------------


def test_a_symbolic_link_where_the_sealed_orders_belong_is_never_written_through(new_game_file, tmp_path):
    path = new_game_file
    elsewhere = tmp_path / "elsewhere.json"
    for target_exists in (False, True):
        if target_exists:
            elsewhere.write_text("mine", encoding="utf-8")
        sealed_path(path).symlink_to(elsewhere)
        with pytest.raises(FileError, match="symbolic link"):
            transact(path, seal("Germany", "A Mun - Tyr"))
        assert elsewhere.read_text(encoding="utf-8") == "mine" if target_exists else not elsewhere.exists()
        sealed_path(path).unlink()


def test_sealed_sets_of_an_earlier_fivedp_are_read_for_their_step(new_game_file):
    """Before phase keys, a sealed file named the number of steps played."""
    path = new_game_file
    sealed_path(path).write_text(json.dumps({"format": "fivedp-sealed", "step": 0,
                                             "orders": {"Germany": ["A Mun - Tyr"]}}), encoding="utf-8")
    key = phase_key(load_game(path))
    assert read_sealed(path, key).orders == {"Germany": ("A Mun - Tyr",)}
    transact(path, play)
    sealed_path(path).write_text(json.dumps({"format": "fivedp-sealed", "step": 0,
                                             "orders": {"Germany": ["A Tyr - Boh"]}}), encoding="utf-8")
    assert read_sealed(path, phase_key(load_game(path))).orders == {}


def test_the_undo_log_is_never_left_with_a_cut_line(new_game_file, monkeypatch, capsys):
    """A write of the log that fails half way (a full disk) is cut back, and the game is not saved;
    a log an earlier fivedp left with a cut last line gets the new line on a line of its own."""
    path = new_game_file
    transact(path, give("Germany", "A Mun - Tyr"))
    transact(path, play)
    log = undo_log_path(path)
    log.write_text('{"format": "fivedp-undone", "step": 7, "entr', encoding="utf-8")  # cut by an earlier fivedp
    before_game, before_log = path.read_bytes(), log.read_bytes()
    real_write = os.write

    def half_then_full(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".undone"):
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_then_full)
    assert main(["game", "undo", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {log}: cannot write the undo log: No space left on device")
    assert log.read_bytes() == before_log and path.read_bytes() == before_game
    monkeypatch.setattr(os, "write", real_write)
    assert main(["game", "undo", str(path)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["step"] == 1


def test_the_undo_log_is_cut_back_when_the_game_cannot_be_saved(new_game_file, monkeypatch, capsys):
    path = new_game_file
    transact(path, play)
    log = undo_log_path(path)
    import fivedp_asp.files.store as store

    def full(*_args, **_kwargs):
        raise FileError(path, "cannot write the game file: No space left on device", 28)

    monkeypatch.setattr(store, "write_atomic", full)
    assert main(["game", "undo", str(path)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not log.exists() or log.read_bytes() == b""
    assert len(load_game(path).history) == 1
