"""One step of a game: the orders of one phase across all heads, adjudicated, giving the next multiverse.

A step resolves one phase kind across every head that needs it (docs/rules.md §5.4): retreats first,
then the sustain phase when it is due (option ``sustain``, §6.8.3), then adjustments, then movement.
Phases with nothing to decide are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Generator, Mapping, Sequence

from . import sustain as sustain_phase
from ..solver import terms as t
from ..errors import InputError, NotationError, OrderError, quoted
from ..limits import MAX_BOARDS, MAX_HEADS, MAX_ORDERS, MAX_TIMELINES, MAX_UNITS
from .facts import (adjustment_map_facts, board_facts, center_facts, edge_facts, map_facts, movement_facts, order_facts,
                    retreat_loc_facts)
from ..model.map import GameMap
from ..model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, SUSTAIN, Board, Multiverse, Record, Retreat, Unit, make_board
from ..model.notation import parse_order, timeline_name
from .options import chosen, logic_files
from .written import implied_orders, refuse_written
from .resolve import ResolvedOrder, resolve
from .answer import CAUSE_KINDS, Answer, Cause, OrderOutcome, explain
from ..solver.driver import DECISIONS, Solution, Universe, solve_decisions, solve_in_universe

OrderLines = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class Query:
    """One question for the solver: a phase's program (entry encoding and option files) on its facts
    and the map's unchanging facts. A step is written as a generator of queries, so that the same code
    runs one phase at a time (``run``) or many phases together, their queries answered in one program
    (``batch.py``)."""

    programs: tuple[str, ...]
    facts: str
    static: str = ""
    statistics: bool = False
    # the same question over a small fixed universe of atoms: one phase at a time, it is answered on a
    # program grounded once (``solve_in_universe``); a batch answers ``facts`` in its joint program
    universe: Universe | None = None


Steps = Generator[Query, Solution, "StepReport"]


def run(steps: Generator[Query, Solution, object]):
    """Answers a step's queries one by one; returns what the step returns."""
    try:
        query = next(steps)
        while True:
            if query.universe is not None and not query.statistics:
                answer = solve_in_universe(query.programs, query.universe, query.static)
            else:
                answer = solve_decisions(query.programs, query.facts, query.static, statistics=query.statistics)
            query = steps.send(answer)
    except StopIteration as stop:
        return stop.value


@dataclass(frozen=True)
class StepReport:
    phase: str
    before: Multiverse
    after: Multiverse
    outcomes: tuple[OrderOutcome, ...]
    dislodged: tuple[tuple[tuple[int, int], Unit], ...] = ()  # (board the unit was on, unit)
    disbanded: tuple[tuple[tuple[int, int], Unit], ...] = ()  # dislodged units that had to disband
    backups: tuple[str, ...] = ()
    solution: Solution | None = None  # the movement program's answer, with timings (and sizes on request)
    sustain: sustain_phase.SustainResult | None = None  # the votes and dissolutions of a sustain phase
    dislodgers: tuple[str, ...] = ()  # for each dislodged unit, the unit that dislodged it (``A a-Mun@0``)


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
                r = ResolvedOrder(power, text, parsed, "unplaced", None, problem=str(exc).split(": ", 1)[-1])
            # every waive is one more build not used; other lines written twice are one order
            key = (r.signature, len(out)) if r.kind == "waive" else r.signature
            out.append((ids.setdefault(key, len(ids)), r))
    return implied_orders(mv, refuse_written(mv, out))


def _designation(mv: Multiverse, place: tuple[int, int, str]) -> str:
    """A unit fully qualified, ``A a-Ber@1``, from the place it stood on before the step."""
    tl, tn, prov = place
    board = mv.boards.get((tl, tn))
    unit = board.units.get(prov) if board else None
    if unit is None and board is not None:
        unit = next((r.unit for r in board.retreats if r.unit.province == prov), None)
    letter = unit.letter if unit else "?"
    return f"{letter} {timeline_name(tl)}-{mv.game_map.short_name(unit.location if unit else prov)}@{tn}"


