"""Retreat programs are given only the locations their rules read (``facts.retreat_loc_facts``): every
retreat question of random games is answered exactly as with the map's every location and province
type, and with a small fraction of those facts."""

from __future__ import annotations

import pytest

from fivedp_asp.engine import step as step_module
from fivedp_asp.api import load_scenario
from fivedp_asp.lab.bench.classic import record_phases
from fivedp_asp.engine.facts import map_facts
from fivedp_asp.solver.driver import solve_decisions, solve_in_universe


def _whole_map(game_map) -> str:
    """Every ``loc/2`` and ``ptype/2`` fact of the map: what retreat programs were given before."""
    return "".join(line + "\n" for line in map_facts(game_map).splitlines() if not line.startswith("edge("))


def _retreat_queries(phases):
    """Every retreat program a step asks for (retreat phases, and the movement phases whose dislodged
    units are checked for somewhere to go), with the step's multiverse."""
    for p in phases:
        queries = step_module.steps(p.mv, p.orders)
        query = next(queries)
        try:
            while True:
                solution = (solve_in_universe(query.programs, query.universe, query.static)
                            if query.universe is not None else solve_decisions(query.programs, query.text(), query.static))
                if query.programs[0] == "retreat.lp":
                    yield p.mv, query, solution
                query = queries.send(solution)
        except StopIteration:
            pass


@pytest.mark.slow
def test_retreats_answer_as_with_the_whole_map():
    phases = record_phases(40, seed=3)
    seen = with_orders = 0
    for mv, query, solution in _retreat_queries(phases):
        assert query.static == ""
        whole = solve_decisions(query.programs, "\n".join(l for l in query.text().splitlines() if not l.startswith("loc("))
                                + "\n", _whole_map(mv.game_map))
        assert sorted(map(str, solution.atoms)) == sorted(map(str, whole.atoms))
        given = sum(1 for line in query.text().splitlines() if line.startswith("loc("))
        assert 0 < given < _whole_map(mv.game_map).count("loc(") / 4
        seen += 1
        with_orders += "order(" in query.text()
    assert seen >= 5 and with_orders >= 2, (seen, with_orders)


def test_a_retreat_to_a_coast_its_edges_do_not_reach_is_an_impossible_coast(tmp_path):
    # the Gulf of Lyon touches the south coast of Spain only: the north coast named in the order is
    # known to the rules because the locations of the province the order moves to are given
    path = tmp_path / "case.yaml"
    path.write_text("""\
id: "retreat to the other coast"
title: "A fleet dislodged from the Gulf of Lyon names the north coast of Spain"
start:
  turn: 1
  phase: retreat
  units:
    Italy: [F Gulf of Lyon]
  dislodged:
    France:
    - {unit: F Gulf of Lyon, attacker_from: Tyrrhenian Sea}
steps:
- orders:
    France: [F Gulf of Lyon - Spain/nc]
""")
    scenario = load_scenario(path)
    report = step_module.step(scenario.start, scenario.steps[0].orders)
    assert [(o.result, o.reason) for o in report.outcomes] == [("invalid", "impossible coast")]
