"""The ``search`` bot: the greedy bot's judgement, checked against what the other powers are likely to do.

In a movement phase:

1. Candidates: the greedy bot's orders for the power (``greedy.plan_movement``), its orders under
   other draws of its random choices, its variants — orders across boards and jumps where the game
   allows them, open convoys, units whose two best options were nearly worth the same — and its
   orders with one unit's changed (to its best other move, or to support another of its moves).
2. The other powers' likely orders: a few samples of their own greedy plans on every head they have
   units on (their draws seeded by this view, which knows nothing of their seeds), made without trying
   anything on a copy.
3. Each candidate is adjudicated on copies against each sample (``View.simulate``, within the budget
   the runner gives the power for the phase), scored by the greedy bot's score (centres, units and
   the worth of where they stand, over the heads in play), and the candidate with the best mean score
   is kept; with no budget left, the greedy bot's first plan. After a spring, a try also counts the
   centres likely to change hands in the fall (``_spring_claims``); playing across boards, the
   distinct centres the power owns over the heads in play (``_score``).

In an adjustment on a single board (``_adjustments``), the greedy bot's builds or removals and the
other ways of making them (which free home centres, army or fleet; which units go) are each
adjudicated on a copy with the other powers' greedy adjustments, then played on into the next movement
(the power's greedy plan against samples of the others') and scored as a movement try is. Retreats, the
sustain phase and adjustments on several heads are the greedy bot's.

This is the shape of the search-based no-press Diplomacy agents (candidate actions from a policy, the
others' actions sampled from a policy of theirs, the best response on average kept), with the greedy
heuristic as both policies and a one-phase lookahead.
"""

from __future__ import annotations

import itertools
import random

from ...engine.batch import step_many
from ...engine.phase import StepReport
from ...errors import UsageError
from ...game.state import new_game
from ...model.kinds import UnitKind
from ...model.multiverse import ADJUSTMENT, MOVEMENT, Board, Multiverse
from ...model.notation import parse_order
from ...model.orders import Build, Disband
from .greedy import Choice, greedy_bot, options_of, plan_heads, plan_movement, score, values_of
from .view import RUNNER, Listings, View

SAMPLES = 2
"""Samples of the other powers' orders each candidate is tried against (1 when the budget is below
``2 * MIN_CANDIDATES``)."""

MIN_CANDIDATES = 3
"""Below this many candidates per sample, one sample is drawn rather than two."""

SPRING_HOLD = 0.8
"""The weight of a centre a spring try leaves the power standing on (or another power standing on one
of its own), against the greedy bot's score, where a centre owned counts one (``_spring_claims``)."""

BOARD_TRIES = 48
"""Tries times heads in play at most per phase: a try adjudicates every head, so that across boards,
with several timelines, the tries are fewer and a phase stays within about the time of one board's
(one head: 48 tries, more than the budgets used; five heads: 9; the runner's budget caps them too)."""

DRAWS = 3
"""Further draws of the greedy bot's own random choices, as candidates."""


