"""The ``greedy`` bot: a heuristic player in the manner of the DAIDE DumbBot, for every head it has
units on, and across boards in a multiverse.

Movement, on each head (``values.board_values`` says what each province is worth to the power there):

1. Every unit's options are its legal orders on that board (``View.legal_on``): holding (worth its own
   province), each move (worth the destination), and an army's convoyed move where one of the
   power's fleets in a sea next to both ends can carry it alone.
2. The units choose in a random order. Each takes its best option, or with a chance that grows as
   they come closer in worth a second or third best; a province another of the power's units has
   already chosen is passed over, unless the power competes for it there, and then the unit supports
   that move instead.
3. A unit left holding supports the power's most valuable contested move it can reach, or a
   threatened unit of the power holding a centre next to it, unless it stands on a threatened centre
   of the power's itself.

Where the heuristic cannot tell, the engine is asked on a copy (``View.simulate``, within the view's
budget): a unit whose two best options are nearly worth the same is tried both ways. Playing across
boards (``View.travel``), the bot also weighs its moves into the past and onto other timelines (from
``View.legal``): a move that can take a centre of another power, or a neutral one, standing empty on
the board it reaches, and a support to hold of one of its units that was dislodged on a past board,
each tried on a copy; and its units with nothing better to do support, across timelines, its moves
into contested provinces on other heads. Where the options allow them, it also tries open convoys (a
fleet at sea left holding carries one of its armies left holding) and, across boards, jumps two turns
back onto an empty centre with the assist of another of its units. Every try is adjudicated with the other powers' units
holding, and scored by the power's centres and units over the heads in play (their mean, so that a
timeline it forks where it is weak lowers its score) and the worth of where its units stand.

Retreats go to the retreat option worth most; builds to the free home centres worth most to an army
or a fleet; removals take the units worth least where they stand. In a sustain phase the power gives
all its fractions to the timeline where it owns the most centres.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Mapping, Sequence

from ...model.kinds import OrderKind, UnitKind
from ...engine.phase import StepReport
from ...game.play import unit_designation
from ...engine.possible import PossibleOrder
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, SUSTAIN, Board, Multiverse, board_name
from ...model.notation import format_order, parse_order, timeline_name
from ...model.orders import (Build, Convoy, Disband, Hold, Move, OpenConvoy, SupportHold, SupportMove,
                             UnitSpec)
from .values import Values, board_values
from ...errors import UsageError
from .view import View

P_NEXT = 0.3
"""Scales the chance of taking the next best option instead: that chance is P_NEXT times the ratio of
the next option's worth to this one's."""

CLOSE = 0.92
"""Two options whose worths are at least this close (as a ratio) are tried both ways on a copy."""

MAX_TRAVEL = 6
"""Moves and supports across boards weighed per phase (the best of them by the heuristic are tried)."""

MAX_HELPERS = 3
"""Units on other heads asked (one question each) whether they can support a contested move."""


class Choice(StrEnum):
    """What an option of the bot does: the bot's own coarser reading of an order's kind (a move carried
    by one of the power's fleets is ``convoyed``, both supports are ``support``). A ``StrEnum`` as the
    package's other closed sets are, so that a bot's traces print it as its name."""

    HOLD = "hold"
    MOVE = "move"
    CONVOYED = "convoyed"
    SUPPORT = "support"
    CONVOY = "convoy"
    OPEN_CONVOY = "open_convoy"


@dataclass(frozen=True)
class _Option:
    """One order a unit could give on its board, with what it is worth."""

    text: str
    kind: Choice
    unit: str  # the ordered unit's province
    dest: str | None = None  # where a move goes, or the province a support helps into
    target: str | None = None  # the supported or convoyed unit's province
    worth: float = 0.0
    fleet: str | None = None  # a convoyed move: the fleet that carries it


def greedy_bot(view: View) -> list[str]:
    """The power's orders for the next phase (see the module)."""
    if not isinstance(view, View):
        raise UsageError(f"greedy_bot: view must be a View, not {type(view).__name__}")
    phase = view.phase
    if phase == MOVEMENT:
        return _movement(view, view.rng())
    if phase == RETREAT:
        return _retreats(view)
    if phase == ADJUSTMENT:
        return _adjustments(view)
    if phase == SUSTAIN:
        return _sustain(view)
    return []


# -- movement ------------------------------------------------------------------------------------


def options_of(view: View, head: Board) -> Mapping[str, Sequence[_Option]]:
    """The orders of the power's units on ``head`` that stay on it, read, by the unit's province: read
    once per view and head (``View.memo``), since every plan the view makes of that head (the search
    bot's draws and samples among them) starts from them."""
    key = ("options", head.key)
    if key not in view.memo:
        view.memo[key] = MappingProxyType({u: tuple(o) for u, o in _read_options(view, head).items()})
    return view.memo[key]


def values_of(view: View, board: Board) -> Values:
    """``values.board_values`` of ``board`` for the view's power, worked out once per view and board
    (``View.memo``)."""
    key = ("values", board.key)
    if key not in view.memo:
        view.memo[key] = board_values(board, view.power, view.game_map)
    return view.memo[key]


def _read_options(view: View, head: Board) -> dict[str, list[_Option]]:
    m = view.game_map
    out: dict[str, list[_Option]] = {}
    for p in view.legal_on(head):
        order = parse_order(p.order, m)
        unit = order.unit.where.province
        if isinstance(order, Hold):
            option = _Option(p.order, Choice.HOLD, unit, unit)
        elif isinstance(order, Move):
            option = _Option(p.order, Choice.CONVOYED if order.via_convoy else Choice.MOVE, unit, order.dest.province)
        elif isinstance(order, SupportMove):
            option = _Option(p.order, Choice.SUPPORT, unit, order.dest.province, order.target.where.province)
        elif isinstance(order, SupportHold):
            option = _Option(p.order, Choice.SUPPORT, unit, None, order.target.where.province)
        elif isinstance(order, Convoy):
            option = _Option(p.order, Choice.CONVOY, unit, order.dest.province, order.target.where.province)
        elif isinstance(order, OpenConvoy):
            option = _Option(p.order, Choice.OPEN_CONVOY, unit, None)
        else:
            continue
        out.setdefault(unit, []).append(option)
    return out


@dataclass
class _Plan:
    """One head's orders as they are chosen: the order of each unit, where each unit goes (or
    stays), and the units that nearly chose something else (their other choice)."""

    head: Board
    values: Values
    orders: dict[str, _Option]
    going: dict[str, str]  # province -> the unit (its province) that moves into it or stays in it
    doubts: list[tuple[float, str, _Option]]  # (closeness, unit, the other option)


def _pick(ranked: Sequence[_Option], rng: random.Random) -> int:
    """The index of the option taken: the best, or with a chance the next ones (DumbBot's way)."""
    i = 0
    while i + 1 < len(ranked) and ranked[i].worth > 0:
        ratio = max(ranked[i + 1].worth, 0.0) / ranked[i].worth
        if rng.random() >= P_NEXT * ratio:
            break
        i += 1
    return i


def _carrier(view: View, head: Board, option: _Option, options: Mapping[str, Sequence[_Option]],
             taken: Mapping[str, _Option]) -> _Option | None:
    """The convoy order of one of the power's free fleets that carries this convoyed move alone."""
    m = view.game_map
    for sea, fleet_options in sorted(options.items()):
        unit = head.units.get(sea)
        if sea in taken or unit is None or unit.kind != UnitKind.FLEET or not m.provinces[sea].is_sea:
            continue
        for c in fleet_options:
            if c.kind == Choice.CONVOY and c.target == option.unit and c.dest == option.dest:
                near = m.seas_next_to(option.unit) & m.seas_next_to(option.dest)
                if sea in near:
                    return c
    return None


def _plan_head(view: View, head: Board, rng: random.Random) -> _Plan:
    m = view.game_map
    values = values_of(view, head)
    options = options_of(view, head)
    mine = sorted((u for u in head.units.values() if u.power == view.power), key=lambda u: u.location)
    rng.shuffle(mine)
    orders: dict[str, _Option] = {}
    going: dict[str, str] = {}
    doubts: list[tuple[float, str, _Option]] = []
    for unit in mine:
        if unit.province in orders:
            continue  # a fleet already given a convoy
        choices = []
        for o in options.get(unit.province, []):
            if o.kind in (Choice.HOLD, Choice.MOVE):
                choices.append(replace(o, worth=values.value(unit.kind, o.dest)))
            elif o.kind == Choice.CONVOYED and _carrier(view, head, o, options, orders) is not None:
                choices.append(replace(o, worth=values.value(UnitKind.ARMY, o.dest)))
        ranked = sorted(choices, key=lambda o: (-o.worth, o.text))
        if not ranked:
            continue
        first = _pick(ranked, rng)
        chosen_option: _Option | None = None
        for o in ranked[first:] + ranked[:first]:
            if o.dest in going:
                other = going[o.dest]
                helping = next((s for s in options.get(unit.province, []) if s.kind == Choice.SUPPORT
                                and s.target == other and s.dest == (o.dest if other != o.dest else None)), None)
                if helping is not None and values.competition.get(o.dest, 0) > 0:
                    chosen_option = replace(helping, worth=o.worth)
                    break
                continue
            if o.kind == Choice.CONVOYED:
                carrier = _carrier(view, head, o, options, orders)
                if carrier is None:
                    continue
                orders[carrier.unit] = carrier
                going.setdefault(carrier.unit, carrier.unit)
            chosen_option = o
            going[o.dest] = unit.province
            break
        if chosen_option is None:
            chosen_option = next(o for o in ranked if o.kind == Choice.HOLD) if any(o.kind == Choice.HOLD for o in ranked) \
                else ranked[0]
        orders[unit.province] = chosen_option
        rest = [o for o in ranked if o is not chosen_option and o.kind in (Choice.HOLD, Choice.MOVE) and o.dest not in going]
        if rest and chosen_option.kind in (Choice.HOLD, Choice.MOVE) and chosen_option.worth > 0:
            closeness = rest[0].worth / chosen_option.worth
            if closeness >= CLOSE:
                doubts.append((closeness, unit.province, rest[0]))
    _supports(head, values, options, orders, view.power)
    return _Plan(head, values, orders, going, sorted(doubts, key=lambda d: (-d[0], d[1])))


def _supports(head: Board, values: Values, options: Mapping[str, Sequence[_Option]], orders: dict[str, _Option],
              power: str) -> None:
    """Units left holding support the power's most valuable contested move or threatened hold that
    they can, unless they hold a threatened centre of the power's themselves."""
    for province, order in sorted(orders.items()):
        if order.kind != Choice.HOLD:
            continue
        if head.centers.get(province) == power and values.competition.get(province, 0) > 0:
            continue  # defending a centre of its own
        best: _Option | None = None
        for s in options.get(province, []):
            if s.kind != Choice.SUPPORT or s.target not in orders:
                continue
            helped = orders[s.target]
            if s.dest is None:
                wanted = helped.kind == Choice.HOLD and head.centers.get(s.target) == power \
                    and values.competition.get(s.target, 0) > 0
                worth = values.worth.get(s.target, 0.0)
            else:
                wanted = helped.kind in (Choice.MOVE, Choice.CONVOYED) and helped.dest == s.dest \
                    and values.competition.get(s.dest, 0) > 0
                worth = helped.worth
            if wanted and (best is None or worth > best.worth):
                best = replace(s, worth=worth)
        if best is not None:
            orders[province] = best


def _lines(plans: Sequence[_Plan]) -> list[str]:
    return [o.text for p in plans for _, o in sorted(p.orders.items())]


def plan_heads(view: View, rng: random.Random) -> tuple[list[_Plan], list[str]]:
    """The power's plan on each head it has units on, and the orders they give (nothing across boards,
    nothing tried): the greedy bot's policy as the search bot samples it."""
    plans = [_plan_head(view, head, rng) for head in view.heads()
             if any(u.power == view.power for u in head.units.values())]
    return plans, _lines(plans)


def plan_movement(view: View, rng: random.Random) -> tuple[list[_Plan], list[str], list[list[str]]]:
    """The power's plans per head, the orders they give, and the variants worth trying on a copy, the
    most promising first: orders across boards and jumps (``travel``), open convoys, then the units
    that nearly chose otherwise."""
    plans, base = plan_heads(view, rng)
    if view.travel:
        base = _helpers(view, plans, base)
    variants: list[list[str]] = []
    if view.travel:
        variants += _travel(view, plans, base) + _jumps(view, plans, base)
    variants += _open_convoys(view, plans, base)
    for plan in plans:
        for _, province, other in plan.doubts:
            variants.append([other.text if line == plan.orders[province].text else line for line in base])
    return plans, base, variants


def _movement(view: View, rng: random.Random) -> list[str]:
    plans, base, variants = plan_movement(view, rng)
    variants = variants[:max(view.remaining - 1, 0)]
    if not variants:
        return base
    tried = [base] + variants
    reports = view.simulate([{view.power: lines} for lines in tried])
    scores = [score(view, plans, r) if isinstance(r, StepReport) else float("-inf") for r in reports]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    return tried[best]


def score(view: View, plans: Sequence[_Plan], report: StepReport) -> float:
    """What a tried step leaves the power: over the heads in play, the mean of its centres, half its
    units and a quarter of its units waiting to retreat (so that a timeline it forks where it is weak
    lowers the score, and one where it is strong raises it); plus a tenth of the worth of where its
    units stand on the heads that follow the boards it played, by the values it played them by, over
    the number of those boards (a unit that leaves them for another board gives up its worth there)."""
    after, power = report.after, view.power
    worth = {(p.head.timeline, p.head.turn + 1): p.values for p in plans}
    heads = after.heads
    standing = 0.0
    placed = 0.0
    for h in heads:
        units = [u for u in h.units.values() if u.power == power]
        standing += sum(1 for o in h.centers.values() if o == power) + 0.5 * len(units)
        standing += 0.25 * sum(1 for r in h.retreats if r.unit.power == power)
        values = worth.get(h.key)
        if values is not None:
            placed += 0.1 * sum(values.value(u.kind, u.province) for u in units)
    return standing / max(len(heads), 1) + placed / max(len(worth), 1)


def _helpers(view: View, plans: Sequence[_Plan], base: list[str]) -> list[str]:
    """Units holding on one head support, across timelines, the power's contested moves on another."""
    wanted = [(plan, o) for plan in plans for o in plan.orders.values()
              if o.kind in (Choice.MOVE, Choice.CONVOYED) and plan.values.competition.get(o.dest, 0) > 0]
    if not wanted:
        return base
    lines = list(base)
    asked = 0
    for plan in plans:
        for province, order in sorted(plan.orders.items()):
            if order.kind != Choice.HOLD or asked >= MAX_HELPERS:
                continue
            if plan.head.centers.get(province) == view.power and plan.values.competition.get(province, 0) > 0:
                continue
            unit = plan.head.units[province]
            for target_plan, move in wanted:
                if target_plan.head.key == plan.head.key:
                    continue
                asked += 1
                listed = view.legal(unit=unit_designation(view.mv, plan.head.key, unit), kind=OrderKind.SUPPORT_MOVE,
                                    to=target_plan.head.name)
                m = view.game_map
                match = next((p.order for p in listed
                              if _supports_move(parse_order(p.order, m), target_plan.head, move)), None)
                if match is not None:
                    lines[lines.index(order.text)] = match
                    break
                if asked >= MAX_HELPERS:
                    break
    return lines


def _supports_move(order, head: Board, move: _Option) -> bool:
    return (isinstance(order, SupportMove) and order.target.where.province == move.unit
            and (order.target.where.timeline, order.target.where.turn) == head.key
            and order.dest.province == move.dest and (order.dest.timeline, order.dest.turn) == head.key)


def _travel(view: View, plans: Sequence[_Plan], base: list[str]) -> list[list[str]]:
    """Variants of ``base`` with one unit's order across boards: moves onto a centre worth taking
    that stands empty on the board reached, and supports to hold of the power's units dislodged on a
    past board; the most promising first."""
    m = view.game_map
    own = {(p.head.key, province): (p, o) for p in plans for province, o in p.orders.items()}
    found: list[tuple[float, str, str]] = []  # (gain, the line replaced, the order across boards)
    for p in view.legal(kind=(OrderKind.MOVE, OrderKind.SUPPORT_HOLD)):
        order = parse_order(p.order, m)
        at = (order.unit.where.timeline, order.unit.where.turn)
        mine = own.get((at, order.unit.where.province))
        if mine is None:
            continue
        plan, current = mine
        unit = plan.head.units[order.unit.where.province]
        if isinstance(order, Move):
            there = (order.dest.timeline, order.dest.turn)
            board = view.mv.boards.get(there)
            if there == at or board is None:
                continue
            province = order.dest.province
            occupant = board.units.get(province)
            if province not in values_of(view, board).worth or board.centers.get(province) == view.power or \
                    (occupant is not None and occupant.power != view.power):
                continue
            gain = values_of(view, board).worth[province] + 1.0 - 0.5 * plan.values.value(unit.kind, unit.province) / 10
        elif isinstance(order, SupportHold):
            target = order.target.where
            board = view.mv.boards.get((target.timeline, target.turn))
            if board is None or board.key == at or board.record is None:
                continue
            held = board.units.get(target.province)
            dislodged = board.record.decisions.get(("dislodged", (target.timeline, target.turn, target.province)))
            if held is None or held.power != view.power or not dislodged:
                continue
            gain = 1.0 + values_of(view, board).worth.get(target.province, 0.0)
        else:
            continue
        found.append((gain, current.text, p.order))
    found.sort(key=lambda f: (-f[0], f[2]))
    variants = []
    for _, replaced, line in found[:MAX_TRAVEL]:
        variants.append([line if x == replaced else x for x in base])
    return variants


def _open_convoys(view: View, plans: Sequence[_Plan], base: list[str]) -> list[list[str]]:
    """Where open convoys are allowed: for each of the power's fleets at sea left holding, the variant
    in which it gives an open convoy and one of the power's armies left holding next to it moves
    through it to the most valuable place such a move reaches (a move listed as convoyed)."""
    m = view.game_map
    variants = []
    for plan in plans:
        options = options_of(view, plan.head)
        opens = {o.unit: o for opts in options.values() for o in opts if o.kind == Choice.OPEN_CONVOY}
        for sea, fleet_open in sorted(opens.items()):
            if plan.orders.get(sea) is None or plan.orders[sea].kind != Choice.HOLD:
                continue
            best: tuple[float, str, str] | None = None
            for army, order in sorted(plan.orders.items()):
                unit = plan.head.units[army]
                if order.kind != Choice.HOLD or unit.kind != UnitKind.ARMY or sea not in m.seas_next_to(army):
                    continue
                for o in options.get(army, []):
                    if o.kind == Choice.CONVOYED and sea in m.seas_next_to(o.dest) and o.dest not in plan.going:
                        worth = plan.values.value(UnitKind.ARMY, o.dest)
                        if best is None or worth > best[0]:
                            best = (worth, order.text, o.text)
            if best is not None:
                swap = {plan.orders[sea].text: fleet_open.text, best[1]: best[2]}
                variants.append([swap.get(line, line) for line in base])
    return variants


def _jumps(view: View, plans: Sequence[_Plan], base: list[str]) -> list[list[str]]:
    """Where jump assists are allowed: jumps of the power's units two turns back on their own timeline
    onto a centre worth taking that stands empty there, each with the assist of another of its units
    that lends the turn (``View.legal``, kind ``jump_assist``), which gives up its own order for it;
    the most valuable first."""
    if not any(s.chosen("jump_assists") for s in view.option_sets()):
        return []  # not asked of the engine where no option set allows them
    m = view.game_map
    own = {(p.head.key, province): o for p in plans for province, o in p.orders.items()}
    found: list[tuple[float, list[str]]] = []
    for p in _jump_assists(view, plans):
        order = parse_order(p.order, m)
        helper, target = order.unit.where, order.target.where
        helper_order = own.get(((helper.timeline, helper.turn), helper.province))
        target_order = own.get(((target.timeline, target.turn), target.province))
        board = view.mv.boards.get((order.dest.timeline, order.dest.turn))
        unit = view.mv.boards[(target.timeline, target.turn)].units.get(target.province)
        if helper_order is None or target_order is None or board is None or unit is None \
                or order.dest.timeline != target.timeline or target.turn - order.dest.turn != 2:
            continue
        province = order.dest.province
        if board.centers.get(province) == view.power or province in board.units:
            continue
        worth = values_of(view, board).worth.get(province)
        if worth is None:
            continue
        jump = format_order(Move(UnitSpec(target, unit.kind), order.dest), m)
        swap = {helper_order.text: p.order, target_order.text: jump}
        found.append((worth, [swap.get(line, line) for line in base]))
    found.sort(key=lambda f: -f[0])
    return [v for _, v in found[:MAX_TRAVEL]]


def _jump_assists(view: View, plans: Sequence[_Plan]) -> Sequence[PossibleOrder]:
    """The power's jump assists that ``_jumps`` may use, in the order of the whole listing: those
    whose destination is two turns behind one of its heads, on its timeline. Asked board by board
    (``to``): the whole listing holds every assist to every board in reach, most of which no jump of
    two turns back could use (in a 37-board position, 143,603 assists against 18,538 to such boards).
    Where two option sets allow jump assists, their listings come in turn (``View.legal``), an order
    the boards alone cannot give back: the whole listing is read then."""
    if sum(1 for s in view.option_sets() if s.chosen("jump_assists")) != 1:
        return view.legal(kind="jump_assist")
    behind = sorted({(p.head.timeline, p.head.turn - 2) for p in plans if (p.head.timeline, p.head.turn - 2) in view.mv.boards})
    listed = {(p.power, p.order): p for key in behind for p in view.legal(kind="jump_assist", to=board_name(*key))}
    # one option set's listing is sorted by (power, board, unit, kind, order): one power's, one kind
    return sorted(listed.values(), key=lambda p: (p.board, p.unit, p.order))


# -- retreats, adjustments, the sustain phase ------------------------------------------------------


def _retreats(view: View) -> list[str]:
    m = view.game_map
    lines = []
    for head in view.heads():
        mine = [r.unit for r in head.retreats if r.unit.power == view.power]
        if not mine:
            continue
        values = values_of(view, head)
        listed = [p for p in view.legal() if p.board == head.name]
        for unit in mine:
            best, best_worth = None, float("-inf")
            for p in listed:
                order = parse_order(p.order, m)
                if order.unit.where.province != unit.province:
                    continue
                if isinstance(order, Move):
                    worth = values.value(unit.kind, order.dest.province)
                    if order.dest.province in head.units:
                        continue
                elif isinstance(order, Disband):
                    worth = -1.0
                else:
                    continue
                if worth > best_worth or (worth == best_worth and best is not None and p.order < best):
                    best, best_worth = p.order, worth
            if best is not None:
                lines.append(best)
    return lines


def _adjustments(view: View) -> list[str]:
    m = view.game_map
    lines = []
    for head, balance in view.adjusting():
        values = values_of(view, head)
        listed = [parse_order(p.order, m) for p in view.legal() if p.board == head.name]
        texts = [p.order for p in view.legal() if p.board == head.name]
        if balance > 0:
            builds = sorted(((values.value(o.unit.kind or UnitKind.ARMY, o.unit.where.province), t, o.unit.where.province)
                             for o, t in zip(listed, texts) if isinstance(o, Build)), key=lambda b: (-b[0], b[1]))
            used: set[str] = set()
            for _, text, province in builds:
                if len(used) < balance and province not in used:
                    used.add(province)
                    lines.append(text)
        else:
            disbands = []
            for o, t in zip(listed, texts):
                if isinstance(o, Disband):
                    unit = head.units.get(o.unit.where.province)
                    if unit is not None and unit.power == view.power:
                        disbands.append((values.value(unit.kind, unit.province), t))
            lines += [t for _, t in sorted(disbands)[:-balance]]
    return lines


def _sustain(view: View) -> list[str]:
    """All the power's fractions to the timeline in play where it owns the most centres, when it owns
    a time centre on some head in play (otherwise it casts no fraction and gives no order)."""
    mv: Multiverse = view.mv
    if not mv.options.chosen("sustain"):
        return []
    capitals = set(view.game_map.capitals)
    heads = mv.heads
    if not any(h.centers.get(c) == view.power for h in heads for c in capitals):
        return []
    best = max(heads, key=lambda h: (sum(1 for o in h.centers.values() if o == view.power), -h.timeline))
    return [f"Sustain {timeline_name(best.timeline)}"]
