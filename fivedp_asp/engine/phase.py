"""What every phase shares: the query a phase asks of the solver, the report a step gives, and each
order's outcome read back from the answer.

A phase is written as a generator of ``Query`` values answered by ``run`` (one at a time) or by
``batch.py`` (many phases in one program); the phase modules (movement, retreat, adjustment,
sustain, victory) build their queries and reports from the pieces here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Generator, Mapping, Sequence, TypeVar

from ..errors import UsageError
from ..model.kinds import CauseKind, Phase, Result
from ..solver import terms as t
from ..solver.predicates import render
from ..solver.terms import Fact
from ..model.multiverse import Multiverse, Unit
from ..model.notation import timeline_name
from .resolve import ResolvedOrder
from .written import kind_note
from ..solver.backup import BackupRule
from .answer import CAUSE_KINDS, Answer, Cause, OrderOutcome, SustainResult, explain
from ..solver.driver import Solution, Universe, is_rule_text, solve_decisions, solve_in_universe


@dataclass(frozen=True)
class Query:
    """One question for the solver: a phase's program (entry encoding and option files) on its facts
    and the map's unchanging facts. A step is written as a generator of queries, so that the same code
    runs one phase at a time (``run``) or many phases together, their queries answered in one program
    (``batch.py``). The phase's facts are values (``terms.Fact``), spelled when the program is made:
    alone as they are (``text``), in a joint program numbered as its k-th phase."""

    programs: tuple[str, ...]
    facts: tuple[Fact, ...]
    static: str = ""
    statistics: bool = False
    # the same question over a small fixed universe of atoms: one phase at a time, it is answered on a
    # program grounded once (``solve_in_universe``); a batch answers ``facts`` in its joint program
    universe: Universe | None = None

    def text(self) -> str:
        """The facts as the program of this phase alone reads them."""
        return render(self.facts)

    def names(self) -> frozenset[str]:
        """The predicates of the facts, known from the values before they are spelled: the driver
        grounds the rules that can fire on them without reading them off the text."""
        return frozenset(f[0] for f in self.facts)


Steps = Generator[Query, Solution, "StepReport"]


def run(steps: Generator[Query, Solution, object]):
    """Answers a step's queries one by one; returns what the step returns."""
    try:
        query = next(steps)
        while True:
            if query.universe is not None and not query.statistics:
                answer = solve_in_universe(query.programs, query.universe, query.static)
            else:
                answer = solve_decisions(query.programs, query.text(), query.static, statistics=query.statistics,
                                         names=query.names())
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
    sustain: SustainResult | None = None  # the votes and dissolutions of a sustain phase
    dislodgers: tuple[str, ...] = ()  # for each dislodged unit, the unit that dislodged it (``A a-Mun@0``)
    # the past boards fought again (docs/rules.md §5), each with the new orders that reached it, fully designated
    refought: tuple[tuple[tuple[int, int], tuple[str, ...]], ...] = ()
    # the recorded orders of those boards judged again, fully designated, each with its result now
    rejudged: tuple[tuple[str, str], ...] = ()


def designation(mv: Multiverse, place: tuple[int, int, str]) -> str:
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
            units.append(designation(mv, place))
    causes = [Cause(kind, tuple(sorted(set(units))), strength, against, versus, what, count, timeline)
              for (kind, strength, against, versus, what, count, timeline), units in grouped.items()]
    causes += [c for c in paradox if c not in causes]
    order = {k: n for n, k in enumerate(CAUSE_KINDS)}
    return tuple(sorted(causes, key=lambda c: (order.get(c.kind, len(order)), c.units, c.versus or "")))


def _local(r: ResolvedOrder, causes: Sequence[Cause] = ()):
    """Shortens the designations of units on the order's own board, ``A a-Ber@1`` → ``A Ber``, when
    one board is all the order and its reason involve. When a second board is involved (the order
    reaches another board, or a unit of the reason stands on one), every unit keeps its board:
    ``bounced with A Boh, A b-Boh@1`` would leave the reader to guess which Bohemia the first is."""
    keep = lambda u: u  # noqa: E731
    if r.unit is None:
        return keep
    here = r.unit.board
    if any(p is not None and p.board != here for p in (r.target, r.dest)):
        return keep
    prefix, suffix = f"{timeline_name(r.unit.timeline)}-", f"@{r.unit.turn}"

    def on_board(u: str) -> bool:
        where = u.partition(" ")[2]
        return where.startswith(prefix) and where.endswith(suffix)

    if not all(on_board(u) for c in causes for u in c.units):
        return keep

    def local(u: str) -> str:
        letter, _, where = u.partition(" ")
        return f"{letter} {where[len(prefix):-len(suffix)]}"
    return local


