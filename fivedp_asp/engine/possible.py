"""The orders a power could give in the next phase (``fivedp game possible``, ``api.legal_orders``).

Movement: candidate orders are generated around each unit and then judged by the engine's own
legality — the same Python checks of the written text (``written.refuse_written``) and the same
legality rules of the movement program (``asp/legality.lp`` includes ``asp/movement/legality.lp``;
the movement program's option files load with it), on the same kind of facts a step writes (every
candidate a new order, ``new/1``; the heads; dissolved timelines). So a listed order is never
refused when submitted alone. What is left out is only what judges one order in the light of the
unit's other orders (DATC 4.D.3: ``conflicting_orders``, ``superseded``, and the 4.E.1 option's
conflicts), since every candidate of a unit is checked at once.

The candidates are a superset of the legal orders, bounded by what an order can reach: the boards
adjacent to the unit's head as the rules define adjacency (asked of the same program,
``board_adj/2``), the provinces next to the unit and its own province, supports of the moves other
units could make there, convoys along the fleets' seas. A filter on the kind of order or its
destination board is applied before candidates are made, so the work follows what is printed.

Left out on purpose, though the rules accept them (docs/game-format.md): supports and convoys that
can never match, because they name a unit on a past board doing something other than what its
board's record says it did (it gets no new order: its recorded order is what it does whenever its
board is fought again, docs/rules.md §6.4) — a support to hold of a unit whose recorded order was a
move, a support or convoy of a move it did not make, a support of a journey into a board that was
already past (it never joins that board's battle again); a fleet's move written without its coast
when it reaches one coast only, or written ``via convoy`` (the same order as the one listed); jumps
(option ``jump_assists``: a jump needs assist orders, so it is never legal alone) and jump assists of
units on past boards or of moves to places the assisted unit could not reach in space.

Retreats come from the retreat program's options; adjustments from the adjustment program's counts
(builds in free home centres, disbands of the power's units, waives).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..model.kinds import UnitKind
from ..model import orders as o
from ..solver.predicates import render
from ..solver.terms import Fact, OrderIds, Timeline
from ..errors import InputError, NotationError, UsageError, quoted
from . import collector
from .facts import asked_edge_facts, board_facts, map_facts, order_facts
from .guards import across_facts, doubtful_unit_facts, own_rules
from ..model.map import GameMap
from ..model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, Multiverse, Unit, board_name, unit_text
from ..model.notation import format_order, parse_unit, timeline_name
from ..model.orders import Place, ResolvedOrder, OrderKind
from .resolve import subject_place
from .answer import Answer
from ..solver.driver import solve_decisions
from .adjustment import adjustment_balances
from .retreat import retreat_options
from .step import next_phase
from .written import refuse_written

#: every kind of order listed, in the order they are printed for a unit
KINDS = (OrderKind.HOLD, OrderKind.MOVE, OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.CONVOY,
         OrderKind.OPEN_CONVOY, OrderKind.JUMP_ASSIST, OrderKind.RETREAT, OrderKind.DISBAND, OrderKind.BUILD,
         OrderKind.WAIVE)
#: names a filter may use besides the kinds themselves
KIND_GROUPS = {"support": (OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE)}
#: the kinds that have a destination board (what ``to`` filters on)
_AIMED = (OrderKind.MOVE, OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.CONVOY, OrderKind.JUMP_ASSIST,
          OrderKind.RETREAT)
# option files that judge one order against the unit's other orders (DATC 4.D.3, 4.E.1): every
# candidate of a unit is checked at once, so they would compare candidates with each other
_PAIRWISE = ("options/datc_4d3_", "options/datc_4e1_")


@dataclass(frozen=True)
class PossibleOrder:
    """One order that could be given: the power, the board and unit it is for, its kind and text
    (fully designated, ``A a-Mun@2 - b-Mun@2``); ``to`` names the board its destination is on (the
    supported unit's for a support to hold: what the ``to`` filter compares), None for orders without
    one (holds, open convoys, disbands, builds, waives)."""

    power: str
    board: str
    unit: str
    kind: str
    order: str
    to: str | None = None


@dataclass(frozen=True)
class UnitSummary:
    """The orders listed for one unit, counted (for a power's builds and waives on a board, ``unit`` is
    empty): what a long list comes down to, with what narrows it — the unit as the ``unit`` filter
    reads it (``F a-Lon@5``), the kinds (``kind``) and the boards the orders reach (``to``)."""

    power: str
    board: str
    unit: str
    counts: tuple[tuple[str, int], ...]  # (kind, how many) in the order of KINDS
    boards: tuple[str, ...]  # sorted by (timeline, turn)


def summarise(mv: Multiverse, orders: Iterable[PossibleOrder]) -> tuple[UnitSummary, ...]:
    """The orders (``legal_orders``) counted per power, board and unit, in the order listed: a list of
    tens of thousands of orders is read as a few lines a unit, each naming the filters to narrow it."""
    groups: dict[tuple[str, str, str], tuple[dict[str, int], set[str]]] = {}
    for p in orders:
        counts, boards = groups.setdefault((p.power, p.board, p.unit), ({}, set()))
        counts[p.kind] = counts.get(p.kind, 0) + 1
        if p.to is not None:
            boards.add(p.to)
    rank = {k: i for i, k in enumerate(KINDS)}
    keys: dict[str, tuple[int, int]] = {}

    def key_of(name: str) -> tuple[int, int]:
        if name not in keys:
            found = mv.find_board(name)
            keys[name] = found.key if found is not None else (-1, -1)
        return keys[name]

    out = []
    for (power, board, unit), (counts, boards) in groups.items():
        written = ""
        if unit:
            letter, _, where = unit.partition(" ")
            timeline, turn = key_of(board)
            written = f"{letter} {timeline_name(timeline)}-{where}@{turn}"
        out.append(UnitSummary(power, board, written,
                               tuple(sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(KINDS)))),
                               tuple(sorted(boards, key=key_of))))
    return tuple(out)


def _place(board: Board, unit: Unit) -> Place:
    prov, _, coast = unit.location.partition("/")
    return Place(board.timeline, board.turn, prov, coast or None)


def _at(board: Board, location: str) -> Place:
    prov, _, coast = location.partition("/")
    return Place(board.timeline, board.turn, prov, coast or None)


def _where(p: Place) -> o.Where:
    return o.Where(p.province, p.coast, p.timeline, p.turn)


def _programs(mv: Multiverse) -> list[str]:
    """The legality program with the movement program's option files, as a step loads them."""
    return ["legality.lp", *(f for f in mv.options.files("movement") if not f.startswith(_PAIRWISE))]


def kinds_of(kind: str | Iterable[str] | None) -> frozenset[str] | None:
    """The kinds a filter names (``move``, ``support``, ``support_move``, ...); InputError for others."""
    if kind is None:
        return None
    names = [kind] if isinstance(kind, str) else list(kind)
    out: set[str] = set()
    for name in names:
        key = str(name).strip().lower().replace("-", "_")
        if key in KIND_GROUPS:
            out.update(KIND_GROUPS[key])
        elif key in KINDS:
            out.add(key)
        else:
            known = ", ".join(list(KINDS) + list(KIND_GROUPS))
            raise InputError(f"unknown kind of order {str(name)[:40]!r} (kinds: {known})")
    return frozenset(out)


def _to_board(mv: Multiverse, to: str | None) -> tuple[int, int] | None:
    if to is None:
        return None
    found = mv.find_board(str(to).strip())
    if found is None:
        raise InputError(f"no board {str(to)[:40]!r} in this game (a board is named like a3 or b1@3)")
    return found.key


class _Space:
    """What candidate generation needs to know about the multiverse, computed once and on demand:
    which boards each head may act on (the rules' ``board_adj/2``), which provinces an army could be
    convoyed between on a board, which units on past boards have recorded moves where."""

    def __init__(self, mv: Multiverse):
        self.mv = mv
        self.m: GameMap = mv.game_map
        self.heads = {h.key: h for h in mv.heads}
        self._adjacent: dict[tuple[int, int], list[Board]] | None = None
        self._partners: dict[tuple[int, int], dict[str, frozenset[str]]] = {}
        self._recorded: dict[tuple, list[tuple[Board, Unit, str | None]]] | None = None
        self._movers: dict[tuple, list[tuple[Board, Unit, str | None]]] = {}
        self._into: dict[tuple[int, int], dict[str, list[tuple[Unit, str | None]]]] = {}
        self._near: dict[tuple[int, int], list[Board]] = {}
        self._orders: dict[tuple[int, int], dict[str, ResolvedOrder]] = {}

    def prepare(self) -> None:
        """What every question of a movement phase reads worked out now: the boards each head may act
        on (one solver call over every head) and the index of the moves recorded on past boards."""
        if self._adjacent is None:
            self._adjacent = self._board_adjacency()
        if self._recorded is None:
            self._recorded = self._recorded_moves()

    # -- boards ---------------------------------------------------------------------------------

    def adjacent(self, head: tuple[int, int]) -> list[Board]:
        """The boards a unit on this head may act on (itself included), as the rules define adjacency."""
        if self._adjacent is None:
            self._adjacent = self._board_adjacency()
        return self._adjacent.get(head, [])

    def _board_adjacency(self) -> dict[tuple[int, int], list[Board]]:
        """Asks the legality program itself (``board_adj/2`` of ``asp/movement/boards.lp`` with the
        adjacency option) about every board within one turn of a head."""
        turns = {k[1] for k in self.heads}
        near = [k for k in self.mv.boards if any(abs(k[1] - n) <= 1 for n in turns)]
        pairs = [(h, k) for h in self.heads for k in near if abs(k[1] - h[1]) <= 1]
        facts: list[Fact] = [("board", k) for k in near]
        facts += [("fork", Timeline(c), Timeline(p), n) for c, (p, n) in sorted(self.mv.forks.items())]
        facts += [("board_pair", h, k) for h, k in pairs]
        if any(h != k for h, k in pairs):
            facts.append(("across_boards",))  # the rules that relate two boards (boards.lp) are wanted
        answer = Answer.of(solve_decisions(_programs(self.mv), render(facts) + "#show board_adj/2.\n").atoms)
        out: dict[tuple[int, int], list[Board]] = {h: [] for h in self.heads}
        for h, k in answer.values("board_adj"):
            if h in out:
                out[h].append(self.mv.boards[k])
        for h in out:
            out[h].sort(key=lambda b: b.key)
        return out

    def heads_near(self, key: tuple[int, int]) -> list[Board]:
        """The heads whose units may act on board ``key``."""
        if key not in self._near:
            self._near[key] = [self.heads[h] for h in self.heads if any(b.key == key for b in self.adjacent(h))]
        return self._near[key]

    # -- geography ------------------------------------------------------------------------------

    def steps(self, unit: Unit) -> tuple[str, ...]:
        return self.m.neighbours.get((unit.kind, unit.location), ())

    def partners(self, board: Board, province: str) -> frozenset[str]:
        """The coastal provinces an army in ``province`` could be convoyed to on ``board``: those on
        the shore of a chain of seas held by fleets there that also touches ``province``."""
        if board.key not in self._partners:
            fleets = self._fleet_seas(board)
            shore_of: dict[str, set[str]] = {}
            seen: set[str] = set()
            for start in sorted(fleets):
                if start in seen:
                    continue
                region = self.chain(board, start)
                seen |= region
                shore = self.shore(region)
                for p in shore:
                    shore_of.setdefault(p, set()).update(shore)
            self._partners[board.key] = {p: frozenset(v - {p}) for p, v in shore_of.items()}
        return self._partners[board.key].get(province, frozenset())

    def _fleet_seas(self, board: Board) -> set[str]:
        return {p for p, u in board.units.items() if u.kind == UnitKind.FLEET and self.m.provinces[p].is_sea}

    def chain(self, board: Board, sea: str) -> set[str]:
        """The seas linked to ``sea`` through seas held by fleets on ``board`` (``sea`` included): the
        only seas a convoy route through ``sea`` can use."""
        return self.m.sea_region({sea}, self._fleet_seas(board))

    def shore(self, seas: Iterable[str]) -> set[str]:
        """The coastal provinces next to these seas."""
        return self.m.shore(seas)

    def movers(self, b: Board, prov: str) -> list[tuple[Board, Unit, str | None]]:
        """Units that could move into ``prov`` on board ``b`` (with the coast a fleet would take): units
        on the heads that may act on ``b``, and units on past boards whose recorded move went there."""
        key = (b.key, prov)
        if key not in self._movers:
            out = []
            for h in self.heads_near(b.key):
                for x, coast in self._steps_into(h).get(prov, ()):
                    out.append((h, x, coast))
                x = h.units.get(prov)
                if x is not None and h.key != b.key:
                    out.append((h, x, (x.location.partition("/")[2] or None) if x.kind == UnitKind.FLEET else None))
                for p in sorted(self.partners(b, prov)):
                    x = h.units.get(p)
                    if x is not None and x.kind == UnitKind.ARMY:
                        out.append((h, x, None))
            self._movers[key] = out + self.recorded_into(b.key, prov)
        return self._movers[key]

    def _steps_into(self, head: Board) -> dict[str, list[tuple[Unit, str | None]]]:
        """Province -> the units of ``head`` that could step into it (with a fleet's arrival coast)."""
        if head.key not in self._into:
            index: dict[str, list[tuple[Unit, str | None]]] = {}
            for x in sorted(head.units.values(), key=lambda u: u.location):
                for loc in self.steps(x):
                    coast = (loc.partition("/")[2] or None) if x.kind == UnitKind.FLEET else None
                    index.setdefault(self.m.province_of(loc), []).append((x, coast))
            self._into[head.key] = index
        return self._into[head.key]

    def recorded_into(self, key: tuple[int, int], province: str) -> list[tuple[Board, Unit, str | None]]:
        """Units on past boards whose recorded move went into ``province`` on board ``key`` (with the
        coast a fleet arrived at) and took part in that board's battle: the only moves of theirs a new
        support can match. A journey into a board that was already past when it was made is left out:
        it never joins that board's battle again (docs/rules.md §6.4), so no support of it matches."""
        if self._recorded is None:
            self._recorded = self._recorded_moves()
        return self._recorded.get((key, province), [])

    def _recorded_moves(self) -> dict[tuple, list[tuple[Board, Unit, str | None]]]:
        """(board, province) -> the units on past boards within two turns of a head whose recorded
        move went there and took part in that board's battle (``recorded_into``)."""
        turns = {k[1] for k in self.heads}
        index: dict[tuple, list[tuple[Board, Unit, str | None]]] = {}
        for k in self.mv.boards:
            if k in self.heads or not any(abs(k[1] - n) <= 2 for n in turns):
                continue
            xb = self.mv.boards[k]
            for r in xb.record.orders if xb.record else ():
                x = xb.units.get(r.unit.province)
                if x is None or r.kind is not OrderKind.MOVE or r.dest.board not in self.mv.boards or self.journey(r):
                    continue
                coast = r.dest.coast if x.kind == UnitKind.FLEET else None
                index.setdefault((r.dest.board, r.dest.province), []).append((xb, x, coast))
        return index

    def journey(self, r: ResolvedOrder) -> bool:
        """Whether a recorded move went into another board without being part of that board's battle
        (its unit is not among the units the destination's record names: ``engine/facts.py``,
        ``movement_facts``, reads a record the same way)."""
        if r.dest.board == r.unit.board:
            return False
        dest = self.mv.boards.get(r.dest.board)
        place = (r.unit.timeline, r.unit.turn, r.unit.province)
        return dest is None or dest.record is None or place not in dest.record.incoming

    def recorded_order(self, board: Board, province: str) -> ResolvedOrder | None:
        """The recorded order of the unit in ``province`` on a past board (None: it had none, or an
        illegal one, and held). A past unit gets no new order, so this is what it does whenever its
        board is fought again, and what a new support or convoy of it must match."""
        if board.key not in self._orders:
            self._orders[board.key] = {r.unit.province: r for r in board.record.orders
                                       if r.unit is not None} if board.record else {}
        return self._orders[board.key].get(province)

    def holds(self, board: Board, province: str) -> bool:
        """Whether the unit in ``province`` on ``board`` can be supported to hold: any unit on a head (its
        order is still to be given), a unit on a past board whose recorded order was not a move."""
        if board.key in self.heads:
            return True
        r = self.recorded_order(board, province)
        return r is None or r.kind is not OrderKind.MOVE


class _Candidates:
    """Candidate movement orders for some units: a superset of the legal ones, made only for the
    kinds and destination board asked for."""

    def __init__(self, space: _Space, kinds: frozenset[str], to: tuple[int, int] | None):
        self.space = space
        self.mv = space.mv
        self.m = space.m
        self.kinds = kinds
        self.to = to
        self.orders: list[ResolvedOrder] = []
        self.nationality = self.mv.options.chosen("datc_4c5") == "invalid"

    def _boards(self, head: Board) -> list[Board]:
        boards = self.space.adjacent(head.key)
        return [b for b in boards if b.key == self.to] if self.to is not None else boards

    def add(self, kind: str, unit: Unit, me: Place, order: o.Order, **kw) -> None:
        self.orders.append(ResolvedOrder(unit.power, "", order, kind, me, unit_kind=unit.kind, **kw))

    def _spec(self, p: Place, power: str | None = None) -> o.UnitSpec:
        return o.UnitSpec(_where(p), None, power)

    def _target_power(self, mine: Unit, other: Unit) -> str | None:
        # with datc_4c5 invalid, a support or convoy of another power's unit must name its nationality
        return other.power if self.nationality and other.power != mine.power else None

    def moves(self, head: Board, unit: Unit) -> list[tuple[Board, str, bool]]:
        """(board, destination location, via convoy) of every move worth asking about."""
        out = []
        for b in self._boards(head):
            out += [(b, loc, False) for loc in self.space.steps(unit)]
            if b.key != head.key:
                out.append((b, unit.location, False))  # the same place on another board keeps the coast
            if unit.kind == UnitKind.ARMY:
                direct = {self.m.province_of(loc) for loc in self.space.steps(unit)}
                if b.key != head.key:
                    direct.add(unit.province)
                for dest in sorted(self.space.partners(b, unit.province)):
                    out.append((b, dest, True))
                    if dest not in direct:
                        out.append((b, dest, False))
        return out

    def unit(self, head: Board, unit: Unit) -> None:
        me = _place(head, unit)
        spec = o.UnitSpec(_where(me), unit.kind)
        want = self.kinds.__contains__
        if want(OrderKind.HOLD) and self.to is None:
            self.add(OrderKind.HOLD, unit, me, o.Hold(spec))
        if want(OrderKind.OPEN_CONVOY) and self.to is None and unit.kind == UnitKind.FLEET:
            self.add(OrderKind.OPEN_CONVOY, unit, me, o.OpenConvoy(spec))
        if want(OrderKind.MOVE):
            for b, loc, via in self.moves(head, unit):
                dest = _at(b, loc)
                self.add(OrderKind.MOVE, unit, me, o.Move(spec, _where(dest), via), dest=dest, via_convoy=via)
        if want(OrderKind.SUPPORT_HOLD) or want(OrderKind.SUPPORT_MOVE) or want(OrderKind.JUMP_ASSIST):
            self._supports(head, unit, me, spec)
        if want(OrderKind.CONVOY) and unit.kind == UnitKind.FLEET and self.m.provinces[unit.province].is_sea:
            self._convoys(head, unit, me, spec)

    def _reach(self, head: Board, unit: Unit) -> list[tuple[Board, str]]:
        """(board, province) the unit could step into without a convoy, on any board it may act on."""
        provinces = {self.m.province_of(loc) for loc in self.space.steps(unit)}
        out = []
        for b in self.space.adjacent(head.key):
            out += [(b, p) for p in sorted(provinces)]
            if b.key != head.key:
                out.append((b, unit.province))
        return out

    def _supports(self, head: Board, unit: Unit, me: Place, spec: o.UnitSpec) -> None:
        seen: set[tuple] = set()
        for b, prov in self._reach(head, unit):
            there = b.units.get(prov)
            if there is not None and (b.key, prov) != (head.key, unit.province):
                if OrderKind.SUPPORT_HOLD in self.kinds and (self.to is None or self.to == b.key) and self.space.holds(b, prov):
                    target = _place(b, there)
                    self.add(OrderKind.SUPPORT_HOLD, unit, me,
                             o.SupportHold(spec, self._spec(target, self._target_power(unit, there))), target=target)
                if OrderKind.JUMP_ASSIST in self.kinds and b.key in self.space.heads:
                    self._assists(unit, me, spec, b, there)
            if OrderKind.SUPPORT_MOVE not in self.kinds or (self.to is not None and self.to != b.key):
                continue
            for xb, x, coast in self.space.movers(b, prov):
                if (xb.key, x.province) in ((head.key, unit.province), (b.key, prov)):
                    continue
                key = (xb.key, x.province, b.key, prov, coast)
                if key in seen:
                    continue
                seen.add(key)
                target, dest = _place(xb, x), Place(b.timeline, b.turn, prov, coast)
                self.add(OrderKind.SUPPORT_MOVE, unit, me,
                         o.SupportMove(spec, self._spec(target, self._target_power(unit, x)), _where(dest)),
                         target=target, dest=dest)

    def _assists(self, unit: Unit, me: Place, spec: o.UnitSpec, b: Board, there: Unit) -> None:
        """Jump assists of the unit ``there`` on head ``b``: its moves in space (a neighbour or its own
        place) to every board that is not adjacent to ``b`` (a jump, docs/rules.md §6.8.2)."""
        near = {k.key for k in self.space.adjacent(b.key)}
        places = sorted({there.location, *self.space.steps(there)})
        target = _place(b, there)
        for key in sorted(self.mv.boards):
            if key in near or (self.to is not None and key != self.to):
                continue
            board = self.mv.boards[key]
            for loc in places:
                dest = _at(board, loc)
                self.add(OrderKind.JUMP_ASSIST, unit, me, o.JumpAssist(spec, self._spec(target), _where(dest)),
                         target=target, dest=dest)

    def _convoys(self, head: Board, unit: Unit, me: Place, spec: o.UnitSpec) -> None:
        if self.to is not None and self.to != head.key:
            return  # a convoy's destination is on the fleet's own board
        # the shore of the fleet's own chain of seas
        shore = self.space.shore(self.space.chain(head, unit.province))
        for xb in self.space.adjacent(head.key):
            for x in sorted(xb.units.values(), key=lambda u: u.location):
                if x.kind != UnitKind.ARMY or x.province not in shore:
                    continue
                target = _place(xb, x)
                dests = shore - {x.province}
                if xb.key not in self.space.heads:
                    # an army on a past board gets no new order: only the move it made can be convoyed
                    r = self.space.recorded_order(xb, x.province)
                    made = r is not None and r.kind is OrderKind.MOVE and r.dest.board == head.key
                    dests = dests & {r.dest.province} if made else set()
                for dest in sorted(dests):
                    d = Place(head.timeline, head.turn, dest)
                    self.add(OrderKind.CONVOY, unit, me, o.Convoy(spec, self._spec(target, self._target_power(unit, x)),
                                                           _where(d)), target=target, dest=d)


def _legal(mv: Multiverse, candidates: Sequence[ResolvedOrder]) -> list[ResolvedOrder]:
    """The candidates the engine accepts: the written text's readings (``written.refuse_written``), then
    the movement program's legality rules on facts written as a step writes them, every candidate a
    new order."""
    if not candidates:
        return []
    # each candidate is read as a line written alone (readings such as valid_unless_other compare a
    # line with the unit's other lines; a player choosing from the list writes one)
    orders = [(i, r) for i, c in enumerate(candidates) for _, r in refuse_written(mv, [(i, c)])
              if r.kind is not OrderKind.UNPLACED]
    if not orders:
        return []
    heads = {h.key for h in mv.heads}
    keys: set[tuple[int, int]] = set()
    for _, r in orders:
        keys |= {p.board for p in (r.unit, r.target, r.dest) if p is not None and p.board in mv.boards}
    boards = [mv.boards[k] for k in sorted(keys)]
    facts = board_facts(mv, boards)
    own = own_rules(mv)
    facts += asked_edge_facts(mv, boards, (r for _, r in orders), own)
    facts += [("head", k) for k in sorted(heads)]
    facts += [("past_board", k) for k in sorted(keys - heads)]
    facts += [("dissolved", Timeline(tl)) for tl in sorted(mv.dissolved)]
    facts += order_facts(orders)
    facts += doubtful_unit_facts(mv.game_map, boards, orders, own)
    facts += across_facts((r for _, r in orders), own)
    facts.append(("new", OrderIds(0, len(candidates) - 1)))
    # one unit's many candidates are not one another's rivals (DATC 4.D.3 is about orders given together)
    facts.append(("one_of_several_orders",))
    atoms = solve_decisions(_programs(mv), render(facts), map_facts(mv.game_map),
                            names=frozenset(f[0] for f in facts)).atoms
    # read as text (Answer: two calls into clingo an atom, where its name and arguments cost four or
    # more): a big game's listing reads tens of thousands of them
    legal = {i for (i,) in Answer.of(atoms).values("legal")}
    return [r for i, r in orders if i in legal]


def _unit_filter(mv: Multiverse, unit: str | None) -> tuple[int, int, str] | None:
    if unit is None:
        return None
    try:
        spec = parse_unit(unit, mv.game_map)
        place = subject_place(mv, spec.where, unit)
    except NotationError as exc:
        raise InputError(f"unit {quoted(unit)}: {exc.problem}") from None
    return place.timeline, place.turn, place.province


def legal_orders(mv: Multiverse, *, power: str | None = None, unit: str | None = None,
                 kind: str | Iterable[str] | None = None, to: str | None = None) -> tuple[PossibleOrder, ...]:
    """Every order the next phase accepts from ``power`` (all powers when None) for ``unit`` (a unit
    as written, ``A b-Mun``; all units when None), in a stable order. ``kind`` keeps only orders of
    these kinds (``KINDS``, or ``support`` for both supports); ``to`` only orders whose destination is
    on that board (moves, retreats, supports, convoys, jump assists). Filtered-out orders are never
    made, so a narrow question is answered quickly. Python's cycle collector is held off meanwhile
    (``collector.paused``): a listing makes many objects and no reference cycles, and the collector
    would walk them again and again (docs/benchmarks.md)."""
    return LegalOrders(mv)(power=power, unit=unit, kind=kind, to=to)


ANSWERS_KEPT = 256  # the questions whose answers a LegalOrders keeps (a unit's orders, one power's, ...)


class LegalOrders:
    """``legal_orders`` of one multiverse, asked many times (a server's table asks unit by unit): what
    every question of a movement phase shares, which boards each head may act on (a solver call over
    every head) and the moves recorded on past boards, is worked out once, at the first question or
    beforehand (``prepare``). Questions may come from several threads: one works the shared part out,
    the others wait for it."""

    def __init__(self, mv: Multiverse):
        if not isinstance(mv, Multiverse):
            raise UsageError(f"LegalOrders needs a Multiverse, not {type(mv).__name__}")
        self.mv = mv
        self._space: _Space | None = None
        self._lock = threading.Lock()  # held while the shared part is worked out
        # the answers given, by question: a player's page asks again for a unit it listed before
        self._answers: dict[tuple, tuple[PossibleOrder, ...]] = {}

    def prepare(self) -> None:
        """Works out what the questions of a movement phase share, if not done yet: a server does it
        when a player first looks at a phase, so that the player's first question does not pay for
        it (in a 311-board game about 300 ms of the first unit's 400)."""
        self._prepared()

    def _prepared(self) -> _Space:
        with self._lock:
            if self._space is None:
                space = _Space(self.mv)
                if next_phase(self.mv) == MOVEMENT and self.mv.heads:
                    with collector.paused():
                        space.prepare()
                self._space = space
            return self._space

    def __call__(self, *, power: str | None = None, unit: str | None = None, kind: str | Iterable[str] | None = None,
                 to: str | None = None) -> tuple[PossibleOrder, ...]:
        """As ``legal_orders(mv, ...)``; a question asked before is answered as it was then."""
        question = (power, unit, kind if kind is None or isinstance(kind, str) else tuple(kind), to)
        known = self._answers.get(question)
        if known is not None:
            return known
        space = self._prepared()
        with collector.paused():
            found = _listed(self.mv, space, power=power, unit=unit, kind=kind, to=to)
        if len(self._answers) >= ANSWERS_KEPT:
            self._answers.pop(next(iter(self._answers)))
        self._answers[question] = found
        return found


def _listed(mv: Multiverse, space: _Space, *, power: str | None, unit: str | None,
            kind: str | Iterable[str] | None, to: str | None) -> tuple[PossibleOrder, ...]:
    from .resolve import resolved_text

    m = mv.game_map
    if power is not None:
        known = m.power(power)
        if known is None:
            raise InputError(f"unknown power {quoted(power)} (powers: {', '.join(m.powers)})")
        power = known
    kinds = kinds_of(kind)
    if kinds is None:
        kinds = frozenset(KINDS)
    target = _to_board(mv, to)
    if target is not None:
        kinds = kinds & frozenset(_AIMED)
    if not mv.options.chosen("open_convoys"):
        kinds -= {OrderKind.OPEN_CONVOY}
    if not mv.options.chosen("jump_assists"):
        kinds -= {OrderKind.JUMP_ASSIST}
    only = _unit_filter(mv, unit)
    phase = next_phase(mv)
    acting = [b for b in mv.heads if b.phase == phase]
    out: list[PossibleOrder] = []

    def wanted(board: Board, u: Unit) -> bool:
        return (power is None or u.power == power) and (only is None or only == (board.timeline, board.turn, u.province))

    if phase == MOVEMENT and kinds:
        for b in acting if only is None else [b for b in acting if b.key == only[:2]]:
            cands = _Candidates(space, kinds, target)
            units = [u for u in sorted(b.units.values(), key=lambda u: u.location) if wanted(b, u)]
            for u in units:
                cands.unit(b, u)
            # one program per head: the ground program stays the size of one board's candidates
            for r in _legal(mv, cands.orders):
                u = b.units[r.unit.province]
                aim = r.target if r.kind is OrderKind.SUPPORT_HOLD else r.dest
                out.append(PossibleOrder(r.power, b.name, unit_text(u, m), r.kind, format_order(r.order, m),
                                         None if aim is None else board_name(*aim.board)))
    elif phase == RETREAT:
        options = retreat_options(mv) if OrderKind.RETREAT in kinds else {}
        if target is not None:
            acting = [b for b in acting if b.key == target]  # a retreat stays on its board
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
                        r = ResolvedOrder(u.power, "", None, OrderKind.MOVE, me, dest=Place(b.timeline, b.turn, prov, coast),
                                          unit_kind=u.kind)
                        out.append(PossibleOrder(u.power, b.name, unit_text(u, m), OrderKind.RETREAT, resolved_text(r, m),
                                                 b.name))
                if OrderKind.DISBAND in kinds and target is None:
                    r = ResolvedOrder(u.power, "", None, OrderKind.DISBAND, me, unit_kind=u.kind)
                    out.append(PossibleOrder(u.power, b.name, unit_text(u, m), OrderKind.DISBAND, resolved_text(r, m)))
    elif phase == ADJUSTMENT and target is None and kinds & {OrderKind.BUILD, OrderKind.WAIVE, OrderKind.DISBAND}:
        balances = adjustment_balances(mv)
        for b in acting:
            for (key, who), n in sorted(balances.items()):
                if key != b.key or (power is not None and who != power):
                    continue
                if n > 0 and only is None:
                    for home in m.home_centers(who) if OrderKind.BUILD in kinds else ():
                        if b.centers.get(home) != who or home in b.units:
                            continue
                        for kind_ in UnitKind:
                            for loc in m.locations(home, kind_):
                                r = ResolvedOrder(who, "", None, OrderKind.BUILD, _at(b, loc), unit_kind=kind_)
                                out.append(PossibleOrder(who, b.name, "", OrderKind.BUILD, resolved_text(r, m)))
                    if OrderKind.WAIVE in kinds:
                        out.append(PossibleOrder(who, b.name, "", OrderKind.WAIVE, "Waive"))
                elif n < 0 and OrderKind.DISBAND in kinds:
                    for u in sorted(b.units.values(), key=lambda u: u.location):
                        if u.power == who and wanted(b, u):
                            r = ResolvedOrder(who, "", None, OrderKind.DISBAND, _place(b, u), unit_kind=u.kind)
                            out.append(PossibleOrder(who, b.name, unit_text(u, m), OrderKind.DISBAND, resolved_text(r, m)))
    rank = {k: i for i, k in enumerate(KINDS)}
    seen: set[tuple[str, str]] = set()
    unique = []
    for p in out:
        if (p.power, p.order) not in seen:
            seen.add((p.power, p.order))
            unique.append(p)
    return tuple(sorted(unique, key=lambda p: (p.power, p.board, p.unit, rank.get(p.kind, len(KINDS)), p.order)))
