"""``fivedp options`` and ``fivedp explore``.

What explore must report is derived from pairs of scenarios that give the same orders under two
values of an option, each with its own expectations worked out from the rules (cases/multiverse
4.33/4.34 and 4.35/4.36, adjacency family/any): where the two files expect different things, explore
must show exactly those, each under the right column; where they expect the same, nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fivedp_asp.files.scenarios import read_scenario
from fivedp_asp.lab.explore import exploration as explore
from fivedp_asp.lab.explore.exploration import Exploration, asked_values, explore_scenario, exploration_lines
from fivedp_asp.files.games import save_game
from fivedp_asp.game.play import adjudicate, submit
from fivedp_asp.game.state import new_game
from fivedp_asp.model.multiverse import Unit, unit_text
from fivedp_asp.model.notation import parse_unit
from fivedp_asp.report.jsonout import load_schema
from fivedp_asp.report.optiondocs import markdown
from fivedp_asp.model.options import REGISTRY, show

from tests.schema_check import errors

ROOT = Path(__file__).resolve().parent.parent.parent.parent
MV = ROOT / "cases" / "multiverse"
FAMILY_35 = MV / "4.35-cousins-not-adjacent-under-family.yaml"
ANY_36 = MV / "4.36-cousins-adjacent-under-any.yaml"
FAMILY_33 = MV / "4.33-grandparent-not-adjacent-under-family.yaml"
ANY_34 = MV / "4.34-grandparent-adjacent-under-any.yaml"
CLASSIC = ROOT / "cases" / "datc" / "6.A.01.yaml"


def plain(value):
    """YAML values without the loader's line numbers, for comparing expectations."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return str(value) if isinstance(value, str) else value


def short(text: str, scenario) -> str:
    """A unit as an expectation writes it (``A Ukraine``), as explore prints it (``A Ukr``)."""
    m = scenario.start.game_map
    spec = parse_unit(text, m)
    return unit_text(Unit(spec.kind, "-", m.unit_location(spec.kind, spec.where.province, spec.where.coast)), m)


