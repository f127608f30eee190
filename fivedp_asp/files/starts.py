"""A start of several boards (``start.boards`` and ``start.forks``, docs/case-format.md): every board
of a multiverse written out — a head with its units, centres and the phase it waits for, a past board
with the orders recorded on it and their results — and the board each later timeline forked from.

The boards are taken as written: a position no game could reach is a position all the same. What is
checked is what makes a multiverse at all (docs/rules.md §6): timelines lettered in the order they were
made, each a run of consecutive turns from its first board, each but the first forked from a past board
of an older one and begun the turn after it; a phase only on a head, recorded orders only on a past
board, each for a unit of its power standing there, naming boards that exist; recorded results that
agree with each other (a hold fails exactly when its unit is dislodged, one unit at most arrives in a
province). A past board's record — the decisions a later step holds it to, and compares a battle fought
again with (docs/rules.md §6.4) — is derived from those results, as the movement step writes it
(``engine/movement._records``): every timeline advances one board per movement step, so two past boards
were fought in the same step when each is as many boards behind its timeline's head as the other.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, Mapping

from ..model.kinds import Result, UnitKind
from ..errors import InputError, NotationError, quoted
from ..model.map import GameMap
from ..model.multiverse import (ADJUSTMENT, MOVEMENT, PHASES, RETREAT, Board, Multiverse, Record, board_name,
                                board_name_readings, make_board)
from ..model.notation import parse_order, parse_timeline, timeline_name
from ..model.orders import OrderKind, ResolvedOrder
from ..model.settings import Settings
from ..engine.resolve import resolve, resolved_text
from .positions import ScenarioError, _centres, _dislodged, _key_line, _line, _mapping, _power, _start, _units

MULTI_KEYS = ("boards", "forks")
BOARD_KEYS = ("units", "centers", "phase", "dislodged", "orders")
RECORDED_RESULTS = (Result.SUCCEEDS, Result.FAILS)
_RECORDABLE = (OrderKind.HOLD, OrderKind.MOVE, OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.CONVOY)

Key = tuple[int, int]
Place3 = tuple[int, int, str]


def read_start(data: dict, game_map: GameMap, settings: Settings, path: str) -> Multiverse:
    """The multiverse a scenario document's ``start`` describes — one board (``start.turn``,
    ``units``, …) or several (``start.boards``) — checked as ``read_scenario`` checks it (a
    ScenarioError naming the line): a game's recorded start is read so when the game is replayed."""
    if not isinstance(settings, Settings):
        raise TypeError(f"read_start: settings must be a Settings, not {type(settings).__name__}")
    start = data.get("start")
    if isinstance(start, Mapping) and "boards" in start:
        return read_boards_start(start, game_map, settings, path)
    return _start(data, game_map, settings, path)


def read_boards_start(start: Mapping, game_map: GameMap, settings: Settings, path: str) -> Multiverse:
    """The multiverse ``start.boards`` and ``start.forks`` describe, every problem a ScenarioError
    naming the line."""
    for key in start:
        if str(key) not in MULTI_KEYS:
            raise ScenarioError(path, _line(key), f"start.{key} cannot be given beside start.boards: with 'boards' "
                                                  f"every board is written under it, the first one too (its "
                                                  f"{key} there), so that no unit stands on two boards at once")
    written = _mapping(start["boards"], "start.boards", path, _key_line(start, "boards"))
    if not written:
        raise ScenarioError(path, _key_line(start, "boards"), "start.boards names no board")
    raws: dict[Key, tuple[Any, Mapping]] = {}
    for name, raw in written.items():
        readings = board_name_readings(str(name))
        if not readings:
            raise ScenarioError(path, _line(name), f"board name {str(name)!r} must be a timeline and a turn, "
                                                   "like a1, b3 or b1@0")
        key = readings[0]
        if key in raws:
            raise ScenarioError(path, _line(name), f"board {board_name(*key)} is written twice "
                                                   f"({raws[key][0]} and {name})")
        raws[key] = (name, _mapping(raw, f"board {name}", path, _line(name)))
    latest = _timelines(raws, path)
    forks = _forks(start, raws, latest, path)
    boards: dict[Key, Board] = {}
    for key, (name, raw) in sorted(raws.items()):
        boards[key] = _board(key, name, raw, latest, game_map, path)
    players = set()
    for b in boards.values():
        players |= {u.power for u in b.units.values()} | set(b.centers.values()) | {r.unit.power for r in b.retreats}
    mv = Multiverse(game_map, MappingProxyType(dict(boards)), MappingProxyType(forks), settings,
                    players=tuple(p for p in game_map.powers if p in players))
    records = _records(mv, raws, latest, path)
    return mv.with_boards([replace(mv.boards[k], record=r) for k, r in records.items()])


