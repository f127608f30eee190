"""Studies over games played by bots (``fivedp explore --bot-games``, botstudy.py) and their statistics
(stats.py)."""

from __future__ import annotations

import json
import re

import pytest

from fivedp_asp.lab.bots.registry import parse_seats
from fivedp_asp.errors import UsageError
from fivedp_asp.lab.explore.botstudy import bot_study_html, run_bot_study
from fivedp_asp.lab.explore.exploration import asked_values
from fivedp_asp.model.map import load_map
from fivedp_asp.report.jsonout import load_schema
from tests.schema_check import errors

MAP = load_map("standard")


def test_exercise_counts_results_changed_at_the_same_position():
    """An order counts as exercising a value when, at a position both games share, its result under
    that value differs; once the games part, results also follow the position and are not counted."""
    import yaml

    from fivedp_asp.lab.explore.botstudy import exercise

    def game(*steps):
        return yaml.safe_dump({"history": [{"phase": "movement", "orders": {"France": [o for o, _ in st]},
                                            "results": [{"power": "France", "order": o, "result": r} for o, r in st]}
                                           for st in steps]})

    own = game([("F a-Mao@5 C", "invalid"), ("A a-Gas@5 - a-Spa@5 via convoy", "fails")],
               [("A a-Gas@6 H", "succeeds")], [("A a-Gas@7 - a-Bur@7", "fails")])
    other = game([("F a-Mao@5 C", "succeeds"), ("A a-Gas@5 - a-Spa@5 via convoy", "succeeds")],
                 [("A a-Gas@6 H", "succeeds")], [("A a-Gas@7 - a-Bur@7", "succeeds")])
    assert exercise(own, other) == (2, 2)  # the third step's move follows a position the games no longer share
    assert exercise(own, own) == (0, 0)
    # a jump given under one value only (the bot's try on a copy came out differently) parts the games at
    # its step: it is not counted, as docs/explore.md says of the jump_assists study
    held = game([("A a-Ruh@2 H", "succeeds"), ("A a-Bur@2 H", "succeeds")])
    jumped = game([("A a-Ruh@2 J a-Bur@2 - a-Bel@0", "succeeds"), ("A a-Bur@2 - a-Bel@0", "fails")])
    assert exercise(held, jumped) == (0, 0)


@pytest.mark.slow
def test_an_option_that_cannot_change_classic_play_makes_no_difference():
    """Adjacency between timelines cannot matter while nobody plays across boards: the games under
    both values are the same game, every difference is 0 and untested, and the study warns that the
    value was never exercised and that 3 games are few."""
    seats = parse_seats(["England=greedy"], MAP)
    study = run_bot_study(3, 5, 2, seats, asked_values(["adjacency=family,any"], []))
    assert len(study.complete) == 3 and not study.failures
    for _, (a, b) in study.played:
        assert a == b
    for m in study.measures():
        own, other = m.values
        assert own == other and m.versus_own[0] is None
        d = m.versus_own[1]
        assert (d.mean, d.p, d.differing, d.real) == (0.0, 1.0, 0, False), m.label
    assert study.given[1] == 0 and [w.split(":")[0] for w in study.warnings()] == [
        "adjacency=any was never exercised", "only 3 games played to their end under every value"]


