"""The driver: one Control per adjudication, grounded once; backup rules by assumptions.

The decision encodings have one stable model per solution of the rules. One model: that is the
result. None or several: a circular dependency that the rules leave open (DATC §5.B.9). The
driver classifies it as docs/rules.md §3.2 says — an undecided move into a fleet with a convoy order
means a convoy paradox, otherwise circular movement — and applies the backup rule by fixing
atoms through assumptions on the same ground program.

A step's orders fall into independent parts: units that no move, support, convoy or jump assist
links (``_Parts``). A paradox in one part changes nothing in another, so every round settles every
undecided part at once: all disjoint unsatisfiable cores (zero models), or the undecided decisions of
every part (several models) found with a handful of solver calls whatever the number of parts, and
a backup rule applied to each part. The rules are the same for each part as if it stood alone:
- convoy paradox: the Szykman rule, the paradox's convoying fleets hold (``szykman/1`` externals);
  or, when the program states ``backup_rule(all_hold)`` (an option's logic file, DATC 4.A.2), the
  'All Hold' rule: the paradox's moves fail and take no effect (``all_hold/1`` externals, which
  take the units' moves out of the program);
- circular movement: the undecided moves succeed (assumptions on ``moves/1``);
- any other cycle (DATC §5.B.9, for variants): its undecided decisions fail.

Each round settles at least one decision, so the rounds are bounded by the decisions; a step that
cannot be settled within the time limit (``time_limit``, default ``DEFAULT_TIME_LIMIT``) stops with
``TimeLimitError``, which says how big the step was.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
import weakref
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from collections.abc import Mapping
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

import clingo
from clingo import ast

from ..errors import AdjudicationError, EncodingError, InputError, MemoryLimitError, TimeLimitError
from .apart import LimitHit, run_apart
from .terms import symbol_texts

DECISIONS = ("moves", "dislodged", "given", "path", "assist_given")
# the predicates that link units into one part: a unit and where it moves, a supporter and whom and
# where it supports, a convoying fleet and its army, a jump assist and the jump
LINKS = (("move", 2), ("supports", 3), ("convoys", 2), ("assists", 3))
DEFAULT_TIME_LIMIT = 600.0  # seconds for one solver program: far beyond any real game's step
_WAIT = 0.25  # how often a waiting solve call looks up (so that Ctrl-C stops it)

# The time limit of the commands and API calls running in this context: set around a command with
# ``time_limit`` (a context variable, so that concurrent callers and worker processes started inside
# the block each see their own value, and nothing outlives the block).
_TIME_LIMIT: ContextVar[float] = ContextVar("fivedp_time_limit", default=DEFAULT_TIME_LIMIT)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Every program solved inside the block must be settled within ``seconds`` (None: the default)."""
    limit = check_time_limit(seconds)
    token = _TIME_LIMIT.set(limit)
    try:
        yield
    finally:
        _TIME_LIMIT.reset(token)


def time_limit_in_effect() -> float:
    """The time limit set around the caller (``time_limit``), in seconds."""
    return _TIME_LIMIT.get()


# A program with rules of your own is ground and solved apart, in a child process (``apart.py``),
# whose memory may grow by at most this many MiB: grounding cannot be interrupted, and such a rule
# can make it grow without end. Set around a command with ``memory_limit``, as the time limit is.
DEFAULT_MEMORY_LIMIT = 4096
_MIB = 1 << 20
_MEMORY_LIMIT: ContextVar[int] = ContextVar("fivedp_memory_limit", default=DEFAULT_MEMORY_LIMIT)


@contextmanager
def memory_limit(mib: int | str | None) -> Iterator[None]:
    """Every program with rules of your own ground inside the block may use at most ``mib`` MiB more
    memory than the process had (None: the default)."""
    limit = check_memory_limit(mib)
    token = _MEMORY_LIMIT.set(limit)
    try:
        yield
    finally:
        _MEMORY_LIMIT.reset(token)


def check_memory_limit(mib: int | str | None) -> int:
    """The limit in MiB, or InputError for one that is not a whole number of MiB, at least 1."""
    if mib is None:
        return DEFAULT_MEMORY_LIMIT
    text = str(mib).strip()
    whole = not isinstance(mib, bool) and isinstance(mib, (int, str)) and text.isascii() and text.isdigit()
    if not whole or len(text) > 9 or int(text) < 1:
        raise InputError(f"memory limit {text[:40]!r}: give a whole number of MiB (at least 1)")
    return int(text)


