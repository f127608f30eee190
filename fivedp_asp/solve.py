"""The driver: one Control per adjudication, grounded once; backup rules by assumptions.

The decision encodings have one stable model per solution of the rules. One model: that is the
result. None or several: a circular dependency that the rules leave open (DATC §5.B.9). The
driver classifies it as RULES.md §1 says — an undecided move into a fleet with a convoy order
means a convoy paradox, otherwise circular movement — and applies the backup rule by fixing
atoms through assumptions on the same ground program:
- convoy paradox: the Szykman rule, the paradox's convoying fleets hold (``szykman/1`` externals);
  or, when the program states ``backup_rule(all_hold)`` (an option's logic file, DATC 4.A.2), the
  'All Hold' rule: the paradox's moves fail and take no effect (``all_hold/1`` externals, which
  take the units' moves out of the program);
- circular movement: the undecided moves succeed (assumptions on ``moves/1``);
- any other cycle (DATC §5.B.9, for variants): its undecided decisions fail.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import clingo
from clingo import ast

from .errors import AdjudicationError, EncodingError

DECISIONS = ("moves", "dislodged", "given", "path", "assist_given")


def asp_dir() -> Path:
    """Where the logic programs are: inside the installed package, or ``asp/`` in a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "asp", here.parent / "asp"):
        if (candidate / "movement.lp").is_file():
            return candidate
    raise AdjudicationError(f"the logic programs (asp/) are missing next to {here}")


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


class _Messages:
    """Collects clingo's messages, so that an encoding clingo cannot read is reported with its file and
    line (``asp/movement/decisions.lp:12:5-6: error: syntax error, ...``) instead of a bare RuntimeError."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, code: clingo.MessageCode, message: str) -> None:
        self.lines.append(message.strip())

    def error(self, what: str) -> EncodingError:
        detail = "\n".join(self.lines) or "clingo gave no message"
        return EncodingError(f"{what}:\n{detail}")


@lru_cache(maxsize=16)
def _parsed_programs(programs: tuple[str, ...]) -> tuple[ast.AST, ...]:
    """The encodings, parsed once per process: they never change, and parsing costs more than grounding."""
    statements: list[ast.AST] = []
    messages = _Messages()
    try:
        ast.parse_files([str(asp_dir() / name) for name in programs], statements.append, logger=messages)
    except RuntimeError:
        raise messages.error(f"the logic programs cannot be read ({', '.join(programs)})") from None
    # comments are statements in the AST too; the grounder has no use for them
    return tuple(s for s in statements if s.ast_type != ast.ASTType.Comment)


@lru_cache(maxsize=16)
def _parsed_facts(text: str) -> tuple[ast.AST, ...]:
    """Facts that are the same for every step on a map (its geography), parsed once."""
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return tuple(statements)


def _control(programs: Sequence[str], facts: str, static: str) -> clingo.Control:
    parsed = _parsed_programs(tuple(programs)) + _parsed_facts(static)
    messages = _Messages()
    ctl = clingo.Control(["--warn=none"], logger=messages)
    try:
        with ast.ProgramBuilder(ctl) as builder:
            for statement in parsed:
                builder.add(statement)
        ctl.add("base", [], facts)
        ctl.ground([("base", [])])
    except RuntimeError:
        raise messages.error(f"the logic programs cannot be grounded ({', '.join(programs)})") from None
    return ctl


def _models(ctl: clingo.Control, assumptions: list, limit: int) -> list[tuple[clingo.Symbol, ...]]:
    found = []
    ctl.configuration.solve.models = limit
    with ctl.solve(yield_=True, assumptions=assumptions) as handle:
        for model in handle:
            found.append(tuple(model.symbols(shown=True)))
            if len(found) >= limit:
                break
    return found


def _consequences(ctl: clingo.Control, assumptions: list, mode: str) -> set[clingo.Symbol]:
    ctl.configuration.solve.enum_mode = mode
    ctl.configuration.solve.models = 0
    last: set[clingo.Symbol] = set()
    with ctl.solve(yield_=True, assumptions=assumptions) as handle:
        for model in handle:
            last = set(model.symbols(shown=True))
    ctl.configuration.solve.enum_mode = "auto"
    return last


def _core(ctl: clingo.Control, assumptions: list) -> list[int]:
    core: list[int] = []

    def on_core(lits: Iterable[int]) -> None:
        core.extend(lits)

    ctl.configuration.solve.models = 1
    ctl.solve(assumptions=assumptions, on_core=on_core)
    return core


def _paradox_units(ctl: clingo.Control, fleets: set, undecided: set, held: set) -> list[clingo.Symbol]:
    """The 'All Hold' rule (DATC 4.A.2): the units whose moves make up the paradox, not yet held. They are
    the units moving into the paradox's convoying fleets and the armies those fleets convoy; only when
    those are all held already, the units of the undecided moves. Empty when those too are held (the
    driver then falls back to the Szykman rule). A move that merely depends on the paradox's outcome
    is not part of it: it is adjudicated once the paradox's moves have failed."""
    atoms = ctl.symbolic_atoms
    armies = {a.symbol.arguments[1] for a in atoms.by_signature("convoys", 2) if a.symbol.arguments[0] in fleets}
    movers = {a.symbol.arguments[0] for a in atoms.by_signature("move", 2)
              if a.symbol.arguments[1] in fleets or a.symbol.arguments[0] in armies}
    for units in (movers, {m.arguments[0] for m in undecided}):
        new = sorted(u for u in units if clingo.Function("all_hold", [u]) in atoms and u not in held)
        if new:
            return new
    return []


