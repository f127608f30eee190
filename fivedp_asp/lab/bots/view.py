"""What a bot sees and what it may ask: one power's view of a game, for the game's next phase.

A bot is a function from a :class:`View` to the order lines of its power for the next phase
(movement, retreats, adjustments, or the sustain phase), deterministic for the view's seed: every
random choice is drawn from ``view.rng()``. Diplomacy hides nothing but the orders being written, so
the view holds the whole game; what it adds are the questions a bot asks of the engine:

- ``legal(...)``: the orders the power may give (``engine.possible.legal_orders``, the engine's own
  list: a listed order is never refused alone), filtered as that function filters them. A study that
  compares option values lets its players draw from what *any* compared value allows (``settings``):
  the list is then the union over those settings, so that an order only a more permissive value
  allows is given, and is invalid under the stricter one.
- ``legal_on(board)``: the orders of the power's units on one head that stay on that board. Such an
  order is judged by that board alone (its units, its fleets' convoy routes), so they are listed on a
  multiverse of that board only, which costs what a classic board costs however large the game is.
- ``simulate(order_sets)``: the next phase adjudicated on copies, once for each set of orders, within
  a budget of sets per phase, so that a bot can try where its heuristic cannot tell. While a game's
  runner asks a bot for its orders (``RUNNER``), every view's ``simulate`` goes to the runner, which
  counts the sets per power and phase: a view the bot makes for itself draws on the same budget.

Nothing here is kept between phases: a view is made for one power and one phase, and what it has
worked out (``memo``) goes with it. The runner may give the built-in bots' views of one phase a
shared :class:`Listings`: the position is the same for every power, so its legal orders are listed
once for all of them (one solver call a board instead of one a power) and each view takes its own
power's part.
"""

from __future__ import annotations

import dataclasses
import random
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from ...engine.adjustment import adjustment_balances
from ...engine.batch import step_many
from ...engine.phase import StepReport
from ...engine.possible import LegalOrders, PossibleOrder, legal_orders
from ...engine.step import next_phase
from ...errors import UsageError
from ...game.state import Game
from ...model.map import GameMap
from ...model.multiverse import PHASES, Board, Multiverse
from ...model.notation import format_order, parse_order
from ...model.options import show
from ...model.orders import UnitSpec, Where
from ...model.settings import Settings

Bot = Callable[["View"], Iterable[str]]
"""A bot: the view of one power for one phase in, that power's order lines out."""

DEFAULT_BUDGET = 3
"""Order sets a bot may adjudicate on copies in one phase (``View.simulate``)."""


class Runner(Protocol):
    """What adjudicates a bot's tries while a game's runner waits for its orders: it holds the budget
    of the power and phase being played, whatever view the sets come from."""

    def remaining(self) -> int: ...

    def simulate(self, mv: Multiverse, order_sets: list[dict[str, list[str]]]) -> list[StepReport | Exception]: ...


RUNNER: ContextVar[Runner | None] = ContextVar("fivedp_bot_runner", default=None)
"""The runner of the call in progress (set by bots/selfplay.py around each bot's call, and in a bot's own
process by bots/sandbox.py): a context value rather than a field of the view, so that a view a bot makes
for itself is counted too."""


