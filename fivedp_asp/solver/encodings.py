"""The encoding files (``asp/``) and rules of your own, parsed and analysed once per process.

A program is a tuple of files: entry encodings, option files and rules of your own (``RuleText``,
handed over as text). Each file is parsed once with the files it includes, and each of its
statements analysed once (``_analysed``: what it needs and what it gives, for ``program.py``);
a program is assembled from its files in clingo's own order (``_assembled``).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

import clingo
from clingo import ast

from ..errors import AdjudicationError, EncodingError


def asp_dir() -> Path:
    """Where the logic programs are: inside the installed package, or ``asp/`` in a source checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "asp", here.parent / "asp"):
        if (candidate / "movement.lp").is_file():
            return candidate
    raise AdjudicationError(f"the logic programs (asp/) are missing next to {here}")


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



_Signature = tuple[str, int]


_ATOM_NAME = re.compile(r"_*[a-z][A-Za-z0-9_']*")


def _signature(atom: ast.AST) -> _Signature | None:
    """The predicate of a symbolic atom, or None for one whose predicate the analysis does not read
    (classical negation, a pool anywhere in it, an external function): the program is then used whole.
    Read off the atom's text, one call into clingo: walking its syntax tree costs one for every node,
    and the encodings have many atoms to read at every start."""
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
    # the syntax tree again (each attribute read through clingo's AST is a call into clingo)
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
    Reading a syntax tree through clingo's API costs a call an attribute, so each statement of an
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


def parse_builtin() -> int:
    """Parses and analyses every built-in encoding now (the entry encodings of ``asp/`` and the option
    files of ``asp/options/``, each with the files it includes) into this process's caches, and says how
    many files it read. A process that forks solving children afterwards (a server of forks,
    ``apart.py``) hands each of them the encodings parsed: each child would otherwise parse again those
    its program reads before its own work (about 0.1 s for a step's movement program; 0.3 s for all)."""
    root = asp_dir()
    names = [path.relative_to(root).as_posix()
             for path in sorted(root.glob("*.lp")) + sorted((root / "options").glob("*.lp"))]
    for name in names:
        _parsed_entry(name)
    return len(names)


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


def _plain_head(rule: ast.AST) -> bool:
    """A rule that derives one atom (not a constraint, a choice, a disjunction or a conditional head)."""
    head = rule.head
    return head.ast_type == ast.ASTType.Literal and head.sign == ast.Sign.NoSign \
        and head.atom.ast_type == ast.ASTType.SymbolicAtom