def _causes(mv: Multiverse, raw, paradox: Sequence[Cause] = ()) -> tuple[Cause, ...]:
    """The rules' causes of one order (kind, unit place, detail), units of equal causes together."""
    grouped: dict[tuple, list[str]] = {}
    for kind, place, detail in raw:
        strength = against = versus = what = count = timeline = None
        if detail and detail[0] == "s":
            versus, strength, against = detail[1:]
        elif detail and detail[0] in ("did", "rule", "by"):
            what = detail[1]
        elif detail and detail[0] == "n":
            count = detail[1]
        elif detail and detail[0] == "of":
            count, against = detail[1:]
        elif detail and detail[0] == "centre":
            centre = {t.const(c): c for c in mv.game_map.capitals}.get(detail[1], detail[1])
            what = mv.game_map.full_name(centre)
            timeline = timeline_name(detail[2])
        units = grouped.setdefault((kind, strength, against, versus, what, count, timeline), [])
        if place is not None:
            units.append(_designation(mv, place))
    causes = [Cause(kind, tuple(sorted(set(units))), strength, against, versus, what, count, timeline)
              for (kind, strength, against, versus, what, count, timeline), units in grouped.items()]
    causes += [c for c in paradox if c not in causes]
    order = {k: n for n, k in enumerate(CAUSE_KINDS)}
    return tuple(sorted(causes, key=lambda c: (order.get(c.kind, len(order)), c.units, c.versus or "")))


def _local(r: ResolvedOrder):
    """Shortens the designations of units on the order's own board: ``A a-Ber@1`` → ``A Ber``."""
    if r.unit is None:
        return lambda u: u
    prefix, suffix = f"{timeline_name(r.unit.timeline)}-", f"@{r.unit.turn}"

    def local(u: str) -> str:
        letter, _, where = u.partition(" ")
        if where.startswith(prefix) and where.endswith(suffix):
            return f"{letter} {where[len(prefix):-len(suffix)]}"
        return u
    return local


def _paradox_causes(mv: Multiverse, backups) -> dict[tuple[int, int, str], list[Cause]]:
    """The driver's backup rules other than Szykman's (which the rules explain themselves), by the
    places of the units whose decisions they fixed."""
    out: dict[tuple[int, int, str], list[Cause]] = {}
    for rule, places in backups:
        if rule == "szykman":
            continue
        read = [t.read_place(sym) for sym in places]
        cause = Cause("paradox", tuple(sorted(_designation(mv, p) for p in read)), detail=rule)
        for p in read:
            out.setdefault(p, []).append(cause)
    return out


def _outcomes(mv: Multiverse, orders, answer: Answer, backups=()) -> tuple[OrderOutcome, ...]:
    results = answer.order_results()
    reasons = answer.reasons()
    paradox = _paradox_causes(mv, backups)
    out = []
    for i, r in orders:
        result, reason = results.get(i, ("invalid", r.problem or "not an order of this phase"))
        causes: tuple[Cause, ...] = ()
        if result != "invalid":
            place = (r.unit.timeline, r.unit.turn, r.unit.province) if r.unit else None
            causes = _causes(mv, reasons.get(i, ()), paradox.get(place, ()))
            reason = explain(causes, _local(r))
        out.append(OrderOutcome(r.power, r.text, result, reason, r.order, mv.game_map, causes))
    return tuple(out)


def _program(mv: Multiverse, program: str) -> tuple[str, ...]:
    """The entry encoding of ``program`` and the logic files of the options in effect (options.py)."""
    return (f"{program}.lp", *logic_files(mv.options, program))


# -- supply centres and what a board waits for -------------------------------------------------


def needs_adjustment(board: Board, mv: Multiverse) -> bool:
    powers = {u.power for u in board.units.values()} | set(board.centers.values())
    for power in powers:
        units = sum(1 for u in board.units.values() if u.power == power)
        centers = sum(1 for p in board.centers.values() if p == power)
        if units > centers:
            return True
        free_home = [h for h in mv.game_map.home_centers(power) if board.centers.get(h) == power and h not in board.units]
        if centers > units and free_home:
            return True
    return False


