"""This engine's games as the community's client draws them, and that client's orders as this engine's
order lines (``fivedp serve --oliveriver``, docs/server.md "Their client").

That client knows a game as a ``World``: every board there ever was, keyed by timeline (from 1), year
and phase (Spring, Fall, and Winter for the adjustments between a Fall and the next Spring), each with
its centres and units keyed by region (``Spa_N`` for a coast), and every order ever given with its
status. This engine keeps boards by timeline (from 0) and turn, holds a board's retreats and
adjustments as phases on the board made by the battle, and keeps each step's results in the game's
history. The mapping, both ways:

- timeline ``t`` here is timeline ``t + 1`` there; turn ``n`` is year ``1901 + n // 2``, Spring when
  ``n`` is even, Fall when odd;
- the board a Fall battle made (an even turn ``n``) is drawn twice: first as the Winter board of year
  ``1901 + (n - 1) // 2`` with its units before the adjustments (then its adjustment orders are drawn
  there), then as its Spring board; while the adjustments wait, only as Winter;
- while retreats wait, the boards the last movement step made are not drawn (there, nothing advances
  before the retreats): the dislodged units are drawn on the board of the battle, marked to retreat,
  and their retreat orders are given and drawn there;
- results: ``succeeds``, ``fails``, ``invalid`` are ``Success``, ``Failure``, ``Invalid`` (with the
  ``Retreat`` prefix in a retreat step); orders waiting for adjudication are ``New`` (``RetreatNew``).

Nothing here reads or writes a database: the functions take a game and its private sets and return
plain values (``serve.oliveriver`` serves them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..model.kinds import Result, UnitKind
from ..engine.step import next_phase
from ..errors import InputError, NotationError, UsageError
from ..game.play import phase_problem, submit_orders
from ..game.state import Game
from ..game.table import Sealed
from ..model import orders as o
from ..model.map import GameMap
from ..model.multiverse import (ADJUSTMENT, MOVEMENT, RETREAT, Multiverse, Unit, board_name_readings)
from ..model.notation import parse_order, parse_timeline, timeline_name

NATIONS = ("England", "Germany", "Russia", "Turkey", "Austria", "Italy", "France")
SPRING, FALL, WINTER = "Spring", "Fall", "Winter"
PHASES = (SPRING, FALL, WINTER)
ORDER_TYPES = ("Hold", "Move", "Support", "Convoy", "Build", "Disband")
STATUSES = ("New", "Success", "Failure", "Invalid", "RetreatNew", "RetreatSuccess", "RetreatFailure",
            "RetreatInvalid")
UNIT_TYPES = {UnitKind.ARMY: "Army", UnitKind.FLEET: "Fleet"}
FIRST_YEAR = 1901
_RESULTS = {Result.SUCCEEDS: "Success", Result.FAILS: "Failure", Result.INVALID: "Invalid"}
# the places their client has no region for (the standard map's Switzerland, impassable)
_NO_REGION = frozenset({"swi"})

Key = tuple[int, int]


class OrderRefused(InputError):
    """One of the client's orders that cannot be given now; the others are taken."""


# -- regions -----------------------------------------------------------------------------------------


def region_id(m: GameMap, location: str) -> str | None:
    """A location of this engine (``spa/nc``, ``lyo``, ``par``) as their region id (``Spa_N``, ``LYO``,
    ``Par``): seas in capitals, other provinces capitalised, a coast as ``_`` and its first letter. None
    for a province their client has no region for."""
    prov, _, coast = location.partition("/")
    province = m.provinces.get(prov)
    if province is None or prov in _NO_REGION:
        return None
    base = prov.upper() if province.type == "sea" else prov.capitalize()
    return f"{base}_{coast[0].upper()}" if coast else base


def location_of(m: GameMap, region: object) -> str:
    """Their region id as this engine's location; OrderRefused for one that names no place of the map."""
    if not isinstance(region, str) or not 2 <= len(region) <= 8:
        raise OrderRefused(f"region: give a region id such as 'Par' or 'Spa_N', not {str(region)[:12]!r}")
    base, sep, coast = region.partition("_")
    prov = base.lower()
    province = m.provinces.get(prov)
    if province is None or prov in _NO_REGION:
        raise OrderRefused(f"region {region!r} is no region of the map")
    if not sep:
        return prov
    found = next((c for c in province.coasts if c[0] == coast.lower()), None) if len(coast) == 1 else None
    if found is None:
        raise OrderRefused(f"region {region!r}: {province.name} has no such coast")
    return f"{prov}/{found}"


