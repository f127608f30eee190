"""``--preset NAME`` through every command that takes it (adjudicate, check, explore, game new, selfplay;
serve's in tests/serve/test_oliveriver.py) and the presets in ``fivedp options``: a preset's values
apply, values written beside it win, an unknown name is bad input (exit 2, the names known)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

CASES = Path(__file__).resolve().parent.parent.parent / "cases" / "options"
GIVEN = CASES / "support_results" / "02-given.yaml"  # every support succeeds by default
FAMILY = CASES / "adjacency" / "02-family.yaml"


def test_options_lists_the_presets(cli):
    status, out, _ = cli("options")
    assert status == 0
    listing = out[out.index("presets ("):]
    assert "seeds:" in listing and "every option at its default" in listing
    assert "oliveriver:" in listing and "adjacency: distance, diagonals: false" in listing
    status, out, _ = cli("options", "--json")
    presets = {p["name"]: p["values"] for p in json.loads(out)["presets"]}
    assert presets == {"seeds": {}, "oliveriver": {"adjacency": "distance", "diagonals": False,
                                                   "support_results": "follow", "cut_supports_fork": True,
                                                   "victory": "unique", "winner": "most_centres"}}


def _support_results(out: str) -> dict[str, str]:
    doc = json.loads(out)
    return {o["text"]: o["result"] for step in doc["steps"] for o in step["orders"] if " S " in o["text"]}


def test_adjudicate_with_a_preset(cli):
    status, out, _ = cli("adjudicate", "--json", GIVEN)
    assert status == 0 and set(_support_results(out).values()) == {"succeeds"}
    status, out, _ = cli("adjudicate", "--json", "--preset", "oliveriver", GIVEN)
    results = _support_results(out)
    assert status == 0 and results["A Munich S A Berlin - Silesia"] == "fails"
    assert results["A Warsaw S A Silesia"] == "succeeds"
    status, out, _ = cli("adjudicate", "--json", "--preset", "seeds", GIVEN)
    assert set(_support_results(out).values()) == {"succeeds"}


def test_the_scenario_s_own_options_override_the_preset(cli, tmp_path):
    own = tmp_path / "own.yaml"
    own.write_text(GIVEN.read_text().replace("start:", "options: {support_results: given}\nstart:", 1))
    status, out, _ = cli("adjudicate", "--json", "--preset", "oliveriver", own)
    assert status == 0 and set(_support_results(out).values()) == {"succeeds"}
    named = tmp_path / "named.yaml"
    named.write_text(GIVEN.read_text().replace("start:", "options: {preset: oliveriver}\nstart:", 1))
    status, out, _ = cli("adjudicate", "--json", named)
    assert status == 0 and _support_results(out)["A Bohemia S A Tyrolia"] == "fails"
    both = tmp_path / "both.yaml"
    both.write_text(GIVEN.read_text().replace("start:", "options: {preset: oliveriver, support_results: given}\n"
                                                         "start:", 1))
    status, out, _ = cli("adjudicate", "--json", both)
    assert status == 0 and set(_support_results(out).values()) == {"succeeds"}


@pytest.mark.parametrize("argv", [("adjudicate", "--preset", "olive", GIVEN), ("check", "--preset", "olive", GIVEN),
                                  ("explore", "--preset", "seeds,olive", GIVEN)])
def test_an_unknown_preset_is_bad_input(cli, argv):
    status, out, err = cli(*argv)
    assert status == 2 and "unknown preset 'olive' (known: seeds, oliveriver)" in out + err
    assert "Traceback" not in out + err


def test_an_unknown_preset_in_a_scenario_names_the_file(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(GIVEN.read_text().replace("start:", "options: {preset: everything}\nstart:", 1))
    status, out, err = cli("check", bad)
    assert status == 2 and "bad.yaml" in out + err and "unknown preset 'everything'" in out + err


def test_check_with_a_preset(cli):
    status, out, _ = cli("check", "--preset", "seeds", GIVEN, FAMILY)
    assert status == 0 and "2 passed" in out
    # their expectations are the default's: under the readings of oliveriver both fail
    status, out, _ = cli("check", "--preset", "oliveriver", GIVEN, FAMILY)
    assert status == 1 and "0 passed, 2 failed" in out
    assert "'A Munich S A Berlin - Silesia' expected succeeds, got fails" in out


def test_explore_two_presets_on_a_scenario_and_on_a_game(cli, tmp_path):
    status, out, _ = cli("explore", "--preset", "seeds,oliveriver", "--json", FAMILY)
    doc = json.loads(out)
    assert status == 0 and doc["options"] == {"preset": ["seeds", "oliveriver"]}
    assert doc["summary"][1]["options"] == {"preset": "oliveriver"} and doc["summary"][1]["changes"] == 1
    # a game of cases/: its start and its orders played under both presets
    game = tmp_path / "g.yaml"
    assert cli("game", "new", game, "--from", GIVEN)[0] == 0
    scenario = yaml.safe_load(GIVEN.read_text())
    for power, lines in scenario["steps"][0]["orders"].items():
        assert cli("game", "orders", game, *(f"{power}: {line}" for line in lines))[0] == 0
    assert cli("game", "adjudicate", game)[0] == 0
    status, out, _ = cli("explore", "--preset", "seeds,oliveriver", game)
    assert status == 0
    assert "oliveriver: fails (given, but the supported order of A Ber fails)" in out
    assert "seeds (own): succeeds" in out


def test_game_new_with_a_preset(cli, tmp_path):
    game = tmp_path / "g.yaml"
    assert cli("game", "new", game, "--preset", "oliveriver", "--option", "diagonals=true")[0] == 0
    options = yaml.safe_load(game.read_text())["options"]
    assert options == {"adjacency": "distance", "diagonals": True, "support_results": "follow",
                       "cut_supports_fork": True, "victory": "unique", "winner": "most_centres"}
    # from a scenario: the scenario's options over the preset
    other = tmp_path / "h.yaml"
    assert cli("game", "new", other, "--from", CASES / "winner" / "02-none.yaml", "--preset", "oliveriver")[0] == 0
    options = yaml.safe_load(other.read_text())["options"]
    assert options["victory"] == "unique" and options["winner"] == "most_centres"
    status, out, err = cli("game", "new", tmp_path / "i.yaml", "--preset", "nope")
    assert status == 2 and "unknown preset 'nope'" in out + err and not (tmp_path / "i.yaml").exists()


@pytest.mark.slow
def test_selfplay_with_a_preset(cli):
    status, out, _ = cli("selfplay", "--games", "1", "--years", "1", "--preset", "oliveriver",
                         "--option", "winner=none", "--json")
    assert status == 0
    assert json.loads(out)["options"] == {"adjacency": "distance", "diagonals": False, "support_results": "follow",
                                          "cut_supports_fork": True, "victory": "unique", "winner": "none"}


def test_serve_refuses_an_unknown_preset_before_it_starts(cli, tmp_path):
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    status, out, err = cli("serve", "--oliveriver", "--preset", "nope", "--db", f"sqlite:///{tmp_path}/games.db")
    assert status == 2 and "unknown preset 'nope' (known: seeds, oliveriver)" in out + err
    assert not (tmp_path / "games.db").exists()  # refused before the database was opened


def test_explore_two_presets_on_a_game_made_with_one(cli, tmp_path):
    """A game made with --preset oliveriver records its values: that preset is its own column, and the
    seeds column drops them (but keeps an option given beside the preset)."""
    game = tmp_path / "g.yaml"
    assert cli("game", "new", game, "--from", GIVEN, "--preset", "oliveriver")[0] == 0
    scenario = yaml.safe_load(GIVEN.read_text())
    for power, lines in scenario["steps"][0]["orders"].items():
        assert cli("game", "orders", game, *(f"{power}: {line}" for line in lines))[0] == 0
    assert cli("game", "adjudicate", game)[0] == 0
    status, out, _ = cli("explore", "--preset", "seeds,oliveriver", game)
    assert status == 0
    assert "oliveriver (own): fails (given, but the supported order of A Ber fails)" in out
    assert "seeds: succeeds" in out
