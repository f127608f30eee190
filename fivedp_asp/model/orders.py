"""Orders as written, and as resolved against a multiverse.

A written order may leave out a timeline or a turn (docs/rules.md §6.2); those are filled in by
``multiverse`` from the state the order is given in. These values are what ``notation`` parses
text into and prints text from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .kinds import OrderKind


@dataclass(frozen=True, slots=True)
class Where:
    """A place as written: a province, perhaps a coast, perhaps a timeline index and a turn number."""

    province: str
    coast: str | None = None
    timeline: int | None = None
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as written. ``kind`` and ``power`` are what the writer claimed; the rules ignore wrong claims."""

    where: Where
    kind: str | None = None
    power: str | None = None


@dataclass(frozen=True, slots=True)
class Hold:
    unit: UnitSpec


@dataclass(frozen=True, slots=True)
class Move:
    """A move in the movement phase, or a retreat in the retreat phase (the phase decides which)."""

    unit: UnitSpec
    dest: Where
    via_convoy: bool = False
    path: tuple[Where, ...] = ()  # seas written between the unit and the destination (DATC 4.A.6)


@dataclass(frozen=True, slots=True)
class SupportHold:
    unit: UnitSpec
    target: UnitSpec


@dataclass(frozen=True, slots=True)
class SupportMove:
    unit: UnitSpec
    target: UnitSpec
    dest: Where


@dataclass(frozen=True, slots=True)
class Convoy:
    unit: UnitSpec
    target: UnitSpec
    dest: Where


@dataclass(frozen=True, slots=True)
class OpenConvoy:
    """A fleet that expects guests: it may carry any army's move (option open_convoys, docs/rules.md §6.8.1)."""

    unit: UnitSpec


@dataclass(frozen=True, slots=True)
class JumpAssist:
    """The unit lends one turn or timeline of reach to another unit's move (option jump_assists, docs/rules.md §6.8.2)."""

    unit: UnitSpec
    target: UnitSpec
    dest: Where


@dataclass(frozen=True, slots=True)
class Disband:
    """A disband in the retreat phase or a removal in the adjustment phase."""

    unit: UnitSpec


@dataclass(frozen=True, slots=True)
class Build:
    unit: UnitSpec


@dataclass(frozen=True, slots=True)
class Waive:
    """An explicit decision not to use one build."""


@dataclass(frozen=True, slots=True)
class Sustain:
    """A sustain-phase vote (docs/rules.md §6.8.3): the power's fractions, or one time centre's, go to ``timeline``."""

    timeline: int
    center: str | None = None  # None: every fraction of the power (``Sustain b``)


Order = Union[Hold, Move, SupportHold, SupportMove, Convoy, OpenConvoy, JumpAssist, Disband, Build, Waive, Sustain]


@dataclass(frozen=True, slots=True)
class Place:
    timeline: int
    turn: int
    province: str
    coast: str | None = None

    @property
    def board(self) -> tuple[int, int]:
        return self.timeline, self.turn


@dataclass(frozen=True, slots=True)
class ResolvedOrder:
    """One order line, parsed and fully designated. ``kind`` is the order's verb (given as its name,
    it is read as an ``OrderKind``)."""

    power: str
    text: str
    order: Order
    kind: OrderKind
    unit: Place | None
    target: Place | None = None  # supported, convoyed or assisted unit
    dest: Place | None = None  # move, support-move, convoy or assisted move destination
    via_convoy: bool = False
    unit_kind: str | None = None  # as written (builds need it)
    problem: str | None = None  # why the order could not even be placed (then it is invalid)

    def __post_init__(self) -> None:
        if type(self.kind) is not OrderKind:
            object.__setattr__(self, "kind", OrderKind(self.kind))  # a ValueError for a verb there is none of

    @property
    def signature(self) -> tuple:
        """What makes two lines the same order (written twice, they count once). The written unit type
        and the ordered unit's coast are not part of it: a wrong or missing one is ignored (DATC 4.C.1,
        4.C.2, 4.B.5); for a build they are the order itself."""
        if self.kind is OrderKind.BUILD:
            return (self.power, self.kind, self.unit, self.unit_kind)
        if self.kind is OrderKind.SUSTAIN:
            return (self.power, self.kind, self.order)
        return (self.power, self.kind, _bare(self.unit), _bare(self.target), self.dest, self.via_convoy)


def _bare(p: Place | None) -> Place | None:
    """The place without its coast (itself when it names none)."""
    return p if p is None or p.coast is None else Place(p.timeline, p.turn, p.province)
