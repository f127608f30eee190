"""Every scenario under cases/ (all subfolders) must pass, and scenario ids must be unique.

One test per scenario file, named by the scenario's id (``DATC 6.A.1``). The ids are read with plain
pyyaml at collection time so that a file that does not load still becomes a (failing) test instead
of breaking collection. After the collection tests come a few tests of the scenario format's
semantics (docs/case-format.md) on small scenarios written to a temporary folder.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from fivedp_asp.engine.step import refused_orders
from fivedp_asp.files.scenarios import find_scenarios, read_scenario, check_scenario
from fivedp_asp.model.kinds import Result

CASES_DIR = Path(__file__).resolve().parent.parent.parent / "cases"
SCENARIO_FILES = sorted(find_scenarios([str(CASES_DIR)])) if CASES_DIR.is_dir() else []


def _declared_id(path: Path) -> str:
    """The id a file declares, or its path relative to cases/ when it cannot be read."""
    try:
        # libyaml's loader where PyYAML has it: every worker reads the 400 files when it collects, and
        # the pure-Python loader took 1.3 s of processor time for it, libyaml's 0.1 s (the same values)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError):
        data = None
    if isinstance(data, dict) and data.get("id") is not None:
        return str(data["id"])
    return str(path.relative_to(CASES_DIR))


SCENARIO_IDS = [_declared_id(p) for p in SCENARIO_FILES]


def test_collection_is_not_empty():
    assert SCENARIO_FILES, f"no scenario files under {CASES_DIR}"


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=SCENARIO_IDS)
def test_scenario(path: Path):
    run = check_scenario(read_scenario(path))
    assert not run.problems, f"{run.scenario.id} ({path}):\n" + "\n".join(run.problems)
    # every order that fails says why (an invalid order's reason is why it was ignored), under every
    # option and in every phase, the sustain phase included
    unexplained = [f"step {i}: {o.text}" for i, r in enumerate(run.reports, 1) for o in r.outcomes
                   if o.result == "fails" and not (o.explanation and o.reason)]
    assert not unexplained, f"{run.scenario.id}: failed orders without a reason: {unexplained}"
    # the legality rules alone, which check a submission while its phase waits, ignore the very
    # orders the step ignored, for the same reasons
    for n, (report, s) in enumerate(zip(run.reports, run.scenario.steps), 1):
        refused = refused_orders(report.before, s.orders)
        if refused is not None:
            ignored = [(o.power, o.text, o.reason) for o in report.outcomes if o.result == Result.INVALID]
            assert [(o.power, o.text, o.reason) for o in refused] == ignored, f"{run.scenario.id}, step {n}"


@pytest.mark.parametrize("scenario, line, text", [
    ("jump_assists/03-three-back-one-assist-cut-support-stands.yaml", "A Munich - a-Bohemia@0",
     "too few jump assists given (1 of 2)"),
    ("jump_assists/03-three-back-one-assist-cut-support-stands.yaml", "A Berlin J A Munich - a-Bohemia@0",
     "cut by A a-Pru@3"),  # the assisted move reaches a second board: every unit named with its board
    ("open_convoys/05-no-intent-from-open-convoy.yaml", "F North Sea C", "open convoy not used by any army"),
    ("sustain/02-contested-centres.yaml", "Sustain b", "London sustains a"),
    ("sustain/03-centre-order-beats-power-wide.yaml", "Sustain bravo", "overridden by a later order"),
])
def test_reasons_under_options_in_words(scenario, line, text):
    """The reasons that option logic files and the sustain phase derive, with their details in words
    (a ``reasons:`` expectation checks kinds and units only)."""
    run = check_scenario(read_scenario(CASES_DIR / "options" / scenario))
    reasons = [o.reason for r in run.reports for o in r.outcomes if o.text == line and o.result == "fails"]
    assert reasons == [text]


@pytest.mark.slow
def test_reasons_are_expected_in_many_cases():
    with_reasons = [p for p in SCENARIO_FILES if any("reasons" in s.expect for s in read_scenario(p).steps)]
    assert len(with_reasons) >= 20


@pytest.mark.slow
def test_scenario_ids_are_unique():
    where: dict[str, list[str]] = defaultdict(list)
    for path in SCENARIO_FILES:
        where[read_scenario(path).id].append(str(path.relative_to(CASES_DIR)))
    duplicates = {scenario_id: paths for scenario_id, paths in where.items() if len(paths) > 1}
    assert not duplicates, "scenario ids used more than once: " + "; ".join(
        f"{scenario_id!r} in {', '.join(paths)}" for scenario_id, paths in sorted(duplicates.items()))


# -- semantics of the format (docs/case-format.md) ---------------------------------------------


def _run(tmp_path: Path, text: str, name: str = "case.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return check_scenario(read_scenario(path))


def test_expectations_pass_and_fail(tmp_path):
    run = _run(tmp_path, """
        id: "F 1"
        start:
          units:
            Germany: [A Munich]
            Austria: [A Tyrolia]
        steps:
          - orders:
              Germany: [A Munich - Tyrolia]
              Austria: [A Tyrolia hold]
            expect:
              results:
                A Munich - Tyrolia: succeeds
                A Tyrolia hold: succeeds
              dislodged: [A Munich]
              boards:
                a1:
                  Germany: [A Munich]
                  Austria: [A Tyrolia, A Bohemia]
    """)
    problems = "\n".join(run.problems)
    assert len(run.problems) == 3, problems
    assert "step 1 (movement): results: 'A Munich - Tyrolia' expected succeeds, got fails" in problems
    assert "step 1 (movement): results: 'A Tyrolia hold' expected succeeds, got succeeds" not in problems
    assert "dislodged: expected A mun, got none" in problems
    assert "boards: a1 expected Austria: A boh, A tyr; Germany: A mun, got Austria: A tyr; Germany: A mun" in problems


def test_result_of_an_order_not_written_is_a_problem(tmp_path):
    run = _run(tmp_path, """
        id: "F 2"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              results: {A Munich holds: succeeds}
    """)
    assert run.problems == ("step 1 (movement): results: no order 'A Munich holds' in this step",)


def test_dislodged_designations_are_read_before_the_step(tmp_path):
    # After the step a1 exists and A Tyrolia there is German; `A Tyrolia` in dislodged is still the
    # Austrian army of a0, the board the orders were given on.
    run = _run(tmp_path, """
        id: "F 3"
        start:
          units:
            Germany: [A Munich, A Bohemia]
            Austria: [A Tyrolia]
        steps:
          - orders:
              Germany: [A Munich - Tyrolia, A Bohemia Supports A Munich - Tyrolia]
              Austria: [A Tyrolia hold]
            expect:
              results: {A Munich - Tyrolia: succeeds, A Tyrolia hold: fails}
              dislodged: [A Tyrolia]
              boards:
                a1: {Germany: [A Tyrolia, A Bohemia]}
              retreats:
                a1: {Austria: [A Tyrolia]}
    """)
    assert not run.problems, run.problems


def test_dislodged_with_explicit_designation(tmp_path):
    run = _run(tmp_path, """
        id: "F 3b"
        start:
          units:
            Germany: [A Munich, A Bohemia]
            Austria: [A Tyrolia]
        steps:
          - orders:
              Germany: [A Munich - Tyrolia, A Bohemia Supports A Munich - Tyrolia]
            expect:
              dislodged: [A a-Tyrolia@0]
    """)
    assert not run.problems, run.problems


def test_unit_with_no_retreat_is_disbanded_and_not_listed_in_retreats(tmp_path):
    # A Tyrolia (Austrian) is dislodged from Munich's direction; every neighbour of Tyrolia is
    # occupied or is where the attack came from, so it cannot retreat and is disbanded at once.
    run = _run(tmp_path, """
        id: "F 4"
        start:
          units:
            Germany: [A Munich, A Bohemia]
            Italy: [A Venice, A Piedmont, A Trieste]
            Austria: [A Tyrolia, A Vienna]
        steps:
          - orders:
              Germany: [A Munich - Tyrolia, A Bohemia Supports A Munich - Tyrolia]
            expect:
              dislodged: [A Tyrolia]
              retreats:
                a1: {}
              boards:
                a1:
                  Germany: [A Tyrolia, A Bohemia]
                  Italy: [A Venice, A Piedmont, A Trieste]
                  Austria: [A Vienna]
    """)
    assert not run.problems, run.problems
    assert [u.province for _, u in run.reports[0].disbanded] == ["tyr"]
    assert next(iter(run.scenario.start.boards.values())).phase == "movement"
    assert run.reports[0].after.board(0, 1).phase == "movement"


def test_a_coast_matters_only_when_written(tmp_path):
    text = """
        id: "F 5"
        start:
          units:
            Russia: [F St Petersburg(sc)]
        steps:
          - orders:
              Russia: [F St Petersburg hold]
            expect:
              boards:
                a1: {Russia: [UNIT]}
    """
    assert not _run(tmp_path, text.replace("UNIT", "F St Petersburg")).problems
    assert not _run(tmp_path, text.replace("UNIT", "F St Petersburg(sc)")).problems
    run = _run(tmp_path, text.replace("UNIT", "F St Petersburg/nc"))
    assert run.problems == ("step 1 (movement): boards: a1 expected Russia: F stp/nc, got Russia: F stp/sc",)
    run = _run(tmp_path, text.replace("UNIT", "A St Petersburg"))
    assert len(run.problems) == 1 and "boards: a1" in run.problems[0]


def test_timelines_and_centers(tmp_path):
    run = _run(tmp_path, """
        id: "F 6"
        start:
          turn: 1
          units:
            Germany: [A Ruhr, A Munich, F Kiel, A Berlin]
          centers:
            Germany: [Munich, Kiel, Berlin]
        steps:
          - orders:
              Germany: [A Ruhr - Holland]
            expect:
              timelines: [a]
              boards:
                a2: {Germany: [A Holland, A Munich, F Kiel, A Berlin]}
              centers:
                a2: {Germany: [Munich, Kiel, Berlin, Holland]}
    """)
    assert not run.problems, run.problems
    run = _run(tmp_path, """
        id: "F 6b"
        start:
          units: {Germany: [A Munich]}
          centers: {Germany: [Munich]}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              timelines: [a, b]
              centers:
                a1: {Germany: [Munich, Berlin]}
    """)
    assert run.problems == (
        "step 1 (movement): timelines: expected ['a', 'b'], got ['a']",
        "step 1 (movement): centers: a1 expected [('ber', 'Germany'), ('mun', 'Germany')], got [('mun', 'Germany')]",
    )


def test_start_centers_default_to_home_centres(tmp_path):
    run = _run(tmp_path, """
        id: "F 7"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              centers:
                a1:
                  Austria: [Vienna, Budapest, Trieste]
                  England: [London, Edinburgh, Liverpool]
                  France: [Paris, Brest, Marseilles]
                  Germany: [Berlin, Kiel, Munich]
                  Italy: [Rome, Venice, Naples]
                  Russia: [Moscow, Warsaw, Sevastopol, St Petersburg]
                  Turkey: [Ankara, Constantinople, Smyrna]
    """)
    assert not run.problems, run.problems


def test_start_phase_retreat_with_attacker_from(tmp_path):
    text = """
        id: "F 8"
        start:
          turn: 1
          phase: retreat
          units:
            Germany: [A Bohemia]
            Austria: [A Vienna]
          dislodged:
            Austria: [{unit: A Bohemia, attacker_from: Munich}]
        steps:
          - note: the retreats after the Spring 1901 battle, onto a1
            orders:
              Austria: [A Bohemia - DEST]
            expect:
              results: {A Bohemia - DEST: RESULT}
              boards:
                a1: {Germany: [A Bohemia], Austria: [A Vienna, UNITS]}
          - orders: {}
            expect:
              boards:
                a2: {Germany: [A Bohemia], Austria: [A Vienna, UNITS]}
    """
    ok = text.replace("DEST", "Tyrolia").replace("RESULT", "succeeds").replace("UNITS", "A Tyrolia")
    run = _run(tmp_path, ok)
    assert not run.problems, run.problems
    assert [r.phase for r in run.reports] == ["retreat", "movement"]
    barred = text.replace("DEST", "Munich").replace("RESULT", "invalid").replace(", UNITS", "")
    run = _run(tmp_path, barred)
    assert not run.problems, run.problems
    assert [u.province for _, u in run.reports[0].disbanded] == ["boh"]


def test_start_phase_adjustment_is_the_winter_before_the_root_board(tmp_path):
    run = _run(tmp_path, """
        id: "F 9"
        start:
          turn: 2
          phase: adjustment
          units:
            Germany: [A Munich]
          centers:
            Germany: [Munich, Kiel]
        steps:
          - orders:
              Germany: [Build F Kiel]
            expect:
              results: {Build F Kiel: succeeds}
              boards:
                a2: {Germany: [A Munich, F Kiel]}
          - orders:
              Germany: [F Kiel - Holland]
            expect:
              results: {F Kiel - Holland: succeeds}
              boards:
                a3: {Germany: [A Munich, F Holland]}
    """)
    assert not run.problems, run.problems
    assert [(r.phase, r.before.heads[0].name) for r in run.reports] == [("adjustment", "a2"), ("movement", "a2")]


def test_options_are_accepted(tmp_path):
    for options in ("{adjacency: any}", "{adjacency: family}", "{victory: majority}",
                    "{implicit_main_timeline: true}"):
        run = _run(tmp_path, f"""
            id: "F 10"
            options: {options}
            start: {{units: {{Germany: [A Munich]}}}}
            steps:
              - orders: {{Germany: [A Munich - Ruhr]}}
                expect:
                  results: {{A Munich - Ruhr: succeeds}}
        """)
        assert not run.problems, (options, run.problems)
        assert run.scenario.options


def test_implicit_main_timeline_off_requires_the_timeline(tmp_path):
    run = _run(tmp_path, """
        id: "F 11"
        options: {implicit_main_timeline: false}
        start: {units: {Germany: [A Munich, A Berlin]}}
        steps:
          - orders: {Germany: [A a-Munich - Ruhr, A Berlin - Prussia]}
            expect:
              results: {A a-Munich - Ruhr: succeeds, A Berlin - Prussia: invalid}
              boards:
                a1: {Germany: [A Ruhr, A Berlin]}
    """)
    assert not run.problems, run.problems
    outcome = next(o for o in run.reports[0].outcomes if o.text == "A Berlin - Prussia")
    assert "implicit_main_timeline" in outcome.reason


def test_omitted_start_is_the_standard_opening(tmp_path):
    # a listed board is exact (case-format.md), so here the positions are checked directly instead
    run = _run(tmp_path, """
        id: "F 12"
        steps:
          - orders:
              Germany: [A Munich - Ruhr]
            expect:
              results: {A Munich - Ruhr: succeeds}
    """)
    assert not run.problems, run.problems
    assert len(run.scenario.start.boards[(0, 0)].units) == 22
    a1 = run.reports[0].after.boards[(0, 1)]
    assert sorted(u.location for u in a1.units.values() if u.power == "Germany") == ["ber", "kie", "ruh"]
    assert len(a1.units) == 22


DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "case-format.md"


def test_complete_example_of_the_format_document_passes(tmp_path):
    """The complete example in docs/case-format.md is a passing scenario."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Complete example", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.yaml"
    path.write_text(example, encoding="utf-8")
    run = check_scenario(read_scenario(path))
    assert not run.problems, run.problems
    assert [r.phase for r in run.reports] == ["movement", "retreat", "movement", "adjustment"]


