"""Maps given as geometry: territories as border polygons, coasts as paths, and the adjacency that
follows from them (the rules are ``asp/geometry.lp``; docs/rules.md, "Maps from geometry").

Points are integer pairs, so that a point shared by two borders is the same point exactly. A
border closes by itself (its last point may repeat the first). A coast is a list of paths along its
territory's border; a canal is a path that may cross the territory's interior and joins its coast.
The geometry also serves the pictures (``render``), which is why it is kept on the map once read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

import clingo

from . import terms
from .errors import InputError
from .solve import asp_dir

Point = tuple[int, int]
Path_ = tuple[Point, ...]
REGIONS = ("ocean", "land", "impassable")


@dataclass(frozen=True)
class Territory:
    id: str
    region: str
    border: tuple[Point, ...]
    coasts: Mapping[str, tuple[Path_, ...]]  # coast name ("" for the one unnamed coast) → its paths
    canals: tuple[Path_, ...] = ()  # paths across the territory; they belong to the unnamed coast
    at: Point | None = None  # where its label and unit are drawn

    @property
    def province_type(self) -> str:
        if self.region == "ocean":
            return "sea"
        if self.region == "impassable":
            return "impassable"
        return "coast" if self.coasts or self.canals else "land"

    def location(self, coast: str) -> str:
        return f"{self.id}/{coast}" if coast else self.id


@dataclass(frozen=True)
class Geometry:
    size: tuple[int, int]
    territories: Mapping[str, Territory]

    def label_point(self, territory: str) -> tuple[float, float]:
        """Where a territory's label (and unit) goes: the given point, else the border's average."""
        terr = self.territories[territory]
        if terr.at is not None:
            return terr.at
        xs, ys = zip(*terr.border)
        return sum(xs) / len(xs), sum(ys) / len(ys)

    def coast_point(self, location: str) -> tuple[float, float]:
        """Where a fleet on a named coast is drawn: the middle of the coast's longest path, pulled
        a quarter of the way toward the territory's label point."""
        prov, _, coast = location.partition("/")
        terr = self.territories[prov]
        paths = terr.coasts.get(coast) if coast else None
        cx, cy = self.label_point(prov)
        if not paths:
            return cx, cy
        path = max(paths, key=len)
        mx, my = path[len(path) // 2]
        return mx + (cx - mx) * 0.3, my + (cy - my) * 0.3


@dataclass(frozen=True)
class Adjacency:
    army: frozenset[tuple[str, str]]  # both directions
    fleet: frozenset[tuple[str, str]]


# -- reading --------------------------------------------------------------------------------------


def _point(raw: object, where: str) -> Point:
    if (not isinstance(raw, (list, tuple)) or len(raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
        raise InputError(f"{where}: {raw!r} is not a point [x, y] of two integers")
    return int(raw[0]), int(raw[1])


def _path(raw: object, where: str) -> Path_:
    if not isinstance(raw, list) or len(raw) < 2:
        raise InputError(f"{where}: a path is a list of at least two points")
    return tuple(_point(p, where) for p in raw)


def _paths(raw: object, where: str) -> tuple[Path_, ...]:
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: give a list of paths (each a list of points)")
    # a single path written without the outer list
    if all(isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) for v in p) for p in raw):
        return (_path(raw, where),)
    return tuple(_path(p, where) for p in raw)


def parse_geometry(data: object, path: str) -> Geometry:
    """Reads the ``geometry:`` section of a map file and checks every territory on its own: a closed
    border, coasts on the border. Checks between territories come with the adjacency."""
    if not isinstance(data, dict) or not isinstance(data.get("territories"), dict):
        raise InputError(f"{path}: 'geometry' must be a mapping with 'territories'")
    size = data.get("size", [0, 0])
    size_pt = _point(size, f"{path}: geometry size")
    territories: dict[str, Territory] = {}
    for tid, raw in data["territories"].items():
        tid = str(tid).lower()
        where = f"{path}: territory {tid}"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: give its region and border")
        region = raw.get("region")
        if region not in REGIONS:
            raise InputError(f"{where}: region must be one of {', '.join(REGIONS)} (got {region!r})")
        border = _border(raw.get("border"), where)
        coasts: dict[str, tuple[Path_, ...]] = {}
        if "coast" in raw:
            coasts[""] = _paths(raw["coast"], f"{where}, coast")
        for name, paths in (raw.get("coasts") or {}).items():
            coasts[str(name)] = _paths(paths, f"{where}, coast {name}")
        canals = _paths(raw["canals"], f"{where}, canals") if raw.get("canals") else ()
        if region != "land" and (coasts or canals):
            raise InputError(f"{where}: only a land territory has coasts or canals (its region is {region})")
        at = _point(raw["at"], f"{where}, at") if raw.get("at") is not None else None
        terr = Territory(tid, region, border, MappingProxyType(coasts), canals, at)
        _check_coasts(terr, where)
        territories[tid] = terr
    return Geometry(size_pt, MappingProxyType(territories))


def _border(raw: object, where: str) -> tuple[Point, ...]:
    if not isinstance(raw, list):
        raise InputError(f"{where}: no border (a list of points [x, y])")
    points = [_point(p, f"{where}, border") for p in raw]
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()
    if len(set(points)) < 3:
        raise InputError(f"{where}: the border is not a closed polygon (it has fewer than three distinct points)")
    seen: set[Point] = set()
    for p in points:
        if p in seen:
            raise InputError(f"{where}: the border passes through {list(p)} twice, so it does not close "
                             "into one polygon")
        seen.add(p)
    area2 = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))
    if area2 == 0:
        raise InputError(f"{where}: the border encloses no area")
    crossing = _self_crossing(points)
    if crossing:
        raise InputError(f"{where}: the border crosses itself between {list(crossing[0])} and {list(crossing[1])}, "
                         "so it does not close into one polygon")
    return tuple(points)


