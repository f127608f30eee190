"""One step of a game: the orders of one phase across all heads, adjudicated, giving the next multiverse.

A step resolves one phase kind across every head that needs it (docs/rules.md §5.4): retreats first,
then the sustain phase when it is due (option ``sustain``, §9.3), then adjustments, then movement.
Phases with nothing to decide are skipped.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from . import adjustment, collector, movement, retreat, sustain, victory
from ..errors import InputError, NotationError, OrderError, quoted
from ..limits import MAX_BOARDS, MAX_HEADS, MAX_ORDERS, MAX_TIMELINES, MAX_UNITS
from ..model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, SUSTAIN, Multiverse
from ..model.notation import parse_order
from .written import implied_orders, refuse_written
from .resolve import ResolvedOrder, resolve
from .answer import OrderOutcome
from .phase import StepReport, Steps, run
from ..model.orders import OrderKind

OrderLines = Mapping[str, Sequence[str]]


def next_phase(mv: Multiverse) -> str:
    phases = {b.phase for b in mv.heads}
    if RETREAT in phases:
        return RETREAT
    if mv.sustain_due is not None:
        return SUSTAIN
    if ADJUSTMENT in phases:
        return ADJUSTMENT
    return MOVEMENT


# -- orders ------------------------------------------------------------------------------------


def read_orders(mv: Multiverse, orders: OrderLines) -> list[tuple[int, ResolvedOrder]]:
    """Parses and resolves every line; identical orders share one id (written twice, they count once)."""
    ids: dict[tuple, int] = {}
    out: list[tuple[int, ResolvedOrder]] = []
    for power_text, lines in orders.items():
        power = mv.game_map.power(power_text)
        if power is None:
            raise InputError(f"unknown power {quoted(power_text)}")
        for line in lines or ():
            text = str(line)
            try:
                parsed = parse_order(text, mv.game_map)
            except NotationError as exc:
                raise OrderError(text, f"{power} order {quoted(text)}: {exc.problem} (column {exc.position + 1})") from None
            try:
                r = resolve(parsed, power, text, mv)
            except InputError as exc:
                # it parses but names no place of this multiverse: an illegal order, not bad input
                r = ResolvedOrder(power, text, parsed, OrderKind.UNPLACED, None, problem=str(exc).split(": ", 1)[-1])
            # every waive is one more build not used; other lines written twice are one order
            key = (r.signature, len(out)) if r.kind is OrderKind.WAIVE else r.signature
            out.append((ids.setdefault(key, len(ids)), r))
    return implied_orders(mv, refuse_written(mv, out))


def check_limits(mv: Multiverse, orders: OrderLines, phase: str) -> None:
    """Refuses a step beyond the documented limits (docs/limits.md) before any solving, so that a
    hostile but legal input either finishes or stops here with a clear message."""
    heads = [b for b in mv.heads if b.phase == phase]
    problems = []
    if len(heads) > MAX_HEADS:
        problems.append(f"{len(heads):,} boards in play (the limit is {MAX_HEADS:,})")
    units = sum(len(b.units) + len(b.retreats) for b in heads)
    if units > MAX_UNITS:
        problems.append(f"{units:,} units on the boards in play (the limit is {MAX_UNITS:,})")
    lines = sum(len(v) for v in orders.values())
    if lines > MAX_ORDERS:
        problems.append(f"{lines:,} orders (the limit is {MAX_ORDERS:,})")
    if len(mv.timelines) > MAX_TIMELINES:
        problems.append(f"{len(mv.timelines):,} timelines (the limit is {MAX_TIMELINES:,})")
    if len(mv.boards) > MAX_BOARDS:
        problems.append(f"{len(mv.boards):,} boards (the limit is {MAX_BOARDS:,})")
    if problems:
        raise InputError("this step is beyond the limits of fivedp: " + "; ".join(problems))


def step(mv: Multiverse, orders: OrderLines, *, statistics: bool = False, reasons: bool = True) -> StepReport:
    """Adjudicates the next phase with these orders (per power, lines in any notation).
    ``statistics`` asks clingo for the ground program's size (benchmarks). ``reasons=False`` leaves
    out why each order has its result: the rules of reasons are then not grounded (a median classic
    movement phase grounds 37 statements fewer), and a legal order's outcome has no reason and no
    causes. The results, positions and decisions are the same; an invalid order keeps its reason.
    Python's cycle collector is held off meanwhile (``collector.paused``)."""
    with collector.paused():
        return run(steps(mv, orders, statistics=statistics, reasons=reasons))


def refused_orders(mv: Multiverse, orders: OrderLines) -> tuple[OrderOutcome, ...] | None:
    """The orders the rules would ignore in the next phase, each with its reason, when the legality
    rules can say so without the step (a movement phase with no rule of one's own:
    ``movement.refused``, the same outcomes as the step's invalid ones); None otherwise, when only
    adjudicating the step tells. Bad input is raised as ``step`` raises it."""
    phase = next_phase(mv)
    if phase != MOVEMENT or not movement.judged_alone(mv):
        return None
    check_limits(mv, orders, phase)
    with collector.paused():
        return movement.refused(mv, read_orders(mv, orders))


def steps(mv: Multiverse, orders: OrderLines, *, statistics: bool = False, reasons: bool = True) -> Steps:
    """``step`` as a generator of solver queries (see ``Query``). Bad input is raised before the first query."""
    phase = next_phase(mv)
    check_limits(mv, orders, phase)
    resolved = read_orders(mv, orders)
    return _step(mv, resolved, phase, statistics, reasons)


def _step(mv: Multiverse, resolved, phase: str, statistics: bool, reasons: bool) -> Steps:
    if phase == RETREAT:
        report = yield from retreat.adjudicate(mv, resolved, reasons)
    elif phase == SUSTAIN:
        report = yield from sustain.adjudicate(mv, resolved, reasons)
    elif phase == ADJUSTMENT:
        report = yield from adjustment.adjudicate(mv, resolved, reasons)
    else:
        report = yield from movement.adjudicate(mv, resolved, statistics, reasons)
        report = replace(report, after=sustain.due_after_movement(mv, report.after))
    # units of a power eliminated before this step, brought back onto a head by a fork, leave it
    ghosts = report.after.ghosts()
    return replace(report, after=(yield from victory.adjudicate(report.after)), disbanded=report.disbanded + ghosts)
