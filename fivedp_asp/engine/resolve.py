"""Fills in what a written order leaves out (docs/rules.md §6.2), against the multiverse it is given in,
and writes a filled-in order back as text (``resolved_text``).

The result names every place fully: timeline, turn, province (and a coast where one was
written). Whether the order is *legal* is not decided here but by the logic programs.
"""

from __future__ import annotations

from ..model.kinds import OrderKind
from ..model import orders as o
from ..model.orders import Place, ResolvedOrder
from ..errors import InputError, quoted
from ..model.map import GameMap
from ..model.multiverse import Multiverse
from ..model.notation import format_order, timeline_name


def _latest(mv: Multiverse, timeline: int, text: str) -> int:
    turn = mv.latest_turn(timeline)
    if turn is None:
        raise InputError(f"order {quoted(text)}: there is no timeline {timeline_name(timeline)}")
    return turn


def subject_place(mv: Multiverse, where: o.Where, text: str) -> Place:
    """Where a written unit stands (the ordered unit, or a unit named in a scenario's expectations):
    its timeline defaults to the root (option implicit_main_timeline), its turn to the latest."""
    timeline = where.timeline
    if timeline is None:
        if not mv.options.chosen("implicit_main_timeline"):
            raise InputError(f"order {quoted(text)}: the unit's timeline is not given (option implicit_main_timeline is off)")
        timeline = 0
    turn = where.turn if where.turn is not None else _latest(mv, timeline, text)
    return Place(timeline, turn, where.province, where.coast)


def _relative(mv: Multiverse, where: o.Where, base: Place, text: str) -> Place:
    """A place given relative to another: missing parts come from ``base``; a timeline alone means its latest turn."""
    if where.timeline is None:
        timeline = base.timeline
        turn = where.turn if where.turn is not None else base.turn
    else:
        timeline = where.timeline
        turn = where.turn if where.turn is not None else _latest(mv, timeline, text)
    return Place(timeline, turn, where.province, where.coast)


def resolve(order: o.Order, power: str, text: str, mv: Multiverse) -> ResolvedOrder:
    """The order with every place fully designated: the ordered unit's place first, then the places
    written after it, relative to it (docs/rules.md §6.2)."""
    if isinstance(order, o.Waive):
        return ResolvedOrder(power, text, order, OrderKind.WAIVE, None)
    if isinstance(order, o.Sustain):
        # given outside the sustain phase, nothing adjudicates it: this is the reason reported
        why = ("sustain orders belong to the sustain phase" if mv.options.chosen("sustain")
               else "sustain order needs the option sustain")
        return ResolvedOrder(power, text, order, OrderKind.SUSTAIN, None, problem=why)
    unit = getattr(order, "unit", None)
    if unit is None:
        raise InputError(f"order {quoted(text)}: unsupported order")
    # every other order names the unit it orders; the places after it are read relative to it
    subject = subject_place(mv, unit.where, text)
    # the class itself picks the verb (a large step resolves many lines: one lookup each, rather
    # than a match statement's class patterns and a closure per line)
    kind = _VERBS.get(type(order))
    if kind is None:
        raise InputError(f"order {quoted(text)}: unsupported order")
    target = dest = None
    via = False
    if kind == OrderKind.MOVE:
        dest, via = _relative(mv, order.dest, subject, text), order.via_convoy
    elif kind == OrderKind.SUPPORT_HOLD:
        target = _relative(mv, order.target.where, subject, text)
    elif kind in _TARGET_AND_DEST:
        # a support-move, convoy or jump assist: the destination is read relative to the unit it acts for
        target = _relative(mv, order.target.where, subject, text)
        dest = _relative(mv, order.dest, target, text)
    return ResolvedOrder(power, text, order, kind, subject, target, dest, via, unit.kind)


# the verb of each order that names a unit; jump assists are written as the assisted move is ordered,
# like a support-move (docs/rules.md §6.8.2)
_VERBS = {o.Move: OrderKind.MOVE, o.Hold: OrderKind.HOLD, o.SupportHold: OrderKind.SUPPORT_HOLD,
          o.SupportMove: OrderKind.SUPPORT_MOVE, o.Convoy: OrderKind.CONVOY, o.OpenConvoy: OrderKind.OPEN_CONVOY,
          o.JumpAssist: OrderKind.JUMP_ASSIST, o.Disband: OrderKind.DISBAND, o.Build: OrderKind.BUILD}
_TARGET_AND_DEST = frozenset({OrderKind.SUPPORT_MOVE, OrderKind.CONVOY, OrderKind.JUMP_ASSIST})


def _where(p: Place | None) -> o.Where | None:
    return None if p is None else o.Where(p.province, p.coast, p.timeline, p.turn)


def resolved_text(r: ResolvedOrder, m: GameMap) -> str:
    """An order with every place fully designated, so that reading it back needs no defaults."""
    unit = o.UnitSpec(_where(r.unit), r.unit_kind)
    target = o.UnitSpec(_where(r.target)) if r.target else None
    makers = {
        OrderKind.HOLD: lambda: o.Hold(unit),
        OrderKind.MOVE: lambda: o.Move(unit, _where(r.dest), r.via_convoy, getattr(r.order, "path", ())),
        OrderKind.SUPPORT_HOLD: lambda: o.SupportHold(unit, target),
        OrderKind.SUPPORT_MOVE: lambda: o.SupportMove(unit, target, _where(r.dest)),
        OrderKind.CONVOY: lambda: o.Convoy(unit, target, _where(r.dest)),
        OrderKind.OPEN_CONVOY: lambda: o.OpenConvoy(unit),
        OrderKind.JUMP_ASSIST: lambda: o.JumpAssist(unit, target, _where(r.dest)),
        OrderKind.DISBAND: lambda: o.Disband(unit),
        OrderKind.BUILD: lambda: o.Build(unit),
        OrderKind.WAIVE: lambda: o.Waive(),
    }
    # an order kind without places to designate (a sustain order) is printed as it was read
    order = makers[r.kind]() if r.kind in makers else r.order
    return format_order(order, m)