def settle(board: Board, mv: Multiverse) -> Board:
    """After a Fall battle and its retreats: centres go to their occupiers, then adjustments if any."""
    if board.retreats or board.turn == 0 or board.turn % 2 == 1:
        return board
    centers = dict(board.centers)
    for prov, unit in board.units.items():
        if mv.game_map.provinces[prov].center:
            centers[prov] = unit.power
    board = make_board(board.timeline, board.turn, board.units.values(), centers)
    return replace(board, adjustment_due=needs_adjustment(board, mv))


# -- movement ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Outcome:
    """What a movement answer says about each board, grouped once by board."""

    moved: frozenset  # places whose unit left (moved, or departed on a recorded journey)
    dislodged_by: dict  # victim place -> attacker place
    arrivals_into: dict  # board -> [(origin place, arrival location)]
    bounced_on: dict  # board -> provinces left vacant by a standoff
    convoyed: frozenset  # attackers whose province stays open to the units they dislodge (DATC 4.A.5)

    @classmethod
    def read(cls, answer: Answer, departed: frozenset) -> "_Outcome":
        arrivals = answer.arrivals()
        dest_of = answer.place_pairs("move")
        into: dict = {}
        for origin, loc in arrivals.items():
            into.setdefault(dest_of[origin][:2], []).append((origin, loc))
        bounced: dict = {}
        for tl, tn, prov in answer.places("bounced"):
            bounced.setdefault((tl, tn), set()).add(prov)
        return cls(frozenset(arrivals) | departed, answer.place_pairs("dislodged_by"), into, bounced,
                   # datc_4a5 barred: a convoyed attacker's province is closed like any other
                   frozenset() if "convoy_origin_barred" in answer.texts else frozenset(answer.places("convoyed")))


def _produce(mv: Multiverse, source: Board, timeline: int, outcome: _Outcome) -> Board:
    """The board produced from battle ``source`` (docs/rules.md §6.5): who stayed, who arrived, who must retreat."""
    key = source.key
    units = [u for u in source.units.values()
             if (*key, u.province) not in outcome.moved and (*key, u.province) not in outcome.dislodged_by]
    for origin, loc in outcome.arrivals_into.get(key, ()):
        u = mv.boards[origin[:2]].units[origin[2]]
        units.append(Unit(u.kind, u.power, loc))
    barred = frozenset(outcome.bounced_on.get(key, ()))
    retreats = []
    for victim, attacker in sorted(outcome.dislodged_by.items()):
        if victim[:2] == key:
            from_here = attacker[:2] == key and attacker not in outcome.convoyed
            retreats.append(Retreat(source.units[victim[2]], attacker[2] if from_here else None, barred))
    return make_board(timeline, source.turn + 1, units, source.centers, retreats=tuple(retreats))


def _records(heads, orders, owners: dict, true: set, legal: set[int]) -> dict[tuple[int, int], Board]:
    """Writes each head's record: its units' legal orders, who acted on it, and every decision about it."""
    keys = {h.key for h in heads}
    mine: dict = {k: [] for k in keys}
    incoming: dict = {k: set() for k in keys}
    decisions: dict = {k: {} for k in keys}
    for i, r in orders:
        if i not in legal or r.unit is None:
            continue
        if r.unit.board in keys:
            mine[r.unit.board].append(r)
        # supports and jump assists act on the board they support into, or the assisted move goes to
        if r.kind in ("support_hold", "support_move", "jump_assist"):
            target = (r.dest or r.target).board
            if target in keys and target != r.unit.board:
                incoming[target].add((r.unit.timeline, r.unit.turn, r.unit.province))
    for d, owner in owners.items():
        name, place = d
        if place[:2] in keys:
            decisions[place[:2]][d] = d in true
        if name == "moves" and owner in keys and owner != place[:2]:
            decisions[owner][d] = d in true
            incoming[owner].add(place)
    return {h.key: replace(h, record=Record(tuple(mine[h.key]), tuple(sorted(incoming[h.key])),
                                            MappingProxyType(decisions[h.key]))) for h in heads}


