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
from fivedp_asp.lab.explore.stats import Resampler
from fivedp_asp.model.map import load_map
from fivedp_asp.report.jsonout import load_schema
from tests.schema_check import errors

MAP = load_map("standard")


def test_intervals_of_known_samples():
    sampler = Resampler(40, "t")
    same = sampler.interval([3.0] * 40)
    assert (same.mean, same.low, same.high, same.real) == (3.0, 3.0, 3.0, True)
    half = sampler.interval([0.0, 1.0] * 20)
    # the mean of 40 fair coins: 0.5, with a 95% interval of about 0.5 +- 1.96 * 0.5 / sqrt(40) = +- 0.155
    assert half.mean == 0.5 and 0.30 < half.low < 0.40 and 0.60 < half.high < 0.70
    none = sampler.difference([1.0, 2.0] * 20, [1.0, 2.0] * 20)
    assert (none.mean, none.low, none.high, none.real) == (0.0, 0.0, 0.0, False)
    shifted = sampler.difference([1.0, 2.0] * 20, [2.0, 3.0] * 20)
    assert (shifted.mean, shifted.low, shifted.high, shifted.real) == (1.0, 1.0, 1.0, True)
    noisy = sampler.difference([0.0] * 40, [0.0, 1.0, -1.0, 0.0] * 10)
    assert noisy.low < 0 < noisy.high and not noisy.real
    assert Resampler(40, "t").draws == sampler.draws  # seeded: the same study prints the same intervals
    with pytest.raises(UsageError):
        sampler.interval([1.0] * 39)
    with pytest.raises(UsageError):
        Resampler(0, "t")


@pytest.mark.slow
def test_an_option_that_cannot_change_classic_play_makes_no_difference():
    """Adjacency between timelines cannot matter while nobody plays across boards: the games under
    both values are the same game, and every difference is 0 with an interval of width 0."""
    seats = parse_seats(["England=greedy"], MAP)
    study = run_bot_study(3, 5, 2, seats, asked_values(["adjacency=family,any"], []))
    assert len(study.complete) == 3 and not study.failures
    for _, (a, b) in study.played:
        assert a == b
    for m in study.measures():
        own, other = m.values
        assert own == other and m.versus_own[0] is None
        d = m.versus_own[1]
        assert (d.mean, d.low, d.high, d.real) == (0.0, 0.0, 0.0, False), m.label


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
    assert doc["columns"] == [{"victory": "elimination"}, {"victory": "unique"}] and doc["own"] == 0
    england = next(m for m in doc["measures"] if m["measure"] == "centres" and m["power"] == "England")
    played = [g["columns"][0]["final_centres"]["England"] for g in doc["per_game"]]
    assert england["values"][0]["mean"] == pytest.approx(sum(played) / 3)
    assert "centres: England" in text
    page = (tmp_path / "s.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 4 and "<script" not in page


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
    assert status == 0 and doc["columns"] == [{"no_cross_timeline_support": False},
                                              {"no_cross_timeline_support": True}]
    # classic games: nobody supports across timelines, so the rule changes nothing
    assert all(not m["versus_own"][1]["real"] and m["versus_own"][1]["mean"] == 0 for m in doc["measures"])
