"""Random multiversal play: every step adjudicates and leaves a consistent multiverse.

Random legal (and some illegal) orders on every head, designated to their own board, plus random
time-travel moves and supports into past and parallel boards. The expectations are invariants of
the rules, not results: no engine defect stops a step, every written order gets exactly one result,
no board holds two units in one province, every head advances, and timelines only ever appear.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from fivedp_asp import orders as o
from fivedp_asp.compare.lockstep import opening
from fivedp_asp.compare.random_games import OrderGenerator
from fivedp_asp.map import load_map
from fivedp_asp.notation import format_order, parse_order, timeline_name
from fivedp_asp.step import MOVEMENT, next_phase, step

MAP = load_map("standard")


def _designate(x, board):
    """Fills every place of an order with the board it is given on (the generator writes classic orders)."""
    if isinstance(x, o.Where):
        return o.Where(x.province, x.coast, board.timeline if x.timeline is None else x.timeline,
                       board.turn if x.turn is None else x.turn)
    if dataclasses.is_dataclass(x):
        return dataclasses.replace(x, **{f.name: _designate(getattr(x, f.name), board) for f in dataclasses.fields(x)})
    return x


def _travel(mv, rng, count):
    """Moves and supports from heads into the previous turn, the parent timeline or another head."""
    out = []
    for _ in range(count):
        head = rng.choice(mv.heads)
        if not head.units:
            continue
        unit = rng.choice(list(head.units.values()))
        here = f"{unit.letter} {timeline_name(head.timeline)}-{MAP.short_name(unit.location)}@{head.turn}"
        targets = [(head.timeline, head.turn - 1)] + [h.key for h in mv.heads if h.key != head.key]
        if head.timeline in mv.forks:
            parent = mv.forks[head.timeline][0]
            targets += [(parent, head.turn - 1), (parent, head.turn)]
        board = mv.board(*rng.choice(targets))
        if board is None:
            continue
        there = lambda loc: f"{timeline_name(board.timeline)}-{MAP.short_name(loc)}@{board.turn}"  # noqa: E731
        if rng.random() < 0.7 or not board.units:
            dest = rng.choice(list(MAP.neighbours.get((unit.kind, unit.location), ())) + [unit.location])
            out.append((unit.power, f"{here} - {there(dest)}"))
        else:
            other = rng.choice(list(board.units.values()))
            out.append((unit.power, f"{here} S {other.letter} {there(other.location)}"))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_multiversal_play_stays_consistent(seed):
    rng = random.Random(f"fivedp-random-multiverse/{seed}")
    gen = OrderGenerator(MAP, rng)
    mv = dataclasses.replace(opening(MAP), players=tuple(MAP.powers))
    for _ in range(24):
        phase = next_phase(mv)
        orders: dict[str, list[str]] = {}
        for head in mv.heads:
            if head.phase != phase:
                continue
            for power, lines in gen.orders(head, phase).items():
                orders.setdefault(power, []).extend(
                    format_order(_designate(parse_order(line, MAP), head), MAP) for line in lines)
        if phase == MOVEMENT:
            for power, line in _travel(mv, rng, rng.randint(2, 6)):
                orders.setdefault(power, []).append(line)
        report = step(mv, orders)
        written = sum(len(v) for v in orders.values())
        assert len(report.outcomes) == written
        assert all(x.result in ("succeeds", "fails", "invalid") for x in report.outcomes)
        after = report.after
        assert set(mv.timelines) <= set(after.timelines)
        for board in after.boards.values():
            assert len({u.province for u in board.units.values()}) == len(board.units)
        if phase == MOVEMENT:
            assert all(after.latest_turn(h.timeline) == h.turn + 1 for h in mv.heads)
        mv = after
        if mv.winner:
            break


def _sustain_orders(mv, rng):
    """Random sustain orders: power-wide and per centre, for timelines in play, dissolved or unknown."""
    choices = list(mv.timelines) + [max(mv.timelines) + 1]
    orders: dict[str, list[str]] = {}
    for power in mv.players:
        for _ in range(rng.randint(0, 3)):
            target = timeline_name(rng.choice(choices))
            if rng.random() < 0.5:
                line = f"Sustain {target}"
            else:
                line = f"{MAP.short_name(rng.choice(MAP.capitals))} sustains {target}"
            orders.setdefault(power, []).append(line)
    return orders


@pytest.mark.parametrize("seed", [1, 2])
def test_random_play_with_sustain_phases(seed):
    """Option sustain on: sustain phases come and go, every order gets one result, dissolved
    timelines stay dissolved and untouched, and at least one timeline stays in play."""
    rng = random.Random(f"fivedp-random-sustain/{seed}")
    gen = OrderGenerator(MAP, rng)
    mv = dataclasses.replace(opening(MAP), players=tuple(MAP.powers), options={"sustain": True})
    held = 0
    for _ in range(30):
        phase = next_phase(mv)
        orders: dict[str, list[str]] = {}
        if phase == "sustain":
            orders = _sustain_orders(mv, rng)
        for head in mv.heads:
            if head.phase != phase:
                continue
            for power, lines in gen.orders(head, phase).items():
                orders.setdefault(power, []).extend(
                    format_order(_designate(parse_order(line, MAP), head), MAP) for line in lines)
        if phase == MOVEMENT:
            for power, line in _travel(mv, rng, rng.randint(3, 7)):
                orders.setdefault(power, []).append(line)
        report = step(mv, orders)
        assert len(report.outcomes) == sum(len(v) for v in orders.values())
        assert all(x.result in ("succeeds", "fails", "invalid") for x in report.outcomes)
        after = report.after
        assert mv.dissolved <= after.dissolved and after.in_play
        for tl in mv.dissolved:
            assert {k: b for k, b in after.boards.items() if k[0] == tl} == {k: b for k, b in mv.boards.items() if k[0] == tl}
        for x in report.outcomes:
            if x.result != "invalid" and hasattr(x.order, "unit"):
                assert x.order.unit.where.timeline not in mv.dissolved
        if phase == "sustain":
            held += 1
            assert report.sustain is not None and len(mv.in_play) >= 2
        mv = after
        if mv.winner:
            break
    assert held > 0