def _timelines(raws: Mapping[Key, tuple[Any, Mapping]], path: str) -> dict[int, int]:
    """Each timeline's latest turn, once timelines and turns are checked to leave no gap."""
    turns: dict[int, list[int]] = {}
    for tl, turn in raws:
        turns.setdefault(tl, []).append(turn)
    for expected, tl in enumerate(sorted(turns)):
        if tl != expected:
            name = raws[min(k for k in raws if k[0] == tl)][0]
            raise ScenarioError(path, _line(name), f"board {name}: timeline {timeline_name(tl)} has boards but "
                                                   f"timeline {timeline_name(expected)} has none: timelines are "
                                                   "lettered in the order they were made (a, b, c, …)")
        ns = sorted(turns[tl])
        gap = next((n + 1 for n, after in zip(ns, ns[1:]) if after != n + 1), None)
        if gap is not None:
            name = raws[(tl, ns[-1])][0]
            raise ScenarioError(path, _line(name), f"timeline {timeline_name(tl)} has boards {board_name(tl, ns[0])} "
                                                   f"to {board_name(tl, ns[-1])} but no {board_name(tl, gap)}: a "
                                                   "timeline's boards follow each other turn by turn")
    return {tl: max(ns) for tl, ns in turns.items()}


def _forks(start: Mapping, raws: Mapping[Key, tuple[Any, Mapping]], latest: Mapping[int, int],
           path: str) -> dict[int, Key]:
    """Timeline -> the board it forked from, each checked against the boards written."""
    forks: dict[int, Key] = {}
    written = _mapping(start.get("forks"), "start.forks", path, _key_line(start, "forks"))
    for tl_text, parent_text in written.items():
        at = _line(parent_text) or _line(tl_text)
        try:
            tl = parse_timeline(str(tl_text))
        except (NotationError, ValueError):
            raise ScenarioError(path, _line(tl_text), f"start.forks: {str(tl_text)!r} is no timeline (a, b, …)") from None
        readings = board_name_readings(str(parent_text))
        if not readings:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} forks from "
                                          f"{str(parent_text)!r}, which is no board name (like a1)")
        parent = next((k for k in readings if k in raws), readings[0])
        name = board_name(*parent)
        if tl in forks:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} is given twice")
        if tl not in latest:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} has no board in start.boards")
        if tl == 0:
            raise ScenarioError(path, at, "start.forks: timeline a is the first timeline: it forks from nothing")
        if parent not in raws:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} forks from {name}, "
                                          "which is no board of start.boards")
        if parent[0] >= tl:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} forks from {name}, a board "
                                          "of a timeline made after it")
        if parent[1] == latest[parent[0]]:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} forks from {name}, the head "
                                          f"of timeline {timeline_name(parent[0])}: a timeline forks from a past "
                                          "board, fought again (docs/rules.md §6.5)")
        first = min(n for t, n in raws if t == tl)
        if first != parent[1] + 1:
            raise ScenarioError(path, at, f"start.forks: timeline {timeline_name(tl)} forks from {name}, so its "
                                          f"first board is {board_name(tl, parent[1] + 1)}, but start.boards begins it "
                                          f"at {board_name(tl, first)}")
        forks[tl] = parent
    for tl in sorted(latest):
        if tl and tl not in forks:
            name = raws[min(k for k in raws if k[0] == tl)][0]
            raise ScenarioError(path, _line(name) or _key_line(start, "boards"),
                                f"timeline {timeline_name(tl)} forks from no board: say which in start.forks "
                                f"({{{timeline_name(tl)}: {board_name(0, max(0, min(n for t, n in raws if t == tl) - 1))}}})")
    return forks


