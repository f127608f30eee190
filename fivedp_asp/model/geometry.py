"""Maps given as geometry: territories as border polygons, coasts as paths, and the adjacency that
follows from them (the rules are ``asp/geometry.lp``; docs/rules.md, "Maps from geometry").

Points are integer pairs, so that a point shared by two borders is the same point exactly. A
border closes by itself (its last point may repeat the first). A coast is a list of paths along its
territory's border; a canal is a path that may cross the territory's interior and joins its coast.
The geometry also serves the pictures (``render``), which is why it is kept on the map once read.

A geometry is input from strangers like any map: its sizes are bounded (``limits``: coordinates,
points, territories, id length), ids are restricted to what the notation and the solver can name,
and every check takes time near-linear in the points. Bad geometry raises ``GeometryError`` naming
the file, the line when known, and what is wrong (docs/limits.md).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Iterator, Mapping, Sequence

import clingo

from ..solver import predicates, terms
from ..errors import InputError
from ..inputs import LoadError
from ..yaml_lines import key_line, line_of, value_line
from ..limits import (MAX_BORDER_POINTS, MAX_GEOMETRY_COORD, MAX_GEOMETRY_POINTS, MAX_GEOMETRY_TESTS, MAX_ID_CHARS,
                     MAX_TERRITORIES)
from ..solver.driver import asp_dir

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
    line: int = field(default=0, compare=False)  # where it was written (0 when unknown), for messages

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


class GeometryError(LoadError):
    """A geometry that cannot be used: its file, the line when known, and what is wrong. A subclass of
    ``InputError`` (through ``LoadError``), so every command reports it as bad input (exit status 2)."""


_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_TERRITORY_KEYS = ("region", "border", "coast", "coasts", "canals", "at")


def _clip(text: str, n: int = 24) -> str:
    """A short quotation of written text: messages never repeat long input."""
    return repr(text[:n]) + ("…" if len(text) > n else "")


def check_id(raw: object, what: str, path: str, line: int, error: type[LoadError] = GeometryError) -> str:
    """An id as written: a letter, then letters, digits or ``_``. Other characters would clash with the
    notation (``spa/nc``, ``a-b`` edges, ``b-Mun@3``), with the solver's terms, or with a picture's
    markup; maps drawn or listed read their ids through this one check."""
    if not isinstance(raw, str):
        shown = "empty" if raw is None else f"{str(raw).lower()[:12]} (a {'boolean' if isinstance(raw, bool) else 'number'})"
        raise error(path, line, f"{what} {shown} is not an id: write it as text, in quotes if YAML "
                            "would read it otherwise")
    text = raw
    if len(text) > MAX_ID_CHARS:
        raise error(path, line, f"{what} {_clip(text)} is longer than {MAX_ID_CHARS} characters")
    if not _ID.match(text):
        bad = next((c for c in text if not (c.isascii() and (c.isalnum() or c == "_"))), None)
        why = (f"the character {bad!r}" if bad is not None else "its first character")
        raise error(path, line, f"{what} {_clip(text)} is not an id: {why} is not allowed "
                            "(an id is a letter followed by letters, digits or _)")
    return text


class _Reader:
    """One geometry being read: its file, and the points counted so far against the limits."""

    def __init__(self, path: str):
        self.path = path
        self.counted = 0
        self.budget = _Budget(path, 0)

    def fail(self, line: int, problem: str) -> GeometryError:
        return GeometryError(self.path, line, problem)

    def count(self, n: int, line: int, where: str) -> None:
        self.counted += n
        if self.counted > MAX_GEOMETRY_POINTS:
            raise self.fail(line, f"{where}: the geometry has more than {MAX_GEOMETRY_POINTS:,} points "
                            "(borders, coasts and canals together)")

    def point(self, raw: object, line: int, where: str) -> Point:
        line = line_of(raw) or line
        if (not isinstance(raw, (list, tuple)) or len(raw) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
            if isinstance(raw, Mapping):
                shown = "a mapping"
            elif isinstance(raw, (list, tuple)):
                shown = f"a list of {len(raw)} item{'s' if len(raw) != 1 else ''}" if len(raw) != 2 else "a pair that is not two integers"
            else:
                shown = "empty" if raw is None else _clip(str(raw))
            raise self.fail(line, f"{where}: {shown} is not a point [x, y] of two integers")
        x, y = int(raw[0]), int(raw[1])
        if abs(x) > MAX_GEOMETRY_COORD or abs(y) > MAX_GEOMETRY_COORD:
            raise self.fail(line, f"{where}: the point [{_short_int(x)}, {_short_int(y)}] lies beyond "
                            f"{MAX_GEOMETRY_COORD:,} from the origin in x or y")
        return x, y

    def points(self, raw: list, line: int, where: str) -> list[Point]:
        """The points of a list, read quickly; a point that is not plainly good is read again by
        ``point``, which says what is wrong with it (at its own line)."""
        out = []
        m = MAX_GEOMETRY_COORD
        for i, p in enumerate(raw):
            if (isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and isinstance(p[1], int)
                    and not isinstance(p[0], bool) and not isinstance(p[1], bool)
                    and -m <= p[0] <= m and -m <= p[1] <= m):
                out.append((int(p[0]), int(p[1])))
            else:
                out.append(self.point(p, value_line(raw, i) or line, where))
        return out

    def path_(self, raw: object, line: int, where: str) -> Path_:
        line = line_of(raw) or line
        if not isinstance(raw, list) or len(raw) < 2:
            raise self.fail(line, f"{where}: a path is a list of at least two points")
        self.count(len(raw), line, where)
        return tuple(self.points(raw, line, where))

    def paths(self, raw: object, line: int, where: str) -> tuple[Path_, ...]:
        line = line_of(raw) or line
        if not isinstance(raw, list) or not raw:
            raise self.fail(line, f"{where}: give a list of paths (each a list of points)")
        # a single path written without the outer list
        if all(isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) for v in p) for p in raw):
            return (self.path_(raw, line, where),)
        return tuple(self.path_(p, value_line(raw, i) or line, where) for i, p in enumerate(raw))


def _short_int(v: int) -> str:
    text = str(v)
    return text if len(text) <= 12 else text[:10] + "…"


def _size(data: Mapping, reader: _Reader, territories: Mapping[str, "Territory"]) -> tuple[int, int]:
    """The drawing's size as given (two positive integers), or else the far corner of what is drawn."""
    if data.get("size") is None:
        drawn = [p for t in territories.values() for p in (*t.border, *((t.at,) if t.at else ()))]
        xs = [x for x, _ in drawn]
        ys = [y for _, y in drawn]
        return max(1, max(xs, default=1)), max(1, max(ys, default=1))
    line = value_line(data, "size")
    w, h = reader.point(data["size"], line, "geometry size")
    if w <= 0 or h <= 0:
        raise reader.fail(line, f"geometry size: the width and height must be positive (got [{w}, {h}])")
    return w, h


