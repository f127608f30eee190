"""Random multiversal play: every step adjudicates and leaves a consistent multiverse, and the legality
rules alone ignore the orders each movement step ignored.

Random legal (and some illegal) orders on every head, designated to their own board, plus random
time-travel moves and supports into past and parallel boards. The expectations are invariants of
the rules, not results: no engine defect stops a step, every written order gets exactly one result,
no board holds two units in one province, every head advances, and timelines only ever appear.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from fivedp_asp.lab.compare.lockstep import opening
from fivedp_asp.game.random_orders import OrderGenerator, Travel, multiverse_orders, ordered_unit
from fivedp_asp.model.map import load_map
from fivedp_asp.model.notation import parse_order, timeline_name
from fivedp_asp.model.orders import Convoy, SupportHold, SupportMove
from fivedp_asp.engine.resolve import resolve
from fivedp_asp.engine.step import MOVEMENT, next_phase, refused_orders, step
from fivedp_asp.model.settings import Settings

MAP = load_map("standard")


TRAVEL = Travel(sorted_units=False)  # orders across boards: seven in ten moves, units in each board's own order


def _unit_of(line):
    """The (timeline, turn, province) of the unit a designated order line orders, or None."""
    return ordered_unit(line, MAP)


def _options_orders(mv, rng, orders):
    """With open_convoys and jump_assists on: some fleets at sea give open convoys instead, and a few units
    jump one to four turns back or to another timeline, with up to three assists from units next to
    them (of any power, sometimes from units that cannot assist). A unit given a new order loses its old one."""
    out = {p: list(v) for p, v in orders.items()}

    def designate(board, loc):
        return f"{timeline_name(board.timeline)}-{MAP.short_name(loc)}@{board.turn}"

    def give(power, board, unit, line):
        key = (board.timeline, board.turn, unit.province)
        for p in out:
            out[p] = [x for x in out[p] if _unit_of(x) != key]
        out.setdefault(power, []).append(line)

    for head in mv.heads:
        for unit in list(head.units.values()):
            if unit.kind == "fleet" and MAP.provinces[unit.province].is_sea and rng.random() < 0.4:
                give(unit.power, head, unit, f"F {designate(head, unit.location)} C")
    for _ in range(rng.randint(1, 3)):
        head = rng.choice(mv.heads)
        if not head.units:
            continue
        mover = rng.choice(list(head.units.values()))
        boards = [b for b in mv.boards.values() if b.turn <= head.turn - 2] + \
                 [h for h in mv.heads if h.key != head.key]
        if not boards:
            continue
        target = rng.choice(boards)
        dest = rng.choice(list(MAP.neighbours.get((mover.kind, mover.location), ())) + [mover.location])
        move = f"{mover.letter} {designate(head, mover.location)} - {designate(target, dest)}"
        give(mover.power, head, mover, move)
        near = [u for u in head.units.values() if u is not mover and rng.random() < 0.8
                and any(MAP.province_of(x) == mover.province for x in MAP.neighbours.get((u.kind, u.location), ()))]
        others = [u for u in head.units.values() if u is not mover]
        helpers = rng.sample(near, min(len(near), rng.randint(0, 3)))
        if others and rng.random() < 0.3:
            helpers.append(rng.choice(others))
        for u in helpers:
            give(u.power, head, u, f"{u.letter} {designate(head, u.location)} J {move}")
    return out


def random_orders(mv, gen, rng, travel=(2, 6), option_orders=False):
    """The orders of a random multiversal step: random votes in a sustain phase; otherwise every head's
    orders, and in a movement step ``travel`` (a range) orders across boards, then with
    ``option_orders`` the orders of open_convoys and jump_assists (``_options_orders``)."""
    phase = next_phase(mv)
    orders: dict[str, list[str]] = _sustain_orders(mv, rng) if phase == "sustain" else {}
    for power, lines in multiverse_orders(mv, gen, rng, phase, travel, TRAVEL).items():
        orders.setdefault(power, []).extend(lines)
    if phase == MOVEMENT and option_orders:
        orders = _options_orders(mv, rng, orders)
    return orders


def _play(name, options=None, option_orders=False, steps=24, record=None):
    """Random play from the opening; after every step, the invariants of the module docstring.
    ``record``, a list, receives every step played: (multiverse, orders, report)."""
    rng = random.Random(name)
    gen = OrderGenerator(MAP, rng)
    mv = dataclasses.replace(opening(MAP), players=tuple(MAP.powers), options=Settings.of(options))
    for _ in range(steps):
        phase = next_phase(mv)
        orders = random_orders(mv, gen, rng, option_orders=option_orders)
        report = step(mv, orders)
        if record is not None:
            record.append((mv, orders, report))
        written = sum(len(v) for v in orders.values())
        assert len(report.outcomes) == written
        assert all(x.result in ("succeeds", "fails", "invalid") for x in report.outcomes)
        # the legality rules alone (a submission's check) ignore the orders the step ignored, for its reasons
        refused = refused_orders(mv, orders)
        if phase == MOVEMENT:
            assert [(x.power, x.text, x.reason) for x in refused] == \
                [(x.power, x.text, x.reason) for x in report.outcomes if x.result == "invalid"]
        after = report.after
        assert set(mv.timelines) <= set(after.timelines)
        for board in after.boards.values():
            assert len({u.province for u in board.units.values()}) == len(board.units)
        if phase == MOVEMENT:
            assert all(after.latest_turn(h.timeline) == h.turn + 1 for h in mv.heads)
        mv = after
        if mv.winner:
            break
    return mv


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_multiversal_play_stays_consistent(seed):
    _play(f"fivedp-random-multiverse/{seed}")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_play_with_open_convoys_and_jump_assists(seed):
    """The same play with the options open_convoys and jump_assists on, writing their orders too."""
    _play(f"fivedp-random-multiverse-options/{seed}", {"open_convoys": True, "jump_assists": True}, option_orders=True)


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


@pytest.mark.slow
@pytest.mark.parametrize("seed, all_options", [(1, False), (2, False), (1, True), (2, True)])
def test_random_play_with_sustain_phases(seed, all_options):
    """Option sustain on (alone, and with open_convoys and jump_assists, writing their orders too):
    sustain phases come and go, every order gets one result, dissolved timelines stay dissolved and
    untouched, and at least one timeline stays in play."""
    rng = random.Random(f"fivedp-random-sustain/{seed}" + ("/all-options" if all_options else ""))
    gen = OrderGenerator(MAP, rng)
    options = {"sustain": True} | ({"open_convoys": True, "jump_assists": True} if all_options else {})
    mv = dataclasses.replace(opening(MAP), players=tuple(MAP.powers), options=Settings.of(options))
    held = 0
    for _ in range(30):
        phase = next_phase(mv)
        orders = random_orders(mv, gen, rng, (3, 7), option_orders=all_options)
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


def _order_of(mv, report, place):
    """The order the unit at ``place`` (timeline, turn, province) acted on in a movement step: its new
    legal order when it stands on a head (None: it had none, or only illegal ones, and held), else the
    order its board's record holds (a unit on a past board gets no new order: docs/rules.md §6.4)."""
    board = mv.boards[place[:2]]
    if board.key not in {h.key for h in mv.heads}:
        return board.record.order_of(place[2]) if board.record else None
    found = {r.signature: r for x in report.outcomes if x.result != "invalid"
             for r in [resolve(parse_order(x.text, MAP), x.power, x.text, mv)]
             if r.unit is not None and (r.unit.timeline, r.unit.turn, r.unit.province) == place}
    # (a line written twice is one order; two different legal orders for one unit are both invalid)
    assert len(found) <= 1, found
    return next(iter(found.values()), None)


