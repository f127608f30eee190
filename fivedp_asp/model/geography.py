"""Geography questions the comparison asks of a map: neighbours, convoy routes, retreat options.

Everything here reads :class:`fivedp_asp.model.map.GameMap` only; the engine's rules are not consulted.
These answers drive the random order generator and the classification of disagreements, so they
follow the same definitions as docs/rules.md (a convoy chain runs through fleets in sea provinces, from a
sea touching the army's province to a sea touching the destination). The map geography itself
(neighbours, the seas next to a coast, the shore of a sea, chains of seas) is the map's, shared with
the engine's candidate orders (``engine/possible.py``); what is here is what only the comparison asks:
shortest convoy routes, retreat options under a reference's reading, distances for civil disorder.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

from .kinds import UnitKind
from .map import GameMap
from .multiverse import Board, Retreat


class Geography:
    """The comparison's questions about one map, at location level (``spa/nc``) and province level."""

    def __init__(self, game_map: GameMap):
        self.map = game_map

    def steps(self, kind: str, location: str) -> tuple[str, ...]:
        """The locations a unit of this kind at ``location`` can move to without a convoy."""
        return self.map.neighbours.get((kind, location), ())

    def step_provinces(self, kind: str, location: str) -> tuple[str, ...]:
        return tuple(sorted({self.map.province_of(loc) for loc in self.steps(kind, location)}))

    def can_reach(self, kind: str, location: str, province: str) -> bool:
        """Could the unit step into (some coast of) the province: what a support needs."""
        return province in self.map.step_provinces.get((kind, location), ())

    def coasts_reachable(self, kind: str, location: str, province: str) -> tuple[str, ...]:
        """The locations of ``province`` the unit can step to (two for a fleet next to both coasts)."""
        return tuple(loc for loc in self.steps(kind, location) if self.map.province_of(loc) == province)

    def is_sea(self, province: str) -> bool:
        return self.map.provinces[self.map.province_of(province)].is_sea

    def is_coastal(self, province: str) -> bool:
        return self.map.provinces[self.map.province_of(province)].is_coastal

    def seas_next_to(self, province: str) -> frozenset[str]:
        return self.map.seas_next_to(province)

    # -- convoys ---------------------------------------------------------------------------------

    def convoy_routes(self, origin: str, seas: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Destination province -> a shortest chain of the given seas carrying an army from ``origin``.

        ``seas`` are the sea provinces holding fleets that might convoy. The chain is breadth-first,
        so each destination gets one shortest route (ties broken by province id for determinism).
        """
        fleets = set(seas)
        start = sorted(s for s in self.seas_next_to(origin) if s in fleets)
        parent: dict[str, str | None] = {s: None for s in start}
        queue = deque(start)
        while queue:
            sea = queue.popleft()
            for nxt in sorted(self.map.adjacent_seas(sea)):
                if nxt in fleets and nxt not in parent:
                    parent[nxt] = sea
                    queue.append(nxt)
        routes: dict[str, tuple[str, ...]] = {}
        for sea in parent:  # insertion order is breadth-first order
            for dest in sorted(self.map.shore([sea])):
                if dest == origin or dest in routes:
                    continue
                chain, at = [], sea
                while at is not None:
                    chain.append(at)
                    at = parent[at]
                routes[dest] = tuple(reversed(chain))
        return routes

    def sea_adjacent(self, a: str, b: str) -> bool:
        return b in self.map.adjacent_seas(a)

    def seas_reached(self, seas: Iterable[str], start: str) -> set[str]:
        """The seas among ``seas`` linked to province ``start`` through a chain of them: a sea next to
        ``start``, then seas adjacent to one already reached (a convoy network seen from one end)."""
        seas = set(seas)
        return self.map.sea_region(self.seas_next_to(start) & seas, seas)

    def route_exists(self, origin: str, dest: str, seas: Iterable[str]) -> bool:
        return dest in self.convoy_routes(origin, seas)

    # -- retreats --------------------------------------------------------------------------------

    def retreat_options(self, board: Board, retreat: Retreat, *, ignore_bars: bool = False,
                        ignore_occupation: bool = False) -> frozenset[str]:
        """Where a dislodged unit may retreat on the board it retreats onto (docs/rules.md §4).

        The keyword switches give the answers of a rule that does not bar standoff provinces or the
        attacker's origin (``ignore_bars``) or that does not look at occupation at all.
        """
        u = retreat.unit
        barred = set() if ignore_bars else set(retreat.barred) | ({retreat.attacker_from} if retreat.attacker_from else set())
        out = set()
        for loc in self.steps(u.kind, u.location):
            prov = self.map.province_of(loc)
            if prov in barred:
                continue
            if not ignore_occupation and prov in board.units:
                continue
            out.add(loc)
        return frozenset(out)

    # -- distances (civil disorder) --------------------------------------------------------------

    def distances(self, targets: Iterable[str], kind: str | None) -> dict[str, int]:
        """Steps to the nearest target province, for civil disorder.

        ``kind`` None or ``army``: provinces adjacent for either unit type (armies may count over
        water), keyed by province. ``fleet``: fleet moves only, keyed by fleet location (a fleet
        cannot pass from one coast of a province to the other).
        """
        targets = set(targets)
        if kind == UnitKind.FLEET:
            adj: dict[str, set[str]] = {}
            for a, b in self.map.fleet_edges:
                adj.setdefault(a, set()).add(b)
            start = sorted(loc for loc in adj if self.map.province_of(loc) in targets)
        else:
            adj = {}
            for k in UnitKind:
                for a, b in self.map.edges(k):
                    adj.setdefault(self.map.province_of(a), set()).add(self.map.province_of(b))
            start = sorted(targets)
        dist = {t: 0 for t in start}
        queue = deque(start)
        while queue:
            p = queue.popleft()
            for q in sorted(adj.get(p, ())):
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
        return dist

