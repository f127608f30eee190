"""The sentence of each kind of reason (``Cause.text``, docs/rules.md §3.4), worked out by hand.

A scenario's ``reasons:`` names the kinds of an order's causes and their units, not their words, so
the words are held here: for every kind in ``CAUSE_KINDS``, an order of a scenario of ``cases/`` (whose
results come from the DATC's text or are hand-worked, and whose ``reasons:`` name that kind) or of a
small position built here, with the sentence a player should read, written from the rules: the units
by their short names on one board (``A Ven``), each with its board when the order or its reason
involves a second board (``A a-Boh@2``, ``A b-Sil@1``), strengths counted by hand. An order may have several causes: each sentence must be one of those its reason joins."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedp_asp.engine.answer import CAUSE_KINDS
from fivedp_asp.engine.step import step
from fivedp_asp.files.scenarios import check_scenarios, read_scenario
from fivedp_asp.model.multiverse import ADJUSTMENT, Unit, make_board

CASES = Path(__file__).resolve().parent.parent.parent / "cases"

# (scenario, step, order line, kind, sentence): why the sentence is what it is, beside it
IN_SCENARIOS = [
    # DATC 6.A.11: Vienna and Venice into empty Tyrolia, strength 1 each; each prevents the other
    ("datc/6.A.11.yaml", 1, "A Vienna - Tyrolia", "bounced", "bounced with A Ven (attack 1 against prevent 1)"),
    # DATC 6.F.6: Picardy, supported by Burgundy (2), against Belgium held by Holland's support (2;
    # Belgium's own support is cut by Picardy); North Sea dislodged by Skagerrak, which Helgoland
    # supports: the convoy is disrupted and London's move fails
    ("datc/6.F.06.yaml", 1, "A Picardy - Belgium", "bounced", "bounced off A Bel (attack 2 against hold 2)"),
    ("datc/6.F.06.yaml", 1, "A Belgium Supports A Holland", "cut", "cut by A Pic"),
    ("datc/6.F.06.yaml", 1, "F North Sea Convoys A London - Holland", "dislodged", "dislodged by F Ska"),
    ("datc/6.F.06.yaml", 1, "A London - Holland", "convoy_disrupted", "convoy disrupted: F Nth dislodged"),
    # DATC 6.E.1: Berlin, supported by Silesia (2), swaps with Prussia (1): Prussia loses the head to
    # head battle and is dislodged by Berlin
    ("datc/6.E.01.yaml", 1, "A Prussia - Berlin", "beaten_head_to_head",
     "beaten head to head by A Ber (attack 1 against defend 2)"),
    ("datc/6.E.01.yaml", 1, "A Prussia - Berlin", "dislodged", "dislodged by A Ber"),
    # DATC 6.E.2: Berlin into Kiel with Munich's support would dislodge Germany's own fleet
    ("datc/6.E.02.yaml", 1, "A Berlin - Kiel", "own_unit", "would dislodge its own unit F Kie"),
    # DATC 6.D.9: Albania supports Trieste to Serbia, but Trieste holds (and is dislodged by Venice)
    ("datc/6.D.09.yaml", 1, "A Albania Supports A Trieste - Serbia", "not_matching", "not matching: A Tri does not move"),
    ("datc/6.D.09.yaml", 1, "A Trieste Hold", "dislodged", "dislodged by A Ven"),
    # DATC 6.F.14: Brest's convoyed attack on London would cut the support that dislodges its convoy, a
    # paradox the Szykman rule (the default reading of DATC 4.A.2) settles: the convoying fleet holds
    ("datc/6.F.14.yaml", 1, "A Brest - London", "paradox", "convoy paradox, Szykman rule: F Eng holds"),
    # the same under the 'All Hold' reading: the moves of the paradox, Brest's and Wales's, fail (the
    # units of a backup rule are named in the order of their full designations: A a-Bre@0, F a-Wal@0)
    ("datc-options/6.F.14-datc_4a2-all_hold-hand.yaml", 1, "A Brest - London", "paradox",
     "convoy paradox, 'All Hold' rule: the moves of A Bre, F Wal fail"),
    # SR 1 (support_results: follow): Munich's support of Berlin into Silesia is given (nobody cuts
    # it), but Berlin's attack of 2 meets Silesia's hold of 2 and fails, so the support fails with it
    ("options/support_results/01-follow.yaml", 1, "A Munich S A Berlin - Silesia", "supported_failed",
     "given, but the supported order of A Ber fails"),
    # DATC 6.C.1: three units in a ring, each moving into the next's place: the circular movement
    # succeeds (A a-Con@0, A a-Smy@0, F a-Ank@0 in that order)
    ("datc/6.C.01.yaml", 1, "F Ankara - Constantinople", "paradox",
     "circular movement: the moves of A Con, A Smy, F Ank succeed"),
    # a convoy route that ends in a province with no coast to land: the North Atlantic fleet is not
    # on the route the army took (the rule's own scenario)
    ("rules/convoy-dead-end-fleet-unused.yaml", 1, "F North Atlantic Ocean C A London - Tunis", "unused",
     "not on the route the army took"),
    # MV 16: Silesia (b1) supported from a-Bohemia@2 (2) into Galicia, whose army (1) left to attack
    # the supporter on a2 and bounced: attack 2 against the 1 it overcame; Galicia's army is dislodged
    # by it (the attack on a2 involves two boards: every unit is named with its own)
    ("multiverse/4.16-support-not-cut-from-target-place.yaml", 3, "A b-Silesia - Galicia", "strength",
     "attack 2 against 1"),
    ("multiverse/4.16-support-not-cut-from-target-place.yaml", 3, "A b-Galicia - a-Bohemia@2", "bounced",
     "bounced off A a-Boh@2 (attack 1 against hold 1)"),
    ("multiverse/4.16-support-not-cut-from-target-place.yaml", 3, "A b-Galicia - a-Bohemia@2", "dislodged",
     "dislodged by A b-Sil@1"),
    # DATC 6.I.1: Germany has 3 centres and 2 units: one build; Kiel's comes first, Munich's is over
    ("datc/6.I.01.yaml", 1, "Build A Munich", "no_builds_left", "no builds left: 1 allowed on this board"),
    # DATC 6.J.1: France has 1 centre and 2 units: one disband; Picardy's comes first
    ("datc/6.J.01.yaml", 1, "Remove A Paris", "no_disbands_left", "no disbands left: 1 due on this board"),
    # DATC 4.D.9 read as "fails": Austria gives no orders, so Italy's support of Vienna fails
    ("datc-options/4.D.9-datc_4d9-fails-hand.yaml", 1, "A Tyrolia Supports A Vienna", "civil_disorder",
     "the power of A Vie gives no orders (civil disorder)"),
    # JA 3: a jump three turns back needs k = 2 assists; Berlin's is cut by Prussia (on a3; the assist
    # names a move into a0, so its units are named with their boards), one is left
    ("options/jump_assists/03-three-back-one-assist-cut-support-stands.yaml", 4, "A Munich - a-Bohemia@0",
     "too_few_assists", "too few jump assists given (1 of 2)"),
    ("options/jump_assists/03-three-back-one-assist-cut-support-stands.yaml", 4, "A Berlin J A Munich - a-Bohemia@0",
     "cut", "cut by A a-Pru@3"),
    # OC 5: an open convoy that no army's move goes through
    ("options/open_convoys/05-no-intent-from-open-convoy.yaml", 1, "F North Sea C", "open_convoy_unused",
     "open convoy not used by any army"),
    # SUSTAIN 2: England's one fraction is London's half on b1; London ties 1 to 1 and goes to a
    ("options/sustain/02-contested-centres.yaml", 3, "Sustain b", "sustains_other", "London sustains a"),
    # SUSTAIN 3: Germany's Sustain alfa, written later, replaces its Sustain bravo
    ("options/sustain/03-centre-order-beats-power-wide.yaml", 3, "Sustain bravo", "overridden",
     "overridden by a later order"),
]


@pytest.fixture(scope="module")
def runs() -> dict[str, object]:
    """Each scenario named above, run once (in lockstep, as ``fivedp check`` runs them)."""
    names = sorted({name for name, *_ in IN_SCENARIOS})
    done = check_scenarios([read_scenario(CASES / name) for name in names])
    for name, run in zip(names, done):
        assert not isinstance(run, Exception) and run.passed, (name, run)
    return dict(zip(names, done))


def _sentences(outcome) -> list[str]:
    return outcome.reason.split("; ") if outcome.reason else []


@pytest.mark.parametrize("name,at,line,kind,sentence", IN_SCENARIOS, ids=[f"{k}-{n}" for n, _, _, k, _ in IN_SCENARIOS])
def test_the_sentence_of_a_reason_in_a_scenario(runs, name, at, line, kind, sentence):
    outcome = next(o for o in runs[name].reports[at - 1].outcomes if o.text == line)
    assert kind in [c.kind for c in outcome.explanation], outcome.explanation
    assert sentence in _sentences(outcome), outcome.reason


def _london_and_the_north_sea():
    mv = read_scenario(CASES / "datc" / "6.A.11.yaml").start
    return mv.with_boards([make_board(0, 0, [Unit("army", "England", "lon"), Unit("fleet", "England", "nth")], {})])


def test_a_move_across_the_sea_that_no_fleet_convoys_has_no_route():
    """London to Belgium crosses the sea; the North Sea fleet could carry it but holds: the move fails,
    there being no convoy route."""
    report = step(_london_and_the_north_sea(), {"England": ["A London - Belgium", "F North Sea Hold"]})
    outcome = next(o for o in report.outcomes if o.text == "A London - Belgium")
    assert outcome.result == "fails" and [c.kind for c in outcome.explanation] == ["no_route"]
    assert outcome.reason == "no convoy route"


def test_a_second_build_in_one_province_says_the_first_counts():
    """Germany, 3 centres and 1 unit, builds twice in Kiel: the first build is the one that counts."""
    board = make_board(0, 2, [Unit("army", "Germany", "ber")], {"ber": "Germany", "kie": "Germany", "mun": "Germany"},
                       adjustment_due=True)
    mv = read_scenario(CASES / "datc" / "6.I.01.yaml").start.with_boards([board])
    assert mv.heads[0].phase == ADJUSTMENT
    report = step(mv, {"Germany": ["Build A Kiel", "Build F Kiel"]})
    outcome = next(o for o in report.outcomes if o.text == "Build F Kiel")
    assert outcome.result == "fails" and outcome.reason == "an earlier order for the same place counts"


def test_every_kind_of_reason_has_its_sentence_checked_here():
    checked = {kind for *_, kind, _ in IN_SCENARIOS} | {"no_route", "duplicate"}
    assert checked == set(CAUSE_KINDS)
