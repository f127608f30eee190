"""A game's rule settings as one value: the options set and the rules of your own, checked once.

Every place that reads an option (the step, the loaders, the reports, the tools) is handed a
``Settings``: it is built, and checked against the registry (options.py) extended by its rules of
your own, where the settings come in (a scenario's or game file's ``options:``, ``--option`` and
``--rule`` arguments, the API, the server), and is never checked again. It is immutable and
hashable, so a cache may key on it; two settings that set the same values (in any order) with the
same rules are equal.

The order in which values are given is kept, because documents print them in that order (a game
file's ``options:``, ``fivedp game show``): ``plain()`` is the values given and ``document()`` the
YAML data a game file records, rules of your own with their text. A rule's text is handed to the
solver as text (``files``); nothing is ever written for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Mapping

from ..errors import InputError, RuleError, quoted
from ..solver.driver import RuleText
from .options import (PRESET, PROGRAMS, REGISTRY, RULES, Option, UserRule, preset_problem, problem_in,
                      registry as _registry, same_value, unknown)

SettingValue = str | bool


@dataclass(frozen=True, eq=False)
class Settings:
    """The options set (``values``: name and value, in the order given; the others are at their
    defaults) and the rules of your own (``rules``, each a new value of a built-in option or a new
    boolean option, with its name and text). Built only valid: a wrong type is a TypeError, an
    unknown name or value an InputError, two rules for one value a RuleError."""

    values: tuple[tuple[str, SettingValue], ...] = ()
    rules: tuple[UserRule, ...] = ()
    _given: Mapping[str, SettingValue] = field(init=False, repr=False)
    _known: Mapping[str, Option] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, tuple) or not all(isinstance(r, UserRule) for r in self.rules):
            raise TypeError(f"Settings: rules must be a tuple of UserRule, not {type(self.rules).__name__}")
        if not isinstance(self.values, tuple) or not all(
                isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], (str, bool))
                for p in self.values):
            raise TypeError("Settings: values must be a tuple of (name, value) pairs, each name a str and each "
                            "value a str or a bool")
        seen: set[tuple[str, Any]] = set()
        for rule in self.rules:
            key = (rule.option, (type(rule.value), rule.value))
            if key in seen:
                raise RuleError(f"rule {rule.label}: given twice (give each option value one rule)")
            seen.add(key)
            builtin = REGISTRY.get(rule.option)
            if builtin is None and rule.value is not True:
                raise RuleError(f"rule {rule.option}: a new option's rule is its value true")
            if builtin is not None and (isinstance(rule.value, bool)
                                        or any(same_value(v.value, rule.value) for v in builtin.values)):
                raise RuleError(f"rule {rule.label}: option {rule.option} already has that value, or it is no "
                                f"name (values now: {builtin.allowed()})")
        known = _registry(self.rules)
        given: dict[str, SettingValue] = {}
        for name, value in self.values:
            if name in given:
                raise InputError(f"option {quoted(name)} is given twice")
            reason = problem_in(known, name, value)
            if reason:
                raise InputError(reason)
            given[name] = value
        object.__setattr__(self, "_given", given)
        object.__setattr__(self, "_known", known)
        object.__setattr__(self, "_hash", hash((self._key(), self.rules)))  # caches key on it often

    @classmethod
    def of(cls, values: Mapping[str, SettingValue] | None = None, rules: Iterable[UserRule] = ()) -> "Settings":
        """Settings from a mapping of option names to values (plain Python values: ``True``, not
        ``"true"``) and rules of your own; the rules' values are in effect only when ``values`` says so."""
        if values is not None and not isinstance(values, Mapping):
            raise TypeError(f"Settings.of: values must be a mapping of option names to values, not "
                            f"{type(values).__name__}")
        if isinstance(values, Mapping) and RULES in values:
            raise TypeError(f"Settings.of: {RULES!r} is no option; give rules of your own as rules")
        return cls(tuple((values or {}).items()), tuple(rules))

    # a value: equal by what it sets, whatever the order; pickled (to worker processes) as its fields
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Settings):
            return NotImplemented
        return self is other or (self._hash == other._hash and self.rules == other.rules
                                 and self._key() == other._key())

    def __hash__(self) -> int:
        return self._hash

    def _key(self) -> frozenset:
        return frozenset((name, type(value), value) for name, value in self.values)

    def __reduce__(self) -> tuple:
        return Settings, (self.values, self.rules)

    @property
    def registry(self) -> Mapping[str, Option]:
        """Every option these settings may set: the built-in ones and those their rules add."""
        return self._known

    def option(self, name: str) -> Option:
        """The registry's option ``name`` (InputError naming the known ones when there is none)."""
        try:
            return self._known[name]
        except (KeyError, TypeError):
            raise InputError(unknown(str(name), self._known)) from None

    def given(self, name: str) -> SettingValue | None:
        """The value set for ``name``, or None when it is at its default."""
        return self._given.get(name)

    def chosen(self, name: str) -> SettingValue:
        """The value in effect: the one given, or the registry's default."""
        value = self._given.get(name)
        return value if value is not None else self.option(name).default

    def at_default(self, name: str) -> bool:
        """Whether ``name`` has its default value (not set, or set to the default)."""
        return name not in self._given or self._given[name] == self.option(name).default

    def files(self, program: str) -> tuple[str, ...]:
        """The option files loaded with ``program`` (one of ``PROGRAMS``) for these settings: paths
        under asp/, or the texts of rules of your own (``RuleText``, handed to clingo as text)."""
        if program not in PROGRAMS:
            raise ValueError(f"Settings.files: no program {program!r} (one of {', '.join(PROGRAMS)})")
        return _files(self, program)

    def in_effect(self, rule: UserRule) -> bool:
        """Whether ``rule``, one of these settings' rules, is the value chosen for its option."""
        return same_value(self._given.get(rule.option), rule.value)

    def with_values(self, changes: Mapping[str, SettingValue]) -> "Settings":
        """These settings with ``changes`` set too (a name already set keeps its place)."""
        if not isinstance(changes, Mapping):
            raise TypeError(f"Settings.with_values: changes must be a mapping, not {type(changes).__name__}")
        values = dict(self._given)
        values.update(changes)
        return Settings(tuple(values.items()), self.rules)

    def with_rules(self, rules: Iterable[UserRule], *, in_effect: bool) -> "Settings":
        """These settings carrying ``rules`` too (a rule for a value already carried replaces that
        rule); with ``in_effect`` each rule's value is the one chosen for its option."""
        rules = tuple(rules)
        kept = tuple(r for r in self.rules
                     if not any(r.option == n.option and same_value(r.value, n.value) for n in rules))
        values = dict(self._given)
        if in_effect:
            for rule in rules:
                values[rule.option] = rule.value
        return Settings(tuple(values.items()), kept + rules)

    def plain(self) -> dict[str, SettingValue]:
        """The values given, by name, in the order given (without the rules of your own)."""
        return dict(self._given)

    def document(self) -> dict[str, Any]:
        """The settings as plain YAML data (game files, exported scenarios, selfplay's JSON): the
        values given, then under ``rules`` each rule of your own with its file's name and its whole
        text, so that the game can be replayed without the file."""
        out: dict[str, Any] = dict(self._given)
        if self.rules:
            out[RULES] = {r.option: ({"file": r.source, "text": r.text} if r.new_option else
                                     {"value": r.value, "file": r.source, "text": r.text}) for r in self.rules}
        return out


