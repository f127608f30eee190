"""Positions made for measuring: generated multiverses (heads and history of a chosen size) with
the orders of one step, game files of a chosen length, and maps of N disjoint copies of a DATC
position. The benchmarks time them; tests of the engine play them too.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from ...model.kinds import OrderKind
from ...model.map import GameMap, load_map
from ...model.multiverse import Board, Multiverse, Record, Unit, make_board, opening
from ...model.notation import timeline_name
from ...model.orders import Hold, Place, ResolvedOrder, UnitSpec, Where


def _holding_record(timeline: int, turn: int, units: list[Unit]) -> Record:
    """A record in which every unit held: a past that can be fought again."""
    orders = tuple(
        ResolvedOrder(u.power, f"{u.letter} {u.province} H", Hold(UnitSpec(Where(u.province, None, timeline, turn))),
                      OrderKind.HOLD, Place(timeline, turn, u.province))
        for u in units)
    return Record(orders, (), MappingProxyType({}))


def synthetic_multiverse(heads: int, history: int, game_map: GameMap | None = None) -> Multiverse:
    """``heads`` timelines whose heads all stand at the same turn, with about ``history`` boards in all.

    Timeline a runs from turn 0; every other timeline forks from a board of a, spread over its turns,
    so that parents, children and siblings (the family adjacency) all occur. Every past board holds
    the opening position and a record in which all units held.
    """
    game_map = game_map or load_map("standard")
    units = list(opening(game_map).heads[0].units.values())
    centers = {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    # depth d: timeline a has d+1 boards, each other timeline about d/2 on average
    depth = max(2, round(2 * history / (heads + 1)))
    boards: dict[tuple[int, int], Board] = {}
    forks: dict[int, tuple[int, int]] = {}
    for t in range(heads):
        first = 0 if t == 0 else 1 + (t * 7) % (depth - 1)
        if t:
            forks[t] = (0, first - 1)
        for n in range(first, depth + 1):
            board = make_board(t, n, units, centers)
            if n < depth:
                board = Board(t, n, board.units, board.centers, record=_holding_record(t, n, units))
            boards[(t, n)] = board
    return Multiverse(game_map, MappingProxyType(boards), MappingProxyType(forks), players=tuple(game_map.powers))


def step_orders(mv: Multiverse, time_travel: int, seed: int) -> tuple[dict[str, list[str]], int]:
    """Orders for every unit on every head: most move to a neighbour or hold; ``time_travel`` of them
    move into the previous turn of their own timeline or of a neighbouring timeline."""
    rng = random.Random(seed)
    m = mv.game_map
    orders: dict[str, list[str]] = {}
    candidates = []
    for head in mv.heads:
        tl = timeline_name(head.timeline)
        for unit in head.units.values():
            here = f"{unit.letter} {tl}-{m.short_name(unit.location)}@{head.turn}"
            steps = sorted(b for a, b in m.edges(unit.kind) if a == unit.location)
            if steps and rng.random() < 0.7:
                line = f"{here} - {tl}-{m.short_name(rng.choice(steps))}@{head.turn}"
            else:
                line = f"{here} H"
            orders.setdefault(unit.power, []).append(line)
            candidates.append((head, unit, here, steps))
    made = 0
    for head, unit, here, steps in rng.sample(candidates, min(time_travel, len(candidates))):
        parent = mv.forks.get(head.timeline, (head.timeline, 0))[0]
        target_tl = rng.choice([head.timeline, parent])
        if mv.board(target_tl, head.turn - 1) is None:
            target_tl = head.timeline
        dest = rng.choice(steps) if steps and rng.random() < 0.5 else unit.location
        line = f"{here} - {timeline_name(target_tl)}-{m.short_name(dest)}@{head.turn - 1}"
        lines = orders[unit.power]
        lines[:] = [x for x in lines if not x.startswith(here + " ")] + [line]
        made += 1
    return orders, made


_ORDER_LINE = re.compile(r"([AF]) (\w+)-(\S+)@(\d+)(?: - (\w+)-(\S+)@(\d+)| H)\Z")


def board_orders(orders: dict[str, list[str]]) -> dict[tuple[str, int], dict[str, list[str]]]:
    """``step_orders``'s lines as each head board's own orders in the standard notation, by head
    (timeline name, turn): a move to its own board stays a move, a time-travel order becomes a hold.
    This is what the reference can adjudicate of the step, one board at a time."""
    out: dict[tuple[str, int], dict[str, list[str]]] = {}
    for power, lines in orders.items():
        for line in lines:
            m = _ORDER_LINE.match(line)
            if m is None:
                raise ValueError(f"not a line step_orders writes: {line!r}")
            letter, tl, prov, turn, tl2, prov2, turn2 = m.groups()
            stays = tl2 is not None and (tl2, turn2) == (tl, turn)
            classic = f"{letter} {prov} - {prov2}" if stays else f"{letter} {prov} H"
            out.setdefault((tl, int(turn)), {}).setdefault(power, []).append(classic)
    return out


# -- game: the game file commands -------------------------------------------------------------------


def synthetic_game(steps: int, heads: int = 8):
    """A game file's content as long games have it: ``heads`` timelines with about ``4 * steps`` past
    boards (each with a record), and ``steps`` history entries of 34 orders each."""
    from ...game.state import Game

    mv = synthetic_multiverse(heads, 4 * steps)
    head = mv.heads[0]
    lines = [f"{u.letter} {timeline_name(head.timeline)}-{mv.game_map.short_name(u.location)}@{head.turn} H"
             for u in sorted(head.units.values(), key=lambda u: u.location)]
    entry = {"phase": "movement", "boards": [head.name],
             "orders": {"Germany": lines},
             "results": [{"power": "Germany", "order": line, "result": "succeeds"} for line in lines]}
    history = tuple({**entry, "results": [dict(r) for r in entry["results"]]} for _ in range(steps))
    return Game(mv, {}, history, {})


# -- big: many independent copies of one DATC position in one step -----------------------------------


def _copy_tag(k: int) -> str:
    """Three letters naming copy ``k`` (``aaa``, ``aab``, ...): province ids stay plain identifiers, and
    a copy's province is written like any other (``Lonaab``)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[k // 676 % 26] + letters[k // 26 % 26] + letters[k % 26]


