"""The ``fivedp`` command: ``check`` and ``adjudicate``, exit statuses, and messages for bad input.

Bad input must end with exit status 2 and one message naming the file, the line and the problem —
never a traceback (docs/case-format.md, "Errors").
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


CASES_DIR = Path(__file__).resolve().parent.parent.parent / "cases"

GOOD = """\
id: "CLI 1"
title: "A bounce"
start:
  units:
    Germany: [A Munich]
    Austria: [A Vienna]
steps:
  - orders:
      Germany:
        - A Munich - Bohemia
      Austria:
        - A Vienna - Bohemia
    expect:
      results:
        A Munich - Bohemia: fails
        A Vienna - Bohemia: fails
      boards:
        a1:
          Germany: [A Munich]
          Austria: [A Vienna]
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    """1-based number of the first line of ``path`` containing ``needle``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


# -- check ---------------------------------------------------------------------------------------


def test_check_passing_scenario(cli, tmp_path):
    path = write(tmp_path, GOOD)
    status, out, err = cli("check", str(path))
    assert status == 0, out + err
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed"
    assert err == ""


def test_check_passing_datc_case_verbose(cli):
    status, out, _ = cli("check", "-v", str(CASES_DIR / "datc" / "6.A.01.yaml"))
    assert status == 0, out
    assert out.strip().splitlines() == ["ok   DATC 6.A.1", "1 passed, 0 failed"]


def test_check_folder(cli, tmp_path):
    write(tmp_path, GOOD, "one.yaml")
    (tmp_path / "sub").mkdir()
    write(tmp_path, GOOD.replace("CLI 1", "CLI 2"), "sub/two.yml")
    (tmp_path / "notes.txt").write_text("not a case")
    status, out, _ = cli("check", str(tmp_path))
    assert status == 0, out
    assert out.strip().splitlines()[-1] == "2 passed, 0 failed"


def test_check_wrong_expectation(cli, tmp_path):
    path = write(tmp_path, GOOD.replace("A Munich - Bohemia: fails", "A Munich - Bohemia: succeeds"))
    status, out, err = cli("check", str(path))
    assert status == 1, out + err
    lines = out.strip().splitlines()
    assert lines[-1] == "0 passed, 1 failed"
    assert len(lines) == 2, out
    failure = lines[0]
    assert failure.startswith("FAIL CLI 1 ")
    assert str(path) in failure
    assert "step 1" in failure
    assert "results" in failure
    assert "'A Munich - Bohemia' expected succeeds, got fails" in failure


def test_check_wrong_board_names_the_board_and_difference(cli, tmp_path):
    path = write(tmp_path, GOOD.replace("          Germany: [A Munich]\n", "          Germany: [A Bohemia]\n"))
    status, out, _ = cli("check", str(path))
    assert status == 1
    failure = out.strip().splitlines()[0]
    assert failure.startswith("FAIL CLI 1 ") and "step 1" in failure and "boards: a1" in failure
    assert "expected Austria: A vie; Germany: A boh, got Austria: A vie; Germany: A mun" in failure


def test_check_mixed_pass_fail_and_bad_input(cli, tmp_path):
    write(tmp_path, GOOD, "a.yaml")
    write(tmp_path, GOOD.replace("CLI 1", "CLI 2").replace("Bohemia: fails", "Bohemia: succeeds"), "b.yaml")
    bad = write(tmp_path, GOOD.replace("CLI 1", "CLI 3").replace("Austria: [A Vienna]", "Austria: [A Narnia]"), "c.yaml")
    status, out, _ = cli("check", str(tmp_path))
    lines = out.strip().splitlines()
    assert lines[-1] == "1 passed, 2 failed"
    assert any(line.startswith("FAIL CLI 2 ") for line in lines)
    assert f"ERROR {bad}:{line_of(bad, 'Narnia')}: unit 'A Narnia': unknown province 'Narnia'" in lines
    assert status == 2  # bad input outranks a failed scenario


def test_check_missing_path(cli, tmp_path):
    status, _, err = cli("check", str(tmp_path / "nowhere"))
    assert status == 2
    assert f"{tmp_path / 'nowhere'}: no such file or directory" in err


# -- bad input -----------------------------------------------------------------------------------

BAD_INPUTS = {
    "yaml-syntax": ("""\
        id: "BAD"
        steps:
          - orders: {Germany: [A Munich hold]
          - orders: {}
        """, "- orders: {}", "not valid YAML"),
    "unknown-power": ("""\
        id: "BAD"
        start:
          units:
            Germany: [A Munich]
            Atlantis: [A Vienna]
        steps: []
        """, "Atlantis", "unknown power 'Atlantis'"),
    "unknown-power-in-orders": ("""\
        id: "BAD"
        start:
          units:
            Germany: [A Munich]
        steps:
          - orders:
              Atlantis: [A Munich hold]
        """, "Atlantis", "unknown power 'Atlantis'"),
    "unknown-province-in-unit": ("""\
        id: "BAD"
        start:
          units:
            Germany:
              - A Munich
              - A Narnia
        steps: []
        """, "Narnia", "unit 'A Narnia': unknown province 'Narnia'"),
    "unit-without-kind": ("""\
        id: "BAD"
        start:
          units:
            Germany:
              - A Munich
              - Berlin
        steps: []
        """, "Berlin", "unit 'Berlin': say whether it is an army (A) or a fleet (F)"),
    "fleet-inland": ("""\
        id: "BAD"
        start:
          units:
            Germany: [F Munich]
        steps: []
        """, "F Munich", "a fleet cannot stand in Munich"),
    "fleet-coast-missing": ("""\
        id: "BAD"
        start:
          units:
            Russia: [F St Petersburg]
        steps: []
        """, "F St Petersburg", "name the coast of St Petersburg"),
    "unknown-top-level-key": ("""\
        id: "BAD"
        stpes: []
        steps: []
        """, "stpes", "unknown key 'stpes'"),
    "unknown-start-key": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
          armies: {}
        steps: []
        """, "armies", "unknown key 'armies' in start"),
    "unknown-step-key": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
        steps:
          - orders: {Germany: [A Munich hold]}
            expected: {}
        """, "expected:", "unknown key 'expected' in a step"),
    "unknown-expect-key": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              result: {A Munich hold: succeeds}
        """, "result:", "unknown key 'result' in expect"),
    "unknown-option": ("""\
        id: "BAD"
        options:
          flying_fleets: true
        steps: []
        """, "flying_fleets", "unknown option 'flying_fleets'"),
    "bad-option-value": ("""\
        id: "BAD"
        options:
          adjacency: everything
        steps: []
        """, "adjacency", "option adjacency cannot be 'everything'"),
    "bad-result-word": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
        steps:
          - orders:
              Germany: [A Munich hold]
            expect:
              results:
                A Munich hold: success
        """, "success", "result of 'A Munich hold' must be one of succeeds, fails, invalid"),
    "bad-phase": ("""\
        id: "BAD"
        start:
          phase: winter
          units: {Germany: [A Munich]}
        steps: []
        """, "winter", "start.phase must be one of movement, retreat, adjustment"),
    "not-a-centre": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
          centers:
            Germany: [Munich, Ruhr]
        steps: []
        """, "Ruhr", "Ruhr is not a supply centre"),
    "two-units-one-province": ("""\
        id: "BAD"
        start:
          units:
            Germany: [A Munich]
            Austria: [A Mun]
        steps: []
        """, "A Mun]", "two units in"),
    "orders-not-a-list": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
        steps:
          - orders:
              Germany: A Munich hold
        """, "Germany: A Munich hold", "'orders of Germany' must be a list"),
    "unknown-province-in-expect": ("""\
        id: "BAD"
        start:
          units: {Germany: [A Munich]}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              boards:
                a1: {Germany: [A Narnia]}
        """, "Narnia", "unit 'A Narnia': unknown province 'Narnia'"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input(cli, tmp_path, name):
    text, needle, problem = BAD_INPUTS[name]
    path = write(tmp_path, text)
    status, out, err = cli("adjudicate", str(path))
    assert status == 2, out + err
    assert "Traceback" not in out + err
    assert out == ""
    assert err.startswith(f"error: {path}:{line_of(path, needle)}: "), err
    assert problem in err, err


def test_bad_input_through_check(cli, tmp_path):
    text, needle, problem = BAD_INPUTS["unknown-power"]
    path = write(tmp_path, text)
    status, out, _ = cli("check", str(path))
    assert status == 2
    lines = out.strip().splitlines()
    assert lines[0].startswith(f"ERROR {path}:{line_of(path, needle)}: ") and problem in lines[0]
    assert lines[-1] == "0 passed, 1 failed"


@pytest.mark.parametrize("missing", ["id", "steps"])
def test_missing_required_key_names_file_and_problem(cli, tmp_path, missing):
    text = 'id: "BAD"\ntitle: "x"\nsteps: []\n'.replace("id: \"BAD\"\n" if missing == "id" else "steps: []\n", "")
    path = write(tmp_path, text)
    status, out, err = cli("adjudicate", str(path))
    assert status == 2
    assert "Traceback" not in out + err
    assert str(path) in err and f"missing key '{missing}'" in err


@pytest.mark.parametrize("missing", ["id", "steps"])
def test_missing_required_key_names_a_line(cli, tmp_path, missing):
    text = 'id: "BAD"\ntitle: "x"\nsteps: []\n'.replace("id: \"BAD\"\n" if missing == "id" else "steps: []\n", "")
    path = write(tmp_path, text)
    status, _, err = cli("adjudicate", str(path))
    assert status == 2
    assert re.match(rf"error: {re.escape(str(path))}:\d+: missing key '{missing}'", err), err


ORDER_ERROR = """\
id: "BAD"
start:
  units:
    Germany: [A Munich, A Berlin]
