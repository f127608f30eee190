"""Game files of format 3 (docs/game-format.md, "The layout"): fought boards and steps one line each
below the top, read only when needed, copied unchanged by every command.

What is checked here:

- the file round-trips exactly: a game read from a file, written and read again, is the same game
  (every board with its record, the history, the waiting orders), and writing it again gives the
  same text; the game equals the one played in memory;
- append-only: a command that gives orders leaves the ``past`` and ``history`` lines as they were,
  byte for byte; adjudicating keeps them and appends the new ones;
- the ``checked`` digest: a consistent hand edit of a past line (sealed again) is read and checked
  in full, and the next write records a digest that matches again;
- format 2 files are read, and written in format 3 by the next command that writes (or ``accept``);
- two writers at once never lose each other's orders, also when one writes between the other's
  read and write.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fivedp_asp.files.games import game_data, load_game, read_game, save_game
from fivedp_asp.files.store import Change, transact
from fivedp_asp.game.state import phase_key
from fivedp_asp.game.play import adjudicate, submit, submit_orders
from fivedp_asp.game.state import Game
from fivedp_asp.files.layout import checked_digest, json_line, split
from fivedp_asp.files.integrity import reseal, unseal
from fivedp_asp.report.jsonout import game_step_document
from fivedp_asp.model.multiverse import LazyBoards

from tests.files.test_game import GAME, format_2_text, opening, play_in_memory


def sections(text: str) -> tuple[str, str]:
    """The ``past`` and ``history`` sections of a format-3 text."""
    past_at, history_at, end_at = text.index("\npast:"), text.index("\nhistory:"), text.index("\nend: ")
    return text[past_at:history_at], text[history_at:end_at]


def checked_matches(path: Path) -> bool:
    """Whether the file's ``checked`` digest is the digest of its sections as they are."""
    raw = path.read_bytes()
    text = unseal(raw, str(path)).decode("utf-8")
    top = yaml.safe_load(split(text).top)
    return top["checked"] == checked_digest(top["map"], top["players"], list(top["latest"]), split(text).sections)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, Game]:
    """Seven steps (forks, a fork of a fork, retreats, builds), then orders waiting; saved."""
    folder = tmp_path_factory.mktemp("format3")
    g, _ = play_in_memory(opening(folder), GAME[:7])
    g = submit(g, "Germany", ["A Sil - War"])
    path = folder / "g.yaml"
    save_game(path, g)
    return path, g


def test_the_file_round_trips_exactly(played, tmp_path):
    path, memory = played
    loaded = load_game(path)
    assert isinstance(loaded.mv.boards, LazyBoards)
    assert game_data(loaded) == game_data(memory)
    again = tmp_path / "again.yaml"
    save_game(again, loaded)
    assert again.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    reread = load_game(again)
    # the same game, value for value: boards with their records, history, waiting orders, start
    assert reread == loaded
    assert dict(reread.mv.boards) == dict(loaded.mv.boards)
    assert list(reread.history) == list(loaded.history) == list(memory.history)
    assert all(b.record is not None for k, b in reread.mv.boards.items() if k[1] != reread.mv.latest_turn(k[0]))
    assert reread.pending == memory.pending == {"Germany": ["A Sil - War"]}


def test_a_command_reads_only_the_boards_it_needs(played):
    path, _ = played
    loaded = load_game(path)
    built = loaded.mv.boards._built  # the past boards read from their lines so far
    forked_from = set(loaded.mv.forks.values())
    assert set(built) <= forked_from  # only the boards the fork check looks at
    loaded = submit_orders(loaded, "Germany", ["A Sil - Pru"]).game
    assert set(built) <= forked_from


@pytest.mark.slow
def test_orders_leave_the_past_and_the_history_as_they_were(played, tmp_path, program):
    path, _ = played
    work = tmp_path / "g.yaml"
    work.write_bytes(path.read_bytes())
    before = work.read_text(encoding="utf-8")
    p = program(tmp_path, "game", "orders", "g.yaml", "--power", "France", "A Par - Bur")
    assert p.returncode == 0, p.stderr
    after = work.read_text(encoding="utf-8")
    assert after != before and sections(after) == sections(before)
    assert load_game(work).pending["France"] == ["A Par - Bur"]


