"""Rules of your own (``--rule``, ``options: rules:``): the contract, the errors, and the two worked
examples of docs/ run through ``options``, ``check``, ``adjudicate``, ``explore`` and a game."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.errors import InputError, RuleError
from fivedp_asp.lab.explore.exploration import asked_values, explore_scenario, registering
from fivedp_asp.model.options import RULES, registry
from fivedp_asp.model.settings import Settings
from fivedp_asp.engine.userrules import validated
from fivedp_asp.engine.userrules import scenario_with_rules, contract, parse_spec, parse_specs
from fivedp_asp.solver.driver import is_rule_text

ROOT = Path(__file__).resolve().parent.parent.parent
NO_CROSS = ROOT / "docs" / "examples" / "no_cross_timeline_support.lp"
PARENT_CHILD = ROOT / "docs" / "examples" / "adjacency_parent_child.lp"
DATA = ROOT / "tests" / "data" / "user_rules"
MV6 = ROOT / "cases" / "multiverse" / "4.06-seed004-example-1-dislodged-past-supporter.yaml"
MV12 = ROOT / "cases" / "multiverse" / "4.12-diagonal-into-other-timelines-past.yaml"
SUPPORT = "A a-Bohemia supports A b-Bohemia - Tyrolia"


def rule_file(tmp_path: Path, text: str, name: str = "mine.lp") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the contract ----------------------------------------------------------------------------------


def _header_inputs(path: Path) -> set[tuple[str, int]]:
    """The predicates a movement part's header lists under Input, written with their arguments."""
    header = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("%"):
            break
        header.append(line)
    text = "\n".join(header)
    inputs = text.split("Input:", 1)[1].split("Output:", 1)[0]
    # one-letter names are terms (b(T,N) a board, p(B,P) a place, c(P,Coast) a coast), not predicates
    return {(m[1], len(m[2].split(","))) for m in re.finditer(r"\b([a-z_]{2,})\(([A-Za-z,]+)\)", inputs)}


def test_contract_agrees_with_the_headers_of_the_movement_parts():
    c = contract()
    listed = set()
    for part in sorted((ROOT / "asp" / "movement").glob("*.lp")):
        listed |= _header_inputs(part)
    # every predicate a header lists as input is readable by a rule of your own
    assert listed and listed <= c.readable, sorted(listed - c.readable)
    # the facts fivedp writes (legality.lp's header) are inputs, readable and never definable
    facts = {("unit", 4), ("order", 3), ("ordered_move", 4), ("ordered_support_hold", 2), ("ordered_convoy", 3)}
    assert facts <= _header_inputs(ROOT / "asp" / "movement" / "legality.lp")
    assert facts <= c.inputs and facts <= c.forbidden
    # the guessed decisions are never definable; the hooks the option files use are
    assert {("moves", 1), ("dislodged", 1), ("given", 1), ("path", 1)} <= c.forbidden
    assert {("cut", 1), ("bad", 2), ("reason", 4), ("timeline_adj", 2)} <= c.hooks
    assert not (c.hooks & c.forbidden)
    assert c.required["adjacency"] == {("timeline_adj", 2)}


