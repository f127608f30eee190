"""Which rules a phase can use: the statements of a program its facts can fire, and the ground program.

A rule with a positive body literal of a predicate that can have no atom never fires: grounding it
gives nothing, yet each rule costs the grounder a fixed amount whatever the facts. Which predicates can
have atoms follows from the facts' predicates (a phase without convoy orders has no ordered_convoy
facts, a step with every board a head has no past_board facts) by a fixpoint over the rules' heads.
Rules that cannot fire are left out, and negative literals of such predicates (always true) are
dropped from the bodies. The ground program keeps every atom and every rule instance that can fire,
so the answers are the same; what goes is clingo's bookkeeping for the rules left out (the
projections of their `_` arguments), and the fixed cost of each rule.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Iterable, Sequence

import clingo
from clingo import ast

from ..errors import EncodingError, MemoryLimitError, TimeLimitError
from .apart import LimitHit, run_apart
from .backup import DECISIONS, LINKS
from .calls import new_control
from .encodings import (RuleText, _Dependencies, _Messages, _Signature, _dependencies, _parsed_facts,
                        _parsed_programs, _plain_head, _signature)
from .limits import _MEMORY_LIMIT, _MIB, check_time_limit

_FACT_NAME = re.compile(r"^[ \t]*(?:#external[ \t]+)?([a-z_][A-Za-z0-9_']*)", re.M)


def _fact_names(text: str) -> frozenset[str] | None:
    """The predicates of a facts text, written as the facts builders write it: a fact, an external
    (``#external a.``) or a directive on each line. None for text with anything else (a rule, a
    choice, a disjunction): its atoms are not read here, and the program is then used whole."""
    if ":-" in text or ";" in text or "{" in text:
        return None
    return frozenset(_FACT_NAME.findall(text))


_static_names = lru_cache(maxsize=16)(_fact_names)  # the map's facts: the same text for every step


class _Statements(tuple):
    """The statements of a program left for a phase, and ``reads``: the predicates they, the shown
    atoms and the driver read (None: any predicate may be read); a map's fact of another predicate
    changes no answer, and is left out (``_static_statements``)."""

    reads: frozenset[_Signature] | None

    def __new__(cls, statements: Iterable[ast.AST], reads: frozenset[_Signature] | None) -> "_Statements":
        out = super().__new__(cls, statements)
        out.reads = reads
        return out


# the predicates the driver reads off the ground program itself (``_Driver``, ``_Parts``), shown or not
_DRIVER_READS: frozenset[_Signature] = frozenset(
    {("szykman", 1), ("backup_rule", 1), ("all_hold", 1), ("head", 1), ("order", 3), *LINKS,
     *((name, 1) for name in DECISIONS)})


@lru_cache(maxsize=1024)
def _used_statements(programs: tuple[str, ...], present: frozenset[_Signature],
                     shown: frozenset[_Signature] | None = frozenset()) -> _Statements:
    """The statements of ``programs`` that can fire when the predicates ``present`` have facts (and no
    other has): the fixpoint of the predicates that can have atoms, then every rule whose positive
    body needs only those; of these, the rules whose atoms can matter (``_relevant``), ``shown`` the
    predicates the facts' own ``#show`` directives show (None: the facts show what is not read here,
    and every rule that can fire is kept)."""
    deps = _dependencies(programs)
    assert deps is not None
    possible = set(present)
    grown = True
    while grown:
        grown = False
        for need, give in zip(deps.needs, deps.gives):
            if need is not None and need <= possible and not give <= possible:
                possible |= give
                grown = True
    firing = [k for k, need in enumerate(deps.needs) if need is None or need <= possible]
    if shown is not None:
        firing, reads = _relevant(programs, deps, firing, shown)
    else:
        reads = None
    return _kept(tuple(_without_true_negations(programs, k, tuple(i for i, sig in deps.negations[k]
                                                                  if sig not in possible))
                       for k in firing), reads)


def _relevant(programs: tuple[str, ...], deps: _Dependencies, firing: list[int],
              shown: frozenset[_Signature]) -> tuple[list[int], frozenset[_Signature] | None]:
    """Of the statements ``firing`` (indexes), those left when the plain rules whose head no one reads
    are left out: not shown, not read by the driver, not in the body of a rule that is kept (an
    adjustment without civil disorder derives no distances to home centres). Each such rule costs the
    grounder its bookkeeping, and the facts only it reads cost the hand-over. What is left decides
    every shown atom as before, and the models are the same in number: the rules left out are kept
    all the same when they could make or break a model by themselves (a loop through negation among
    them), so that their atoms would follow, one way, from the rest. Without ``#show`` every atom is
    shown, and a ``#show`` of terms may name any: nothing is left out then. Also the predicates read
    (None: any). The rules left out are grounded on their own (on no facts, ``_check_alone``), so
    that an error in one (an unsafe variable) is reported as it was when they were grounded with the rest."""
    if deps.show_terms or not (deps.shows or shown):
        return firing, None
    needed: set[_Signature] = set(_DRIVER_READS) | shown
    rules: list[int] = []
    for k in firing:
        if deps.plain[k] is None:
            needed |= deps.reads[k]
        else:
            rules.append(k)
    kept: set[int] = set()
    grown = True
    while grown:
        grown = False
        for k in rules:
            if k not in kept and deps.plain[k] in needed:
                kept.add(k)
                needed |= deps.reads[k]
                grown = True
    dropped = [k for k in rules if k not in kept]
    _check_alone(programs, [_parsed_programs(programs)[k] for k in dropped])
    if _loops_through_negation([(deps.plain[k], deps.body[k]) for k in dropped]):
        return firing, frozenset(needed.union(*(deps.reads[k] for k in dropped)))
    return [k for k in firing if deps.plain[k] is None or k in kept], frozenset(needed)


def _loops_through_negation(rules: Sequence[tuple[_Signature, tuple[tuple[_Signature, bool], ...]]]) -> bool:
    """Whether a head of ``rules`` (head, body predicates with whether each is read through negation or
    an aggregate) depends on itself through such a literal among ``rules`` (``a :- not b. b :- not a.``):
    such rules can have several answers, or none, of their own."""
    heads = {head for head, _ in rules}
    edges: dict[_Signature, set[tuple[_Signature, bool]]] = {}
    for head, body in rules:
        for sig, negative in body:
            if sig in heads:
                edges.setdefault(sig, set()).add((head, negative))

    def reaches(start: _Signature, goal: _Signature) -> bool:
        seen, todo = {start}, [start]
        while todo:
            x = todo.pop()
            if x == goal:
                return True
            for y, _ in edges.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    return any(negative and reaches(head, body) for body, out in edges.items() for head, negative in out)


def refusals_alone(statements: Sequence[ast.AST] | str, seconds: float | None = None) -> list[str] | None:
    """Grounds ``statements`` (syntax trees, or a program's text) alone on no facts: None when clingo
    accepts them, else its messages (an unsafe variable, a wrong use of an aggregate), each with the
    statement's file and line. What clingo refuses only when grounding is reported this way for one
    part, not later for the whole. With ``seconds``, for a text from outside (a rule of your own), it
    is parsed and ground apart (``apart.py``) within that time and the memory limit: TimeLimitError or
    MemoryLimitError (syntax trees do not pickle, so this takes the text)."""
    if seconds is None:
        if isinstance(statements, str):
            return _refusals_of_text(statements)
        if not isinstance(statements, Sequence) or not all(isinstance(s, ast.AST) for s in statements):
            raise TypeError("statements must be a program's text or a sequence of clingo syntax trees")
        return _refusals(statements)
    if not isinstance(statements, str):
        raise TypeError("statements ground apart must be a program's text")
    seconds = check_time_limit(seconds)
    mib = _MEMORY_LIMIT.get()
    try:
        return run_apart(_refusals_of_text, seconds, mib * _MIB, (statements,))
    except LimitHit as hit:
        if hit.kind == "time":
            raise TimeLimitError(f"grounding it alone, on no facts, did not end within the time limit of "
                                 f"{seconds:g} s") from None
        raise MemoryLimitError(f"grounding it alone, on no facts, did not end within the memory limit of "
                               f"{mib:,} MiB{f' ({hit.detail})' if hit.detail else ''}") from None


def _refusals_of_text(text: str) -> list[str] | None:
    """``_refusals`` of a program's text, parsed here (in the child, when done apart): its statements'
    places are those of the text, as where it was parsed first."""
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return _refusals(statements)


def _refusals(statements: Sequence[ast.AST]) -> list[str] | None:
    messages = _Messages()
    ctl = clingo.Control(["--warn=none"], logger=messages)
    try:
        with ast.ProgramBuilder(ctl) as builder:
            for statement in statements:
                builder.add(statement)
        ctl.ground([("base", [])])
    except RuntimeError:
        return messages.lines
    return None


def _check_alone(programs: tuple[str, ...], rules: Sequence[ast.AST]) -> None:
    """Grounds ``rules`` alone on no facts: EncodingError, with the file and line, for a rule clingo
    refuses (an unsafe variable)."""
    if rules and (refused := refusals_alone(rules)) is not None:
        detail = "\n".join(refused) or "clingo gave no message"
        raise EncodingError(f"the logic programs cannot be grounded ({', '.join(programs)}):\n{detail}")


def _kept(statements: tuple[ast.AST, ...], reads: frozenset[_Signature] | None) -> _Statements:
    """``statements`` without the directives the grounder does nothing with here: ``#defined`` only
    silences a warning, and warnings are off (``_control``); ``#program base.`` opens the part every
    statement is in already when no other part is named. Each statement handed over costs the grounder some work."""
    parts = [s for s in statements if s.ast_type == ast.ASTType.Program]
    only_base = all(s.name == "base" and not s.parameters for s in parts)
    return _Statements((s for s in statements if s.ast_type != ast.ASTType.Defined
                        and not (only_base and s.ast_type == ast.ASTType.Program)), reads)


@lru_cache(maxsize=4096)
def _without_true_negations(programs: tuple[str, ...], k: int, dropped: tuple[int, ...]) -> ast.AST:
    """Statement ``k`` of ``programs`` without the negative body literals at the positions ``dropped``,
    those of predicates that can have no atom (``_Dependencies.negations``): each is true, and each
    literal costs the grounder some work (flags of options that are off, ``not held(...)`` when no past
    board is written). A negative literal binds no variable, so the rule stays safe. Made once for
    every phase that drops the same literals."""
    statement = _parsed_programs(programs)[k]
    if not dropped:
        return statement
    return statement.update(body=[b for i, b in enumerate(statement.body) if i not in dropped])


def _statements(programs: tuple[str, ...], facts: str, static: str,
                names: frozenset[str] | None = None) -> _Statements:
    """The statements to ground for these facts: the rules that can fire. A program with rules of your
    own (``RuleText``, options.logic_files) is used whole: such rules may read any predicate.
    ``names``: the predicates of ``facts`` when the caller knows them (facts built as values name
    theirs before they are spelled: reading them off the text costs a pass over it); None reads
    them off the text."""
    deps = _dependencies(programs)
    if deps is None or any(isinstance(p, RuleText) for p in programs):
        return _Statements(_parsed_programs(programs), None)
    names, static_names = (_fact_names(facts) if names is None else names), _static_names(static)
    if names is None or static_names is None:
        return _Statements(_parsed_programs(programs), None)
    names |= static_names
    return _used_statements(programs, frozenset(s for s in deps.predicates if s[0] in names), _shown(facts))


_SHOW = re.compile(r"#show\b")
_SHOW_SIGNATURE = re.compile(r"^[ \t]*#show[ \t]+([a-z_][A-Za-z0-9_']*)/(\d+)[ \t]*\.[ \t]*$", re.M)


def _shown(facts: str) -> frozenset[_Signature] | None:
    """The predicates the facts' own ``#show name/n.`` lines show (``possible.py`` asks for ``board_adj/2``);
    None when they hold another kind of ``#show``."""
    if "#show" not in facts:
        return frozenset()
    signatures = frozenset((name, int(n)) for name, n in _SHOW_SIGNATURE.findall(facts))
    return signatures if len(signatures) == len(_SHOW.findall(facts)) else None


@lru_cache(maxsize=1024)
def _static_statements(static: str, reads: frozenset[_Signature] | None) -> tuple[ast.AST, ...]:
    """The map's facts (``static``) that the program can read: those of a predicate in ``reads``, or
    all (None). A civil-disorder map's 760 distance and name facts stay out of the adjustments that
    need no distances."""
    parsed = _parsed_facts(static)
    if reads is None:
        return parsed
    return tuple(s for s, sig in zip(parsed, _fact_signatures(static)) if sig is None or sig in reads)


@lru_cache(maxsize=16)
def _fact_signatures(static: str) -> tuple[_Signature | None, ...]:
    """The predicate of each fact of ``_parsed_facts(static)``; None for any other statement (kept).
    The map's facts are written one plain fact a line: each line is then read as a term (one call
    into clingo), which costs far less than walking its syntax tree (a call into clingo for every node:
    too slow for the facts of a big copied map, and a cost on every start for the standard map)."""
    parsed = _parsed_facts(static)
    lines = [line.strip() for line in static.splitlines() if line.strip()]
    # the parser opens the text with the ``#program base.`` it is in
    opening = 1 if parsed and parsed[0].ast_type == ast.ASTType.Program else 0
    if len(lines) + opening == len(parsed) and all(_FACT_LINE.match(line) for line in lines):
        try:
            terms = [clingo.parse_term(line[:-1]) for line in lines]
        except RuntimeError:
            terms = []
        if len(terms) == len(lines) and all(t.type == clingo.SymbolType.Function and t.name for t in terms):
            return (None,) * opening + tuple((t.name, len(t.arguments)) for t in terms)
    return tuple(_signature(s.head.atom) if s.ast_type == ast.ASTType.Rule and not s.body and _plain_head(s)
                 else None for s in parsed)


# a line that can only be a plain fact: a predicate name, then anything but a rule's or directive's marks
_FACT_LINE = re.compile(r"[a-z_][A-Za-z0-9_']*(\(.*\))?\.\Z")



def _control(programs: Sequence[str], facts: str, static: str,
             names: frozenset[str] | None = None) -> tuple[clingo.Control, float]:
    """The ground program, and the seconds spent handing the encoding and facts to clingo before grounding
    (``names``: the predicates of ``facts``, as ``_statements`` takes them)."""
    statements = _statements(tuple(programs), facts, static, names)
    parsed = statements + _static_statements(static, statements.reads)
    messages = _Messages()
    t0 = time.perf_counter()
    ctl = new_control(messages)
    try:
        with ast.ProgramBuilder(ctl) as builder:
            for statement in parsed:
                builder.add(statement)
        ctl.add("base", [], facts)
        added = time.perf_counter() - t0
        ctl.ground([("base", [])])
    except RuntimeError:
        raise messages.error(f"the logic programs cannot be grounded ({', '.join(programs)})") from None
    return ctl, added


def encoding_size(programs: Sequence[str], facts: str | None = None, static: str = "",
                  names: frozenset[str] | None = None) -> int:
    """How many statements (rules, constraints, directives) the encodings hand to the grounder: its fixed
    cost per program, paid whatever the facts (benchmarks); with ``facts``, those of the rules that can
    fire on them and ``static``, as solving them hands over (``names`` as ``solve_decisions`` takes it)."""
    if facts is None:
        return len(_parsed_programs(tuple(programs)))
    return len(_statements(tuple(programs), facts, static, names))