def _matches(r, subject) -> bool:
    """docs/rules.md §3.3: a support to hold matches a unit that does not move; a support of a move or a
    convoy, the very move the unit makes (for a convoy: by convoy)."""
    if r.kind == "support_hold":
        return subject is None or subject.kind != "move"
    if subject is None or subject.kind != "move":
        return False
    same = (subject.dest.timeline, subject.dest.turn, subject.dest.province) == \
        (r.dest.timeline, r.dest.turn, r.dest.province)
    return same and (r.kind != "support_move" or r.dest.coast is None or subject.dest.coast in (None, r.dest.coast))


def _past_supports(mv, rng, count):
    """Up to ``count`` supports (and, from fleets at sea, convoys) by units on heads of units on the
    boards next to them in time (the head's previous board, its parent timeline's boards, other heads),
    into provinces the supporter could reach: to hold, or of the move the unit's board recorded, or of a
    random move; whether they match is left to chance, and to the rules."""
    def at(board, loc):
        return f"{timeline_name(board.timeline)}-{MAP.short_name(loc)}@{board.turn}"

    out = []
    for _ in range(count):
        head = rng.choice(mv.heads)
        if not head.units:
            continue
        unit = rng.choice(sorted(head.units.values(), key=lambda u: u.location))
        keys = [(head.timeline, head.turn - 1)] + [h.key for h in mv.heads if h.key != head.key]
        if head.timeline in mv.forks:
            parent = mv.forks[head.timeline][0]
            keys += [(parent, head.turn - 1), (parent, head.turn)]
        board = mv.board(*rng.choice(keys))
        if board is None:
            continue
        reach = {MAP.province_of(x) for x in MAP.neighbours.get((unit.kind, unit.location), ())} | {unit.province}
        near = sorted((u for p, u in board.units.items() if p in reach), key=lambda u: u.location)
        if not near:
            continue
        # half the time a unit whose recorded move went to another board, when there is one
        travellers = [u for u in near if board.record and (r := board.record.order_of(u.province)) is not None
                      and r.kind == "move" and r.dest.board != board.key]
        other = rng.choice(travellers if travellers and rng.random() < 0.5 else near)
        me = f"{unit.letter} {at(head, unit.location)}"
        them = f"{other.letter} {at(board, other.location)}"
        rec = board.record.order_of(other.province) if board.record else None
        draw = rng.random()
        if unit.kind == "fleet" and MAP.provinces[unit.province].is_sea and other.kind == "army" and draw < 0.2:
            shore = sorted(MAP.shore({unit.province}) - {other.province})
            if shore:
                out.append((unit.power, f"{me} C {them} - {at(head, rng.choice(shore))}"))
        elif draw < 0.6:
            out.append((unit.power, f"{me} S {them}"))
        elif rec is not None and rec.kind == "move" and rng.random() < 0.7:
            dest = mv.boards.get(rec.dest.board)
            if dest is not None:
                out.append((unit.power, f"{me} S {them} - {at(dest, rec.dest.province)}"))
        else:
            steps = list(MAP.neighbours.get((other.kind, other.location), ()))
            if steps:
                out.append((unit.power, f"{me} S {them} - {at(board, MAP.province_of(rng.choice(steps)))}"))
    return out


