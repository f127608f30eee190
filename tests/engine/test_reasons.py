"""Reasons of results (asp/*/reasons.lp, docs/rules.md §3.4): worked out by hand from the rules, then
checked against what the engine says; the scenario corpus checks many more through ``reasons:``."""

from __future__ import annotations

import json
from pathlib import Path

import clingo

from fivedp_asp.files.scenarios import read_scenario
from fivedp_asp.cli import main
from fivedp_asp.model.multiverse import ADJUSTMENT, Unit, make_board
from fivedp_asp.engine.answer import Cause
from fivedp_asp.engine.phase import _paradox_causes
from fivedp_asp.engine.step import step

DATC = Path(__file__).parent.parent.parent / "cases" / "datc"
MULTIVERSE = DATC.parent / "multiverse"


def _outcome(report, text):
    return next(o for o in report.outcomes if o.text == text)


def test_bounce_reason_text_and_structure():
    # DATC 6.A.11: two armies of strength 1 into empty Tyrolia; each bounces with the other
    mv = read_scenario(DATC / "6.A.11.yaml").start
    report = step(mv, {"Austria": ["A Vienna - Tyrolia"], "Italy": ["A Venice - Tyrolia"]})
    o = _outcome(report, "A Vienna - Tyrolia")
    assert o.result == "fails"
    assert o.explanation == (Cause("bounced", ("A a-Ven@0",), 1, 1, "prevent"),)
    assert o.reason == "bounced with A Ven (attack 1 against prevent 1)"


def test_supported_move_says_its_strength_and_the_dislodged_hold_its_attacker():
    # DATC 6.D.2: Trieste supported by the Adriatic dislodges Venice, whose support from Tyrolia is
    # cut by Vienna: attack 2 against hold 1
    mv = read_scenario(DATC / "6.D.02.yaml").start
    orders = {"Austria": ["F Adriatic Sea Supports A Trieste - Venice", "A Trieste - Venice", "A Vienna - Tyrolia"],
              "Italy": ["A Venice Hold", "A Tyrolia Supports A Venice"]}
    report = step(mv, orders)
    assert _outcome(report, "A Trieste - Venice").explanation == (Cause("strength", (), 2, 1, "opposition"),)
    assert _outcome(report, "A Venice Hold").explanation == (Cause("dislodged", ("A a-Tri@0",)),)
    assert _outcome(report, "A Tyrolia Supports A Venice").reason == "cut by A Vie"
    # a move into an empty place that nobody contests needs no reason
    assert _outcome(report, "F Adriatic Sea Supports A Trieste - Venice").explanation == ()


def test_a_second_build_in_one_province_is_a_duplicate():
    board = make_board(0, 2, [Unit("army", "Germany", "ber")], {"ber": "Germany", "kie": "Germany", "mun": "Germany"},
                       adjustment_due=True)
    mv = read_scenario(DATC / "6.I.01.yaml").start.with_boards([board])
    assert mv.heads[0].phase == ADJUSTMENT
    report = step(mv, {"Germany": ["Build A Kiel", "Build F Kiel"]})
    assert _outcome(report, "Build A Kiel").result == "succeeds"
    second = _outcome(report, "Build F Kiel")
    assert second.result == "fails" and [c.kind for c in second.explanation] == ["duplicate"]


def test_backup_rules_of_the_driver_become_paradox_causes():
    mv = read_scenario(DATC / "6.C.01.yaml").start
    places = tuple(clingo.Function("p", [clingo.Function("b", [clingo.Number(0), clingo.Number(0)]),
                                         clingo.Function(p)]) for p in ("ank", "con"))
    causes = _paradox_causes(mv, (("fail", places), ("szykman", places[:1])))
    assert causes[(0, 0, "ank")] == [Cause("paradox", ("A a-Con@0", "F a-Ank@0"), detail="fail")]
    assert causes[(0, 0, "ank")][0].text() == "paradox, DATC 5.B.9: the orders of A a-Con@0, F a-Ank@0 fail"


def test_json_has_reason_and_explanation(capsys):
    assert main(["adjudicate", "--json", str(DATC / "6.D.02.yaml")]) == 0
    data = json.loads(capsys.readouterr().out)
    orders = {o["text"]: o for o in data["steps"][0]["orders"]}
    assert orders["A Vienna - Tyrolia"]["reason"] == "bounced off A Tyr (attack 1 against hold 1)"
    assert orders["A Vienna - Tyrolia"]["explanation"] == [
        {"kind": "bounced", "units": ["A a-Tyr@0"], "strength": 1, "against": 1, "versus": "hold"}]
    assert orders["A Venice Hold"]["explanation"] == [{"kind": "dislodged", "units": ["A a-Tri@0"]}]


def test_text_output_shows_the_reason(capsys):
    assert main(["adjudicate", str(DATC / "6.F.06.yaml")]) == 0
    out = capsys.readouterr().out
    assert "fails (convoy disrupted: F Nth dislodged)" in out
    assert "fails (cut by A Pic)" in out
    # the fleet in the North Sea is dislodged by the supported fleet from Skagerrak
    assert "  Dislodged: F Nth on a0 (by F Ska)\n" in out