def _board(key: Key, name: Any, raw: Mapping, latest: Mapping[int, int], game_map: GameMap, path: str) -> Board:
    """One board without its record: its units and centres, and for a head its phase."""
    for k in raw:
        if str(k) not in BOARD_KEYS:
            raise ScenarioError(path, _line(k), f"unknown key {str(k)!r} in board {name} (known: {', '.join(BOARD_KEYS)})")
    head = key[1] == latest[key[0]]
    where = f"board {name}"
    if "units" not in raw:
        raise ScenarioError(path, _line(name), f"{where} needs 'units' (write '{{}}' for a board without units)")
    if "phase" in raw and not head:
        raise ScenarioError(path, _key_line(raw, "phase"),
                            f"{where} is a past board (timeline {timeline_name(key[0])}'s head is "
                            f"{board_name(key[0], latest[key[0]])}): only a head waits for a phase")
    if "orders" in raw and head:
        raise ScenarioError(path, _key_line(raw, "orders"),
                            f"{where} is timeline {timeline_name(key[0])}'s head: orders are recorded on past boards "
                            "only (a head's orders are given in a step)")
    phase = str(raw.get("phase", MOVEMENT))
    if phase not in PHASES:
        raise ScenarioError(path, _line(raw.get("phase")) or _key_line(raw, "phase"),
                            f"{where}: phase must be one of {', '.join(PHASES)}")
    if phase == ADJUSTMENT and (key[1] % 2 or key[1] == 0):
        raise ScenarioError(path, _key_line(raw, "phase"),
                            f"{where} cannot wait for adjustments: they come after a Fall battle, before a Spring "
                            "board's movement (an even turn from 2)")
    units = _units(raw["units"], game_map, path, _key_line(raw, "units"), on=(key, str(name)))
    centers = _centres(raw["centers"], game_map, path, _key_line(raw, "centers")) if "centers" in raw else \
        {p.id: p.home for p in game_map.provinces.values() if p.center and p.home}
    retreats = ()
    if "dislodged" in raw:
        if phase != RETREAT:
            raise ScenarioError(path, _key_line(raw, "dislodged"), f"{where}: dislodged needs phase: retreat")
        retreats = _dislodged(raw["dislodged"], game_map, path, _key_line(raw, "dislodged"), on=(key, str(name)))
    elif phase == RETREAT:
        raise ScenarioError(path, _key_line(raw, "phase"), f"{where}: phase retreat needs the units that retreat "
                                                           "(dislodged)")
    return make_board(key[0], key[1], units, centers, retreats=tuple(retreats), adjustment_due=phase == ADJUSTMENT)


# -- records -------------------------------------------------------------------------------------


