"""An edit of the latest boards is refused before a step is built on them: ``verify_latest`` replays
the steps since the last movement step from the boards before it and compares what they made. The
game of ``tests/files/test_game.py`` is stopped after a movement step, a retreat and an adjustment, and
each latest board is edited as a hand edit sealed again would edit it: a unit added, removed or
retyped, a centre given to another power or made neutral."""

from __future__ import annotations

import copy

import pytest

from fivedp_asp.cli import main
from fivedp_asp.files.games import game_data, load_game, save_game
from fivedp_asp.files.verify import verify_latest
from fivedp_asp.model.map import load_map

from tests.files.test_game import GAME, opening, play_in_memory
from tests.files.test_verify import _format_3

MAP = load_map("standard")


def edits(data: dict) -> list[tuple[str, str, dict]]:
    """(board, what, edited document) for every latest board of the game."""
    out = []
    boards = data["boards"]
    last: dict[str, int] = {}
    for name in boards:
        tl = name.rstrip("0123456789")
        last[tl] = max(last.get(tl, -1), int(name[len(tl):]))
    for tl, turn in sorted(last.items()):
        name = f"{tl}{turn}"
        board = boards[name]
        for power, units in sorted(board["units"].items()):
            d = copy.deepcopy(data)
            gone = d["boards"][name]["units"][power].pop(0)
            out.append((name, f"{power} {gone} removed", d))
            army = next((u for u in units if u.startswith("A ") and MAP.provinces[MAP.province(u[2:])].type == "coast"), None)
            if army:
                d = copy.deepcopy(data)
                d["boards"][name]["units"][power][units.index(army)] = "F" + army[1:]
                out.append((name, f"{power} {army} made a fleet", d))
        taken = {MAP.province(u[2:].split("/")[0]) for us in board["units"].values() for u in us}
        free = sorted(p for p, prov in MAP.provinces.items() if prov.type == "land" and p not in taken)
        d = copy.deepcopy(data)
        power = sorted(board["units"])[0]
        d["boards"][name]["units"][power].append(f"A {MAP.short_name(free[0])}")
        out.append((name, f"{power} A {free[0]} added", d))
        for power, centres in sorted(board["centers"].items())[:2]:
            d = copy.deepcopy(data)
            gone = d["boards"][name]["centers"][power].pop()
            out.append((name, f"{power}'s centre {gone} made neutral", d))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("steps, last_phase", [(2, "movement"), (3, "retreat"), (4, "adjustment"),
                                               (13, "retreat"), (15, "movement")])
def test_every_edit_of_a_latest_board_is_found(tmp_path, steps, last_phase):
    game, _ = play_in_memory(opening(tmp_path), GAME[:steps])
    assert game.history[-1]["phase"] == last_phase
    data = game_data(game)
    path = tmp_path / "g.yaml"
    path.write_text(_format_3(data), encoding="utf-8")
    assert verify_latest(load_game(path)) is None
    found = 0
    for board, what, edited in edits(data):
        path.write_text(_format_3(edited), encoding="utf-8")
        try:
            read = load_game(path)
        except Exception as exc:  # noqa: BLE001 - refused as damaged: found all the same
            assert "damaged game file" in str(exc), (what, exc)
            found += 1
            continue
        d = verify_latest(read)
        assert d is not None and d.board == board, (what, d)
        found += 1
    assert found >= 10


def test_adjudicate_refuses_an_edited_head_and_changes_nothing(tmp_path, capsys):
    game, _ = play_in_memory(opening(tmp_path), GAME[:4])
    path = tmp_path / "g.yaml"
    save_game(path, game)
    data = game_data(load_game(path))
    data["boards"]["a2"]["units"]["Germany"].append("A Boh")
    path.write_text(_format_3(data), encoding="utf-8")
    before = path.read_bytes()
    assert main(["game", "show", str(path)]) == 0  # it reads as a consistent game
    capsys.readouterr()
    assert main(["game", "adjudicate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: the game is not what its last steps made, so nothing was adjudicated: "
                          "step 4, board a2: units: recorded Germany: A Boh, replayed none.")
    assert "fivedp game accept" in err and path.read_bytes() == before
