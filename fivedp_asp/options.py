"""Every rule option in one registry: its values, default, meaning, source, and the logic each value loads.

The scenario and game loaders validate ``options:`` against it, the step asks it which logic files
to load for a program, ``fivedp options`` prints it and the documentation lists it. Adding an option
means adding one ``Option`` here and one logic file per value that needs one (``asp/options/``).

A value's ``file`` is loaded beside the entry encodings of the programs the option acts in
(``programs``). A value without a file is the behaviour the core encodings already have (or one
that Python reads from the options, such as the notation defaults).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from .errors import InputError

PROGRAMS = ("movement", "retreat", "adjustment", "victory", "sustain")


@dataclass(frozen=True)
class Value:
    value: str | bool
    meaning: str
    file: str | None = None  # under asp/options/


@dataclass(frozen=True)
class Option:
    name: str
    meaning: str
    source: str
    values: tuple[Value, ...]
    default: str | bool
    programs: tuple[str, ...] = ("movement",)

    @property
    def boolean(self) -> bool:
        return all(isinstance(v.value, bool) for v in self.values)

    def value(self, chosen: Any) -> Value:
        for v in self.values:
            if isinstance(v.value, bool) == isinstance(chosen, bool) and v.value == chosen:
                return v
        raise KeyError(chosen)

    def allowed(self) -> str:
        return ", ".join(show(v.value) for v in self.values)


def show(value: Any) -> str:
    """An option value as it is written in YAML and on the command line."""
    return str(value).lower() if isinstance(value, bool) else str(value)


_OPTIONS: tuple[Option, ...] = (
    Option(
        "adjacency", "which timelines are adjacent to each other", "seed 003 (adjacency); RULES.md §4",
        (Value("family", "a timeline, its parent, its children and its siblings forked from the same board",
               "adjacency_family.lp"),
         Value("any", "every timeline is adjacent to every other", "adjacency_any.lp")),
        "family",
    ),
    Option(
        "implicit_main_timeline", "an ordered unit written without a timeline is on the root timeline a",
        "seed 003 (implicitMainTimeline); RULES.md §3",
        (Value(True, "the missing timeline is a"),
         Value(False, "every ordered unit must name its timeline")),
        True, programs=(),
    ),
    Option(
        "victory", "how the game is won", "seed 003 (victoryCondition); RULES.md §8",
        (Value("elimination", "a power without units and centres on some head is out everywhere; the last one wins",
               "victory_elimination.lp"),
         Value("majority", "more than half of all supply centres summed over all heads", "victory_majority.lp"),
         Value("unique", "more than half of the map's supply centres, each counted once by name",
               "victory_unique.lp")),
        "elimination", programs=("victory",),
    ),
    Option(
        "open_convoys", "a fleet may convoy with no subject (F North Sea C) and carry any army's move",
        "seed 003/004; RULES.md §9.1",
        (Value(False, "open convoy orders are invalid"),
         Value(True, "open convoys join any army's route, of any power, in any direction", "open_convoys.lp")),
        False,
    ),
    Option(
        "jump_assists", "units may assist a move that jumps more than one turn or timeline",
        "seed 003/004; RULES.md §9.2",
        (Value(False, "a move to a board that is not adjacent and jump assist orders are invalid"),
         Value(True, "a move of jump length k needs k given assists (A Berlin J A Munich - b-Kiel@2)",
               "jump_assists.lp")),
        False,
    ),
    Option(
        "sustain", "a sustain phase once per game year: time centres vote, unsustained timelines dissolve",
        "seed 004 (sustain phase); RULES.md §9.3",
        (Value(False, "no sustain phase; sustain orders are invalid"),
         # the phase itself is asp/sustain.lp; in movement, dissolved timelines are out of reach
         Value(True, "the sustain phase after each Fall movement (and its retreats) with two or more timelines",
               "sustain_true.lp")),
        False,
    ),
)

REGISTRY: Mapping[str, Option] = MappingProxyType({o.name: o for o in _OPTIONS})


def option(name: str) -> Option:
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown option {name!r} (known: {', '.join(REGISTRY)})") from None


def problem(name: str, value: Any) -> str | None:
    """Why ``name: value`` is not a valid option setting, or None when it is."""
    if name not in REGISTRY:
        return f"unknown option {name!r} (known: {', '.join(REGISTRY)})"
    opt = REGISTRY[name]
    try:
        opt.value(value)
    except KeyError:
        written = show(value) if isinstance(value, bool) else repr(value)
        kind = " (a boolean, unquoted)" if opt.boolean else ""
        return f"option {name} cannot be {written}: one of {opt.allowed()}{kind}"
    return None


def parse_setting(text: str) -> tuple[str, str | bool]:
    """``NAME=VALUE`` from the command line; booleans written ``true``/``false``."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name:
        raise InputError(f"option {text!r}: write NAME=VALUE (known options: {', '.join(REGISTRY)})")
    opt = option(name)
    value: str | bool = raw
    if opt.boolean and raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    reason = problem(name, value)
    if reason:
        raise InputError(reason)
    return name, value


def validated(raw: Mapping[Any, Any]) -> dict[str, str | bool]:
    """Plain values of a checked ``options:`` mapping (raises InputError naming the first bad one)."""
    out: dict[str, str | bool] = {}
    for key, value in raw.items():
        value = str(value) if isinstance(value, str) else value  # plain str, not a line-numbered one
        reason = problem(str(key), value)
        if reason:
            raise InputError(reason)
        out[str(key)] = value
    return out


def chosen(options: Mapping[str, Any], name: str) -> str | bool:
    """The value in effect: the one given, or the registry's default."""
    return options.get(name, REGISTRY[name].default)


def logic_files(options: Mapping[str, Any], program: str) -> list[str]:
    """The option files (paths under asp/) loaded with ``program`` for these settings."""
    files = []
    for opt in _OPTIONS:
        if program in opt.programs:
            file = opt.value(chosen(options, opt.name)).file
            if file:
                files.append(f"options/{file}")
    return files