def _recorded_orders(mv: Multiverse, key: Key, name: Any, raw: Mapping,
                     path: str) -> list[tuple[ResolvedOrder, bool, Any]]:
    """A past board's recorded orders, each fully designated, with whether it succeeded and its line."""
    m = mv.game_map
    board = mv.boards[key]
    out: list[tuple[ResolvedOrder, bool, Any]] = []
    ordered: dict[str, Any] = {}
    for power_text, lines in _mapping(raw.get("orders"), f"orders of board {name}", path,
                                      _key_line(raw, "orders")).items():
        power = _power(power_text, m, path)
        if isinstance(lines, (list, tuple)):
            raise ScenarioError(path, _line(power_text), f"board {name}: the recorded orders of {power} are written "
                                                         "each with its result, as a mapping: "
                                                         "{A Munich - Ruhr: succeeds}")
        for text, result in _mapping(lines, f"orders of {power} on board {name}", path, _line(power_text)).items():
            at = _line(text) or _line(power_text)
            said = f"board {name}: recorded order {quoted(str(text))}"
            if str(result) not in RECORDED_RESULTS:
                raise ScenarioError(path, at, f"{said}: its result must be succeeds or fails (an order that was "
                                              "invalid is not recorded: leave it out)")
            try:
                order = parse_order(str(text), m)
            except NotationError as exc:
                raise ScenarioError(path, at, f"{said}: {exc.problem}") from None
            spec = getattr(order, "unit", None)
            if spec is None:
                raise ScenarioError(path, at, f"{said}: a start records holds, moves, supports and convoys only")
            w = spec.where
            if (w.timeline is not None and w.timeline != key[0]) or (w.turn is not None and w.turn != key[1]):
                raise ScenarioError(path, at, f"{said} orders a unit of another board: a board records the orders "
                                              "of its own units")
            order = replace(order, unit=replace(spec, where=replace(w, timeline=key[0], turn=key[1])))
            try:
                r = resolve(order, power, str(text), mv)
                full = resolved_text(r, m)
                r = resolve(parse_order(full, m), power, full, mv)
            except (InputError, NotationError) as exc:
                raise ScenarioError(path, at, f"{said}: {exc}") from None
            if r.kind not in _RECORDABLE:
                raise ScenarioError(path, at, f"{said}: a start records holds, moves, supports and convoys only")
            unit = board.units.get(r.unit.province)
            if unit is None or unit.power != power:
                raise ScenarioError(path, at, f"{said}: {power} has no unit in "
                                              f"{m.provinces[r.unit.province].name} there")
            if r.unit.province in ordered:
                raise ScenarioError(path, at, f"{said}: the unit in {m.provinces[r.unit.province].name} already has "
                                              f"the recorded order {quoted(str(ordered[r.unit.province]))}")
            ordered[r.unit.province] = text
            for p in (r.target, r.dest):
                if p is not None and p.board not in mv.boards:
                    raise ScenarioError(path, at, f"{said} names board {board_name(*p.board)}, which is no board "
                                                  "of start.boards")
            if r.target is not None and r.target.province not in mv.boards[r.target.board].units:
                raise ScenarioError(path, at, f"{said} names a unit in {m.provinces[r.target.province].name} on "
                                              f"{board_name(*r.target.board)}, where there is none")
            out.append((r, str(result) == Result.SUCCEEDS, text))
    return out