def parse_geometry(data: object, path: str) -> Geometry:
    """Reads the ``geometry:`` section of a map file and checks every territory on its own: a closed
    border, coasts on the border, ids the notation can name, sizes within ``limits``. Checks between
    territories come with the adjacency. Bad input raises ``GeometryError`` naming the line."""
    reader = _Reader(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("territories"), Mapping):
        raise reader.fail(line_of(data), "'geometry' must be a mapping with 'territories' (a mapping of "
                          "territory ids to their region and border)")
    for key in data:
        if key not in ("size", "territories"):
            raise reader.fail(key_line(data, key), f"unknown key {_clip(str(key))} in geometry (known: size, territories)")
    raw_territories = data["territories"]
    if len(raw_territories) > MAX_TERRITORIES:
        raise reader.fail(line_of(raw_territories), f"the geometry has {len(raw_territories):,} territories "
                          f"(the limit is {MAX_TERRITORIES:,})")
    territories: dict[str, Territory] = {}
    written: dict[str, str] = {}
    for key, raw in raw_territories.items():
        line = key_line(raw_territories, key)
        tid = check_id(key, "territory id", path, line).lower()
        if tid in written:
            raise reader.fail(line, f"territory ids {_clip(written[tid])} and {_clip(str(key))} name the same "
                              "province (ids are compared ignoring case)")
        written[tid] = str(key)
        territories[tid] = _territory(tid, raw, reader, value_line(raw_territories, key) or line)
    size = _size(data, reader, territories)
    return Geometry(size, MappingProxyType(territories))


