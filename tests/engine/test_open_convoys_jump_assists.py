"""The options open_convoys and jump_assists (docs/rules.md §6.8.1-6.8.2) beyond what a scenario can check.

Scenarios compare results only; here the reasons of invalid orders (an order that needs an option
names it), the new order forms in retreat and adjustment phases, the size of the ground program
(the option files bind every rule through order facts, so without such orders they add nothing),
and the assist decision in a board's record and in a game file.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml

from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.engine.facts import map_facts, movement_facts
from fivedp_asp.solver.predicates import render
from fivedp_asp.files.games import game_data, load_game, save_game
from fivedp_asp.game.play import adjudicate, submit
from fivedp_asp.game.state import new_game
from fivedp_asp.solver.driver import solve_decisions
from fivedp_asp.engine.step import read_orders, step
from fivedp_asp.model.settings import Settings

CASES = Path(__file__).resolve().parent.parent.parent / "cases" / "options"


def _outcomes(path: Path) -> dict[str, tuple[str, str | None]]:
    run = check_scenario(read_scenario(path))
    assert run.passed, run.problems
    return {o.text: (o.result, o.reason) for report in run.reports for o in report.outcomes}


def test_an_order_that_needs_an_option_names_it():
    oc = _outcomes(CASES / "open_convoys" / "09-option-off.yaml")
    assert oc["F North Sea C"] == ("invalid", "open convoy needs the option open_convoys")
    ja = _outcomes(CASES / "jump_assists" / "10-option-off.yaml")
    assert ja["A Munich - a-Tyrolia@0"] == (
        "invalid", "too far in time: a jump needs the option jump_assists")
    assert ja["A Berlin J A Munich - a-Tyrolia@0"] == ("invalid", "jump assist needs the option jump_assists")


def test_reasons_with_the_options_on():
    ja9 = _outcomes(CASES / "jump_assists" / "09-too-few-assists-ordered.yaml")
    assert ja9["A Munich - a-Tyrolia@0"] == ("invalid", "too few jump assists ordered for the length of the jump")
    # the assisted jump is illegal, so Munich holds and the assist matches no move (docs/rules.md §6.8.2)
    assert ja9["A Berlin J A Munich - a-Tyrolia@0"] == ("fails", "not matching: A a-Mun@3 does not move")
    assert ja9["A Kiel - a-Holland@1 via convoy"] == ("invalid", "a convoyed move cannot be a jump")
    ja7 = _outcomes(CASES / "jump_assists" / "07-two-timelines-any.yaml")
    assert ja7["A c-Silesia J A c-Galicia - a-Galicia@2"] == ("invalid", "the assisted move is no jump")
    oc4 = _outcomes(CASES / "open_convoys" / "04-route-mixes-open-and-specific.yaml")
    assert oc4["F London C"] == ("invalid", "cannot convoy")
    assert oc4["A Kiel C"] == ("invalid", "cannot convoy")


def test_the_new_orders_belong_to_the_movement_phase():
    scenario = read_scenario(CASES / "open_convoys" / "07-disruption-one-of-two-routes.yaml")
    after = check_scenario(scenario).reports[0].after  # the North Sea fleet waits to retreat
    report = step(after, {"England": ["F North Sea C", "F North Sea J F English Channel - a-Wales@0"]})
    assert report.phase == "retreat"
    assert [(o.result, o.reason) for o in report.outcomes] == [("invalid", "wrong phase")] * 2


def _ground_size(mv, orders: dict[str, list[str]]) -> tuple[int, int]:
    facts = movement_facts(mv, read_orders(mv, orders))
    programs = ["movement.lp", *mv.options.files("movement")]
    solution = solve_decisions(programs, render(facts.facts), map_facts(mv.game_map), statistics=True)
    return solution.atoms_count, solution.rules_count


def test_the_option_files_add_nothing_without_their_orders():
    scenario = read_scenario(CASES / "open_convoys" / "07-disruption-one-of-two-routes.yaml")
    orders = scenario.steps[0].orders | {"England": ["F North Sea H", "F English Channel H"]}
    off = _ground_size(scenario.start, orders)
    on = _ground_size(dataclasses.replace(scenario.start, options=Settings.of(
        {"open_convoys": True, "jump_assists": True})), orders)
    # only the two facts allowed(open_convoys), allowed(jump_assists)
    assert on[0] - off[0] <= 2 and on[1] - off[1] <= 2, (off, on)


def test_assist_decisions_are_recorded_and_kept_by_the_game_file(tmp_path):
    scenario = read_scenario(CASES / "jump_assists" / "01-two-back-one-assist-forks.yaml")
    start = scenario.start
    game = new_game(start)
    for s in scenario.steps:
        for power, lines in s.orders.items():
            game = submit(game, power, [str(x) for x in lines])
        game, report = adjudicate(game)
    record = game.mv.board(0, 2).record
    assert record.decisions[("assist_given", (0, 2, "ber"))] is True
    path = tmp_path / "game.yaml"
    save_game(path, game)
    loaded = load_game(path)
    assert loaded.mv.board(0, 2).record.decisions == record.decisions
    assert game_data(loaded) == game_data(game)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["past"]["a2"]["record"]["decisions"]["assist_given a-Ber@2"] is True
    assert "A a-Ber@2 J a-Mun@2 - a-Tyr@0" in data["past"]["a2"]["record"]["orders"]["Germany"]