@pytest.mark.slow
def test_a_bot_study_in_text_json_and_html(cli, tmp_path):
    argv = ["explore", "--bot-games", "3", "--seed", "2", "--years", "2", "--bot", "England=greedy",
            "--option", "victory=elimination,unique"]
    status, text, _ = cli(*argv, "--html", tmp_path / "s.html")
    assert status == 0
    assert text.startswith("Bot study: 3 classic games of 2 years, seed 2; England=greedy, others random; "
                           "options victory; own: victory=elimination\n")
    assert re.search(r"^  game length \(years\)\s+2\.00 \[2\.00, 2\.00\]\s+2\.00 \[2\.00, 2\.00\]$", text, re.M)
    status, out, _ = cli(*argv, "--json")
    doc = json.loads(out)
    assert status == 0 and doc["kind"] == "bot_study" and not errors(doc, load_schema())
    assert doc["columns"] == [{"victory": "elimination", "exercised": None},
                              {"victory": "unique", "exercised": {"given": 0, "succeeded": 0}}] and doc["own"] == 0
    assert doc["warnings"] and all(f"warning: {w}" in text for w in doc["warnings"])
    assert not any(m["measure"] == "steps" for m in doc["measures"])  # game length is counted once, in years
    england = next(m for m in doc["measures"] if m["measure"] == "centres" and m["power"] == "England")
    played = [g["columns"][0]["final_centres"]["England"] for g in doc["per_game"]]
    assert england["values"][0]["mean"] == pytest.approx(sum(played) / 3)
    assert "centres: England" in text
    page = (tmp_path / "s.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 4 and "<script" not in page
    assert page.count('<p class="warning">') == len(doc["warnings"])


@pytest.mark.slow
def test_the_page_escapes_what_it_shows():
    seats = parse_seats(["England=greedy"], MAP)
    study = run_bot_study(1, 1, 1, seats, asked_values(["adjacency=family,any"], []))
    study.names = ("<b>x</b>",)
    page = bot_study_html(study)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_bad_arguments_of_a_bot_study(cli):
    status, _, err = cli("explore", "--bot", "England=greedy", "--option", "victory=majority")
    assert status == 2 and "give --bot-games N" in err
    status, _, err = cli("explore", "--bot-games", "2", "--random-games", "2", "--option", "victory=majority")
    assert status == 2 and "not both" in err
    status, _, err = cli("explore", "--bot-games", "2", "--out", "x", "--option", "victory=majority")
    assert status == 2 and "--out writes a study's first divergences" in err
    status, _, err = cli("explore", "--bot-games", "2", "--bot", "France=nobot", "--option", "victory=majority")
    assert status == 2 and "not a bot" in err


@pytest.mark.slow
def test_a_rule_of_your_own_in_a_study_of_bot_games(cli):
    from pathlib import Path

    rule = Path(__file__).resolve().parents[3] / "docs" / "examples" / "no_cross_timeline_support.lp"
    status, out, _ = cli("explore", "--bot-games", "1", "--years", "1", "--rule", f"no_cross_timeline_support={rule}",
                         "--json")
    doc = json.loads(out)
    assert status == 0 and [{k: v for k, v in c.items() if k != "exercised"} for c in doc["columns"]] == [
        {"no_cross_timeline_support": False}, {"no_cross_timeline_support": True}]
    # classic games: nobody supports across timelines, so the rule changes nothing
    assert all(not m["versus_own"][1]["real"] and m["versus_own"][1]["mean"] == 0 for m in doc["measures"])


@pytest.mark.slow
def test_random_bots_exercise_open_convoys(cli):
    """Random bots draw from what either value allows, so they give open convoys; the study counts
    those whose result the value changed, and does not warn that it was never exercised."""
    status, out, err = cli("explore", "--bot-games", "2", "--seed", "1", "--years", "2", "--all-values", "open_convoys",
                           "--json")
    doc = json.loads(out)
    exercised = doc["columns"][1]["exercised"]
    assert status == 0 and 1 <= exercised["given"] and 0 <= exercised["succeeded"] <= exercised["given"]
    assert not any("never exercised" in w for w in doc["warnings"]) and "warning: only 2 games" in err


def test_bad_settings_laid_under_a_bot_study(cli):
    """``--set`` is read through the options registry: an unknown option or value, an option set twice,
    or ``--set`` without bot games is one line naming it, before any game is played."""
    status, _, err = cli("explore", "--bot-games", "2", "--set", "victory=fastest", "--all-values", "jump_assists")
    assert status == 2 and err.startswith("error: --set victory=fastest:") and "unique" in err
    status, _, err = cli("explore", "--bot-games", "2", "--set", "victroy=unique", "--all-values", "jump_assists")
    assert status == 2 and "victroy" in err and "Traceback" not in err
    status, _, err = cli("explore", "--bot-games", "2", "--set", "victory", "--all-values", "jump_assists")
    assert status == 2 and "NAME=VALUE" in err
    status, _, err = cli("explore", "--bot-games", "2", "--set", "victory=unique", "--set", "victory=majority",
                         "--all-values", "jump_assists")
    assert status == 2 and "--set victory: given twice" in err
    status, _, err = cli("explore", "--random-games", "2", "--set", "victory=unique", "--all-values", "jump_assists")
    assert status == 2 and "give --bot-games N" in err


@pytest.mark.slow
def test_a_setting_laid_under_every_value_of_a_bot_study(cli, monkeypatch):
    """``--set victory=unique`` is in the options of every game the study plays, under each compared
    value, and is not a column of its own; an option also compared takes it as its own value."""
    from fivedp_asp.lab.explore import botstudy

    played_under = []

    def recording(tables, *args, settings, **kwargs):
        played_under.extend(settings)
        return play_tables(tables, *args, settings=settings, **kwargs)

    play_tables = botstudy.play_tables
    monkeypatch.setattr(botstudy, "play_tables", recording)
    status, out, _ = cli("explore", "--bot-games", "1", "--years", "1", "--set", "victory=unique",
                         "--all-values", "jump_assists", "--json")
    doc = json.loads(out)
    assert status == 0 and not errors(doc, load_schema())
    assert doc["set"] == {"victory": "unique"} and doc["options"] == ["jump_assists"]
    assert [{k: v for k, v in c.items() if k != "exercised"} for c in doc["columns"]] == [
        {"jump_assists": False}, {"jump_assists": True}]
    assert [(s.chosen("victory"), s.chosen("jump_assists")) for s in played_under] == [
        ("unique", False), ("unique", True)]
    status, text, _ = cli("explore", "--bot-games", "1", "--years", "1", "--set", "victory=unique",
                          "--option", "victory=elimination")
    assert status == 0 and "options victory; own: victory=unique; set under every value: victory=unique" in text
    assert re.search(r"^ +victory=unique \(own\) +victory=elimination$", text, re.M)


def test_a_bot_study_without_scipy_says_what_to_install_before_it_plays(cli, monkeypatch):
    """SciPy is an extra: without it a study of bot games is refused at once as bad input naming the
    extra (exit status 2), never as a defect of fivedp after its games were played."""
    import sys

    from fivedp_asp.lab.explore import botstudy

    played = []
    monkeypatch.setattr(botstudy, "run_bot_study", lambda *a, **k: played.append(1))
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # import scipy.stats now raises ImportError
    status, out, err = cli("explore", "--bot-games", "2", "--years", "1", "--all-values", "jump_assists")
    assert status == 2 and out == "" and not played
    assert err.startswith("error: ") and "fivedp-asp[stats]" in err and "defect" not in err, err
