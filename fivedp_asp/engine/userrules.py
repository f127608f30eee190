"""Rules of your own: a user's logic file as a new value of a rule option, checked before it is used.

A rule of your own is loaded beside the movement encodings (``asp/movement.lp`` and its parts), like
the logic file of a built-in option value. Before it is used, it is parsed with clingo's AST and
held to a contract (docs/rules-of-your-own.md), which is derived here from the encodings themselves,
so that it follows them when they change:

- it may **read** every predicate of the movement program: the input facts (those the encodings
  read but no logic file defines: ``unit/4``, ``order/3``, ``ordered_move/4``, ...), everything the
  movement parts define, and the hooks below;
- it may **define** the hooks: the predicates that the built-in option files add to the movement
  program (``cut/1``, ``bad/2``, ``timeline_adj/2``, ``reason/4``, ...), less the forbidden ones;
- it **must define**, as a value of a built-in option whose every value has a file, what every one
  of those files defines (``adjacency`` values define ``timeline_adj/2``); as a new option, at least
  one hook (else it could change nothing);
- it **must not define** the input facts, the guessed decisions the driver reads (``moves/1``,
  ``dislodged/1``, ``given/1``, ``path/1``, ``assist_given/1``), the driver's externals, or any
  other predicate of the movement parts or of a built-in option file; helpers under new names are
  its own;
- it is rules and constraints only, one atom per head: no choice rules or disjunctions (the stable
  models must stay the solutions of the rules, and the driver would settle the extra ones as
  paradoxes), no ``#include``, ``#script``, ``#show``, ``#external``, ``#program``, ``#const``,
  optimisation or theory statements.

Before any of this, the text is screened (``screened``): what clingo must not see — a character it
cannot read outside strings and comments, a NUL, ``#include``, ``#script``, ``#theory`` — is refused
with its line and column; a rule file is read as every input is (``inputs.read_text``). The rule is
then ground alone, on no facts, in a child process within the time and memory limits
(``driver.refusals_alone``), so that a rule that grounds without end is refused where it is read.

A rule that leaves a step with no adjudication or with several that the backup rules cannot settle
is reported by ``unsettled.py`` (RuleError, bad input), naming the rule and the step's orders.
``validated`` builds the settings (``model/settings.py``) of a scenario's or game's ``options:``, rules
of your own included; ``from_arguments`` those of ``--rule`` and ``--option`` arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import clingo
from clingo import ast

from ..model.kinds import Phase
from ..errors import InputError, MemoryLimitError, RuleError, TimeLimitError
from ..inputs import read_text
from ..model.options import PRESET, REGISTRY, RULES, Option, UserRule, preset, registry
from ..model.settings import Settings, parse_setting, problem
from ..solver.driver import DECISIONS, asp_dir, refusals_alone, time_limit_in_effect

Signature = tuple[str, int]
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_QUOTE = 60  # at most this much of a user's text is quoted in a message


def _sig(sig: Signature) -> str:
    return f"{sig[0]}/{sig[1]}"


# -- the contract, derived from the encodings ------------------------------------------------------


@dataclass(frozen=True)
class Contract:
    """What a rule of your own may read, may define and must not define (module docstring)."""

    inputs: frozenset[Signature]  # facts the Python side writes
    readable: frozenset[Signature]  # every predicate of the movement program
    hooks: frozenset[Signature]  # what built-in option files add to the movement program
    forbidden: frozenset[Signature]  # inputs, decisions, externals, the movement parts' own predicates
    taken: Mapping[Signature, str]  # predicates of built-in option files: the file that defines each
    required: Mapping[str, frozenset[Signature]]  # option -> what each of its values' files defines


@dataclass
class _Use:
    """Heads and bodies of one parse, by predicate signature, with the first location of each."""

    heads: dict
    bodies: dict
    externals: set


def _walk(node: Any, into: dict, bodies: dict, loc: Any = None) -> None:
    """Every symbolic atom under ``node`` (with the location of its nearest literal); those in
    conditions and bodies are reads."""
    if isinstance(node, ast.AST):
        if "location" in node.keys():
            loc = node.location
        if node.ast_type == ast.ASTType.SymbolicAtom:
            term = node.symbol
            if term.ast_type == ast.ASTType.Function:
                sig = (term.name, len(term.arguments))
            elif term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
                sig = (term.symbol.name, len(term.symbol.arguments))
            else:
                return
            into.setdefault(sig, loc)
            return
        for key in node.child_keys:
            _walk(getattr(node, key), bodies if key in ("body", "condition") else into, bodies, loc)
    elif not isinstance(node, (str, int, float)) and hasattr(node, "__iter__"):
        for item in node:
            _walk(item, into, bodies, loc)


def _use(statements: Iterable[ast.AST]) -> _Use:
    use = _Use({}, {}, set())
    for s in statements:
        if s.ast_type == ast.ASTType.Rule:
            _walk(s.head, use.heads, use.bodies, s.location)
            _walk(s.body, use.bodies, use.bodies, s.location)
        elif s.ast_type == ast.ASTType.External:
            found: dict = {}
            _walk(s.atom, found, use.bodies, s.location)
            use.externals.update(found)
    return use


def _parse(files: Iterable[Path]) -> list[ast.AST]:
    out: list[ast.AST] = []
    ast.parse_files([str(f) for f in files], out.append)
    return out


@lru_cache(maxsize=1)
def contract() -> Contract:
    """The contract for rules of your own, read off asp/movement/*.lp and asp/options/*.lp."""
    root = asp_dir()
    core = _use(_parse(sorted((root / "movement").glob("*.lp")) + [root / "show" / "movement.lp"]))
    per_file = {f.name: _use(_parse([f])) for f in sorted((root / "options").glob("*.lp"))}

    movement_files = {v.file for o in REGISTRY.values() if Phase.MOVEMENT in o.programs for v in o.values if v.file}
    option_defined: set[Signature] = set()
    option_read: set[Signature] = set()
    externals = set(core.externals)
    taken: dict[Signature, str] = {}
    for name, use in per_file.items():
        externals |= use.externals
        for sig in use.heads:
            taken.setdefault(sig, f"asp/options/{name}")
        if name in movement_files:
            option_defined |= set(use.heads)
            option_read |= set(use.bodies)
    # facts fivedp writes: read by the movement parts or their option files, defined by no logic file
    inputs = frozenset((set(core.bodies) | option_read) - set(core.heads) - externals
                       - {s for u in per_file.values() for s in u.heads})
    core_preds = set(core.heads) | set(core.bodies) | inputs
    decisions = {(d, 1) for d in DECISIONS}
    hooks = frozenset((option_defined & core_preds) - inputs - decisions - externals
                      | ({s for s in option_defined if s[1] == 0} - inputs))  # flags the Python side reads
    forbidden = frozenset((core_preds | inputs | decisions | externals) - hooks)
    required: dict[str, frozenset[Signature]] = {}
    for opt in REGISTRY.values():
        if Phase.MOVEMENT in opt.programs and opt.values and all(v.file for v in opt.values):
            sets = [set(per_file[v.file].heads) & hooks for v in opt.values if v.file in per_file]
            required[opt.name] = frozenset(set.intersection(*sets)) if sets else frozenset()
    return Contract(inputs, frozenset(core_preds | hooks), hooks, forbidden, MappingProxyType(taken),
                    MappingProxyType(required))


# -- checking one file ---------------------------------------------------------------------------

_ALLOWED = {ast.ASTType.Rule, ast.ASTType.Comment}


def _where(source: str, loc: Any) -> str:
    return f"{source}:{loc.begin.line}:{loc.begin.column}"


# what clingo's lexer reads as one string literal (``"..."`` on one line, escapes ``\\"``, ``\\\\``,
# ``\\n`` only) and as a directive's keyword
_STRING = re.compile(r'"(?:[^\\"\n]|\\["\\n])*"')
_KEYWORD = re.compile(r"#[A-Za-z0-9_]*")
# directives refused before clingo reads the text, and why: clingo opens a file while it parses an
# #include (a FIFO would hang it, and any readable file would be read), and a script or a theory
# definition is read by parts of its lexer where a character it cannot read ends the interpreter
_REFUSED = {"include": "it would make clingo open a file", "script": "it would run code",
            "theory": "it defines a theory"}
_ASPIF = re.compile(r"asp (?:0|[1-9])")
# runs of text with nothing to look at: outside comments and strings (no quote, #, % or non-ASCII
# character), and inside a block comment (no * or %); skipped at once, so a long text is screened fast
_PLAIN = re.compile("[^\"#%\x80-\U0010ffff]+")
_IN_BLOCK = re.compile("[^*%]+")


def _end_of_line(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def screened(text: str, source: str) -> str:
    """The text of a rule of your own as clingo may be given it: a byte order mark at its very start
    dropped; RuleError, naming the line, the column and the character, for what clingo must not see.

    clingo reads only ASCII outside string literals and comments: any other character there makes its
    lexer report a part of the character's bytes, which its Python binding cannot decode, and the
    interpreter ends ("PANIC: exception in nothrow scope"); a NUL character ends the text for clingo
    without a word; ``#include`` opens a file while the text is parsed, before any check on the
    parsed statements could refuse it. So the text is scanned here, as clingo's lexer splits it
    (string literals, ``%`` line comments and ``#!``, ``%* *%`` block comments that nest), first."""
    if not isinstance(text, str) or not isinstance(source, str):
        raise TypeError("a rule's text and source must be str")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RuleError(f"{_at(source, text, exc.start)}: not UTF-8 text (a lone surrogate)") from None
    if "\0" in text:
        raise RuleError(f"{_at(source, text, text.index(chr(0)))}: a NUL character (clingo would read the text "
                        "only up to it)")
    if _ASPIF.match(text):
        raise RuleError(f"{source}:1:1: this is clingo's aspif format, not a logic program")
    i, n, depth = 0, len(text), 0
    while i < n:
        plain = (_IN_BLOCK if depth else _PLAIN).match(text, i)
        if plain is not None:
            i = plain.end()
            continue
        ch = text[i]
        if depth:  # in a block comment: only its ends, nested ones and line comments count
            if text.startswith("*%", i):
                depth, i = depth - 1, i + 2
            elif text.startswith("%*", i):
                depth, i = depth + 1, i + 2
            elif ch == "%":
                i = _end_of_line(text, i)
            else:
                i += 1
        elif ch == "%":
            if text.startswith("%*", i):
                depth, i = 1, i + 2
            else:
                i = _end_of_line(text, i)
        elif ch == "#":
            if text.startswith("#!", i):
                i = _end_of_line(text, i)
                continue
            word = _KEYWORD.match(text, i).group()
            if word[1:] in _REFUSED:
                raise RuleError(f"{_at(source, text, i)}: {word} is not allowed in a rule of your own "
                                f"({_REFUSED[word[1:]]}): only rules and constraints may be written in one")
            i += len(word)
        elif ch == '"':
            literal = _STRING.match(text, i)
            i = literal.end() if literal else i + 1  # a quote clingo cannot read: its own error, then on
        elif ch > "\x7f":
            raise RuleError(f"{_at(source, text, i)}: the character {ch!r} (U+{ord(ch):04X}) cannot be read here: "
                            "a logic program is ASCII outside its strings (\"...\") and comments")
        else:
            i += 1
    return text


def _at(source: str, text: str, i: int) -> str:
    """``source:line:column`` of the character at index ``i`` of ``text`` (columns count characters)."""
    line = text.count("\n", 0, i) + 1
    return f"{source}:{line}:{i - (text.rfind(chr(10), 0, i) + 1) + 1}"


def check_text(text: str, source: str, option: str, value: str | bool) -> str:
    """Parses a rule of your own and holds it to the contract; raises RuleError naming its file, line
    and column (clingo's own syntax errors included) and what is wrong. The text is screened first
    (``screened``); it is the screened text that is checked and returned."""
    text = screened(text, source)
    messages: list[str] = []
    statements: list[ast.AST] = []

    def logger(code: clingo.MessageCode, message: str) -> None:
        messages.append(message.strip())

    try:
        ast.parse_string(text, statements.append, logger=logger)
    except RuntimeError:
        detail = "; ".join(m.replace("<string>", source) for m in messages) or "clingo cannot read it"
        raise RuleError(f"rule {option}: {detail}") from None
    for s in statements:
        if s.location.begin.filename != "<string>":
            raise RuleError(f"{source}: #include is not allowed in a rule of your own (it loads "
                            f"{s.location.begin.filename[:_QUOTE]})")
        if s.ast_type == ast.ASTType.Program and s.name == "base" and not s.parameters:
            continue  # clingo's implicit start of every file
        if s.ast_type not in _ALLOWED:
            shown = str(s).splitlines()[0][:_QUOTE]
            raise RuleError(f"{_where(source, s.location)}: only rules and constraints may be written in a rule "
                            f"of your own, not {shown!r}")
        if s.ast_type == ast.ASTType.Rule and s.head.ast_type != ast.ASTType.Literal:
            # a choice or a disjunction would add models the driver takes for paradoxes and settles by
            # a backup rule that has nothing to do with them
            shown = str(s).splitlines()[0][:_QUOTE]
            raise RuleError(f"{_where(source, s.location)}: a rule of your own decides: one atom per head, no "
                            f"choice or disjunction ({shown!r})")
    _ground_alone(text, source)
    c = contract()
    use = _use(statements)
    if use.externals:
        raise RuleError(f"{source}: #external is not allowed in a rule of your own")
    for sig, loc in sorted(use.heads.items(), key=lambda x: (x[1].begin.line, x[1].begin.column)):
        if sig in c.hooks:
            continue
        if sig in c.inputs:
            raise RuleError(f"{_where(source, loc)}: {_sig(sig)} is an input fact written by fivedp; a rule may "
                            "read it but not define it")
        if (sig[0], sig[1]) in {(d, 1) for d in DECISIONS}:
            raise RuleError(f"{_where(source, loc)}: {_sig(sig)} is a decision the solver guesses and the driver "
                            "reads; define cut/1, bad/2 or another hook instead (docs/rules-of-your-own.md)")
        if sig in c.forbidden:
            raise RuleError(f"{_where(source, loc)}: {_sig(sig)} belongs to the movement encodings; a rule may "
                            f"read it but not define it (it may define: {_hook_hint(c)})")
        if sig in c.taken:
            raise RuleError(f"{_where(source, loc)}: {_sig(sig)} is a predicate of {c.taken[sig]}; give your "
                            "helper another name")
        near = sorted(_sig(s) for s in c.readable if s[0] == sig[0])
        if near:
            raise RuleError(f"{_where(source, loc)}: {_sig(sig)} is not a predicate of the encodings (they have "
                            f"{', '.join(near)})")
    for sig, loc in sorted(use.bodies.items(), key=lambda x: (x[1].begin.line, x[1].begin.column)):
        if sig in c.readable or sig in use.heads:
            continue
        near = sorted(_sig(s) for s in c.readable if s[0] == sig[0])
        hint = f" (the encodings have {', '.join(near)})" if near else ""
        raise RuleError(f"{_where(source, loc)}: reads {_sig(sig)}, which neither the encodings nor this file "
                        f"define{hint}")
    defined = set(use.heads) & c.hooks
    need = c.required.get(option, frozenset()) if not isinstance(value, bool) else frozenset()
    missing = sorted(_sig(s) for s in need - set(use.heads))
    if missing:
        raise RuleError(f"{source}: as a value of option {option}, the rule must define {', '.join(missing)} "
                        "(every built-in value's file does)")
    if not defined:
        raise RuleError(f"{source}: the rule defines none of the predicates the encodings read from option "
                        f"files, so it could change nothing (it may define: {_hook_hint(c)})")
    return text


# seconds a rule of your own may take to ground alone, on no facts (the contract check), when the time
# limit in effect is longer: a rule fit for use grounds in a moment there, having no facts to read (a
# rule making a million atoms of a range alone grounds in under 2 s, and would make a step far slower
# still), and the commands that only read a rule (``fivedp options``, ``game show``) have no time limit
# of their own: a rule that grinds is refused after 3 s on every command that reads it, not after 10
ALONE_SECONDS = 3.0


def _ground_alone(text: str, source: str) -> None:
    """Grounds the rule on no facts: what clingo refuses only when grounding (unsafe variables, a
    wrong use of an aggregate) is then reported with the file's line and column, not later as a
    failure of the whole program. It is ground apart (a child process), within the time limit (at
    most ``ALONE_SECONDS``) and the memory limit: a rule that grounds without end on its own facts
    (``p(X+1) :- p(X). p(0).``) is refused here."""
    try:
        messages = refusals_alone(text, min(time_limit_in_effect(), ALONE_SECONDS))
    except (TimeLimitError, MemoryLimitError) as exc:
        raise RuleError(f"{source}: {exc}: a rule that grounds without end (p(X+1) :- p(X).) or grounds a "
                        "huge range cannot be used") from None
    if messages is not None:
        detail = "; ".join(m.replace("<string>", source) for m in messages) or "clingo cannot ground it"
        raise RuleError(f"{source}: {detail[:400]}")


def _hook_hint(c: Contract) -> str:
    common = [s for s in (("cut", 1), ("bad", 2), ("reason", 4), ("timeline_adj", 2)) if s in c.hooks]
    return ", ".join(_sig(s) for s in common) + ", ... (docs/rules-of-your-own.md lists them all)"


# -- making rules ----------------------------------------------------------------------------------


def _target(option: str, value: str | bool, source: str, known: Mapping[str, Any]) -> None:
    """Refuses an option name or value that cannot take a rule of your own."""
    if option in (RULES, PRESET) or not _NAME.match(option):
        raise RuleError(f"rule {option[:_QUOTE]!r}: an option name is lower case letters, digits and _, "
                        f"starting with a letter, and not {RULES!r} or {PRESET!r}")
    opt = REGISTRY.get(option)
    if opt is None:
        if value is not True:
            where = "a new option of yours" if option in known else "no option"
            raise RuleError(f"rule {option}={value}: {option!r} is {where}; a new option is written NAME=FILE")
        return  # a new option (given again: the later file replaces the earlier)
    if isinstance(value, bool):
        raise RuleError(f"rule {option}: {option} is a built-in option; add a value to it with "
                        f"{option}=VALUE:FILE (values now: {opt.allowed()})")
    if Phase.MOVEMENT not in opt.programs:
        raise RuleError(f"rule {option}={value}: rules of your own act in movement, and option {option} acts in "
                        f"{', '.join(opt.programs) or 'order reading (Python)'}")
    if opt.boolean:
        raise RuleError(f"rule {option}={value}: {option} is a boolean option; add your rule as a new option "
                        "(NAME=FILE) instead")
    if not _NAME.match(value):
        raise RuleError(f"rule {option}={value[:_QUOTE]!r}: a value is lower case letters, digits and _")
    if any(v.value == value for v in opt.values):
        raise RuleError(f"rule {option}={value}: {option} already has a value {value!r}; choose another name")


def make_rule(option: str, value: str | bool, source: str, *, text: str | None = None,
              base: str | Path | None = None, known: Mapping[str, Option] | None = None) -> UserRule:
    """A checked rule of your own from its file (``source``, relative to ``base``) or from its ``text``
    (a game file's record, which names the file it came from). ``known``: the registry it joins (the
    options other rules of your own added already)."""
    if not isinstance(option, str) or not isinstance(value, (str, bool)) or not isinstance(source, str):
        raise TypeError("make_rule: option and source must be str, value a str or a bool")
    _target(option, value, source, known if known is not None else registry())
    if text is None:
        file = Path(source) if base is None or Path(source).is_absolute() else Path(base) / source
        try:
            # as every input is read: a regular file only (a FIFO would never end), size-capped, UTF-8
            text = read_text(file, "rule file")
        except InputError as exc:
            raise RuleError(f"rule {option}: {exc}") from None
        shown = str(file)
    else:
        file, shown = None, source
    text = check_text(text, shown, option, value)
    return UserRule(option, value, source if file is None else str(file), text)


def parse_spec(spec: str, base: str | Path | None = None,
               known: Mapping[str, Option] | None = None) -> UserRule:
    """``NAME=FILE`` (a new option) or ``NAME=VALUE:FILE`` (a new value of option NAME), as given to
    ``--rule`` on the command line."""
    name, sep, rest = spec.partition("=")
    name, rest = name.strip(), rest.strip()
    if not sep or not name or not rest:
        raise RuleError(f"--rule {spec[:_QUOTE]!r}: write NAME=FILE (a new option) or NAME=VALUE:FILE (a new "
                        "value of an option)")
    value: str | bool = True
    head, colon, tail = rest.partition(":")
    if colon and _NAME.match(head) and not Path(rest).exists():
        value, rest = head, tail
    return make_rule(name, value, rest, base=base, known=known)


def parse_specs(specs: Iterable[str]) -> tuple[UserRule, ...]:
    """Several ``--rule`` arguments; a later rule for the same option value replaces an earlier one."""
    if isinstance(specs, str):
        raise TypeError("parse_specs: give a list of --rule arguments, not one str")
    settings = Settings()
    for spec in specs:
        rule = parse_spec(spec, known=settings.registry)
        settings = settings.with_rules((rule,), in_effect=False)
    return settings.rules


def from_arguments(options: Iterable[str], specs: Iterable[str]) -> Settings:
    """The settings of ``--rule`` arguments (each rule in effect) and then ``--option NAME=VALUE``
    arguments (which may name the rules' options and values)."""
    if isinstance(options, str) or isinstance(specs, str):
        raise TypeError("from_arguments: give lists of arguments, not one str")
    settings = Settings().with_rules(parse_specs(specs), in_effect=True)
    for text in options:
        name, value = parse_setting(text, settings)
        settings = settings.with_values({name: value})
    return settings


def rules_from_mapping(raw: Any, base: str | Path | None = None) -> tuple[UserRule, ...]:
    """The ``rules:`` entry of a scenario's or a game's options: NAME: FILE, NAME: VALUE:FILE, or NAME:
    {value: VALUE, file: FILE} / {file: NAME, text: TEXT} (how a game file records them)."""
    if isinstance(raw, (tuple, list)) and all(isinstance(r, UserRule) for r in raw):
        # rules made already (the API): checked again, as any text from outside is
        raw = {r.option: {"value": r.value, "file": r.source, "text": r.text} for r in raw}
    if not isinstance(raw, Mapping):
        raise RuleError("options: rules must be a mapping NAME: FILE (or NAME: VALUE:FILE)")
    settings = Settings()
    for key, entry in raw.items():
        name = str(key)
        known = settings.registry
        if isinstance(entry, str):
            rule = parse_spec(f"{name}={entry}", base, known)
        elif isinstance(entry, Mapping):
            unknown = sorted(str(k) for k in entry if str(k) not in ("value", "file", "text"))
            if unknown:
                raise RuleError(f"rules: {name}: unknown key {unknown[0][:_QUOTE]!r} (known: value, file, text)")
            value = entry.get("value", True)
            value = str(value) if isinstance(value, str) else value
            if not isinstance(value, (str, bool)):
                raise RuleError(f"rules: {name}: value must be a name")
            file, text = entry.get("file"), entry.get("text")
            if file is None and text is None:
                raise RuleError(f"rules: {name}: give file (or text)")
            if text is not None and not isinstance(text, str):
                raise RuleError(f"rules: {name}: text must be the rule's logic program as text")
            rule = make_rule(name, value, str(file if file is not None else f"rules: {name}"),
                             text=None if text is None else str(text), base=base, known=known)
        else:
            raise RuleError(f"rules: {name}: write a file name (or VALUE:FILE)")
        settings = settings.with_rules((rule,), in_effect=False)
    return settings.rules


# -- using them ------------------------------------------------------------------------------------


def scenario_with_rules(scenario: Any, rules: tuple[UserRule, ...]) -> Any:
    """A scenario with these rules added to its settings and in effect from its start."""
    if not rules:
        return scenario
    settings = scenario.options.with_rules(rules, in_effect=True)
    return replace(scenario, options=settings, start=replace(scenario.start, options=settings))


def with_preset(settings: Settings, name: str | None) -> Settings:
    """``settings`` over the preset ``name`` (``--preset``): the preset's values, overridden by the
    values ``settings`` gives; ``settings`` itself when ``name`` is None."""
    if not isinstance(settings, Settings):
        raise TypeError(f"with_preset: settings must be a Settings, not {type(settings).__name__}")
    if name is None:
        return settings
    values = dict(preset(name).values)
    values.update(settings.plain())
    return Settings(tuple(values.items()), settings.rules)


def scenario_with_preset(scenario: Any, name: str | None) -> Any:
    """A scenario played over the preset ``name`` (``--preset``): the options it writes, its own
    ``preset:`` expanded among them, override the preset's."""
    if not isinstance(getattr(scenario, "options", None), Settings):
        raise TypeError(f"scenario_with_preset: give a scenario, not {type(scenario).__name__}")
    if name is None:
        return scenario
    settings = with_preset(scenario.options, name)
    return replace(scenario, options=settings, start=replace(scenario.start, options=settings))


def validated(raw: Mapping[Any, Any], base: str | Path | None = None) -> Settings:
    """The settings of an ``options:`` mapping, checked (raises InputError naming the first bad value).

    Its ``preset`` entry, if any, names a preset (options.py's ``PRESETS``): its values come first,
    and the values written beside it override them.

    Its ``rules`` entry, if any, names rules of your own (``NAME: FILE``, ``NAME: VALUE:FILE``, or a
    mapping with ``value`` and ``file`` or ``text``; files relative to ``base``): each is read and
    checked (above) and is in effect unless the mapping sets its option otherwise."""
    if not isinstance(raw, Mapping):
        raise TypeError(f"validated: options must be a mapping, not {type(raw).__name__}")
    rules: tuple[UserRule, ...] = ()
    if RULES in raw:
        rules = rules_from_mapping(raw[RULES], base)
    settings = Settings((), rules)
    values: dict[str, Any] = dict(preset(raw[PRESET]).values) if PRESET in raw else {}
    for key, value in raw.items():
        if str(key) in (RULES, PRESET):
            continue
        value = str(value) if isinstance(value, str) else value  # plain str, not a line-numbered one
        reason = problem(str(key), value, settings)
        if reason:
            raise InputError(reason)
        values[str(key)] = value
    for rule in rules:
        values.setdefault(rule.option, rule.value)
    return Settings(tuple(values.items()), rules)
