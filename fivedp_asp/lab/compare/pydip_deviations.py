"""The known deviations of pydip 0.1.8 from DATC v3.1, and how each is emulated on our side.

Measured by running the DATC cases (cases/datc, expectations from the DATC's text, all met by this
engine) through pydip: every difference is pydip's, and each kind found is listed here and in
docs/compare.md. As for the ``diplomacy`` package (diplomacy_deviations.py), a disagreement is excused only when
our engine, made to read the orders the deviating way, then agrees with pydip on everything.

========  ===========================================================================================
DATC      deviation, and how it is emulated
========  ===========================================================================================
4.E.1     pydip has no illegal orders beyond what its command constructors refuse: a move no route
          can carry, a convoy of such a move, and a move of an army whose convoy is not ordered
          (6.D.32, 6.F.1, 6.F.12) are orders that fail, and a unit so ordered counts as moving, so
          it cannot be supported to hold. Emulated by taking out the supports to hold of such a
          unit (the supporters hold; their results are not compared) and not comparing the
          supports of its move (they match to pydip and cannot help), our ``invalid`` read as
          ``fails``. (Orders its constructors refuse, such as an army's move to a sea, are plain
          holds to pydip, as to us.)
6.A.5     a move to the unit's own province is a hold to pydip (its hold *is* such a move), so a
          support of it is a support to hold. Emulated by rewriting that support as a support to
          hold; its own result is not compared.
6.B.9     coasts in support orders are ignored (pydip matches supports by province). Emulated as
          for the ``diplomacy`` package (diplomacy_deviations.py), which also carries our rule
          choice 4.B.4.
6.D.31    a fleet's support of an army move whose only convoy route runs through that fleet is
          accepted. Emulated as for the ``diplomacy`` package: the support's result is not compared.
6.D.15    the unit at the destination of a supported move cuts the support when it attacks the
          supporter and pydip writes the two places differently (a fleet's move goes to a coast, a
          fleet on a coastal province stands on its coast, an army on the land). Emulated by taking the support out: the supporter holds; its result is
          not compared.
4.D.8     civil disorder removes units in alphabetical order of pydip's territory names, with no
          distance rule (DATC 4.D.8, and 6.J.*). Emulated by ordering the units pydip removed
          removed on our side, after checking that they are the first ones alphabetically.
========  ===========================================================================================

Not emulated (reported as real disagreements; docs/compare.md lists the DATC cases): pydip's
resolution of convoy paradoxes (6.F.16, 6.F.17: Pandin's paradox dislodges the convoying fleet), of
convoys swapping places (6.G.6, 6.G.7, 6.G.19) and of a convoyed attack on a supporter of an attack
on the army's own province (6.G.13).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ...model.kinds import Result, UnitKind
from ...model.multiverse import MOVEMENT
from ...model.orders import Convoy, Disband, Hold, Move, SupportHold, SupportMove
from .diplomacy_deviations import _support_coasts, _support_through_own_route
from .judge import Context, Emulation, _given, adjustment_removals, removed_by_order, unit_spec
from .reference import PhaseResult

DEVIATIONS = {
    "4.B.4": "our rule choice: a support omitting an ambiguous coast is illegal (docs/rules.md §1; DATC 6.B.7, 6.B.15)",
    "4.E.1": "impossible orders (no route, no convoy ordered) fail instead of being illegal; the unit counts as moving",
    "6.A.5": "a move to the unit's own province is a hold, and a support of it a support to hold",
    "6.B.9": "coasts in support orders ignored",
    "6.D.31": "support of an army move whose only convoy route runs through the supporting fleet accepted",
    "4.D.8": "civil disorder removes units alphabetically by territory name",
    "6.D.15": "the defender cuts a support of an attack on it when one of the two is a fleet on a coast "
              "(pydip compares coast and province names)",
}
FOUND_BY_COMPARE = frozenset({"4.E.1", "6.A.5", "6.B.9", "6.D.15", "6.D.31", "4.D.8"})


def _impossible_orders(ctx: Context) -> list[Emulation]:
    """4.E.1: our ``invalid`` moves, convoys and supports that pydip accepted and let fail. A move so
    read is a move to pydip, so its unit cannot be supported to hold: those supports are taken out
    (the supporter holds; their results are not compared)."""
    if ctx.phase != MOVEMENT:
        return []
    read = [i for i, g in enumerate(ctx.given)
            if ctx.ours.results[i] == Result.INVALID and ctx.theirs.results[i] == Result.FAILS
            and isinstance(g.order, (Move, Convoy, SupportHold, SupportMove))]
    if not read:
        return []
    emu = Emulation(("4.E.1",))
    moving = {ctx.given[i].order.unit.where.province for i in read if isinstance(ctx.given[i].order, Move)}
    for i, g in enumerate(ctx.given):
        o = g.order
        if isinstance(o, SupportHold) and o.target.where.province in moving:
            emu.replace[i] = _given(g.power, Hold(o.unit), ctx.map)
            emu.skip.add(i)
        elif isinstance(o, SupportMove) and o.target.where.province in moving:
            emu.skip.add(i)  # matches to pydip, and cannot help a move that has no route

    def post(res: PhaseResult, given: Sequence) -> PhaseResult:
        results = list(res.results)
        for i in read:
            if results[i] == Result.INVALID:
                results[i] = Result.FAILS
        return replace(res, results=tuple(results))

    emu.post = post
    return [emu]


def _support_of_own_place(ctx: Context) -> list[Emulation]:
    """6.A.5: a support of a move into the supported unit's own province, read as a support to hold."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("6.A.5",))
    for i, g in enumerate(ctx.given):
        o = g.order
        if isinstance(o, SupportMove) and o.dest.province == o.target.where.province:
            emu.replace[i] = _given(g.power, SupportHold(o.unit, o.target), ctx.map)
            emu.skip.add(i)
    return [emu] if emu.replace else []