def solve_decisions(programs: Sequence[str], facts: str, static: str = "", *, max_rounds: int = 20,
                    statistics: bool = False) -> Solution:
    """Solves a phase's program on ``facts`` plus the unchanging ``static`` facts (the map); for movement,
    applies the backup rules until one model remains."""
    t0 = time.perf_counter()
    ctl = _control(programs, facts, static)
    t1 = time.perf_counter()
    atoms = ctl.symbolic_atoms
    szykman = sorted(a.symbol for a in atoms.by_signature("szykman", 1))
    for sym in szykman:
        ctl.assign_external(sym, None)  # free: every solve call fixes it by assumption
    # the program says which paradox backup rule applies (datc_4a2); the Szykman rule unless it says otherwise
    all_hold = any(str(a.symbol.arguments[0]) == "all_hold" for a in atoms.by_signature("backup_rule", 1))
    failing = sorted(a.symbol for a in atoms.by_signature("all_hold", 1))
    for sym in failing:
        ctl.assign_external(sym, None)
    held: set[clingo.Symbol] = set()
    stopped: set[clingo.Symbol] = set()  # units whose moves a paradox made fail ('All Hold')
    circular: list[tuple[clingo.Symbol, bool]] = []
    backups: list[str] = []
    seen = 0

    def assumptions() -> list:
        return ([(s, s in held) for s in szykman] + [(s, s.arguments[0] in stopped) for s in failing]
                + circular)

    def hold_all(units: list[clingo.Symbol]) -> bool:
        stopped.update(units)
        if units:
            backups.append(("all_hold", tuple(units)))
        return bool(units)

    for _ in range(max_rounds):
        models = _models(ctl, assumptions(), 2)
        seen = max(seen, len(models))
        if len(models) == 1:
            t2 = time.perf_counter()
            # reading clingo's statistics converts its whole tree: only when a benchmark asks
            stats = ctl.statistics.get("problem", {}).get("lp", {}) if statistics else {}
            return Solution(
                atoms=models[0],
                backups=tuple(backups),
                models_seen=seen,
                ground_seconds=t1 - t0,
                solve_seconds=t2 - t1,
                atoms_count=int(stats.get("atoms", 0)),
                rules_count=int(stats.get("rules", 0)),
            )
        if not models:
            # no solution: find the convoying fleets the contradiction rests on (an unsat core)
            lits = {atoms[s].literal: s for s in szykman if s not in held}
            core = [lits[-lit] for lit in _core(ctl, assumptions()) if -lit in lits]
            if not core:
                raise AdjudicationError("no adjudication satisfies the rules, and no convoy paradox explains it")
            if all_hold and hold_all(_paradox_units(ctl, {c.arguments[0] for c in core}, set(), stopped)):
                continue
            held.update(core)
            backups.append(("szykman", tuple(sorted(c.arguments[0] for c in core))))
            continue
        brave = _consequences(ctl, assumptions(), "brave")
        cautious = _consequences(ctl, assumptions(), "cautious")
        undecided = {s for s in brave - cautious if s.name in DECISIONS}
        convoying = {s.arguments[0] for s in cautious if s.name == "convoys"}
        fleets = set()
        for s in undecided:
            if s.name == "moves":
                dest = next((m.arguments[1] for m in cautious if m.name == "move" and m.arguments[0] == s.arguments[0]), None)
                if dest in convoying:
                    fleets.add(dest)
            elif s.name == "dislodged" and s.arguments[0] in convoying:
                fleets.add(s.arguments[0])
        if all_hold and fleets and hold_all(_paradox_units(ctl, fleets, {s for s in undecided if s.name == "moves"},
                                                           stopped)):
            continue
        new = {clingo.Function("szykman", [f]) for f in fleets} - held
        if new:
            held.update(new)
            backups.append(("szykman", tuple(sorted(c.arguments[0] for c in new))))
            continue
        moves = sorted(s for s in undecided if s.name == "moves")
        if not moves:
            # not circular movement and no convoying fleet: DATC §5.B.9 lets the orders of the cycle fail
            circular.extend((s, False) for s in sorted(undecided) if (s, False) not in circular)
            backups.append(("fail", tuple(sorted(s.arguments[0] for s in undecided))))
            continue
        # circular movement: every undecided move succeeds, kept one by one while a solution remains
        for m in moves:
            circular.append((m, True))
            if not _models(ctl, assumptions(), 1):
                circular.pop()
        backups.append(("circular", tuple(m.arguments[0] for m, _ in circular if m in moves)))
    raise AdjudicationError("backup rules did not settle the adjudication")
