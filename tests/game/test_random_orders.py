"""The generator of multiversal orders (game/random_orders.py, played by game/random_play.py) that the benchmarks, the studies and
the random-play tests share: orders designated to their boards, orders across boards that reach
boards of the multiverse, and a seed that gives the same orders again."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from fivedp_asp.game.random_play import random_game
from fivedp_asp.game.random_orders import (
    OrderGenerator, Travel, designated, head_orders, multiverse_orders, ordered_unit, travel_orders,
)
from fivedp_asp.model.map import load_map
from fivedp_asp.model.notation import parse_order
from fivedp_asp.model.orders import Move, SupportHold, SupportMove, Where
from fivedp_asp.engine.step import MOVEMENT, next_phase

MAP = load_map("standard")


@pytest.fixture(scope="module")
def forked():
    """A multiverse of several timelines waiting for a movement phase."""
    _, mv = random_game(3, 9, (4, 8), empty_share=0.9)
    assert len(mv.timelines) > 1 and next_phase(mv) == MOVEMENT
    return mv


def _places(x) -> list[Where]:
    """Every place an order names, however deep (a support names its target's places)."""
    if isinstance(x, Where):
        return [x]
    if dataclasses.is_dataclass(x):
        return [w for f in dataclasses.fields(x) for w in _places(getattr(x, f.name))]
    return []


def test_designated_puts_every_place_without_a_board_on_the_board(forked):
    head = forked.heads[-1]
    order = designated(parse_order("F Nth S A Yor - Lon", MAP), head)
    assert isinstance(order, SupportMove)
    assert len(_places(order)) == 3 and {(w.timeline, w.turn) for w in _places(order)} == {head.key}
    kept = designated(parse_order("A a-Par@0 - Bur", MAP), head)
    assert (kept.unit.where.timeline, kept.unit.where.turn) == (0, 0) and kept.dest.timeline == head.timeline


@pytest.mark.parametrize("style", [Travel(), Travel(move_share=0.6, sorted_units=False), Travel(empty_share=0.5),
                                   Travel(parent_same_turn=False, supported_moves=True)])
def test_orders_across_boards_start_on_a_head_and_reach_a_board_of_the_multiverse(forked, style):
    drawn = travel_orders(forked, random.Random(7), 40, style)
    assert drawn and drawn == travel_orders(forked, random.Random(7), 40, style)
    heads = {h.key for h in forked.heads}
    moves = set()
    for power, line in drawn:
        order = parse_order(line, MAP)
        unit = forked.board(order.unit.where.timeline, order.unit.where.turn).units[order.unit.where.province]
        assert unit.power == power and (order.unit.where.timeline, order.unit.where.turn) in heads
        assert all(forked.board(w.timeline, w.turn) is not None for w in _places(order))
        if isinstance(order, Move):
            moves.add(line)
        elif style.supported_moves:
            # a support of a move drawn just before, by a unit of the mover's head
            assert isinstance(order, SupportMove) and line.split(" S ", 1)[1] in moves
        else:
            assert isinstance(order, SupportHold)
    assert moves


def test_an_order_across_boards_replaces_the_head_order_of_its_unit_when_asked(forked):
    style = Travel(supported_moves=True)

    def drawn(**kw):
        orders = multiverse_orders(forked, OrderGenerator(MAP, random.Random(5)), random.Random(5), MOVEMENT, 12,
                                   style, **kw)
        return Counter(x for lines in orders.values() for x in lines)

    heads = head_orders(forked, OrderGenerator(MAP, random.Random(5)), MOVEMENT)
    across = travel_orders(forked, random.Random(5), 12, style)
    assert {ordered_unit(x, MAP) for _, x in heads} == {(h.timeline, h.turn, p) for h in forked.heads for p in h.units}
    moved = {ordered_unit(x, MAP) for _, x in across}
    assert moved & {ordered_unit(x, MAP) for _, x in heads}
    assert drawn() == Counter(x for _, x in heads + across)
    assert drawn(travel_replaces=True) == Counter([x for _, x in heads if ordered_unit(x, MAP) not in moved]
                                                  + [x for _, x in across])


def test_a_random_game_played_with_its_history_reaches_the_same_multiverse():
    from fivedp_asp.engine.step import step
    from fivedp_asp.game.random_play import random_game_until

    bare = random_game_until(3, seed=2)
    played = random_game_until(3, seed=2, history=True)
    assert bare.history == () and played.history
    assert played.mv == bare.mv
    # the history is the game's own record: its orders, stepped again from the start, end where it is
    from fivedp_asp.model.multiverse import opening

    mv = opening(load_map("standard"))
    for entry in played.history:
        mv = step(mv, entry["orders"], reasons=False).after
    assert mv == played.mv