REASONS_CASE = """
    id: R
    start:
      units:
        Austria: [A Vienna]
        Italy: [A Venice]
    steps:
      - orders:
          Austria: [A Vienna - Tyrolia]
          Italy: [A Venice - Tyrolia]
        expect:
          reasons:
            A Vienna - Tyrolia: %s
"""


@pytest.mark.parametrize("want", ["bounced", "[bounced]", "{bounced: [A Venice]}", "[{bounced: [A Venice]}]"])
def test_reasons_expectation_met(tmp_path, want):
    assert not _run(tmp_path, REASONS_CASE % want).problems


@pytest.mark.parametrize("want, problem", [
    ("cut", "reasons: 'A Vienna - Tyrolia' expected cut (got: bounced with A Ven (attack 1 against prevent 1))"),
    ("{bounced: [A Vienna]}", "expected bounced naming A vie, got A ven"),
    ("{bounced: []}", "expected bounced naming none, got A ven"),
])
def test_reasons_expectation_not_met(tmp_path, want, problem):
    problems = _run(tmp_path, REASONS_CASE % want).problems
    assert len(problems) == 1 and problem in problems[0], problems


def test_reasons_expectation_unknown_kind_is_bad_input(tmp_path):
    from fivedp_asp.errors import InputError

    with pytest.raises(InputError, match=r"case.yaml:12: reasons of 'A Vienna - Tyrolia': unknown kind 'bounce'"):
        _run(tmp_path, REASONS_CASE % "bounce")


def test_reasons_in_outcomes_and_json(tmp_path):
    run = _run(tmp_path, REASONS_CASE % "bounced")
    outcome = next(o for o in run.reports[0].outcomes if o.text == "A Vienna - Tyrolia")
    assert outcome.reason == "bounced with A Ven (attack 1 against prevent 1)"
    assert outcome.as_dict()["explanation"] == [
        {"kind": "bounced", "units": ["A a-Ven@0"], "strength": 1, "against": 1, "versus": "prevent"}]
