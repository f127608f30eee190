"""The driver: one Control per adjudication, grounded once; several models or none settled by the
backup rules (``backup.py``); a program with rules of your own ground and solved apart, in a child
process (``apart.py``).

This module is the solver's face: the rest of the package imports ``solve_decisions``,
``solve_in_universe`` and the names below from here. Where each part lives:
``encodings.py`` (the files, parsed once), ``program.py`` (the rules a phase's facts can fire, and
the ground program), ``calls.py`` (one solver call within the time limit), ``backup.py`` (the
backup rules), ``limits.py`` (the time and memory limits).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import clingo

from ..errors import AdjudicationError, MemoryLimitError, TimeLimitError
from .apart import LimitHit, run_apart
from .backup import DECISIONS, _Driver, _Model
from .calls import _FIRST_MODELS, _solve
from .encodings import RuleText, asp_dir, is_rule_text
from .limits import (_MEMORY_LIMIT, _MEMORY_REMEDY, _MIB, _TIME_LIMIT, _TIME_REMEDY, DEFAULT_MEMORY_LIMIT,
                     DEFAULT_TIME_LIMIT, _Clock, _count, check_memory_limit, check_time_limit, limit_remedies,
                     memory_limit, time_limit, time_limit_in_effect)
from .program import _control, _statements, _static_statements, encoding_size, refusals_alone
from .terms import symbol_texts

__all__ = ["DECISIONS", "DEFAULT_MEMORY_LIMIT", "DEFAULT_TIME_LIMIT", "RuleText", "Solution", "Universe", "asp_dir",
           "check_memory_limit", "check_time_limit", "encoding_size", "is_rule_text", "limit_remedies", "memory_limit",
           "refusals_alone", "solve_decisions", "solve_in_universe", "time_limit", "time_limit_in_effect"]


@dataclass(frozen=True)
class Solution:
    """The shown atoms of the chosen model, the backup rules that chose it, and clingo's statistics."""

    atoms: tuple[clingo.Symbol, ...]
    backups: tuple[tuple[str, tuple[clingo.Symbol, ...]], ...] = ()  # (rule, the places it applied to)
    models_seen: int = 1
    ground_seconds: float = 0.0
    solve_seconds: float = 0.0
    atoms_count: int = 0
    rules_count: int = 0
    add_seconds: float = 0.0  # of ``ground_seconds``: handing the encoding and the facts to clingo
    statistics_seconds: float = 0.0  # reading clingo's statistics, when asked for (after solving)
    # solved without settling (``solve_decisions(settle=False)``) and found several models: the shown
    # atoms that hold in some of them and not in all; ``atoms`` then holds those that hold in all
    unsettled: tuple[clingo.Symbol, ...] = ()


@dataclass(frozen=True)
class Universe:
    """A query over a small fixed universe of atoms, answered by a program grounded once and reused
    (``solve_in_universe``): ``fixed`` holds the facts that are the same for every query of this universe,
    ``atoms`` every atom a query may state (as text), ``true`` those this query states. The rules must
    derive from the atoms alone, not from their absence in the universe: the program sees the
    universe's other atoms as false, exactly as if they were not given."""

    fixed: str
    atoms: tuple[str, ...]
    true: frozenset[str]


class _Grounded:
    """A program grounded once with every atom of its universe an external, and a lock: a query assumes
    its atoms true and the rest false, and is solved on the same ground program (the solver keeps no
    state between calls that changes an answer)."""

    def __init__(self, programs: tuple[str, ...], static: str, fixed: str, atoms: tuple[str, ...]) -> None:
        externals = "".join(f"#external {a}.\n" for a in atoms)
        self.ctl, _ = _control(programs, fixed + externals, static)
        symbolic = self.ctl.symbolic_atoms
        literal: dict[str, int] = {}
        for a in atoms:
            found = symbolic[clingo.parse_term(a)]
            literal[a] = found.literal if found is not None else 0
            if literal[a]:
                self.ctl.assign_external(literal[a], None)  # free: each query fixes it by assumption
        # every atom assumed false, and where each atom stands in that list: a query turns its few true
        # atoms round instead of testing several hundred (an atom that grounds to no literal, 0, is
        # read by no rule: nothing to assume about it)
        held = [a for a, lit in literal.items() if lit]
        self.all_false = tuple(-literal[a] for a in held)
        self.position = {a: i for i, a in enumerate(held)}
        self.lock = threading.Lock()