@pytest.mark.slow
def test_adjudicating_appends_to_the_past_and_the_history(played, tmp_path, program):
    path, memory = played
    work = tmp_path / "g.yaml"
    work.write_bytes(path.read_bytes())
    before = sections(work.read_text(encoding="utf-8"))
    p = program(tmp_path, "game", "adjudicate", "g.yaml", "--json")
    assert p.returncode == 0, p.stderr
    # the step as printed (results, the boards it changed) is the step adjudicated in memory
    after_memory, report = adjudicate(memory)
    printed = json.loads(p.stdout)
    # the command says the phase it acted on: the one the game waited for, keyed as in memory
    assert printed.pop("acted_on")["key"] == phase_key(memory)
    assert printed == json.loads(json.dumps(game_step_document(after_memory, report)))
    text = work.read_text(encoding="utf-8")
    after = sections(text)
    assert after[0].startswith(before[0]) and after[1].startswith(before[1])
    new_past = after[0][len(before[0]):].strip("\n").split("\n")
    new_steps = after[1][len(before[1]):].strip("\n").split("\n")
    assert len(new_steps) == 1 and new_steps[0].startswith("- {")
    # the heads that were fought are now past boards; the game is the one adjudicated in memory
    fought = sorted(b.name for b in memory.mv.heads if b.phase == "movement")
    assert sorted(line.split(":")[0].strip() for line in new_past) == fought
    assert game_data(load_game(work)) == game_data(after_memory)
    assert checked_matches(work)


@pytest.mark.slow
def test_a_consistent_edit_of_the_past_is_checked_in_full_and_then_recorded(played, tmp_path, program):
    path, memory = played
    work = tmp_path / "g.yaml"
    text = path.read_text(encoding="utf-8")
    # the same board written differently (no space after a colon): the same game, other bytes
    edited = re.sub(r'(\n  a1: \{)"units": ', r'\1"units":', text, count=1)
    assert edited != text
    work.write_text(reseal(edited), encoding="utf-8")
    assert not checked_matches(work)
    loaded = load_game(work)  # read and checked in full
    assert not isinstance(loaded.mv.boards, LazyBoards)
    assert game_data(loaded) == game_data(memory)
    p = program(tmp_path, "game", "orders", "g.yaml", "--power", "France", "A Par - Bur")
    assert p.returncode == 0, p.stderr
    assert checked_matches(work)
    assert isinstance(load_game(work).mv.boards, LazyBoards)


@pytest.mark.slow
def test_a_format_2_file_is_read_and_written_in_format_3_by_the_next_write(played, tmp_path, program):
    path, memory = played
    work = tmp_path / "g.yaml"
    work.write_text(format_2_text(memory), encoding="utf-8")
    assert "\nversion: 2\n" in work.read_text(encoding="utf-8")
    assert game_data(load_game(work)) == game_data(memory)
    p = program(tmp_path, "game", "show", "g.yaml")
    assert p.returncode == 0, p.stderr
    assert "\nversion: 2\n" in work.read_text(encoding="utf-8")  # reading writes nothing
    p = program(tmp_path, "game", "orders", "g.yaml", "--power", "France", "A Par - Bur")
    assert p.returncode == 0, p.stderr
    text = work.read_text(encoding="utf-8")
    assert "\nversion: 3\n" in text and "\npast:\n" in text and checked_matches(work)
    upgraded = load_game(work)
    assert upgraded.pending == {**memory.pending, "France": ["A Par - Bur"]}
    assert {k: v for k, v in game_data(upgraded).items() if k != "pending"} == \
           {k: v for k, v in game_data(memory).items() if k != "pending"}