def _territory(tid: str, raw: object, reader: _Reader, line: int) -> "Territory":
    where = f"territory {tid}"
    if not isinstance(raw, Mapping):
        raise reader.fail(line, f"{where}: give its region and border (a mapping)")
    for key in raw:
        if key not in _TERRITORY_KEYS:
            raise reader.fail(key_line(raw, key) or line, f"{where}: unknown key {_clip(str(key))} "
                              f"(known: {', '.join(_TERRITORY_KEYS)})")
    region = raw.get("region")
    if region not in REGIONS:
        shown = _clip(region) if isinstance(region, str) else repr(region) if region is None else "a " + type(region).__name__
        raise reader.fail(value_line(raw, "region") or line,
                          f"{where}: region must be one of {', '.join(REGIONS)} (got {shown})")
    border = _border(raw.get("border"), reader, value_line(raw, "border") or line, where)
    coasts: dict[str, tuple[Path_, ...]] = {}
    if raw.get("coast") is not None:
        coasts[""] = reader.paths(raw["coast"], value_line(raw, "coast") or line, f"{where}, coast")
    named = raw.get("coasts")
    if named is not None:
        at = value_line(raw, "coasts") or line
        if not isinstance(named, Mapping):
            raise reader.fail(at, f"{where}: 'coasts' must map coast names to their paths ({{nc: [[[x, y], ...]]}}); "
                              "a territory with one unnamed coast writes 'coast:' instead")
        seen: dict[str, str] = {}
        for name, paths in named.items():
            name_line = key_line(named, name) or at
            cid = check_id(name, f"{where}: coast name", reader.path, name_line)
            if cid.lower() in seen:
                raise reader.fail(name_line, f"{where}: coast names {_clip(seen[cid.lower()])} and {_clip(cid)} "
                                  "name the same coast (names are compared ignoring case)")
            seen[cid.lower()] = cid
            coasts[cid] = reader.paths(paths, value_line(named, name) or name_line, f"{where}, coast {cid}")
    canals = (reader.paths(raw["canals"], value_line(raw, "canals") or line, f"{where}, canals")
              if raw.get("canals") else ())
    if region != "land" and (coasts or canals):
        raise reader.fail(line, f"{where}: only a land territory has coasts or canals (its region is {region})")
    at = reader.point(raw["at"], value_line(raw, "at") or line, f"{where}, at") if raw.get("at") is not None else None
    terr = Territory(tid, region, border, MappingProxyType(coasts), canals, at, line)
    _check_coasts(terr, reader, line, where)
    return terr


def _border(raw: object, reader: _Reader, line: int, where: str) -> tuple[Point, ...]:
    if not isinstance(raw, list):
        raise reader.fail(line, f"{where}: no border (a list of points [x, y])")
    if len(raw) > MAX_BORDER_POINTS + 1:  # refused before reading; the last point may repeat the first
        raise reader.fail(line, f"{where}: the border has {len(raw):,} points (the limit is {MAX_BORDER_POINTS:,})")
    reader.count(len(raw), line, where)
    points = reader.points(raw, line, f"{where}, border")
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()
    if len(points) > MAX_BORDER_POINTS:
        raise reader.fail(line, f"{where}: the border has {len(points):,} points (the limit is {MAX_BORDER_POINTS:,})")
    if len(set(points)) < 3:
        raise reader.fail(line, f"{where}: the border is not a closed polygon (it has fewer than three distinct points)")
    seen: set[Point] = set()
    for p in points:
        if p in seen:
            raise reader.fail(line, f"{where}: the border passes through {list(p)} twice, so it does not close "
                              "into one polygon")
        seen.add(p)
    area2 = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))
    if area2 == 0:
        raise reader.fail(line, f"{where}: the border encloses no area")
    reader.budget.line = line
    crossing = _self_crossing(points, reader.budget, where)
    if crossing:
        raise reader.fail(line, f"{where}: the border crosses itself between {list(crossing[0])} and "
                          f"{list(crossing[1])}, so it does not close into one polygon")
    return tuple(points)