def _records(mv: Multiverse, raws: Mapping[Key, tuple[Any, Mapping]], latest: Mapping[int, int],
             path: str) -> dict[Key, Record]:
    """The record of every past board, derived from the recorded results: the decisions a movement
    step writes (``moves``, ``dislodged``, ``given``, ``path``), each on the board that owns it and,
    for a move into another board fought in the same step, on that board too, with the unit among
    the units that acted on it."""
    m = mv.game_map
    past = [k for k in sorted(raws) if k[1] != latest[k[0]]]
    behind = {k: latest[k[0]] - k[1] for k in past}  # boards as far behind their heads were fought together
    recorded = {k: _recorded_orders(mv, k, raws[k][0], raws[k][1], path) for k in past}
    decisions: dict[Key, dict] = {k: {} for k in past}
    incoming: dict[Key, set[Place3]] = {k: set() for k in past}
    into: dict[Place3, list[tuple[Place3, bool, Any]]] = {}
    convoyed_ok: dict[Place3, bool] = {}
    convoyed_by: dict[Place3, set[str]] = {}  # the powers whose fleets were ordered to convoy the army

    def together(a: Key, b: Key) -> bool:
        return b in behind and behind[b] == behind[a]

    order_at = {(*k, r.unit.province): r for k in past for r, _, _ in recorded[k]}
    for key in past:
        for r, ok, _text in recorded[key]:
            if r.kind is OrderKind.CONVOY:
                at = (*r.target.board, r.target.province)
                convoyed_ok[at] = convoyed_ok.get(at, False) or ok
                convoyed_by.setdefault(at, set()).add(r.power)
    for key in past:
        for r, ok, text in recorded[key]:
            place = (*key, r.unit.province)
            if r.kind is OrderKind.MOVE:
                dest = r.dest.board
                decisions[key][("moves", place)] = ok
                if dest != key and together(key, dest):
                    decisions[dest][("moves", place)] = ok
                    incoming[dest].add(place)
                if dest == key or together(key, dest):
                    into.setdefault((*dest, r.dest.province), []).append((place, ok, text))
                # an army goes by convoy when it cannot step there, when its order says so, or when a
                # fleet of its own power convoys it (asp/movement/orders.lp, convoyed/1): its path is a
                # decision, true when a convoy of it succeeded
                unit = mv.boards[key].units[r.unit.province]
                step = r.dest.province == unit.province or (unit.location, r.dest.province) in m.edges(UnitKind.ARMY)
                if unit.kind == UnitKind.ARMY and (not step or r.via_convoy or unit.power in convoyed_by.get(place, ())):
                    decisions[key][("path", place)] = convoyed_ok.get(place, False)
            elif r.kind in (OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE):
                # only a support that matches what its unit did is given or cut (docs/rules.md §3.3)
                if _matches(r, order_at.get((*r.target.board, r.target.province))):
                    decisions[key][("given", place)] = ok
                elif ok:
                    raise ScenarioError(path, _line(text), f"board {raws[key][0]}: the recorded support "
                                                           f"{quoted(str(text))} succeeds, but it does not match "
                                                           "what the supported unit did: such a support fails")
                target = (r.dest or r.target).board
                if target != key and together(key, target):
                    incoming[target].add(place)
    for (tl, turn, _prov), attacks in sorted(into.items()):
        arrived = [text for _, ok, text in attacks if ok]
        if len(arrived) > 1:
            raise ScenarioError(path, _line(arrived[1]), f"board {raws[(tl, turn)][0]}: the recorded moves "
                                                         f"{quoted(str(arrived[0]))} and {quoted(str(arrived[1]))} "
                                                         "both succeed: one unit at most arrives in a province")
    for key in past:
        name = raws[key][0]
        orders = {r.unit.province: (r, ok, text) for r, ok, text in recorded[key]}
        for prov in mv.boards[key].units:
            place = (*key, prov)
            attacks = into.get(place, [])
            arrived = [text for _, ok, text in attacks if ok]
            dislodged = bool(arrived) and not decisions[key].get(("moves", place), False)
            if attacks:
                decisions[key][("dislodged", place)] = dislodged
            own = orders.get(prov)
            if own is not None and own[0].kind is OrderKind.HOLD and own[1] == dislodged:
                raise ScenarioError(path, _line(own[2]), f"board {name}: the recorded hold {quoted(str(own[2]))} "
                                                         f"{'succeeds' if own[1] else 'fails'}, but the recorded "
                                                         f"moves into {m.provinces[prov].name} "
                                                         f"{'dislodge' if dislodged else 'do not dislodge'} it: a "
                                                         "hold fails exactly when its unit is dislodged")
    return {k: Record(tuple(r for r, _, _ in recorded[k]), tuple(sorted(incoming[k])),
                      MappingProxyType(decisions[k])) for k in past}


def _matches(support: ResolvedOrder, supported: ResolvedOrder | None) -> bool:
    """Whether a support matches the recorded order of the unit it names: a support to hold one
    that did not move, a support of a move the very move (destination province and board)."""
    moved = supported is not None and supported.kind is OrderKind.MOVE
    if support.kind is OrderKind.SUPPORT_HOLD:
        return not moved
    return moved and supported.dest.board == support.dest.board and supported.dest.province == support.dest.province
