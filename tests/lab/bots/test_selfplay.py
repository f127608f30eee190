"""``fivedp selfplay`` (bots/selfplay.py, cli/selfplay.py): games between bots, their outcomes, their files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fivedp_asp.lab.bots.registry import parse_seats
from fivedp_asp.lab.bots.selfplay import Table, play_tables
from fivedp_asp.files.games import load_game
from fivedp_asp.model.map import load_map
from fivedp_asp.report.jsonout import load_schema
from tests.schema_check import errors

MAP = load_map("standard")


@pytest.mark.slow
def test_a_game_is_played_again_the_same_way_and_another_number_differently():
    seats = parse_seats(["England=greedy"], MAP)
    a = play_tables([Table(1), Table(2)], 4, 2, seats, text=True)
    b = play_tables([Table(1)], 4, 2, seats, text=True)
    assert a[0] == b[0] and a[0].text == b[0].text
    assert a[0].text != a[1].text
    assert [p.years for p in a] == [2.0, 2.0] and all(p.timelines == 1 and not p.error for p in a)
    assert sum(a[0].centres.values()) <= 34 and a[0].unique == a[0].centres


@pytest.mark.slow
def test_selfplay_prints_each_game_and_its_json_is_a_document(cli):
    status, out, err = cli("selfplay", "--games", "2", "--seed", "3", "--years", "2", "--bot", "England=greedy")
    assert status == 0 and not err
    assert out.startswith("Selfplay: 2 classic games of 2 years, seed 3; England=greedy, others random\n")
    assert out.count("  game ") == 2 and "no winner after 2 years" in out and "Summary of 2 games:" in out
    status, out, _ = cli("selfplay", "--games", "2", "--seed", "3", "--years", "2", "--bot", "England=greedy",
                         "--json")
    doc = json.loads(out)
    assert status == 0 and doc["kind"] == "selfplay" and not errors(doc, load_schema())
    assert [g["game"] for g in doc["games"]] == [1, 2] and doc["bots"]["England"] == "greedy"
    for g in doc["games"]:
        assert g["winner"] is None and g["timelines"] == 1 and g["steps"] >= 6
        assert sum(g["final_centres"].values()) <= 34


@pytest.mark.slow
def test_selfplay_in_a_multiverse_counts_centres_per_timeline_and_by_name(cli):
    status, out, _ = cli("selfplay", "--games", "1", "--seed", "2", "--years", "3", "--multiverse", "--json")
    doc = json.loads(out)
    game = doc["games"][0]
    assert status == 0 and not errors(doc, load_schema()) and doc["multiverse"] is True
    assert set(game["by_timeline"]) and len(game["by_timeline"]) == game["in_play"]
    for power, n in game["final_centres"].items():
        assert n == sum(t[power] for t in game["by_timeline"].values())
        assert game["unique_centres"][power] <= n


@pytest.mark.slow
def test_games_written_with_out_are_verified_and_kept_unless_forced(cli, tmp_path):
    out = tmp_path / "games"
    status, text, _ = cli("selfplay", "--games", "2", "--years", "2", "--multiverse", "--bot", "all=greedy",
                          "--out", out)
    assert status == 0 and "Wrote 2 game files into" in text
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["selfplay-s1-g001.yaml", "selfplay-s1-g002.yaml"]
    for f in files:
        status, said, _ = cli("game", "verify", f)
        assert status == 0 and "every result as recorded" in said
        # legal orders only: no result of the whole game is invalid
        history = load_game(f).history
        assert history and not [r for h in history for r in h.get("results", ()) if r.get("result") == "invalid"]
    before = files[0].read_bytes()
    status, _, err = cli("selfplay", "--games", "1", "--years", "1", "--out", out)
    assert status == 2 and "already holds selfplay-s1-g001.yaml" in err and files[0].read_bytes() == before
    assert cli("selfplay", "--games", "1", "--years", "1", "--out", out, "--force")[0] == 0
    assert files[0].read_bytes() != before


@pytest.mark.slow
def test_a_bot_of_your_own_plays_and_its_faults_are_told_in_one_line(cli, tmp_path):
    bots = tmp_path / "mybots.py"
    bots.write_text(
        "def hold(view):\n"
        "    return [p.order for p in view.legal(kind='hold')]\n"
        "def broken(view):\n"
        "    raise RuntimeError('no idea')\n"
        "def garbled(view):\n"
        "    return ['A Lon - - Bel']\n"
        "def one_text(view):\n"
        "    return 'A Lon H'\n", encoding="utf-8")
    status, out, _ = cli("selfplay", "--years", "1", "--bot", f"England={bots}:hold", "--json")
    assert status == 0 and json.loads(out)["games"][0]["final_centres"]["England"] == 3
    for name, message in (("broken", "failed: RuntimeError: 'no idea'"), ("garbled", "order 'A Lon - - Bel'"),
                          ("one_text", "returned str: a bot returns a list of order lines")):
        status, out, err = cli("selfplay", "--years", "1", "--bot", f"England={bots}:{name}")
        # the bot's name is quoted by its short prefix (the path is long)
        assert status == 2 and err.startswith("error: bot '") and "(England, game 1, step 1)" in err, err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    status, _, err = cli("selfplay", "--bot", "England=nobot")
    assert status == 2 and err.startswith("error: bot 'nobot': not a bot")
    status, _, err = cli("selfplay", "--games", "0")
    assert status == 2 and "--games and --years must be at least 1" in err


@pytest.mark.slow
def test_seven_greedy_bots_play_classic_and_multiverse_games_to_their_end(cli, tmp_path):
    for extra, years in (([], 10), (["--multiverse"], 5)):
        status, out, _ = cli("selfplay", "--games", "1", "--years", years, "--bot", "all=greedy", "--json",
                             "--out", tmp_path, "--force", *extra)
        game = json.loads(out)["games"][0]
        assert status == 0 and game["error"] is None and (game["winner"] or game["years"] == years)
        history = load_game(game["file"]).history
        assert not [r for h in history for r in h.get("results", ()) if r.get("result") == "invalid"]


@pytest.mark.slow
def test_the_example_bot_of_the_docs_plays_legal_orders(cli, tmp_path):
    example = Path(__file__).resolve().parents[3] / "docs" / "examples" / "cautious_bot.py"
    for extra in ([], ["--multiverse"]):
        status, out, _ = cli("selfplay", "--games", "1", "--years", "3", "--bot", f"England={example}:cautious",
                             "--out", tmp_path, "--force", "--json", *extra)
        game = json.loads(out)["games"][0]
        assert status == 0 and game["error"] is None
        history = load_game(game["file"]).history
        english = [r for h in history for r in h.get("results", ()) if r.get("power") == "England"]
        assert english and not [r for r in english if r.get("result") == "invalid"]


def test_the_progress_bar_is_drawn_on_a_terminal_only():
    import io

    from fivedp_asp.cli.selfplay import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    bar = ProgressBar(4, stream=shown)
    bar.advance()
    bar.advance()
    bar.close()
    assert "[###############...............] 2/4 games" in shown.getvalue() and shown.getvalue().endswith("\r")
    quiet = io.StringIO()
    bar = ProgressBar(4, stream=quiet)
    bar.advance()
    bar.close()
    assert quiet.getvalue() == ""
