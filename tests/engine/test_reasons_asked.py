"""Reasons grounded only when asked for (``step(..., reasons=False)``): the rules of reasons
(asp/*/reasons.lp) only explain results, so leaving them out changes nothing but the reasons.

Every scenario of cases/ is run step by step both ways, in lockstep batches as ``fivedp check`` runs
them, and a slice (paradoxes, adjustments, the sustain phase, options) one phase at a time as well:
results, positions, records (the decisions), dislodgements, backup rules and the shown atoms other
than ``reason/4`` must be the same; a legal order has no reason and no causes, an invalid one keeps
its reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedp_asp.engine.batch import step_many
from fivedp_asp.engine.phase import Query, program
from fivedp_asp.engine.step import step, steps
from fivedp_asp.files.scenarios import find_scenarios, read_scenario
from fivedp_asp.solver.driver import encoding_size
from tests.scenario_runs import SHARED, every_scenario, every_scenario_checked

CASES = Path(__file__).resolve().parent.parent.parent / "cases"
# paradoxes and circles, retreats, adjustments and civil disorder, the sustain phase, the options whose
# files derive reasons of their own, and DATC readings of paradoxes, supports and adjustments
SLICE = ("datc/6.C.01.yaml", "datc/6.F.14.yaml", "datc/6.F.16.yaml", "datc/6.F.18.yaml", "datc/6.F.24.yaml",
         "datc/6.H.09.yaml", "datc/6.H.15.yaml", "datc/6.I.01.yaml", "datc/6.J.01.yaml", "datc/6.J.11.yaml",
         "options/sustain", "options/jump_assists", "options/open_convoys", "rules")
SLICE_OPTIONS = ("4.A.", "4.D.", "6.F.1")  # of cases/datc-options
ROOT = CASES.parent
NO_CROSS = ROOT / "docs" / "examples" / "no_cross_timeline_support.lp"
MV6 = CASES / "multiverse" / "4.06-seed004-example-1-dislodged-past-supporter.yaml"


def _scenarios(paths=None):
    found = find_scenarios([str(CASES / p) for p in paths] if paths else [str(CASES)])
    return [read_scenario(p) for p in sorted(found)]


def _same(with_reasons, without) -> None:
    """The two reports of one step agree on everything but the reasons of legal orders."""
    a, b = with_reasons, without
    assert type(a) is type(b)
    if isinstance(a, Exception):
        assert str(a) == str(b)
        return
    assert (a.phase, a.before, a.after) == (b.phase, b.before, b.after)
    assert (a.dislodged, a.disbanded, a.backups, a.dislodgers, a.sustain) == \
        (b.dislodged, b.disbanded, b.backups, b.dislodgers, b.sustain)
    assert [(o.power, o.text, o.result) for o in a.outcomes] == [(o.power, o.text, o.result) for o in b.outcomes]
    for x, y in zip(a.outcomes, b.outcomes):
        if x.result == "invalid":
            assert (y.reason, y.explanation) == (x.reason, x.explanation)
        else:
            assert (y.reason, y.explanation) == (None, ())
    if a.solution is not None:
        # (an option's file may derive reasons of its own, open_convoys.lp say: the outcomes ignore them)
        def shown(solution):
            return {str(s) for s in solution.atoms if not str(s).startswith("reason(")}
        assert shown(a.solution) == shown(b.solution)


def _lockstep(scenarios, run, known=()):
    """Each scenario's steps, both ways, the position always the one with reasons gives; how many
    steps were compared, and how many legal orders had a reason (so that the comparison is not empty).
    ``known``: each scenario's run by ``check_scenarios`` (``tests/scenario_runs.py``), whose reports
    are its steps with reasons, adjudicated in lockstep as ``run`` would; the steps it has no report of
    (after a win, after an error) are run here."""
    positions = [c.start for c in scenarios]
    waiting = [n for n, c in enumerate(scenarios) if c.steps]
    done = [0] * len(scenarios)
    compared = explained = 0
    while waiting:
        asked = [(positions[n], scenarios[n].steps[done[n]].orders) for n in waiting]
        full = [_known_report(known, n, done[n]) for n in waiting]
        missing = [k for k, x in enumerate(full) if x is None]
        if missing:
            for k, x in zip(missing, run([asked[k] for k in missing], True)):
                full[k] = x
        plain = run(asked, False)
        still = []
        for n, x, y in zip(waiting, full, plain):
            _same(x, y)
            compared += 1
            if not isinstance(x, Exception):
                explained += sum(1 for o in x.outcomes if o.result != "invalid" and o.reason)
            done[n] += 1
            if not isinstance(x, Exception) and done[n] < len(scenarios[n].steps):
                positions[n] = x.after
                still.append(n)
        waiting = still
    return compared, explained


def _known_report(known, n: int, i: int):
    """Step ``i``'s report in the known run of scenario ``n``, or None."""
    if not known or isinstance(known[n], Exception) or i >= len(known[n].reports):
        return None
    return known[n].reports[i]