@pytest.mark.slow
def test_accept_writes_a_format_2_file_in_format_3(played, tmp_path, program):
    path, memory = played
    work = tmp_path / "g.yaml"
    work.write_text(format_2_text(memory), encoding="utf-8")
    p = program(tmp_path, "game", "accept", "g.yaml")
    assert p.returncode == 0, p.stderr
    assert "\nversion: 3\n" in work.read_text(encoding="utf-8")
    assert game_data(load_game(work)) == game_data(memory)


def test_a_write_between_read_and_write_is_not_lost(played, tmp_path):
    """``transact`` reads without the lock; another command writing in between makes it do its
    change again on the new game, so both changes are kept."""
    path, _ = played
    work = tmp_path / "g.yaml"
    work.write_bytes(path.read_bytes())
    calls = []

    def give_france(game, _sealed):
        calls.append(len(calls))
        if len(calls) == 1:  # another command writes the game between this one's read and write
            transact(work, lambda g, _s: Change(None, game=submit_orders(g, "England", ["F Lon - Eng"]).game))
        return Change(None, game=submit_orders(game, "France", ["A Par - Bur"]).game)

    transact(work, give_france)
    assert len(calls) == 2
    pending = load_game(work).pending
    assert pending["England"] == ["F Lon - Eng"] and pending["France"] == ["A Par - Bur"]


WRITER = """\
import sys
from fivedp_asp.files.store import Change, transact
from fivedp_asp.game.play import submit_orders
path, power, lines = sys.argv[1], sys.argv[2], sys.argv[3:]
for line in lines:
    transact(path, lambda g, _s: Change(None, game=submit_orders(g, power, [line]).game))
"""


@pytest.mark.slow
def test_two_writers_at_once_lose_no_orders(tmp_path):
    """Seven processes, one per power, give orders one unit at a time, all at once: every order is kept."""
    g = play_in_memory(opening(tmp_path), [])[0]
    path = tmp_path / "g.yaml"
    save_game(path, g)
    head = g.mv.heads[0]
    orders: dict[str, list[str]] = {}
    for u in sorted(head.units.values(), key=lambda u: u.location):
        orders.setdefault(u.power, []).append(f"{u.letter} {u.location.split('/')[0].capitalize()} H")
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, str(script), str(path), power, *lines], cwd=tmp_path)
             for power, lines in orders.items()]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    pending = load_game(path).pending
    assert {p: sorted(v) for p, v in pending.items()} == {p: sorted(v) for p, v in orders.items()}
    assert sum(map(len, pending.values())) == len(head.units) == 22


def test_read_game_gives_the_checksum_line_it_read(played):
    path, _ = played
    _, line = read_game(path)
    assert line.startswith(b"checksum: sha256:") and path.read_bytes().endswith(line)


def test_a_json_line_is_one_line_that_yaml_reads_as_json_does():
    """Text YAML does not take raw in a line (line separators, C1 controls) is written escaped."""
    value = {"orders": {"Germany": ["A Mün\u2028- Tyr", "x\x85y", "\u00e9\u2029\x7f", "tab\there"]}, "n": 3, "ok": True}
    line = json_line(value)
    assert "\n" not in line and not re.search("[\x7f-\x9f\u2028\u2029]", line)
    assert json.loads(line) == value
    assert yaml.safe_load(f"- {line}\n") == [value]
    assert "Mün" in line  # other text stays readable


def test_games_read_from_files_adjudicate_together_as_alone(played, tmp_path):
    """``adjudicate_many`` on games whose past is read lazily gives the games ``adjudicate`` gives."""
    from fivedp_asp.api import adjudicate_many

    path, memory = played
    other = tmp_path / "other.yaml"
    save_game(other, submit(memory, "France", ["A Par - Bur"]))
    games = [load_game(path), load_game(other)]
    together = adjudicate_many(games)
    for game, (after, _) in zip(games, together):
        assert game_data(after) == game_data(adjudicate(game)[0])
    assert game_data(together[0][0]) == game_data(adjudicate(memory)[0])