def copied_map(base: GameMap, provinces: set[str], copies: int) -> GameMap:
    """A map made of ``copies`` disjoint copies of ``provinces`` of ``base``, each with the adjacency
    among them that ``base`` has (an edge leaving the set is dropped). Copy k's province ``lon`` is
    ``lon`` followed by k's tag (``lonaab``, named ``London aab``); powers and coasts are ``base``'s."""
    from dataclasses import replace as _replace

    from ...model.map import Province

    provs: dict[str, Province] = {}
    army: set[tuple[str, str]] = set()
    fleet: set[tuple[str, str]] = set()

    def moved(loc: str, tag: str) -> str:
        prov, slash, coast = loc.partition("/")
        return f"{prov}{tag}{slash}{coast}"

    for k in range(copies):
        tag = _copy_tag(k)
        for pid in sorted(provinces):
            p = base.provinces[pid]
            provs[pid + tag] = _replace(p, id=pid + tag, name=f"{p.name} {tag}", aliases=(), capital=False)
        for edges, out in ((base.army_edges, army), (base.fleet_edges, fleet)):
            out.update((moved(a, tag), moved(b, tag)) for a, b in edges
                       if a.split("/")[0] in provinces and b.split("/")[0] in provinces)
    return GameMap(name=f"{base.name}-x{copies}", title=f"{copies} copies of {len(provinces)} provinces of {base.name}",
                   powers=base.powers, provinces=MappingProxyType(provs), coast_names=base.coast_names,
                   army_edges=frozenset(army), fleet_edges=frozenset(fleet), start=MappingProxyType({}),
                   power_aliases=base.power_aliases, coast_aliases=base.coast_aliases, source="<copies>")


@dataclass(frozen=True)
class Position:
    """A one-board DATC position: units (``F Ankara``, by power) and orders (by power), in the
    standard map's names."""

    units: dict[str, tuple[str, ...]]
    orders: dict[str, tuple[str, ...]]