def _one_at_a_time(asked, reasons):
    out = []
    for mv, orders in asked:
        try:
            out.append(step(mv, orders, reasons=reasons))
        except Exception as exc:  # noqa: BLE001 - compared as the batch gives it
            out.append(exc)
    return out


@pytest.mark.slow
@pytest.mark.shares(SHARED)
def test_every_scenario_gives_the_same_answer_without_reasons_in_batches():
    scenarios = every_scenario()
    assert len(scenarios) > 300
    compared, explained = _lockstep(scenarios, lambda asked, reasons: step_many(asked, reasons=reasons),
                                    every_scenario_checked())
    assert compared > 500 and explained > 500


@pytest.mark.slow
def test_a_few_scenarios_give_the_same_answer_without_reasons():
    # the quick run's share of the two tests below: a paradox, civil disorder, the sustain phase, an
    # option's own reasons, one phase at a time and in one batch
    scenarios = _scenarios(["datc/6.F.16.yaml", "datc/6.J.01.yaml", "options/sustain/02-contested-centres.yaml",
                        "options/open_convoys/05-no-intent-from-open-convoy.yaml"])
    assert _lockstep(scenarios, _one_at_a_time)[1] > 0
    assert _lockstep(scenarios, lambda asked, reasons: step_many(asked, reasons=reasons))[1] > 0


@pytest.mark.slow
def test_paradoxes_adjustments_sustain_and_options_give_the_same_answer_one_at_a_time():
    from fivedp_asp.engine.userrules import parse_specs, scenario_with_rules

    scenarios = _scenarios(SLICE) + [c for c in _scenarios(["datc-options"]) if Path(c.path).name.startswith(SLICE_OPTIONS)]
    # with a rule of your own (which may read what the reasons derive)
    scenarios.append(scenario_with_rules(read_scenario(MV6), parse_specs([f"no_cross_timeline_support={NO_CROSS}"])))
    assert len(scenarios) > 50
    compared, explained = _lockstep(scenarios, _one_at_a_time)
    assert compared > 60 and explained > 60


def _queries(mv, orders, reasons: bool) -> list[Query]:
    """The queries of one step, answered as ``step.run`` answers them, collected."""
    from fivedp_asp.solver.driver import solve_decisions

    asked = []
    gen = steps(mv, orders, reasons=reasons)
    try:
        query = next(gen)
        while True:
            asked.append(query)
            query = gen.send(solve_decisions(query.programs, query.text(), query.static, names=query.names()))
    except StopIteration:
        return asked


@pytest.mark.parametrize("name, program_name", [("datc/6.D.02.yaml", "movement"),
                                                ("datc/6.I.01.yaml", "adjustment")])
def test_the_reasons_file_is_grounded_only_when_asked_for(name, program_name):
    scenario = read_scenario(CASES / name)
    mv = scenario.start
    for s in scenario.steps:
        queries = {reasons: _queries(mv, s.orders, reasons) for reasons in (True, False)}
        mine = [q for q in queries[True] if q.programs[0] == f"{program_name}.lp"]
        if mine:
            break
        mv = step(mv, s.orders).after
    reasons_file = f"{program_name}/reasons.lp"
    full = [q for q in queries[True] if q.programs[0] == f"{program_name}.lp"]
    plain = [q for q in queries[False] if q.programs[0] == f"{program_name}.lp"]
    assert full and len(full) == len(plain)
    assert all(reasons_file in q.programs for q in full)
    assert not any(reasons_file in q.programs for q in plain)
    # and what the grounder is handed is that much smaller
    q, p = full[0], plain[0]
    assert encoding_size(p.programs, p.text(), p.static, p.names()) < encoding_size(q.programs, q.text(), q.static,
                                                                                       q.names())
    # the checks the engine makes for itself ask for none
    assert not any(r.endswith("/reasons.lp") for r in program(mv, "retreat"))


def test_rules_of_your_own_always_have_the_reasons_beside_them():
    # a rule of your own may read what reasons.lp derives (support_order/3, ...) to decide a result
    from dataclasses import replace

    from fivedp_asp.model.settings import Settings
    from fivedp_asp.engine.userrules import parse_specs

    mv = read_scenario(CASES / "datc/6.A.11.yaml").start
    mine = replace(mv, options=Settings().with_rules(parse_specs([f"no_cross_timeline_support={NO_CROSS}"]), in_effect=True))
    assert "movement/reasons.lp" in program(mine, "movement", reasons=False)
    assert "movement/reasons.lp" not in program(mv, "movement", reasons=False)
