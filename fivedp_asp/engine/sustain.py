"""The sustain phase (docs/rules.md §6.8.3, option ``sustain``): when it is due, its facts, and its result.

The vote count and the dissolution are decided by ``asp/sustain.lp``; this module writes what the
program needs (the timelines in play, who owns each time centre on each head, the sustain orders)
and reads back the fractions, the timeline each centre sustains and the timelines that dissolve.
``sustain_json`` is that result as the game file's history and the JSON documents record it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..model import orders as o
from ..solver import terms as t
from ..solver.terms import Fact, OrderId, Timeline
from ..model.multiverse import SUSTAIN, Multiverse
from ..model.notation import timeline_name
from ..model.orders import ResolvedOrder, OrderKind
from .answer import Answer, CentreVote, SustainResult
from .phase import Query, StepReport, Steps, outcomes, program


def enabled(mv: Multiverse) -> bool:
    return bool(mv.options.chosen("sustain"))


def due_after_movement(before: Multiverse, after: Multiverse) -> Multiverse:
    """Marks the sustain phase due after a movement step whose latest head was a Fall turn, once per
    game year; with one timeline in play it is skipped (and not counted as held)."""
    if not enabled(before) or not before.heads:
        return after
    latest = max(h.turn for h in before.heads)
    year = latest // 2
    if latest % 2 == 0 or before.sustain_held == year or len(after.in_play) < 2:
        return after
    return replace(after, sustain_due=year)


def _positions(orders: Sequence[tuple[int, ResolvedOrder]]) -> dict[int, int]:
    """Where each order was last written: between two orders of one kind the later counts."""
    last: dict[int, int] = {}
    for pos, (i, _) in enumerate(orders):
        last[i] = pos
    return last


def facts(mv: Multiverse, orders: Sequence[tuple[int, ResolvedOrder]]) -> tuple[Fact, ...]:
    out: list[Fact] = [("in_play", Timeline(tl)) for tl in mv.in_play]
    capitals = mv.game_map.capitals
    out += [("time_center", t.const(c)) for c in capitals]
    for head in mv.heads:
        for c in capitals:
            if c in head.centers:
                out.append(("owner", t.const(c), Timeline(head.timeline), t.const(head.centers[c])))
    last = _positions(orders)
    for i, r in orders:
        if r.kind is not OrderKind.SUSTAIN or not isinstance(r.order, o.Sustain):
            continue
        pw, tl = t.const(r.power), Timeline(r.order.timeline)
        if r.order.center is None:
            out.append(("sustain_order", OrderId(i), pw, tl, last[i]))
        else:
            out.append(("center_order", OrderId(i), pw, t.const(r.order.center), tl, last[i]))
    return tuple(out)


def read(mv: Multiverse, answer: Answer) -> SustainResult:
    by_const = t.by_name(mv.game_map.capitals)
    powers = t.by_name(mv.game_map.powers)
    owners = {(c, T): powers[pw] for c, T, pw in answer.values("fraction")}
    votes: dict[str, list[tuple[int, str, int]]] = {}
    for c, T, V in answer.values("vote"):
        votes.setdefault(by_const.get(c, c), []).append((T, owners[(c, T)], V))
    chosen_by = {by_const.get(c, c): V for c, V in answer.values("sustains")}
    centres = tuple(CentreVote(c, tuple(sorted(votes.get(c, ()))), chosen_by.get(c)) for c in mv.game_map.capitals)
    dissolved = tuple(sorted(T for (T,) in answer.values("dissolved")))
    return SustainResult(mv.sustain_due if mv.sustain_due is not None else -1, mv.in_play, centres, dissolved)


def apply(mv: Multiverse, result: SustainResult) -> Multiverse:
    """The multiverse after the phase: dissolved timelines out of play for good, this year's phase held."""
    return replace(mv, dissolved=mv.dissolved | frozenset(result.dissolved), sustain_due=None,
                   sustain_held=result.year)


def adjudicate(mv: Multiverse, orders, reasons: bool = True) -> Steps:
    """The sustain phase, as a query (``phase.Query``): the step's report, with the votes (``reasons``:
    why each order has its result, ``phase.outcomes``)."""
    answer = Answer.of((yield Query(program(mv, "sustain", reasons), facts(mv, orders))).atoms)
    result = read(mv, answer)
    return StepReport(SUSTAIN, mv, apply(mv, result), outcomes(mv, orders, answer, reasons=reasons), sustain=result)


def fraction_shares(fractions) -> list[tuple[int, int]]:
    """How many fractions (of n) each timeline received, by timeline."""
    counts: dict[int, int] = {}
    for _, _, voted in fractions:
        counts[voted] = counts.get(voted, 0) + 1
    return sorted(counts.items())


def sustain_json(result: SustainResult, game_map) -> dict:
    """The result as plain data, timelines by letter and centres by name: one form for the game
    file's history and for the JSON documents, so both read alike."""
    return {
        "year": 1901 + result.year,
        "timelines_in_play": [timeline_name(tl) for tl in result.timelines],
        "centres": {game_map.provinces[c.center].name: {
            "fractions": [{"timeline": timeline_name(own), "power": power, "votes_for": timeline_name(voted)}
                          for own, power, voted in c.fractions],
            "shares": {timeline_name(tl): f"{k}/{len(result.timelines)}" for tl, k in fraction_shares(c.fractions)},
            "sustains": timeline_name(c.sustains) if c.sustains is not None else None,
        } for c in result.centres},
        "dissolved": [timeline_name(tl) for tl in result.dissolved],
    }
