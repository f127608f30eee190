"""The sustain phase (option sustain, docs/rules.md §6.8.3): notation, reasons, once per game year, game files.

The scenarios in cases/options/sustain/ check votes and dissolutions; these check what a scenario
file cannot say: the reasons given, the phase's bookkeeping, and that a game file keeps its state.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.game.play import adjudicate, submit
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import Multiverse, Unit, make_board
from fivedp_asp.model.notation import format_order, parse_order
from fivedp_asp.model.orders import Sustain
from fivedp_asp.engine.step import MOVEMENT, next_phase, step
from fivedp_asp.model.settings import Settings

MAP = load_map("standard")
CASES = Path(__file__).resolve().parent.parent.parent / "cases" / "options" / "sustain"


def test_capitals_are_marked_in_the_map():
    assert sorted(MAP.capitals) == ["ber", "con", "lon", "mos", "par", "rom", "vie"]


@pytest.mark.parametrize("text, order, canonical", [
    ("Sustain b", Sustain(1), "Sustain b"),
    ("sustains bravo", Sustain(1), "Sustain b"),
    ("London sustains b", Sustain(1, "lon"), "Lon sustains b"),
    ("st petersburg SUSTAIN c1", Sustain(28, "stp"), "Stp sustains c1"),
    ("Lon sustain alfa", Sustain(0, "lon"), "Lon sustains a"),
])
def test_sustain_orders_parse_and_print_back(text, order, canonical):
    assert parse_order(text, MAP) == order
    assert format_order(order, MAP) == canonical
    assert parse_order(canonical, MAP) == order


def _reasons(path: Path, step_index: int) -> dict[str, str | None]:
    run = check_scenario(read_scenario(path))
    assert run.passed, run.problems
    return {o.text: o.reason for o in run.reports[step_index].outcomes}


def test_option_off_names_the_option():
    reasons = _reasons(CASES / "08-option-off.yaml", 2)
    assert reasons["Sustain a"] == "sustain order needs the option sustain"
    assert reasons["London sustains b"] == "sustain order needs the option sustain"


def test_reasons_of_invalid_sustain_orders():
    assert _reasons(CASES / "09-skipped-with-one-timeline.yaml", 1)["Sustain a"] == \
        "sustain orders belong to the sustain phase"
    reasons = _reasons(CASES / "02-contested-centres.yaml", 2)
    assert reasons["Sustain c"] == "timeline not in play"
    assert reasons["Sustain alfa"] == "power casts no fraction"
    reasons = _reasons(CASES / "07-all-would-dissolve.yaml", 2)
    assert reasons["London sustains a"] == "power casts no fraction of this centre"
    reasons = _reasons(CASES / "05-dissolved-timeline-unreachable.yaml", 4)
    assert reasons["A Berlin - b-Prussia@1"] == "dissolved timeline"
    assert reasons["F London Supports A b-Wales@1"] == "dissolved timeline"


def _late_multiverse(held: int | None) -> Multiverse:
    """Timeline a dissolved at Spring 1903; b and c in play, both at Fall 1902 (forked from a2)."""
    a4 = make_board(0, 4, [Unit("army", "England", "lon")], {"lon": "England"})
    b3 = make_board(1, 3, [Unit("army", "England", "lon")], {"lon": "England"})
    c3 = make_board(2, 3, [Unit("army", "France", "par")], {"par": "France"})
    return Multiverse(MAP, MappingProxyType({b.key: b for b in (a4, b3, c3)}), MappingProxyType({1: (0, 2), 2: (0, 2)}),
                      Settings.of({"sustain": True}), players=("England", "France"),
                      dissolved=frozenset({0}), sustain_held=held)


def test_sustain_phase_once_per_game_year():
    # the latest head in play is Fall 1902 again, after that year's phase was held: no second phase
    after = step(_late_multiverse(held=1), {}).after
    assert after.sustain_due is None and next_phase(after) == MOVEMENT
    # had it not been held, the Fall 1902 step would call it
    after = step(_late_multiverse(held=None), {}).after
    assert after.sustain_due == 1 and next_phase(after) == "sustain"
    # a dissolved timeline does not advance
    assert after.latest_turn(0) == 4 and after.latest_turn(1) == 4


def test_game_file_keeps_dissolved_timelines_and_sustain_state(tmp_path):
    scenario = read_scenario(CASES / "01-default-votes.yaml")
    game = new_game(scenario.start)
    for s in scenario.steps[:2]:
        game = dataclasses.replace(game, pending={str(p): [str(x) for x in v] for p, v in s.orders.items()})
        game, _ = adjudicate(game)
    assert game.mv.sustain_due == 0
    save_game(tmp_path / "g.yaml", game)
    game = load_game(tmp_path / "g.yaml")
    assert game.mv.sustain_due == 0 and next_phase(game.mv) == "sustain"
    game = submit(game, "England", ["Sustain a"])
    game, report = adjudicate(game)
    assert report.sustain is not None and report.sustain.dissolved == (1,)
    save_game(tmp_path / "g.yaml", game)
    loaded = load_game(tmp_path / "g.yaml")
    assert loaded.mv.dissolved == frozenset({1}) and loaded.mv.sustain_held == 0 and loaded.mv.sustain_due is None
    assert [h.name for h in loaded.mv.heads] == ["a2"] and loaded.mv.board(1, 1) is not None
    assert loaded.history[-1]["phase"] == "sustain" and loaded.history[-1]["sustain"]["dissolved"] == ["b"]


def test_results_list_fractions_choice_and_dissolved():
    from fivedp_asp.report.jsonout import scenario_document
    from fivedp_asp.report.text import step_lines

    run = check_scenario(read_scenario(CASES / "01-default-votes.yaml"))
    sustain = scenario_document(run)["steps"][2]["sustain"]
    assert sustain["dissolved"] == ["b"] and sustain["timelines_in_play"] == ["a", "b"]
    assert sustain["centres"]["London"] == {
        "fractions": [{"timeline": "a", "power": "France", "votes_for": "a"},
                      {"timeline": "b", "power": "England", "votes_for": "b"}],
        "shares": {"a": "1/2", "b": "1/2"}, "sustains": "a"}
    assert sustain["centres"]["Rome"] == {"fractions": [], "shares": {}, "sustains": None}
    text = "\n".join(step_lines(run.reports[2], 3))
    assert "Step 3: sustain phase of 1901 (timelines in play: a, b)" in text
    assert "  London: a (France) -> a, b (England) -> b; sustains a (a 1/2, b 1/2)" in text
    assert "  Dissolved: b" in text
