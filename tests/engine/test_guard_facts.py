"""The flags that the rules about several coasts in reach and about dead ends of a convoy network start
from (``guards.coasts_in_reach_facts``, ``guards.several_convoys_facts``): each is written whenever its
rules could fire, so that leaving those rules out when it is not written changes no answer.

The flags are checked on positions written here; the rules they guard are checked against an
enumeration of convoy routes written here independently of the logic programs (the ambiguous coasts
are DATC 6.B.1 to 6.B.15 in cases/datc/, which run with the flag and without it)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from fivedp_asp.engine.facts import movement_facts
from fivedp_asp.engine.step import read_orders
from fivedp_asp.files.scenarios import check_scenarios, read_scenario

from .test_convoy_routes import _geography, _on_routes

FLAGS = ("coasts_in_reach", "several_convoys")
POSITIONS = 160


def _scenario(tmp_path: Path, units: dict[str, list[str]], orders: dict[str, list[str]], options=None, n: int = 0):
    data = {"id": f"guard {n}", "start": {"units": units}, "steps": [{"orders": orders}]}
    if options:
        data["options"] = options
    path = tmp_path / f"guard-{n}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return read_scenario(path)


def _flags(tmp_path: Path, units, orders, options=None) -> set[str]:
    scenario = _scenario(tmp_path, units, orders, options)
    facts = movement_facts(scenario.start, read_orders(scenario.start, scenario.steps[0].orders)).facts
    return {f[0] for f in facts if f[0] in FLAGS}


def test_two_coasts_in_reach_of_a_move_or_a_support_are_flagged(tmp_path: Path):
    units = {"France": ["F Mid-Atlantic Ocean", "F Gascony", "A Marseilles"]}
    # the Mid-Atlantic fleet reaches both coasts of Spain; Gascony only the north coast
    assert _flags(tmp_path, units, {"France": ["F Mid-Atlantic Ocean - Spain"]}) == {"coasts_in_reach"}
    assert _flags(tmp_path, units, {"France": ["F Mid-Atlantic Ocean - Spain(nc)"]}) == {"coasts_in_reach"}
    assert _flags(tmp_path, units, {"France": ["A Marseilles Supports F Mid-Atlantic Ocean - Spain"]}) \
        == {"coasts_in_reach"}
    assert _flags(tmp_path, units, {"France": ["F Gascony - Spain", "F Mid-Atlantic Ocean - Brest"]}) == set()
    # a unit's edges into provinces no order asks about are not written, and count for nothing
    assert _flags(tmp_path, units, {"France": ["F Mid-Atlantic Ocean H"]}) == set()


def test_two_convoys_of_one_army_or_an_open_convoy_are_flagged(tmp_path: Path):
    units = {"England": ["F North Sea", "F English Channel", "F Norwegian Sea", "A London", "A Edinburgh"]}
    one_each = {"England": ["A London - Belgium", "F English Channel Convoys A London - Belgium",
                            "A Edinburgh - Norway", "F Norwegian Sea Convoys A Edinburgh - Norway"]}
    assert _flags(tmp_path, units, one_each) == set()
    two = {"England": ["A London - Belgium", "F English Channel Convoys A London - Belgium",
                       "F North Sea Convoys A London - Belgium"]}
    assert _flags(tmp_path, units, two) == {"several_convoys"}
    open_one = {"England": ["A London - Belgium", "F North Sea C"]}
    assert _flags(tmp_path, units, open_one, {"open_convoys": True}) == {"several_convoys"}


@pytest.mark.slow
def test_rules_of_your_own_get_both_flags_and_every_order_is_doubtful(tmp_path: Path):
    # they may derive step/3, convoys/2 and mentions/2 (hooks) whatever the orders
    rule = tmp_path / "my_rule.lp"
    rule.write_text("cut(S) :- supports(S,X,T), T = p(_,lon).\n", encoding="utf-8")
    units = {"England": ["F North Sea", "A London"]}
    orders = {"England": ["A London H", "F North Sea - Norway"]}
    assert _flags(tmp_path, units, orders, {"rules": {"mine": str(rule)}}) == set(FLAGS)
    scenario = _scenario(tmp_path, units, orders, {"rules": {"mine": str(rule)}})
    facts = movement_facts(scenario.start, read_orders(scenario.start, scenario.steps[0].orders)).facts
    assert {f for f in facts if f[0] == "doubtful_unit"} == {("doubtful_unit", 0), ("doubtful_unit", 1)}


def _reached(fleets: set[str], start: str, other: str, adj, touching) -> set[str]:
    """The fleets a chain from the seas next to ``start`` reaches, going on from a fleet only while it is
    not next to ``other`` (where such a chain ends)."""
    seen = set(touching[start] & fleets)
    todo = [f for f in seen if f not in touching[other]]
    while todo:
        for nxt in adj[todo.pop()]:
            if nxt in fleets and nxt not in seen:
                seen.add(nxt)
                if nxt not in touching[other]:
                    todo.append(nxt)
    return seen


@pytest.mark.slow
def test_convoys_of_one_army_by_many_fleets_succeed_exactly_on_routes(tmp_path: Path):
    """Every fleet convoys the one army (``several_convoys`` written): a fleet that the chains from the
    two ends do not both reach is not needed on a route (invalid, docs/rules.md §2.4); a legal one
    succeeds exactly when it lies on a route of legal fleets, and fails on a dead end off it. With
    one fleet for each of two armies (no flag) a fleet succeeds exactly when it is next to both ends."""
    game_map, seas, coasts, adj, touching = _geography()
    name = {p: game_map.provinces[p].name for p in game_map.provinces}
    rng = random.Random(23)
    expected, scenarios = [], []
    for n in range(POSITIONS):
        if n % 4 == 3:
            # two armies, one convoying fleet each, next to both ends or not
            origin1, dest1, origin2, dest2 = rng.sample(coasts, 4)
            f1 = rng.choice(sorted(touching[origin1]))
            f2 = rng.choice(sorted(touching[origin2] - {f1}) or sorted(set(seas) - {f1}))
            armies = [(origin1, dest1, {f1}), (origin2, dest2, {f2})]
        else:
            fleets = set(rng.sample(seas, rng.randint(6, 14)))
            origin, dest = rng.sample(coasts, 2)
            armies = [(origin, dest, fleets)]
        units = {"England": [f"F {name[s]}" for _, _, fl in armies for s in sorted(fl)],
                 "France": [f"A {name[o]}" for o, _, _ in armies]}
        orders = {"England": [f"F {name[s]} Convoys A {name[o]} - {name[d]}"
                              for o, d, fl in armies for s in sorted(fl)],
                  "France": [f"A {name[o]} - {name[d]} via convoy" for o, d, _ in armies]}
        scenarios.append(_scenario(tmp_path, units, orders, n=n))
        want = {}
        every = set().union(*(fl for _, _, fl in armies))
        for o, d, fl in armies:
            # legality looks at every fleet of the board (a move with no chain of fleets at all is
            # invalid; a convoy order is legal when needed on a route, docs/rules.md §2.4); a route is
            # made of the fleets with a legal order to convoy that army
            possible = _reached(every, o, d, adj, touching) & _reached(every, d, o, adj, touching)
            legal = possible & fl
            routes = _on_routes(legal, o, d, adj, touching)
            want[f"A {name[o]} - {name[d]} via convoy"] = \
                "succeeds" if routes else "fails" if _on_routes(every, o, d, adj, touching) else "invalid"
            for s in fl:
                want[f"F {name[s]} Convoys A {name[o]} - {name[d]}"] = \
                    "succeeds" if s in routes else "fails" if s in legal else "invalid"
        expected.append(want)
    dead_ends = flagged = 0
    for want, scenario, run in zip(expected, scenarios, check_scenarios(scenarios)):
        assert not isinstance(run, Exception), run
        got = {o.text: o.result for o in run.reports[0].outcomes}
        assert got == want, scenario.id
        dead_ends += sum(1 for text, result in want.items() if result == "fails" and " Convoys " in text)
        facts = movement_facts(scenario.start, read_orders(scenario.start, scenario.steps[0].orders)).facts
        flagged += any(f[0] == "several_convoys" for f in facts)
    assert dead_ends >= 5, "the positions should include fleets on dead ends off a route"
    assert flagged == POSITIONS * 3 // 4, "the positions of one army have several fleets, the others one each"