BAD_RULES = [
    ("cut(S) :- supports(S,X,T)\n", r"mine\.lp:2:1.*syntax error"),
    ("moves(U) :- unit(U,K,Pw,L).\n", r"mine\.lp:1:1: moves/1 is a decision"),
    ("unit(p(b(0,0),vie),army,austria,vie).\n", r"mine\.lp:1:1: unit/4 is an input fact"),
    ("ok(S) :- supports(S,X,T).\nsupports(S,X,T) :- ok(S), supports(T,X,S).\n",
     r"mine\.lp:2:1: supports/3 belongs to the movement encodings"),
    ("cut(S) :- supprts(S,X,T).\n", r"mine\.lp:1:11: reads supprts/3, which neither"),
    ("#show cut/1.\ncut(S) :- supports(S,X,T).\n", r"mine\.lp:1:1: only rules and constraints"),
    ("cut(S,1) :- supports(S,X,T).\n", r"cut/2 is not a predicate of the encodings \(they have cut/1\)"),
    ("helper(S) :- supports(S,X,T).\n", r"defines none of the predicates"),
    ("gives_orders(P) :- order(I,U,P).\ncut(S) :- supports(S,X,T), gives_orders(x).\n",
     r"gives_orders/1 is a predicate of asp/options/datc_4d9_fails\.lp"),
    ("{ cut(S) } :- supports(S,X,T).\n", r"mine\.lp:1:1: a rule of your own decides"),
    ("cut(S) ; bad(S,x) :- supports(S,X,T).\n", r"no choice or disjunction"),
    ('#script (python)\ndef f(): pass\n#end.\ncut(S) :- supports(S,X,T).\n', r"only rules and constraints"),
    ("#external cut(S) : supports(S,X,T).\n", r"only rules and constraints"),
    ("cut(S) :- supports(X,Y,Z).\n", r"mine\.lp:1:1-27: error: unsafe variables"),
]


@pytest.mark.parametrize("text,message", BAD_RULES)
def test_a_rule_breaking_the_contract_is_refused_naming_file_line_and_problem(tmp_path, text, message):
    path = rule_file(tmp_path, text)
    with pytest.raises(RuleError, match=message):
        parse_spec(f"mine={path}")


def test_include_is_refused(tmp_path):
    other = rule_file(tmp_path, "cut(S) :- supports(S,X,T).\n", "other.lp")
    path = rule_file(tmp_path, f'#include "{other}".\n')
    with pytest.raises(RuleError, match="#include is not allowed"):
        parse_spec(f"mine={path}")


def test_targets_that_cannot_take_a_rule(tmp_path):
    plain = rule_file(tmp_path, "cut(S) :- supports(S,X,T).\n")
    cases = [(f"adjacency=any:{plain}", "already has a value 'any'"),
             (f"adjacency={plain}", "built-in option; add a value"),
             (f"adjacency=mine:{plain}", "must define timeline_adj/2"),
             (f"open_convoys=mine:{plain}", "boolean option"),
             (f"victory=mine:{plain}", "act in movement"),
             (f"rules={plain}", "not 'rules'"),
             (f"Bad-Name={plain}", "lower case"),
             ("mine", "write NAME=FILE"),
             (f"mine={tmp_path / 'absent.lp'}", "cannot read")]
    for spec, message in cases:
        with pytest.raises(RuleError, match=re.escape(message)):
            parse_spec(spec)


def test_syntax_error_on_the_command_line_is_exit_2_with_file_line_and_column(tmp_path, cli):
    path = rule_file(tmp_path, "cut(S) :- supports(S,X,T)\n")
    status, out, err = cli("adjudicate", str(MV6), "--rule", f"mine={path}")
    assert status == 2
    assert f"{path}:2:1" in err and "syntax error" in err and "Traceback" not in err


# -- the registry ---------------------------------------------------------------------------------


def test_rules_join_the_registry_only_through_the_options_that_carry_them():
    rules = parse_specs([f"no_cross_timeline_support={NO_CROSS}", f"adjacency=parent_child:{PARENT_CHILD}"])
    carried = Settings().with_rules(rules, in_effect=False)
    known = carried.registry
    assert [v.value for v in known["no_cross_timeline_support"].values] == [False, True]
    builtin = [v.value for v in registry()["adjacency"].values]
    assert [v.value for v in known["adjacency"].values] == builtin + ["parent_child"]
    assert "no_cross_timeline_support" not in registry() and "parent_child" not in builtin
    # loaded only when chosen: the file's text itself, named by its digest
    assert not any(is_rule_text(f) for f in carried.files("movement"))
    on = Settings().with_rules(rules, in_effect=True)
    mine = [f for f in on.files("movement") if is_rule_text(f)]
    assert sorted(f.text for f in mine) == sorted([NO_CROSS.read_text(), PARENT_CHILD.read_text()])
    assert "options/adjacency_family.lp" not in on.files("movement")
    assert not any(is_rule_text(f) for f in on.files("retreat"))