@lru_cache(maxsize=8)
def _grounded(programs: tuple[str, ...], static: str, fixed: str, atoms: tuple[str, ...]) -> _Grounded:
    """The ground program of a universe, made once per process (a few universes are ever in use: one
    per map, option and number of boards in play)."""
    return _Grounded(programs, static, fixed, atoms)


def solve_in_universe(programs: Sequence[str], universe: Universe, static: str = "") -> Solution:
    """The one model of a program without choices (the victory rules) on the atoms ``universe.true``,
    read off a ground program shared by every query of the same universe: a new program each time
    would cost more to ground than the answer costs to find."""
    t0 = time.perf_counter()
    grounded = _grounded(tuple(programs), static, universe.fixed, universe.atoms)
    clock = _Clock(_TIME_LIMIT.get())
    assumptions = list(grounded.all_false)
    for a in universe.true:
        i = grounded.position.get(a)
        if i is not None:
            assumptions[i] = -assumptions[i]
    shown: list[tuple[clingo.Symbol, ...]] = []
    with grounded.lock:
        t1 = time.perf_counter()
        # the Control asks for two models as ``new_control`` made it, and nothing sets it otherwise
        _solve(grounded.ctl, clock, assumptions, on_model=lambda m: shown.append(tuple(m.symbols(shown=True))),
               restart=shown.clear, wanted=_FIRST_MODELS)
    t2 = time.perf_counter()
    if len(shown) != 1:
        raise AdjudicationError(f"the rules ({', '.join(programs)}) have {len(shown)} answers where one was expected")
    return Solution(atoms=shown[0], ground_seconds=t1 - t0, solve_seconds=t2 - t1)


def solve_decisions(programs: Sequence[str], facts: str, static: str = "", *, statistics: bool = False,
                    time_limit: float | None = None, names: frozenset[str] | None = None,
                    settle: bool = True) -> Solution:
    """Solves a phase's program on ``facts`` plus the unchanging ``static`` facts (the map); for movement,
    applies the backup rules until one model remains. ``time_limit`` (seconds; by default the limit
    set with ``time_limit()``, else ``DEFAULT_TIME_LIMIT``) bounds the whole call: TimeLimitError.
    ``names``: the predicate names of every fact in ``facts``, when the caller built them as values
    (``{f[0] for f in facts}``), so that they need not be read off the text; it must name them all (a
    predicate left out leaves out the rules that read it). None: read off the text, which then holds
    facts, externals and directives only (anything else grounds the whole program).
    ``settle=False``: with several models, no backup rule is applied; the answer holds the atoms true in
    every model and, in ``unsettled``, those true in some (many phases solved together, ``batch.py``,
    answer the unsettled ones again alone, so they need not be settled here). With no model, or with
    more open parts than the consequences are worth reading for (``_Driver.consequences``), the backup
    rules are applied all the same."""
    clock = _Clock(check_time_limit(time_limit) if time_limit is not None else _TIME_LIMIT.get())
    if any(isinstance(p, RuleText) for p in programs):
        return _solved_apart(programs, facts, static, names, clock, statistics, settle)
    return _solved(programs, facts, static, names, clock, statistics, settle)


def _solved(programs: Sequence[str], facts: str, static: str, names: frozenset[str] | None, clock: _Clock,
            statistics: bool, settle: bool) -> Solution:
    """``solve_decisions`` in this process."""
    t0 = time.perf_counter()
    ctl, added = _control(programs, facts, static, names)
    t1 = time.perf_counter()
    driver = _Driver(ctl, clock)
    unsettled: tuple[clingo.Symbol, ...] = ()
    if settle:
        model, seen = driver.run()
    else:
        first = driver.model(shown=True, count=2, values=False)
        model, seen = first
        consequences = driver.consequences() if seen == 2 else None
        if consequences is not None:
            every, some = consequences
            always = frozenset(every)
            model, unsettled = _Model([], every), tuple(a for a in some if a not in always)
        elif seen != 1:
            # no model, or too many open parts to read: the backup rounds, from the call made already
            model, seen = driver.run(first)
    assert model is not None
    t2 = time.perf_counter()
    # reading clingo's statistics converts its whole tree: only when a benchmark asks
    stats = ctl.statistics.get("problem", {}).get("lp", {}) if statistics else {}
    t3 = time.perf_counter()
    return Solution(
        atoms=model.shown,
        backups=tuple(driver.backups),
        models_seen=seen,
        ground_seconds=t1 - t0,
        solve_seconds=t2 - t1,
        atoms_count=int(stats.get("atoms", 0)),
        rules_count=int(stats.get("rules", 0)),
        add_seconds=added,
        statistics_seconds=t3 - t2,
        unsettled=unsettled,
    )


