"""The known deviations of the ``diplomacy`` package (1.1.2) from DATC v3.1, and how each is emulated.

The adapter (``diplomacy_ref.py``) hands these to the comparison (``ReferenceAdjudicator.emulators``,
``deviations`` and ``found_by_compare``); ``judge.py`` runs our engine again with each emulation that
applies and excuses a disagreement only if our engine, so emulating, then agrees with the reference
on everything. Each deviation knows when it applies, so it is tried only where its feature is present:

========  ===========================================================================================
DATC      deviation, and how it is emulated
========  ===========================================================================================
6.B.9     the reference ignores the coast named in a support: a fleet's support-move that names a
          coast the supported fleet is not moving to (or cannot reach) is rewritten with the coast
          of the supported move.
6.F.21,   after an attack by convoy the reference lets the dislodged unit retreat anywhere next to
6.G.10    it, occupied or standoff provinces included: such units get every neighbouring location as
          options (6.F.21 when an occupied province is among the extra options, 6.G.10 a standoff
          one); in a retreat phase our standoff bars are lifted for them.
6.G.8     the reference moves an army overland when its convoy (asked for with ``via convoy`` or by
          a fleet of its own power) is missing or disrupted: the army's order loses ``via convoy``
          and its own power's convoy orders become holds (their results are not compared).
6.J       civil disorder: the reference measures distance to *home* centres (6.J.11, also behind
          6.J.3 and 6.J.10), with fleets over sea only (6.J.6), and does not spare units on supply
          centres (6.J.11). The units it removed are ordered removed on our side; the result must
          then agree, and a model of the civil-disorder order with exactly those documented
          features switched must pick the reference's units.
4.B.4     our rule choice (docs/rules.md §1, DATC 6.B.7/6.B.15 differ): a support that leaves out the
          coast of a fleet's move that could reach two coasts is illegal for us; it is rewritten
          with the coast of the supported move.
========  ===========================================================================================

Deviations of diplomacy 1.1.2 found by this comparison, not in the documented list (each was read
in its source and checked against DATC v3.1 before it was added here):

========  ===========================================================================================
6.D.31    it accepts a fleet's support of an army move whose only convoy route runs through that
          fleet (illegal by DATC). The support can never help: its own result is not compared.
4.A.2     it applies a convoy-paradox rule where there is no paradox: a convoyed army never cuts a
          support given for, or against, a fleet on its only ordered route; and it breaks a convoy
          when the unit at the army's destination supports the attacked convoying fleet. Where the
          support's strength cannot change what happens to the fleet, the support's result is not
          compared; a convoy broken that way is emulated by the fleet holding.
6.D.12    it counts a support given by the attacked unit's own power when the attack is written
          ``via convoy`` (it looks for the attacked unit under the word "VIA"), and when deciding
          whether such an attack disrupts a convoy. Emulated by handing the attacked unit to a
          bystander power for the phase, or by the convoying fleet holding.
6.E.12    in a head-to-head battle it leaves a support of an attack on the supporter's own unit out
          of the attacker's defence too. Emulated by dropping that support.
========  ===========================================================================================
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from types import MappingProxyType
from typing import Sequence

from ...model.kinds import Result, UnitKind
from ...model.multiverse import MOVEMENT, RETREAT, Board, Retreat, Unit
from ...model.orders import Convoy, Disband, Hold, Move, SupportHold, SupportMove, Where
from ...model.geography import Geography
from .judge import Context, Emulation, _fleet_seas, _given, adjustment_removals, convoyed_move, removed_by_order, unit_spec
from .reference import GivenOrder, PhaseResult

DEVIATIONS = {
    # the known deviations of diplomacy 1.1.2 from DATC v3.1, as the public DATC corpora list them (docs/compare.md)
    "6.B.9": "coasts in support orders ignored",
    "6.F.21": "retreat into an occupied province offered after an attack by convoy",
    "6.G.10": "retreat into a standoff province offered after an attack by convoy",
    "6.G.8": "land route taken when the convoy is missing or disrupted",
    "6.J.3": "civil disorder: distance to home centres",
    "6.J.6": "civil disorder: fleets counted over sea only",
    "6.J.10": "civil disorder: distance to home centres",
    "6.J.11": "civil disorder: distance to home, not owned, centres; units on centres not spared",
    "4.B.4": "our rule choice: a support omitting an ambiguous coast is illegal (docs/rules.md §1; DATC 6.B.7, 6.B.15)",
    # found by fivedp compare, not in the documented list
    "6.D.31": "support of an army move whose only convoy route runs through the supporting fleet accepted",
    "4.A.2": "paradox rule applied outside paradoxes: a convoyed army does not cut the support for a fleet "
             "on its route; a convoy is broken when the unit at the destination supports its attacked fleet",
    "6.D.12": "support from the attacked unit's own power counted (attack 'via convoy', or to disrupt a convoy)",
    "6.E.12": "support of an attack on one's own unit left out of the head-to-head defence",
}
FOUND_BY_COMPARE = frozenset({"6.D.31", "4.A.2", "6.D.12", "6.E.12"})


def _planned_move(ctx: Context, province: str) -> Move | None:
    unit = ctx.board.units.get(province)
    moves = [g.order for g in ctx.given if g.power == (unit.power if unit else None)
             and isinstance(g.order, Move) and g.order.unit.where.province == province]
    return moves[0] if len(moves) == 1 else None


def _move_coast(unit: Unit, move: Move, geo: Geography) -> str | None:
    if move.dest.coast:
        return move.dest.coast
    reach = geo.coasts_reachable(unit.kind, unit.location, move.dest.province)
    return reach[0].split("/")[1] if len(reach) == 1 and "/" in reach[0] else None


def _support_coasts(ctx: Context) -> list[Emulation]:
    if ctx.phase != MOVEMENT:
        return []
    named, omitted = Emulation(("6.B.9",)), Emulation(("4.B.4",))
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, SupportMove):
            continue
        fleet = ctx.board.units.get(o.target.where.province)
        if fleet is None or fleet.kind != UnitKind.FLEET:
            continue
        reach = ctx.geo.coasts_reachable(UnitKind.FLEET, fleet.location, o.dest.province)
        coasts = [loc.split("/")[1] for loc in reach if "/" in loc]
        if not coasts:
            continue
        move = _planned_move(ctx, fleet.province)
        moving = _move_coast(fleet, move, ctx.geo) if move and move.dest.province == o.dest.province else None
        if o.dest.coast is not None:
            if moving is not None and moving != o.dest.coast:
                new = moving
            elif moving is None and o.dest.coast not in coasts:
                new = coasts[0]
            else:
                continue
            target = named
        elif len(coasts) > 1:
            new, target = moving or coasts[0], omitted
        else:
            continue
        changed = SupportMove(o.unit, o.target, Where(o.dest.province, new, o.dest.timeline, o.dest.turn))
        target.replace[i] = _given(g.power, changed, ctx.map)
    return [e for e in (named, omitted) if e.replace]


def _land_fallback(ctx: Context) -> list[Emulation]:
    if ctx.phase != MOVEMENT:
        return []
    out = []
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, Move) or ctx.ours.results[i] != Result.FAILS:
            continue
        unit = ctx.board.units.get(o.unit.where.province)
        if (unit is None or unit.kind != UnitKind.ARMY
                or not ctx.geo.can_reach(UnitKind.ARMY, unit.location, o.dest.province)):
            continue
        if not convoyed_move(ctx.board, ctx.given, i, ctx.geo):
            continue
        carried = any(isinstance(h.order, Convoy) and h.order.target.where.province == unit.province
                      and h.order.dest.province == o.dest.province and ctx.ours.results[j] == Result.SUCCEEDS
                      for j, h in enumerate(ctx.given))
        if carried:  # the convoy was there: the army failed for another reason
            continue
        emu = Emulation(("6.G.8",))
        out.append(emu)
        emu.replace[i] = _given(g.power, Move(o.unit, o.dest), ctx.map)
        for j, h in enumerate(ctx.given):
            c = h.order
            if isinstance(c, Convoy) and h.power == g.power and c.target.where.province == unit.province \
                    and c.dest.province == o.dest.province:
                emu.replace[j] = _given(h.power, Hold(c.unit), ctx.map)
                emu.skip.add(j)
    return out


def _convoy_retreats(ctx: Context) -> list[Emulation]:
    geo, board = ctx.geo, ctx.board
    if ctx.phase == RETREAT:
        lifted = [r for r in board.retreats if r.attacker_from is None and r.barred]
        if not lifted:
            return []

        def unbar(b: Board) -> Board:
            return replace(b, retreats=tuple(Retreat(r.unit, None, frozenset()) if r in lifted else r
                                             for r in b.retreats))
        return [Emulation(("6.G.10",), board=unbar)]
    if ctx.phase != MOVEMENT:
        return []
    if not any(convoyed_move(board, ctx.given, i, geo) for i in range(len(ctx.given))):
        return []
    emu = Emulation(())

    def widen(res: PhaseResult, given: Sequence[GivenOrder]) -> PhaseResult:
        # victims of convoyed attacks in this (possibly emulated) run; the reference does not always
        # see the attack as convoyed (it forgets a route it thought might be disrupted), so a victim
        # keeps our options unless the reference offered it every neighbour
        retreats = dict(res.after.retreats)
        occupied = {u.province for u in res.after.units}
        cases = set()
        for u in res.dislodged:
            convoyed = any(isinstance(g.order, Move) and g.order.dest.province == u.province
                           and res.results[i] == Result.SUCCEEDS and convoyed_move(board, given, i, geo)
                           for i, g in enumerate(given))
            every = frozenset(geo.steps(u.kind, u.location))
            if not convoyed or ctx.theirs.after.retreats.get(u) != every or retreats.get(u) == every:
                continue
            for loc in every - retreats.get(u, frozenset()):
                cases.add("6.F.21" if ctx.map.province_of(loc) in occupied else "6.G.10")
            retreats[u] = every
        emu.cases = tuple(sorted(cases))
        after = res.after
        if retreats and after.phase != RETREAT:  # the battle's centres are settled after retreats
            after = replace(after, phase=RETREAT, centers=MappingProxyType(dict(board.centers)))
        return replace(res, after=replace(after, retreats=MappingProxyType(retreats)))
    emu.post = widen
    return [emu]


# civil disorder -------------------------------------------------------------------------------------

_DISORDER_FEATURES = ("homes", "fleet_sea", "no_protect", "abbrev")
_FEATURE_CASES = {"homes": ("6.J.11", "6.J.3", "6.J.10"), "fleet_sea": ("6.J.6",), "no_protect": ("6.J.11",)}


def disorder_choice(board: Board, power: str, pool: Sequence[Unit], count: int, geo: Geography,
                    features: frozenset[str] = frozenset()) -> frozenset[Unit]:
    """The ``count`` units of ``pool`` removed in civil disorder by the 2023 rule (DATC 4.D.8), or by
    that rule with some features changed: ``homes`` (distance to home centres), ``fleet_sea`` (fleets
    count fleet moves only), ``no_protect`` (units on centres not spared), ``abbrev`` (alphabetical
    order of the abbreviations instead of the English names)."""
    game_map = geo.map
    targets = game_map.home_centers(power) if "homes" in features else \
        tuple(p for p, o in board.centers.items() if o == power)
    by_province = geo.distances(targets, None)
    by_fleet = geo.distances(targets, UnitKind.FLEET) if "fleet_sea" in features else None
    names = sorted(game_map.provinces.values(), key=lambda p: p.name.lower())
    rank = {p.id: i for i, p in enumerate(names)}

    def key(u: Unit):
        if by_fleet is not None and u.kind == UnitKind.FLEET:
            dist = by_fleet.get(u.location, 10_000)
        else:
            dist = by_province.get(u.province, 10_000)
        on_centre = 0 if "no_protect" in features else int(game_map.provinces[u.province].center)
        alpha = u.location.upper() if "abbrev" in features else rank[u.province]
        return (on_centre, -dist, 0 if u.kind == UnitKind.FLEET else 1, alpha)
    return frozenset(sorted(pool, key=key)[:count])


def _civil_disorder(ctx: Context) -> list[Emulation]:
    removals = adjustment_removals(ctx)
    if removals is None:
        return []
    before, gone_ours, gone_theirs = removals.before, removals.ours, removals.theirs
    ordered_ours, ordered_theirs = removed_by_order(ctx, ctx.ours), removed_by_order(ctx, ctx.theirs)
    emu = Emulation(())
    for u in sorted(gone_theirs - ordered_ours, key=lambda u: u.location):  # in written order, before ours
        emu.extra.append(_given(u.power, Disband(unit_spec(u)), ctx.map))
    # which documented features explain the reference's choice, power by power
    cases: set[str] = set()
    problems: list[str] = []
    for power in sorted({u.power for u in gone_ours ^ gone_theirs}):
        cd_ours = {u for u in gone_ours - ordered_ours if u.power == power}
        cd_theirs = {u for u in gone_theirs - ordered_theirs if u.power == power}
        pool = [u for u in before if u.power == power and u not in ordered_theirs]
        if len(cd_ours) != len(cd_theirs) or {u for u in ordered_ours if u.power == power} != \
                {u for u in ordered_theirs if u.power == power}:
            problems.append(f"{power}: the engines removed different numbers of units")
            continue
        if disorder_choice(ctx.board, power, pool, len(cd_ours), ctx.geo) != cd_ours:
            problems.append(f"{power}: our engine's civil-disorder choice is not the 2023 rule's")
            continue
        hit = None
        for size in range(1, len(_DISORDER_FEATURES) + 1):
            for combo in itertools.combinations(_DISORDER_FEATURES, size):
                if disorder_choice(ctx.board, power, pool, len(cd_theirs), ctx.geo, frozenset(combo)) == cd_theirs:
                    hit = combo
                    break
            if hit:
                break
        if hit is None:
            problems.append(f"{power}: no documented feature explains the reference's choice")
        elif "abbrev" in hit:
            problems.append(f"{power}: the reference's choice needs alphabetical order of abbreviations "
                            f"(not of English names): an undocumented deviation")
        else:
            for feature in hit:
                cases.update(_FEATURE_CASES[feature][:1])
    emu.cases = tuple(sorted(cases)) or ("6.J.11",)
    emu.check = (lambda res: "; ".join(problems)) if problems else None
    return [emu]


def _support_through_own_route(ctx: Context) -> list[Emulation]:
    """6.D.31: a fleet's support of an army move whose only convoy route runs through that fleet is
    illegal; the reference accepts it. The support can never help (the fleet does not convoy), so
    only its own result differs: it is not compared."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("6.D.31",))
    seas = _fleet_seas(ctx.board, ctx.geo)
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, SupportMove) or ctx.ours.results[i] != Result.INVALID:
            continue
        fleet = ctx.board.units.get(o.unit.where.province)
        army = ctx.board.units.get(o.target.where.province)
        if (fleet is None or army is None or fleet.kind != UnitKind.FLEET or army.kind != UnitKind.ARMY
                or fleet.power != g.power):
            continue
        dest = o.dest.province
        if (ctx.geo.can_reach(UnitKind.ARMY, army.location, dest)
                or not ctx.geo.can_reach(UnitKind.FLEET, fleet.location, dest)):
            continue
        if ctx.geo.route_exists(army.province, dest, seas) and \
                not ctx.geo.route_exists(army.province, dest, [s for s in seas if s != fleet.province]):
            emu.skip.add(i)
    return [emu] if emu.skip else []