def _orient(a: Point, b: Point, c: Point) -> int:
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def _self_crossing(points: list[Point]) -> tuple[Point, Point] | None:
    """A segment of the ring that crosses or touches another one it does not follow or precede."""
    n = len(points)
    segs = [(points[i], points[(i + 1) % n]) for i in range(n)]
    boxes = [(min(a[0], b[0]), max(a[0], b[0]), min(a[1], b[1]), max(a[1], b[1])) for a, b in segs]
    order = sorted(range(n), key=lambda i: boxes[i][0])
    for k, i in enumerate(order):
        x0, x1, y0, y1 = boxes[i]
        for j in order[k + 1:]:
            if boxes[j][0] > x1:
                break
            if abs(i - j) in (1, n - 1) or boxes[j][3] < y0 or boxes[j][2] > y1:
                continue
            (a, b), (c, d) = segs[i], segs[j]
            o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
            if o1 != o2 and o3 != o4 or (o1 == o2 == 0 and o3 == o4 == 0):
                return a, b
    return None


def _check_coasts(terr: Territory, where: str) -> None:
    index = {p: i for i, p in enumerate(terr.border)}
    n = len(terr.border)
    for name, paths in terr.coasts.items():
        label = f"coast {name}" if name else "its coast"
        for path in paths:
            for p in path:
                if p not in index:
                    raise InputError(f"{where}: {label} is not on the territory's border at {list(p)}")
            for p, q in zip(path, path[1:]):
                if (index[q] - index[p]) % n not in (1, n - 1):
                    raise InputError(f"{where}: {label} leaves the territory's border between {list(p)} and {list(q)}")
    for path in terr.canals:
        for end in (path[0], path[-1]):
            if end not in index:
                raise InputError(f"{where}: a canal must begin and end on the territory's border ({list(end)} is not on it)")


