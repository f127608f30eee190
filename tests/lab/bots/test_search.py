"""The bots that play the rule: the greedy bot's open convoys and jumps, and the ``search`` bot
(bots/greedy.py, bots/search.py)."""

from __future__ import annotations

import json
import random

import pytest

from fivedp_asp.engine.step import next_phase, step
from fivedp_asp.game.state import new_game
from fivedp_asp.lab.bots import greedy
from fivedp_asp.lab.bots.search import search_bot
from fivedp_asp.lab.bots.values import board_values
from fivedp_asp.lab.bots.view import RUNNER, Ledger, View
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import ADJUSTMENT, MOVEMENT, opening
from fivedp_asp.model.notation import parse_order
from fivedp_asp.model.orders import JumpAssist, Move, OpenConvoy
from fivedp_asp.model.settings import Settings

MAP = load_map("standard")


def test_greedy_tries_an_open_convoy_that_carries_its_army_where_they_are_allowed():
    spring = {"England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]}
    for allowed in (True, False):
        mv = step(opening(MAP, Settings.of({"open_convoys": allowed})), spring, reasons=False).after
        view = View(new_game(mv), "England", "s")
        plans, _ = greedy.plan_heads(view, random.Random(1))
        plan = plans[0]
        for province in ("nth", "yor"):
            plan.orders[province] = next(o for o in greedy.options_of(view, plan.head)[province] if o.kind == "hold")
            plan.going = {d: u for d, u in plan.going.items() if u != province and d != province}
        base = greedy._lines(plans)
        variants = greedy._open_convoys(view, plans, base)
        if not allowed:
            assert variants == []
            continue
        assert variants
        for lines in variants:
            orders = [parse_order(line, MAP) for line in lines]
            assert [o.unit.where.province for o in orders if isinstance(o, OpenConvoy)] == ["nth"]
            army = next(o for o in orders if o.unit.where.province == "yor")
            assert isinstance(army, Move) and army.dest.province not in ("yor", "lon", "edi", "wal", "lvp")
            report = step(mv, {"England": lines}, reasons=False)
            # the army crossed the sea on the open convoy
            assert not [o for o in report.outcomes if o.result == "invalid"]
            assert report.after.boards[(0, 2)].units[army.dest.province].power == "England"


def test_greedy_jumps_two_turns_back_onto_an_empty_centre_where_jump_assists_are_allowed():
    mv = opening(MAP, Settings.of({"jump_assists": True}))
    while mv.heads[0].turn < 2:
        mv = step(mv, {}, reasons=False).after
    assert next_phase(mv) == MOVEMENT
    view = View(new_game(mv), "Germany", "s", travel=True)
    plans, base = greedy.plan_heads(view, random.Random(1))
    variants = greedy._jumps(view, plans, base)
    assert variants
    lines = variants[0]
    orders = [parse_order(line, MAP) for line in lines]
    assist = next(o for o in orders if isinstance(o, JumpAssist))
    jump = next(o for o in orders if isinstance(o, Move) and o.unit.where == assist.target.where)
    assert (jump.dest.timeline, jump.dest.turn) == (0, 0) and MAP.provinces[jump.dest.province].center
    report = step(mv, {"Germany": lines}, reasons=False)
    assert not [o for o in report.outcomes if o.result == "invalid"]
    # the jump forked a timeline where Germany stands on the centre it reached
    new = [h for h in report.after.heads if h.timeline != 0]
    assert len(new) == 1 and new[0].units[jump.dest.province].power == "Germany"


def _watched(view, budget: int):
    """The search bot's orders for ``view`` under a runner's budget, the runner's ledger, and each
    try it made on a copy: the phase of the position tried and the order sets."""
    seen = []

    class Watching(Ledger):
        def simulate(self, position, order_sets):
            seen.append((next_phase(position), order_sets))
            return super().simulate(position, order_sets)

    ledger = Watching(budget)
    token = RUNNER.set(ledger)
    try:
        lines = search_bot(view)
    finally:
        RUNNER.reset(token)
    return lines, ledger, seen


def test_the_search_bot_keeps_within_the_runners_budget_and_tries_against_the_others_orders():
    mv = opening(MAP, Settings())
    view = View(new_game(mv), "England", "s")
    lines, ledger, tried = _watched(view, 8)
    seen = [s for _, sets in tried for s in sets]
    assert lines and ledger.spent == len(seen) <= 8
    # every try sets England's orders against orders of the other powers
    assert seen and all(set(s) > {"England"} and len(s) == 7 for s in seen)
    assert not [o for o in step(mv, {"England": lines}, reasons=False).outcomes if o.result == "invalid"]


@pytest.mark.slow
def test_search_england_ends_with_more_centres_than_greedy_england_in_the_same_seats(cli):
    """Against six greedy powers for 6 years, search England ends with at least as many centres as
    greedy England in the games of the same seeds in at least 5 of 6, and with more in all (docs/bots.md
    measures 20 games of 10 years with ``--budget 24`` on five seeds: more in 15, 15, 13, 10 and 14 of 20)."""
    ends = {}
    for bot in ("search", "greedy"):
        status, out, _ = cli("selfplay", "--games", "6", "--seed", "11", "--years", "6", "--bot", f"England={bot}",
                             "--bot", "all=greedy", "--budget", "12", "--json")
        assert status == 0
        ends[bot] = [g["final_centres"]["England"] for g in json.loads(out)["games"]]
    assert sum(s >= g for s, g in zip(ends["search"], ends["greedy"])) >= 5, ends
    assert sum(ends["search"]) > sum(ends["greedy"]), ends


def test_the_options_and_values_a_view_keeps_are_those_read_afresh():
    """The greedy bot keeps a head's options and values per view (every plan the search bot draws
    starts from them); kept, they are what reading the head again gives, and the plans alike."""
    mv = opening(MAP, Settings())
    mv = step(mv, {"England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]}, reasons=False).after
    view = View(new_game(mv), "England", "s")
    head = view.heads()[0]
    first = greedy.plan_heads(view, random.Random(3))[1]
    assert {u: list(o) for u, o in greedy.options_of(view, head).items()} == greedy._read_options(view, head)
    assert greedy.values_of(view, head) == board_values(head, "England", MAP)
    # the first plan read the head, the second one takes what the view kept
    assert greedy.plan_heads(view, random.Random(3))[1] == first


def test_the_search_bot_tries_its_builds_on_into_the_next_movement_within_the_budget():
    """Two builds for England: the search bot adjudicates ways of making them (with the other powers'
    adjustments), then the spring after each, all within the runner's budget, and gives builds the
    engine accepts; with a budget too small to try, it builds as the greedy bot builds."""
    mv = opening(MAP, Settings())
    mv = step(mv, {"England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]}, reasons=False).after
    mv = step(mv, {"England": ["F Nth - Hol", "F Nwg - Nwy", "A Yor - Edi"]}, reasons=False).after
    while next_phase(mv) != ADJUSTMENT:
        mv = step(mv, {}, reasons=False).after
    view = View(new_game(mv), "England", "s")
    assert view.adjusting()[0][1] == 2
    lines, ledger, seen = _watched(view, 24)
    assert 0 < ledger.spent <= 24
    adjustments = [s for phase, sets in seen if phase == ADJUSTMENT for s in sets]
    springs = [s for phase, sets in seen if phase == MOVEMENT for s in sets]
    # several ways of building, each played on into a spring against the other powers' orders
    assert len({tuple(s["England"]) for s in adjustments}) > 1 and springs
    assert all(len(s) > 1 for s in springs)
    assert tuple(lines) in {tuple(s["England"]) for s in adjustments} and len(lines) == 2
    report = step(mv, {"England": lines}, reasons=False)
    assert not [o for o in report.outcomes if o.result == "invalid"]
    assert sum(1 for u in report.after.heads[0].units.values() if u.power == "England") == 5
    # without a runner, the view's own budget counts the tries from the positions they reach too
    alone = View(new_game(mv), "England", "s", budget=24)
    assert search_bot(alone) == lines and 0 <= alone.remaining < 24
    assert search_bot(View(new_game(mv), "England", "s", budget=3)) == greedy.greedy_bot(View(new_game(mv), "England", "s"))