@lru_cache(maxsize=256)
def _files(settings: Settings, program: str) -> tuple[str, ...]:
    files = []
    for opt in settings.registry.values():
        if program in opt.programs:
            file = opt.value(settings.chosen(opt.name)).file
            if file:
                files.append(file if isinstance(file, RuleText) else f"options/{file}")
    return tuple(files)


def parse_setting(text: str, settings: Settings | None = None) -> tuple[str, SettingValue]:
    """``NAME=VALUE`` from the command line; booleans written ``true``/``false``. The options and
    values that ``settings``' rules of your own add are known too."""
    if not isinstance(text, str):
        raise TypeError(f"parse_setting: text must be a str, not {type(text).__name__}")
    settings = _need(settings, "parse_setting")
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name:
        raise InputError(f"option {quoted(text)}: write NAME=VALUE (known options: {', '.join(settings.registry)})")
    opt = settings.option(name)
    value: SettingValue = raw
    if opt.boolean and raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    reason = problem_in(settings.registry, name, value)
    if reason:
        raise InputError(reason)
    return name, value


def problem(name: str, value: Any, settings: Settings | None = None) -> str | None:
    """Why ``name: value`` is not a valid setting beside ``settings``' rules of your own, or None
    (``preset: NAME`` among them: a preset's name, options.py's ``PRESETS``)."""
    if name == PRESET:
        return preset_problem(value)
    return problem_in(_need(settings, "problem").registry, name, value)


def _need(settings: Settings | None, func: str) -> Settings:
    if settings is None:
        return Settings()
    if not isinstance(settings, Settings):
        raise TypeError(f"{func}: settings must be a Settings, not {type(settings).__name__}")
    return settings