def _backup_notes(mv: Multiverse, backups) -> tuple[str, ...]:
    """The backup rules the driver applied, in words."""
    notes = []
    for rule, places in backups:
        units = []
        for sym in places:
            tl, tn, prov = t.read_place(sym)
            u = mv.boards[(tl, tn)].units.get(prov)
            units.append(f"{u.letter if u else '?'} {mv.game_map.short_name(u.location if u else prov)} "
                         f"({mv.boards[(tl, tn)].name})")
        if rule == "szykman":
            notes.append("convoy paradox, Szykman rule: the convoy of " + ", ".join(units) + " fails (the fleet holds)")
        elif rule == "all_hold":
            notes.append("convoy paradox, 'All Hold' rule: the moves of " + ", ".join(units) + " fail")
        elif rule == "fail":
            notes.append("paradox, DATC 5.B.9: the orders of " + ", ".join(units) + " in the cycle fail")
        else:
            notes.append("circular movement: the moves of " + ", ".join(units) + " succeed")
    return tuple(notes)


def _movement(mv: Multiverse, orders, statistics: bool = False) -> Steps:
    facts = movement_facts(mv, orders)
    text = facts.text + "".join(f"dissolved({tl}).\n" for tl in sorted(mv.dissolved))
    solution = yield Query(_program(mv, "movement"), text, map_facts(mv.game_map), statistics)
    answer = Answer.of(solution.atoms)
    outcome = _Outcome.read(answer, facts.departed)
    owners = answer.owners()
    true = {(name, place) for name in DECISIONS for place in answer.places(name)}
    legal = {i for i, (res, _) in answer.order_results().items() if res != "invalid"}
    forked = sorted(answer.boards("fork"), key=lambda k: (k[1], k[0]))
    # the heads are recorded as fought now; then each advances
    recorded_heads = _records(mv.heads, orders, owners, true, legal)
    produced = [_produce(mv, h, h.timeline, outcome) for h in mv.heads]
    forks: dict[int, tuple[int, int]] = {}
    next_timeline = max(mv.timelines) + 1
    for key in forked:
        produced.append(_produce(mv, mv.boards[key], next_timeline, outcome))
        forks[next_timeline] = key
        next_timeline += 1
    fought = set(answer.boards("scope"))
    shown = {k for k in fought if k in recorded_heads or k in forked}
    dislodged = [(v[:2], mv.boards[v[:2]].units[v[2]]) for v in sorted(outcome.dislodged_by) if v[:2] in shown]
    dislodgers = tuple(_designation(mv, outcome.dislodged_by[v]) for v in sorted(outcome.dislodged_by) if v[:2] in shown)
    after = mv.with_boards(list(recorded_heads.values()) + produced, forks)
    after, disbanded = yield from _drop_hopeless_retreats(after, produced)
    after = after.with_boards([settle(after.boards[b.key], after) for b in produced])
    return StepReport(MOVEMENT, mv, after, _outcomes(mv, orders, answer, solution.backups), tuple(dislodged), disbanded,
                      _backup_notes(mv, solution.backups), solution, dislodgers=dislodgers)


# -- retreats ----------------------------------------------------------------------------------


def _retreat_facts(mv: Multiverse, boards: Sequence[Board], orders) -> str:
    """The facts of a retreat program, the map's included: the few edges and locations the dislodged
    units and the orders reach (the phase needs no map facts that are the same for every phase)."""
    lines = board_facts(mv, boards)
    dislodged = [(r.unit.kind, r.unit.location) for b in boards for r in b.retreats]
    lines += edge_facts(mv.game_map, dislodged, every=True)
    lines += retreat_loc_facts(mv.game_map, dislodged, (r.dest.province for _, r in orders if r.kind == "move" and r.dest))
    for b in boards:
        for r in b.retreats:
            u = r.unit
            place = t.place(b.timeline, b.turn, u.province)
            lines.append(f"dislodged_unit({place},{u.kind},{t.const(u.power)},{t.location(u.location)}).")
            for prov in sorted(r.barred | ({r.attacker_from} if r.attacker_from else set())):
                lines.append(f"barred({place},{t.const(prov)}).")
    lines += order_facts(orders)
    return "\n".join(lines) + "\n"


