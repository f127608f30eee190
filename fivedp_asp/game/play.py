"""The rules of play: order lines given power by power for the next phase (each checked to belong to
it, each replacing the waiting order of the same unit), what the next phase asks of each power,
adjudicating the phase into the game's history, and taking the last step back.

Everything here works on :class:`~fivedp_asp.game.state.Game` values and returns new ones; nothing
reads or writes a file (``files.games`` does, and the commands and the API call it around play).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Callable, Mapping, MutableMapping

from ..model.kinds import DutyKind, Result
from ..model import orders as o
from ..errors import AdjudicationError, InputError, NotationError, UsageError, quoted
from ..yaml_lines import plain, plain_json
from ..model.map import GameMap
from ..model.multiverse import (ADJUSTMENT, MOVEMENT, PHASES, RETREAT, SUSTAIN, Board, Multiverse, Unit, board_name,
                                board_name_readings, unit_text)
from ..model.notation import parse_order, parse_timeline, timeline_name
from ..model.orders import ResolvedOrder, OrderKind
from ..engine.resolve import resolve, resolved_text
from ..engine.answer import OrderOutcome
from ..engine.adjustment import adjustment_balances
from ..engine.retreat import retreat_options
from ..engine.step import StepReport, next_phase, refused_orders, step
from .state import Game


def waiting_for(mv: Multiverse) -> str:
    """What the game waits for, in words: ``movement on a1, b1``, ``sustain phase of 1903``."""
    phase = next_phase(mv)
    if phase == SUSTAIN:
        return f"sustain phase of {1901 + mv.sustain_due}"
    return f"{phase} on " + ", ".join(b.name for b in mv.heads if b.phase == phase)


def qualify(mv: Multiverse, power: str, text: str) -> tuple[str | None, str | None]:
    """An order line as the multiverse it was given in reads it: every place fully designated
    (``A a-Boh@0 - a-Sil@0``), and the name of the board its unit stands on. (None, None) for a line
    that names no place of this multiverse; a waive has no board."""
    try:
        r = resolve(parse_order(text, mv.game_map), power, text, mv)
    except InputError:
        return None, None
    board = board_name(*r.unit.board) if r.unit is not None else None
    return resolved_text(r, mv.game_map), board


def _written_places(order: o.Order) -> list[o.Where]:
    """The places an order line writes (its unit's, a target's, a destination)."""
    places = []
    for name in ("unit", "target"):
        spec = getattr(order, name, None)
        if isinstance(spec, o.UnitSpec):
            places.append(spec.where)
    dest = getattr(order, "dest", None)
    if isinstance(dest, o.Where):
        places.append(dest)
    return places


def reading(mv: Multiverse, power: str, text: str) -> str | None:
    """The fully designated form of an order line, when printing it beside the line tells a player
    something the line does not say: the order acts on more than one board (a support or move into
    another board, whose board may have been filled in), or several timelines exist and the line
    leaves a place's timeline out. None otherwise, and for a line that names no place of this
    multiverse."""
    try:
        order = parse_order(text, mv.game_map)
        r = resolve(order, power, text, mv)
    except InputError:
        return None
    places = [p for p in (r.unit, r.target, r.dest) if p is not None]
    boards = {(p.timeline, p.turn) for p in places}
    implicit = any(w.timeline is None for w in _written_places(order))
    if len(boards) <= 1 and not (implicit and len(mv.timelines) > 1):
        return None
    qualified = resolved_text(r, mv.game_map)
    return None if qualified == text.strip() else qualified



def power_of_line(mv: Multiverse, line: str) -> str:
    """The power an order belongs to, found from the unit (or, for a build, the centre's owner)."""
    order = parse_order(line, mv.game_map)
    if isinstance(order, o.Waive):
        raise InputError(f"order {quoted(line)}: say which power waives (--power)")
    if isinstance(order, o.Sustain):
        raise InputError(f"order {quoted(line)}: say which power sustains (--power, or 'England: {line}')")
    spec = order.unit
    t = spec.where.timeline if spec.where.timeline is not None else 0
    n = spec.where.turn if spec.where.turn is not None else mv.latest_turn(t)
    if n is None:
        raise InputError(f"order {quoted(line)}: there is no timeline {timeline_name(t)}")
    board = mv.board(t, n)
    if board is None:
        raise InputError(f"order {quoted(line)}: there is no board {board_name(t, n)}")
    # in a retreat phase the order is the retreating unit's, not the attacker's now standing there
    retreating = next((r.unit for r in board.retreats if r.unit.province == spec.where.province), None)
    unit = retreating if next_phase(mv) == RETREAT and retreating else board.units.get(spec.where.province) or retreating
    if unit is not None:
        return unit.power
    if isinstance(order, o.Build) and spec.where.province in board.centers:
        return board.centers[spec.where.province]
    raise InputError(f"order {quoted(line)}: no unit there to tell whose order it is (use --power)")


def _parses(line: str, m: GameMap) -> bool:
    try:
        parse_order(line, m)
        return True
    except NotationError:
        return False


# the phases each verb belongs to; a verb not listed (a later order kind) is never refused by phase
_VERB_PHASES: dict[type, tuple[str, ...]] = {
    o.Hold: (MOVEMENT,), o.SupportHold: (MOVEMENT,), o.SupportMove: (MOVEMENT,), o.Convoy: (MOVEMENT,),
    o.Move: (MOVEMENT, RETREAT), o.Disband: (RETREAT, ADJUSTMENT), o.Build: (ADJUSTMENT,), o.Waive: (ADJUSTMENT,),
}


@dataclass(frozen=True)
class _NextPhase:
    """What ``phase_problem`` reads of the multiverse, the same for every line of a submission: the
    next phase, the keys of the heads, and the words that say where it is played."""

    phase: str
    heads: frozenset[tuple[int, int]]
    where: str

    @staticmethod
    def of(mv: Multiverse) -> "_NextPhase":
        phase = next_phase(mv)
        acting = [b for b in mv.heads if b.phase == phase]
        return _NextPhase(phase, frozenset(h.key for h in mv.heads),
                          f"the next phase is {phase} on {', '.join(b.name for b in acting)}")


def phase_problem(mv: Multiverse, line: str, order: o.Order, power: str, known: _NextPhase | None = None) -> str | None:
    """Why an order cannot be for the next phase, or None. Only what is certain from the verb and the
    board the unit stands on: an order that may be for this phase but is illegal is left to the rules
    (it is reported ``invalid`` with their reason). ``known``: the next phase read once for many lines."""
    known = known or _NextPhase.of(mv)
    phase, where = known.phase, known.where
    phases = _VERB_PHASES.get(type(order))
    if phases is None or phase not in PHASES:
        return None
    if phase not in phases:
        kind = " or ".join(phases)
        return f"order {quoted(line)} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} order, but {where}"
    if isinstance(order, o.Waive):
        return None
    try:
        r = resolve(order, power, line, mv)
    except InputError:
        return None  # names no board: the rules report it
    board = mv.boards.get(r.unit.board) if r.unit else None
    if board is None or board.key not in known.heads or board.phase == phase:
        return None
    return f"order {quoted(line)}: board {board.name} is waiting for its {board.phase}, but {where}"


def _resolved(mv: Multiverse, power: str, line: str) -> ResolvedOrder | None:
    """The line read and resolved against ``mv``, or None for a line that names no place of it: read
    once for both what it orders (``_order_key``) and how it is fully designated."""
    try:
        return resolve(parse_order(line, mv.game_map), power, line, mv)
    except InputError:
        return None


def _order_key(r: ResolvedOrder | None) -> tuple | None:
    """What makes two waiting orders orders for the same thing: the unit's place (for a build, the
    centre's). A waive is never the same as another (each one gives up one build)."""
    if r is None or r.unit is None:
        return None
    return (r.kind is OrderKind.BUILD, r.unit.timeline, r.unit.turn, r.unit.province)


def _unit_key(mv: Multiverse, power: str, line: str) -> tuple | None:
    """``_order_key`` of a line as written."""
    return _order_key(_resolved(mv, power, line))


@dataclass(frozen=True)
class Accepted:
    """One order line given for the next phase; ``replaces`` the waiting line it took the place of.

    ``legal`` is None when the line was not checked against the rules (``check=False``), otherwise
    whether the legality rules accept it, with their ``reason`` when they do not (the reason
    ``check_orders`` gives: the unit would hold, the order would be ignored). ``fails``: a legal
    adjustment that cannot succeed whatever else is ordered (a build beyond the builds allowed, ...),
    with its ``reason``. ``kept`` is the legal waiting line an illegal line was refused in favour of
    (``Submission.refused``)."""

    power: str
    text: str
    qualified: str | None
    replaces: str | None = None
    legal: bool | None = None
    reason: str | None = None
    kept: str | None = None
    fails: bool = False


@dataclass(frozen=True)
class Submission:
    game: Game
    accepted: tuple[Accepted, ...]
    withdrawn: tuple[tuple[str, str], ...] = ()  # (power, line) dropped because the power's orders were replaced
    # illegal lines not taken, because they would have replaced a legal waiting order (without ``force``)
    refused: tuple[Accepted, ...] = ()


def _group_lines(game: Game, power: str | None, lines: list[str], check_phase: bool) -> dict[str, list[str]]:
    """The lines grouped by the power they belong to, each parsed (and, with ``check_phase``, checked
    to be for the next phase); any problem refuses them all (InputError)."""
    mv = game.mv
    if mv.winner:
        raise InputError(f"the game is over: {mv.winner} has won")
    by_power: dict[str, list[str]] = {}
    known = _NextPhase.of(mv) if check_phase else None
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        who = power
        head, sep, rest = line.partition(":")
        if sep and mv.game_map.power(head.strip()):
            who, line = head.strip(), rest.strip()
        elif sep and " " not in head.strip() and _parses(rest.strip(), mv.game_map) and not _parses(line, mv.game_map):
            raise InputError(f"order {quoted(line)}: unknown power {quoted(head.strip())} (column 1)")
        if who is not None and mv.game_map.power(who) is None:
            raise InputError(f"unknown power {quoted(who)} (powers: {', '.join(mv.game_map.powers)})")
        try:
            order = parse_order(line, mv.game_map)
            who = mv.game_map.power(who) if who else power_of_line(mv, line)
        except NotationError as exc:
            raise InputError(f"order {quoted(line)}: {exc.problem} (column {exc.position + 1})") from None
        problem = phase_problem(mv, line, order, who, known) if check_phase else None
        if problem:
            raise InputError(problem)
        by_power.setdefault(who, []).append(line)
    return by_power


def submit_orders(game: Game, power: str | None, lines: list[str], *, replace_all: bool = False,
                  check_phase: bool = True, check: bool = False, force: bool = False,
                  verdicts: MutableMapping[frozenset, dict] | None = None) -> Submission:
    """Takes order lines for the next phase. A line for a unit that already has a waiting order takes
    its place (and says so); other waiting orders stay. ``replace_all`` first withdraws every waiting
    order of the powers that give orders now. Lines of another phase are refused (InputError), and
    then nothing is taken; ``check_phase=False`` keeps them, to be reported ``invalid`` as a
    scenario's would be.

    ``check`` asks the legality rules about every line (``check_orders`` on the orders as they would
    stand): each ``Accepted`` then says whether it is legal and why not. An illegal line that would
    replace a legal waiting order is not taken (``Submission.refused``): a typo must not silently
    undo a good order. ``force`` takes it all the same. ``verdicts``: the rules' verdicts kept for
    this very multiverse by the caller, by the orders they were given on (a check and the submission
    of the same lines then ask the rules once)."""
    if verdicts is not None and not isinstance(verdicts, MutableMapping):
        raise UsageError("submit_orders: verdicts must be a mutable mapping")
    mv = game.mv
    by_power = _group_lines(game, power, lines, check_phase)
    pending = {p: list(v) for p, v in game.pending.items()}
    taken: list[Accepted] = []
    withdrawn: list[tuple[str, str]] = []
    for who, new in by_power.items():
        if replace_all:
            withdrawn += [(who, line) for line in pending.get(who, [])]
            pending[who] = []
        waiting = pending.setdefault(who, [])
        # each waiting line's key, resolved once rather than once for every line given
        keys = [_unit_key(mv, who, w) for w in waiting]
        for line in new:
            r = _resolved(mv, who, line)
            key = _order_key(r)
            old = next((i for i, k in enumerate(keys) if key is not None and k == key), None)
            replaced = None
            if old is not None:
                replaced = waiting.pop(old)
                keys.pop(old)
            waiting.append(line)
            keys.append(key)
            qualified = None if r is None else resolved_text(r, mv.game_map)  # as ``qualify`` writes it
            taken.append(Accepted(who, line, qualified, replaced if replaced != line else None))
    pending = {p: v for p, v in pending.items() if v}
    if not check:
        return Submission(replace(game, pending=pending), tuple(taken), tuple(withdrawn))
    return _checked(game, replace(game, pending=pending), taken, withdrawn, force, verdicts)


def _illegal(game: Game, verdicts: MutableMapping[frozenset, dict] | None = None) -> dict[tuple[str, str], tuple[str, bool]]:
    """(power, line) -> (the rules' reason, whether the line is legal but fails), for every waiting line
    the rules would not carry out (``check_orders``): one pass of the rules for all the lines, kept in
    ``verdicts`` (when given) under the waiting orders it was made on."""
    if not any(game.pending.values()):
        return {}
    key = frozenset((p, tuple(v)) for p, v in game.pending.items() if v)
    kept = verdicts.get(key) if verdicts is not None else None  # one look: another thread may drop it
    if kept is not None:
        return kept
    found = {(x.power, x.text): (x.reason or "illegal", x.result == Result.FAILS) for x in check_orders(game)}
    if verdicts is not None:
        verdicts[key] = found
    return found


def _checked(before: Game, after: Game, taken: list[Accepted], withdrawn: list[tuple[str, str]],
             force: bool, verdicts: MutableMapping[frozenset, dict] | None = None) -> Submission:
    """``submit_orders`` with ``check``: the legality of every line taken, and illegal lines that
    would replace a legal waiting order put back out (unless ``force``). When the next phase as it
    would stand has no single adjudication (a rule of one's own can make it so), nothing can be judged:
    every line is taken, unchecked (``legal`` None), and adjudicating will report the problem."""
    try:
        illegal = _illegal(after, verdicts)
    except AdjudicationError:
        unchecked = "not checked: the rules give the next phase no single adjudication as it stands"
        return Submission(after, tuple(replace(a, reason=unchecked) for a in taken), tuple(withdrawn))
    replacing = [a for a in taken if (a.power, a.text) in illegal and a.replaces is not None]
    was_illegal = _illegal(before, verdicts) if replacing and not force else {}
    pending = {p: list(v) for p, v in after.pending.items()}
    accepted: list[Accepted] = []
    refused: list[Accepted] = []
    for a in taken:
        reason, fails = illegal.get((a.power, a.text), (None, False))
        if reason is not None and not fails and a.replaces is not None and not force \
                and (a.power, a.replaces) not in was_illegal:
            lines = pending[a.power]
            lines[lines.index(a.text)] = a.replaces
            refused.append(replace(a, legal=False, reason=reason, replaces=None, kept=a.replaces))
            continue
        accepted.append(replace(a, legal=reason is None or fails, reason=reason, fails=fails))
    game = replace(after, pending=pending)
    return Submission(game, tuple(accepted), tuple(withdrawn), tuple(refused))


def submit(game: Game, power: str | None, lines: list[str], *, add: bool = False) -> Game:
    """Orders as a scenario takes them: without ``add`` the power's new set replaces its waiting one
    (DATC 4.D.1 c), with it they join the waiting ones; lines of another phase are kept (and come out
    ``invalid``). Players and programs use :func:`submit_orders`, which refuses those."""
    return submit_orders(game, power, lines, replace_all=not add, check_phase=False).game


def check_orders(game: Game) -> tuple[OrderOutcome, ...]:
    """The waiting orders the rules would not carry out, each with its reason: in a movement phase
    the legality rules alone, on the facts the step would write (``engine.step.refused_orders``, the
    same outcomes); otherwise the next phase adjudicated on a copy, nothing kept but the illegal
    orders (result ``invalid``) and, in an adjustment phase, the legal orders that fail (result
    ``fails``: a build or waive beyond the builds allowed, a disband beyond those due, a second order
    for one centre or unit). An adjustment depends
    on its own power's orders alone, so such an order fails whatever the others order; in a movement
    phase whether a legal order succeeds depends on the others' orders, which may still change."""
    if game.mv.winner:
        raise InputError(f"the game is over: {game.mv.winner} has won")
    # in a movement phase the legality rules alone answer, without the step (``refused_orders``)
    refused = refused_orders(game.mv, game.pending)
    if refused is not None:
        return refused
    # an illegal order's reason comes from the legality rules, a failing adjustment's from its reasons
    # (the reasons of movement results are not needed)
    adjusting = next_phase(game.mv) == ADJUSTMENT
    report = step(game.mv, game.pending, reasons=adjusting)
    return tuple(x for x in report.outcomes if x.result == Result.INVALID or (adjusting and x.result == Result.FAILS))


def designate(mv: Multiverse, key: tuple[int, int], where: str) -> str:
    """A place (``Sil``, ``Spa/nc``) or unit (``A Sil``) on board ``key`` written so that the game reads
    it back as that board's and no other's: plain while there is one timeline and its units may be
    written without one (``A Sil``), with the timeline on another timeline's head or when several
    exist (``A b-Sil``), with timeline and turn on a board that is not a head (``A b-Sil@3``)."""
    letter, _, place = where.rpartition(" ")
    prefix = f"{letter} " if letter else ""
    tl, turn = key
    head = mv.latest_turn(tl) == turn and tl not in mv.dissolved
    implicit = mv.options.chosen("implicit_main_timeline")
    if head and tl == 0 and len(mv.timelines) == 1 and implicit:
        return where
    return f"{prefix}{timeline_name(tl)}-{place}" + ("" if head else f"@{turn}")


def unit_designation(mv: Multiverse, key: tuple[int, int], unit: Unit) -> str:
    """A unit on board ``key`` as an order names it (``designate``)."""
    return designate(mv, key, unit_text(unit, mv.game_map))


@dataclass(frozen=True)
class Duty:
    """What one power must do on one head in the next phase.

    ``kind`` (``DutyKind``): ``orders`` (movement: ``units`` to order, ``ordered`` those with an order
    waiting), ``retreat`` (one dislodged unit, ``options`` the provinces it may retreat to; or disband),
    ``build`` or ``disband`` (``count``; ``options`` the free home centres for builds), or ``sustain``
    (the votes of the sustain phase). Units and home centres are written as an order names them (``designate``: ``A
    b-Sil`` once there are several timelines), so that a player can type them back as they are;
    retreat options are provinces of the retreating unit's own board, where a retreat goes unless it
    says otherwise."""

    power: str
    board: str
    kind: DutyKind
    units: tuple[str, ...] = ()
    ordered: tuple[str, ...] = ()
    count: int = 0
    options: tuple[str, ...] = ()


def duties(game: Game) -> tuple[Duty, ...]:
    """Everything the next phase asks of each power, head by head (retreat options and adjustment
    counts come from the retreat and adjustment programs)."""
    mv = game.mv
    if mv.winner:
        return ()
    m = mv.game_map
    phase = next_phase(mv)
    acting = [b for b in mv.heads if b.phase == phase]
    ordered: set[tuple[int, int, str]] = set()
    for who, lines in game.pending.items():
        for line in lines:
            key = _unit_key(mv, who, line)
            if key is not None:
                ordered.add(key[1:])
    out: list[Duty] = []
    if phase == RETREAT:
        options = retreat_options(mv)
        for b in acting:
            for r in sorted(b.retreats, key=lambda r: (r.unit.power, r.unit.location)):
                place = (b.timeline, b.turn, r.unit.province)
                unit = unit_designation(mv, b.key, r.unit)
                out.append(Duty(r.unit.power, b.name, DutyKind.RETREAT, (unit,), (unit,) if place in ordered else (), 1,
                                tuple(m.short_name(p) for p in options.get(place, ()))))
    elif phase == ADJUSTMENT:
        balances = adjustment_balances(mv)
        for b in acting:
            for (key, who), n in sorted(balances.items(), key=lambda x: (x[0][1], x[0][0])):
                if key != b.key or n == 0 or who in mv.eliminated:
                    continue
                units = tuple(sorted(unit_designation(mv, b.key, u) for u in b.units.values() if u.power == who))
                if n > 0:
                    free = tuple(designate(mv, b.key, m.short_name(h)) for h in m.home_centers(who)
                                 if b.centers.get(h) == who and h not in b.units)
                    out.append(Duty(who, b.name, DutyKind.BUILD, (), (), n, free))
                else:
                    mine = tuple(sorted(unit_designation(mv, b.key, u) for u in b.units.values()
                                        if u.power == who and (b.timeline, b.turn, u.province) in ordered))
                    out.append(Duty(who, b.name, DutyKind.DISBAND, units, mine, -n))
    else:
        for b in acting:
            units = sorted(b.units.values(), key=lambda u: unit_text(u, m))
            for who in sorted({u.power for u in b.units.values()}):
                mine = tuple(unit_designation(mv, b.key, u) for u in units if u.power == who)
                done = tuple(unit_designation(mv, b.key, u) for u in units if u.power == who
                             and (b.timeline, b.turn, u.province) in ordered)
                kind = DutyKind.ORDERS if phase == MOVEMENT else DutyKind(phase)
                out.append(Duty(who, b.name, kind, mine, done, len(mine)))
    return tuple(sorted(out, key=lambda d: d.power))


@dataclass(frozen=True)
class Fight:
    """A step that fought a board again after its own battle, as the history records it: a legal move
    or support from a later board reached it (docs/rules.md §6.4). ``forked_into`` is the timeline its changed
    outcome started, or None when the outcome stood."""

    step: int
    forked_into: str | None
    because: tuple[str, ...] = ()  # the orders that reached it, fully designated


def reached_board(qualified: str, m: GameMap) -> str | None:
    """The board a fully designated move or support acts on, by name (None for other orders)."""
    try:
        order = parse_order(qualified, m)
    except NotationError:
        return None
    where = None
    if isinstance(order, (o.Move, o.SupportMove)):
        where = order.dest
    elif isinstance(order, o.SupportHold):
        where = order.target.where
    if where is None or where.timeline is None or where.turn is None:
        return None
    return board_name(where.timeline, where.turn)


def refought(entry: Mapping[str, Any], m: GameMap) -> dict[str, tuple[str, ...]]:
    """The past boards a recorded movement step fought again, each with the new orders that reached
    it, fully designated (as the step's report names them): the boards a legal move or support of the
    step went to that were not acting in it."""
    if entry.get("phase") != MOVEMENT:
        return {}
    acting = set(entry.get("boards", ()))
    out: dict[str, set[str]] = {}
    for r in entry.get("results", ()):
        if r.get("result") == Result.INVALID or not r.get("qualified"):
            continue
        board = reached_board(r["qualified"], m)
        if board is not None and board not in acting:
            out.setdefault(board, set()).add(r["qualified"])
    return {b: tuple(sorted(v)) for b, v in sorted(out.items())}


def fights(game: Game, name: str) -> tuple[Fight, ...]:
    """Every later step that fought board ``name`` again, from the history (``refought``), and the
    fork it caused."""
    out = []
    m = game.mv.game_map
    for i, h in enumerate(game.history, 1):
        if h.get("phase") != MOVEMENT or name in h.get("boards", ()):
            continue
        forked = next((tl for tl, origin in (h.get("new_timelines") or {}).items() if origin == name), None)
        because = refought(h, m).get(name, ())
        if because or forked:
            out.append(Fight(i, forked, because))
    return tuple(out)


def _result_entry(mv: Multiverse, x: OrderOutcome) -> dict:
    """One result as the history keeps it: the line, its fully designated form, its unit's board, the
    result and reason, and whatever else the outcome says about it (a structured explanation)."""
    qualified, board = qualify(mv, x.power, x.text)
    entry: dict[str, Any] = {"power": x.power, "order": x.text}
    if qualified is not None:
        entry["qualified"] = qualified
    if board is not None:
        entry["board"] = board
    entry["result"] = str(x.result)  # a history holds plain data: what any YAML or JSON writer takes
    if x.reason:
        entry["reason"] = x.reason
    extras = {key: plain_json(value) for key, value in x.as_dict().items()
              if key not in ("power", "text", "canonical", "result", "reason") and value is not None}
    if extras:
        # the structured account of the result, whatever the engine calls its parts
        entry["explanation"] = extras["explanation"] if set(extras) == {"explanation"} else extras
    return entry


def adjudicate(game: Game, report: StepReport | None = None, reasons: bool = True) -> tuple[Game, StepReport]:
    """The game after its next phase; ``report`` is that phase's report when it was adjudicated
    already (with other games' phases, ``batch.step_many``). ``reasons=False`` (``step.step``): the
    results carry no reasons, in the report and in the history entry alike."""
    if game.mv.winner:
        raise InputError(f"the game is over: {game.mv.winner} has won")
    report = report or step(game.mv, game.pending, reasons=reasons)
    before, after = report.before, report.after
    acting = [b.name for b in before.heads if b.phase == report.phase]
    entry: dict[str, Any] = {
        "phase": str(report.phase),  # plain text, as every value of a history entry
        "boards": acting,
        "orders": {p: list(v) for p, v in game.pending.items()},
        "results": [_result_entry(before, x) for x in report.outcomes],
    }
    forks = {timeline_name(tl): board_name(*k) for tl, k in sorted(after.forks.items()) if tl not in before.forks}
    if forks:
        entry["new_timelines"] = forks
    if after.eliminated - before.eliminated:
        entry["eliminated"] = sorted(after.eliminated - before.eliminated)
    if after.winner and not before.winner:
        entry["winner"] = after.winner
    if report.sustain is not None:
        from ..engine.sustain import sustain_json

        entry["sustain"] = sustain_json(report.sustain, game.mv.game_map)
    return Game(after, {}, game.history + (entry,), game.start), report



def _board_content(b: Board) -> tuple:
    return (dict(b.units), dict(b.centers), b.retreats, b.adjustment_due)


def rewound(game: Game) -> tuple[int, Multiverse] | None:
    """The multiverse as it was before the game's last movement step, and that step's index in the
    history, rebuilt from the game's own boards: None when no movement step was played.

    A movement step leaves its traces where they can be taken back: the heads it fought became past
    boards, with a record added and nothing else changed; it made one board after each of them and
    one for each timeline it forked (its history entry names both); and the steps after it (retreats,
    a sustain phase, adjustments) changed only the boards it made, the standing and the sustain
    state, which their entries name. So the position before it is the game's boards without the
    boards it made, its fought heads without their records, its forks and eliminations and the
    timelines dissolved since taken back. Only the last sustain phase held is not written anywhere:
    when one was held since, the earlier year is left unset, which the rules read alike (a phase is
    due unless the year's phase was held; it was not, or it would not have been held again)."""
    history = game.history
    last = next((i for i in range(len(history) - 1, -1, -1) if history[i].get("phase") == MOVEMENT), None)
    if last is None:
        return None
    mv = game.mv
    entry = history[last]
    fought = [_board_key(name) for name in entry.get("boards") or ()]
    made = {(tl, turn + 1) for tl, turn in fought}
    forked = {parse_timeline(str(tl)): _board_key(origin) for tl, origin in (entry.get("new_timelines") or {}).items()}
    made |= {(tl, origin[1] + 1) for tl, origin in forked.items()}
    later = history[last:]
    eliminated = {str(p) for e in later for p in e.get("eliminated") or ()}
    dissolved = {parse_timeline(str(tl)) for e in later if e.get("phase") == SUSTAIN
                 for tl in (e.get("sustain") or {}).get("dissolved") or ()}
    held_since = any(e.get("phase") == SUSTAIN for e in history[last + 1:])
    before = mv.without_boards(made).with_boards([replace(mv.boards[k], record=None) for k in fought])
    return last, replace(before, forks=MappingProxyType({t: k for t, k in mv.forks.items() if t not in forked}),
                         eliminated=mv.eliminated - eliminated, winner=None, dissolved=mv.dissolved - dissolved,
                         sustain_due=None, sustain_held=None if held_since else mv.sustain_held)


def _board_key(name: object) -> tuple[int, int]:
    readings = board_name_readings(str(name))
    if not readings:
        raise InputError(f"the history names no board {quoted(name)}")
    return readings[0]


def undo(game: Game, start: Callable[[Game], Multiverse]) -> tuple[Game, dict]:
    """The game as it was before its last step, with that step's orders waiting again, and the
    step's history entry (which the caller keeps: ``fivedp game undo`` appends it to the undo log).

    The earlier multiverse is rebuilt from the position before the last movement step
    (``rewound``), replayed with the orders the history recorded since; the replay of the last step
    must reach the game as it stands, board for board, or nothing is undone (a game edited by hand,
    say). Refused while orders for the next phase are waiting: those were given against the position
    the undo would take away.

    ``start`` reads the position the game began with (``Game.start``, written as a scenario's start)
    as a multiverse, for a game that has played no movement step yet: reading it is the scenario
    reader's job (``files.games.start_of``), called only once the undo is allowed."""
    if not game.history:
        raise InputError("no step has been played: there is nothing to undo")
    waiting = sorted(p for p, lines in game.pending.items() if lines)
    if waiting:
        raise InputError(f"orders for the next phase are waiting ({', '.join(waiting)}): "
                         "undo takes back a step only before any orders are given after it")
    back = rewound(game)
    if back is None:
        first, mv = 0, replace(start(game), players=game.mv.players)
    else:
        first, mv = back
    history = list(game.history)
    # the replay compares positions only: no reasons
    for h in history[first:-1]:
        mv = step(mv, plain(h.get("orders") or {}), reasons=False).after
    last = history[-1]
    replayed = step(mv, plain(last.get("orders") or {}), reasons=False).after
    now = game.mv
    if set(replayed.boards) != set(now.boards) or any(
            _board_content(replayed.boards[k]) != _board_content(now.boards[k]) for k in [h.key for h in now.heads]
    ) or replayed.eliminated != now.eliminated or replayed.winner != now.winner:
        raise InputError("replaying the last steps with their recorded orders does not reach the game as it "
                         "stands (was the file edited by hand?): nothing undone")
    pending = {str(p): list(v) for p, v in (last.get("orders") or {}).items() if v}
    # the history's own beginning, not its entries copied: a game read from a file keeps its lines as stored
    return Game(mv, pending, game.history[:-1], game.start), last
