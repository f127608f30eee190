"""The orders a power could give in the next phase (``fivedp game possible``, ``api.legal_orders``).

Movement: candidate orders are generated around each unit — the provinces next to it and its own
province, on the boards one turn either side of its head in every timeline (the only boards an order
can reach, RULES.md §4), supports of the units that could move there, convoys along the fleets'
seas — and the legality rules of the movement program (``asp/legality.lp``) keep those that could
be valid (DATC 4.E.1). The candidates are bounded by the units' neighbourhoods; the multiverse is
never enumerated. Retreats come from the retreat program's options; adjustments from the adjustment
program's counts (builds in free home centres, disbands of the power's units, waives).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from . import terms as t
from .errors import InputError, NotationError, quoted
from .facts import board_facts, edge_facts, map_facts, order_facts
from .map import GameMap
from .multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, Multiverse, Unit, unit_text
from .notation import parse_unit
from .options import logic_files
from .orders import Place, ResolvedOrder
from .resolve import subject_place
from .results import Answer
from .solve import solve_decisions
from .step import adjustment_balances, next_phase, retreat_options


@dataclass(frozen=True)
class PossibleOrder:
    """One order that could be given: the power, the board and unit it is for, its kind and text
    (fully designated, ``A a-Mun@2 - b-Mun@2``)."""

    power: str
    board: str
    unit: str
    kind: str
    order: str


def _place(board: Board, unit: Unit) -> Place:
    prov, _, coast = unit.location.partition("/")
    return Place(board.timeline, board.turn, prov, coast or None)


def _at(board: Board, location: str) -> Place:
    prov, _, coast = location.partition("/")
    return Place(board.timeline, board.turn, prov, coast or None)


class _Candidates:
    """Candidate movement orders for some units, bounded by where the units can reach."""

    def __init__(self, mv: Multiverse):
        self.mv = mv
        self.m: GameMap = mv.game_map
        self.orders: list[ResolvedOrder] = []
        self._moves: dict[tuple, list[tuple[Board, str, bool]]] = {}
        self._movers: dict[tuple, list[tuple[Board, Unit, str | None]]] | None = None
        self._near: dict[tuple[int, int], list[Board]] = {}

    def near(self, board: Board) -> list[Board]:
        """Boards an order from ``board`` could reach: one turn either side, any timeline."""
        if board.key not in self._near:
            # keys first: a long game's past boards are read from its file only when near
            self._near[board.key] = [self.mv.boards[k] for k in self.mv.boards if abs(k[1] - board.turn) <= 1]
        return self._near[board.key]

    def steps(self, unit: Unit) -> list[str]:
        return list(self.m.neighbours.get((unit.kind, unit.location), ()))

    def reach(self, board: Board, unit: Unit) -> list[tuple[Board, str]]:
        """(board, location) pairs the unit could move to without a convoy."""
        out = []
        for b in self.near(board):
            for loc in self.steps(unit):
                out.append((b, loc))
            if b.key != board.key:
                out.append((b, unit.location))  # the same place on another board keeps the coast
        return out

    def convoy_region(self, board: Board, seas: Iterable[str]) -> set[str]:
        """The seas holding fleets on ``board`` connected to ``seas`` (a convoy chain can only run there)."""
        fleets = {p for p, u in board.units.items() if u.kind == "fleet" and self.m.provinces[p].is_sea}
        todo = [s for s in seas if s in fleets]
        region = set(todo)
        while todo:
            s = todo.pop()
            for loc in self.m.neighbours.get(("fleet", s), ()):
                p = self.m.province_of(loc)
                if p in fleets and p not in region:
                    region.add(p)
                    todo.append(p)
        return region

    def shore(self, seas: Iterable[str]) -> set[str]:
        """Coastal provinces next to these seas."""
        out = set()
        for s in seas:
            for loc in self.m.neighbours.get(("fleet", s), ()):
                p = self.m.province_of(loc)
                if self.m.provinces[p].is_coastal:
                    out.add(p)
        return out

    def shore_seas(self, province: str) -> set[str]:
        out = set()
        for kind_loc in self.m.locations(province, "fleet"):
            for loc in self.m.neighbours.get(("fleet", kind_loc), ()):
                p = self.m.province_of(loc)
                if self.m.provinces[p].is_sea:
                    out.add(p)
        return out

    def convoy_dests(self, board: Board, army_province: str) -> set[str]:
        if not self.m.provinces[army_province].is_coastal:
            return set()
        region = self.convoy_region(board, self.shore_seas(army_province))
        return self.shore(region) - {army_province}

    def movers(self) -> dict[tuple, list[tuple[Board, Unit, str | None]]]:
        """(board, province) -> the units that could move there (with the coast a fleet would take),
        over the boards within two turns of a head: the only moves a head unit could support. A unit
        on a past board gets no new order: the only move of it a support can match is its recorded one."""
        if self._movers is None:
            heads = {h.key for h in self.mv.heads}
            turns = {h.turn for h in self.mv.heads}
            index: dict[tuple, list[tuple[Board, Unit, str | None]]] = {}

            def put(key: tuple, entry: tuple) -> None:
                bucket = index.setdefault(key, [])
                if entry not in bucket:
                    bucket.append(entry)

            for key in self.mv.boards:
                if not any(abs(key[1] - n) <= 2 for n in turns):
                    continue
                xb = self.mv.boards[key]
                for x in xb.units.values():
                    if xb.key in heads:
                        for mb, mloc, _ in self.moves_of(xb, x):
                            coast = (mloc.partition("/")[2] or None) if x.kind == "fleet" else None
                            put((mb.key, self.m.province_of(mloc)), (xb, x, coast))
                        continue
                    r = xb.record.order_of(x.province) if xb.record else None
                    if r is not None and r.kind == "move" and r.dest.board in self.mv.boards:
                        put((r.dest.board, r.dest.province), (xb, x, r.dest.coast if x.kind == "fleet" else None))
            self._movers = index
        return self._movers

    def add(self, power: str, kind: str, unit: Place, unit_kind: str, **kw) -> None:
        self.orders.append(ResolvedOrder(power, "", None, kind, unit, unit_kind=unit_kind, **kw))

    def moves_of(self, board: Board, unit: Unit) -> list[tuple[Board, str, bool]]:
        """(board, destination location, via convoy) of every move worth asking about."""
        key = (board.key, unit.province)
        if key not in self._moves:
            self._moves[key] = self._moves_of(board, unit)
        return self._moves[key]

    def _moves_of(self, board: Board, unit: Unit) -> list[tuple[Board, str, bool]]:
        out = [(b, loc, False) for b, loc in self.reach(board, unit)]
        if unit.kind == "army":
            direct = {(b.key, self.m.province_of(loc)) for b, loc, _ in out}
            for b in self.near(board):
                for dest in sorted(self.convoy_dests(b, unit.province)):
                    out.append((b, dest, True))
                    if (b.key, dest) not in direct:
                        out.append((b, dest, False))
        return out

    def unit(self, board: Board, unit: Unit) -> None:
        me = _place(board, unit)
        self.add(unit.power, "hold", me, unit.kind)
        for b, loc, via in self.moves_of(board, unit):
            self.add(unit.power, "move", me, unit.kind, dest=_at(b, loc), via_convoy=via)
        supported: set[tuple] = set()
        for b, loc in self.reach(board, unit):
            prov = self.m.province_of(loc)
            there = b.units.get(prov)
            if there is not None and (b.key, prov) != board.key + (unit.province,):
                key = ("hold", b.key, prov)
                if key not in supported:
                    supported.add(key)
                    self.add(unit.power, "support_hold", me, unit.kind, target=_place(b, there))
            # moves of other units into (b, prov)
            for xb, x, coast in self.movers().get((b.key, prov), ()):
                if (xb.key, x.province) in ((board.key, unit.province), (b.key, prov)):
                    continue
                key = ("move", xb.key, x.province, b.key, prov, coast)
                if key in supported:
                    continue
                supported.add(key)
                self.add(unit.power, "support_move", me, unit.kind, target=_place(xb, x),
                         dest=Place(b.timeline, b.turn, prov, coast))
        if unit.kind == "fleet" and self.m.provinces[unit.province].is_sea:
            region = self.convoy_region(board, [unit.province])
            shore = self.shore(region)
            for xb in self.near(board):
                for x in xb.units.values():
                    if x.kind != "army" or x.province not in shore:
                        continue
                    for dest in sorted(shore - {x.province}):
                        self.add(unit.power, "convoy", me, unit.kind, target=_place(xb, x),
                                 dest=Place(board.timeline, board.turn, dest))


def _legal(mv: Multiverse, candidates: Sequence[ResolvedOrder]) -> list[ResolvedOrder]:
    """The candidates the movement program's legality rules accept (one unit's candidates conflict
    with each other by construction; that reason is not counted)."""
    if not candidates:
        return []
    orders = list(enumerate(candidates))
    keys = {h.key for h in mv.heads}
    for r in candidates:
        keys |= {p.board for p in (r.unit, r.target, r.dest) if p is not None and p.board in mv.boards}
    boards = [mv.boards[k] for k in sorted(keys)]
    lines = board_facts(mv, boards)
    lines += edge_facts(mv.game_map, ((u.kind, u.location) for b in boards for u in b.units.values()))
    lines += [f"head({t.board(*h.key)})." for h in mv.heads]
    # no new/1 facts: the candidates are all for head units (not_a_head cannot apply), and without
    # them one unit's many candidates are not compared pairwise for conflicting orders
    lines += order_facts(orders)
    programs = ["legality.lp", *logic_files(mv.options, "movement")]
    answer = Answer.of(solve_decisions(programs, "\n".join(lines) + "\n", map_facts(mv.game_map)).atoms)
    bad = {i for i, _, reason in (x.partition(",") for x in answer.texts.get("illegal", []))
           if reason != "conflicting_orders"}
    return [r for i, r in orders if str(i) not in bad]


def _unit_filter(mv: Multiverse, unit: str | None) -> tuple[int, int, str] | None:
    if unit is None:
        return None
    try:
        spec = parse_unit(unit, mv.game_map)
        place = subject_place(mv, spec.where, unit)
    except NotationError as exc:
        raise InputError(f"unit {quoted(unit)}: {exc.problem}") from None
    return place.timeline, place.turn, place.province


def legal_orders(mv: Multiverse, *, power: str | None = None, unit: str | None = None) -> tuple[PossibleOrder, ...]:
    """Every order the next phase accepts from ``power`` (all powers when None) for ``unit`` (a unit
    as written, ``A b-Mun``; all units when None), in a stable order."""
    from .game import resolved_text

    m = mv.game_map
    if power is not None:
        known = m.power(power)
        if known is None:
            raise InputError(f"unknown power {quoted(power)} (powers: {', '.join(m.powers)})")
        power = known
    only = _unit_filter(mv, unit)
    phase = next_phase(mv)
    acting = [b for b in mv.heads if b.phase == phase]
    out: list[PossibleOrder] = []

    def wanted(board: Board, u: Unit) -> bool:
        return (power is None or u.power == power) and (only is None or only == (board.timeline, board.turn, u.province))

    if phase == MOVEMENT:
        cands = _Candidates(mv)
        for b in acting:
            for u in sorted(b.units.values(), key=lambda u: u.location):
                if wanted(b, u):
                    cands.unit(b, u)
        by_place = {(b.timeline, b.turn, p): (b, u) for b in acting for p, u in b.units.items()}
        for r in _legal(mv, cands.orders):
            b, u = by_place[(r.unit.timeline, r.unit.turn, r.unit.province)]
            out.append(PossibleOrder(r.power, b.name, unit_text(u, m), r.kind, resolved_text(r, m)))
    elif phase == RETREAT:
        options = retreat_options(mv)
        for b in acting:
            for rt in b.retreats:
                u = rt.unit
                if not wanted(b, u):
                    continue
                me = _place(b, u)
                for prov in options.get((b.timeline, b.turn, u.province), ()):
                    locs = [loc for loc in m.neighbours.get((u.kind, u.location), ()) if m.province_of(loc) == prov]
                    for loc in locs:
                        coast = loc.partition("/")[2] or None if len(locs) > 1 else None
                        r = ResolvedOrder(u.power, "", None, "move", me, dest=Place(b.timeline, b.turn, prov, coast),
                                          unit_kind=u.kind)
                        out.append(PossibleOrder(u.power, b.name, unit_text(u, m), "retreat", resolved_text(r, m)))
                r = ResolvedOrder(u.power, "", None, "disband", me, unit_kind=u.kind)
                out.append(PossibleOrder(u.power, b.name, unit_text(u, m), "disband", resolved_text(r, m)))
    elif phase == ADJUSTMENT:
        balances = adjustment_balances(mv)
        for b in acting:
            for (key, who), n in sorted(balances.items()):
                if key != b.key or (power is not None and who != power):
                    continue
                if n > 0 and only is None:
                    for home in m.home_centers(who):
                        if b.centers.get(home) != who or home in b.units:
                            continue
                        for kind in ("army", "fleet"):
                            for loc in m.locations(home, kind):
                                r = ResolvedOrder(who, "", None, "build", _at(b, loc), unit_kind=kind)
                                out.append(PossibleOrder(who, b.name, "", "build", resolved_text(r, m)))
                    out.append(PossibleOrder(who, b.name, "", "waive", "Waive"))
                elif n < 0:
                    for u in sorted(b.units.values(), key=lambda u: u.location):
                        if u.power == who and wanted(b, u):
                            r = ResolvedOrder(who, "", None, "disband", _place(b, u), unit_kind=u.kind)
                            out.append(PossibleOrder(who, b.name, unit_text(u, m), "disband", resolved_text(r, m)))
    kinds = ("hold", "move", "support_hold", "support_move", "convoy", "retreat", "disband", "build", "waive")
    rank = {k: i for i, k in enumerate(kinds)}
    seen: set[tuple[str, str]] = set()
    unique = []
    for p in out:
        if (p.power, p.order) not in seen:
            seen.add((p.power, p.order))
            unique.append(p)
    return tuple(sorted(unique, key=lambda p: (p.power, p.board, p.unit, rank.get(p.kind, len(kinds)), p.order)))