# The positions of the big benchmark, as the DATC (v3.1, chapter 6) writes them.
POSITIONS = {
    "6.C.1": Position(
        {"Turkey": ("F Ankara", "A Constantinople", "A Smyrna")},
        {"Turkey": ("F Ankara - Constantinople", "A Constantinople - Smyrna", "A Smyrna - Ankara")}),
    "6.F.16": Position(
        {"England": ("F London", "F Wales"), "France": ("A Brest", "F English Channel"),
         "Germany": ("F North Sea", "F Belgium")},
        {"England": ("F London Supports F Wales - English Channel", "F Wales - English Channel"),
         "France": ("A Brest - London", "F English Channel Convoys A Brest - London"),
         "Germany": ("F North Sea Supports F Belgium - English Channel", "F Belgium - English Channel")}),
    "6.F.18": Position(
        {"England": ("F North Sea", "A London", "F English Channel"), "France": ("F Belgium",),
         "Germany": ("F Helgoland Bight", "F Skagerrak")},
        {"England": ("F North Sea Convoys A London - Belgium", "A London - Belgium",
                     "F English Channel Supports A London - Belgium"),
         "France": ("F Belgium Supports F North Sea",),
         "Germany": ("F Helgoland Bight Supports F Skagerrak - North Sea", "F Skagerrak - North Sea")}),
}

# What the DATC (v3.1, chapter 6) says each order of a position gives: 6.C.1 "All three units will
# move"; 6.F.16 (Szykman rule) the support of London is not cut, the Channel not dislodged, "none of the
# units succeed to move", and the convoy of the paradox fails; 6.F.18 (Szykman rule) the convoy fails,
# so the move of London fails and the support of Belgium is not cut.
DATC_RESULTS = {
    "6.C.1": {"F Ankara - Constantinople": "succeeds", "A Constantinople - Smyrna": "succeeds",
              "A Smyrna - Ankara": "succeeds"},
    "6.F.16": {"F London Supports F Wales - English Channel": "succeeds", "F Wales - English Channel": "fails",
               "A Brest - London": "fails", "F English Channel Convoys A Brest - London": "fails",
               "F North Sea Supports F Belgium - English Channel": "succeeds", "F Belgium - English Channel": "fails"},
    "6.F.18": {"F North Sea Convoys A London - Belgium": "fails", "A London - Belgium": "fails",
               "F English Channel Supports A London - Belgium": "succeeds", "F Belgium Supports F North Sea": "succeeds",
               "F Helgoland Bight Supports F Skagerrak - North Sea": "succeeds", "F Skagerrak - North Sea": "fails"},
}


@lru_cache(maxsize=4)
def _names(base: GameMap):
    """A pattern matching the province names of ``base`` (longest first), and each name's province."""
    import re

    names = sorted({p.name for p in base.provinces.values()}, key=len, reverse=True)
    return (re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b"),
            {p.name: p.id for p in base.provinces.values()})


def _rename(text: str, base: GameMap, tag: str) -> str:
    """``text`` with every province name of ``base`` in it replaced by its copy's (``London`` → ``Lonaab``)."""
    pattern, by_name = _names(base)
    return pattern.sub(lambda m: (by_name[m[1]] + tag).capitalize(), text)


def copied_position(name: str, copies: int) -> tuple[Multiverse, dict[str, list[str]], list[dict[str, list[str]]]]:
    """``copies`` copies of the DATC position ``name`` side by side on one board of a map made for
    them (``copied_map``): the multiverse, every copy's orders together, and each copy's orders apart."""
    import re

    base = load_map("standard")
    pos = POSITIONS[name]
    by_name = {p.name: p.id for p in base.provinces.values()}
    used = {by_name[n] for lines in (*pos.units.values(), *pos.orders.values()) for line in lines
            for n in by_name if re.search(rf"\b{re.escape(n)}\b", line)}
    game_map = copied_map(base, used, copies)
    units: list[Unit] = []
    orders: dict[str, list[str]] = {}
    per_copy: list[dict[str, list[str]]] = []
    for k in range(copies):
        tag = _copy_tag(k)
        for power, lines in pos.units.items():
            for line in lines:
                letter, _, where = line.partition(" ")
                units.append(Unit("army" if letter == "A" else "fleet", power, by_name[where] + tag))
        mine = {power: [_rename(line, base, tag) for line in lines] for power, lines in pos.orders.items()}
        per_copy.append(mine)
        for power, lines in mine.items():
            orders.setdefault(power, []).extend(lines)
    board = make_board(0, 0, units, {})
    mv = Multiverse(game_map, MappingProxyType({(0, 0): board}), MappingProxyType({}), players=tuple(game_map.powers))
    return mv, orders, per_copy


def copies_as_datc(name: str, copies: int, outcomes) -> int:
    """How many of the copies got, order for order, the results the DATC states for the single case."""
    base = load_map("standard")
    got = {o.text: o.result for o in outcomes}
    return sum(1 for k in range(copies)
               if all(got.get(_rename(line, base, _copy_tag(k))) == want for line, want in DATC_RESULTS[name].items()))