def _convoy_fleet_support(ctx: Context) -> list[Emulation]:
    """A convoyed army cuts a support given for, or against, a fleet on its only convoy route like
    any other support, unless that is a paradox (DATC 4.A.2, Szykman rule). The reference never lets
    the army cut such a support (the 2000 rule's exemption, widened to supports for the fleet). Where
    the support's strength could not change what happens to the fleet (it stays with or without it),
    only the support's own result differs, and it is not compared."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("4.A.2",))
    seas = _fleet_seas(ctx.board, ctx.geo)
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, (SupportHold, SupportMove)) or ctx.ours.results[i] != Result.FAILS:
            continue
        supporter = ctx.board.units.get(o.unit.where.province)
        into = o.target.where.province if isinstance(o, SupportHold) else o.dest.province
        fleet = ctx.board.units.get(into)
        if supporter is None or fleet is None or fleet.kind != UnitKind.FLEET or supporter.power != g.power:
            continue
        if fleet in ctx.ours.dislodged or supporter in ctx.ours.dislodged:
            continue
        if isinstance(o, SupportMove) and not _support_irrelevant(ctx, fleet, o.target.where.province, supporter):
            continue
        convoys = [h.order for h in ctx.given if isinstance(h.order, Convoy)
                   and h.order.unit.where.province == fleet.province]
        for j, h in enumerate(ctx.given):
            m = h.order
            if not isinstance(m, Move) or m.dest.province != supporter.province:
                continue
            army = ctx.board.units.get(m.unit.where.province)
            if army is None or army.power == supporter.power or not convoyed_move(ctx.board, ctx.given, j, ctx.geo):
                continue
            carried = any(c.target.where.province == army.province and c.dest.province == supporter.province
                          for c in convoys)
            # the other fleets ordered to convoy this army there (the reference looks at ordered routes)
            others = [h2.order.unit.where.province for h2 in ctx.given if isinstance(h2.order, Convoy)
                      and h2.order.target.where.province == army.province
                      and h2.order.dest.province == supporter.province
                      and h2.order.unit.where.province in seas and h2.order.unit.where.province != fleet.province]
            if carried and not ctx.geo.route_exists(army.province, supporter.province, others):
                emu.skip.add(i)
    return [emu] if emu.skip else []


def _support_irrelevant(ctx: Context, fleet: Unit, attacker_at: str, supporter: Unit) -> bool:
    """Whether one more support for the attack from ``attacker_at`` on ``fleet`` (which holds in our
    result) could still not dislodge it: the attacker is of the fleet's power, or even with the
    support the attack is no stronger than the fleet's hold."""
    attacker = ctx.board.units.get(attacker_at)
    if attacker is None:
        return True
    if attacker.power == fleet.power:
        return True
    if supporter.power == fleet.power:
        return True  # it could not count against its own power's fleet
    n = sum(1 for j in _supports_of(ctx, attacker, fleet.province) if ctx.ours.results[j] == Result.SUCCEEDS
            and ctx.given[j].power != fleet.power)
    hold = 1 + sum(1 for j, h in enumerate(ctx.given) if isinstance(h.order, SupportHold)
                   and h.order.target.where.province == fleet.province and ctx.ours.results[j] == Result.SUCCEEDS)
    return 1 + n + 1 <= hold


