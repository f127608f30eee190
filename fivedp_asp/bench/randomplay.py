"""Seeded random multiversal games, written as scenarios: test and benchmark material for large
multiverses (the pictures of tens of timelines and hundreds of boards).

Each step gives every unit on every head board waiting for the phase an order drawn by the classic
order generator (``compare.random_games``), designated to its own board, and in movement steps a few
moves and supports from heads into the past, into a parent timeline or onto another head, which is
what forks timelines. The same seed gives the same game; the scenario replays to the same
multiverse because every order names its boards.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from ..model import orders as o
from ..model.map import GameMap, load_map
from ..model.multiverse import Multiverse
from ..model.notation import format_order, parse_order, timeline_name
from ..engine.step import MOVEMENT, next_phase, step


def _designate(x: Any, timeline: int, turn: int) -> Any:
    """An order with every place that names no board given the board it is ordered on."""
    if isinstance(x, o.Where):
        return o.Where(x.province, x.coast, timeline if x.timeline is None else x.timeline,
                       turn if x.turn is None else x.turn)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.replace(x, **{f.name: _designate(getattr(x, f.name), timeline, turn)
                                         for f in dataclasses.fields(x)})
    return x


def _unit_key(line: str, game_map: GameMap) -> tuple | None:
    """The board and province of the unit a designated order line orders."""
    unit = getattr(parse_order(line, game_map), "unit", None)
    return None if unit is None else (unit.where.timeline, unit.where.turn, unit.where.province)


def _travel(mv: Multiverse, game_map: GameMap, rng: random.Random, count: int,
            empty_share: float = 0.0) -> list[tuple[str, str]]:
    """Moves (seven in ten) and supports from random heads to the board before, to the parent
    timeline's boards, or to another head; a share ``empty_share`` of the moves go to a place that
    is empty on the board they reach."""
    out = []
    for _ in range(count):
        head = rng.choice(mv.heads)
        if not head.units:
            continue
        unit = rng.choice(sorted(head.units.values(), key=lambda u: u.location))
        here = f"{unit.letter} {timeline_name(head.timeline)}-{game_map.short_name(unit.location)}@{head.turn}"
        targets = [(head.timeline, head.turn - 1)] + [h.key for h in mv.heads if h.key != head.key]
        if head.timeline in mv.forks:
            parent = mv.forks[head.timeline][0]
            targets += [(parent, head.turn - 1), (parent, head.turn)]
        board = mv.board(*rng.choice(targets))
        if board is None:
            continue

        def there(loc: str) -> str:
            return f"{timeline_name(board.timeline)}-{game_map.short_name(loc)}@{board.turn}"

        if rng.random() < 0.7 or not board.units:
            near = list(game_map.neighbours.get((unit.kind, unit.location), ())) + [unit.location]
            # mostly into a place empty there, which forks the past board when it succeeds
            empty = [loc for loc in near if game_map.province_of(loc) not in board.units]
            dest = rng.choice(empty if empty and rng.random() < empty_share else near)
            out.append((unit.power, f"{here} - {there(dest)}"))
        else:
            other = rng.choice(sorted(board.units.values(), key=lambda u: u.location))
            out.append((unit.power, f"{here} S {other.letter} {there(other.location)}"))
    return out


def random_game(seed: int, steps: int, travel: tuple[int, int] = (2, 6), timelines: int | None = None,
                empty_share: float = 0.0, game_map: GameMap | None = None) -> tuple[dict, Multiverse]:
    """A scenario of ``steps`` random steps from the standard opening (stopping early once it has
    ``timelines`` timelines, when given), and the multiverse it ends in. ``travel`` bounds the
    number of moves and supports across boards per movement step; ``empty_share`` (0 to 1) of those
    moves go to empty places, which forks timelines more often."""
    from ..compare.lockstep import opening
    from ..compare.random_games import OrderGenerator

    game_map = game_map or load_map("standard")
    rng = random.Random(f"fivedp-randomplay/{seed}")
    gen = OrderGenerator(game_map, rng)
    # every power plays, as in a scenario's start: elimination and victory apply alike in both
    mv = dataclasses.replace(opening(game_map), players=tuple(game_map.powers))
    played = []
    for _ in range(steps):
        phase = next_phase(mv)
        lines: dict[str, list[str]] = {}
        travelling: dict[tuple, tuple[str, str]] = {}  # a unit's own board and province → its order across boards
        if phase == MOVEMENT:
            for power, line in _travel(mv, game_map, rng, rng.randint(*travel), empty_share):
                travelling.setdefault(_unit_key(line, game_map), (power, line))
        for head in mv.heads:
            if head.phase != phase:
                continue
            for power, written in gen.orders(head, phase).items():
                for line in written:
                    order = _designate(parse_order(line, game_map), head.timeline, head.turn)
                    text = format_order(order, game_map)
                    # a unit ordered across boards is given that order alone
                    if _unit_key(text, game_map) not in travelling:
                        lines.setdefault(power, []).append(text)
        for power, line in travelling.values():
            lines.setdefault(power, []).append(line)
        mv = step(mv, lines).after
        played.append({"orders": lines})
        if mv.winner or (timelines is not None and len(mv.timelines) >= timelines):
            break
    case = {"id": f"random game {seed}", "title": f"{len(played)} random steps, {len(mv.timelines)} timelines, "
            f"{len(mv.boards)} boards", "steps": played}
    return case, mv