def _drop_hopeless_retreats(mv: Multiverse, boards: Sequence[Board]):
    """Dislodged units with nowhere to go are disbanded at once; boards with none left skip the phase."""
    waiting = [b for b in boards if b.retreats]
    if not waiting:
        return mv, ()
    answer = Answer.of((yield Query(_program(mv, "retreat"), _retreat_facts(mv, waiting, []))).atoms)
    can_move = answer.first_places("option")
    updated, gone = [], []
    for b in waiting:
        keep = tuple(r for r in b.retreats if (b.timeline, b.turn, r.unit.province) in can_move)
        gone += [(b.key, r.unit) for r in b.retreats if r not in keep]
        updated.append(replace(b, retreats=keep))
    return mv.with_boards(updated), tuple(gone)


def retreat_options(mv: Multiverse) -> dict[tuple[int, int, str], tuple[str, ...]]:
    """Where each unit waiting to retreat on a head may go (provinces), as the retreat program sees it
    before any order: what a player is shown, not a ruling on any particular order."""
    waiting = [b for b in mv.heads if b.retreats]
    if not waiting:
        return {}
    answer = Answer.of(solve_decisions(_program(mv, "retreat"), _retreat_facts(mv, waiting, [])).atoms)
    options: dict[tuple[int, int, str], list[str]] = {
        (b.timeline, b.turn, r.unit.province): [] for b in waiting for r in b.retreats}
    for sym in answer.symbols_of("option"):
        unit, province = sym.arguments
        options.setdefault(t.read_place(unit), []).append(t.name_of(province))
    return {k: tuple(sorted(v)) for k, v in options.items()}


def _retreat(mv: Multiverse, orders) -> Steps:
    boards = [b for b in mv.heads if b.phase == RETREAT]
    answer = Answer.of((yield Query(_program(mv, "retreat"), _retreat_facts(mv, boards, orders))).atoms)
    arrivals = answer.arrivals("retreats_to")
    new_boards, disbanded = [], []
    for b in boards:
        units = list(b.units.values())
        for r in b.retreats:
            loc = arrivals.get((b.timeline, b.turn, r.unit.province))
            if loc is None:
                disbanded.append((b.key, r.unit))
            else:
                units.append(Unit(r.unit.kind, r.unit.power, loc))
        board = make_board(b.timeline, b.turn, units, b.centers)
        new_boards.append(settle(board, mv))
    after = mv.with_boards(new_boards)
    return StepReport(RETREAT, mv, after, _outcomes(mv, orders, answer), disbanded=tuple(disbanded))


# -- adjustments -------------------------------------------------------------------------------


def _adjustment_facts(mv: Multiverse, boards: Sequence[Board], orders) -> str:
    lines = board_facts(mv, boards)
    for b in boards:
        for prov, power in sorted(b.centers.items()):
            lines.append(f"owns({t.board(*b.key)},{t.const(power)},{t.const(prov)}).")
    for i, r in orders:
        if r.kind == "build":
            kind = r.unit_kind or "none"
            coast = t.const(r.unit.coast) if r.unit.coast else "none"
            lines.append(f"ordered_build({i},{kind},{coast}).")
        elif r.kind == "waive":
            lines.append(f"ordered_waive({i},{t.const(r.power)}).")
    lines += [line for line in order_facts(orders) if not line.startswith("ordered_other(") or "disband" in line]
    return "\n".join(lines) + "\n"


def adjustment_balances(mv: Multiverse) -> dict[tuple[tuple[int, int], str], int]:
    """(board, power) -> centres minus units on every head waiting for adjustments, as the adjustment
    program counts them: builds allowed when positive, disbands owed when negative."""
    boards = [b for b in mv.heads if b.phase == ADJUSTMENT]
    if not boards:
        return {}
    # the balances never depend on the removals nobody ordered: the map's adjacency is not needed
    answer = Answer.of(solve_decisions(_program(mv, "adjustment"), _adjustment_facts(mv, boards, []),
                                       adjustment_map_facts(mv.game_map, civil_disorder=False)).atoms)
    powers = {t.const(p): p for p in mv.game_map.powers}
    out = {}
    for board, power, n in answer.get("balance"):
        key = t.board_of(str(board))
        out[(key, powers.get(t.name_of(power), t.name_of(power)))] = n.number
    return out