def _check_coasts(terr: Territory, reader: _Reader, line: int, where: str) -> None:
    index = {p: i for i, p in enumerate(terr.border)}
    n = len(terr.border)
    for name, paths in terr.coasts.items():
        label = f"coast {name}" if name else "its coast"
        for path in paths:
            for p in path:
                if p not in index:
                    raise reader.fail(line, f"{where}: {label} is not on the territory's border at {list(p)}")
            for p, q in zip(path, path[1:]):
                if (index[q] - index[p]) % n not in (1, n - 1):
                    raise reader.fail(line, f"{where}: {label} leaves the territory's border between {list(p)} and {list(q)}")
    for path in terr.canals:
        for end in (path[0], path[-1]):
            if end not in index:
                raise reader.fail(line, f"{where}: a canal must begin and end on the territory's border ({list(end)} is not on it)")


# -- segments near each other ---------------------------------------------------------------------
# Crossings and points on other borders are found through grids of square cells, one grid per scale:
# a segment is filed under the scale of its length (cells of 2**k, 2**k > its extent), in the few
# cells it passes through, and is compared only with segments filed in the cells it passes through at
# its own scale or coarser ones. Work grows with the number of segments times the scales in use, not
# with their square; a drawing dense enough to need more tests than the limit is refused.


class _Budget:
    """The segment tests one check of a geometry may still spend (``limits.MAX_GEOMETRY_TESTS``), and
    the line of the territory being checked, for the message should they run out."""

    def __init__(self, path: str, line: int):
        self.path, self.line, self.left = path, line, MAX_GEOMETRY_TESTS

    def spend(self, n: int, where: str) -> None:
        self.left -= n
        if self.left < 0:
            raise GeometryError(self.path, self.line, f"{where}: the borders are too dense to check (more than "
                                f"{MAX_GEOMETRY_TESTS:,} segment tests); draw them with fewer points")


Segment = tuple[Point, Point]


