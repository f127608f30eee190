"""The backup rules: a program with several models or none settled by assumptions on its ground program.

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

import re
import weakref
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from collections.abc import Mapping
from typing import Callable, Iterator, Sequence

import clingo

from ..errors import AdjudicationError
from .calls import _CONSEQUENCE_MODELS, _FIRST_MODELS, _solve
from .limits import _Clock, _count
from .terms import symbol_texts


class BackupRule(StrEnum):
    """A backup rule the driver applies to a paradox or a circle (docs/rules.md §3.2): its name, as the
    answers and the JSON documents give it; ``engine.answer.backup_words`` says each in words."""

    SZYKMAN = "szykman"  # the convoying fleets of a convoy paradox hold
    ALL_HOLD = "all_hold"  # the moves of a convoy paradox fail (option datc_4a2: all_hold)
    FAIL = "fail"  # the orders of a cycle the rules cannot settle fail (DATC 5.B.9)
    CIRCULAR = "circular"  # the moves of a circle succeed

DECISIONS = ("moves", "dislodged", "given", "path", "assist_given")
# the predicates that link units into one part: a unit and where it moves, a supporter and whom and
# where it supports, a convoying fleet and its army, a jump assist and the jump
LINKS = (("move", 2), ("supports", 3), ("convoys", 2), ("assists", 3))


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
    through clingo's API costs a call for every argument, and was most of a joint program's backup
    rounds in a batch, where one paradox in one phase made the driver index every phase), and a part's name is made a
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
            self.backups.append((BackupRule.SZYKMAN, tuple(core)))

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
                self.backups.append((BackupRule.SZYKMAN, tuple(new)))
                continue
            moving = [i for i in mine if parts.decisions[i].name == "moves"]
            if not moving:
                # not circular movement and no convoying fleet: DATC §5.B.9 lets the orders of the cycle fail
                self.fixed.update((i, False) for i in mine)
                self.backups.append((BackupRule.FAIL, tuple(sorted(parts.decisions[i].arguments[0] for i in mine))))
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
            self.backups.append((BackupRule.CIRCULAR, tuple(kept)))

    def hold_all(self, units: list[clingo.Symbol]) -> bool:
        self.stopped.update(units)
        if units:
            self.backups.append((BackupRule.ALL_HOLD, tuple(units)))
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