def _adjustment(mv: Multiverse, orders) -> Steps:
    boards = [b for b in mv.heads if b.phase == ADJUSTMENT]
    facts = _adjustment_facts(mv, boards, orders)
    # first without the map's adjacency and names, which only a power short of removals needs (civil
    # disorder); when the answer says a power is short, again with them
    answer = Answer.of((yield Query(_program(mv, "adjustment"), facts,
                                    adjustment_map_facts(mv.game_map, civil_disorder=False))).atoms)
    if "removals_unordered" in answer.texts:
        answer = Answer.of((yield Query(_program(mv, "adjustment"), facts, adjustment_map_facts(mv.game_map))).atoms)
    removed = answer.places("removed")
    built = {t.read_place(a): (k.name, t.read_location(loc)) for a, k, loc in answer.get("built")}
    new_boards, disbanded = [], []
    for b in boards:
        units = [u for u in b.units.values() if (b.timeline, b.turn, u.province) not in removed]
        disbanded += [(b.key, u) for u in b.units.values() if (b.timeline, b.turn, u.province) in removed]
        for (tl, tn, prov), (kind, loc) in built.items():
            if (tl, tn) == b.key:
                power = b.centers[prov]
                units.append(Unit(kind, power, loc))
        new_boards.append(make_board(b.timeline, b.turn, units, b.centers))
    after = mv.with_boards(new_boards)
    return StepReport(ADJUSTMENT, mv, after, _outcomes(mv, orders, answer), disbanded=tuple(disbanded))


# -- the sustain phase -------------------------------------------------------------------------


def _sustain(mv: Multiverse, orders) -> Steps:
    answer = Answer.of((yield Query(_program(mv, "sustain"), sustain_phase.facts(mv, orders))).atoms)
    result = sustain_phase.read(mv, answer)
    return StepReport(SUSTAIN, mv, sustain_phase.apply(mv, result), _outcomes(mv, orders, answer), sustain=result)


def victory(mv: Multiverse) -> Multiverse:
    """Applies elimination and looks for a winner (docs/rules.md §6.7, option ``victory``)."""
    return run(_victory(mv))


def _victory(mv: Multiverse) -> Generator[Query, Solution, Multiverse]:
    if len(mv.players) < 2 or mv.winner:
        return mv  # a scenario with one power, or a game already won
    option = chosen(mv.options, "victory")
    heads = mv.heads
    # every fact names its game, 0 (batch.py numbers the games of a joint program apart)
    lines = [f"head(0,{t.board(*h.key)})." for h in heads]
    for h in heads:
        b = t.board(*h.key)
        # a unit waiting to retreat is still on the board until it is disbanded
        for power in sorted({u.power for u in h.units.values()} | {r.unit.power for r in h.retreats}):
            lines.append(f"has_units({b},{t.const(power)}).")
        if option == "unique":
            lines += [f"owns({b},{t.const(o)},{t.const(p)})." for p, o in sorted(h.centers.items())]
        else:
            for power in sorted(set(h.centers.values())):
                count = sum(1 for o in h.centers.values() if o == power)
                lines.append(f"center_count({b},{t.const(power)},{count}).")
    lines += [f"player(0,{t.const(p)})." for p in mv.players]
    lines += [f"out(0,{t.const(p)})." for p in sorted(mv.eliminated)]
    facts = "\n".join(lines) + "\n"
    programs = _program(mv, "victory")
    universe = _victory_universe(mv) if programs == VICTORY_UNIVERSE_PROGRAMS else None
    query = Query(programs, facts, center_facts(mv.game_map), universe=universe)
    answer = Answer.of((yield query).atoms)
    by_const = {t.const(p): p for p in mv.players}
    eliminated = mv.eliminated | {by_const[t.name_of(a[1])] for a in answer.get("eliminated")}
    winners = sorted(by_const[t.name_of(a[1])] for a in answer.get("winner"))
    if eliminated == mv.eliminated and not winners:
        return mv
    return mv.standing(frozenset(eliminated), winners[0] if len(winners) == 1 else None)