steps:
  - orders:
      Germany:
        - A Berlin hold
        - A Munich - Narnia
"""


def test_unparseable_order_names_file_line_column_and_problem(cli, tmp_path):
    path = write(tmp_path, ORDER_ERROR)
    status, out, err = cli("adjudicate", str(path))
    assert status == 2
    assert "Traceback" not in out + err
    assert re.match(rf"error: {re.escape(str(path))}:\d+: ", err), err
    assert "Germany order 'A Munich - Narnia': unknown province 'Narnia' (column 12)" in err


def test_unparseable_order_names_its_own_line(cli, tmp_path):
    path = write(tmp_path, ORDER_ERROR)
    _, _, err = cli("adjudicate", str(path))
    assert err.startswith(f"error: {path}:{line_of(path, 'Narnia')}: "), err


def test_order_naming_a_missing_timeline_is_invalid(cli, tmp_path):
    # it parses, but names no board of this multiverse: an illegal order (a hold), not bad input
    path = write(tmp_path, ORDER_ERROR.replace("A Munich - Narnia", "A c-Munich hold"))
    status, out, err = cli("adjudicate", str(path))
    assert status == 0, out + err
    assert re.search(r"^    A c-Munich hold +invalid \(.*timeline c.*\)$", out, re.M), out


def test_unreadable_file(cli, tmp_path):
    status, _, err = cli("adjudicate", str(tmp_path / "absent.yaml"))
    assert status == 2
    assert f"{tmp_path / 'absent.yaml'}: cannot read" in err


@pytest.mark.slow
def test_no_traceback_reaches_the_user_subprocess(tmp_path):
    text, needle, problem = BAD_INPUTS["unknown-province-in-unit"]
    path = write(tmp_path, text)
    proc = subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "adjudicate", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"error: {path}:{line_of(path, needle)}: {problem}"


# Bad inputs found to escape as a traceback or without file and line (not fixed here: reported).

ESCAPES = {
    "results-as-list": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              results: [A Munich hold]
        """, "results:", "traceback: AttributeError 'list' object has no attribute 'items'"),
    "boards-as-list": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              boards: [a1]
        """, "boards:", "traceback: AttributeError 'list' object has no attribute 'items'"),
    "board-contents-as-list": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              boards:
                a1: [A Munich]
        """, "a1:", "traceback: AttributeError 'list' object has no attribute 'items'"),
    "retreats-as-list": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              retreats: [a1]
        """, "retreats:", "traceback: AttributeError 'list' object has no attribute 'items'"),
    "centers-as-list": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              centers: [a1]
        """, "centers:", "traceback: AttributeError 'list' object has no attribute 'items'"),
    "bad-timeline-in-expect": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              timelines: [a, "%"]
        """, "timelines:", "message names neither file nor line: cannot parse '%' ..."),
    "missing-timeline-in-dislodged": ("""\
        id: "BAD"
        start: {units: {Germany: [A Munich]}}
        steps:
          - orders: {Germany: [A Munich hold]}
            expect:
              dislodged: [A c-Munich]
        """, "A c-Munich", "message names neither file nor line: order 'A c-Munich': there is no timeline c"),
    "unknown-map": ("""\
        id: "BAD"
        map: narnia
        steps: []
        """, "narnia", "message names neither file nor line: unknown map 'narnia'"),
    "units-not-a-list": ("""\
        id: "BAD"
        start:
          units:
            Germany: A Munich
        steps: []
        """, "A Munich", "iterates the characters: \"FILE: unit 'A': expected a province\", no line"),
    "start-turn-not-a-number": ("""\
        id: "BAD"
        start:
          turn: spring
          units: {Germany: [A Munich]}
        steps: []
        """, "spring", "no line: 'FILE: start.turn must be a whole number'"),
    "start-not-a-mapping": ("""\
        id: "BAD"
        start: [A Munich]
        steps: []
        """, "start:", "no line: \"FILE: 'start' must be a mapping\""),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_bad_input_known_escapes(cli, tmp_path, name, request):
    text, needle, reason = ESCAPES[name]
    path = write(tmp_path, text)
    status, out, err = cli("adjudicate", str(path))
    assert status == 2
    assert "Traceback" not in out + err
    assert err.startswith(f"error: {path}:{line_of(path, needle)}: "), err


# -- adjudicate ----------------------------------------------------------------------------------


def test_adjudicate_text(cli, tmp_path):
    path = write(tmp_path, GOOD)
    status, out, err = cli("adjudicate", str(path))
    assert status == 0, out + err
    lines = out.splitlines()
    assert lines[0] == "CLI 1: A bounce"
    assert lines[1] == "Step 1: movement on a0 (Spring 1901)"
    assert re.search(r"^    A Munich - Bohemia +fails", out, re.M), out
    assert re.search(r"^    A Vienna - Bohemia +fails", out, re.M), out
    assert "  Positions:" in lines
    assert "    a1 (Fall 1901)" in lines
    assert any(line.startswith("      Germany: A Mun  [3 centres:") for line in lines), out
    assert any(line.startswith("      Austria: A Vie  [3 centres:") for line in lines), out
    assert lines[-1] == "Expectations: all met"


def test_adjudicate_text_reports_unmet_expectations(cli, tmp_path):
    path = write(tmp_path, GOOD.replace("A Munich - Bohemia: fails", "A Munich - Bohemia: succeeds"))
    status, out, _ = cli("adjudicate", str(path))
    assert status == 0  # adjudicate shows; check judges
    assert "Expectations: NOT met" in out
    assert "  step 1 (movement): results: 'A Munich - Bohemia' expected succeeds, got fails" in out


def test_adjudicate_text_dislodged_and_retreats(cli):
    status, out, _ = cli("adjudicate", str(CASES_DIR / "datc" / "6.F.14.yaml"))
    assert status == 0
    assert "  Dislodged: F Eng on a0" in out
    assert "must retreat: F Eng" in out
    assert out.splitlines()[-1] == "Expectations: all met"


def test_adjudicate_json(cli, tmp_path):
    path = write(tmp_path, GOOD)
    status, out, err = cli("adjudicate", "--json", str(path))
    assert status == 0, out + err
    data = json.loads(out)
    assert data["id"] == "CLI 1" and data["title"] == "A bounce"
    assert data["expectation_problems"] == []
    assert len(data["steps"]) == 1
    step = data["steps"][0]
    assert step["phase"] == "movement"
    orders = {o["text"]: o for o in step["orders"]}
    assert set(orders) == {"A Munich - Bohemia", "A Vienna - Bohemia"}
    assert orders["A Munich - Bohemia"]["result"] == "fails"
    assert orders["A Munich - Bohemia"]["power"] == "Germany"
    assert step["dislodged"] == []
    board = step["boards"]["a1"]
    assert (board["timeline"], board["turn"], board["season"], board["phase"]) == ("a", 1, "Fall 1901", "movement")
    assert board["units"] == {"Austria": ["A Vie"], "Germany": ["A Mun"]}
    assert board["centers"]["Germany"] == ["Ber", "Kie", "Mun"]
    assert board["retreats"] == []


def test_adjudicate_json_dislodged(cli):
    status, out, _ = cli("adjudicate", "--json", str(CASES_DIR / "datc" / "6.F.14.yaml"))
    assert status == 0
    step = json.loads(out)["steps"][0]
    assert step["dislodged"] == [{"board": "a0", "power": "France", "unit": "F Eng", "by": "F a-Wal@0"}]
    assert step["boards"]["a1"]["phase"] == "retreat"
    assert step["boards"]["a1"]["retreats"] == [{"power": "France", "unit": "F Eng"}]
    assert step["backup_rules"]


def test_a_unit_disbanded_after_a_battle_is_named_on_the_board_it_would_have_retreated_on(cli):
    # DATC 6.D.8: A Gre is dislodged on a0 with nowhere to go and disbanded at once, off the new a1
    path = CASES_DIR / "datc" / "6.D.08.yaml"
    status, out, err = cli("adjudicate", "--json", str(path))
    assert status == 0, err
    step = json.loads(out)["steps"][0]
    assert step["dislodged"] == [{"board": "a0", "power": "Turkey", "unit": "A Gre", "by": "A a-Alb@0"}]
    assert step["disbanded"] == [{"board": "a1", "power": "Turkey", "unit": "A Gre",
                                  "reason": "dislodged with nowhere to retreat"}]
    status, out, err = cli("adjudicate", str(path))
    assert status == 0, err
    assert "  Disbanded: A Gre\n" in out


def test_game_text_names_a_unit_disbanded_after_a_battle():
    from fivedp_asp.engine.step import step
    from fivedp_asp.files.scenarios import read_scenario
    from fivedp_asp.report.text import step_lines

    scenario = read_scenario(CASES_DIR / "datc" / "6.D.08.yaml")
    report = step(scenario.start, scenario.steps[0].orders)
    lines = step_lines(report, 1, detail=True)
    assert "  Disbanded: A Gre on a1 (dislodged with nowhere to retreat)" in lines


@pytest.mark.slow
def test_every_scenario_adjudicates_to_json_the_schema_accepts(cli):
    from fivedp_asp.report.jsonout import load_schema
    from tests.schema_check import errors as schema_errors

    schema = load_schema()
    paths = sorted(CASES_DIR.rglob("*.yaml"))
    assert len(paths) > 300
    for path in paths:
        status, out, err = cli("adjudicate", "--json", str(path))
        assert status in (0, 1), f"{path}: {err}"  # 1: an expectation not met, never a crash
        data = json.loads(out)
        problems = schema_errors(data, schema)
        assert not problems, f"{path}: {problems[:3]}"


@pytest.mark.parametrize("command", ["selfplay", "explore"])
def test_the_bot_option_names_every_bot_that_comes_with_fivedp(command, capsys):
    """``--bot`` takes any bot of ``lab.bots.registry.BUILTIN`` by name: its help lists each of them."""
    from fivedp_asp.cli.commands import build_parser
    from fivedp_asp.lab.bots.registry import BUILTIN

    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    bot = text[text.rindex("--bot POWER=NAME"):]  # its help, after the usage line
    for name in BUILTIN:
        assert re.search(rf"\b{name}\b", bot[:300]), (command, name)