def _foreign_attack(ctx: Context, unit: Unit) -> bool:
    for g in ctx.given:
        o = g.order
        if isinstance(o, Move) and o.dest.province == unit.province:
            mover = ctx.board.units.get(o.unit.where.province)
            if mover is not None and mover.power == g.power and mover.power != unit.power:
                return True
    return False


def _supports_of(ctx: Context, mover: Unit, dest: str) -> list[int]:
    """Indices of support orders for ``mover``'s move into ``dest`` (written by the supporter's owner)."""
    out = []
    for i, g in enumerate(ctx.given):
        o = g.order
        if isinstance(o, SupportMove) and o.target.where.province == mover.province and o.dest.province == dest:
            supporter = ctx.board.units.get(o.unit.where.province)
            if supporter is not None and supporter.power == g.power:
                out.append(i)
    return out


def _via_convoy_attacks(ctx: Context):
    """(mover, victim, destination province) for every attack written ``via convoy`` by the mover's
    own power on a unit of another power."""
    for g in ctx.given:
        o = g.order
        if not isinstance(o, Move) or not o.via_convoy:
            continue
        mover = ctx.board.units.get(o.unit.where.province)
        victim = ctx.board.units.get(o.dest.province)
        if mover is None or victim is None or mover.power != g.power or victim.power == mover.power:
            continue
        yield mover, victim, o.dest.province