VICTORY_UNIVERSE_HEADS = 2  # up to this many heads, the victory rules are grounded once and reused
# the programs whose rules read the heads' facts only as "some head": those of option victory=elimination
# (the other options sum centres over heads, and a universe would ground every possible sum)
VICTORY_UNIVERSE_PROGRAMS = ("victory.lp", "options/victory_elimination.lp")


def _victory_universe(mv: Multiverse) -> Universe | None:
    """The victory facts over a universe that does not change from phase to phase: the heads are named
    by their rank (``h(K)``), as the rules only tell heads apart and never read a board's name, and every
    atom a head could state for a power is in it. None beyond ``VICTORY_UNIVERSE_HEADS`` heads, where the
    universe (heads x powers x centres) would cost more to ground than the facts of one phase."""
    heads = mv.heads
    if len(heads) > VICTORY_UNIVERSE_HEADS:
        return None
    fixed, atoms, known = _victory_atoms(mv.game_map, mv.players, len(heads))
    true = {f"out(0,{t.const(p)})" for p in mv.eliminated}
    for k, h in enumerate(heads):
        for power in {u.power for u in h.units.values()} | {r.unit.power for r in h.retreats}:
            true.add(f"has_units(h({k}),{t.const(power)})")
        for power in set(h.centers.values()):
            count = sum(1 for o in h.centers.values() if o == power)
            true.add(f"center_count(h({k}),{t.const(power)},{count})")
    if not true <= known:
        return None  # a power that is not a player holds something: the plain facts say it as it is
    return Universe(fixed, atoms, frozenset(true))


@lru_cache(maxsize=32)
def _victory_atoms(game_map: GameMap, players: tuple[str, ...], heads: int) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """The fixed facts and the atoms of a victory universe, the same for every phase with these players
    and this many heads (several hundred atoms: made once, not per phase)."""
    powers = [t.const(p) for p in players]
    centres = sorted(t.const(p.id) for p in game_map.provinces.values() if p.center)
    fixed = [f"head(0,h({k}))." for k in range(heads)] + [f"player(0,{p})." for p in powers]
    atoms = [f"out(0,{p})" for p in powers]
    for k in range(heads):
        for p in powers:
            atoms.append(f"has_units(h({k}),{p})")
            atoms += [f"center_count(h({k}),{p},{n})" for n in range(1, len(centres) + 1)]
    return "\n".join(fixed) + "\n", tuple(atoms), frozenset(atoms)


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


def step(mv: Multiverse, orders: OrderLines, *, statistics: bool = False) -> StepReport:
    """Adjudicates the next phase with these orders (per power, lines in any notation).
    ``statistics`` asks clingo for the ground program's size (benchmarks)."""
    return run(steps(mv, orders, statistics=statistics))


def steps(mv: Multiverse, orders: OrderLines, *, statistics: bool = False) -> Steps:
    """``step`` as a generator of solver queries (see ``Query``). Bad input is raised before the first query."""
    phase = next_phase(mv)
    check_limits(mv, orders, phase)
    resolved = read_orders(mv, orders)
    return _step(mv, resolved, phase, statistics)


def _step(mv: Multiverse, resolved, phase: str, statistics: bool) -> Steps:
    if phase == RETREAT:
        report = yield from _retreat(mv, resolved)
    elif phase == SUSTAIN:
        report = yield from _sustain(mv, resolved)
    elif phase == ADJUSTMENT:
        report = yield from _adjustment(mv, resolved)
    else:
        report = yield from _movement(mv, resolved, statistics)
        report = replace(report, after=sustain_phase.due_after_movement(mv, report.after))
    return replace(report, after=(yield from _victory(report.after)))