# -- boards --------------------------------------------------------------------------------------------


def major_board(key: Key) -> tuple[int, int, str]:
    """Board (timeline, turn) as their (timeline, year, phase) of a movement board."""
    t, n = key
    return t + 1, FIRST_YEAR + n // 2, SPRING if n % 2 == 0 else FALL


def winter_board(key: Key) -> tuple[int, int, str]:
    """The Winter board drawn before board ``key`` (an even turn, made by a Fall battle)."""
    t, n = key
    return t + 1, FIRST_YEAR + (n - 1) // 2, WINTER


def board_key(timeline: int, year: int, phase: str) -> Key:
    """Their (timeline, year, phase) as this engine's board: a Winter board is the board the adjustments
    are made on, the next Spring's."""
    turn = 2 * (year - FIRST_YEAR) + {SPRING: 0, FALL: 1, WINTER: 2}[phase]
    return timeline - 1, turn


def battle_of(mv: Multiverse, key: Key) -> Key:
    """The board whose battle made board ``key``: a fork's first board was made by the board it forked
    from, any other by the board before it on its timeline."""
    t, n = key
    origin = mv.forks.get(t)
    if origin is not None and origin[1] + 1 == n:
        return origin
    return t, n - 1


def _made_by_last_movement(game: Game) -> frozenset[Key]:
    """The boards the last step made, when it was a movement step: those the client does not draw
    while their retreats wait."""
    if not game.history or game.history[-1].get("phase") != MOVEMENT:
        return frozenset()
    entry = game.history[-1]
    made: set[Key] = set()
    for name in entry.get("boards") or ():
        readings = board_name_readings(str(name))
        if readings:
            t, n = readings[0]
            made.add((t, n + 1))
    for tl, origin in (entry.get("new_timelines") or {}).items():
        readings = board_name_readings(str(origin))
        if readings:
            made.add((parse_timeline(str(tl)), readings[0][1] + 1))
    return frozenset(made)


@dataclass(frozen=True)
class Frame:
    """How the game stands for drawing: the phase it waits for, the boards not drawn (those a movement
    step made while their retreats wait), and for each retreat board the board of its battle."""

    phase: str
    hidden: frozenset[Key]
    battles: Mapping[Key, Key]  # retreat board -> board of the battle, while retreats wait

    @property
    def retreat_boards(self) -> Mapping[Key, Key]:
        """Board of a battle -> the board its retreats wait on."""
        return {x: p for p, x in self.battles.items()}


def frame_of(game: Game) -> Frame:
    mv = game.mv
    phase = next_phase(mv)
    if phase != RETREAT:
        return Frame(phase, frozenset(), {})
    battles = {b.key: battle_of(mv, b.key) for b in mv.heads if b.retreats}
    return Frame(phase, _made_by_last_movement(game), battles)


def _location(m: GameMap, board: tuple[int, int, str], location: str) -> dict | None:
    region = region_id(m, location)
    if region is None:
        return None
    t, year, phase = board
    return {"timeline": t, "year": year, "phase": phase, "region": region}


def _unit(u: Unit, must_retreat: bool = False) -> dict:
    return {"owner": u.power, "type": UNIT_TYPES[u.kind], "mustRetreat": must_retreat}


def _board(m: GameMap, board: tuple[int, int, str], units: Iterable[Unit], centers: Mapping[str, str],
           children: Sequence[int] = (), retreating: Iterable[Unit] = ()) -> dict:
    drawn: dict[str, dict] = {}
    for u in units:
        region = region_id(m, u.location)
        if region is not None:
            drawn[region] = _unit(u)
    for u in retreating:
        region = region_id(m, u.location)
        if region is not None:
            drawn[region] = _unit(u, must_retreat=True)
    t, year, phase = board
    return {"timeline": t, "year": year, "phase": phase, "childTimelines": list(children),
            "centres": {r: p for r, p in ((region_id(m, c), p) for c, p in sorted(centers.items())) if r},
            "units": drawn}


