"""The interface a reference adjudicator implements to be compared with this engine.

A reference plays *classic* Diplomacy on the standard map: one board, one phase at a time. The
comparison drives it like this::

    ref = get_reference("diplomacy", game_map)   # by the name given to --reference
    ref.load(position)                          # units, centres, phase, pending retreats
    result = ref.adjudicate(orders)             # the same orders our engine gets
    ...                                         # then adjudicate again from where it stands,
    ref.load(other_position)                    # or load another position to resynchronise

Everything crossing this interface uses this package's own vocabulary, so an adapter translates
both ways and nothing else in the comparison knows the reference's formats:

- a :class:`Position` names provinces by our map's ids (``par``, ``spa/nc``), powers by our names
  (``France``), the turn as our turn number (0 = Spring 1901) and the phase as ``movement``,
  ``retreat`` or ``adjustment``. A pending retreat comes with the exact set of locations the unit
  may retreat to, so a reference need not know which provinces saw a standoff;
- orders are :class:`GivenOrder` values: the power, the line as our canonical notation writes it
  (``A Par - Bur``, ``F Spa/nc - Mao``, ``A Lon - Bel via convoy``, ``F Nth C A Lon - Bel``,
  ``A Bur S A Par - Mar``, ``A Bur S A Par``, in a retreat phase ``A Par - Bur`` or ``A Par D``, in an
  adjustment phase ``Build F Stp/nc``, ``A Par D``, ``Waive``) and the parsed order;
- a :class:`PhaseResult` gives one result per given order, in the order given, in the scenario
  vocabulary (docs/case-format.md): ``succeeds``, ``fails`` or ``invalid`` (the reference refused the
  order as illegal, so the unit did what an unordered unit does). It also gives the units dislodged,
  the position after the phase (with pending retreats and their options) and whether the game ended
  there (a reference that declares a solo victory stops).

Another reference plugs in by subclassing :class:`ReferenceAdjudicator` and registering a factory:
``register("name", factory)`` where ``factory(game_map)`` returns the adapter (import heavy
dependencies inside the factory, so that the registry costs nothing; the package registers its own
two references in ``__init__.py``, so that this module imports no adapter). The adapter also carries the
reference's known deviations, if any, each emulated on our side (``emulators``, ``deviations``,
``found_by_compare``; ``diplomacy_deviations.py`` and ``pydip_deviations.py`` are examples). An external program, such as
an adjudicator that reads a scenario and writes JSON, is adapted the same way: ``load`` keeps the
position (``Position.to_json`` gives it as plain data), ``adjudicate`` writes the position and the
orders' ``text`` to the program, runs it and reads back one result per order, the dislodged units
and the new position (``Position.from_json`` reads the same shape back).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from ...model.kinds import Result
from ...errors import InputError
from ...model.map import GameMap
from ...model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Board, Unit
from ...model.orders import Order
from ...model.geography import Geography

RESULTS = tuple(Result)


@dataclass(frozen=True)
class Position:
    """A classic position: the board one phase is adjudicated on."""

    turn: int  # 0 = Spring 1901, 1 = Fall 1901, 2 = Spring 1902 (its winter adjustment comes first)
    phase: str  # movement | retreat | adjustment
    units: frozenset[Unit]
    centers: Mapping[str, str]  # province -> owner
    retreats: Mapping[Unit, frozenset[str]] = field(default_factory=dict)  # dislodged unit -> allowed locations

    @classmethod
    def of(cls, board: Board, game_map: GameMap, geo: Geography | None = None) -> "Position":
        geo = geo or Geography(game_map)
        retreats = {r.unit: geo.retreat_options(board, r) for r in board.retreats}
        return cls(board.turn, board.phase, frozenset(board.units.values()),
                   MappingProxyType(dict(board.centers)), MappingProxyType(retreats))

    @property
    def season(self) -> str:
        """The phase as the reference world names it: ``S1901M``, ``F1901R``, ``W1901A``."""
        if self.phase == MOVEMENT:
            return f"{'SF'[self.turn % 2]}{1901 + self.turn // 2}M"
        if self.phase == RETREAT:
            battle = self.turn - 1
            return f"{'SF'[battle % 2]}{1901 + battle // 2}R"
        return f"W{1901 + (self.turn - 1) // 2}A"

    def to_json(self) -> dict:
        units: dict[str, list[dict]] = {}
        for u in sorted(self.units, key=lambda u: (u.power, u.location)):
            units.setdefault(u.power, []).append({"kind": u.kind, "location": u.location})
        return {
            "turn": self.turn,
            "phase": self.phase,
            "season": self.season,
            "units": units,
            "centers": dict(sorted(self.centers.items())),
            "retreats": [{"power": u.power, "kind": u.kind, "location": u.location, "options": sorted(opts)}
                         for u, opts in sorted(self.retreats.items(), key=lambda kv: kv[0].location)],
        }

    @classmethod
    def from_json(cls, data: Mapping) -> "Position":
        units = frozenset(Unit(u["kind"], power, u["location"]) for power, us in data["units"].items() for u in us)
        retreats = {Unit(r["kind"], r["power"], r["location"]): frozenset(r["options"]) for r in data.get("retreats", ())}
        return cls(int(data["turn"]), str(data["phase"]), units, MappingProxyType(dict(data["centers"])),
                   MappingProxyType(retreats))


@dataclass(frozen=True)
class GivenOrder:
    power: str
    text: str  # canonical notation, as both engines received it
    order: Order


@dataclass(frozen=True)
class PhaseResult:
    """What one engine made of one phase."""

    results: tuple[str, ...]  # one per given order, aligned with the orders given
    dislodged: frozenset[Unit]
    after: Position
    notes: tuple[str, ...] = ()  # the engine's own words per order, for people reading a report
    ended: bool = False  # the game ended (solo victory): no further phase will be played


class ReferenceAdjudicator(abc.ABC):
    """A classic adjudicator our engine is compared with. See the module documentation."""

    name: str = "reference"
    version: str = ""
    # The reference's known deviations from DATC v3.1, which the comparison excuses (judge.py): the
    # emulators (each a function of a ``judge.Context`` giving the ``judge.Emulation`` values that
    # apply), what each DATC id stands for, and the ids ``fivedp compare`` found that the reference's
    # own documentation does not list. A reference that declares none has none.
    emulators: tuple[Callable[[Any], list[Any]], ...] = ()
    deviations: Mapping[str, str] = MappingProxyType({})
    found_by_compare: frozenset[str] = frozenset()

    @abc.abstractmethod
    def load(self, position: Position) -> None:
        """Forget everything and stand at this position."""

    @abc.abstractmethod
    def adjudicate(self, orders: Sequence[GivenOrder]) -> PhaseResult:
        """Adjudicate the current phase with these orders and move on to the next phase."""

    @property
    def title(self) -> str:
        return f"{self.name} {self.version}".strip()


Factory = Callable[[GameMap], ReferenceAdjudicator]
_REGISTRY: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _REGISTRY[name] = factory


def reference_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_reference(name: str, game_map: GameMap) -> ReferenceAdjudicator:
    factory = _REGISTRY.get(name)
    if factory is None:
        raise InputError(f"unknown reference {name!r} (known: {', '.join(reference_names())})")
    return factory(game_map)


PHASES = (MOVEMENT, RETREAT, ADJUSTMENT)