def explore_json(cli, *argv) -> dict:
    code, out, err = cli("explore", *argv, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["format"] == 1 and data["kind"] == "exploration"
    assert not errors(data, load_schema())
    return data


def column(data: dict, **values) -> int:
    return next(i for i, c in enumerate(data["columns"]) if all(c[k] == v for k, v in values.items()))


# -- fivedp options ---------------------------------------------------------------------------------


def test_docs_options_md_is_what_the_registry_generates():
    committed = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    assert committed == markdown(), "docs/options.md is stale: run `fivedp options --markdown > docs/options.md`"


def test_options_lists_every_option_value_meaning_and_source(cli):
    code, out, _ = cli("options")
    assert code == 0
    for opt in REGISTRY.values():
        assert f"{opt.name}: {opt.meaning}" in out
        assert opt.source in out
        for v in opt.values:
            assert show(v.value) in out
            assert v.meaning.split()[0] in out
    code, out, _ = cli("options", "--json")
    document = json.loads(out)
    assert document["format"] == 1 and document["kind"] == "options"
    assert not errors(document, load_schema())
    data = document["options"]
    assert [o["name"] for o in data] == list(REGISTRY)
    for o in data:
        opt = REGISTRY[o["name"]]
        assert o["default"] == opt.default and o["source"] == opt.source
        assert [v["value"] for v in o["values"]] == [v.value for v in opt.values]
        assert [v["default"] for v in o["values"]].count(True) == 1


def test_options_markdown_is_the_generated_page_and_json_with_markdown_is_refused(cli):
    code, out, _ = cli("options", "--markdown")
    assert code == 0 and out == markdown()
    code, _, err = cli("options", "--json", "--markdown")
    assert code == 2 and "not both" in err


# -- explore: what differs, under which column ---------------------------------------------------


@pytest.mark.parametrize("family_path, any_path", [(FAMILY_35, ANY_36), (FAMILY_33, ANY_34)])
def test_explore_reports_what_the_two_readings_expect_differently(cli, family_path, any_path):
    family, other = read_scenario(family_path), read_scenario(any_path)
    data = explore_json(cli, family_path, "--option", "adjacency=family,any")
    (scenario,) = data["scenarios"]
    fam, anyc = column(data["scenarios"][0], adjacency="family"), column(scenario, adjacency="any")
    assert scenario["own"] == fam  # the file's own option
    assert scenario["changed_by"] == [{"adjacency": "any"}]
    # the steps whose expectations differ between the two files are the steps reported
    differing = [i + 1 for i, (a, b) in enumerate(zip(family.steps, other.steps)) if plain(a.expect) != plain(b.expect)]
    assert [s["step"] for s in scenario["steps"]] == differing
    for step in scenario["steps"]:
        want_f = plain(family.steps[step["step"] - 1].expect)
        want_a = plain(other.steps[step["step"] - 1].expect)
        orders = {r["order"]: r for r in step["rows"] if r["what"] == "order"}
        for line, result in want_f.get("results", {}).items():
            if want_a["results"][line] == result:
                assert line not in orders, f"{line} is expected the same under both and must not be reported"
            else:
                assert orders[line]["values"][fam]["result"] == result
                assert orders[line]["values"][anyc]["result"] == want_a["results"][line]
        units = {(r["board"], r["power"]): r["values"] for r in step["rows"] if r["what"] == "units"}
        for board, powers in want_f.get("boards", {}).items():
            for power in set(powers) | set(want_a["boards"][board]):
                f_units = sorted(short(u, family) for u in powers.get(power, []))
                a_units = sorted(short(u, other) for u in want_a["boards"][board].get(power, []))
                if f_units == a_units:
                    assert (board, power) not in units
                else:
                    assert units[(board, power)][fam] == f_units
                    assert units[(board, power)][anyc] == a_units


def test_explore_text_puts_each_result_under_its_column(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for the reason to sit in its column
    code, out, _ = cli("explore", FAMILY_35, "--option", "adjacency=any")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("MV 35: ")
    head = next(x for x in lines if x.strip().startswith("adjacency"))
    assert head.index("family (own)") < head.index("any")
    row = next(x for x in lines if "A c-Ukraine - b-Ukraine@2" in x)
    # the result sits under its column's head
    assert row[head.index("family (own)"):].startswith("invalid")
    assert row[head.index("any", head.index("family (own)") + 12):].startswith("succeeds")
    assert "A b-Galicia - a-Galicia@3" not in out  # succeeds under both readings
    # narrower, a cell that would wrap over more than two lines becomes one line per distinct value
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli("explore", FAMILY_35, "--option", "adjacency=any")
    lines = out.splitlines()
    at = lines.index("    Austria: A c-Ukraine - b-Ukraine@2")
    assert lines[at + 1].startswith("      family (own): invalid (")
    assert "      any: succeeds" in lines[at + 2:at + 5]


def test_a_scenario_with_no_difference_says_so_in_one_line(cli):
    scenario = read_scenario(CLASSIC)
    code, out, _ = cli("explore", CLASSIC, "--option", "adjacency=family,any")
    assert code == 0
    assert out.splitlines() == [f"{scenario.id}: no difference under adjacency = family, any"]


def test_each_combination_follows_its_own_history(tmp_path, cli):
    """A step after the difference: under any, A Ukraine stands on b3 (MV 36) and moves on; under family
    b3 has no Austrian unit (MV 35), so the order names no unit and is invalid (docs/rules.md §6.2)."""
    text = FAMILY_35.read_text(encoding="utf-8") + (
        "  - orders:\n"
        "      Austria: [A b-Ukraine - b-Galicia]\n")
    path = tmp_path / "history.yaml"
    path.write_text(text, encoding="utf-8")
    data = explore_json(cli, path, "--option", "adjacency=family,any")
    scenario = data["scenarios"][0]
    fam, anyc = column(scenario, adjacency="family"), column(scenario, adjacency="any")
    step5 = next(s for s in scenario["steps"] if s["step"] == 5)
    order = next(r for r in step5["rows"] if r["what"] == "order")
    assert order["order"] == "A b-Ukraine - b-Galicia"
    assert order["values"][fam]["result"] == "invalid"
    assert order["values"][anyc]["result"] == "succeeds"
    b4 = next(r for r in step5["rows"] if r["what"] == "units" and r["board"] == "b4" and r["power"] == "Austria")
    assert b4["values"][fam] == [] and b4["values"][anyc] == ["A Gal"]


def test_json_shape(cli):
    data = explore_json(cli, FAMILY_35, "--option", "adjacency=family,any", "--option", "victory=elimination,majority")
    assert set(data) == {"format", "kind", "options", "scenarios", "errors", "summary"}
    assert data["options"] == {"adjacency": ["family", "any"], "victory": ["elimination", "majority"]}
    (scenario,) = data["scenarios"]
    assert set(scenario) == {"id", "title", "path", "columns", "own", "differs", "changed_by", "no_effect", "steps"}
    assert scenario["no_effect"] == ["victory"]
    assert len(scenario["columns"]) == 4  # the cartesian product
    assert scenario["columns"][scenario["own"]] == {"adjacency": "family", "victory": "elimination"}
    assert scenario["differs"] is True
    # victory decides nothing here: only the combinations with adjacency any change the scenario
    assert sorted(c["victory"] for c in scenario["changed_by"]) == ["elimination", "majority"]
    assert all(c["adjacency"] == "any" for c in scenario["changed_by"])
    for step in scenario["steps"]:
        assert set(step) == {"step", "phases", "rows"} and len(step["phases"]) == 4
        for row in step["rows"]:
            assert len(row["values"]) == 4 and "what" in row
    assert data["errors"] == []
    assert {json.dumps(s["options"], sort_keys=True) for s in data["summary"]} == \
        {json.dumps(c, sort_keys=True) for c in scenario["columns"]}


def test_the_own_value_is_always_a_column(cli):
    """Asking only for the other value compares it with the scenario's own."""
    data = explore_json(cli, ANY_36, "--option", "adjacency=family")
    scenario = data["scenarios"][0]
    assert scenario["columns"] == [{"adjacency": "any"}, {"adjacency": "family"}] and scenario["own"] == 0


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["--option", "adjacency=cousins"], ["adjacency", "cousins", "family, any"]),
    (["--option", "adjacency=family,nope"], ["adjacency", "nope", "family, any"]),
    (["--option", "adjacancy=any"], ["adjacancy", "adjacency, implicit_main_timeline, victory"]),
    (["--all-values", "nope"], ["nope", "adjacency"]),
    (["--option", "adjacency"], ["NAME=V1,V2"]),
    ([], ["--all-values"]),
    (["--all-values", "adjacency", "-j", "0"], ["--jobs"]),
])
def test_bad_options_exit_2_naming_option_and_values(cli, args, words):
    code, out, err = cli("explore", FAMILY_35, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "Traceback" not in err
    for w in words:
        assert w in err


def test_bad_files_exit_2_with_file_and_line(tmp_path, cli):
    good = tmp_path / "a-good.yaml"
    shutil.copy(CLASSIC, good)
    bad = tmp_path / "b-bad.yaml"
    bad.write_text("id: bad\nsteps:\n  - orders:\n      France: [A Paris -- Burgundy]\n", encoding="utf-8")
    (tmp_path / "c-binary.yaml").write_bytes(bytes(range(256)))
    code, out, err = cli("explore", tmp_path, "--option", "adjacency=family,any")
    assert code == 2
    assert f"{bad}:4:" in err and "A Paris -- Burgundy" in err
    assert "c-binary.yaml" in err and "Traceback" not in err
    assert "no difference" in out  # the good scenario is still explored
    assert "2 not (errors above)" in out
    code, _, err = cli("explore", tmp_path / "missing.yaml", "--option", "adjacency=family,any")
    assert code == 2 and "missing.yaml" in err


def _sweep_of_three(tmp_path: Path) -> Path:
    """Three scenario files: the second is the one a test makes fail (b-crash.yaml, two steps)."""
    shutil.copy(CLASSIC, tmp_path / "a-good.yaml")
    (tmp_path / "b-crash.yaml").write_text("id: crash\nsteps:\n  - {}\n  - {}\n", encoding="utf-8")
    shutil.copy(CLASSIC, tmp_path / "c-good.yaml")
    return tmp_path / "b-crash.yaml"


def _goes_on_after(crash: Path, code: int, out: str, err: str) -> None:
    """The file that failed unexpectedly is named, the other two are explored, the status is 3."""
    assert code == 3
    assert f"{crash}: internal error: RuntimeError: boom" in err and "Traceback" not in err
    assert out.count("no difference") == 2
    assert "Summary: 2 scenarios explored, 1 not (errors above)" in out


def test_an_unexpected_error_reading_one_file_names_it_and_the_sweep_goes_on(tmp_path, cli, monkeypatch):
    crash = _sweep_of_three(tmp_path)
    load = explore.load_scenario

    def failing(path):
        if Path(path) == crash:
            raise RuntimeError("boom")
        return load(path)

    monkeypatch.setattr(explore, "load_scenario", failing)
    _goes_on_after(crash, *cli("explore", tmp_path, "--option", "adjacency=family,any"))


def test_an_unexpected_error_running_one_file_in_a_batch_names_it_and_the_sweep_goes_on(tmp_path, cli,
                                                                                        monkeypatch):
    """The files of a batch run in lockstep: when that run fails as a whole, each file is run on its own,
    so that the failure is the file's and the others are explored."""
    crash = _sweep_of_three(tmp_path)
    run_all = explore.check_scenarios

    def failing(scenarios):
        if any(Path(c.path) == crash for c in scenarios):
            raise RuntimeError("boom")
        return run_all(scenarios)

    monkeypatch.setattr(explore, "check_scenarios", failing)
    _goes_on_after(crash, *cli("explore", tmp_path, "--option", "adjacency=family,any"))
    data = json.loads(cli("explore", tmp_path, "--all-values", "adjacency", "--json")[1])
    assert [e["path"] for e in data["errors"]] == [str(crash)]
    assert len(data["scenarios"]) == 2


def test_an_unexpected_error_comparing_one_file_names_it_and_the_sweep_goes_on(tmp_path, cli, monkeypatch):
    crash = _sweep_of_three(tmp_path)
    diff = explore._diff_step

    def failing(number, reports):
        if number == 2:  # only the crash scenario has a second step
            raise RuntimeError("boom")
        return diff(number, reports)

    monkeypatch.setattr(explore, "_diff_step", failing)
    _goes_on_after(crash, *cli("explore", tmp_path, "--option", "adjacency=family,any"))


# -- game files ----------------------------------------------------------------------------------


def test_a_game_file_is_explored_like_the_scenario_of_its_orders(tmp_path, cli):
    """The game of MV 35's orders, played move by move, differs under any as MV 36 expects."""
    family, other = read_scenario(FAMILY_35), read_scenario(ANY_36)
    game = new_game(family.start)
    for s in family.steps:
        for power, lines in s.orders.items():
            game = submit(game, power, [str(x) for x in lines])
        game, _ = adjudicate(game)
    path = tmp_path / "g.yaml"
    save_game(path, game)
    data = explore_json(cli, path, "--option", "adjacency=any")
    scenario = data["scenarios"][0]
    fam, anyc = column(scenario, adjacency="family"), column(scenario, adjacency="any")
    orders = [r for s in scenario["steps"] for r in s["rows"] if r["what"] == "order"]
    assert [r["order"] for r in orders] == ["A c-Ukraine - b-Ukraine@2"]
    line = "A c-Ukraine - b-Ukraine@2"
    assert orders[0]["values"][fam]["result"] == plain(family.steps[3].expect)["results"][line]
    assert orders[0]["values"][anyc]["result"] == plain(other.steps[3].expect)["results"][line]


# -- the sweep summary ------------------------------------------------------------------------------


@pytest.mark.slow
def test_sweep_summary_counts_the_scenarios_each_value_changes(tmp_path, cli):
    for src in (FAMILY_33, FAMILY_35, ANY_36, CLASSIC):
        shutil.copy(src, tmp_path / src.name)
    ids = {p: read_scenario(p).id for p in (FAMILY_33, FAMILY_35, ANY_36, CLASSIC)}
    # any changes the two family scenarios (their pairs expect otherwise) and not the classic one;
    # family is an alternative only for MV 36, and changes it
    want = {"any": (3, sorted([ids[FAMILY_33], ids[FAMILY_35]])), "family": (1, [ids[ANY_36]])}
    for jobs in ("1", "2"):
        data = explore_json(cli, tmp_path, "--option", "adjacency=family,any", "-j", jobs)
        got = {s["options"]["adjacency"]: (s["alternative_in"], sorted(s["changed"])) for s in data["summary"]}
        assert got == want
        assert all(s["changes"] == len(s["changed"]) for s in data["summary"])
    code, out, _ = cli("explore", tmp_path, "--option", "adjacency=family,any")
    assert code == 0
    summary = out[out.index("Summary: 4 scenarios explored"):].splitlines()
    assert any(x.split() [:4] == ["adjacency=any", "changes", "2", "of"] and x.split()[4] == "3:" for x in summary)
    assert any(x.split()[:5] == ["adjacency=family", "changes", "1", "of", "1:"] and ids[ANY_36] in x for x in summary)
    assert f"{ids[CLASSIC]}: no difference" in out


# -- reading it ---------------------------------------------------------------------------------


def test_lines_stay_within_the_width(capsys):
    ex = explore_scenario(read_scenario(FAMILY_33), asked_values(["adjacency=family,any"], []))
    assert isinstance(ex, Exploration) and ex.steps
    for width in (60, 80, 100):
        lines = exploration_lines(ex, width)
        assert max(len(x) for x in lines[1:]) <= width  # the title line is the scenario's own text
    # a long reason wraps inside its column instead of pushing the next one out
    ex = explore_scenario(read_scenario(FAMILY_35), asked_values(["implicit_main_timeline=true,false"], []))
    lines = exploration_lines(ex, 80)
    assert max(len(x) for x in lines[1:]) <= 80


def _section(path, heading: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return section[:section.index("\n## ", 1)]


@pytest.mark.slow
def test_the_readme_examples_are_what_explore_prints(cli, monkeypatch):
    """The examples of "Exploring rules" in README.md and of "Examples" in docs/explore.md are real
    output (at 100 columns); an example shortened with "…" is not compared."""
    sections = (_section("README.md", "## Exploring rules"), _section("docs/explore.md", "## Examples"))
    blocks = [b for section in sections for b in section.split("```text\n$ fivedp ")[1:]]
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(ROOT)
    compared = 0
    for block in blocks:
        command, _, rest = block.partition("\n")
        shown = rest[:rest.index("```")]
        if "…" in shown:
            continue
        code, out, _ = cli(*command.split())
        assert code == 0
        assert out == shown, f"an example is stale: run `COLUMNS=100 fivedp {command}` and paste its output"
        compared += 1
    assert compared >= 3



def test_elimination_and_winner_differ_by_victory_rule(cli):
    """MV 39 (docs/rules.md §6.7): under elimination Germany, with neither units nor centres on a2 after step 3, is
    out everywhere (its army on b1 leaves) and France, the last power, wins. Under majority and unique
    nobody is eliminated, and France's 4 + 3 centres on the two heads are far from a majority of 2 × 34
    or 18 distinct ones: no winner, and the German army stays on b1."""
    path = MV / "4.39-elimination-across-timelines.yaml"
    data = explore_json(cli, path, "--all-values", "victory")
    scenario = data["scenarios"][0]
    cols = {c["victory"]: i for i, c in enumerate(scenario["columns"])}
    rows = {(r["what"], r.get("board"), r.get("power")): r["values"] for s in scenario["steps"] for r in s["rows"]}
    assert [s["step"] for s in scenario["steps"]] == [3]
    assert rows[("eliminated", None, None)][cols["elimination"]] == ["Germany"]
    assert rows[("winner", None, None)][cols["elimination"]] == "France"
    assert rows[("units", "b1", "Germany")][cols["elimination"]] == []
    for other in ("majority", "unique"):
        assert rows[("eliminated", None, None)][cols[other]] == []
        assert rows[("winner", None, None)][cols[other]] is None
        assert rows[("units", "b1", "Germany")][cols[other]] == ["A Ruh"]


def test_dissolved_timelines_are_shown_by_their_letters(cli):
    """docs/rules.md §6.8.3: in the sustain scenario where the root timeline a and timeline c dissolve, the standing
    row names them by their letters, as boards and new timelines do, not by their indices."""
    path = ROOT / "cases" / "options" / "sustain" / "04-three-timelines-tie-root-dissolves.yaml"
    data = explore_json(cli, path, "--all-values", "sustain")
    scenario = data["scenarios"][0]
    cols = {c["sustain"]: i for i, c in enumerate(scenario["columns"])}
    rows = {r["what"]: r["values"] for s in scenario["steps"] for r in s["rows"] if r["what"] == "dissolved"}
    assert rows["dissolved"][cols[True]] == ["a", "c"]
    assert rows["dissolved"][cols[False]] == []


def test_all_hold_fails_the_paradox_moves_and_says_why(cli):
    """DATC 6.F.18 under the 'All Hold' rule (DATC 4.A.2): the army's move and the attack on the
    convoying fleet fail by that rule, and the supports of those moves match nothing because the moves
    were not made; nothing falls back to the Szykman rule."""
    data = explore_json(cli, ROOT / "cases" / "datc" / "6.F.18.yaml", "--option", "datc_4a2=all_hold,szykman")
    scenario = data["scenarios"][0]
    col = [c["datc_4a2"] for c in scenario["columns"]].index("all_hold")
    rows = {r.get("order", r["what"]): r["values"][col] for s in scenario["steps"] for r in s["rows"]}
    assert rows["A London - Belgium"]["reason"] == "convoy paradox, 'All Hold' rule: the moves of A Lon, F Ska fail"
    assert rows["F English Channel Supports A London - Belgium"] == {
        "result": "fails", "reason": "not matching: A Lon does not move, its move failed in the paradox"}
    assert rows["backup rules"] == ["convoy paradox, 'All Hold' rule: the moves of A Lon (a0), F Ska (a0) fail"]
