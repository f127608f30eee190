"""How much a province is worth to a power on one board: the judgement the greedy bot plays by.

The scheme is the one the DAIDE DumbBot was described with, written here from that description:

1. Each supply centre gets a worth: one of the power's own is worth the size (centres owned) of the
   largest other power with a unit next to it, the threat it faces; another power's is worth that
   power's size, so the strong are attacked first; a neutral one is worth ``NEUTRAL``. Other
   provinces are worth nothing by themselves.
2. The worth spreads over the map, separately for armies and for fleets along their own adjacency:
   at each round a province's new figure is its own figure plus its neighbours', over five. Round 0
   says what a province is, later rounds what it leads to.
3. A province's value for a unit kind is a weighted sum of its rounds (Fall weights the centre
   itself more, since Fall moves take centres; Spring weights what lies beyond), plus the power's
   strength there (its units that could move in) and minus the competition (the most units any one
   other power could move in), except on the power's own centres, which competition makes no less
   worth holding.

Everything is a pure function of the board, the power and the map; the map's adjacency by province is
worked out once per map.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from ...errors import UsageError
from ...model.kinds import UnitKind
from ...model.map import GameMap
from ...model.multiverse import Board, Unit

NEUTRAL = 2.0
"""The worth of a neutral supply centre (a power's size is its centres: 3 to 4 at the start)."""

ROUNDS = 6
SPRING = (0.6, 1.0, 0.5, 0.3, 0.2, 0.1, 0.05)
FALL = (1.6, 0.6, 0.3, 0.15, 0.1, 0.05, 0.02)
"""Weights of the rounds of spreading, round 0 first, for a Spring and for a Fall move."""

STRENGTH = 0.25
COMPETITION = 0.35
"""Per unit, the share of a province's own worth (at least 1) added for the power's strength there
and taken away for the competition."""


@dataclass(frozen=True)
class Adjacency:
    """The map by province: where a unit of each kind in a province may move (over any of its
    coasts), and the supply centres. ``spread``: per kind, the provinces ``reach`` has in its order,
    and for each the positions in that list of the provinces it reaches, in the order ``reach`` holds
    them (the spreading of values reads lists by position rather than dictionaries by name)."""

    reach: Mapping[str, Mapping[str, frozenset[str]]]  # kind -> province -> provinces
    centres: frozenset[str]
    spread: Mapping[str, tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]]


@lru_cache(maxsize=8)
def adjacency(game_map: GameMap) -> Adjacency:
    """The map's adjacency by province, worked out once per map."""
    found: dict[str, dict[str, set[str]]] = {UnitKind.ARMY: {}, UnitKind.FLEET: {}}
    for (kind, location), near in game_map.neighbours.items():
        here = found[kind].setdefault(game_map.province_of(location), set())
        here.update(game_map.province_of(x) for x in near)
    reach = {k: {p: frozenset(v) for p, v in r.items()} for k, r in found.items()}
    spread = {}
    for kind, by_province in reach.items():
        order = tuple(by_province)
        index = {p: i for i, p in enumerate(order)}
        # a province reached from which no unit of the kind moves has no level of its own (0): left out
        # of the sum, which adding 0 would not change
        spread[kind] = (order, tuple(tuple(index[q] for q in by_province[p] if q in index) for p in order))
    return Adjacency(reach, frozenset(p.id for p in game_map.provinces.values() if p.center), spread)


@dataclass(frozen=True)
class Values:
    """A power's values on one board: ``of[kind][province]`` (a province a unit of that kind cannot
    stand in has none), the centres' own worth (``worth``), and per province the power's strength
    and the strongest competition."""

    of: Mapping[str, Mapping[str, float]]
    worth: Mapping[str, float]
    strength: Mapping[str, int]
    competition: Mapping[str, int]

    def value(self, kind: str, province: str) -> float:
        return self.of.get(kind, {}).get(province, 0.0)


def _steps(game_map: GameMap, unit: Unit) -> frozenset[str]:
    """The provinces a unit may move to from where it stands (a fleet on one coast reaches what that
    coast reaches)."""
    return frozenset(game_map.province_of(x) for x in game_map.neighbours.get((unit.kind, unit.location), ()))


def board_values(board: Board, power: str, game_map: GameMap) -> Values:
    """The values of every province of ``board`` for ``power`` (see the module's documentation)."""
    if not isinstance(board, Board):
        raise UsageError(f"board_values: board must be a Board, not {type(board).__name__}")
    if not isinstance(power, str) or not isinstance(game_map, GameMap):
        raise UsageError("board_values: give the power's name and the map")
    adj = adjacency(game_map)
    size = Counter(board.centers.values())
    near: dict[str, Counter] = {}  # province -> power -> units that could move in (or stand there)
    for u in board.units.values():
        for p in _steps(game_map, u) | {u.province}:
            counts = near.get(p)
            if counts is None:
                near[p] = counts = Counter()
            counts[u.power] += 1
    worth: dict[str, float] = {}
    for p in adj.centres:
        owner = board.centers.get(p)
        if owner == power:
            threats = [size[q] for q in near.get(p, {}) if q != power]
            worth[p] = float(max(threats, default=0))
        elif owner is None:
            worth[p] = NEUTRAL
        else:
            worth[p] = float(size[owner])
    strength = {p: c.get(power, 0) for p, c in near.items()}
    competition = {p: max((n for q, n in c.items() if q != power), default=0) for p, c in near.items()}
    weights = FALL if board.turn % 2 else SPRING
    shift: dict[str, float] = {}  # per province, the strength's bonus less the competition's malus
    of: dict[str, dict[str, float]] = {}
    for kind, (order, steps) in adj.spread.items():
        level = [worth.get(p, 0.0) for p in order]
        total = [weights[0] * v for v in level]
        for n in range(1, ROUNDS + 1):
            level = [(level[i] + sum(map(level.__getitem__, near_i))) / 5.0 for i, near_i in enumerate(steps)]
            w = weights[n]
            total = [t + w * v for t, v in zip(total, level)]
        values: dict[str, float] = {}
        for p, t in zip(order, total):
            if p not in shift:
                unit = max(worth.get(p, 0.0), 1.0)
                bonus = STRENGTH * unit * strength.get(p, 0)
                mine = board.centers.get(p) == power
                malus = 0.0 if mine else COMPETITION * unit * competition.get(p, 0)
                shift[p] = bonus - malus
            values[p] = t + shift[p]
        of[kind] = values
    return Values(of, worth, strength, competition)