def _own_support_via_convoy(ctx: Context) -> list[Emulation]:
    """6.D.12 with ``via convoy``: the reference counts a support given by the attacked unit's own
    power to an attack written ``via convoy`` (it looks for the attacked unit under the word "VIA").
    Emulated by handing the attacked unit, for the phase, to a power with no unit on the board, so
    that its former power's support counts against it (and that power's attacks still cut only
    supports of others); the unit is handed back afterwards."""
    if ctx.phase != MOVEMENT:
        return []
    victims: set[Unit] = set()
    for mover, victim, dest in _via_convoy_attacks(ctx):
        if any(ctx.given[j].power == victim.power for j in _supports_of(ctx, mover, dest)):
            victims.add(victim)
    if not victims:
        return []
    swapped: dict[Unit, str] = {}
    for victim in sorted(victims, key=lambda u: u.location):
        spare = _bystander(ctx, victim, set(swapped.values())) if _swappable(ctx, victim) else None
        if spare is None:
            return _own_support_via_convoy_by_supporter(ctx)
        swapped[victim] = spare
    back = {Unit(u.kind, p, u.location): u for u, p in swapped.items()}
    before_centres = dict(ctx.board.centers)

    def swap(b: Board) -> Board:
        return replace(b, units=MappingProxyType({p: (Unit(u.kind, swapped[u], u.location) if u in swapped else u)
                                                  for p, u in b.units.items()}))

    def restore(res: PhaseResult, given: Sequence[GivenOrder]) -> PhaseResult:
        def fix(u: Unit) -> Unit:
            return back.get(u, u)
        after = res.after
        standing = {u.province: u for u in after.units if u in back}
        centres = {p: (back[standing[p]].power if p in standing and o == standing[p].power
                       and before_centres.get(p) != o else o) for p, o in after.centers.items()}
        after = replace(after, units=frozenset(fix(u) for u in after.units),
                        retreats=MappingProxyType({fix(u): o for u, o in after.retreats.items()}),
                        centers=MappingProxyType(centres))
        return replace(res, after=after, dislodged=frozenset(fix(u) for u in res.dislodged))

    emu = Emulation(("6.D.12",), board=swap, post=restore)
    for i, g in enumerate(ctx.given):
        unit = getattr(g.order, "unit", None)
        there = ctx.board.units.get(unit.where.province) if unit is not None else None
        if there in swapped and g.power == there.power:
            emu.replace[i] = GivenOrder(swapped[there], g.text, g.order)
    return [emu]


