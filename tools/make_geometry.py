"""Draws the standard map as geometry: writes fivedp_asp/maps/standard-geometry.yaml.

Each province has a skeleton (one or more points, approximately at its real longitude and latitude,
joined as a polyline). Every cell of a raster over Europe goes to the province whose skeleton is
nearest; stray pieces are merged into their neighbours and diagonal pinches opened, then each
province's cells are traced into one border polygon (grid corners, plus every point where three
territories meet, so that shared borders have the same points on both sides). A coast is each
run of a land province's border along the sea. The derived adjacency is compared with the standard
map's lists; the script fails, naming the differing pairs, unless they agree pair for pair.

    python tools/make_geometry.py [--check]   (--check: compare only, write nothing)
"""

from __future__ import annotations

import math
import sys
from collections import Counter, deque
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fivedp_asp.model.geometry import derive, parse_geometry  # noqa: E402
from fivedp_asp.model.map import load_map  # noqa: E402

W, H = 150, 120  # raster cells
LON0, LON1, LAT0, LAT1 = -13.0, 44.0, 32.0, 71.0
SCALE = 8  # drawing units per cell
XSTRETCH = 0.72  # a degree of longitude against a degree of latitude, around 50°N

# skeletons: (longitude, latitude) points, joined in order
SKELETONS: dict[str, list[tuple[float, float]]] = {
    # seas
    "nao": [(-22, 62), (-14, 57.5), (-8, 55.5), (-16, 49)],
    "nwg": [(-6, 67), (4, 69), (14, 70.5), (26, 71.8)],
    "bar": [(31, 71.5), (43, 71.8)],
    "nth": [(2.5, 53.5), (3, 56), (4, 59.5)],
    "iri": [(-6, 53.2), (-6.5, 51.2)],
    "eng": [(-5, 49.3), (-1, 50.2), (1.3, 50.8)],
    "mao": [(-5.5, 46), (-12, 45), (-12, 40), (-10, 36), (-6, 35.8)],
    "wes": [(-2, 37.2), (3, 38.5), (7, 38.7)],
    "lyo": [(5.5, 41.8), (8.5, 42.5)],
    "tys": [(10.5, 40.5), (12, 39)],
    "ion": [(19, 39.5), (17.5, 38), (19, 36), (23, 34.5)],
    "adr": [(14, 44.5), (16, 42.8), (18.2, 41.3)],
    "aeg": [(25, 39.5), (25, 37)],
    "eas": [(30, 34.5), (35, 33)],
    "bla": [(29.5, 43.3), (34.5, 43.3), (38, 42.5)],
    "bal": [(15, 55.5), (19, 56.5), (19.5, 58.5)],
    "bot": [(21.5, 63.5), (20, 60.5), (25, 59.9)],
    "ska": [(9.5, 58.2)],
    "hel": [(7, 54.8)],
    # Britain
    "cly": [(-5.5, 57.2)],
    "edi": [(-2.8, 57.6)],
    "lvp": [(-3.2, 53.8), (-4.8, 55.3)],
    "yor": [(-1, 54.3), (-1.6, 53.2)],
    "wal": [(-4, 52), (-3, 52.8)],
    "lon": [(0, 51.4), (-1.5, 52)],
    # France, Iberia, Africa
    "bre": [(-4, 48.3), (-1, 48.8)],
    "pic": [(1.2, 50.1), (2.4, 50.2)],
    "par": [(2.3, 48.0)],
    "bur": [(4.8, 45.8), (3.5, 48.3), (6.9, 48.3)],
    "gas": [(-0.5, 44.6), (2, 45.8)],
    "mar": [(4.8, 43.9), (6.3, 45.6)],
    "spa": [(-3.5, 38), (-4, 41), (1.5, 41.8)],
    "por": [(-8.5, 40), (-8.4, 38)],
    "naf": [(-7, 32.5), (2, 33.5)],
    "tun": [(9.5, 33.5)],
    # Italy, the Alps
    "pie": [(7.6, 44.8), (9.3, 45.9)],
    "ven": [(10, 45.6), (12.3, 45.5), (13.8, 43.2)],
    "tus": [(10.5, 43.8), (11, 42.8)],
    "rom": [(12.2, 42.2), (13.2, 41.3)],
    "apu": [(15.5, 41.8), (16.8, 40.8)],
    "nap": [(15, 40.3), (16, 38.8)],
    "swi": [(7.6, 46.9)],
    "tyr": [(10.3, 46.8), (12.5, 47.2)],
    # central Europe
    "bel": [(4.2, 50.6), (3.5, 51.5)],
    "hol": [(5.3, 52.2), (7.2, 53)],
    "ruh": [(7.5, 50.8)],
    "kie": [(9.8, 54.5), (9.5, 52.5)],
    "ber": [(13.5, 53)],
    "mun": [(9.3, 48), (11, 50), (13.5, 51)],
    "sil": [(16.5, 51.5), (18.5, 50.5)],
    "pru": [(17.5, 54.3), (21, 54.8)],
    "boh": [(13.5, 49.8), (18.5, 49.3)],
    "vie": [(15.5, 47.8), (19, 48.0)],
    "bud": [(19, 46.8), (22, 46.3)],
    "gal": [(20.5, 49.5), (25, 48.8)],
    "tri": [(14.5, 45.6), (17.5, 43.6), (18.5, 42.3)],
    # Balkans, Turkey
    "ser": [(21, 44.5), (21.8, 42)],
    "alb": [(19.8, 41.3), (19.9, 40)],
    "gre": [(21.5, 39.5), (23, 40.5)],
    "bul": [(25, 42.6)],
    "rum": [(25.5, 45.5), (27.5, 46.3)],
    "con": [(28.3, 41.2)],
    "ank": [(33, 40.8)],
    "smy": [(28.5, 38.5), (32, 38)],
    "arm": [(41, 40), (44, 40)],
    "syr": [(37.5, 35)],
    # Scandinavia, Russia
    "den": [(9.3, 56)],
    "swe": [(14.5, 58), (17, 62), (21, 67.5)],
    "nwy": [(7, 60), (13, 65), (20, 68.5), (26, 69)],
    "fin": [(25, 62), (25.5, 67)],
    "stp": [(29.5, 59.8), (33, 64), (32, 68.8)],
    "lvn": [(24, 57.5), (27, 58.5), (24.5, 55.5)],
    "mos": [(37, 55.5), (28, 53.5)],
    "war": [(21, 52), (23, 52.5)],
    "ukr": [(27, 50), (30, 49.5), (29, 47.5)],
    "sev": [(31.5, 46.5), (36, 46.2), (41, 43.5)],
}

