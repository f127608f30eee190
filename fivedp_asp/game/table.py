"""What happens at the table, as values: orders given openly, order sets kept private until the phase
is adjudicated, the phase adjudicated with them, the last step taken back.

A private set (``Sealed``) is one power's orders for one phase, kept out of everyone else's view: the
command line keeps them beside the game file (``files.sealed``, ``orders --sealed``), the server
keeps every player's orders so (``serve``). Adjudicating opens them: each replaces its power's open
orders. The sets opened are kept under the phase they were for, so that undoing that step seals them
again instead of turning them into open orders everyone could read.

Nothing here reads or writes a file or a database: each function takes a game and its sets and
returns what they become, for a store (``files.store``, ``serve.store``) to write in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, MutableMapping

from ..engine.step import StepReport
from ..errors import AdjudicationError, InputError, UsageError
from .play import Submission, adjudicate, submit_orders, undo
from .state import Game, phase_key


@dataclass(frozen=True)
class Sealed:
    """The private order sets for one phase (``phase``, the phase key they were given for), and the
    sets the last adjudication opened with the phase they were for (kept for an undo of that step).
    A power with an empty set has submitted no order (its units hold)."""

    phase: str
    orders: Mapping[str, tuple[str, ...]]
    opened_phase: str | None = None
    opened: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def with_set(self, power: str, lines: tuple[str, ...] | None) -> "Sealed":
        """``power``'s set replaced by ``lines``; None withdraws it."""
        orders = {p: v for p, v in self.orders.items() if p != power}
        if lines is not None:
            orders[power] = tuple(lines)
        return replace(self, orders=orders)

    def opened_for(self, next_phase: str) -> "Sealed":
        """What is kept once these sets are opened and the game waits for ``next_phase``."""
        if not self.orders:
            return Sealed(next_phase, {})
        return Sealed(next_phase, {}, self.phase, dict(self.orders))

    def for_phase(self, phase: str) -> "Sealed":
        """The sets for ``phase``: those given for it, or those opened for it (its step was undone)."""
        if phase == self.phase:
            return self
        if self.opened_phase == phase:
            return replace(self, phase=phase, orders=dict(self.opened))
        return replace(self, phase=phase, orders={})


@dataclass(frozen=True)
class SealedSet:
    """A private set given: the submission as checked (its verdicts), the power, the lines kept, and
    the power's open orders the set will replace at adjudication."""

    submission: Submission
    power: str
    lines: tuple[str, ...]
    open_orders: tuple[str, ...]


def seal(game: Game, sealed: Sealed, power: str, lines: list[str], *, keep: bool = False,
         keep_empty: bool = False, force: bool = True,
         verdicts: MutableMapping[frozenset, dict] | None = None) -> tuple[Sealed, SealedSet]:
    """``power``'s private set for the phase the game waits for, each line checked by the rules.
    ``keep``: the lines are added to the power's set (a line for a unit replaces that unit's line,
    as open orders do) instead of replacing it. ``keep_empty``: a set with no order is kept (the power
    submitted nothing: its units hold) rather than withdrawn. ``force``: an illegal line replaces a
    legal one of the same unit (otherwise it is not taken, as ``game orders`` does). Lines for
    another power are refused. ``verdicts``: the rules' verdicts kept for this game's phase
    (``play.submit_orders``)."""
    if not isinstance(game, Game) or not isinstance(sealed, Sealed):
        raise UsageError("seal: give a Game and its Sealed sets")
    own = list(sealed.orders.get(power, ())) if keep else []
    alone = replace(game, pending={power: own} if own else {})
    sub = submit_orders(alone, power, lines, replace_all=not keep, check=True, force=force, verdicts=verdicts)
    others = sorted({a.power for a in sub.accepted} - {power})
    if others:
        raise InputError(f"lines for {', '.join(others)} given as {power}'s: a private set is one power's orders")
    taken = tuple(sub.game.pending.get(power, ()))
    kept = taken if taken or keep_empty else None
    return sealed.with_set(power, kept), SealedSet(sub, power, taken, tuple(game.pending.get(power, ())))


@dataclass(frozen=True)
class Opened:
    """A phase adjudicated with its private sets: the step's report, the powers whose sets were
    opened, and the open orders each of them had given, set aside for its set."""

    report: StepReport
    opened: tuple[str, ...]
    set_aside: Mapping[str, tuple[str, ...]]


def open_and_adjudicate(game: Game, sealed: Sealed, *, unsettled: Callable[[AdjudicationError, Game], Exception]
                        | None = None) -> tuple[Game, Sealed, Opened]:
    """The phase adjudicated: each power's private set replaces its open orders, then the step is
    played. Returns the new game, the sets kept for an undo, and what was opened. ``unsettled``
    turns an adjudication a rule of your own leaves unsettled into the error to raise."""
    set_aside = {p: tuple(game.pending.get(p, ())) for p in sealed.orders if game.pending.get(p)}
    for power, lines in sorted(sealed.orders.items()):
        game = submit_orders(game, power, list(lines), replace_all=True).game
    try:
        new, report = adjudicate(game)
    except AdjudicationError as exc:
        if unsettled is None:
            raise
        raise unsettled(exc, game) from None
    return new, sealed.opened_for(phase_key(new)), Opened(report, tuple(sorted(sealed.orders)), set_aside)


@dataclass(frozen=True)
class TakenBack:
    """A step taken back: its number, its history entry (for the undo log) and the powers whose sets
    it had opened, private again."""

    step: int
    entry: dict
    resealed: tuple[str, ...]


def take_back(game: Game, sealed: Sealed, start: Callable[[Game], object]) -> tuple[Game, Sealed, TakenBack]:
    """The last step taken back (``play.undo``): refused while orders, open or private, wait for the
    next phase. The sets that step opened are private again, not open orders."""
    if sealed.orders:
        raise InputError("private (sealed) orders for the next phase are waiting: undo takes back a step only "
                         "before any orders are given after it")
    new, entry = undo(game, start)
    back = sealed.for_phase(phase_key(new))
    new = replace(new, pending={p: v for p, v in new.pending.items() if p not in back.orders})
    return new, back, TakenBack(len(game.history), entry, tuple(sorted(back.orders)))