@dataclass(frozen=True)
class View:
    """One power's view of a game before its next phase.

    ``seed`` seeds every random choice of the bot (``rng``); ``settings`` are further option settings
    whose orders the power may draw from as well (a study's compared values; the game's own options
    are always one); ``travel`` says whether the bot plays across boards (a multiverse game) or only
    on each head's own board; ``budget`` is the number of order sets ``simulate`` adjudicates this
    phase. ``memo`` holds what the view has worked out (listed orders, adjudications spent): it is
    not part of the value."""

    game: Game
    power: str
    seed: str
    settings: tuple[Settings, ...] = ()
    travel: bool = False
    budget: int = DEFAULT_BUDGET
    memo: dict = field(default_factory=dict, compare=False, repr=False)
    listings: "Listings | None" = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise UsageError(f"View: game must be a Game, not {type(self.game).__name__}")
        if not isinstance(self.power, str) or self.game.mv.game_map.power(self.power) != self.power:
            raise UsageError(f"View: power must be one of the map's powers as it names them, not {self.power!r:.40}")
        if not isinstance(self.seed, str):
            raise UsageError(f"View: seed must be text, not {type(self.seed).__name__}")
        if not isinstance(self.settings, tuple) or not all(isinstance(s, Settings) for s in self.settings):
            raise UsageError("View: settings must be a tuple of Settings")
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 0:
            raise UsageError(f"View: budget must be a whole number of at least 0, not {self.budget!r:.40}")
        if self.listings is not None and (not isinstance(self.listings, Listings) or self.listings.mv is not self.game.mv):
            raise UsageError("View: listings must be the Listings of the view's own game position")

    # -- the game ----------------------------------------------------------------------------

    @property
    def mv(self) -> Multiverse:
        return self.game.mv

    @property
    def game_map(self) -> GameMap:
        return self.game.mv.game_map

    @property
    def phase(self) -> str:
        return next_phase(self.game.mv)

    def rng(self) -> random.Random:
        """A generator seeded by the view's seed: the same view gives the same draws."""
        return random.Random(self.seed)

    def heads(self) -> tuple[Board, ...]:
        """The heads that wait for the next phase."""
        phase = self.phase
        return tuple(b for b in self.mv.heads if b.phase == phase)

    def adjusting(self) -> tuple[tuple[Board, int], ...]:
        """In an adjustment phase, each head on which the power must build (a positive balance) or
        remove (a negative one), with that balance: what every bot's adjustments start from."""
        balances = adjustment_balances(self.mv)
        return tuple((head, balances[(head.key, self.power)]) for head in self.heads()
                     if balances.get((head.key, self.power), 0) != 0)

    def option_sets(self) -> tuple[Settings, ...]:
        """The game's own options, then each further setting that could list other orders: one that
        loads other logic files into the programs legality is judged by (movement, retreat,
        adjustment) or sets an option that Python reads otherwise (``_legality``). A setting that
        differs only in, say, the victory condition lists the same orders and is not asked again."""
        out = [self.mv.options]
        seen = {_legality(self.mv.options)}
        for s in self.settings:
            key = _legality(s)
            if key not in seen:
                seen.add(key)
                out.append(s)
        return tuple(out)

    # -- the orders it may give ------------------------------------------------------------

    def legal(self, *, kind: str | Sequence[str] | None = None, to: str | None = None,
              unit: str | None = None) -> tuple[PossibleOrder, ...]:
        """The power's orders for the next phase that the engine accepts under some of the option
        sets (``option_sets``), filtered as ``legal_orders`` filters them; each order once."""
        key = ("legal", kind if isinstance(kind, (str, type(None))) else tuple(kind), to, unit)
        if key not in self.memo:
            if self.listings is not None:
                lists = (self.listings.legal(s, self.power, kind, to, unit) for s in self.option_sets())
            else:
                lists = (legal_orders(self._under(s), power=self.power, kind=kind, to=to, unit=unit)
                         for s in self.option_sets())
            self.memo[key] = _union(lists)
        return self.memo[key]

    def legal_on(self, board: Board) -> tuple[PossibleOrder, ...]:
        """The power's movement orders on head ``board`` that stay on it (holds, moves, supports,
        convoys and open convoys whose every place is on ``board``), under some of the option sets.
        Listed on a multiverse of that board alone, as timeline a, and written back onto ``board``."""
        if not isinstance(board, Board):
            raise UsageError(f"View.legal_on: board must be a Board, not {type(board).__name__}")
        key = ("on", board.key)
        if key not in self.memo:
            if self.listings is not None:
                lists = [self.listings.on(board, s, self.power) for s in self.option_sets()]
            else:
                lists = [_listed_on(self.mv, board, s, self.power) for s in self.option_sets()]
            self.memo[key] = _union(lists)
        return self.memo[key]

    def _under(self, settings: Settings) -> Multiverse:
        if settings == self.mv.options:
            return self.mv
        return dataclasses.replace(self.mv, options=settings)

    # -- trying orders on copies -----------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Order sets ``simulate`` may still adjudicate this phase (the runner's count, in a game)."""
        runner = RUNNER.get()
        if runner is not None:
            return runner.remaining()
        return self.budget - self.memo.get("spent", 0)

    def simulate(self, order_sets: Sequence[Mapping[str, Sequence[str]]]) -> list[StepReport | Exception]:
        """The next phase adjudicated on copies of the game, once for each set of orders (power ->
        lines; a power without lines gives none: its units hold, its retreats disband), without
        reasons, all at once. Only the first ``remaining`` sets are adjudicated: the list may be
        shorter than the sets given. A set the engine refuses gives its exception. In a game, the
        runner adjudicates them and counts them against the power's budget for the phase."""
        if isinstance(order_sets, (str, Mapping)) or not all(isinstance(s, Mapping) for s in order_sets):
            raise UsageError("View.simulate: give a list of order sets, each a mapping of power to lines")
        sets = [{str(p): [str(line) for line in v] for p, v in s.items()} for s in order_sets]
        runner = RUNNER.get()
        if runner is not None:
            return runner.simulate(self.mv, sets)
        wanted = sets[:max(self.remaining, 0)]
        if not wanted:
            return []
        self.memo["spent"] = self.memo.get("spent", 0) + len(wanted)
        return step_many([(self.mv, s) for s in wanted], reasons=False)


@dataclass
class Ledger:
    """The runner's count of one power's tries in one phase: ``budget`` sets at most, whatever views
    they come from (see ``RUNNER``)."""

    budget: int
    spent: int = 0

    def remaining(self) -> int:
        return max(self.budget - self.spent, 0)

    def simulate(self, mv: Multiverse, order_sets: list[dict[str, list[str]]]) -> list[StepReport | Exception]:
        if not isinstance(mv, Multiverse):
            raise UsageError(f"simulate: the position must be a Multiverse, not {type(mv).__name__}")
        wanted = list(order_sets)[:self.remaining()]
        if not wanted:
            return []
        self.spent += len(wanted)
        return step_many([(mv, s) for s in wanted], reasons=False)


