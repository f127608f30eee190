"""The state of a multiverse: boards, timelines and what each board is waiting for.

A board is a (timeline, turn) pair (docs/rules.md §6.1). Turn t is a movement turn: even = Spring,
odd = Fall, year 1901 + t // 2. Retreats and winter adjustments are phases *on* a board before
its movement: a board produced with dislodged units first resolves their retreats, and a board
produced from a Fall battle first settles its supply centres and adjustments.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping

from .kinds import Phase, UnitKind
from .map import GameMap
from ..errors import NotationError
from ..limits import MAX_TURN
from .notation import parse_timeline, timeline_name
from .orders import ResolvedOrder
from .settings import Settings

Place3 = tuple[int, int, str]  # (timeline, turn, province): a unit's place

# the phases by the names the modules import them by (``model.kinds.Phase`` owns them)
MOVEMENT, RETREAT, ADJUSTMENT, SUSTAIN = Phase.MOVEMENT, Phase.RETREAT, Phase.ADJUSTMENT, Phase.SUSTAIN
PHASES = (MOVEMENT, RETREAT, ADJUSTMENT)  # the phases of a board (sustain is the whole multiverse's)


@dataclass(frozen=True)
class Unit:
    kind: str  # "army" | "fleet"
    power: str
    location: str  # "mun", "spa/nc"

    @property
    def province(self) -> str:
        return self.location.split("/", 1)[0]

    @property
    def letter(self) -> str:
        return "A" if self.kind == UnitKind.ARMY else "F"


@dataclass(frozen=True)
class Retreat:
    """A dislodged unit waiting to retreat onto the board, and the places it may not go."""

    unit: Unit
    attacker_from: str | None = None  # province the attack came from on the battle's own board, if it bars a retreat
    barred: frozenset[str] = frozenset()  # provinces left vacant by a standoff in the battle


@dataclass(frozen=True)
class Record:
    """What was decided when a board's movement was fought (docs/rules.md §6.4); it never changes afterwards.

    ``orders`` are the legal orders of the board's units; ``incoming`` the units on other boards whose
    orders acted on it in the same step; ``decisions`` every decision about its units and the moves
    into it, keyed by (decision name, unit place): moves, dislodged, given, path, assist_given.
    """

    orders: tuple[ResolvedOrder, ...] = ()
    incoming: tuple[Place3, ...] = ()
    decisions: Mapping[tuple[str, Place3], bool] = field(default_factory=dict)

    def order_of(self, province: str) -> ResolvedOrder | None:
        return next((r for r in self.orders if r.unit and r.unit.province == province), None)


@dataclass(frozen=True)
class Board:
    timeline: int
    turn: int
    units: Mapping[str, Unit]  # by province
    centers: Mapping[str, str]  # province -> owning power
    retreats: tuple[Retreat, ...] = ()
    adjustment_due: bool = False  # the winter adjustment before this board's movement is still to come
    record: Record | None = None  # written once its movement has been fought

    @property
    def key(self) -> tuple[int, int]:
        return self.timeline, self.turn

    @property
    def name(self) -> str:
        return board_name(self.timeline, self.turn)

    @property
    def phase(self) -> str:
        if self.retreats:
            return RETREAT
        if self.adjustment_due:
            return ADJUSTMENT
        return MOVEMENT


def board_name(timeline: int, turn: int) -> str:
    """``a0``, ``b3``; past ``z`` the timeline has digits of its own, so an ``@`` keeps the name
    unambiguous: timeline b1 at turn 3 is ``b1@3`` (``b13`` would read as timeline b, turn 13)."""
    tl = timeline_name(timeline)
    return f"{tl}{turn}" if timeline < 26 else f"{tl}@{turn}"


def board_name_readings(name: str) -> list[tuple[int, int]]:
    """Every (timeline, turn) a board name can mean: ``b1@3`` one; ``b13`` two (timeline b turn 13,
    or timeline b1 turn 3), the shorter timeline first. Empty when it is no board name at all."""
    text = str(name).strip()
    if "@" in text:
        cuts = [text.split("@", 1)]
    else:
        digits = len(text) - len(text.rstrip("0123456789"))
        cuts = [[text[:cut], text[cut:]] for cut in range(len(text) - digits, len(text)) if cut > 0]
    readings = []
    for tl, turn in cuts:
        if not turn.isascii() or not turn.isdigit() or len(turn) > len(str(MAX_TURN)) or int(turn) > MAX_TURN:
            continue  # no board beyond the last turn (limits.MAX_TURN)
        try:
            readings.append((parse_timeline(tl), int(turn)))
        except (ValueError, NotationError):
            continue
    return readings


def season_name(turn: int) -> str:
    return f"{'Spring' if turn % 2 == 0 else 'Fall'} {1901 + turn // 2}"


def make_board(timeline: int, turn: int, units: Iterable[Unit], centers: Mapping[str, str], **kw) -> Board:
    return Board(
        timeline=timeline,
        turn=turn,
        units=MappingProxyType({u.province: u for u in units}),
        centers=MappingProxyType(dict(centers)),
        **kw,
    )


class LazyBoards(Mapping):
    """Boards built only when looked up. A long game's file holds thousands of past boards and most
    commands touch a handful: ``stored`` maps each past board's key to what ``build`` turns into the
    board (its line in the game file), ``ready`` holds the boards at hand (the heads, and boards a
    step produced). A board is built once; multiverses made from this one by ``with_boards`` share
    what was built. Keys and lengths never build anything."""

    def __init__(self, ready: Mapping[tuple[int, int], Board], stored: Mapping[tuple[int, int], Any],
                 build: Callable[[tuple[int, int], Any], Board], built: dict | None = None):
        self._ready = dict(ready)
        self._stored = stored
        self._build = build
        self._built: dict[tuple[int, int], Board] = {} if built is None else built
        self._keys: tuple[tuple[int, int], ...] | None = None

    def __getitem__(self, key: tuple[int, int]) -> Board:
        board = self._ready.get(key)
        if board is not None:
            return board
        board = self._built.get(key)
        if board is None:
            board = self._build(key, self._stored[key])  # KeyError for a key that is no board
            self._built[key] = board
        return board

    def __contains__(self, key: object) -> bool:
        return key in self._ready or key in self._stored

    def _all_keys(self) -> tuple[tuple[int, int], ...]:
        if self._keys is None:
            self._keys = tuple(k for k in self._stored if k not in self._ready) + tuple(self._ready)
        return self._keys

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._all_keys())

    def __len__(self) -> int:
        return len(self._all_keys())

    def __repr__(self) -> str:
        return f"LazyBoards({len(self)} boards, {len(self._built)} built from storage)"

    def updated(self, boards: Iterable[Board]) -> "LazyBoards":
        """These boards added or put in the place of the ones with their keys; nothing is built."""
        ready = dict(self._ready)
        ready.update({b.key: b for b in boards})
        return LazyBoards(ready, self._stored, self._build, self._built)

    def without(self, keys: Iterable[tuple[int, int]]) -> "LazyBoards":
        """These boards taken away; nothing is built."""
        gone = set(keys)
        return LazyBoards({k: b for k, b in self._ready.items() if k not in gone},
                          {k: v for k, v in self._stored.items() if k not in gone}, self._build, self._built)

    def stored_item(self, key: tuple[int, int]) -> Any | None:
        """What the board was built (or is to be built) from, while the board is still that one;
        None once another board took its place or for a board that was never stored."""
        if key not in self._stored:
            return None
        if key in self._ready and self._ready[key] is not self._built.get(key):
            return None
        return self._stored[key]

    def kept_from(self, other: Mapping, key: tuple[int, int]) -> bool:
        """Whether ``other`` (another multiverse's boards) holds this very board at ``key``, both
        still as stored: then it is the same board, known without building it."""
        return (isinstance(other, LazyBoards) and other._stored is self._stored
                and self.stored_item(key) is not None and other.stored_item(key) is not None)

    def stored_keys(self) -> Iterable[tuple[int, int]]:
        """The stored keys in their stored order."""
        return self._stored.keys()


@dataclass(frozen=True)
class Multiverse:
    """Every board there is, and how the timelines branch. Immutable: a step returns a new one."""

    game_map: GameMap
    boards: Mapping[tuple[int, int], Board]
    forks: Mapping[int, tuple[int, int]] = field(default_factory=dict)  # timeline -> (parent, fork turn)
    options: Settings = field(default_factory=Settings)  # the rule options and rules of your own
    players: tuple[str, ...] = ()  # the powers in the game (docs/rules.md §6.7)
    eliminated: frozenset[str] = frozenset()
    winner: str | None = None
    # the sustain phase (docs/rules.md §6.8.3): timelines out of play for good, the game year whose phase
    # comes next, and the last game year whose phase was held
    dissolved: frozenset[int] = frozenset()
    sustain_due: int | None = None
    sustain_held: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.options, Settings):  # checked where they come in (model/settings.py), never here
            raise TypeError(f"Multiverse: options must be a Settings, not {type(self.options).__name__}")

    @cached_property
    def _latest(self) -> Mapping[int, int]:
        """Each timeline's latest turn, computed once: the multiverse never changes after it is made."""
        latest: dict[int, int] = {}
        for t, n in self.boards:
            if n > latest.get(t, -1):
                latest[t] = n
        return latest

    @property
    def timelines(self) -> tuple[int, ...]:
        """Every timeline there is, dissolved ones included (their indices are never reused)."""
        return tuple(sorted(self._latest))

    @property
    def in_play(self) -> tuple[int, ...]:
        return tuple(tl for tl in sorted(self._latest) if tl not in self.dissolved)

    def latest_turn(self, timeline: int) -> int | None:
        return self._latest.get(timeline)

    @cached_property
    def heads(self) -> tuple[Board, ...]:
        """The heads in play: a dissolved timeline's last board is history, never a head again."""
        return tuple(self.boards[(t, n)] for t, n in sorted(self._latest.items()) if t not in self.dissolved)

    def board(self, timeline: int, turn: int) -> Board | None:
        return self.boards.get((timeline, turn))

    def with_boards(self, boards: Iterable[Board], forks: Mapping[int, tuple[int, int]] | None = None) -> "Multiverse":
        new_forks = dict(self.forks)
        new_forks.update(forks or {})
        if isinstance(self.boards, LazyBoards):
            return replace(self, boards=self.boards.updated(boards), forks=MappingProxyType(new_forks))
        merged = dict(self.boards)
        merged.update({b.key: b for b in boards})
        return replace(self, boards=MappingProxyType(merged), forks=MappingProxyType(new_forks))

    def standing(self, eliminated: frozenset[str], winner: str | None) -> "Multiverse":
        """The standing set, and the eliminated powers removed from every head: their units leave
        (those waiting to retreat too), their centres turn neutral. Powers eliminated earlier are
        removed again wherever they reappear: a fork of a board from before their elimination
        copies their units onto a new head (docs/rules.md §8)."""
        boards = []
        for head in self.heads:
            if not any(u.power in eliminated for u in head.units.values()) and \
                    not any(o in eliminated for o in head.centers.values()) and \
                    not any(r.unit.power in eliminated for r in head.retreats):
                continue
            units = [u for u in head.units.values() if u.power not in eliminated]
            centers = {p: o for p, o in head.centers.items() if o not in eliminated}
            retreats = tuple(r for r in head.retreats if r.unit.power not in eliminated)
            boards.append(replace(make_board(head.timeline, head.turn, units, centers), retreats=retreats,
                                  adjustment_due=head.adjustment_due, record=head.record))
        if not boards and eliminated == self.eliminated and winner == self.winner:
            return self
        return replace(self.with_boards(boards), eliminated=eliminated, winner=winner)

    def ghosts(self) -> tuple[tuple[tuple[int, int], "Unit"], ...]:
        """The units of powers already eliminated that stand (or wait to retreat) on a head: brought
        back by a fork of a board from before the elimination, and removed by ``standing``."""
        out = []
        if self.eliminated:
            for head in self.heads:
                out += [(head.key, u) for u in head.units.values() if u.power in self.eliminated]
                out += [(head.key, r.unit) for r in head.retreats if r.unit.power in self.eliminated]
        return tuple(out)

    def without_boards(self, keys: Iterable[tuple[int, int]]) -> "Multiverse":
        """The multiverse with these boards taken away (and nothing else changed)."""
        keys = set(keys)
        if isinstance(self.boards, LazyBoards):
            return replace(self, boards=self.boards.without(keys))
        return replace(self, boards=MappingProxyType({k: b for k, b in self.boards.items() if k not in keys}))

    def find_board(self, name: str) -> Board | None:
        """The board a name means; of two readings (``b13``) the one that exists."""
        found = [self.boards[k] for k in board_name_readings(name) if k in self.boards]
        return found[0] if len(found) == 1 else None


def unit_text(unit: Unit, game_map: GameMap) -> str:
    """``A Par``, ``F Spa/nc``: a unit as positions print it (and the parser reads it back)."""
    return f"{unit.letter} {game_map.short_name(unit.location)}"


def opening(game_map: GameMap, settings: Settings | None = None) -> Multiverse:
    """The map's starting position, Spring 1901: its start units, home centres owned, every power a player."""
    from .notation import parse_unit

    if settings is not None and not isinstance(settings, Settings):
        raise TypeError(f"opening: settings must be a Settings, not {type(settings).__name__}")

    units = []
    for power, texts in game_map.start.items():
        for text in texts:
            spec = parse_unit(text, game_map)
            units.append(Unit(spec.kind, power, game_map.unit_location(spec.kind, spec.where.province, spec.where.coast)))
    centers = {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    board = make_board(0, 0, units, centers)
    return Multiverse(game_map, MappingProxyType({board.key: board}), MappingProxyType({}),
                      settings if settings is not None else Settings(), players=tuple(game_map.powers))