def _swappable(ctx: Context, unit: Unit) -> bool:
    """Handing ``unit`` to another power changes nothing but the supports against it when none of its
    orders concerns another unit of its power (a harmless move against one excepted, see
    ``_harmless_move``, and a support to hold: its strength counts whoever gives it, and whether it is
    cut depends on the power of the units attacking ``unit``, none of which is its own, below) and no
    unit of its power moves against it."""
    for g in ctx.given:
        o = g.order
        spec = getattr(o, "unit", None)
        if spec is None:
            continue
        if spec.where.province == unit.province and g.power == unit.power:
            if isinstance(o, SupportHold):
                continue
            for part in (getattr(o, "target", None), getattr(o, "dest", None)):
                where = getattr(part, "where", part)
                other = ctx.board.units.get(where.province) if where is not None else None
                if other is not None and other != unit and other.power == unit.power:
                    if not (isinstance(o, Move) and part is o.dest and _harmless_move(ctx, unit, other)):
                        return False
        elif isinstance(o, Move) and o.dest.province == unit.province:
            mover = ctx.board.units.get(spec.where.province)
            if mover is not None and mover.power == unit.power:
                return False
    return True


def _harmless_move(ctx: Context, unit: Unit, other: Unit) -> bool:
    """Whether ``unit``'s move against ``other`` (a unit of the same power) does the same whoever owns
    ``unit``: unsupported, it can never dislodge ``other`` (an attack of 1 never beats a hold of 1),
    and it cuts no support of ``other`` (``other`` supports nothing, or supports a move into
    ``unit``'s own province, which an attack from there never cuts)."""
    for g in ctx.given:
        o = g.order
        if isinstance(o, SupportMove) and o.target.where.province == unit.province and o.dest.province == other.province:
            return False
        spec = getattr(o, "unit", None)
        if spec is not None and spec.where.province == other.province and g.power == other.power:
            if isinstance(o, SupportHold) or (isinstance(o, SupportMove) and o.dest.province != unit.province):
                return False
    return True


