"""Adjustments are adjudicated without the map's adjacency and names unless a power is short of
removals; then again with them, so that civil disorder removes the unit DATC 4.D.8 names."""

from __future__ import annotations

import pytest

from fivedp_asp.engine import phase as phase_module
from fivedp_asp.engine import step as step_module
from fivedp_asp.api import load_map, load_scenario
from fivedp_asp.engine.facts import adjustment_map_facts

SCENARIO = """\
id: "civil disorder by distance"
title: "France owes one removal and orders none"
start:
  turn: 2
  phase: adjustment
  units:
    France: [A Gascony, A Piedmont]
    England: [A London]
  centers:
    France: [Paris]
    England: [London]
steps:
  - orders:
      France: []
"""


def _run(tmp_path, text):
    """The step's report and whether each adjustment program it solved had the map's adjacency."""
    path = tmp_path / "case.yaml"
    path.write_text(text)
    scenario = load_scenario(path)
    statics: list[bool] = []
    real = phase_module.solve_decisions

    def recording(programs, facts, static="", **kwargs):
        if programs[0] == "adjustment.lp":
            statics.append("padj(" in static)
        return real(programs, facts, static, **kwargs)

    phase_module.solve_decisions = recording
    try:
        report = step_module.step(scenario.start, scenario.steps[0].orders)
    finally:
        phase_module.solve_decisions = real
    return report, statics


def test_the_map_facts_without_civil_disorder_leave_out_adjacency_and_names():
    m = load_map("standard")
    small, full = adjustment_map_facts(m, civil_disorder=False), adjustment_map_facts(m)
    for name in ("padj(", "fadj(", "name_rank("):
        assert name not in small and name in full
    assert set(small.splitlines()) < set(full.splitlines())


def test_a_power_short_of_removals_is_adjudicated_again_with_distances(tmp_path):
    report, statics = _run(tmp_path, SCENARIO)
    assert statics == [False, True]
    # Piedmont is three provinces from Paris, Gascony one, neither a centre: the farther unit goes
    # (DATC 4.D.8, 2023 rule), although Gascony comes first by name
    france = sorted(u.location for b in report.after.heads for u in b.units.values() if u.power == "France")
    assert france == ["gas"]


def test_ordered_removals_need_no_second_program(tmp_path):
    text = SCENARIO.replace("France: []", "France: [Remove A Piedmont]")
    report, statics = _run(tmp_path, text)
    assert statics == [False]
    france = sorted(u.location for b in report.after.heads for u in b.units.values() if u.power == "France")
    assert france == ["gas"]


def test_the_balances_are_worked_out_once_per_multiverse(tmp_path, monkeypatch):
    """A served game's views ask the balances of the phase that waits again and again: the adjustment
    program is solved for the first question only, and the answer is the same and read-only."""
    from fivedp_asp.engine import adjustment

    path = tmp_path / "case.yaml"
    path.write_text(SCENARIO)
    mv = load_scenario(path).start
    calls = []
    real = adjustment.solve_decisions
    monkeypatch.setattr(adjustment, "solve_decisions", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = adjustment.adjustment_balances(mv)
    again = adjustment.adjustment_balances(mv)
    assert len(calls) == 1 and dict(first) == dict(again) == {((0, 2), "France"): -1, ((0, 2), "England"): 0}
    with pytest.raises(TypeError):
        first[((0, 2), "France")] = 5  # type: ignore[index]
    assert adjustment.adjustment_balances(mv)[((0, 2), "France")] == -1
    assert len(calls) == 1