def search_bot(view: View) -> list[str]:
    """The power's orders for the next phase (see the module)."""
    if not isinstance(view, View):
        raise UsageError(f"search_bot: view must be a View, not {type(view).__name__}")
    if view.phase == ADJUSTMENT:
        return _adjustments(view)
    if view.phase != MOVEMENT:
        return greedy_bot(view)
    rng = view.rng()
    plans, base, variants = plan_movement(view, rng)
    budget = min(view.remaining, max(BOARD_TRIES // max(len(view.heads()), 1), 2 * SAMPLES))
    samples = SAMPLES if budget >= SAMPLES * MIN_CANDIDATES else 1
    if budget < 2 * samples:
        return base
    draws = [plan_heads(view, random.Random(f"{view.seed}/draw/{k}"))[1] for k in range(DRAWS)]
    candidates = _distinct([base] + draws + variants + _deviations(view, plans, base))[:budget // samples]
    others = _likely_orders(view, samples)
    tried = [{**other, view.power: lines} for lines in candidates for other in others]
    reports = view.simulate(tried)
    totals = [0.0] * len(candidates)
    for i, report in enumerate(reports):
        totals[i // samples] += _score(view, plans, report) if isinstance(report, StepReport) else float("-inf")
    done = len(reports) // samples  # candidates adjudicated against every sample
    if done == 0:
        return base
    best = max(range(done), key=lambda i: (totals[i], -i))
    return candidates[best]


def _score(view: View, plans, report: StepReport) -> float:
    """The greedy bot's score of a try; across boards, plus the distinct supply centres the power owns
    or stands on over the heads in play (what the ``unique`` victory condition counts, a centre stood
    on being one the next adjustment gives it), so that a move into the past that takes a centre it
    holds nowhere else counts for what it wins, even as the mean over the heads, which the new
    timeline's older position lowers, falls."""
    out = score(view, plans, report)
    out += SPRING_HOLD * _spring_claims(view, report)
    if view.travel:
        provinces = view.game_map.provinces
        held = {p for h in report.after.heads for p, o in h.centers.items() if o == view.power}
        held |= {u.province for h in report.after.heads for u in h.units.values()
                 if u.power == view.power and provinces[u.province].center}
        out += len(held)
    return out


def _spring_claims(view: View, report: StepReport) -> float:
    """After a spring movement, what the coming fall is likely to decide about the power's centres,
    over the heads in play that follow a spring: a centre it does not own that one of its units stands
    on counts one (it is its after the fall unless the unit is moved off), a centre it owns that
    another power's unit stands on counts minus one. Centres change hands only after a fall, so without
    this a spring try is judged by where its units stand alone, and a spring move onto a centre weighs
    little beside keeping a unit safe; after a fall, nothing."""
    provinces = view.game_map.provinces
    heads = [h for h in report.after.heads if h.turn % 2 == 1]
    if not heads:
        return 0.0
    total = 0
    for h in heads:
        for u in h.units.values():
            if not provinces[u.province].center:
                continue
            owner = h.centers.get(u.province)
            if u.power == view.power and owner != view.power:
                total += 1
            elif u.power != view.power and owner == view.power:
                total -= 1
    return total / len(report.after.heads)


def _deviations(view: View, plans, base: list[str]) -> list[list[str]]:
    """``base`` with one unit's order changed: to its most valuable other move or hold, or to a support
    of another of the power's moves it can reach; the units of most worth first."""
    out: list[tuple[float, list[str]]] = []
    for plan in plans:
        options = options_of(view, plan.head)
        moves = {o.dest: o for o in plan.orders.values() if o.kind in (Choice.MOVE, Choice.CONVOYED)}
        for province, order in plan.orders.items():
            unit = plan.head.units[province]
            others = [(plan.values.value(unit.kind, o.dest), o.text) for o in options.get(province, [])
                      if o.kind in (Choice.HOLD, Choice.MOVE) and o.text != order.text]
            others += [(plan.values.value(unit.kind, o.dest), o.text) for o in options.get(province, [])
                       if o.kind == Choice.SUPPORT and o.dest in moves and moves[o.dest].unit == o.target
                       and o.text != order.text]
            if others:
                worth, text = max(others)
                out.append((worth, [text if line == order.text else line for line in base]))
    out.sort(key=lambda d: -d[0])
    return [lines for _, lines in out]


def _distinct(sets: list[list[str]]) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for lines in sets:
        key = tuple(sorted(lines))
        if key not in seen:
            seen.add(key)
            out.append(lines)
    return out


def _likely_orders(view: View, samples: int) -> list[dict[str, list[str]]]:
    """``samples`` sets of the other powers' orders, each power's from its greedy plans on the heads it
    has units on, its random choices drawn from this view's seed."""
    out: list[dict[str, list[str]]] = [{} for _ in range(samples)]
    powers = sorted({u.power for head in view.heads() for u in head.units.values()} - {view.power})
    for power in powers:
        theirs = View(view.game, power, f"{view.seed}/{power}", view.settings, view.travel, budget=0,
                      listings=view.listings)
        for k in range(samples):
            lines = plan_heads(theirs, random.Random(f"{view.seed}/{power}/{k}"))[1]
            if lines:
                out[k][power] = lines
    return out


ADJUST_SAMPLES = 3
"""Samples of the other powers' next movement each adjustment candidate is played on against, at most."""


def _adjustments(view: View) -> list[str]:
    """On a single board: the greedy bot's builds or removals, and the other ways of making them (which
    free home centres, army or fleet; which units removed), each adjudicated on a copy with the other
    powers' greedy adjustments, then played on into the next movement (the power's greedy plan against
    samples of the others') and scored there as a movement try is; the best mean kept. With several
    heads, or a budget below two tries a candidate, the greedy bot's."""
    greedy = greedy_bot(view)
    adjusting = view.adjusting()
    budget = view.remaining
    if len(view.heads()) != 1 or len(adjusting) != 1 or budget < 4:
        return greedy
    head, balance = adjusting[0]
    candidates = _distinct([greedy] + _adjustment_sets(view, head, balance))[:budget // 2]
    if len(candidates) < 2:
        return greedy
    samples = max(1, min(ADJUST_SAMPLES, (budget - len(candidates)) // len(candidates)))
    theirs = {}
    for power in sorted(({u.power for u in head.units.values()} | set(head.centers.values())) - {view.power}):
        lines = greedy_bot(View(view.game, power, f"{view.seed}/{power}", view.settings, view.travel, budget=0,
                                listings=view.listings))
        if lines:
            theirs[power] = lines
    adjusted = view.simulate([{**theirs, view.power: lines} for lines in candidates])
    totals = []
    for report in adjusted:
        if not isinstance(report, StepReport):
            totals.append(float("-inf"))
            continue
        after = View(new_game(report.after), view.power, f"{view.seed}/next", view.settings, view.travel,
                     budget=0, listings=Listings(report.after))
        plans, mine = plan_heads(after, random.Random(f"{view.seed}/next"))
        tried = [{**other, view.power: mine} for other in _likely_orders(after, samples)]
        reports = _simulate_at(view, report.after, tried)
        if len(reports) < len(tried):
            break
        totals.append(sum(_score(after, plans, r) if isinstance(r, StepReport) else float("-inf") for r in reports))
    if not totals:
        return greedy
    return candidates[max(range(len(totals)), key=lambda i: (totals[i], -i))]


def _adjustment_sets(view: View, head: Board, balance: int) -> list[list[str]]:
    """The ways of making ``balance`` builds (or removals) on ``head``, the most valuable first: each set
    of free home centres with a kind of unit for each, or each set of the power's units removed."""
    m = view.game_map
    values = values_of(view, head)
    listed = [(parse_order(p.order, m), p.order) for p in view.legal() if p.board == head.name]
    scored: list[tuple[float, list[str]]] = []
    if balance > 0:
        by_place: dict[str, list[tuple[float, str]]] = {}
        for order, text in listed:
            if isinstance(order, Build):
                place = order.unit.where.province
                by_place.setdefault(place, []).append(
                    (values.value(order.unit.kind or UnitKind.ARMY, place), text))
        for places in itertools.combinations(sorted(by_place), min(balance, len(by_place))):
            for pick in itertools.product(*(by_place[p] for p in places)):
                scored.append((sum(w for w, _ in pick), [t for _, t in pick]))
    else:
        removals = []
        for order, text in listed:
            unit = head.units.get(order.unit.where.province) if isinstance(order, Disband) else None
            if unit is not None and unit.power == view.power:
                removals.append((values.value(unit.kind, unit.province), text))
        for pick in itertools.combinations(sorted(removals), min(-balance, len(removals))):
            scored.append((-sum(w for w, _ in pick), [t for _, t in pick]))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [lines for _, lines in scored]


def _simulate_at(view: View, mv: Multiverse, order_sets: list[dict[str, list[str]]]) -> list[StepReport | Exception]:
    """``order_sets`` adjudicated from ``mv``, a position the view's own tries reached, counted against
    the view's budget (the runner's, in a game) as ``View.simulate`` counts its own."""
    runner = RUNNER.get()
    if runner is not None:
        return runner.simulate(mv, order_sets)
    wanted = order_sets[:max(view.remaining, 0)]
    if not wanted:
        return []
    view.memo["spent"] = view.memo.get("spent", 0) + len(wanted)
    return step_many([(mv, s) for s in wanted], reasons=False)