def boards(game: Game, frame: Frame, winters: Mapping[str, Sequence[Unit]]) -> list[dict]:
    """Every board as the client draws it, sorted by timeline, then time (the client lays out its rows
    and columns in the order boards first name them). ``winters``: by board name, the units a board
    had before its adjustments, for the boards adjusted already."""
    mv = game.mv
    m = mv.game_map
    root = min(mv.boards) if mv.boards else None
    retreating: dict[Key, list[Unit]] = {}
    for p, x in frame.battles.items():
        retreating.setdefault(x, []).extend(r.unit for r in mv.boards[p].retreats)
    children: dict[Key, list[int]] = {}
    for t, origin in sorted(mv.forks.items()):
        if (t, origin[1] + 1) not in frame.hidden:
            children.setdefault(tuple(origin), []).append(t + 1)
    out = []
    for key in sorted(mv.boards):
        if key in frame.hidden:
            continue
        b = mv.boards[key]
        t, n = key
        if b.adjustment_due:
            out.append(_board(m, winter_board(key), b.units.values(), b.centers))
            continue
        if n % 2 == 0 and key != root and n > 0:
            before = winters.get(b.name)
            out.append(_board(m, winter_board(key), b.units.values() if before is None else before, b.centers))
        flagged = {u.province for u in retreating.get(key, ())}
        units = [u for u in b.units.values() if u.province not in flagged]
        out.append(_board(m, major_board(key), units, b.centers, children.get(key, ()), retreating.get(key, ())))
    order = {SPRING: 0, FALL: 1, WINTER: 2}
    return sorted(out, key=lambda d: (d["timeline"], d["year"], order[d["phase"]]))


# -- orders out ----------------------------------------------------------------------------------------


def _status(phase: str, result: str) -> str:
    status = _RESULTS[result]
    return f"Retreat{status}" if phase == RETREAT else status


class _Drawing:
    """Orders of one step (or the orders waiting) drawn where the client draws them."""

    def __init__(self, game: Game, phase: str, winters: Mapping[str, Sequence[Unit]]):
        self.mv = game.mv
        self.m = game.mv.game_map
        self.phase = phase
        self.winters = winters

    def board(self, key: Key) -> tuple[int, int, str]:
        if self.phase == RETREAT:
            return major_board(battle_of(self.mv, key))
        if self.phase == ADJUSTMENT:
            return winter_board(key)
        return major_board(key)

    def place(self, where: o.Where, own: Key, *, standing: bool = False) -> dict | None:
        """A place an order names besides its unit's. In a retreat step the places of the retreat
        board are drawn on the board of the battle; ``standing``: the place of a unit the order
        supports or convoys, drawn where that unit stands (its coast)."""
        if where.timeline is None or where.turn is None:
            return None
        key = (where.timeline, where.turn)
        board = self.board(key) if key == own else major_board(key)
        location = where.province + (f"/{where.coast}" if where.coast else "")
        unit = self._unit_at(key, where.province) if standing else None
        return _location(self.m, board, unit.location if unit is not None else location)

    def _unit_at(self, key: Key, province: str) -> Unit | None:
        """The unit standing at a place as the client draws it: on a past board, the board's own; a
        retreating unit on the board of its battle; before an adjustment, the board as it was."""
        b = self.mv.boards.get(key)
        if b is None:
            return None
        if self.phase == RETREAT:
            x = self.mv.boards.get(battle_of(self.mv, key))
            found = x.units.get(province) if x is not None else None
            if found is None:
                found = next((r.unit for r in b.retreats if r.unit.province == province), None)
            return found
        if self.phase == ADJUSTMENT:
            before = self.winters.get(b.name)
            if before is not None:
                return next((u for u in before if u.province == province), None)
        return b.units.get(province)

    def order(self, power: str, order: o.Order, status: str) -> dict | None:
        """One order as the client's ``Order``; None for an order the client has no kind for (a waive,
        an open convoy, a jump assist, a sustain vote) or that names no place it can draw."""
        spec = getattr(order, "unit", None)
        if not isinstance(spec, o.UnitSpec) or spec.where.timeline is None or spec.where.turn is None:
            return None
        own = (spec.where.timeline, spec.where.turn)
        if isinstance(order, o.Build):
            kind = spec.kind or UnitKind.ARMY
            location = spec.where.province + (f"/{spec.where.coast}" if spec.where.coast and kind == UnitKind.FLEET else "")
            unit: dict = {"owner": power, "type": UNIT_TYPES[kind], "mustRetreat": False}
        else:
            standing = self._unit_at(own, spec.where.province)
            if standing is None:
                return None
            location = standing.location
            unit = _unit(standing, must_retreat=status == "RetreatNew")
        here = _location(self.m, self.board(own), location)
        if here is None:
            return None
        drawn: dict[str, Any] = {"status": status, "unit": unit, "location": here}
        if isinstance(order, o.Hold):
            return {"$type": "Hold", **drawn}
        if isinstance(order, o.Build):
            return {"$type": "Build", **drawn}
        if isinstance(order, o.Disband):
            return {"$type": "Disband", **drawn}
        if isinstance(order, o.Move):
            dest = self.place(order.dest, own)
            return None if dest is None else {"$type": "Move", **drawn, "destination": dest}
        if isinstance(order, (o.SupportHold, o.SupportMove)):
            target = self.place(order.target.where, own, standing=True)
            dest = target if isinstance(order, o.SupportHold) else self.place(order.dest, own)
            if target is None or dest is None:
                return None
            return {"$type": "Support", **drawn, "supportLocation": target, "destination": dest}
        if isinstance(order, o.Convoy):
            target, dest = self.place(order.target.where, own, standing=True), self.place(order.dest, own)
            if target is None or dest is None:
                return None
            return {"$type": "Convoy", **drawn, "convoyLocation": target, "destination": dest}
        return None