class Listings:
    """The legal orders of one game position, listed for every power at once and handed out power by
    power: what the built-in bots' views of one phase share (the runner makes one a phase). A listing
    judges each candidate as a line written alone, so a power's part of the whole listing is the
    power's own listing (``tests/lab/bots/test_bots.py`` holds them equal)."""

    def __init__(self, mv: Multiverse):
        if not isinstance(mv, Multiverse):
            raise UsageError(f"Listings needs a Multiverse, not {type(mv).__name__}")
        self.mv = mv
        self._kept: dict[tuple, dict[str, tuple[PossibleOrder, ...]]] = {}
        self._engines: dict[tuple, LegalOrders] = {}  # per setting: what its questions share

    def legal(self, settings: Settings, power: str, kind: str | Sequence[str] | None, to: str | None,
              unit: str | None) -> tuple[PossibleOrder, ...]:
        """``legal_orders`` of the position under ``settings`` for ``power``, filtered alike."""
        key = ("legal", _legality(settings), kind if isinstance(kind, (str, type(None))) else tuple(kind), to, unit)
        if key not in self._kept:
            if key[1] not in self._engines:
                under = self.mv if settings == self.mv.options else dataclasses.replace(self.mv, options=settings)
                self._engines[key[1]] = LegalOrders(under)
            self._kept[key] = _by_power(self._engines[key[1]](kind=kind, to=to, unit=unit))
        return self._kept[key].get(power, ())

    def on(self, board: Board, settings: Settings, power: str) -> tuple[PossibleOrder, ...]:
        """``power``'s orders that stay on head ``board`` (as ``View.legal_on``) under ``settings``."""
        key = ("on", _legality(settings), board.key)
        if key not in self._kept:
            self._kept[key] = _by_power(_listed_on(self.mv, board, settings, None))
        return self._kept[key].get(power, ())


def _by_power(listing: Iterable[PossibleOrder]) -> dict[str, tuple[PossibleOrder, ...]]:
    out: dict[str, list[PossibleOrder]] = {}
    for p in listing:
        out.setdefault(p.power, []).append(p)
    return {power: tuple(v) for power, v in out.items()}


def _listed_on(mv: Multiverse, board: Board, settings: Settings, power: str | None) -> list[PossibleOrder]:
    """The orders (of ``power``, or every power's) that stay on head ``board``: listed on a multiverse of
    that board alone, as timeline a, and written back onto ``board``."""
    m = mv.game_map
    listed = legal_orders(_alone(mv, board, settings), power=power)
    if board.timeline == 0:
        # the board alone is the board itself (same timeline, turn and name): its listing already
        # names every place as the board does, and writing each order again would give the same text
        # (tests/lab/bots/test_bots.py holds the two equal on random positions)
        return [PossibleOrder(p.power, board.name, p.unit, p.kind, p.order) for p in listed]
    moved: dict = {}  # the places and units met so far, moved: most orders name the same few again
    return [PossibleOrder(p.power, board.name, p.unit, p.kind,
                          format_order(_on_timeline(parse_order(p.order, m), board.timeline, moved), m))
            for p in listed]


def _legality(settings: Settings) -> tuple:
    """What of a setting the legal orders depend on: the logic files of the programs that judge them,
    and the options read by Python rather than loaded as files (``programs=()`` in the registry)."""
    files = tuple(str(f) for program in PHASES for f in settings.files(program))
    read = tuple((o.name, show(settings.chosen(o.name))) for o in settings.registry.values() if not o.programs)
    return files, read


def _union(lists: Iterable[Iterable[PossibleOrder]]) -> tuple[PossibleOrder, ...]:
    """Orders from several listings, each (power, order) once, in the order first met."""
    seen: set[tuple[str, str]] = set()
    out = []
    for listing in lists:
        for p in listing:
            if (p.power, p.order) not in seen:
                seen.add((p.power, p.order))
                out.append(p)
    return tuple(out)


def _alone(mv: Multiverse, board: Board, settings: Settings) -> Multiverse:
    """A multiverse of ``board`` alone, as timeline a at its own turn, under ``settings``."""
    only = dataclasses.replace(board, timeline=0, record=None)
    return Multiverse(mv.game_map, MappingProxyType({only.key: only}), MappingProxyType({}), settings,
                      players=mv.players)


def _on_timeline(value: Any, timeline: int, moved: dict | None = None) -> Any:
    """An order (or a part of one) with every place on timeline a moved to ``timeline``. ``moved``, when
    given, keeps each place and unit moved, by its value, to be given again when met again."""
    if isinstance(value, tuple):
        return tuple(_on_timeline(x, timeline, moved) for x in value)
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    kept = moved is not None and isinstance(value, (Where, UnitSpec))
    if kept and value in moved:
        return moved[value]
    if isinstance(value, Where):
        out = dataclasses.replace(value, timeline=timeline) if value.timeline == 0 else value
    else:
        out = dataclasses.replace(value, **{f.name: _on_timeline(getattr(value, f.name), timeline, moved)
                                            for f in dataclasses.fields(value)})
    if kept:
        moved[value] = out
    return out