def _check_shared(geometry: Geometry, path: str) -> None:
    """Points shared in a way the rules cannot read: a segment on three borders, or a point of one
    border lying inside a segment of another without being one of its points."""
    owners: dict[tuple[Point, Point], list[str]] = {}
    for terr in geometry.territories.values():
        pts = terr.border
        for p, q in zip(pts, pts[1:] + pts[:1]):
            owners.setdefault((min(p, q), max(p, q)), []).append(terr.id)
    for (p, q), who in owners.items():
        if len(who) > 2:
            raise InputError(f"{path}: territory {who[0]}: the border segment {list(p)}-{list(q)} is also on the "
                             f"borders of {' and '.join(who[1:])}; a segment can separate only two territories")
    # bucket the segments by the cells their bounding boxes cover
    cell = max(8, max(geometry.size) // 64 if max(geometry.size) else 8)
    buckets: dict[tuple[int, int], list[tuple[Point, Point, str]]] = {}
    for (p, q), who in owners.items():
        for cx in range(min(p[0], q[0]) // cell, max(p[0], q[0]) // cell + 1):
            for cy in range(min(p[1], q[1]) // cell, max(p[1], q[1]) // cell + 1):
                buckets.setdefault((cx, cy), []).append((p, q, who[0]))
    for terr in geometry.territories.values():
        for r in terr.border:
            for p, q, other in buckets.get((r[0] // cell, r[1] // cell), ()):
                if r in (p, q):
                    continue
                cross = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
                inside = min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])
                if cross == 0 and inside:
                    raise InputError(f"{path}: territory {terr.id}: its border point {list(r)} lies on the border of "
                                     f"{other} between {list(p)} and {list(q)} without being one of its points; "
                                     "the rules cannot tell what is shared")


# -- adjacency ------------------------------------------------------------------------------------


def _point_term(p: Point) -> str:
    return f"({p[0]},{p[1]})"


def facts(geometry: Geometry) -> str:
    """The geometry as facts for ``asp/geometry.lp``."""
    out: list[str] = []
    for terr in geometry.territories.values():
        t = terms.const(terr.id)
        out.append(f"territory({t},{terr.region}).")
        out.append(f"border_size({t},{len(terr.border)}).")
        out.extend(f"border({t},{i},{_point_term(p)})." for i, p in enumerate(terr.border))
        coasts = dict(terr.coasts)
        if terr.canals:
            coasts[""] = coasts.get("", ()) + terr.canals
        for name, paths in coasts.items():
            c = terms.location(terr.location(name))
            out.append(f"coast({c},{t}).")
            for k, path in enumerate(paths):
                out.append(f"path_size({c},{k},{len(path)}).")
                out.extend(f"coast_point({c},{k},{i},{_point_term(p)})." for i, p in enumerate(path))
    return "\n".join(out)


def _solve(fact_text: str) -> Adjacency:
    ctl = clingo.Control(["--warn=none"])
    base = asp_dir()
    for name in ("geometry.lp", "show/geometry.lp"):
        ctl.load(str(base / name))
    ctl.add("base", [], fact_text)
    ctl.ground([("base", [])])
    army: set[tuple[str, str]] = set()
    fleet: set[tuple[str, str]] = set()
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle))
        for sym in model.symbols(shown=True):
            a, b = (terms.read_location(x) for x in sym.arguments)
            (army if sym.name == "army_edge" else fleet).add((a, b))
    return Adjacency(frozenset(army), frozenset(fleet))


@lru_cache(maxsize=32)
def _derive_cached(key: str, fact_text: str) -> Adjacency:
    return _solve(fact_text)


def derive(geometry: Geometry, path: str = "<map>") -> Adjacency:
    """The adjacency the geometry implies. Derived once per distinct geometry in a process (the
    cache key is a digest of its facts)."""
    _check_shared(geometry, path)
    fact_text = facts(geometry)
    return _derive_cached(hashlib.sha256(fact_text.encode()).hexdigest(), fact_text)


def differences(kind: str, listed: frozenset[tuple[str, str]], derived: frozenset[tuple[str, str]]) -> list[str]:
    """The pairs on which a listed adjacency and the derived one disagree, each named once."""
    out = []
    for a, b in sorted({tuple(sorted(e)) for e in listed - derived}):
        out.append(f"{kind} {a}-{b} is listed but the geometry does not make them adjacent")
    for a, b in sorted({tuple(sorted(e)) for e in derived - listed}):
        out.append(f"{kind} {a}-{b} is adjacent in the geometry but not listed")
    return out


# -- maps -----------------------------------------------------------------------------------------


def province_type(geometry: Geometry, pid: str, path: str) -> dict:
    """A province's type and named coasts as its territory implies them (for maps that leave them out)."""
    terr = geometry.territories.get(pid)
    if terr is None:
        raise InputError(f"{path}: province {pid!r} has no territory in the geometry")
    named = sorted(c for c in terr.coasts if c)
    return {"type": terr.province_type, **({"coasts": named} if named else {})}


def _agreement(geometry: Geometry, provinces: Mapping, path: str) -> None:
    """The provinces and the territories must be the same set, with the same types and named coasts."""
    missing = sorted(set(provinces) - set(geometry.territories))
    extra = sorted(set(geometry.territories) - set(provinces))
    if missing or extra:
        parts = ([f"no territory for {', '.join(missing)}"] if missing else []) + (
            [f"territories {', '.join(extra)} are no province"] if extra else [])
        raise InputError(f"{path}: the geometry and the provinces differ: {'; '.join(parts)}")
    for pid, prov in provinces.items():
        terr = geometry.territories[pid]
        if prov.type != terr.province_type:
            raise InputError(f"{path}: territory {pid}: the province is of type {prov.type} but its geometry "
                             f"makes it {terr.province_type}")
        named = tuple(sorted(c for c in terr.coasts if c))
        if tuple(sorted(prov.coasts)) != named:
            raise InputError(f"{path}: territory {pid}: the province has coasts {list(prov.coasts)} but its "
                             f"geometry draws {list(named)}")


def checked_edges(geometry: Geometry, provinces: Mapping, path: str,
                  army: frozenset | None, fleet: frozenset | None) -> tuple[frozenset, frozenset]:
    """The map's adjacency: derived from the geometry, and equal to the listed one where one is listed
    (otherwise the map is bad input naming every pair that differs)."""
    _agreement(geometry, provinces, path)
    derived = derive(geometry, path)
    problems = []
    if army is not None:
        problems += differences("army", army, derived.army)
    if fleet is not None:
        problems += differences("fleet", fleet, derived.fleet)
    if problems:
        raise InputError(f"{path}: the listed adjacency and the geometry disagree on {len(problems)} pair"
                         f"{'s' if len(problems) != 1 else ''}:\n  " + "\n  ".join(problems))
    return derived.army, derived.fleet


def load_geometry_file(game_map, ref: str, base: str) -> Geometry:
    """Reads a map's geometry kept in a file of its own (``geometry: FILE`` in the map, relative to the
    map file; a shipped map's in the package), and checks that it agrees with the map's lists."""
    from importlib import resources
    from pathlib import Path

    from .inputs import decode, parse_yaml, read_text

    # read through the guarded loader (size, UTF-8, no aliases, bounded nesting): a map's drawing is input too
    if base.startswith("maps/") and not Path(base).exists():
        resource = resources.files("fivedp_asp") / "maps" / ref
        where = f"maps/{ref}"
        if not resource.is_file():
            raise InputError(f"{base}: its geometry file {ref!r} is missing")
        text = decode(resource.read_bytes(), where)
    else:
        file = Path(base).parent / ref
        where = str(file)
        text = read_text(file, "geometry file")
    data = parse_yaml(text, where)
    raw = data.get("geometry") if isinstance(data, dict) and "territories" not in data else data
    geometry = parse_geometry(raw, where)
    checked_edges(geometry, game_map.provinces, f"{base} against {where}", game_map.army_edges, game_map.fleet_edges)
    return geometry