def test_json_dislodged_names_the_attacker(capsys):
    assert main(["adjudicate", "--json", str(DATC / "6.D.02.yaml")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["steps"][0]["dislodged"] == [{"board": "a0", "power": "Italy", "unit": "A Ven", "by": "A a-Tri@0"}]


def _travelled():
    """cases/multiverse/4.44 after its second step, with A Berlin - Kiel in that step too: on a1 (past
    now) Munich's army travelled back to a-Tyrolia@0 (a journey into a board already past, forking b)
    and Berlin's army moved to Kiel on a1 itself; then a2's adjustments, with no build ordered: heads
    a2 and b1 wait for movement."""
    mv = read_scenario(Path(__file__).parent.parent.parent / "cases" / "multiverse"
                       / "4.44-hold-support-of-a-traveller-fails.yaml").start
    mv = step(mv, {}).after
    mv = step(mv, {"Germany": ["A Munich - a-Tyrolia@0", "A Berlin - Kiel"]}).after
    # a2 may build (Kiel taken in the Fall): no build is ordered
    return step(mv, {}).after


def test_supports_of_past_units_say_what_the_record_says_they_did():
    """docs/rules.md §3.3, §6.4: a unit on a past board does what its board's record says; a support
    that matches something else fails and names what the unit did — also when nothing else brings that
    board into the battle (a support of a move into another board reaches only that board)."""
    mv = _travelled()
    assert [h.name for h in mv.heads] == ["a2", "b1"]
    # to hold: the traveller moved (into the past), the army in Berlin moved to Kiel
    report = step(mv, {"Germany": ["A a-Kiel@2 S A a-Munich@1", "A b-Munich S A a-Berlin@1"]})
    traveller = _outcome(report, "A a-Kiel@2 S A a-Munich@1")
    assert traveller.result == "fails"
    assert traveller.explanation == (Cause("not_matching", ("A a-Mun@1",), detail="journey"),)
    assert traveller.reason == "not matching: A a-Mun@1 moved into a board already past, outside this battle"
    mover = _outcome(report, "A b-Munich S A a-Berlin@1")
    assert (mover.result, mover.reason) == ("fails", "not matching: A a-Ber@1 moves elsewhere")
    # of a move into b1 (a1 is not fought again): the traveller's move was its journey, Berlin's to Kiel
    report = step(mv, {"Germany": ["A b-Tyrolia S A a-Munich@1 - b-Munich"]})
    x = _outcome(report, "A b-Tyrolia S A a-Munich@1 - b-Munich")
    assert x.result == "fails" and x.explanation == (Cause("not_matching", ("A a-Mun@1",), detail="journey"),)
    report = step(mv, {"Germany": ["A b-Munich S A a-Berlin@1 - b-Berlin"]})
    x = _outcome(report, "A b-Munich S A a-Berlin@1 - b-Berlin")
    assert (x.result, x.reason) == ("fails", "not matching: A a-Ber@1 moves elsewhere")


def test_a_reason_names_every_unit_with_its_board_when_two_boards_are_involved(capsys):
    # cases/multiverse/4.17: Bohemia on a2 supports Silesia of b1 into b-Galicia@1, and is cut by the
    # army in Galicia on a2. Two Galicias are in play: "cut by A Gal" would not say which.
    assert main(["adjudicate", "--json", str(MULTIVERSE / "4.17-support-cut-from-same-province-other-board.yaml")]) == 0
    orders = {o["text"]: o for o in json.loads(capsys.readouterr().out)["steps"][2]["orders"]}
    assert orders["A a-Bohemia supports A b-Silesia - Galicia"]["reason"] == "cut by A a-Gal@2"
    # a cross-timeline circle (4.15): each move names the three units with their boards, whichever
    # board the order stands on
    assert main(["adjudicate", "--json", str(MULTIVERSE / "4.15-cross-timeline-circle.yaml")]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    circle = [o["reason"] for s in steps for o in s["orders"] if (o.get("reason") or "").startswith("circular")]
    assert circle and set(circle) == {"circular movement: the moves of A a-Gal@2, A b-Boh@1, A b-Sil@1 succeed"}


def test_a_reason_on_one_board_keeps_the_short_names(capsys):
    # DATC 6.A.11 on a single board: the bounce names the other army by its province alone
    assert main(["adjudicate", "--json", str(DATC / "6.A.11.yaml")]) == 0
    orders = {o["text"]: o for o in json.loads(capsys.readouterr().out)["steps"][0]["orders"]}
    assert orders["A Vienna - Tyrolia"]["reason"] == "bounced with A Ven (attack 1 against prevent 1)"


def test_an_invalid_retreat_is_explained_by_the_dislodged_unit_not_its_attacker():
    # the French fleet that dislodged the army now stands in London; the retreat order is the army's,
    # whose type the line gives rightly: the reason must not speak of the fleet (docs/rules.md §4)
    case = Path(__file__).parent.parent.parent / "cases" / "rules" / "retreat-of-the-unit-under-its-attacker.yaml"
    scenario = read_scenario(case)
    after = step(scenario.start, scenario.steps[0].orders).after
    report = step(after, {"England": ["A London - Belgium", "F Liverpool - Clyde"]})
    assert _outcome(report, "A London - Belgium").result == "invalid"
    assert _outcome(report, "A London - Belgium").reason == "not adjacent"
    # a line that calls the dislodged army a fleet is refused under datc_4c2: invalid, for its own type
    assert (_outcome(report, "F Liverpool - Clyde").result, _outcome(report, "F Liverpool - Clyde").reason) \
        == ("invalid", "wrong unit type")
