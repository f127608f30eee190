"""The bots (fivedp_asp/lab/bots/): their orders are legal, they are seeded, and bots of your own load."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fivedp_asp.lab.bots.greedy import greedy_bot
from fivedp_asp.lab.bots.random_bot import random_bot
from fivedp_asp.lab.bots.registry import BUILTIN, load_bot, parse_seats
from fivedp_asp.lab.bots.view import Listings, View
from fivedp_asp.game.random_orders import OrderGenerator, Travel, multiverse_orders
from fivedp_asp.engine.batch import step_many
from fivedp_asp.engine.step import next_phase, step
from fivedp_asp.errors import InputError, UsageError
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import SUSTAIN, opening
from fivedp_asp.model.notation import parse_order
from fivedp_asp.model.settings import Settings

MAP = load_map("standard")


def random_position(seed: int, steps: int, multiverse: bool, options=None):
    """A position reached by ``steps`` steps of random orders (about 5% illegal ones; across boards too
    in a multiverse): whatever phase it then waits for."""
    rng = random.Random(seed)
    gen = OrderGenerator(MAP, rng)
    mv = opening(MAP, Settings.of(options))
    for _ in range(steps):
        if mv.winner:
            break
        orders = multiverse_orders(mv, gen, rng, next_phase(mv), (1, 4) if multiverse else 0, Travel(move_share=0.6),
                                   travel_replaces=True)
        mv = step(mv, orders, reasons=False).after
    return mv


def bot_orders(bot, mv, seed: str, travel: bool, extra=(), listings=None):
    """Every power's orders from ``bot``, its views sharing one listing of the legal orders as a game's
    runner gives them (``view.Listings``; a test below holds it equal to each power's own). ``listings``:
    a listing of ``mv`` made before, which the bots of one position share (a new one by default)."""
    game, listings = new_game(mv), listings or Listings(mv)
    return {p: list(bot(View(game, p, f"{seed}/{p}", tuple(extra), travel, listings=listings)))
            for p in mv.players if p not in mv.eliminated}


def invalid(mv, orders):
    return invalid_many([(mv, orders)])[0]


def invalid_many(items):
    """For each ``(position, orders)``, the orders the engine refuses: (power, line, reason). Adjudicated
    together (``step_many``: the same reports as one step each), since a test asks the same position
    for several bots' orders, or under several options."""
    reports = step_many([(mv, {p: v for p, v in orders.items() if v}) for mv, orders in items], reasons=False)
    for report in reports:
        if isinstance(report, Exception):
            raise report
    return [[(o.power, o.text, o.reason) for o in report.outcomes if o.result == "invalid"] for report in reports]


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 16), multiverse=st.booleans())
def test_the_orders_of_every_bot_are_legal_in_random_positions(seed, steps, multiverse):
    mv = random_position(seed, steps, multiverse)
    if mv.winner:
        return
    # the bots of one position share its listing of the legal orders, and their orders are adjudicated together
    listings = Listings(mv)
    given = {bot: bot_orders(bot, mv, f"test/{seed}", multiverse, listings=listings) for bot in BUILTIN.values()}
    refused = dict(zip(given, invalid_many([(mv, orders) for orders in given.values()])))
    for bot, orders in given.items():
        assert not refused[bot], (bot.__name__, next_phase(mv), refused[bot])
        # each power orders only its own units
        for power, lines in orders.items():
            for line in lines:
                unit = getattr(parse_order(line, MAP), "unit", None)
                if unit is None:
                    continue
                board = mv.boards[(unit.where.timeline, unit.where.turn)]
                owner = next((r.unit.power for r in board.retreats if r.unit.province == unit.where.province), None) \
                    if next_phase(mv) == "retreat" else None
                owner = owner or getattr(board.units.get(unit.where.province), "power", None) \
                    or board.centers.get(unit.where.province)
                assert owner == power, (bot.__name__, power, line)