NAMED_COASTS = {  # a multi-coast province's runs, told apart by a sea each touches
    "spa": {"sc": "wes", "nc": None},
    "bul": {"ec": "bla", "sc": "aeg"},
    "stp": {"nc": "bar", "sc": "bot"},
}


def project(lon: float, lat: float) -> tuple[float, float]:
    return lon * XSTRETCH, lat


LON_C, LAT_C, LINEAR = 14.0, 49.0, 0.68  # the picture is magnified around here: the board is crowded there


def _warp(u: float, low: float, centre: float, high: float) -> float:
    """-1..1 → low..high, passing ``centre`` at 0 with a gentle slope (a cubic): denser near the centre."""
    s = LINEAR * u + (1 - LINEAR) * u ** 3
    return centre + s * ((centre - low) if s < 0 else (high - centre))


def cell_lonlat(i: int, j: int) -> tuple[float, float]:
    u = 2 * (i + 0.5) / W - 1
    v = 1 - 2 * (j + 0.5) / H
    return _warp(u, LON0, LON_C, LON1), _warp(v, LAT0, LAT_C, LAT1)


def seg_dist(p, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    if dx == dy == 0:
        return math.hypot(px - ax, py - ay)
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def assign() -> list[list[str]]:
    skel = {p: [project(*q) for q in pts] for p, pts in SKELETONS.items()}
    grid = [[""] * W for _ in range(H)]
    for j in range(H):
        for i in range(W):
            p = project(*cell_lonlat(i, j))
            best, best_d = "", math.inf
            for prov, pts in skel.items():
                segs = zip(pts, pts[1:]) if len(pts) > 1 else [(pts[0], pts[0])]
                d = min(seg_dist(p, a, b) for a, b in segs)
                if d < best_d:
                    best, best_d = prov, d
            grid[j][i] = best
    return grid


NEIGH = ((1, 0), (-1, 0), (0, 1), (0, -1))


def components(grid, prov):
    cells = {(i, j) for j in range(H) for i in range(W) if grid[j][i] == prov}
    comps = []
    while cells:
        start = cells.pop()
        comp, queue = {start}, deque([start])
        while queue:
            i, j = queue.popleft()
            for di, dj in NEIGH:
                n = (i + di, j + dj)
                if n in cells:
                    cells.remove(n)
                    comp.add(n)
                    queue.append(n)
        comps.append(comp)
    return sorted(comps, key=len, reverse=True)


def clean(grid) -> None:
    """One piece per province, no diagonal pinches; repeated until nothing changes."""
    changed = True
    while changed:
        changed = False
        for prov in SKELETONS:
            for comp in components(grid, prov)[1:]:
                for i, j in comp:
                    votes = Counter(grid[j + dj][i + di] for di, dj in NEIGH
                                    if 0 <= i + di < W and 0 <= j + dj < H and grid[j + dj][i + di] != prov)
                    if votes:
                        grid[j][i] = votes.most_common(1)[0][0]
                        changed = True
        for j in range(H - 1):
            for i in range(W - 1):
                a, b, c, d = grid[j][i], grid[j][i + 1], grid[j + 1][i], grid[j + 1][i + 1]
                if a == d and b != a and c != a:
                    grid[j][i + 1] = a
                    changed = True
                elif b == c and a != b and d != b:
                    grid[j][i] = b
                    changed = True


def owner(grid, i, j) -> str:
    return grid[j][i] if 0 <= i < W and 0 <= j < H else "#"


def trace(grid, prov):
    """The province's boundary as a loop of grid vertices, each edge with the owner beyond it."""
    edges = {}
    for j in range(H):
        for i in range(W):
            if grid[j][i] != prov:
                continue
            # the province on the left when walking the edge (y grows downward)
            if owner(grid, i, j - 1) != prov:
                edges[(i + 1, j)] = ((i, j), owner(grid, i, j - 1))
            if owner(grid, i - 1, j) != prov:
                edges[(i, j)] = ((i, j + 1), owner(grid, i - 1, j))
            if owner(grid, i, j + 1) != prov:
                edges[(i, j + 1)] = ((i + 1, j + 1), owner(grid, i, j + 1))
            if owner(grid, i + 1, j) != prov:
                edges[(i + 1, j + 1)] = ((i + 1, j), owner(grid, i + 1, j))
    start = min(edges)
    loop, v = [], start
    while True:
        nxt, other = edges.pop(v)
        loop.append((v, other))
        v = nxt
        if v == start:
            break
    if edges:
        raise SystemExit(f"{prov}: its cells have a hole or more than one boundary")
    return loop


def junction(grid, v) -> bool:
    i, j = v
    return len({owner(grid, i - 1, j - 1), owner(grid, i, j - 1), owner(grid, i - 1, j), owner(grid, i, j)}) >= 3


TOLERANCE = 1.1  # cells: how far a simplified border may stray from the raster's staircase


def simplify(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Douglas-Peucker on one chain: its two ends always stay."""
    if len(points) < 3:
        return points
    (ax, ay), (bx, by) = points[0], points[-1]
    length = math.hypot(bx - ax, by - ay)
    far, far_d = 0, -1.0
    for k in range(1, len(points) - 1):
        px, py = points[k]
        d = (abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / length) if length else math.hypot(px - ax, py - ay)
        if d > far_d:
            far, far_d = k, d
    if far_d <= TOLERANCE:
        return [points[0], points[-1]]
    return simplify(points[:far + 1])[:-1] + simplify(points[far:])


def chains(grid, loop):
    """The loop cut at every point where three territories meet: (points, the owner beyond) for each
    piece. Along one piece the territory beyond never changes."""
    n = len(loop)
    cuts = [k for k in range(n) if junction(grid, loop[k][0])]
    out = []
    for a, b in zip(cuts, cuts[1:] + [cuts[0] + n]):
        pts = [loop[k % n][0] for k in range(a, b + 1)]
        out.append((pts, loop[a % n][1]))
    return out


def build(grid):
    seas = {p for p, t in PROVINCE_TYPES.items() if t == "sea"}
    simplified: dict[tuple, list] = {}  # one simplification per chain, shared by both its sides

    def smooth(pts):
        key = tuple(pts) if tuple(pts) <= tuple(reversed(pts)) else tuple(reversed(pts))
        if key not in simplified:
            simplified[key] = simplify(list(key))
        out = simplified[key]
        return out if key == tuple(pts) else list(reversed(out))

    pt = lambda v: [v[0] * SCALE, v[1] * SCALE]  # noqa: E731
    territories = {}
    for prov in SKELETONS:
        pieces = [(smooth(pts), other) for pts, other in chains(grid, trace(grid, prov))]
        border = [pt(v) for pts, _ in pieces for v in pts[:-1]]
        ptype = PROVINCE_TYPES[prov]
        region = {"sea": "ocean", "impassable": "impassable"}.get(ptype, "land")
        terr = {"region": region, "at": label_cell(grid, prov), "border": border}
        if ptype == "coast":
            runs = coast_runs(pieces, seas)
            named = NAMED_COASTS.get(prov)
            if named:
                coasts = {}
                for name, sea in sorted(named.items()):
                    mine = [r for r, touched in runs if (sea in touched if sea else not any(
                        s in touched for s in named.values() if s))]
                    if len(mine) != 1:
                        raise SystemExit(f"{prov}: coast {name} is {len(mine)} runs of its border")
                    coasts[name] = [[pt(v) for v in mine[0]]]
                terr["coasts"] = coasts
            else:
                terr["coast"] = [[pt(v) for v in r] for r, _ in runs]
        territories[prov] = terr
    return territories


def coast_runs(pieces, seas):
    """Each maximal run of the border along the sea: its points, and the seas it touches."""
    n = len(pieces)
    first = next((k for k in range(n) if pieces[k][1] not in seas), None)
    if first is None:
        raise SystemExit("an island province: its coast has no ends")
    runs, current, touched = [], None, set()
    for step in range(1, n + 1):
        pts, other = pieces[(first + step) % n]
        if other in seas:
            if current is None:
                current, touched = list(pts), set()
            else:
                current += pts[1:]
            touched.add(other)
        elif current is not None:
            runs.append((current, touched))
            current = None
    if current is not None:
        runs.append((current, touched))
    return runs


def label_cell(grid, prov):
    """The cell deepest inside the province (farthest from any other), as a drawing point."""
    dist = {}
    queue = deque()
    for j in range(H):
        for i in range(W):
            if grid[j][i] == prov and any(owner(grid, i + di, j + dj) != prov for di, dj in NEIGH):
                dist[(i, j)] = 0
                queue.append((i, j))
    while queue:
        i, j = queue.popleft()
        for di, dj in NEIGH:
            n = (i + di, j + dj)
            if n not in dist and owner(grid, *n) == prov:
                dist[n] = dist[(i, j)] + 1
                queue.append(n)
    (i, j) = max(dist, key=lambda c: (dist[c], -abs(c[0] - W / 2)))
    return [i * SCALE + SCALE // 2, j * SCALE + SCALE // 2]


STANDARD = load_map("standard")
PROVINCE_TYPES = {p.id: p.type for p in STANDARD.provinces.values()}


def province_diffs(grid):
    """Province-level adjacency of the raster against the standard map's (Switzerland free)."""
    got = set()
    for j in range(H):
        for i in range(W):
            for di, dj in ((1, 0), (0, 1)):
                o = owner(grid, i + di, j + dj)
                a = grid[j][i]
                if o not in ("#", a):
                    got.add(tuple(sorted((a, o))))
    want = {tuple(sorted((a.split("/")[0], b.split("/")[0]))) for a, b in STANDARD.army_edges | STANDARD.fleet_edges}
    missing = sorted(want - got)
    extra = sorted(e for e in got - want if "swi" not in e)
    return missing, extra


def main() -> int:
    grid = assign()
    clean(grid)
    missing, extra = province_diffs(grid)
    if missing or extra:
        print("missing:", " ".join(f"{a}-{b}" for a, b in missing))
        print("extra:  ", " ".join(f"{a}-{b}" for a, b in extra))
        if "--raster" in sys.argv:
            for row in grid:
                print("".join(p[0] for p in row))
        return 1
    territories = build(grid)
    data = {"size": [W * SCALE, H * SCALE], "territories": territories}
    geometry = parse_geometry(data, "standard-geometry")
    adj = derive(geometry, "standard-geometry")
    bad = []
    for kind, listed, derived in (("army", STANDARD.army_edges, adj.army), ("fleet", STANDARD.fleet_edges, adj.fleet)):
        for a, b in sorted(listed - derived):
            if a < b:
                bad.append(f"{kind} missing {a}-{b}")
        for a, b in sorted(derived - listed):
            if a < b:
                bad.append(f"{kind} extra {a}-{b}")
    if bad:
        print("\n".join(bad))
        return 1
    if "--check" not in sys.argv:
        write(data)
    print(f"adjacency agrees: {len(adj.army) // 2} army, {len(adj.fleet) // 2} fleet edges")
    return 0


def write(data) -> None:
    src = yaml.safe_load((ROOT / "fivedp_asp/maps/standard.yaml").read_text(encoding="utf-8"))
    out = ROOT / "fivedp_asp/maps/standard-geometry.yaml"
    lines = [
        "# The standard map as geometry, drawn by tools/make_geometry.py (do not edit by hand: run it again).",
        "# Adjacency is not listed: it follows from the borders and coasts (docs/rules.md, \"Maps from geometry\").",
    ]
    head = {k: src[k] for k in ("name", "title", "powers", "coasts")}
    head["name"] = "standard-geometry"
    head["title"] = "Standard Diplomacy (drawn from geometry)"
    provinces = {}
    for pid, details in src["provinces"].items():
        provinces[pid] = {k: v for k, v in details.items() if k not in ("type", "coasts")}
    lines.append(yaml.safe_dump({**head, "provinces": provinces, "start": src["start"]}, sort_keys=False,
                                allow_unicode=True, default_flow_style=None, width=120).rstrip())
    lines.append("geometry:")
    lines.append(f"  size: {data['size']}")
    lines.append("  territories:")
    for tid, terr in data["territories"].items():
        lines.append(f"    {tid}:")
        lines.append(f"      region: {terr['region']}")
        lines.append(f"      at: {terr['at']}")
        lines.append(f"      border: {flat(terr['border'])}")
        if "coast" in terr:
            lines.append(f"      coast: [{', '.join(flat(p) for p in terr['coast'])}]")
        for name, paths in terr.get("coasts", {}).items():
            lines.append(f"      coasts:" if name == next(iter(terr["coasts"])) else "")
            lines.append(f"        {name}: [{', '.join(flat(p) for p in paths)}]")
    out.write_text("\n".join(x for x in lines if x != "") + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


def flat(points) -> str:
    return "[" + ", ".join(f"[{x}, {y}]" for x, y in points) + "]"


if __name__ == "__main__":
    sys.exit(main())