# the time a program done apart is given past its time limit, so that a child whose solving ran out
# of time reports it itself, with the decisions and parts it found (``_Clock.exceeded``)
_GRACE = 0.5
_HEADS = re.compile(r"^head\(", re.M)
_ORDERS = re.compile(r"^order\(", re.M)


def _solved_apart(programs: Sequence[str], facts: str, static: str, names: frozenset[str] | None, clock: _Clock,
                  statistics: bool, settle: bool) -> Solution:
    """``solve_decisions`` for a program with rules of your own: ground and solved in a child process
    (``apart.py``) within the time limit and the memory limit, since clingo cannot interrupt its
    grounder and such a rule may make it run without end. The encodings are parsed here first, so
    that this process keeps them parsed (the child's caches end with it); the answer comes back as
    text (symbols do not pickle) and is read here again."""
    statements = _statements(tuple(programs), facts, static, names)
    _static_statements(static, statements.reads)
    mib = _MEMORY_LIMIT.get()

    try:
        atoms, backups, unsettled, *numbers = run_apart(
            _solved_as_text, max(clock.left(), 0.0) + _GRACE, mib * _MIB,
            (programs, facts, static, names, clock.limit, clock.started, statistics, settle,
             (_TIME_REMEDY.get(), _MEMORY_REMEDY.get())))
    except LimitHit as hit:
        mine = [r.source or "of your own" for r in programs if isinstance(r, RuleText)]
        rules = f"rule{'s' if len(mine) > 1 else ''} {', '.join(mine)}"
        size = (f"{_count(len(_HEADS.findall(facts)), 'board')} in play, "
                f"{_count(len(_ORDERS.findall(facts)), 'order')}")
        if hit.kind == "time":
            raise TimeLimitError(f"this step is too big to ground and settle within the time limit of "
                                 f"{clock.limit:g} s with your {rules} ({size}); {_TIME_REMEDY.get()}, or look in the "
                                 "rule for one that grounds without end") from None
        raise MemoryLimitError(f"this step is too big to ground within the memory limit of {mib:,} MiB with your "
                               f"{rules} ({size}{'; ' + hit.detail if hit.detail else ''}); {_MEMORY_REMEDY.get()}, or "
                               "look in the rule for one that grounds without end") from None
    parse = clingo.parse_term
    models_seen, ground_seconds, solve_seconds, atoms_count, rules_count, add_seconds, statistics_seconds = numbers
    return Solution(
        atoms=tuple(parse(a) for a in atoms),
        backups=tuple((rule, tuple(parse(p) for p in places)) for rule, places in backups),
        models_seen=models_seen,
        ground_seconds=ground_seconds,
        solve_seconds=solve_seconds,
        atoms_count=atoms_count,
        rules_count=rules_count,
        add_seconds=add_seconds,
        statistics_seconds=statistics_seconds,
        unsettled=tuple(parse(a) for a in unsettled),
    )


def _solved_as_text(programs: Sequence[str], facts: str, static: str, names: frozenset[str] | None, limit: float,
                    started: float, statistics: bool, settle: bool, remedies: tuple[str, str]) -> tuple:
    """``_solved`` in the child of ``_solved_apart``, its answer as text (symbols do not pickle); the
    time limit counted from the parent's start (one clock for both processes), and the remedies its
    messages name as the parent's."""
    with limit_remedies(*remedies):
        solution = _solved(programs, facts, static, names, _Clock(limit, started), statistics, settle)
    backups = tuple((rule, tuple(symbol_texts(places))) for rule, places in solution.backups)
    return (symbol_texts(solution.atoms), backups,
            symbol_texts(solution.unsettled), solution.models_seen, solution.ground_seconds,
            solution.solve_seconds, solution.atoms_count, solution.rules_count, solution.add_seconds,
            solution.statistics_seconds)
