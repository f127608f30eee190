"""Every rule option in one registry: its values, default, meaning, source, and the logic each value loads.

The scenario and game loaders validate ``options:`` against it, the step asks it which logic files
to load for a program, ``fivedp options`` prints it and the documentation lists it. Adding an option
means adding one ``Option`` here and one logic file per value that needs one (``asp/options/``).

A value's ``file`` is loaded beside the entry encodings of the programs the option acts in
(``programs``). A value without a file is the behaviour the core encodings already have (or one
that Python reads from the options, such as the notation defaults).

Rules of your own (``UserRule``, checked by engine/userrules.py) join the registry through the
settings that carry them (settings.py's ``Settings``): each is a new value of a built-in option or a
new boolean option. ``registry(rules)`` is the built-in registry extended by them, and every reading
of a setting goes through that one registry, so a user rule is validated, chosen, loaded, listed and
explored like a built-in value. Nothing is kept between calls: the rules travel with the settings
(into game files too, text and all).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from ..errors import InputError, quoted
from ..solver.driver import RuleText

PROGRAMS = ("movement", "retreat", "adjustment", "victory", "sustain")
RULES = "rules"  # the key of a scenario's or game file's ``options:`` that holds rules of your own
PRESET = "preset"  # the key of a scenario's ``options:`` that names a preset (``PRESETS``)


@dataclass(frozen=True)
class Value:
    value: str | bool
    meaning: str
    file: str | None = None  # under asp/options/, or a rule of your own's text (``RuleText``)
    origin: str | None = None  # a rule of your own: its file as the user named it


@dataclass(frozen=True)
class UserRule:
    """A logic file of the user's, already checked against the contract (userrules.py): a new value
    ``value`` of the built-in option ``option``, or (``value`` True) a new boolean option of that name.
    The text travels with it, so that a game file records it and a worker process can load it."""

    option: str
    value: str | bool
    source: str  # the file as the user named it (for messages and listings)
    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.option, str) or not isinstance(self.value, (str, bool)) \
                or not isinstance(self.source, str) or not isinstance(self.text, str):
            raise TypeError("UserRule: option, source and text must be str, value a str or a bool")

    @property
    def new_option(self) -> bool:
        return self.option not in _BUILTIN

    @property
    def label(self) -> str:
        return f"{self.option}={show(self.value)}" if not self.new_option else self.option

    @property
    def program(self) -> RuleText:
        """The rule as one of a program's files: its text, handed to clingo as text (no file is written
        for it, so none can be read in its place), named by the digest of the text."""
        return RuleText(self.text, self.source)


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
        "adjacency", "which timelines are adjacent to each other", "5dplomacy architecture notes, Game options (adjacency); docs/playing.md §5",
        (Value("family", "a timeline, its parent, its children and its siblings forked from the same board",
               "adjacency_family.lp"),
         Value("any", "every timeline is adjacent to every other", "adjacency_any.lp"),
         Value("distance", "timelines whose numbers (the order they were made in) differ by at most one, "
                           "whatever their family (Oliveriver's 5D Diplomacy)", "adjacency_distance.lp")),
        "family",
    ),
    Option(
        "implicit_main_timeline", "an ordered unit written without a timeline is on the root timeline a",
        "5dplomacy architecture notes, Game options (implicitMainTimeline); docs/playing.md §4",
        (Value(True, "the missing timeline is a"),
         Value(False, "every ordered unit must name its timeline")),
        True, programs=(),
    ),
    Option(
        "victory", "how the game is won", "5dplomacy architecture notes, Game options (victoryCondition); docs/playing.md §12",
        (Value("elimination", "a power without units and centres on some head is out everywhere; the last one wins",
               "victory_elimination.lp"),
         Value("majority", "more than half of all supply centres summed over all heads", "victory_majority.lp"),
         Value("unique", "more than half of the map's supply centres, each counted once by name",
               "victory_unique.lp")),
        "elimination", programs=("victory",),
    ),
    Option(
        "open_convoys", "a fleet may convoy with no subject (F North Sea C) and carry any army's move",
        "5dplomacy architecture notes, Game options, and rules, Open convoys; docs/rules.md §6.8",
        (Value(False, "open convoy orders are invalid"),
         Value(True, "open convoys join any army's route, of any power, in any direction", "open_convoys.lp")),
        False,
    ),
    Option(
        "jump_assists", "units may assist a move that jumps more than one turn or timeline",
        "5dplomacy architecture notes, Game options, and rules, Jump assist; docs/rules.md §6.8",
        (Value(False, "a move to a board that is not adjacent and jump assist orders are invalid"),
         Value(True, "a move of jump length k needs k given assists (A Berlin J A Munich - b-Kiel@2)",
               "jump_assists.lp")),
        False,
    ),
    Option(
        "sustain", "a sustain phase once per game year: time centres vote, unsustained timelines dissolve",
        "5dplomacy rules, Sustaining timelines and time centers; docs/rules.md §6.8",
        (Value(False, "no sustain phase; sustain orders are invalid"),
         # the phase itself is asp/sustain.lp; in movement, dissolved timelines are out of reach
         Value(True, "the sustain phase after each Fall movement (and its retreats) with two or more timelines",
               "sustain_true.lp")),
        False,
    ),
    Option(
        "diagonals", "whether a board is adjacent to another timeline's board one turn away",
        "the seeds (rules, Multiversal time travel: turns within one season and adjacent timelines); "
        "false: Oliveriver's 5D Diplomacy; docs/rules.md §6.8.5",
        (Value(True, "it is: a step may change timeline and turn at once (the seeds)"),
         Value(False, "it is not: another timeline's board only at the same turn, the own timeline's one turn "
                      "away, never both at once (Oliveriver's 5D Diplomacy)", "diagonals_false.lp")),
        True,
    ),
    Option(
        "strict_adjacency", "whether a move or support to another board may change province",
        "Oliveriver's 5D Diplomacy, its game option hasStrictAdjacencies; docs/rules.md §6.8.4",
        (Value(False, "it may: into a neighbour on another board, or the same province (the seeds)"),
         Value(True, "it may not: a move to another board arrives in the province it left, a support into "
                     "another board is into the supporter's own province", "strict_adjacency.lp")),
        False,
    ),
    Option(
        "support_results", "the result reported for a support order", "docs/rules.md §3.3; follow: "
        "Oliveriver's 5D Diplomacy, docs/rules.md §6.8.6",
        (Value("given", "succeeds when the support is given (not cut, matching), whatever the supported order does"),
         Value("follow", "succeeds when given and the order it supports succeeds (a support to hold: the unit is "
                         "not dislodged); positions are the same (Oliveriver's 5D Diplomacy)",
               "support_results_follow.lp")),
        "given",
    ),
    Option(
        "cut_supports_fork", "whether a past board fought again forks when only a support's result there changes",
        "docs/rules.md §6.5; true: Oliveriver's 5D Diplomacy, docs/rules.md §6.8.7",
        (Value(False, "it does not: a support now cut (or now given) changes nothing by itself (the seeds' "
                      "examples of forks)"),
         Value(True, "it does: the board forks whenever a support given there in its record is cut now, or the "
                     "reverse, as its results differ (Oliveriver's 5D Diplomacy)", "cut_supports_fork.lp")),
        False,
    ),
    Option(
        "winner", "who wins when several powers pass the victory threshold in the same step",
        "docs/rules.md §6.7; most_centres: Oliveriver's 5D Diplomacy",
        (Value("none", "nobody, until one alone passes it (victory unique; under the other victory options only "
                       "one can)"),
         Value("most_centres", "the one with the most centres as the victory option counts them; a tie for the "
                               "most: nobody (Oliveriver's 5D Diplomacy)", "winner_most_centres.lp")),
        "none", programs=("victory",),
    ),
    # DATC v3.1 chapter 4: one option per issue whose readings change an adjudication (docs/rules.md §8)
    Option(
        "datc_4a1", "when a convoy with several routes is disrupted", "DATC 4.A.1",
        (Value("all_routes", "only when every route is disrupted (DATC 4.A.1 (b), 1982 and later rulebooks)"),
         Value("any_route", "when a fleet of any route is dislodged (DATC 4.A.1 (a), 1971 rulebook)",
               "datc_4a1_any_route.lp")),
        "all_routes",
    ),
    Option(
        "datc_4a2", "how convoy disruption paradoxes are resolved", "DATC 4.A.2",
        (Value("szykman", "the convoying fleets of a paradox hold (DATC 4.A.2, Szykman rule)"),
         Value("all_hold", "the moves of a paradox fail (DATC 4.A.2, 'All Hold' backup rule)",
               "datc_4a2_all_hold.lp"),
         Value("rule_1971", "a convoyed army does not cut a fleet's support of a fleet attacking its convoy; "
                            "open paradoxes: Szykman (DATC 4.A.2, 1971 rule)", "datc_4a2_rule_1971.lp"),
         Value("rule_1982", "a convoyed army does not cut a support into a sea holding a convoying fleet; "
                            "open paradoxes: Szykman (DATC 4.A.2, 1982 rule)", "datc_4a2_rule_1982.lp"),
         Value("rule_2000", "a convoyed army does not cut a support of an attack on a fleet its convoy needs; "
                            "open paradoxes: Szykman (DATC 4.A.2, 2000/2023 rule)", "datc_4a2_rule_2000.lp")),
        "szykman",
    ),
    Option(
        "datc_4a3", "when an army that could go overland to a province goes by convoy", "DATC 4.A.3",
        (Value("rule_2000", "when ordered 'via convoy' or an own fleet is ordered to convoy it; no fallback "
                            "to land (DATC 4.A.3, 2000/2023 rulebook)"),
         Value("dptg", "only when ordered 'via convoy' (DATC 4.A.3, DPTG)", "datc_4a3_dptg.lp"),
         Value("rule_1982", "only when an own fleet is ordered to convoy it; 'via convoy' is ignored "
                            "(DATC 4.A.3, 1982 rulebook)", "datc_4a3_rule_1982.lp"),
         Value("rule_1971", "by convoy, whoever orders the fleets, only when the unit at the destination "
                            "moves the other way and the convoy is not disrupted; else by land "
                            "(DATC 4.A.3, 1971 rulebook)", "datc_4a3_rule_1971.lp")),
        "rule_2000",
    ),
    Option(
        "datc_4a4", "whether a convoyed attack cuts a support of an attack on the army's own province",
        "DATC 4.A.4",
        (Value("not_cut", "not cut: the army attacks from its own province (DATC 4.A.4 (a))"),
         Value("cut", "cut: the army attacks from the sea (DATC 4.A.4 (b))", "datc_4a4_cut.lp")),
        "not_cut",
    ),
    Option(
        "datc_4a5", "whether a unit dislodged by a convoyed army may retreat to the army's province",
        "DATC 4.A.5",
        (Value("may_retreat", "it may (DATC 4.A.5 (b), 2023 rulebook)"),
         Value("barred", "it may not (DATC 4.A.5 (a))", "datc_4a5_barred.lp")),
        "may_retreat",
    ),
    Option(
        "datc_4a6", "a convoy path written in an army's move (A Yorkshire - North Sea - Belgium)", "DATC 4.A.6",
        (Value("ignored", "is read and ignored (DATC 4.A.6 (a))"),
         Value("allowed", "may be written; when written, the army goes by convoy through exactly those seas "
                          "(DATC 4.A.6 (b))", "datc_4a6_allowed.lp"),
         Value("required", "must be written: a convoyed move without one fails (DATC 4.A.6 (c))",
               "datc_4a6_required.lp")),
        "ignored",
    ),
    Option(
        "datc_4a7", "whether a dislodged unit can bounce a third unit in its attacker's province",
        "DATC 4.A.7",
        (Value("h2h_only", "it can, unless it lost a head-to-head battle (DATC 4.A.7 (b))"),
         Value("never", "it never can (DATC 4.A.7 (a), literal rulebook)", "datc_4a7_never.lp")),
        "h2h_only",
    ),
    Option(
        "datc_4b2", "a fleet's move without a coast when only one coast can be reached", "DATC 4.B.2",
        (Value("only_coast", "goes to the only reachable coast (DATC 4.B.2 (a))"),
         Value("fails", "is illegal, the fleet holds (DATC 4.B.2 (b))", "datc_4b2_fails.lp")),
        "only_coast",
    ),
    Option(
        "datc_4b3", "a fleet's move to a coast it cannot reach", "DATC 4.B.3",
        (Value("illegal", "is illegal, the fleet holds (DATC 4.B.3 (b))"),
         Value("ignore_coast", "goes to the coast it can reach (DATC 4.B.3 (a))", "datc_4b3_ignore_coast.lp")),
        "illegal",
    ),
    Option(
        "datc_4b4", "a support of a fleet's move that omits the coast when more than one can be reached",
        "DATC 4.B.4; by default the 5dplomacy rules' reading (DATC compliance, 4.B.4)",
        (Value("strict", "is illegal, whoever owns the fleet (the 5dplomacy rules' reading)"),
         Value("datc", "is valid (DATC 4.B.4, the DATC's preference for 6.B.7 and 6.B.15)", "datc_4b4_datc.lp"),
         Value("calhamer", "is valid only for a fleet of the supporting power (DATC 4.B.4, Calhamer)",
               "datc_4b4_calhamer.lp")),
        "strict",
    ),
    Option(
        "datc_4b5", "an ordered unit written with a coast it does not stand on", "DATC 4.B.5",
        (Value("ignored", "the coast is ignored, the unit found by its province (DATC 4.B.5 (b))"),
         Value("fails", "the order is illegal, the unit holds (DATC 4.B.5 (a))")),
        "ignored", programs=(),
    ),
    Option(
        "datc_4b6", "a coast the province does not have, or a coast on an army's move", "DATC 4.B.6",
        (Value("ignored", "is ignored (DATC 4.B.6 (b))"),
         Value("fails", "makes the order illegal (DATC 4.B.6 (a))", "datc_4b6_fails.lp")),
        "ignored",
    ),
    Option(
        "datc_4c1", "an order that does not say whether its unit is an army or a fleet", "DATC 4.C.1",
        (Value("valid", "is valid (DATC 4.C.1 (b))"),
         Value("invalid", "is illegal, the unit holds and can receive hold support (DATC 4.C.1 (a))"),
         Value("valid_unless_other", "is valid unless another order for the unit gives its type "
                                     "(DATC 4.C.1 (c))")),
        "valid", programs=(),
    ),
    Option(
        "datc_4c2", "an order that calls an army a fleet or a fleet an army", "DATC 4.C.2",
        (Value("valid", "is valid: the written type is ignored (DATC 4.C.2 (b))"),
         Value("invalid", "is illegal, the unit holds and can receive hold support (DATC 4.C.2 (a))"),
         Value("valid_unless_other", "is valid unless another order for the unit gives the right type "
                                     "(DATC 4.C.2 (c))")),
        "valid", programs=(),
    ),
    Option(
        "datc_4c5", "a support or convoy of a foreign unit that does not name the unit's nationality",
        "DATC 4.C.5",
        (Value("valid", "is valid (DATC 4.C.5 (b))"),
         Value("invalid", "is illegal (DATC 4.C.5 (a))"),
         Value("valid_unless_other", "is valid unless another order of the unit names the nationality "
                                     "(DATC 4.C.5 (c))")),
        "valid", programs=(),
    ),
    Option(
        "datc_4c6", "a support or convoy that names the wrong nationality for the unit", "DATC 4.C.6",
        (Value("valid", "is valid: the nationality is ignored (DATC 4.C.6 (b))"),
         Value("invalid", "is illegal (DATC 4.C.6 (a))"),
         Value("valid_unless_other", "is valid unless another order of the unit names the right nationality "
                                     "(DATC 4.C.6 (c))")),
        "valid", programs=(),
    ),
    Option(
        "datc_4c3", "a build that does not say army or fleet", "DATC 4.C.3",
        (Value("best_effort", "an army inland, a fleet where a coast is written, else fails (DATC 4.C.3 (c))"),
         Value("fails", "always fails (DATC 4.C.3 (a))", "datc_4c3_fails.lp"),
         Value("army_inland", "an army inland, fails in a coastal province (DATC 4.C.3 (b))",
               "datc_4c3_army_inland.lp")),
        "best_effort", programs=("adjustment",),
    ),
    Option(
        "datc_4c4", "a fleet built in a land province", "DATC 4.C.4",
        (Value("fails", "the build fails (DATC 4.C.4 (a))"),
         Value("army", "an army is built there (DATC 4.C.4 (b))", "datc_4c4_army.lp")),
        "fails", programs=("adjustment",),
    ),
    Option(
        "datc_4d3", "a unit with two or more different legal orders", "DATC 4.D.3",
        (Value("hold", "all of them are illegal, the unit holds (DATC 4.D.3 (c))"),
         Value("first", "the first written is used (DATC 4.D.3 (a))", "datc_4d3_first.lp"),
         Value("last", "the last written is used (DATC 4.D.3 (b))", "datc_4d3_last.lp")),
        "hold", programs=("movement", "retreat"),
    ),
    Option(
        "datc_4d4", "more builds (and waives) than a power may make on a board", "DATC 4.D.4",
        (Value("first", "the first legal ones written are used (DATC 4.D.4 (b))"),
         Value("all_invalid", "all of them fail (DATC 4.D.4 (a))", "datc_4d4_all_invalid.lp"),
         Value("last", "the last legal ones written are used (DATC 4.D.4 (c))", "datc_4d4_last.lp")),
        "first", programs=("adjustment",),
    ),
    Option(
        "datc_4d5", "several legal builds in one province", "DATC 4.D.5",
        (Value("first", "the first written is used (DATC 4.D.5 (b))"),
         Value("none", "all of them fail (DATC 4.D.5 (a))", "datc_4d5_none.lp"),
         Value("last", "the last written is used (DATC 4.D.5 (c))", "datc_4d5_last.lp")),
        "first", programs=("adjustment",),
    ),
    Option(
        "datc_4d6", "more disbands than a power must make on a board", "DATC 4.D.6",
        (Value("first", "the first legal ones written are used (DATC 4.D.6 (b))"),
         Value("civil_disorder", "all of them fail; the civil disorder rule removes units (DATC 4.D.6 (a))",
               "datc_4d6_civil_disorder.lp"),
         Value("last", "the last legal ones written are used (DATC 4.D.6 (c))", "datc_4d6_last.lp")),
        "first", programs=("adjustment",),
    ),
    Option(
        "datc_4d7", "waiving a build", "DATC 4.D.7",
        (Value("allowed", "a waive uses one build (DATC 4.D.7 (a), 2000/2023 rulebooks)"),
         Value("not_allowed", "a waive is illegal and uses no build (DATC 4.D.7 (b))", "datc_4d7_not_allowed.lp")),
        "allowed", programs=("adjustment",),
    ),
    Option(
        "datc_4d8", "which units civil disorder removes first", "DATC 4.D.8",
        (Value("rule_2023", "off supply centres first, then farthest from an owned centre counting any "
                            "adjacency, fleets before armies, alphabetical (DATC 4.D.8, 2023 rulebook)"),
         Value("rule_1982", "farthest from a home centre by the unit's own routes (armies may cross seas), "
                            "fleets before armies, alphabetical (DATC 4.D.8, 1971/1982 rulebooks)",
               "datc_4d8_rule_1982.lp")),
        "rule_2023", programs=("adjustment",),
    ),
    Option(
        "datc_4d9", "a support to hold a unit of a power in civil disorder (no orders this step)",
        "DATC 4.D.9",
        (Value("succeeds", "succeeds like any hold support (DATC 4.D.9 (b))"),
         Value("fails", "fails (DATC 4.D.9 (a))", "datc_4d9_fails.lp")),
        "succeeds",
    ),
    Option(
        "datc_4e1", "an impossible order (A Holland - Picardy): ignored, or still an order of its unit",
        "DATC 4.E.1",
        (Value("ignored", "it is ignored as if not written: the unit holds and can be supported to hold "
                          "(DATC 4.E.1, 2023 rulebook)"),
         Value("counts", "the unit holds, but its impossible move refuses hold support and an impossible "
                         "order conflicts with its unit's other orders (DATC 4.E.1, the older reading)",
               "datc_4e1_counts.lp")),
        "ignored",
    ),
    Option(
        "datc_4e3", "whether a support or convoy order implies the move of an unordered unit", "DATC 4.E.3",
        (Value("not_allowed", "it does not: a unit without an order holds (DATC 4.E.3 (b))"),
         Value("allowed", "a unit without an order makes the move its own power supports or convoys "
                          "(DATC 4.E.3 (a))")),
        "not_allowed", programs=(),
    ),
)


@dataclass(frozen=True)
class Preset:
    """A named bundle of option values: the rules as one implementation plays them. The values
    written beside a preset (in a scenario's ``options:``, or by ``--option``) override its own."""

    name: str
    meaning: str
    values: tuple[tuple[str, str | bool], ...]

    def __post_init__(self) -> None:
        for option, value in self.values:
            if option not in _BUILTIN or not any(same_value(v.value, value) for v in _BUILTIN[option].values):
                raise ValueError(f"preset {self.name}: {option}={value!r} is no value of the registry")


_BUILTIN: Mapping[str, Option] = MappingProxyType({o.name: o for o in _OPTIONS})
REGISTRY = _BUILTIN  # the built-in options; ``registry(rules)`` adds rules of your own


def registry(rules: tuple[UserRule, ...] = ()) -> Mapping[str, Option]:
    """The built-in options extended by these rules of your own (settings.py's ``Settings.registry``
    is this for the rules a game carries)."""
    if not isinstance(rules, tuple) or not all(isinstance(r, UserRule) for r in rules):
        raise TypeError("registry: rules must be a tuple of UserRule")
    return _extended(rules)


@lru_cache(maxsize=64)
def _extended(rules: tuple[UserRule, ...]) -> Mapping[str, Option]:
    if not rules:
        return _BUILTIN
    out = dict(_BUILTIN)
    for rule in rules:
        meaning = f"a rule of your own ({rule.source})"
        if rule.option in _BUILTIN:
            opt = out[rule.option]
            out[rule.option] = Option(opt.name, opt.meaning, opt.source,
                                      opt.values + (Value(rule.value, meaning, rule.program, rule.source),), opt.default,
                                      opt.programs)
        else:
            out[rule.option] = Option(rule.option, meaning, rule.source,
                                      (Value(False, "the rule is not loaded"),
                                       Value(True, f"the rule is loaded: {rule.source}", rule.program, rule.source)),
                                      False)
    return MappingProxyType(out)


def user_file(value: Value) -> bool:
    """Whether a value's logic file is a rule of your own (its text) rather than a built-in."""
    return isinstance(value.file, RuleText)


def unknown(name: str, known: Mapping[str, Option]) -> str:
    """The message for an option name the registry does not hold."""
    return f"unknown option {quoted(name)} (known: {', '.join(known)})"


def problem_in(known: Mapping[str, Option], name: str, value: Any) -> str | None:
    """Why ``name: value`` is not a valid setting among the ``known`` options, or None when it is."""
    if name not in known:
        return unknown(name, known)
    opt = known[name]
    try:
        opt.value(value)
    except KeyError:
        written = _written(value)
        kind = " (a boolean, unquoted)" if opt.boolean else ""
        return f"option {name} cannot be {written}: one of {opt.allowed()}{kind}"
    return None


def _written(value: Any) -> str:
    """A value as YAML writes it, strings quoted (so that a quoted ``'false'`` shows as text)."""
    if isinstance(value, bool) or value is None:
        return "null" if value is None else show(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_written(x) for x in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_written(x)}" for k, x in value.items()) + "}"
    return quoted(str(value)) if isinstance(value, str) else repr(value)


def same_value(a: Any, b: Any) -> bool:
    """Whether two option values are the same value (``True`` is not ``1``, nor ``"true"``)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


PRESETS: Mapping[str, Preset] = MappingProxyType({p.name: p for p in (
    Preset("seeds", "the seeds' rules, and where they are silent this engine's choices (docs/rules.md)", ()),
    # strict_adjacency is a game option there too (hasStrictAdjacencies), off unless a game asks for it
    Preset("oliveriver", "the readings of Oliveriver's 5D Diplomacy, the web game whose client fivedp serve "
                         "--oliveriver serves (docs/rules.md §6.9)",
           (("adjacency", "distance"), ("diagonals", False), ("support_results", "follow"),
            ("cut_supports_fork", True), ("victory", "unique"), ("winner", "most_centres"))),
)})


def preset_problem(name: object) -> str | None:
    """Why ``name`` names no preset, or None when it names one."""
    if isinstance(name, str) and name in PRESETS:
        return None
    return f"unknown preset {_written(name)} (known: {', '.join(PRESETS)})"


def preset(name: object) -> Preset:
    """The preset of this name (InputError naming the known ones when there is none)."""
    reason = preset_problem(name)
    if reason:
        raise InputError(reason)
    return PRESETS[name]