def check_time_limit(seconds: float | None) -> float:
    """The limit in seconds, or InputError for one that is not a positive number."""
    if seconds is None:
        return DEFAULT_TIME_LIMIT
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise InputError(f"time limit {str(seconds)[:40]!r}: give a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise InputError(f"time limit {str(seconds)[:40]!r}: give a positive number of seconds")
    return value


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def asp_dir() -> Path:
    """Where the logic programs are: inside the installed package, or ``asp/`` in a source checkout."""
    here = Path(__file__).resolve().parent.parent
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
    add_seconds: float = 0.0  # of ``ground_seconds``: handing the encoding and the facts to clingo
    statistics_seconds: float = 0.0  # reading clingo's statistics, when asked for (after solving)
    # solved without settling (``solve_decisions(settle=False)``) and found several models: the shown
    # atoms that hold in some of them and not in all; ``atoms`` then holds those that hold in all
    unsettled: tuple[clingo.Symbol, ...] = ()


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


class RuleText(str):
    """A rule of your own among a program's files: its text, handed to clingo as text.

    No file is written for it, so none can be read in its place. It is a ``str`` so that it travels
    in a program's list of files like any other; its value, the name every per-process cache here
    keys it by, is the SHA-256 digest of the text: two rules share a name only when their texts are
    the same, and a cached parse is always the parse of the text at hand. ``source`` (the file as
    the user named it) is for messages only and takes no part in the name."""

    text: str
    source: str

    def __new__(cls, text: str, source: str = "") -> "RuleText":
        if not isinstance(text, str) or not isinstance(source, str):
            raise TypeError("a rule's text and source must be str")
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        named = super().__new__(cls, f"{_RULE_PREFIX}{digest}>")
        named.text, named.source = text, source
        return named

    def __reduce__(self) -> tuple:
        return RuleText, (self.text, self.source)


_RULE_PREFIX = "<rule of your own sha256:"


def is_rule_text(name: str) -> bool:
    """Whether a program's file is a rule of your own (its text) rather than a file under asp/."""
    return isinstance(name, RuleText)


def _source_of(name: str) -> str:
    """What ``_parsed_entry`` names the statements of a program's file by: a rule's own name, or the
    real path of a file under asp/."""
    return name if isinstance(name, RuleText) else os.path.realpath(asp_dir() / name)


def _parsed_programs(programs: tuple[str, ...]) -> tuple[ast.AST, ...]:
    """The encodings, parsed once per process: they never change, and parsing costs more than grounding."""
    return _assembled(programs).statements


@lru_cache(maxsize=16)
def _parsed_facts(text: str) -> tuple[ast.AST, ...]:
    """Facts that are the same for every step on a map (its geography), parsed once."""
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return tuple(statements)


# -- the rules a phase can use ----------------------------------------------------------------------
# A rule with a positive body literal of a predicate that can have no atom never fires: grounding it
# gives nothing, yet each rule costs the grounder some 20 µs whatever the facts. Which predicates can
# have atoms follows from the facts' predicates (a phase without convoy orders has no ordered_convoy
# facts, a step with every board a head has no past_board facts) by a fixpoint over the rules' heads.
# Rules that cannot fire are left out, and negative literals of such predicates (always true) are
# dropped from the bodies. The ground program keeps every atom and every rule instance that can fire,
# so the answers are the same; what goes is clingo's bookkeeping for the rules left out (the
# projections of their `_` arguments), and the fixed cost of each rule.

_Signature = tuple[str, int]
_FACT_NAME = re.compile(r"^[ \t]*(?:#external[ \t]+)?([a-z_][A-Za-z0-9_']*)", re.M)


_ATOM_NAME = re.compile(r"_*[a-z][A-Za-z0-9_']*")


def _signature(atom: ast.AST) -> _Signature | None:
    """The predicate of a symbolic atom, or None for one whose predicate the analysis does not read
    (classical negation, a pool anywhere in it, an external function): the program is then used whole.
    Read off the atom's text, one call into clingo: walking its syntax tree costs one for every node,
    some 2 µs each, and the encodings have 1,500 atoms to read at every start."""
    text = str(atom)
    name = _ATOM_NAME.match(text)
    if name is None:
        return None
    end = name.end()
    if end == len(text):
        return text, 0
    if text[end] != "(" or text[-1] != ")":
        return None
    arity, depth, quoted, escaped = 1, 0, False, False
    for ch in text[end + 1:-1]:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == ";":
            return None
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            arity += 1
    return (name.group(), arity) if end + 2 < len(text) else (name.group(), 0)


def _atoms(node: object) -> Iterator[ast.AST]:
    """Every symbolic atom under ``node``."""
    if isinstance(node, ast.AST):
        if node.ast_type == ast.ASTType.SymbolicAtom:
            yield node
            return
        for key in node.child_keys:
            yield from _atoms(getattr(node, key))
    elif isinstance(node, (list, tuple, ast.ASTSequence)):
        for item in node:
            yield from _atoms(item)


@dataclass(frozen=True)
class _Dependencies:
    """For each statement of a program, what it can derive and what it needs: ``needs[k]`` the
    predicates of its positive body literals (all must have atoms for it to fire), ``gives[k]`` the
    predicates in its head; None for directives, kept whatever the facts; an external needs nothing.
    ``predicates``: every predicate the program names (facts may give any of them, derived ones too:
    ``possible.py`` gives ``board_pair/2``)."""

    needs: tuple[frozenset[_Signature] | None, ...]
    gives: tuple[frozenset[_Signature], ...]
    predicates: frozenset[_Signature]
    # for leaving out the rules no one reads (``_relevant``): ``plain[k]`` the head of a rule that
    # derives one atom (None for any other statement); ``reads[k]`` what statement k reads (a rule's
    # body, and a head that is not plain; all of an external or other directive; a shown predicate);
    # ``body[k]`` a plain rule's body predicates, each with whether it is read through negation or an
    # aggregate; ``shows``: some ``#show p/n`` (without, every atom is shown); ``show_terms``: some
    # ``#show t : body`` (which may name any atom)
    plain: tuple[_Signature | None, ...] = ()
    reads: tuple[frozenset[_Signature], ...] = ()
    body: tuple[tuple[tuple[_Signature, bool], ...], ...] = ()
    shows: bool = False
    show_terms: bool = False
    # ``negations[k]``: the negative literals of plain atoms in rule k's body, (position, predicate), so
    # that those of a predicate with no atom are dropped (``_without_true_negations``) without walking
    # the syntax tree again (each attribute read through clingo's AST costs a few µs)
    negations: tuple[tuple[tuple[int, _Signature], ...], ...] = ()

    @classmethod
    def of(cls, analyses: Sequence["_Analysis | None"]) -> "_Dependencies | None":
        """The program's dependencies from those of its statements (``_analysed``, in program order);
        None when the analysis cannot read one of them."""
        if any(a is None for a in analyses):
            return None
        read: set[_Signature] = set()
        derived: set[_Signature] = set()
        for a in analyses:
            read |= a.read
            derived |= a.derived
        return cls(tuple(a.needs for a in analyses), tuple(a.gives for a in analyses), frozenset(read | derived),
                   tuple(a.plain for a in analyses), tuple(a.reads for a in analyses),
                   tuple(a.body for a in analyses), any(a.shows for a in analyses),
                   any(a.show_terms for a in analyses), tuple(a.negations for a in analyses))


class _Analysis(NamedTuple):
    """What one statement contributes to ``_Dependencies`` (its fields, for this statement), with
    ``read``/``derived``, the predicates its body reads and its head derives (``predicates``), and
    ``shows``/``show_terms``, whether it is a ``#show p/n`` or a ``#show t : body``."""

    needs: frozenset[_Signature] | None
    gives: frozenset[_Signature]
    plain: _Signature | None
    reads: frozenset[_Signature]
    body: tuple[tuple[_Signature, bool], ...]
    negations: tuple[tuple[int, _Signature], ...]
    read: frozenset[_Signature]
    derived: frozenset[_Signature]
    shows: bool
    show_terms: bool


def _analysed(s: ast.AST) -> _Analysis | None:
    """One statement's part of ``_Dependencies``; None for one whose predicates the analysis does not
    read (classical negation, pools, external functions in an atom): the program is then used whole.
    Reading a syntax tree through clingo's API costs a few µs an attribute, so each statement of an
    encoding file is analysed once per process (``_parsed_entry``), whatever programs it is part of."""
    kind = s.ast_type
    if kind != ast.ASTType.Rule:
        atoms = {_signature(a) for a in _atoms(s)}
        if None in atoms:
            return None
        if kind == ast.ASTType.ShowSignature:
            reads = frozenset({(s.name, s.arity)})
        else:
            reads = frozenset() if kind in (ast.ASTType.Defined, ast.ASTType.Program) else frozenset(atoms)
        if kind == ast.ASTType.External:
            # the driver may make an external true: its predicate can have atoms whatever the facts
            sig = _signature(s.atom)
            return _Analysis(frozenset(), frozenset({sig}), None, reads, (), (), frozenset(), frozenset({sig}),
                             False, False)
        return _Analysis(None, frozenset(), None, reads, (), (), frozenset(), frozenset(),
                         kind == ast.ASTType.ShowSignature, kind == ast.ASTType.ShowTerm)
    head = {_signature(a) for a in _atoms(s.head)}
    # each body atom, and whether it is read through negation or an aggregate (not a plain literal)
    literals: list[tuple[_Signature, bool]] = []
    negative: list[tuple[int, _Signature]] = []
    positive = set()
    for i, b in enumerate(s.body):
        simple = b.ast_type == ast.ASTType.Literal and b.atom.ast_type == ast.ASTType.SymbolicAtom
        if simple and b.sign == ast.Sign.NoSign:
            sig = _signature(b.atom)
            positive.add(sig)
            literals.append((sig, False))
        else:
            literals.extend((_signature(a), True) for a in _atoms(b))
            if simple and b.sign == ast.Sign.Negation:
                negative.append((i, _signature(b.atom)))
    body = {sig for sig, _ in literals}
    if None in head or None in body:
        return None
    single = _plain_head(s)
    return _Analysis(frozenset(positive), frozenset(head), _signature(s.head.atom) if single else None,
                     frozenset(body if single else body | head), tuple(literals), tuple(negative),
                     frozenset(body), frozenset(head), False, False)


@lru_cache(maxsize=256)
def _parsed_entry(name: str) -> tuple[tuple[str, tuple[ast.AST, ...], tuple[_Analysis | None, ...]], ...]:
    """One file of ``programs`` (an entry encoding, an option file, a rule of your own) with the files it
    includes, parsed and analysed once per process: for each run of statements from one source file,
    (that file's real path, the statements, their analyses), in the parser's order. Programs share most
    of their files (every option set loads the movement parts), so each is read once, not once a program.
    A rule of your own (``RuleText``) is parsed from its text, checked already (userrules.py): one run,
    named by the rule's own name."""
    statements: list[ast.AST] = []
    messages = _Messages()
    rule = isinstance(name, RuleText)
    if not rule and name.startswith(_RULE_PREFIX):
        raise AdjudicationError(f"the text of a rule of your own is not at hand ({name})")
    try:
        if rule:
            ast.parse_string(name.text, statements.append, logger=messages)
        else:
            ast.parse_files([str(asp_dir() / name)], statements.append, logger=messages)
    except RuntimeError:
        what = f"a rule of your own ({name.source or name})" if rule else name
        raise messages.error(f"the logic programs cannot be read ({what})") from None
    runs: list[tuple[str, list[ast.AST]]] = []
    real: dict[str, str] = {}
    for st in statements:
        if st.ast_type == ast.ASTType.Comment:
            continue  # comments are statements in the AST too; the grounder has no use for them
        if rule:
            source = name
        else:
            filename = st.location.begin.filename
            source = real.get(filename) or real.setdefault(filename, os.path.realpath(filename))
        if not runs or runs[-1][0] != source:
            runs.append((source, []))
        runs[-1][1].append(st)
    return tuple((source, tuple(run), tuple(_analysed(st) for st in run)) for source, run in runs)


class _Assembled(NamedTuple):
    statements: tuple[ast.AST, ...]
    analyses: tuple[_Analysis | None, ...]


@lru_cache(maxsize=1024)
def _assembled(programs: tuple[str, ...]) -> _Assembled:
    """The statements of ``programs`` and their analyses, from each file's (``_parsed_entry``), as
    clingo's parser reads the files together: the last file first (it keeps them on a stack), each
    with the files it includes in place, every file taken once (a file listed is read where it is
    listed, not where another includes it)."""
    statements: list[ast.AST] = []
    analyses: list[_Analysis | None] = []
    listed = {_source_of(name) for name in programs}
    taken: set[str] = set()
    for name in reversed(programs):
        own = _source_of(name)
        entry = _parsed_entry(name)
        fresh = {source for source, _, _ in entry if source == own or source not in listed} - taken
        for source, run, analysed in entry:
            if source in fresh:
                statements += run
                analyses += analysed
        taken |= fresh
    return _Assembled(tuple(statements), tuple(analyses))


@lru_cache(maxsize=1024)
def _dependencies(programs: tuple[str, ...]) -> _Dependencies | None:
    return _Dependencies.of(_assembled(programs).analyses)


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


def _plain_head(rule: ast.AST) -> bool:
    """A rule that derives one atom (not a constraint, a choice, a disjunction or a conditional head)."""
    head = rule.head
    return head.ast_type == ast.ASTType.Literal and head.sign == ast.Sign.NoSign \
        and head.atom.ast_type == ast.ASTType.SymbolicAtom


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


def refusals_alone(statements: Sequence[ast.AST], seconds: float | None = None) -> list[str] | None:
    """Grounds ``statements`` alone on no facts: None when clingo accepts them, else its messages
    (an unsafe variable, a wrong use of an aggregate), each with the statement's file and line. What
    clingo refuses only when grounding is reported this way for one part, not later for the whole.
    With ``seconds``, for statements from outside (a rule of your own), they are ground apart
    (``apart.py``) within that time and the memory limit: TimeLimitError or MemoryLimitError."""
    if not isinstance(statements, Sequence) or not all(isinstance(s, ast.AST) for s in statements):
        raise TypeError("statements must be a sequence of clingo syntax trees")
    if seconds is None:
        return _refusals(statements)
    seconds = check_time_limit(seconds)
    mib = _MEMORY_LIMIT.get()
    try:
        return run_apart(lambda: _refusals(statements), seconds, mib * _MIB)
    except LimitHit as hit:
        if hit.kind == "time":
            raise TimeLimitError(f"grounding it alone, on no facts, did not end within the time limit of "
                                 f"{seconds:g} s") from None
        raise MemoryLimitError(f"grounding it alone, on no facts, did not end within the memory limit of "
                               f"{mib:,} MiB{f' ({hit.detail})' if hit.detail else ''}") from None


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
    statement is in already when no other part is named. Each statement handed over costs a few µs."""
    parts = [s for s in statements if s.ast_type == ast.ASTType.Program]
    only_base = all(s.name == "base" and not s.parameters for s in parts)
    return _Statements((s for s in statements if s.ast_type != ast.ASTType.Defined
                        and not (only_base and s.ast_type == ast.ASTType.Program)), reads)


@lru_cache(maxsize=4096)
def _without_true_negations(programs: tuple[str, ...], k: int, dropped: tuple[int, ...]) -> ast.AST:
    """Statement ``k`` of ``programs`` without the negative body literals at the positions ``dropped``,
    those of predicates that can have no atom (``_Dependencies.negations``): each is true, and each
    literal costs the grounder a few µs (flags of options that are off, ``not held(...)`` when no past
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
    theirs before they are spelled: reading them off the text costs some 0.3 ms a phase); None reads
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
    into clingo), which costs far less than walking its syntax tree (about 125 µs a fact: 1.5 s for
    the 12,000 facts of a big copied map, some 40 ms for the standard map on every start)."""
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


def new_control(logger: Callable[[clingo.MessageCode, str], None] | None = None) -> clingo.Control:
    """A Control set as a program's first solver call wants it (``_solve``): its conflicts bounded, two
    models asked for. Each setting read or changed through ``configuration`` costs 10-20 µs, and that
    call would otherwise read one and change three. Warnings are off: the encodings leave inputs empty
    on purpose."""
    return clingo.Control(["--warn=none", f"--solve-limit={_QUICK_CONFLICTS}", f"--models={_FIRST_MODELS}"],
                          logger=logger)


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




# A place as an atom's text spells it: ``p(b(T,N),P)``, the province a constant or a quoted string.
_PLACE_TEXT = re.compile(r'p\(b\(-?\d+,-?\d+\),(?:"(?:[^"\\]|\\.)*"|[a-z_][A-Za-z0-9_\']*)\)')


class _ByText(Mapping):
    """A read-only map from places to places (or lists of places), kept as text and looked up and
    handed back as symbols: the links of a big program are read once as text (one call into clingo an
    atom), while only the few units a backup rule asks about are turned into symbols."""

    def __init__(self, texts: dict[str, str | list[str]]) -> None:
        self._texts = texts

    def __getitem__(self, key: clingo.Symbol) -> clingo.Symbol | list[clingo.Symbol]:
        value = self._texts[str(key)]
        return clingo.parse_term(value) if isinstance(value, str) else [clingo.parse_term(v) for v in value]

    def __iter__(self) -> Iterator[clingo.Symbol]:
        return (clingo.parse_term(k) for k in self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __contains__(self, key: object) -> bool:
        return str(key) in self._texts


class _PartOf(Sequence):
    """``part[i]``: the part of decision i (``_Parts.of`` of its place), found when asked."""

    def __init__(self, parts: "_Parts") -> None:
        self._parts = parts

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        return self._parts.of(self._parts.decisions[i].arguments[0])

    def __len__(self) -> int:
        return len(self._parts.decisions)


@dataclass(frozen=True)
class _Links:
    """What the link atoms say, as text: ``parent``, the union-find of the places they join (a root is
    its own parent); ``members``, the places of each root; ``dest``, a mover's destination;
    ``movers_into``, the movers into a place; ``convoys_of``, the armies a fleet convoys."""

    parent: dict[str, str]
    members: dict[str, list[str]]
    dest: dict[str, str]
    movers_into: dict[str, list[str]]
    convoys_of: dict[str, list[str]]


class _Parts:
    """The independent parts of a step: places joined by a link atom (``LINKS``) are in one part; a
    part is named by its least place (in clingo's order of symbols). Built once per program from the
    ground atoms, with the indexes the backup rules read.

    Only the decisions and their literals are read at once: every backup round needs them. The links
    are read when a rule first asks for a part or an index, as text (walking each atom's arguments
    through clingo's API cost some 30 µs an atom, most of a joint program's backup rounds in a batch,
    where one paradox in one phase made the driver index every phase), and a part's name is made a
    symbol only for the parts asked about."""

    def __init__(self, atoms: clingo.SymbolicAtoms) -> None:
        self._atoms = atoms
        # the decisions the rules guess (facts are settled by grounding), with their literals
        self.decisions: list[clingo.Symbol] = []
        self.literals: list[int] = []
        for name in DECISIONS:
            for a in atoms.by_signature(name, 1):
                if not a.is_fact:
                    self.decisions.append(a.symbol)
                    self.literals.append(a.literal)
        self.part: Sequence[clingo.Symbol] = _PartOf(self)
        self._named: dict[str, clingo.Symbol] = {}  # a part's root (text) -> its least place

    @cached_property
    def _links(self) -> "_Links":
        """The links read: the union-find of the places they join, and the indexes, as text."""
        parent: dict[str, str] = {}
        dest: dict[str, str] = {}
        movers_into: dict[str, list[str]] = {}
        convoys_of: dict[str, list[str]] = {}
        find = self._find_in(parent)
        for name, arity in LINKS:
            for text in symbol_texts([a.symbol for a in self._atoms.by_signature(name, arity)]):
                places = _PLACE_TEXT.findall(text)
                for place in places:
                    parent.setdefault(place, place)
                for other in places[1:]:
                    x, y = find(places[0]), find(other)
                    if x != y:
                        parent[y] = x
                if name == "move":
                    dest[places[0]] = places[1]
                    movers_into.setdefault(places[1], []).append(places[0])
                elif name == "convoys":
                    convoys_of.setdefault(places[0], []).append(places[1])
        members: dict[str, list[str]] = {}
        for place in parent:
            members.setdefault(find(place), []).append(place)
        return _Links(parent, members, dest, movers_into, convoys_of)

    @staticmethod
    def _find_in(parent: dict[str, str]) -> Callable[[str], str]:
        def find(x: str) -> str:
            root = x
            while parent.get(root, root) != root:
                root = parent[root]
            while x != root:
                parent[x], x = root, parent[x]
            return root
        return find

    def of(self, place: clingo.Symbol) -> clingo.Symbol:
        """The part of a unit's place (its own, when nothing links it): the least place linked to it."""
        parent, members = self._links.parent, self._links.members
        text = str(place)
        if text not in parent:
            return place
        root = self._find_in(parent)(text)
        named = self._named.get(root)
        if named is None:
            named = self._named[root] = min(clingo.parse_term(m) for m in members[root])
        return named

    @cached_property
    def dest(self) -> Mapping:
        """Each moving unit's destination."""
        return _ByText(self._links.dest)

    @cached_property
    def movers_into(self) -> Mapping:
        """The units moving into each place."""
        return _ByText(self._links.movers_into)

    @cached_property
    def convoys_of(self) -> Mapping:
        """The armies each fleet convoys."""
        return _ByText(self._links.convoys_of)

    @cached_property
    def boards(self) -> int:
        return sum(1 for _ in self._atoms.by_signature("head", 1))

    @cached_property
    def orders(self) -> int:
        return sum(1 for _ in self._atoms.by_signature("order", 3))


@dataclass
class _Clock:
    """The time left for one program, and what to say when it runs out (``size``: the driver tells it
    the step's size once it knows it; not a value, so not frozen)."""

    limit: float
    started: float = field(default_factory=time.monotonic)
    size: Callable[[], str] = lambda: ""

    def left(self) -> float:
        return self.limit - (time.monotonic() - self.started)

    def check(self) -> None:
        if self.left() <= 0:
            self.exceeded()

    def exceeded(self) -> None:
        size = self.size()
        raise TimeLimitError(f"this step is too big to settle within the time limit of {self.limit:g} s"
                             f"{f' ({size})' if size else ''}; raise --time-limit (time_limit= in the API)")


# conflicts a solver call may meet in its first, quick attempt (``_solve``): a phase's call meets a
# handful; a thousand take about 5 ms on a small program and 130 ms on one of 120,000 atoms (three
# times a 64-head step's)
_QUICK_CONFLICTS = "1000"
# the models a program's first solver call asks for: two, which tell one answer from several
# (``_Driver.run``, ``solve_in_universe``)
_FIRST_MODELS = 2
# the models ``_Driver.consequences`` reads in each mode before it leaves several models to the backup rounds
_CONSEQUENCE_MODELS = 8


def _solve(ctl: clingo.Control, clock: _Clock, assumptions: list, on_model=None,
           core: list[int] | None = None, restart: Callable[[], None] | None = None,
           wanted: int = 0) -> clingo.SolveResult:
    """One solver call that gives up when the clock runs out (the search is interrupted). An
    unsatisfiable call puts its core (the assumption literals it rests on) into ``core``.

    With ``restart`` (which forgets what ``on_model`` has collected), the call is first made in this
    thread with a bound on its conflicts: a phase's call ends long before that bound, and a call in a
    thread of its own, which the clock can stop, costs about 0.4 ms more (a movement phase's solving
    took 1.5 ms that way, 1.1 ms this way). A call that reaches the bound before it is done is made
    again, ``restart`` called first, in a thread of its own; the bound keeps the first attempt short,
    so that the time limit and Ctrl-C still stop a hard search promptly. ``ctl`` is made by
    ``new_control``, bounded already (the call made again lifts the bound for itself alone);
    ``wanted``: the models it is set to find (0: all)."""
    clock.check()
    # (a core is read off the handle of a call in its own thread: such a call is made that way at once)
    if restart is not None and core is None:
        seen = 0

        def counted(m: clingo.Model) -> None:
            nonlocal seen
            seen += 1
            if on_model is not None:
                on_model(m)

        result = ctl.solve(assumptions=assumptions, on_model=counted)
        if result.exhausted or 0 < wanted <= seen:
            return result
        restart()
        clock.check()
    ctl.configuration.solve.solve_limit = "umax"
    try:
        with ctl.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:
            try:
                while not handle.wait(max(0.0, min(_WAIT, clock.left()))):
                    if clock.left() <= 0:
                        handle.cancel()
                        clock.exceeded()
                result = handle.get()
                if core is not None and result.unsatisfiable:
                    core.extend(handle.core())
                return result
            except BaseException:
                handle.cancel()
                raise
    finally:
        ctl.configuration.solve.solve_limit = _QUICK_CONFLICTS


@dataclass
class _Model:
    """What the driver reads of a model: the truth of each decision and, when asked, the shown atoms."""

    values: list[bool]
    shown: tuple[clingo.Symbol, ...] = ()


class _Driver:
    """The backup rules on one ground program (see the module's docstring)."""

    def __init__(self, ctl: clingo.Control, clock: _Clock) -> None:
        self.ctl = ctl
        self.clock = clock
        atoms = ctl.symbolic_atoms
        self.szykman = {a.symbol.arguments[0]: a.symbol for a in atoms.by_signature("szykman", 1)}
        for sym in self.szykman.values():
            ctl.assign_external(sym, None)  # free: every solve call fixes it by assumption
        self.szykman_fleet = {atoms[s].literal: f for f, s in self.szykman.items()}
        # the program says which paradox backup rule applies (datc_4a2); the Szykman rule unless it says otherwise
        self.all_hold = any(str(a.symbol.arguments[0]) == "all_hold" for a in atoms.by_signature("backup_rule", 1))
        self.failing = {a.symbol.arguments[0]: a.symbol for a in atoms.by_signature("all_hold", 1)}
        for sym in self.failing.values():
            ctl.assign_external(sym, None)
        self.failing_unit = {atoms[s].literal: u for u, s in self.failing.items()}
        self.held: set[clingo.Symbol] = set()  # fleets held by the Szykman rule
        self.stopped: set[clingo.Symbol] = set()  # units whose moves a paradox made fail ('All Hold')
        self.fixed: dict[int, bool] = {}  # decision index -> value fixed by a backup rule
        self.backups: list[tuple[str, tuple[clingo.Symbol, ...]]] = []
        self.open_parts: int | None = None  # the parts found undecided in the last round (for the time limit's message)
        self.flip: int | None = None  # the literal that turns the decisions' preferred sign to true
        self.models_asked = _FIRST_MODELS  # the models the solver is set to find, as ``new_control`` made it
        self.seen = 1
        # the clock names the step's size through a weak reference: a strong one would make a cycle
        # (driver -> clock -> driver) that keeps the Control and its ground program alive until Python's
        # cycle collector runs, which then pays for releasing several programs at once
        me = weakref.ref(self)
        clock.size = lambda: driver.size() if (driver := me()) is not None else ""

    @cached_property
    def parts(self) -> _Parts:
        """The step's parts and decisions, indexed when a backup rule is first needed (most steps have
        one model at once, and need none of it)."""
        return _Parts(self.ctl.symbolic_atoms)

    def size(self) -> str:
        p = self.parts
        parts = (_count(self.open_parts, "undecided part") if self.open_parts is not None
                 else _count(len(set(p.part)), "independent part") + " with decisions")
        return (f"{_count(p.boards, 'board')} in play, {_count(p.orders, 'order')}, "
                f"{_count(len(p.decisions), 'decision')}, {parts}")

    # -- solver calls ------------------------------------------------------------------------------

    def _find(self, models: int) -> None:
        """Sets the solver to find this many models (0: all), unless it is set so already."""
        if models != self.models_asked:
            self.ctl.configuration.solve.models = models
            self.models_asked = models

    def assumptions(self, relaxed: frozenset = frozenset()) -> list:
        # literals, not symbols: clingo would look every symbol up again on every call
        out: list = [lit if f in self.held else -lit for lit, f in self.szykman_fleet.items() if f not in relaxed]
        out += [lit if u in self.stopped else -lit for lit, u in self.failing_unit.items()]
        if self.fixed:
            lits = self.parts.literals
            out += [lits[i] if v else -lits[i] for i, v in self.fixed.items()]
        return out

    def _assumed(self, extra: Sequence) -> list:
        """The current assumptions and ``extra``; the preference literal is false unless ``extra`` has it
        (left free, it would double every model)."""
        out = self.assumptions() + list(extra)
        if self.flip is not None and self.flip not in extra and -self.flip not in extra:
            out.append(-self.flip)
        return out

    def model(self, extra: Sequence = (), shown: bool = False, count: int = 1,
              values: bool = True) -> tuple[_Model | None, int]:
        """The first model under the current assumptions (None: there is none), and how many there
        are up to ``count``; the decisions' values unless ``values`` is false."""
        found: list[_Model] = []
        n = 0
        lits = self.parts.literals if values else []

        def on_model(m: clingo.Model) -> None:
            nonlocal n
            n += 1
            if n == 1:
                found.append(_Model([m.is_true(lit) for lit in lits], tuple(m.symbols(shown=True)) if shown else ()))

        def restart() -> None:
            nonlocal n
            n = 0
            found.clear()

        self._find(count)
        _solve(self.ctl, self.clock, self._assumed(extra), on_model=on_model, restart=restart, wanted=count)
        return (found[0] if found else None), n

    def core(self, relaxed: frozenset) -> list[clingo.Symbol] | None:
        """The fleets of an unsatisfiable core, with the fleets ``relaxed`` left free; None when there is
        a model then; empty when the core holds no convoying fleet."""
        core: list[int] = []
        self._find(1)
        result = _solve(self.ctl, self.clock, self.assumptions(relaxed) + ([-self.flip] if self.flip else []), core=core)
        if result.satisfiable:
            return None
        fleets = self.szykman_fleet
        return sorted({fleets[-lit] for lit in core if -lit in fleets and fleets[-lit] not in self.held})

    def _flip(self) -> int:
        """A literal that, assumed, makes the solver try every decision true first (and false first
        otherwise): two models far apart, so that one comparison finds the undecided parts."""
        if self.flip is None:
            with self.ctl.backend() as backend:
                flip = backend.add_atom(clingo.Function("fivedp_prefer_true"))
                backend.add_external(flip, clingo.TruthValue.Free)
                for lit in self.parts.literals:
                    backend.add_heuristic(lit, clingo.backend.HeuristicType.Sign, -1, 1, [])
                    backend.add_heuristic(lit, clingo.backend.HeuristicType.Sign, 1, 2, [flip])
                # a free Szykman atom is decided first, false first (``part_cores``)
                for lit in self.szykman_fleet:
                    backend.add_heuristic(lit, clingo.backend.HeuristicType.Level, 1, 1, [])
                    backend.add_heuristic(lit, clingo.backend.HeuristicType.Sign, -1, 1, [])
            self.ctl.configuration.solver.heuristic = "Domain"
            self.flip = flip
        return self.flip

    def _differs(self, base: _Model, among: Sequence[int]) -> int:
        """A new atom that holds in a model where one of the decisions ``among`` differs from ``base``."""
        lits = self.parts.literals
        with self.ctl.backend() as backend:
            atom = backend.add_atom()
            for i in among:
                backend.add_rule([atom], [-lits[i] if base.values[i] else lits[i]])
        return atom

    def undecided(self) -> set[int]:
        """The decisions that differ between models (brave but not cautious consequences): two
        models of opposite preferences, then a model that differs elsewhere, until there is none."""
        flip = self._flip()
        low, _ = self.model([-flip])
        high, _ = self.model([flip])
        assert low is not None and high is not None
        differ = {i for i, (a, b) in enumerate(zip(low.values, high.values)) if a != b}
        while True:
            rest = [i for i in range(len(low.values)) if i not in differ and i not in self.fixed]
            if not rest:
                return differ
            other, _ = self.model([self._differs(low, rest)])
            if other is None:
                return differ
            differ |= {i for i in rest if other.values[i] != low.values[i]}

    def consequences(self) -> tuple[tuple[clingo.Symbol, ...], tuple[clingo.Symbol, ...]] | None:
        """The shown atoms that hold in every model (cautious consequences) and in some model (brave),
        under the current assumptions, in the order clingo lists them: two solver calls. Each model
        these calls find is read whole, and they find about one model for each independent open part,
        so past ``_CONSEQUENCE_MODELS`` models this gives up (None): the backup rounds (``run``) find
        every open part in a handful of calls."""
        found = []
        try:
            for mode in ("cautious", "brave"):
                last: list[Sequence[clingo.Symbol]] = []

                def keep(m: clingo.Model) -> None:
                    # each model of these modes is the consequences so far; the last, once exhausted, are they
                    last[:] = [m.symbols(shown=True)]

                self.ctl.configuration.solve.enum_mode = mode
                self._find(_CONSEQUENCE_MODELS)
                result = _solve(self.ctl, self.clock, self._assumed(()), on_model=keep, restart=last.clear,
                                wanted=_CONSEQUENCE_MODELS)
                if not result.exhausted or not last:
                    return None
                found.append(tuple(last[0]))
        finally:
            self.ctl.configuration.solve.enum_mode = "auto"
        return found[0], found[1]

    # -- the rounds --------------------------------------------------------------------------------

    def run(self, found: tuple[_Model | None, int] | None = None) -> tuple[_Model, int]:
        """Applies backup rules until one model remains; that model, and the most models seen at once.
        ``found``: what the first round's call (``model(shown=True, count=2, values=False)``) gave, when
        the caller has made it already."""
        rounds = 0
        while True:
            first, count = found if found is not None else self.model(shown=True, count=2, values=False)
            found = None
            self.seen = max(self.seen, count)
            if count == 1:
                assert first is not None
                return first, self.seen
            rounds += 1
            # every round fixes at least one decision or external, so this many rounds always suffice
            if rounds > len(self.parts.decisions) + len(self.szykman) + len(self.failing) + 1:
                break
            if first is None:
                self.settle_cores()
            else:
                self.settle_undecided()
        raise AdjudicationError("backup rules did not settle the adjudication")

    def settle_cores(self) -> None:
        """No model: every disjoint unsatisfiable core's convoying fleets hold (Szykman), or under
        'All Hold' the moves of each core's paradox fail."""
        cores = self.part_cores()
        relaxed: frozenset = frozenset(f for core in cores for f in core)
        while True:
            core = self.core(relaxed)
            if core is None:
                break
            if not core:
                if cores:
                    break  # settle these first: what remains is found again next round
                raise AdjudicationError("no adjudication satisfies the rules, and no convoy paradox explains it")
            cores.append(core)
            relaxed |= frozenset(core)
        self.open_parts = len(cores)
        for core in sorted(cores, key=lambda c: c[0]):
            if self.all_hold and self.hold_all(self.paradox_units(set(core), set())):
                continue
            self.held.update(core)
            self.backups.append(("szykman", tuple(core)))

    def part_cores(self) -> list[list[clingo.Symbol]]:
        """The cores of the parts that have no solution unless a convoying fleet holds, found with one
        solver call for all parts: every fleet's Szykman atom is left free, decided before anything
        else and false first, so that it comes out true only where holding no fleet of its part leaves
        no solution. A part with one such fleet has it for its core; a part with several is asked for
        its core alone. What this misses, the core loop of ``settle_cores`` finds."""
        self._flip()
        free = [(lit, f) for lit, f in self.szykman_fleet.items() if f not in self.held]
        if not free:
            return []
        values: list[bool] = []
        self._find(1)
        _solve(self.ctl, self.clock, self.assumptions(frozenset(f for _, f in free)) + [-self._flip()],
               on_model=lambda m: values.extend(m.is_true(lit) for lit, _ in free))
        parts = self.parts
        fleets_of: dict[clingo.Symbol, list[clingo.Symbol]] = {}
        for _, f in free:
            fleets_of.setdefault(parts.of(f), []).append(f)
        needing = sorted({parts.of(f) for (_, f), v in zip(free, values) if v})
        cores = []
        for part in needing:
            mine = sorted(fleets_of[part])
            if len(mine) == 1:
                cores.append(mine)
                continue
            others = frozenset(f for _, f in free if parts.of(f) != part)
            core = self.core(others)
            if core:
                cores.append(core)
        return cores

    def settle_undecided(self) -> None:
        """Several models: each part's undecided decisions are settled by the rule that fits them."""
        undecided = self.undecided()
        if not undecided:
            raise AdjudicationError("several adjudications differ in no decision")
        parts = self.parts
        by_part: dict[clingo.Symbol, list[int]] = {}
        for i in sorted(undecided):
            by_part.setdefault(parts.part[i], []).append(i)
        self.open_parts = len(by_part)
        convoying = frozenset(parts.convoys_of)
        circular: list[list[int]] = []
        for part in sorted(by_part):
            mine = by_part[part]
            fleets = set()
            for i in mine:
                d = parts.decisions[i]
                if d.name == "moves" and parts.dest.get(d.arguments[0]) in convoying:
                    fleets.add(parts.dest[d.arguments[0]])
                elif d.name == "dislodged" and d.arguments[0] in convoying:
                    fleets.add(d.arguments[0])
            moves = {parts.decisions[i].arguments[0] for i in mine if parts.decisions[i].name == "moves"}
            if self.all_hold and fleets and self.hold_all(self.paradox_units(fleets, moves)):
                continue
            new = sorted(f for f in fleets if f in self.szykman and f not in self.held)
            if new:
                self.held.update(new)
                self.backups.append(("szykman", tuple(new)))
                continue
            moving = [i for i in mine if parts.decisions[i].name == "moves"]
            if not moving:
                # not circular movement and no convoying fleet: DATC §5.B.9 lets the orders of the cycle fail
                self.fixed.update((i, False) for i in mine)
                self.backups.append(("fail", tuple(sorted(parts.decisions[i].arguments[0] for i in mine))))
                continue
            circular.append(sorted(moving, key=lambda i: parts.decisions[i]))
        if circular:
            self.settle_circular(circular)

    def settle_circular(self, circles: list[list[int]]) -> None:
        """Circular movement: every undecided move succeeds, all parts at once when that leaves a
        solution; otherwise part by part, the moves kept one by one while a solution remains."""
        decisions = self.parts.decisions
        for circle in circles:
            self.fixed.update((i, True) for i in circle)
        if self.model()[0] is None:
            for circle in circles:
                for i in circle:
                    del self.fixed[i]
            for circle in circles:
                for i in circle:
                    self.fixed[i] = True
                    if self.model()[0] is None:
                        del self.fixed[i]
        for circle in circles:
            kept = [decisions[i].arguments[0] for i in circle if self.fixed.get(i)]
            self.backups.append(("circular", tuple(kept)))

    def hold_all(self, units: list[clingo.Symbol]) -> bool:
        self.stopped.update(units)
        if units:
            self.backups.append(("all_hold", tuple(units)))
        return bool(units)

    def paradox_units(self, fleets: set, moving: set) -> list[clingo.Symbol]:
        """The 'All Hold' rule (DATC 4.A.2): the units whose moves make up the paradox, not yet held.
        They are the units moving into the paradox's convoying fleets and the armies those fleets
        convoy; only when those are all held already, the units of the undecided moves. Empty when
        those too are held (the driver then falls back to the Szykman rule). A move that merely
        depends on the paradox's outcome is not part of it: it is adjudicated once the paradox's
        moves have failed."""
        parts = self.parts
        armies = {a for f in fleets for a in parts.convoys_of.get(f, ())}
        movers = {u for f in fleets for u in parts.movers_into.get(f, ())} | {a for a in armies if a in parts.dest}
        for units in (movers, moving):
            new = sorted(u for u in units if u in self.failing and u not in self.stopped)
            if new:
                return new
        return []


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

    def work() -> tuple:
        solution = _solved(programs, facts, static, names, clock, statistics, settle)
        backups = tuple((rule, tuple(symbol_texts(places))) for rule, places in solution.backups)
        return (symbol_texts(solution.atoms), backups,
                symbol_texts(solution.unsettled), solution.models_seen, solution.ground_seconds,
                solution.solve_seconds, solution.atoms_count, solution.rules_count, solution.add_seconds,
                solution.statistics_seconds)

    try:
        atoms, backups, unsettled, *numbers = run_apart(work, max(clock.left(), 0.0) + _GRACE, mib * _MIB)
    except LimitHit as hit:
        mine = [r.source or "of your own" for r in programs if isinstance(r, RuleText)]
        rules = f"rule{'s' if len(mine) > 1 else ''} {', '.join(mine)}"
        size = (f"{_count(len(_HEADS.findall(facts)), 'board')} in play, "
                f"{_count(len(_ORDERS.findall(facts)), 'order')}")
        if hit.kind == "time":
            raise TimeLimitError(f"this step is too big to ground and settle within the time limit of "
                                 f"{clock.limit:g} s with your {rules} ({size}); raise --time-limit (time_limit= "
                                 "in the API), or look in the rule for one that grounds without end") from None
        raise MemoryLimitError(f"this step is too big to ground within the memory limit of {mib:,} MiB with your "
                               f"{rules} ({size}{'; ' + hit.detail if hit.detail else ''}); raise --memory-limit, or "
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