def _order_of(mv, report, place):
    """The order the unit at ``place`` (timeline, turn, province) acted on in a movement step: its new
    legal order when it stands on a head (None: it had none, or only illegal ones, and held), else the
    order its board's record holds (a unit on a past board gets no new order: docs/rules.md §6.4)."""
    board = mv.boards[place[:2]]
    if board.key not in {h.key for h in mv.heads}:
        return board.record.order_of(place[2]) if board.record else None
    found = {r.signature: r for x in report.outcomes if x.result != "invalid"
             for r in [resolve(parse_order(x.text, MAP), x.power, x.text, mv)]
             if r.unit is not None and (r.unit.timeline, r.unit.turn, r.unit.province) == place}
    # (a line written twice is one order; two different legal orders for one unit are both invalid)
    assert len(found) <= 1, found
    return next(iter(found.values()), None)


def _matches(r, subject) -> bool:
    """docs/rules.md §3.3: a support to hold matches a unit that does not move; a support of a move or a
    convoy, the very move the unit makes (for a convoy: by convoy)."""
    if r.kind == "support_hold":
        return subject is None or subject.kind != "move"
    if subject is None or subject.kind != "move":
        return False
    same = (subject.dest.timeline, subject.dest.turn, subject.dest.province) == \
        (r.dest.timeline, r.dest.turn, r.dest.province)
    return same and (r.kind != "support_move" or r.dest.coast is None or subject.dest.coast in (None, r.dest.coast))


@pytest.mark.slow
@pytest.mark.parametrize("name, options", [(f"fivedp-random-multiverse/{seed}", None) for seed in (1, 2, 3)]
                         + [(f"fivedp-random-multiverse-options/{seed}", {"open_convoys": True, "jump_assists": True})
                            for seed in (1, 2)])
def test_a_support_or_convoy_succeeds_only_when_it_matches(name, options):
    """docs/rules.md §3.3–3.4: a support or convoy that does not match what the supported or convoyed
    unit does is void and fails, whether that unit's order is new or recorded on a past board (a move
    into a board already past included). Random multiversal play, as above; every support or convoy
    reported ``succeeds`` is checked against the order its unit acted on."""
    rng = random.Random(name + "/past-supports")
    gen = OrderGenerator(MAP, rng)
    mv = dataclasses.replace(opening(MAP), players=tuple(MAP.powers), options=Settings.of(options))
    checked = past = journeys = 0
    for _ in range(24):
        phase = next_phase(mv)
        # the orders of random_orders, but a unit ordered across boards loses its head order (two legal
        # orders would conflict, and time travel, the journeys among it, would rarely happen)
        orders = multiverse_orders(mv, gen, rng, phase, (2, 6), TRAVEL, travel_replaces=True)
        if phase == MOVEMENT and options is not None:
            orders = _options_orders(mv, rng, orders)
        if phase == MOVEMENT:
            # the supporters' own orders give way (one order per unit, so that none of them conflicts)
            extra = _past_supports(mv, rng, 20)
            given = {_unit_of(line) for _, line in extra}
            orders = {p: [x for x in v if _unit_of(x) not in given] for p, v in orders.items()}
            for power, line in extra:
                orders.setdefault(power, []).append(line)
        report = step(mv, orders)
        before, mv = mv, report.after
        if report.phase != MOVEMENT:
            continue
        heads = {h.key for h in before.heads}
        for x in report.outcomes:
            if x.result == "invalid" or not isinstance(x.order, (SupportHold, SupportMove, Convoy)):
                continue
            r = resolve(parse_order(x.text, MAP), x.power, x.text, before)
            place = (r.target.timeline, r.target.turn, r.target.province)
            subject = _order_of(before, report, place)
            if place[:2] not in heads and subject is not None and subject.kind == "move" and \
                    subject.dest.board != subject.unit.board and subject.dest.board not in heads:
                journeys += 1  # the supported unit travelled into a board that was past already
            if x.result == "succeeds":
                assert _matches(r, subject), (x.text, subject and subject.text)
                checked += 1
                past += place[:2] not in heads
    assert checked > 100 and past > 30 and journeys >= 1, (checked, past, journeys)