def _bystander(ctx: Context, unit: Unit, taken: set[str]) -> str | None:
    """A power that can own ``unit`` for a phase without changing anything else: it has no unit and
    no centre, or none of its orders concerns the unit's province and none of the unit's orders
    concerns one of its units."""
    def provinces(o) -> set[str]:
        out = set()
        for part in ("unit", "target"):
            spec = getattr(o, part, None)
            if spec is not None:
                out.add(spec.where.province)
        dest = getattr(o, "dest", None)
        if dest is not None:
            out.add(dest.province)
        return out

    present = {u.power for u in ctx.board.units.values()} | set(ctx.board.centers.values())
    concerned = {g.power for g in ctx.given if g.order is not None and unit.province in provinces(g.order)}
    mine = set().union(*(provinces(g.order) for g in ctx.given if g.power == unit.power
                         and unit.province in provinces(g.order))) if ctx.given else set()
    touched = {ctx.board.units[p].power for p in mine if p in ctx.board.units}
    candidates = [p for p in ctx.map.powers if p not in present] + [p for p in ctx.map.powers if p in present]
    for p in candidates:
        if p in taken or p == unit.power or p in concerned or p in touched:
            continue
        return p
    return None


def _own_support_via_convoy_by_supporter(ctx: Context) -> list[Emulation]:
    """The same deviation when every power is on the board: the supporters are handed to the
    attacker's power instead (their own power's attacks then cut them, so this explains less)."""
    moved: dict[int, str] = {}
    for mover, victim, dest in _via_convoy_attacks(ctx):
        for j in _supports_of(ctx, mover, dest):
            if ctx.given[j].power == victim.power:
                moved[j] = mover.power
    if not moved:
        return []
    swapped = {ctx.board.units[ctx.given[j].order.unit.where.province]: power for j, power in moved.items()}
    back = {Unit(u.kind, p, u.location): u for u, p in swapped.items()}

    def swap(b: Board) -> Board:
        return replace(b, units=MappingProxyType({p: (Unit(u.kind, swapped[u], u.location) if u in swapped else u)
                                                  for p, u in b.units.items()}))

    def restore(res: PhaseResult, given: Sequence[GivenOrder]) -> PhaseResult:
        fix = lambda u: back.get(u, u)  # noqa: E731
        after = res.after
        after = replace(after, units=frozenset(fix(u) for u in after.units),
                        retreats=MappingProxyType({fix(u): o for u, o in after.retreats.items()}))
        return replace(res, after=after, dislodged=frozenset(fix(u) for u in res.dislodged))

    emu = Emulation(("6.D.12",), board=swap, post=restore)
    for j, power in moved.items():
        emu.replace[j] = GivenOrder(power, ctx.given[j].text, ctx.given[j].order)
    return [emu]