def _paradox_causes(mv: Multiverse, backups) -> dict[tuple[int, int, str], list[Cause]]:
    """The driver's backup rules other than Szykman's (which the rules explain themselves), by the
    places of the units whose decisions they fixed."""
    out: dict[tuple[int, int, str], list[Cause]] = {}
    for rule, places in backups:
        if rule == BackupRule.SZYKMAN:
            continue
        read = [t.read_place(sym) for sym in places]
        cause = Cause(CauseKind.PARADOX, tuple(sorted(designation(mv, p) for p in read)), detail=rule)
        for p in read:
            out.setdefault(p, []).append(cause)
    return out


def outcomes(mv: Multiverse, orders, answer: Answer, backups=(), reasons: bool = True,
             results: dict[int, tuple[str, str | None]] | None = None) -> tuple[OrderOutcome, ...]:
    """Each order's result; with ``reasons``, why (its causes and their sentence). Without, a legal
    order has neither: its program was grounded without the reasons, and the backup rules the driver
    applied are left out of the causes too (the step's report still names them, ``StepReport.backups``),
    so that an outcome never explains only part of its result. An invalid order keeps its reason: it
    comes from the legality rules or from reading the order, not from the reasons. ``results``:
    ``answer.order_results()`` when the caller has read them already (they are not read twice)."""
    if results is None:
        results = answer.order_results(mv.options.chosen("adjacency"))
    why = answer.reasons() if reasons else {}
    paradox = _paradox_causes(mv, backups) if reasons else {}
    out = []
    for i, r in orders:
        result, reason = results.get(i, (Result.INVALID, r.problem or "not an order of this phase"))
        if result == Result.INVALID and i in results and r.unit_kind is not None:
            # the rules judged the unit standing there: say so when the line names another type
            note = kind_note(mv, r)
            reason = f"{reason}: {note}" if note else reason
        causes: tuple[Cause, ...] = ()
        if result != Result.INVALID and not reasons:
            reason = None
        elif result != Result.INVALID:
            place = (r.unit.timeline, r.unit.turn, r.unit.province) if r.unit else None
            causes = _causes(mv, why.get(i, ()), paradox.get(place, ()))
            reason = explain(causes, _local(r, causes))
        out.append(OrderOutcome(r.power, r.text, result, reason, r.order, mv.game_map, causes))
    return tuple(out)


REASONED = frozenset(Phase)  # programs with a ``<program>/reasons.lp``


K = TypeVar("K")
V = TypeVar("V")


def once_per(mv: Multiverse, name: str, work: Callable[[], dict[K, V]]) -> Mapping[K, V]:
    """What ``work`` finds of ``mv``, worked out once per multiverse and kept on it, read-only: a
    multiverse never changes once made (its own cached properties rest on the same), and what a phase
    asks of every power before any order is given (retreat options, adjustment balances) is asked
    again by every view of a served game while its phase waits, each time a solver call."""
    if not isinstance(mv, Multiverse):
        raise UsageError(f"once_per: mv must be a Multiverse, not {type(mv).__name__}")
    kept = mv.__dict__.get(name)
    if kept is None:
        kept = mv.__dict__[name] = work()
    return MappingProxyType(kept)


def program(mv: Multiverse, program: str, reasons: bool = False) -> tuple[str, ...]:
    """The entry encoding of ``program``, its reasons when asked for, and the logic files of the
    options in effect (options.py). The reasons only explain results (nothing else reads them), and
    they are 37 of the 280 statements of a median classic movement program, so a caller that reads no
    reason does not load them. Rules of your own (``RuleText``) may read any predicate of the
    movement parts, the reasons' among them, to decide a result: with them the reasons are always
    loaded."""
    files = mv.options.files(program)
    if program in REASONED and (reasons or any(is_rule_text(f) for f in files)):
        return (f"{program}.lp", f"{program}/reasons.lp", *files)
    return (f"{program}.lp", *files)

