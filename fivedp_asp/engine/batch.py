"""Many independent phases adjudicated together: one program, grounded once and solved once.

Grounding a phase's program costs a fixed amount per rule whatever the facts (for the movement
program, more than its facts cost: docs/benchmarks.md), so phases that wait at the
same time — the scenarios of ``fivedp check`` step by step, the games of ``fivedp compare``, the
option values of ``fivedp explore``, a benchmark — are cheaper asked together. A step is a generator
of solver queries (``step.Query``); ``step_many`` advances many steps in lockstep and answers their
queries that use the same programs on the same map in one program.

The phases are kept apart by numbering alone. Phase k's facts are spelled as the k-th phase
(``predicates.fact_lines``): every timeline is moved up by ``k * TIMELINE_STRIDE`` (inside board terms
``b(T,N)`` and where a fact names a timeline, ``terms.Timeline``) and every order id by
``k * ORDER_STRIDE`` (``terms.OrderId``, ``terms.OrderIds``). No order names a board of another
phase and boards are only related through the pairs that orders name, so no rule joins two phases;
each shown atom belongs to the phase its first board or order id falls in, and is handed back with
that phase's own numbers. The joint program's decisions are not settled there (``solve_decisions``,
``settle=False``): with several models, the atoms that hold in every model are read, and a phase with
an atom that holds in some models only is answered again on its own, where the driver settles it, so
that a paradox is always resolved exactly as if its phase stood alone. (With no model at all, the
driver settles the joint program, and a phase it settled is answered again alone too.) Phases are
independent, so every other phase has one answer, the same in every model of the joint program and
the same as alone.

The victory rules judge a game over all its heads: their facts name the game (``head/2``,
``player/2``, ``out/2``: ``terms.Game``), which is numbered k, and so are their answers. Programs whose rules relate a
whole game in other ways are answered one phase at a time: the sustain phase, and the option files listed in
``GAME_WIDE`` (civil disorder under ``datc_4d9=fails`` looks at every order of a power; jump assists
count a game's timelines). A waive names no board and goes to the power's first board with builds:
its facts name the boards of its own phase (``waive_on/2``), so it is batched like any order. Should
a combined program fail (a phase whose rules have no solution), its phases are answered again one at
a time, so each failure is reported with its own phase.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Generator, Sequence

from ..errors import AdjudicationError
from ..solver.driver import Solution, solve_decisions
from ..solver.predicates import fact_lines
from ..solver.terms import ORDER_STRIDE, TIMELINE_STRIDE, symbol_texts
from . import collector
from .phase import Query, StepReport
from .step import OrderLines, steps

MAX_BATCH = 1 << 10  # phases per program: the largest numbers stay within clingo's 32-bit integers

BATCHED_PROGRAMS = frozenset({"movement.lp", "retreat.lp", "adjustment.lp", "victory.lp"})
GAME_WIDE = frozenset({"options/datc_4d9_fails.lp", "options/jump_assists.lp"})

# the stages of a step's time, as the benchmarks report them (``fivedp bench --profile``)
STAGES = ("parse", "facts", "add", "ground", "solve", "free", "answer")


@dataclass
class Stages:
    """Where the time of phases adjudicated together goes (``step_many(stages=...)``, for the benchmarks):
    seconds per stage (``STAGES``) summed over every phase and program; the programs grounded, the
    phases answered again alone, and the ground rules and atoms of every program (counted when the
    phases ask for clingo's statistics)."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    programs: int = 0
    alone: int = 0
    rules: int = 0
    atoms: int = 0

    def solved(self, solution: Solution, wall: float) -> None:
        """A program's call that took ``wall`` seconds: the stages the solution timed, the rest releasing it."""
        self.seconds["add"] += solution.add_seconds
        self.seconds["ground"] += solution.ground_seconds - solution.add_seconds
        self.seconds["solve"] += solution.solve_seconds
        self.seconds["free"] += wall - solution.ground_seconds - solution.solve_seconds - solution.statistics_seconds
        self.programs += 1
        self.rules += solution.rules_count
        self.atoms += solution.atoms_count


def _alone(q: Query, stages: Stages | None) -> Solution:
    """A query answered in a program of its own (``stages``: where the time goes, when asked)."""
    t0 = time.perf_counter()
    text = q.text()
    t1 = time.perf_counter()
    solution = solve_decisions(q.programs, text, q.static, statistics=q.statistics, names=q.names())
    if stages is not None:
        stages.seconds["facts"] += t1 - t0
        stages.solved(solution, time.perf_counter() - t1)
    return solution


_BOARD = re.compile(r"\bb\((\d+),")
_RESULT = frozenset({"order_result", "illegal", "reason", "reaches"})  # shown atoms whose first argument is an order id
_GAME = frozenset({"eliminated", "winner"})  # shown atoms whose first argument is a game


def batchable(query: Query) -> bool:
    # a waive names no board of its own: its facts name the boards of its phase (waive_on/2), among
    # which the rules choose the power's first board with builds
    return query.programs[0] in BATCHED_PROGRAMS and not GAME_WIDE.intersection(query.programs[1:])


def _owner(text: str) -> int | None:
    """The phase an atom (as text) belongs to: that of its first board, or of its order id; None for an
    atom without either (it holds for every phase of the program)."""
    cut = text.find("(")
    if cut > 0 and text[:cut] in _RESULT:
        end = text.find(",", cut)
        return int(text[cut + 1:end]) // ORDER_STRIDE
    if cut > 0 and text[:cut] in _GAME:
        return int(text[cut + 1:text.find(",", cut)])
    m = _BOARD.search(text)
    return int(m[1]) // TIMELINE_STRIDE if m else None


@lru_cache(maxsize=MAX_BATCH)
def _shifted_board(k: int) -> re.Pattern:
    """What phase ``k``'s shift adds before a timeline: ``b(`` and the digits of ``k`` and any zeros up to
    the timeline's own first digit. As ``TIMELINE_STRIDE`` is 10,000, timeline T of phase k is written as
    k followed by T in four digits (``b(20003,`` is timeline 3 of phase 2), so that text alone takes the
    shift off, with no Python call per board."""
    return re.compile(rf"\bb\({k}(?=\d{{4}},)0{{0,3}}")


def _unshift_all(texts: list[str], k: int) -> list[str]:
    """Phase ``k``'s atoms (as text) with its own numbers: boards in one pass over their joined text,
    then the order id or game that some atoms begin with."""
    if k == 0 or not texts:
        return texts
    out = []
    for text in _shifted_board(k).sub("b(", "\n".join(texts)).split("\n"):
        cut = text.find("(")
        name = text[:cut] if cut > 0 else ""
        if name in _RESULT or name in _GAME:
            end = text.find(",", cut)
            step = ORDER_STRIDE if name in _RESULT else 1
            text = f"{text[:cut + 1]}{int(text[cut + 1:end]) - k * step}{text[end:]}"
        out.append(text)
    return out


def solve_together(queries: Sequence[Query], stages: Stages | None = None) -> list[Solution]:
    """The queries' answers, from one program (they share programs and map facts, see ``batchable``);
    ``stages``: where the time goes, when asked."""
    first = queries[0]
    t0 = time.perf_counter()
    # the phases repeat each other's map-level facts (the edges from where their units stand): a fact
    # written twice is one fact, and clingo reads each line of text at some cost
    lines = dict.fromkeys(line for k, q in enumerate(queries) for line in fact_lines(q.facts, k))
    facts = "\n".join(lines) + "\n"
    t1 = time.perf_counter()
    # several models are not settled in the joint program: the phases they differ in are answered alone
    joint = solve_decisions(first.programs, facts, first.static, statistics=any(q.statistics for q in queries),
                            names=frozenset().union(*(q.names() for q in queries)), settle=False)
    t2 = time.perf_counter()
    atoms: list[list[str]] = [[] for _ in queries]
    shared: list[str] = []
    for text in symbol_texts(joint.atoms):
        k = _owner(text)
        if k is None:
            shared.append(text)
        else:
            atoms[k].append(text)
    atoms = [_unshift_all(texts, k) for k, texts in enumerate(atoms)]
    # a phase is answered again alone when the joint program left some of its atoms open (several
    # models), or when it needed a backup rule (no model): the driver's choices in a joint program (an
    # unsatisfiable core, say) may take in another phase's fleets
    owners = {_owner(str(a)) for a in joint.unsettled}
    owners.update(_owner(str(place)) for _, places in joint.backups for place in places)
    if None in owners:  # an atom of no phase in particular: no phase can be told settled
        owners = set(range(len(queries)))
    if stages is not None:
        stages.seconds["facts"] += t1 - t0
        stages.solved(joint, t2 - t1)
        stages.seconds["answer"] += time.perf_counter() - t2
        stages.alone += len(owners)
    return [_alone(q, stages)
            if k in owners else
            Solution(tuple(atoms[k] + shared), (), joint.models_seen, joint.ground_seconds, joint.solve_seconds,
                     joint.atoms_count, joint.rules_count)
            for k, q in enumerate(queries)]


def answer_all(queries: Sequence[Query], stages: Stages | None = None) -> list[Solution | Exception]:
    """Each query's answer (or the error it raised), queries of one program and map asked together;
    ``stages``: where the time goes, when asked."""
    out: list[Solution | Exception | None] = [None] * len(queries)
    groups: dict[tuple, list[int]] = {}
    for n, q in enumerate(queries):
        key = (q.programs, q.static) if batchable(q) else ("alone", n)
        groups.setdefault(key, []).append(n)
    for members in groups.values():
        for start in range(0, len(members), MAX_BATCH):
            part = members[start:start + MAX_BATCH]
            if len(part) > 1:
                try:
                    for n, solution in zip(part, solve_together([queries[n] for n in part], stages)):
                        out[n] = solution
                    continue
                except AdjudicationError:
                    pass  # some phase has no solution: ask each alone, so the error names its own phase
            for n in part:
                try:
                    out[n] = _alone(queries[n], stages)
                except AdjudicationError as exc:
                    out[n] = exc
    return out  # type: ignore[return-value]


@dataclass
class _Running:
    steps: Generator[Query, Solution, StepReport]
    query: Query | None = None


def run_all(generators: Sequence[Generator | Exception], stages: Stages | None = None) -> list[object]:
    """Runs step generators (``step.steps``) in lockstep, their queries answered together; returns what
    each returns, or the exception it raised (an exception given in place of a generator is kept).
    ``stages``: where the time goes, when asked (the steps' first queries are their facts, what they
    do with an answer is reading it, with any later query's facts, as ``fivedp bench --profile`` says)."""
    results: list[object] = [g if isinstance(g, Exception) else None for g in generators]
    running: dict[int, _Running] = {}
    t0 = time.perf_counter()
    for n, g in enumerate(generators):
        if isinstance(g, Exception):
            continue
        _advance(results, running, n, _Running(g), lambda r: next(r.steps))
    if stages is not None:
        stages.seconds["facts"] += time.perf_counter() - t0
    while running:
        order = sorted(running)
        answers = answer_all([running[n].query for n in order], stages)
        t0 = time.perf_counter()
        for n, answer in zip(order, answers):
            r = running.pop(n)
            if isinstance(answer, Exception):
                r.steps.close()
                results[n] = answer
                continue
            _advance(results, running, n, r, lambda r, a=answer: r.steps.send(a))
        if stages is not None:
            stages.seconds["answer"] += time.perf_counter() - t0
    return results


def _advance(results: list, running: dict, n: int, r: _Running, move: Callable[[_Running], Query]) -> None:
    try:
        r.query = move(r)
        running[n] = r
    except StopIteration as stop:
        results[n] = stop.value
    except Exception as exc:  # the step's own error (bad input found late, an engine defect): that phase's alone
        results[n] = exc


def step_many(items: Sequence[tuple[object, OrderLines]], *, statistics: bool = False,
              reasons: bool = True, stages: Stages | None = None) -> list[StepReport | Exception]:
    """``step.step`` for many independent phases ``(multiverse, orders)`` at once: the same reports, in the
    same order; a phase whose input is bad (or that cannot be adjudicated) gives its exception in place
    of a report, and the other phases are unaffected. ``reasons`` as for ``step.step``; the cycle
    collector held off as there (``collector.paused``). ``stages`` (a new ``Stages``): where the time
    goes, added to it (the benchmarks' profile)."""
    with collector.paused():
        t0 = time.perf_counter()
        generators: list[Generator | Exception] = []
        for mv, orders in items:
            try:
                generators.append(steps(mv, orders, statistics=statistics, reasons=reasons))
            except Exception as exc:
                generators.append(exc)
        if stages is not None:
            stages.seconds["parse"] += time.perf_counter() - t0
        return run_all(generators, stages)  # type: ignore[return-value]