def test_options_document_records_the_text_and_reads_back_without_the_file(tmp_path):
    copy = tmp_path / "rule.lp"
    shutil.copy(NO_CROSS, copy)
    options = validated({RULES: {"no_cross_timeline_support": str(copy)}})
    assert options.chosen("no_cross_timeline_support") is True
    doc = options.document()
    assert doc[RULES]["no_cross_timeline_support"]["text"] == NO_CROSS.read_text()
    copy.unlink()
    again = validated(yaml.safe_load(yaml.safe_dump(doc)))
    assert again == options


def test_options_command_lists_rules_of_your_own(cli):
    status, out, _ = cli("options", "--rule", f"no_cross_timeline_support={NO_CROSS}",
                         "--rule", f"adjacency=parent_child:{PARENT_CHILD}")
    assert status == 0
    assert re.search(r"^no_cross_timeline_support: a rule of your own", out, re.M)
    assert re.search(r"^    parent_child +a rule of your own", out, re.M)
    # the meaning is wrapped to the terminal's width, and a long checkout path wraps with it
    assert re.sub(r"\s+", "", f"parent_child a rule of your own ({PARENT_CHILD})") in re.sub(r"\s+", "", out)
    status, out, _ = cli("options", "--json", "--rule", f"no_cross_timeline_support={NO_CROSS}")
    from tests.schema_check import errors
    from fivedp_asp.report.jsonout import load_schema

    assert not errors(json.loads(out), load_schema())  # the options document, with a rule of your own in it
    listed = {o["name"]: o for o in json.loads(out)["options"]}
    assert listed["no_cross_timeline_support"]["values"][1]["file"] == str(NO_CROSS)
    status, _, err = cli("options", "--markdown", "--rule", f"no_cross_timeline_support={NO_CROSS}")
    assert status == 2 and "--markdown" in err


# -- adjudicating under them -------------------------------------------------------------------


def _result(run, step: int, order: str) -> tuple[str, str]:
    outcome = next(o for o in run.reports[step - 1].outcomes if o.text == order)
    return outcome.result, outcome.reason


@pytest.mark.slow
def test_no_cross_timeline_support_makes_the_support_invalid():
    plain = check_scenario(read_scenario(MV6))
    assert _result(plain, 3, SUPPORT)[0] == "succeeds"
    mine = check_scenario(scenario_with_rules(read_scenario(MV6), parse_specs([f"no_cross_timeline_support={NO_CROSS}"])))
    assert _result(mine, 3, SUPPORT) == ("invalid", "supports may not cross timelines")
    assert _result(mine, 3, "A b-Bohemia - Tyrolia")[0] == "fails"
    # a support on its own timeline is untouched (step 2: a1 supports into a0)
    assert _result(mine, 2, "A Picardy supports A a-Picardy@0 - Burgundy")[0] == "succeeds"


def test_rules_of_your_own_may_relate_boards_that_no_order_crosses(tmp_path):
    # a hook (board_pair/2) names two heads that no order relates: the rules about boards apart must
    # stay in play (across_boards), or board_adj/2 would lose the pair
    from dataclasses import replace

    from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse
    from fivedp_asp.engine.step import step

    path = rule_file(tmp_path, 'board_pair(B1,B2) :- head(B1), head(B2).\n'
                     'bad(I,"boards side by side") :- order(I,p(B1,P),Pw), head(B2), board_adj(B1,B2), B1 != B2.\n')
    mv = synthetic_multiverse(2, 6)
    orders, _ = step_orders(mv, 0, 1)
    plain = step(mv, orders)
    assert not any(o.reason == "boards side by side" for o in plain.outcomes)
    mine = replace(mv, options=Settings().with_rules(parse_specs([f"side_by_side={path}"]), in_effect=True))
    outcomes = step(mine, orders).outcomes
    assert outcomes and all(o.reason == "boards side by side" for o in outcomes)


@pytest.mark.slow
def test_check_runs_scenarios_that_name_their_rules(cli):
    status, out, _ = cli("check", str(DATA))
    assert status == 0 and "2 passed, 0 failed" in out