def _cells(p: Point, q: Point, k: int) -> Sequence[tuple[int, int]]:
    """Cells of side 2**k that hold the segment p-q: every point of the segment lies in one of them,
    the one its coordinates floor to (a cell or two more may be listed where it runs along an edge)."""
    x0, y0 = p
    x1, y1 = q
    cx0, cy0, cx1, cy1 = x0 >> k, y0 >> k, x1 >> k, y1 >> k
    if cx0 == cx1:
        # within one column the segment runs straight from one end's row to the other's
        if cy0 == cy1:
            return ((cx0, cy0),)
        return [(cx0, cy) for cy in range(min(cy0, cy1), max(cy0, cy1) + 1)]
    if cy0 == cy1:
        return [(cx, cy0) for cx in range(min(cx0, cx1), max(cx0, cx1) + 1)]
    if x1 < x0:
        x0, y0, x1, y1 = x1, y1, x0, y0
    s = 1 << k
    dx, dy = x1 - x0, y1 - y0
    out = []
    for cx in range(x0 >> k, (x1 >> k) + 1):
        xa, xb = max(x0, cx * s), min(x1, (cx + 1) * s)
        # the segment's y (times dx) at both ends of its stretch in this column, floored to rows exactly
        na, nb = y0 * dx + (xa - x0) * dy, y0 * dx + (xb - x0) * dy
        out.extend((cx, cy) for cy in range(min(na, nb) // (dx * s), max(na, nb) // (dx * s) + 1))
    return out


class _Grids:
    """Segments filed by scale and cell."""

    def __init__(self, segments: list[Segment]):
        self.segments = segments
        self.scale = [max(abs(q[0] - p[0]), abs(q[1] - p[1])).bit_length() for p, q in segments]
        self.grids: dict[int, dict[tuple[int, int], list[int]]] = {}
        for i, (p, q) in enumerate(segments):
            grid = self.grids.setdefault(self.scale[i], {})
            for cell in _cells(p, q, self.scale[i]):
                if cell in grid:
                    grid[cell].append(i)
                else:
                    grid[cell] = [i]
        self.scales = sorted(self.grids)

    def pairs(self, budget: _Budget, where: str) -> Iterator[tuple[int, int]]:
        """Pairs of segments that may touch: every pair that does is among them (some more than once)."""
        for k in self.scales:
            # the same scale: segments filed in one cell
            for near in self.grids[k].values():
                m = len(near)
                if m > 1:
                    budget.spend(m * (m - 1) // 2, where)
                    for a in range(m):
                        for b in range(a + 1, m):
                            yield near[a], near[b]
            # a finer segment against the coarser ones in the cells it passes through at their scale
            coarser = [c for c in self.scales if c > k]
            if not coarser:
                continue
            for i, own in enumerate(self.scale):
                if own != k:
                    continue
                p, q = self.segments[i]
                for c in coarser:
                    grid = self.grids[c]
                    for cell in _cells(p, q, c):
                        near = grid.get(cell)
                        if near:
                            budget.spend(len(near), where)
                            for j in near:
                                yield i, j

    def near_point(self, r: Point, budget: _Budget, where: str) -> Iterator[int]:
        """Indices of the segments that may pass through point r."""
        for k in self.scales:
            near = self.grids[k].get((r[0] >> k, r[1] >> k))
            if near:
                budget.spend(len(near), where)
                yield from near


def _orient(a: Point, b: Point, c: Point) -> int:
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def _touch(s: Segment, t: Segment) -> bool:
    """Whether two segments cross or touch (including overlapping along one line)."""
    (a, b), (c, d) = s, t
    if (max(a[0], b[0]) < min(c[0], d[0]) or max(c[0], d[0]) < min(a[0], b[0])
            or max(a[1], b[1]) < min(c[1], d[1]) or max(c[1], d[1]) < min(a[1], b[1])):
        return False
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    return (o1 != o2 and o3 != o4) or (o1 == o2 == 0 and o3 == o4 == 0)


_FEW = 24  # borders of at most this many points are checked pair by pair


def _self_crossing(points: list[Point], budget: _Budget, where: str) -> tuple[Point, Point] | None:
    """A segment of the ring that crosses or touches another one it does not follow or precede."""
    n = len(points)
    segs = [(points[i], points[(i + 1) % n]) for i in range(n)]
    if n <= _FEW:
        # a short border: every pair, fewer tests than filing the segments would cost
        budget.spend(n * (n - 1) // 2, where)
        candidates: Iterator[tuple[int, int]] = ((i, j) for i in range(n) for j in range(i + 2, n))
    else:
        candidates = _Grids(segs).pairs(budget, where)
    for i, j in candidates:
        if abs(i - j) not in (0, 1, n - 1) and _touch(segs[i], segs[j]):
            return segs[min(i, j)]
    return None


def _check_shared(geometry: Geometry, path: str) -> None:
    """Points shared in a way the rules cannot read: a segment on three borders, or a point of one
    border lying inside a segment of another without being one of its points."""
    owners: dict[Segment, list[str]] = {}
    for terr in geometry.territories.values():
        pts = terr.border
        for p, q in zip(pts, pts[1:] + pts[:1]):
            owners.setdefault((min(p, q), max(p, q)), []).append(terr.id)
    for (p, q), who in owners.items():
        if len(who) > 2:
            line = geometry.territories[who[0]].line
            raise GeometryError(path, line, f"territory {who[0]}: the border segment {list(p)}-{list(q)} is also on "
                                f"the borders of {' and '.join(who[1:])}; a segment can separate only two territories")
    segments = list(owners)
    grids = _Grids(segments)
    seen: set[Point] = set()
    budget = _Budget(path, 0)
    for terr in geometry.territories.values():
        budget.line = terr.line
        for r in terr.border:
            if r in seen:
                continue
            seen.add(r)
            for i in grids.near_point(r, budget, f"territory {terr.id}"):
                p, q = segments[i]
                if r == p or r == q:
                    continue
                cross = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
                inside = min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])
                if cross == 0 and inside:
                    other = owners[(p, q)][0]
                    raise GeometryError(path, terr.line, f"territory {terr.id}: its border point {list(r)} lies on "
                                        f"the border of {other} between {list(p)} and {list(q)} without being one "
                                        "of its points; the rules cannot tell what is shared")


# -- adjacency ------------------------------------------------------------------------------------


def _point_term(p: Point) -> terms.Fact:
    """A point as the tuple term ``(X,Y)`` (a function term without a name)."""
    return ("", p[0], p[1])


def facts(geometry: Geometry) -> str:
    """The geometry as facts for ``asp/geometry.lp``."""
    out: list[terms.Fact] = []
    for terr in geometry.territories.values():
        t = terms.const(terr.id)
        out.append(("territory", t, terr.region))
        out.append(("border_size", t, len(terr.border)))
        out.extend(("border", t, i, _point_term(p)) for i, p in enumerate(terr.border))
        coasts = dict(terr.coasts)
        if terr.canals:
            coasts[""] = coasts.get("", ()) + terr.canals
        for name, paths in coasts.items():
            c = terms.location(terr.location(name))
            out.append(("coast", c, t))
            for k, path in enumerate(paths):
                out.append(("path_size", c, k, len(path)))
                out.extend(("coast_point", c, k, i, _point_term(p)) for i, p in enumerate(path))
    return predicates.render(out)


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
            a, b = predicates.decode_symbol(sym)
            (army if sym.name == "army_edge" else fleet).add((a, b))
    return Adjacency(frozenset(army), frozenset(fleet))


@lru_cache(maxsize=32)
def _derive_cached(key: str, fact_text: str) -> Adjacency:
    return _solve(fact_text)


def derive(geometry: Geometry, path: str = "<map>") -> Adjacency:
    """The adjacency the geometry implies. Derived once per distinct geometry in a process (the
    cache key is a digest of its facts). Coast names keep the case they are written in: the solver's
    terms are lower-case, so its answers are mapped back to the names as written."""
    _check_shared(geometry, path)
    fact_text = facts(geometry)
    adjacency = _derive_cached(hashlib.sha256(fact_text.encode()).hexdigest(), fact_text)
    written = {terr.location(c).lower(): terr.location(c)
               for terr in geometry.territories.values() for c in terr.coasts if c != c.lower()}
    if not written:
        return adjacency
    back = lambda edges: frozenset((written.get(a, a), written.get(b, b)) for a, b in edges)  # noqa: E731
    return Adjacency(back(adjacency.army), back(adjacency.fleet))


def differences(kind: str, listed: frozenset[tuple[str, str]], derived: frozenset[tuple[str, str]]) -> list[str]:
    """The pairs on which a listed adjacency and the derived one disagree, each named once."""
    out = []
    for a, b in sorted({tuple(sorted(e)) for e in listed - derived}):
        out.append(f"{kind} {a}-{b} is listed but the geometry does not make them adjacent")
    for a, b in sorted({tuple(sorted(e)) for e in derived - listed}):
        out.append(f"{kind} {a}-{b} is adjacent in the geometry but not listed")
    return out


# -- maps -----------------------------------------------------------------------------------------

_SHOWN_PAIRS = 20  # a disagreement names at most this many pairs, then says how many more


def _some(ids: list[str], shown: int = 8) -> str:
    """A few ids of a list, and how many more: a message stays short however large the map."""
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")



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
        parts = ([f"no territory for {_some(missing)}"] if missing else []) + (
            [f"territories {_some(extra)} are no province"] if extra else [])
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
        shown = problems[:_SHOWN_PAIRS] + ([f"... and {len(problems) - _SHOWN_PAIRS} more"]
                                           if len(problems) > _SHOWN_PAIRS else [])
        raise InputError(f"{path}: the listed adjacency and the geometry disagree on {len(problems)} pair"
                         f"{'s' if len(problems) != 1 else ''}:\n  " + "\n  ".join(shown))
    return derived.army, derived.fleet


def load_geometry_file(game_map, ref: str, base: str) -> Geometry:
    """Reads a map's geometry kept in a file of its own (``geometry: FILE`` in the map, relative to the
    map file; a shipped map's in the package), and checks that it agrees with the map's lists."""
    from importlib import resources
    from pathlib import Path

    from ..inputs import decode, read_text
    from ..yaml_lines import parse_yaml

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