PERMISSIVE = (Settings.of({"open_convoys": True}), Settings.of({"jump_assists": True}), Settings.of({"adjacency": "any"}))


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(6, 18))
def test_drawing_from_other_settings_gives_orders_legal_under_one_of_them(seed, steps):
    """A study's players draw from what any compared value allows: each of their orders is accepted
    under the game's own options or under one of the others."""
    mv = random_position(seed, steps, True)
    if mv.winner or next_phase(mv) != "movement":
        return
    # the bots share the position's listing; every bot's orders under every option set adjudicated together
    listings = Listings(mv)
    given = {bot: bot_orders(bot, mv, f"test/{seed}", True, PERMISSIVE, listings) for bot in BUILTIN.values()}
    under = [mv] + [dataclasses.replace(mv, options=s) for s in PERMISSIVE]
    judged = iter(invalid_many([(position, orders) for orders in given.values() for position in under]))
    for bot in given:
        refused = [set(next(judged)) for _ in under]
        everywhere = {(p, t) for p, t, _ in refused[0]}
        for r in refused[1:]:
            everywhere &= {(p, t) for p, t, _ in r}
        assert not everywhere, (bot.__name__, everywhere)


@pytest.mark.slow
def test_a_view_gives_the_same_orders_again_and_another_seed_others():
    mv = random_position(5, 8, True)
    game = new_game(mv)
    for bot in (random_bot, greedy_bot):
        a = [bot(View(game, p, f"s/{p}", travel=True)) for p in MAP.powers]
        b = [bot(View(game, p, f"s/{p}", travel=True)) for p in MAP.powers]
        c = [bot(View(game, p, f"t/{p}", travel=True)) for p in MAP.powers]
        assert a == b
        if bot is random_bot:
            assert a != c


@pytest.mark.slow
def test_the_sustain_phase_gets_a_vote_from_greedy_players_with_a_time_centre():
    mv = random_position(3, 30, True, {"sustain": True})
    while next_phase(mv) != SUSTAIN and not mv.winner:
        mv = step(mv, {}, reasons=False).after
    if mv.winner:
        pytest.skip("the game was won before a sustain phase")
    orders = bot_orders(greedy_bot, mv, "x", True)
    votes = [line for lines in orders.values() for line in lines]
    assert votes and all(line.startswith("Sustain ") for line in votes)
    assert not invalid(mv, orders)


def test_a_view_refuses_what_it_cannot_use():
    game = new_game(opening(MAP))
    with pytest.raises(UsageError):
        View(game, "Narnia", "s")
    with pytest.raises(UsageError):
        View(game, "England", 3)
    with pytest.raises(UsageError):
        View(game, "England", "s", budget=-1)
    with pytest.raises(UsageError):
        View(game, "England", "s", settings=[{}])
    view = View(game, "England", "s", budget=2)
    assert len(view.simulate([{}, {}, {}])) == 2 and view.remaining == 0 and view.simulate([{}]) == []