def history_orders(game: Game, winters: Mapping[str, Sequence[Unit]]) -> list[dict]:
    """Every order of every step with its result, in the order they were given."""
    m = game.mv.game_map
    out: list[dict] = []
    for entry in game.history:
        phase = entry.get("phase")
        if phase not in (MOVEMENT, RETREAT, ADJUSTMENT):
            continue
        drawing = _Drawing(game, phase, winters)
        for r in entry.get("results") or ():
            qualified, result = r.get("qualified"), r.get("result")
            if not qualified or result not in _RESULTS:
                continue
            try:
                order = parse_order(str(qualified), m)
            except NotationError:
                continue
            drawn = drawing.order(str(r.get("power")), order, _status(phase, result))
            if drawn is not None:
                out.append(drawn)
    return out


def waiting_orders(game: Game, sealed: Sealed, powers: Iterable[str]) -> list[dict]:
    """The orders these powers have submitted for the phase the game waits for (``New``)."""
    m = game.mv.game_map
    phase = next_phase(game.mv)
    drawing = _Drawing(game, phase, {})
    status = "RetreatNew" if phase == RETREAT else "New"
    out = []
    for power in powers:
        for line in sealed.orders.get(power, ()):
            try:
                order = parse_order(line, m)
            except NotationError:
                continue
            drawn = drawing.order(power, order, status)
            if drawn is not None:
                out.append(drawn)
    return out


def world(game: Game, sealed: Sealed, viewers: Iterable[str], winters: Mapping[str, Sequence[Unit]]) -> dict:
    """The client's ``World``: ``iteration`` (the steps adjudicated), every board, every order with its
    status (the waiting ones of ``viewers`` only), and the winner."""
    if not isinstance(game, Game) or not isinstance(sealed, Sealed):
        raise UsageError("world: give a Game and its Sealed sets")
    frame = frame_of(game)
    return {"iteration": len(game.history), "boards": boards(game, frame, winters),
            "orders": history_orders(game, winters) + waiting_orders(game, sealed, sorted(set(viewers))),
            "winner": game.mv.winner}


# -- orders in -----------------------------------------------------------------------------------------


def _int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OrderRefused(f"{what}: give a whole number from {low} to {high}")
    return value


@dataclass(frozen=True)
class Given:
    """One of the client's orders as an order line of this engine, and whose it is."""

    index: int
    power: str
    line: str