@pytest.mark.slow
def test_check_with_rule_on_the_command_line_changes_what_passes(cli, tmp_path):
    status, out, _ = cli("check", str(MV6))
    assert status == 0
    for jobs in ("1", "2"):
        status, out, _ = cli("check", str(MV6), str(MV12), "-j", jobs,
                             "--rule", f"no_cross_timeline_support={NO_CROSS}")
        assert status == 1
        assert f"'{SUPPORT}' expected succeeds, got invalid" in out
        assert "1 passed, 1 failed" in out  # MV 12 has no support across timelines


def test_a_rule_in_a_scenario_with_a_bad_file_is_bad_input_on_its_line(tmp_path, capsys):
    scenario = tmp_path / "s.yaml"
    broken = rule_file(tmp_path, "cut(S) :- \n")
    scenario.write_text("id: x\noptions:\n  rules:\n    mine: mine.lp\nsteps: []\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"s\.yaml:3.*mine\.lp:2:1"):
        read_scenario(scenario)
    assert broken.exists()


@pytest.mark.slow
def test_unsatisfiable_and_ambiguous_rules_are_reported_with_the_orders(tmp_path, cli):
    unsat = rule_file(tmp_path, ":- order(I,U,Pw), new(I).\ncut(S) :- supports(S,X,T), not supports(S,X,T).\n",
                      "unsat.lp")
    status, _, err = cli("adjudicate", str(MV12), "--rule", f"mine={unsat}")
    assert status == 2
    assert "unsatisfiable" in err and "Germany: A Bohemia - a-Silesia@0" in err and "unsat.lp" in err
    # the orders involved, narrowed: of DATC 6.D.1's four orders, only the support to hold breaks
    # a rule that forbids every support to hold
    no_hold_support = rule_file(tmp_path, ":- ordered_support_hold(I,S), new(I).\n"
                                          "cut(S) :- supports(S,X,T), not supports(S,X,T).\n", "nohold.lp")
    status, _, err = cli("adjudicate", str(ROOT / "cases" / "datc" / "6.D.01.yaml"),
                         "--rule", f"mine={no_hold_support}")
    assert status == 2 and err.rstrip().endswith("the orders involved: Italy: A Tyrolia Supports A Venice")
    loop = rule_file(tmp_path, "x :- not y.\ny :- not x.\ncut(S) :- supports(S,X,T), x.\n", "loop.lp")
    status, _, err = cli("adjudicate", str(MV12), "--rule", f"mine={loop}")
    assert status == 2 and "ambiguous" in err and "loop.lp" in err


# -- exploring them -------------------------------------------------------------------------------


@pytest.mark.slow
def test_explore_sweeps_a_new_value_like_a_built_in_one():
    rules = parse_specs([f"adjacency=parent_child:{PARENT_CHILD}"])
    ex = explore_scenario(registering(read_scenario(MV12), rules), asked_values([], [], rules))
    assert ex.columns == (("family",), ("parent_child",))
    row = next(r for s in ex.steps for r in s.rows if r.order == "A c-Ukraine - b-Galicia@2")
    assert row.cells[0][0] == "succeeds" and row.cells[1][0] == "invalid"  # b and c are siblings, not parent and child
    # --all-values knows the new value too
    assert asked_values([], ["adjacency"], rules) == {"adjacency": ("family", "any", "distance", "parent_child")}


@pytest.mark.slow
def test_explore_command_with_rules(cli):
    status, out, _ = cli("explore", str(MV6), "--rule", f"no_cross_timeline_support={NO_CROSS}")
    assert status == 0
    assert re.search(r"no_cross_timeline_support +false \(own\) +true", out)
    assert "supports may not" in out
    status, out, _ = cli("explore", str(MV6), "--json", "--option", "no_cross_timeline_support=true",
                         "--rule", f"no_cross_timeline_support={NO_CROSS}")
    doc = json.loads(out)
    assert doc["summary"][1]["options"] == {"no_cross_timeline_support": True} and doc["summary"][1]["changes"] == 1


# -- a game -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_game_records_its_rules_and_replays_without_the_file(tmp_path, cli):
    rule = tmp_path / "no_cross.lp"
    shutil.copy(NO_CROSS, rule)
    game = tmp_path / "game.yaml"
    status, _, err = cli("game", "new", str(game), "--from", str(MV6),
                         "--rule", f"no_cross_timeline_support={rule}")
    assert status == 0, err
    rule.unlink()  # from here on, only the game file holds the rule's text
    top = yaml.safe_load(game.read_text().split("\npast:")[0])
    assert top["options"][RULES]["no_cross_timeline_support"]["text"] == NO_CROSS.read_text()
    steps = [{"France": ["A Picardy - Burgundy"], "Germany": ["A Ruhr - Burgundy"]},
             {"France": ["A Picardy supports A a-Picardy@0 - Burgundy"]},
             {"Austria": [SUPPORT, "A b-Bohemia - Tyrolia"], "Italy": ["A b-Tyrolia hold"]}]
    for orders in steps:
        for power, lines in orders.items():
            assert cli("game", "orders", str(game), "--power", power, *lines)[0] == 0
        status, out, err = cli("game", "adjudicate", str(game))
        assert status == 0, err
    assert re.search(re.escape(SUPPORT) + r" +invalid \(supports may not cross timelines\)", out)
    status, out, _ = cli("game", "show", str(game), "--json")
    from tests.schema_check import errors
    from fivedp_asp.report.jsonout import load_schema

    assert not errors(json.loads(out), load_schema())
    assert json.loads(out)["options"]["no_cross_timeline_support"] == {"value": True, "default": False}
    # the game's orders explored with its rule switched off: the game file brings the rule along
    status, out, err = cli("explore", str(game), "--json", "--option", "no_cross_timeline_support=false")
    assert status == 0, err
    rows = [r for s in json.loads(out)["scenarios"][0]["steps"] for r in s["rows"] if r.get("order") == SUPPORT]
    assert [v["result"] for v in rows[0]["values"]] == ["invalid", "succeeds"]


def test_a_game_under_an_unsatisfiable_rule_reports_it(tmp_path, cli):
    unsat = rule_file(tmp_path, ":- order(I,U,Pw), new(I).\ncut(S) :- supports(S,X,T), not supports(S,X,T).\n")
    game = tmp_path / "game.yaml"
    assert cli("game", "new", str(game), "--rule", f"mine={unsat}")[0] == 0
    status, out, _ = cli("game", "orders", str(game), "--power", "Austria", "A Vienna - Galicia")
    # the orders are taken unchecked: no legality can be read from a phase with no adjudication
    assert status == 0 and "A Vienna - Galicia: taken, not checked" in out
    status, _, err = cli("game", "adjudicate", str(game))
    assert status == 2 and "unsatisfiable" in err and "Austria: A Vienna - Galicia" in err


def test_the_contract_page_lists_what_the_encodings_give():
    page = (ROOT / "docs" / "rules-of-your-own.md").read_text(encoding="utf-8")
    c = contract()
    for name, sigs in (("inputs", c.inputs), ("hooks", c.hooks)):
        listed = re.search(f"<!-- {name} -->(.*?)<!-- /{name} -->", page)[1]
        assert listed == ", ".join(f"`{n}/{a}`" for n, a in sorted(sigs)), name


def test_api_new_game_with_a_rule_and_an_unsettled_step(tmp_path):
    import fivedp_asp as fd

    unsat = rule_file(tmp_path, ":- order(I,U,Pw), new(I).\ncut(S) :- supports(S,X,T), not supports(S,X,T).\n")
    game = fd.new_game(fd.settings({"rules": {"mine": str(unsat)}}))
    game = fd.submit_orders(game, ["A Vienna - Galicia"], power="Austria").game
    with pytest.raises(RuleError, match="unsatisfiable"):
        fd.adjudicate(game)
    with pytest.raises(InputError, match="mine.lp:1:1: moves/1"):
        fd.new_game(fd.settings({"rules": {"mine": str(rule_file(tmp_path, "moves(U) :- unit(U,K,P,L).\n"))}}))