def test_bots_of_your_own_load_from_a_module_or_a_file(tmp_path, monkeypatch):
    (tmp_path / "holders.py").write_text(
        "def hold_all(view):\n"
        "    return [p.order for p in view.legal(kind='hold')]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    by_module = load_bot("holders:hold_all")
    by_file = load_bot(f"{tmp_path / 'holders.py'}:hold_all")
    view = View(new_game(opening(MAP)), "England", "s")
    assert by_module(view) == by_file(view) == ["A a-Lvp@0 H", "F a-Edi@0 H", "F a-Lon@0 H"]
    assert load_bot("random") is random_bot and load_bot("greedy") is greedy_bot


@pytest.mark.parametrize("name, message", [
    ("dumb", "not a bot (built in: random, greedy"),
    ("no_such_module_xyz:play", "cannot import 'no_such_module_xyz'"),
    ("os:no_such_function", "'os' has no 'no_such_function'"),
    ("os:sep", "'sep' is not callable"),
    ("missing.py:play", "'missing.py': no such file"),
    ("os:1x", "'1x' is not a Python name"),
])
def test_a_bad_bot_name_says_what_is_wrong(name, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_bot(name)


def test_seats_give_every_power_a_bot():
    seats = parse_seats(["England=greedy", "all=random"], MAP)
    assert seats.of("England") == "greedy" and seats.of("France") == "random"
    assert seats.text() == "England=greedy, others random"
    assert parse_seats(["all=greedy"], MAP).text() == "all greedy"
    for bad, message in (["Narnia=greedy"], "unknown power 'Narnia'"), (["England"], "write POWER=NAME"), \
            (["England=greedy", "England=random"], "England is given two bots"):
        with pytest.raises(InputError, match=message):
            parse_seats(bad, MAP)


def test_settings_that_cannot_list_other_orders_are_not_asked_again():
    game = new_game(opening(MAP))
    view = View(game, "England", "s", tuple(Settings.of(s) for s in (
        {"victory": "majority"}, {"victory": "unique"}, {"adjacency": "any"}, {"datc_4c5": "invalid"})))
    assert view.option_sets() == (game.mv.options, Settings.of({"adjacency": "any"}), Settings.of({"datc_4c5": "invalid"}))


@pytest.mark.slow
@pytest.mark.parametrize("seed, steps, multiverse", [(1, 0, False), (4, 7, False), (2, 8, True), (5, 12, True)])
def test_a_power_gets_from_the_shared_listing_what_it_lists_alone(seed, steps, multiverse):
    """The runner's one listing of a phase for every power (``view.Listings``) gives each view exactly
    what that view lists for its own power alone, under the game's options and permissive others."""
    mv = random_position(seed, steps, multiverse)
    game, shared = new_game(mv), Listings(mv)
    listed = 0
    for power in sorted({u.power for b in mv.heads for u in b.units.values()}):
        alone = View(game, power, "s", PERMISSIVE, multiverse)
        together = View(game, power, "s", PERMISSIVE, multiverse, listings=shared)
        assert together.legal() == alone.legal()
        listed += len(alone.legal())
        assert together.legal(kind="support", to=mv.heads[0].name) == alone.legal(kind="support", to=mv.heads[0].name)
        for head in mv.heads:
            assert together.legal_on(head) == alone.legal_on(head)
    assert listed
    with pytest.raises(UsageError):
        View(game, "England", "s", listings=Listings(random_position(seed, steps + 1, multiverse)))


@pytest.mark.slow
@pytest.mark.parametrize("seed, steps, multiverse", [(3, 0, False), (4, 7, False), (1, 7, False), (2, 7, True),
                                                     (6, 13, True), (4, 8, True)])
def test_the_orders_on_one_board_are_those_written_again_onto_it(seed, steps, multiverse):
    """``View.legal_on`` lists a head's orders on that board alone, as timeline a: on a head of timeline
    a the listing is taken as it is, elsewhere each order is written again onto the head's timeline.
    Both give what reading every listed order and writing it again onto the head gives; and the unit a
    listed order names (``unit``, what the random bot sorts orders by) stands in the province of the
    unit the order orders."""
    from fivedp_asp.engine.possible import PossibleOrder, legal_orders
    from fivedp_asp.lab.bots.view import _alone, _listed_on, _on_timeline
    from fivedp_asp.model.notation import format_order, parse_unit

    mv = random_position(seed, steps, multiverse)
    compared = 0
    for settings_ in (mv.options,) + PERMISSIVE:
        for head in mv.heads:
            slow = [PossibleOrder(p.power, head.name, p.unit, p.kind,
                                  format_order(_on_timeline(parse_order(p.order, MAP), head.timeline), MAP))
                    for p in legal_orders(_alone(mv, head, settings_))]
            assert _listed_on(mv, head, settings_, None) == slow
            compared += len(slow)
    assert compared
    for p in legal_orders(mv):
        if p.unit:
            assert parse_unit(p.unit, MAP).where.province == parse_order(p.order, MAP).unit.where.province


@pytest.mark.parametrize("seed, steps", [(31, 9), (3, 13)])
def test_the_jump_assists_greedy_asks_board_by_board_are_the_whole_listings_own(seed, steps):
    """The greedy bot lists jump assists only to the boards two turns behind its heads: the same
    orders, in the same order, as the whole listing of the power's jump assists keeps for them."""
    from fivedp_asp.lab.bots.greedy import _jump_assists, plan_heads
    from fivedp_asp.model.multiverse import board_name

    mv = random_position(seed, steps, True, {"jump_assists": True})
    assert next_phase(mv) == "movement" and len(mv.heads) > 1
    # the powers' views share one listing of the position, as a game's runner gives them
    game, listings = new_game(mv), Listings(mv)
    seen = 0
    for power in mv.players:
        view = View(game, power, f"t/{power}", travel=True, listings=listings)
        plans, _ = plan_heads(view, random.Random(0))
        behind = {board_name(p.head.timeline, p.head.turn - 2) for p in plans}
        whole = [p for p in view.legal(kind="jump_assist")
                 if (lambda o: board_name(o.dest.timeline, o.dest.turn))(parse_order(p.order, MAP)) in behind]
        asked = list(_jump_assists(view, plans))
        assert asked == whole
        seen += len(asked)
    assert seen > 0