class _Reading:
    """The client's orders read against the game as it waits for its next phase."""

    def __init__(self, game: Game):
        self.game = game
        self.mv = game.mv
        self.m = game.mv.game_map
        self.phase = next_phase(self.mv)
        self.retreat_boards = frame_of(game).retreat_boards

    def board(self, raw: object, what: str, *, winter: bool = False) -> tuple[Key, str]:
        """A location's board and place; ``winter``: the location may be on a Winter board (a build's
        or a disband's own)."""
        if not isinstance(raw, Mapping):
            raise OrderRefused(f"{what}: give a location {{timeline, year, phase, region}}")
        timeline = _int(raw.get("timeline"), f"{what}.timeline", 1, 10_000)
        year = _int(raw.get("year"), f"{what}.year", FIRST_YEAR, FIRST_YEAR + 5_000)
        phase = raw.get("phase")
        if phase not in PHASES:
            raise OrderRefused(f"{what}.phase: give Spring, Fall or Winter")
        if phase == WINTER and not winter:
            raise OrderRefused(f"{what}: a Winter board takes builds and disbands only; nothing moves to or on it")
        key = board_key(timeline, year, phase)
        # a retreat is given on the board of the battle: it is made on the board the battle made
        if self.phase == RETREAT and phase != WINTER and key in self.retreat_boards:
            key = self.retreat_boards[key]
        return key, location_of(self.m, raw.get("region"))

    def place(self, raw: object, what: str, *, winter: bool = False) -> str:
        (t, n), location = self.board(raw, what, winter=winter)
        return f"{timeline_name(t)}-{self.m.short_name(location)}@{n}"

    def line(self, raw: Mapping) -> tuple[str, str]:
        kind = raw.get("$type")
        if kind not in ORDER_TYPES:
            raise OrderRefused(f"$type: give one of {', '.join(ORDER_TYPES)}")
        unit = raw.get("unit")
        if not isinstance(unit, Mapping) or unit.get("owner") not in NATIONS or \
                unit.get("type") not in ("Army", "Fleet"):
            raise OrderRefused("unit: give {owner: a nation, type: Army or Fleet}")
        power = str(unit["owner"])
        letter = "A" if unit["type"] == "Army" else "F"
        here = self.place(raw.get("location"), "location", winter=kind in ("Build", "Disband"))
        for field in {"Move": ("destination",), "Support": ("supportLocation", "destination"),
                      "Convoy": ("convoyLocation", "destination")}.get(kind, ()):
            if raw.get(field) is None:
                raise OrderRefused(f"a {kind.lower()} order needs its {field}")
        if kind == "Hold":
            return power, f"{letter} {here} H"
        if kind == "Move":
            return power, f"{letter} {here} - {self.place(raw['destination'], 'destination')}"
        if kind == "Support":
            target = self.place(raw["supportLocation"], "supportLocation")
            dest = self.place(raw["destination"], "destination")
            if _same_province(target, dest):
                return power, f"{letter} {here} S {target}"
            return power, f"{letter} {here} S {target} - {dest}"
        if kind == "Convoy":
            target = self.place(raw["convoyLocation"], "convoyLocation")
            return power, f"{letter} {here} C A {target} - {self.place(raw['destination'], 'destination')}"
        if kind == "Build":
            return power, f"Build {letter} {here}"
        return power, f"{letter} {here} D"


def _same_province(a: str, b: str) -> bool:
    """Two places written by ``_Reading.place`` name one province of one board (coasts aside)."""
    def bare(p: str) -> str:
        head, _, turn = p.rpartition("@")
        return head.split("/", 1)[0] + "@" + turn
    return bare(a) == bare(b)


def order_lines(game: Game, orders: Sequence[object], players: Iterable[str]) -> tuple[list[Given], list[dict]]:
    """The client's orders as order lines of this engine, each with its power: those the powers of
    ``players`` may give in the phase the game waits for, and the others refused, each with its index
    in ``orders`` and why (an order for a power not submitting, an order of another phase: an
    adjustment while movement waits, a movement order for a board that is not adjusting while the
    adjustments wait)."""
    if not isinstance(game, Game):
        raise UsageError(f"order_lines needs a Game, not {type(game).__name__}")
    reading = _Reading(game)
    allowed = set(players)
    taken: list[Given] = []
    refused: list[dict] = []
    for i, raw in enumerate(orders):
        try:
            if not isinstance(raw, Mapping):
                raise OrderRefused("give each order as an object with $type, status, unit and location")
            power, line = reading.line(raw)
            if power not in allowed:
                raise OrderRefused(f"an order for {power}'s unit, in a submission for {', '.join(sorted(allowed))}")
            problem = phase_problem(game.mv, line, parse_order(line, game.mv.game_map), power)
            if problem:
                raise OrderRefused(problem)
            taken.append(Given(i, power, line))
        except (OrderRefused, NotationError) as exc:
            refused.append({"index": i, "reason": str(exc)})
    return taken, refused


def order_sets(game: Game, given: Sequence[Given], powers: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each submitting power's set of lines as ``game orders`` takes them (a later line for a unit
    replaces an earlier one); a power without a line has submitted an empty set (its units hold)."""
    out: dict[str, tuple[str, ...]] = {}
    for power in powers:
        lines = [g.line for g in given if g.power == power]
        sub = submit_orders(Game(game.mv, {}, game.history, game.start), power, lines, replace_all=True)
        out[power] = tuple(sub.game.pending.get(power, ()))
    return out
