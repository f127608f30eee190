"""The readings of other implementations as options (strict_adjacency, diagonals, adjacency: distance,
support_results, winner; docs/rules.md §6.3, §6.7, §6.8.4-§6.8.6) and the presets (§6.9), beyond what
a scenario can check: the registry and its presets, the size of the ground program (every rule of the
option files is bound through order facts and the across_boards guard), the reasons, and a preset
with options written beside it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fivedp_asp.engine.facts import map_facts, movement_facts
from fivedp_asp.engine.step import read_orders
from fivedp_asp.engine.userrules import validated, with_preset
from fivedp_asp.errors import InputError, RuleError
from fivedp_asp.files.scenarios import check_scenario, read_scenario
from fivedp_asp.model.options import PRESETS, REGISTRY, preset
from fivedp_asp.model.settings import Settings
from fivedp_asp.solver.driver import solve_decisions
from fivedp_asp.solver.encodings import asp_dir
from fivedp_asp.solver.predicates import render

CASES = Path(__file__).resolve().parent.parent.parent / "cases" / "options"
READINGS = {"strict_adjacency": True, "diagonals": False, "adjacency": "distance", "support_results": "follow",
            "cut_supports_fork": True, "winner": "most_centres"}


def test_every_reading_is_a_registered_value_with_its_file_and_scenarios():
    for name, value in READINGS.items():
        v = REGISTRY[name].value(value)
        assert v.file and (asp_dir() / "options" / v.file).is_file(), (name, value)
        assert list((CASES / name).glob("*.yaml")), name


def test_the_presets_seeds_and_oliveriver():
    assert preset("seeds").values == ()
    assert Settings(preset("seeds").values) == Settings()
    oliveriver = dict(preset("oliveriver").values)
    # every reading but strict adjacency, which their games choose one by one (hasStrictAdjacencies),
    # and their victory: 18 centres counted once by name across the heads
    assert oliveriver == {**{k: v for k, v in READINGS.items() if k != "strict_adjacency"}, "victory": "unique"}
    assert set(PRESETS) == {"seeds", "oliveriver"}


def test_a_preset_in_options_with_values_beside_it():
    settings = validated({"preset": "oliveriver", "diagonals": True, "sustain": True})
    assert settings.chosen("diagonals") is True  # written beside the preset: it wins
    assert settings.chosen("adjacency") == "distance"
    assert settings.chosen("sustain") is True
    assert validated({"preset": "seeds"}) == Settings()
    # --preset under a scenario's own values: they win, the preset fills in the rest
    assert with_preset(Settings.of({"adjacency": "any"}), "oliveriver").chosen("adjacency") == "any"
    assert with_preset(Settings.of({"adjacency": "any"}), "oliveriver").chosen("winner") == "most_centres"
    assert with_preset(Settings(), None) == Settings()


@pytest.mark.parametrize("raw, words", [
    ({"preset": "olive"}, "unknown preset 'olive' (known: seeds, oliveriver)"),
    ({"preset": True}, "unknown preset true"),
    ({"preset": "oliveriver", "diagonals": "no"}, "option diagonals cannot be 'no'"),
])
def test_a_bad_preset_is_bad_input(raw, words):
    with pytest.raises(InputError) as info:
        validated(raw)
    assert words in str(info.value)


def test_no_rule_of_your_own_is_named_preset(tmp_path):
    from fivedp_asp.engine.userrules import parse_spec

    rule = tmp_path / "mine.lp"
    rule.write_text("bad(I,mine) :- order(I,U,Pw).\n")
    with pytest.raises(RuleError, match="'preset'"):
        parse_spec(f"preset={rule}")


def _ground_size(mv, orders: dict[str, list[str]]) -> tuple[int, int]:
    facts = movement_facts(mv, read_orders(mv, orders))
    programs = ["movement.lp", *mv.options.files("movement")]
    solution = solve_decisions(programs, render(facts.facts), map_facts(mv.game_map), statistics=True)
    return solution.atoms_count, solution.rules_count


def test_the_option_files_add_almost_nothing_without_orders_across_boards():
    scenario = read_scenario(CASES / "support_results" / "02-given.yaml")
    orders = scenario.steps[0].orders
    off = _ground_size(scenario.start, orders)
    adjacency = _ground_size(dataclasses.replace(scenario.start, options=Settings.of(
        {"strict_adjacency": True, "diagonals": False, "adjacency": "distance", "cut_supports_fork": True})), orders)
    # only the fact lines_by_number: no rule of the four files fires without across_boards or a past board
    assert adjacency[0] - off[0] <= 1 and adjacency[1] - off[1] <= 1, (off, adjacency)
    follow = _ground_size(dataclasses.replace(scenario.start, options=Settings.of({"support_results": "follow"})),
                          orders)
    # the flag, and per support order (five here) at most its supported_ok atom and rules
    supports = sum(" S " in line for lines in orders.values() for line in lines)
    assert supports == 5
    assert follow[0] - off[0] <= 1 + 2 * supports and follow[1] - off[1] <= 1 + 2 * supports, (off, follow)


def _outcomes(path: Path) -> dict[str, tuple[str, str | None]]:
    run = check_scenario(read_scenario(path))
    assert run.passed, run.problems
    return {o.text: (o.result, o.reason) for report in run.reports for o in report.outcomes}


def test_the_reasons_name_the_reading():
    strict = _outcomes(CASES / "strict_adjacency" / "03-support-into-other-province.yaml")
    assert strict["A Munich S A a-Kiel@0"] == (
        "invalid", "strict adjacency: a support into another board must be into the supporter's own province")
    diagonal = _outcomes(CASES / "diagonals" / "01-diagonal-step-refused.yaml")
    assert "diagonals: false" in diagonal["A a-Berlin@2 - b-Prussia@1"][1]
    distance = _outcomes(CASES / "adjacency" / "01-distance.yaml")
    assert "adjacency: distance" in distance["A c-Silesia@2 - a-Bohemia@3"][1]
    follow = _outcomes(CASES / "support_results" / "01-follow.yaml")
    assert follow["A Munich S A Berlin - Silesia"] == ("fails", "given, but the supported order of A Ber fails")


def test_support_results_follow_changes_no_position():
    follow = check_scenario(read_scenario(CASES / "support_results" / "01-follow.yaml"))
    given = check_scenario(read_scenario(CASES / "support_results" / "02-given.yaml"))
    assert follow.passed and given.passed
    assert [(r.after.boards, r.dislodged) for r in follow.reports] == [(r.after.boards, r.dislodged)
                                                                        for r in given.reports]
    results = [{o.text: o.result for o in r.outcomes} for r in (follow.reports[0], given.reports[0])]
    assert results[0] != results[1]


def _after(path: Path, options: dict, steps: int):
    """The multiverse after the first ``steps`` steps of a scenario, played under ``options``."""
    scenario = read_scenario(path)
    settings = Settings.of(options)
    played = dataclasses.replace(scenario, options=settings, start=dataclasses.replace(scenario.start, options=settings),
                                 steps=tuple(dataclasses.replace(s, expect={}) for s in scenario.steps[:steps]))
    return check_scenario(played).reports[-1].after


def test_legal_orders_follow_the_readings():
    """The listing of legal orders (engine/possible.py) asks the same program: under strict_adjacency it
    lists no move to another board that changes province, under diagonals: false no diagonal move."""
    from fivedp_asp.engine.possible import legal_orders

    def listed(mv, unit: str, to: str) -> set[str]:
        return {o.order for o in legal_orders(mv, unit=unit, kind="move", to=to)}

    sa = CASES / "strict_adjacency" / "02-move-changes-province-default.yaml"
    loose, strict = (listed(_after(sa, options, 1), "A Munich", "a0") for options in ({}, {"strict_adjacency": True}))
    assert {"A a-Mun@1 - a-Tyr@0", "A a-Mun@1 - a-Mun@0"} <= loose
    assert strict == {"A a-Mun@1 - a-Mun@0"}
    dg = CASES / "diagonals" / "02-diagonal-step-default.yaml"
    diagonal, straight = (listed(_after(dg, options, 3), "A a-Berlin@2", "b1")
                          for options in ({}, {"diagonals": False}))
    assert "A a-Ber@2 - b-Pru@1" in diagonal and not straight