def _defender_cuts_fleet_support(ctx: Context) -> list[Emulation]:
    """6.D.15: the unit at the destination of a supported move, attacking the supporter, cuts the
    support to pydip when the two are written differently there: pydip compares the territory the
    support is given into (a coast, for a fleet's move) with the one the defender stands on (a coast,
    for a fleet on a coastal province). Emulated by taking such supports out: the supporter holds;
    its result is not compared."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("6.D.15",))
    moves = {g.order.unit.where.province: g.order.dest.province for g in ctx.given if isinstance(g.order, Move)}
    ref = _pydip(ctx)
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, SupportMove):
            continue
        supported = ctx.board.units.get(o.target.where.province)
        defender = ctx.board.units.get(o.dest.province)
        if supported is None or defender is None or moves.get(o.dest.province) != o.unit.where.province:
            continue
        into = (ref._dest_coast(supported, o.dest, any_coast=True) if supported.kind == UnitKind.FLEET
                else ref.land.get(o.dest.province))
        if into != ref._where(defender):
            emu.replace[i] = _given(g.power, Hold(o.unit), ctx.map)
            emu.skip.add(i)
    return [emu] if emu.replace else []


def _alphabetical_disorder(ctx: Context) -> list[Emulation]:
    """4.D.8: the units pydip removed for a power that ordered too few removals are the first ones
    in the alphabetical order of pydip's territory names; ordered removed on our side."""
    removals = adjustment_removals(ctx)
    if removals is None:
        return []
    before, gone_ours, gone_theirs = removals.before, removals.ours, removals.theirs
    ordered = removed_by_order(ctx, ctx.theirs)
    emu = Emulation(("4.D.8",))
    problems = []
    names = _pydip_names(ctx)
    for power in sorted({u.power for u in gone_ours ^ gone_theirs}):
        removed = {u for u in gone_theirs - ordered if u.power == power}
        pool = sorted((u for u in before if u.power == power and u not in ordered), key=lambda u: names(u).lower())
        if set(pool[:len(removed)]) != removed:
            problems.append(f"{power}: pydip's removals are not the first alphabetically")
        for u in sorted(removed, key=lambda u: u.location):
            emu.extra.append(_given(u.power, Disband(unit_spec(u)), ctx.map))
    emu.check = (lambda res: "; ".join(problems)) if problems else None
    return [emu]


def _pydip(ctx: Context):
    """pydip's names for our places: the mapping of the adapter being compared (these emulators are
    its own, handed to the comparison by it), read from the context so that this module needs not
    import the adapter that imports it."""
    return ctx.reference


def _pydip_names(ctx: Context):
    return _pydip(ctx)._where


EMULATORS = (_support_coasts, _support_through_own_route, _impossible_orders, _support_of_own_place,
             _defender_cuts_fleet_support, _alphabetical_disorder)
