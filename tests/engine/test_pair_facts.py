"""The facts that the rules about conflicting orders, head-to-head battles, named coasts, orders into
their own place and doubtful units start from (``facts.pairing_facts``; ``names_coast/1``,
``repeats_place/1`` of ``facts.order_facts``; ``guards.doubtful_unit_facts``): they name every pair,
coast and order those rules can use, so that leaving the rules out when there are none changes no
answer."""

from __future__ import annotations

from fivedp_asp.api import new_game
from fivedp_asp.engine.facts import movement_facts
from fivedp_asp.engine.step import read_orders, step


def _facts(orders: dict[str, list[str]]) -> set[tuple]:
    mv = new_game().mv
    return {f for f in movement_facts(mv, read_orders(mv, orders)).facts
            if f[0] in ("ordered_twice", "swapped", "names_coast", "repeats_place", "doubtful_unit")}


def test_units_ordered_into_each_others_place_are_swapped_both_ways():
    facts = _facts({"Germany": ["A Berlin - Kiel", "F Kiel - Berlin", "A Munich - Ruhr"]})
    assert facts == {("swapped", (0, 0, "ber"), (0, 0, "kie")), ("swapped", (0, 0, "kie"), (0, 0, "ber"))}


def test_a_unit_with_two_different_orders_is_ordered_twice_and_the_same_order_twice_is_not():
    assert _facts({"France": ["A Paris - Burgundy", "A Paris - Picardy"]}) == {("ordered_twice", (0, 0, "par"))}
    assert _facts({"France": ["A Paris - Burgundy", "A Paris - Burgundy"]}) == set()


def test_a_move_or_support_naming_a_coast_names_it():
    # the coast a fleet stands on is not named by its order; a destination's coast is, legal or not
    assert _facts({"Russia": ["F St Petersburg(sc) - Gulf of Bothnia"]}) == set()
    assert _facts({"France": ["F Brest - Spain(nc)"]}) == {("names_coast", 0)}
    assert _facts({"France": ["A Paris - Burgundy", "F Brest Supports F Marseilles - Spain(sc)"]}) == {("names_coast", 1)}


def test_an_order_naming_one_place_twice_repeats_it():
    assert _facts({"France": ["A Paris - Paris", "A Marseilles Supports A Marseilles",
                              "F Brest Supports A Paris - Brest", "A Paris Supports A Marseilles - Marseilles"]}) \
        == {("repeats_place", 0), ("repeats_place", 1), ("repeats_place", 2), ("repeats_place", 3),
            ("ordered_twice", (0, 0, "par"))}
    assert _facts({"France": ["F Brest Supports A Paris - Picardy"]}) == set()


def test_an_order_for_a_missing_or_foreign_unit_or_about_a_missing_one_is_doubtful():
    assert _facts({"France": ["A Picardy - Paris", "A Paris Supports A Burgundy", "F Brest Convoys A Gascony - Picardy",
                              "A Marseilles Supports A Paris - Burgundy"],
                   "England": ["A Paris - Gascony"]}) \
        == {("doubtful_unit", i) for i in (0, 1, 2, 4)} | {("ordered_twice", (0, 0, "par"))}


def test_a_head_to_head_battle_and_conflicting_orders_are_still_decided():
    # a head-to-head battle of equal strength (both fail) and two orders for one unit (both invalid)
    mv = new_game().mv
    report = step(mv, {"Germany": ["A Berlin - Kiel", "F Kiel - Berlin"],
                       "France": ["A Paris - Burgundy", "A Paris - Picardy"]})
    results = {o.text: (o.result, o.reason) for o in report.outcomes}
    assert results["A Berlin - Kiel"][0] == "fails" and results["F Kiel - Berlin"][0] == "fails"
    assert results["A Paris - Burgundy"][0] == results["A Paris - Picardy"][0] == "invalid"
    assert "conflicting" in results["A Paris - Burgundy"][1]


def test_a_convoy_by_an_army_or_from_a_coast_or_of_a_fleet_is_doubtful_and_refused():
    orders = {"France": ["A Paris Convoys A Marseilles - Burgundy", "F Brest Convoys A Paris - Picardy"],
              "England": ["F London Convoys F Edinburgh - Norway", "A Liverpool - Yorkshire"]}
    assert _facts(orders) == {("doubtful_unit", i) for i in (0, 1, 2)}
    mv = new_game().mv
    results = {o.text: (o.result, o.reason) for o in step(mv, orders).outcomes}
    assert results["A Paris Convoys A Marseilles - Burgundy"] == ("invalid", "cannot convoy")
    assert results["F Brest Convoys A Paris - Picardy"] == ("invalid", "cannot convoy")
    assert results["F London Convoys F Edinburgh - Norway"][0] == "invalid"
    assert results["A Liverpool - Yorkshire"][0] == "succeeds"