def _head_to_head_defence(ctx: Context) -> list[Emulation]:
    """6.E.12: a support of an attack on one's own unit still counts for the attacker's defence in a
    head-to-head battle; the reference leaves it out of the defence too. Emulated by dropping it."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("6.E.12",))
    moves = {}
    for i, g in enumerate(ctx.given):
        o = g.order
        if isinstance(o, Move) and not o.via_convoy:
            mover = ctx.board.units.get(o.unit.where.province)
            if mover is not None and mover.power == g.power and ctx.ours.results[i] != Result.INVALID:
                moves[mover.province] = (mover, o.dest.province)
    for prov, (mover, dest) in moves.items():
        other = moves.get(dest)
        if other is None or other[1] != prov:
            continue
        for j in _supports_of(ctx, mover, dest):
            if ctx.given[j].power == other[0].power:
                emu.replace[j] = _given(ctx.given[j].power, Hold(ctx.given[j].order.unit), ctx.map)
                emu.skip.add(j)
    return [emu] if emu.replace else []


def _convoying_fleets(ctx: Context):
    """(index, given order, convoy order, fleet) for every convoy order of a fleet our engine left in place."""
    for i, g in enumerate(ctx.given):
        o = g.order
        if not isinstance(o, Convoy):
            continue
        fleet = ctx.board.units.get(o.unit.where.province)
        if fleet is not None and fleet not in ctx.ours.dislodged:
            yield i, g, o, fleet


def _own_support_disrupts(ctx: Context) -> list[Emulation]:
    """6.D.12 for convoys: the reference lets an attack disrupt a convoy with supports that cannot
    count against the fleet (they come from the fleet's own power), though the fleet stays. Emulated
    by taking that fleet out of the convoy (it holds; its own result is not compared)."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("6.D.12",))
    for i, g, o, fleet in _convoying_fleets(ctx):
        if fleet.kind != UnitKind.FLEET or fleet.power != g.power:
            continue
        hold = 1 + sum(1 for j, h in enumerate(ctx.given) if isinstance(h.order, SupportHold)
                       and h.order.target.where.province == fleet.province and ctx.ours.results[j] == Result.SUCCEEDS)
        for k, h in enumerate(ctx.given):
            m = h.order
            mover = ctx.board.units.get(getattr(getattr(m, "unit", None), "where", Where("")).province)
            if not isinstance(m, Move) or m.dest.province != fleet.province or mover is None \
                    or mover.power != h.power or mover.power == fleet.power:
                continue
            supports = _supports_of(ctx, mover, fleet.province)
            # a support the army this fleet carries attacks is not cut there (4.A.2): it counts too
            exempt = [j for j in supports if ctx.ours.results[j] == Result.FAILS
                      and ctx.given[j].order.unit.where.province == o.dest.province]
            given_supports = [j for j in supports if ctx.ours.results[j] == Result.SUCCEEDS] + exempt
            own = [j for j in given_supports if ctx.given[j].power == fleet.power]
            if own and 1 + len(given_supports) > hold >= 1 + len(given_supports) - len(own):
                emu.replace[i] = _given(g.power, Hold(o.unit), ctx.map)
                emu.skip.add(i)
                emu.skip.update(exempt)
                if exempt:
                    emu.cases = ("4.A.2", "6.D.12")
    return [emu] if emu.replace else []


def _paradox_misread(ctx: Context) -> list[Emulation]:
    """4.A.2: the reference takes a convoy for a paradox, and breaks it, when the unit at the army's
    destination supports the convoying fleet and the fleet is attacked, although the fleet stays and
    nothing depends on the army. Emulated by taking that fleet out of the convoy (it holds; its own
    result is not compared)."""
    if ctx.phase != MOVEMENT:
        return []
    emu = Emulation(("4.A.2",))
    for i, g, o, fleet in _convoying_fleets(ctx):
        at_dest = ctx.board.units.get(o.dest.province)
        if at_dest is None or not _foreign_attack(ctx, fleet):
            continue
        if any(isinstance(h.order, SupportHold) and h.order.unit.where.province == at_dest.province
               and h.order.target.where.province == fleet.province and h.power == at_dest.power for h in ctx.given):
            emu.replace[i] = _given(g.power, Hold(o.unit), ctx.map)
            emu.skip.add(i)
    return [emu] if emu.replace else []


EMULATORS = (_support_coasts, _land_fallback, _convoy_retreats, _civil_disorder, _support_through_own_route,
             _convoy_fleet_support, _own_support_via_convoy, _head_to_head_defence, _own_support_disrupts,
             _paradox_misread)
