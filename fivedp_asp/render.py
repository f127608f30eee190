"""Pictures of the multiverse: one self-contained HTML page (inline SVG and CSS, no scripts, nothing
fetched), and single boards as SVG.

Each step is drawn as a grid of boards, timelines as rows and turns as columns, so that boards of the
same turn stand above each other. The map's polygons are drawn once per picture (``<symbol>``) and
placed on every board with ``<use>``, so a picture grows with units and orders, not with the map.
Orders are drawn in the picture's own coordinates, which lets a move or support reach from one board
to another. Every unit, supply centre and order carries a ``<title>``: details show on hover.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .errors import InputError
from .geometry import Geometry
from .map import GameMap
from .multiverse import Board, Multiverse, board_name, season_name, unit_text
from .notation import timeline_name
from .orders import Place, ResolvedOrder

POWER_COLOURS = {
    "Austria": "#d9463e", "England": "#2f57b3", "France": "#6cb7e8", "Germany": "#6b6257",
    "Italy": "#3d9a46", "Russia": "#9a6fc9", "Turkey": "#e8c23a",
}
PALETTE = ("#d9463e", "#2f57b3", "#6cb7e8", "#6b6257", "#3d9a46", "#9a6fc9", "#e8c23a", "#e07b28", "#2aa198")
UNIT_R = 20  # a unit's size, in map units
MARKERS = {"convoy": "convoy", "support_move": "support", "jump_assist": "assist"}


@dataclass(frozen=True)
class DrawnOrder:
    """An order to draw, with its result (None where the picture does not know it)."""

    order: ResolvedOrder
    result: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Frame:
    """One picture: a multiverse, the orders of one step drawn on it, and the step's text."""

    title: str
    mv: Multiverse
    orders: tuple[DrawnOrder, ...] = ()
    text: tuple[str, ...] = ()
    new_timelines: tuple[int, ...] = ()
    acting: frozenset[tuple[int, int]] = frozenset()
    phase: str = "movement"


# -- colours and small shapes -------------------------------------------------------------------


def power_colours(game_map: GameMap) -> dict[str, str]:
    return {p: POWER_COLOURS.get(p, PALETTE[i % len(PALETTE)]) for i, p in enumerate(game_map.powers)}


def _e(text: object) -> str:
    """Text for an HTML or SVG text node or a double- or single-quoted attribute. Every name that comes
    from input (powers, provinces, coasts, titles, ids, orders, reasons, file names) goes through here:
    maps and game files travel between people, and a picture must be safe to open."""
    return html.escape(str(text), quote=True)


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def csp_meta(style: str, scripts: Sequence[str] = ()) -> str:
    """The page's Content-Security-Policy: nothing fetched, only our own style element and scripts
    (each allowed by its sha256), so that even a name that escaped escaping could not run or load
    anything (defence in depth)."""
    script = " ".join(f"'sha256-{_sha256(s)}'" for s in scripts) or "'none'"
    policy = (f"default-src 'none'; style-src 'sha256-{_sha256(style)}'; script-src {script}; "
              "img-src 'none'; base-uri 'none'; form-action 'none'")
    return f'<meta http-equiv="Content-Security-Policy" content="{_e(policy)}">'


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def unit_shape(kind: str, x: float, y: float, r: float, colour: str, extra: str = "", cls: str = "tok") -> str:
    """An army is a round token, a fleet a pointed one (a diamond): told apart without colour or text."""
    if kind == "army":
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{_e(colour)}" class="{_e(cls)}"{extra}/>'
    pts = f"{_f(x - r * 1.25)},{_f(y)} {_f(x)},{_f(y - r)} {_f(x + r * 1.25)},{_f(y)} {_f(x)},{_f(y + r)}"
    return f'<polygon points="{pts}" fill="{_e(colour)}" class="{_e(cls)}"{extra}/>'


# -- the map itself -----------------------------------------------------------------------------


def map_symbol(geometry: Geometry, symbol_id: str = "map", labels: bool = True) -> str:
    """The map drawn once: territories filled by region, borders, names."""
    parts = [f'<symbol id="{_e(symbol_id)}" viewBox="0 0 {geometry.size[0]} {geometry.size[1]}">']
    for terr in geometry.territories.values():
        pts = " ".join(f"{x},{y}" for x, y in terr.border)
        parts.append(f'<polygon class="t {_e(terr.region)}" points="{pts}"/>')
    if labels:
        for terr in geometry.territories.values():
            x, y = geometry.label_point(terr.id)
            parts.append(f'<text class="lbl" x="{_f(x)}" y="{_f(y + 34)}">{_e(terr.id.capitalize())}</text>')
    parts.append("</symbol>")
    return "".join(parts)


# -- layout ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each board stands in the picture and at what scale."""

    geometry: Geometry
    origin: Mapping[tuple[int, int], tuple[float, float]]
    scale: float = 1.0
    width: float = 0.0
    height: float = 0.0

    def point(self, board: tuple[int, int], xy: tuple[float, float]) -> tuple[float, float]:
        ox, oy = self.origin[board]
        return ox + xy[0] * self.scale, oy + xy[1] * self.scale


LEFT, TOP, GAP = 46.0, 30.0, 26.0


def grid_layout(mv: Multiverse, geometry: Geometry, board_width: float | None = None) -> Layout:
    """Timelines as rows, turns as columns: boards of one turn stand in one column. Boards shrink as
    the grid widens, to keep a picture about 1800 pixels wide (never under 120 pixels a board)."""
    turns = sorted({n for _, n in mv.boards})
    lines = sorted({t for t, _ in mv.boards})
    first = turns[0]
    columns = turns[-1] - first + 1
    if board_width is None:
        board_width = max(120.0, min(420.0, (1800.0 - LEFT) / columns - GAP))
    scale = board_width / geometry.size[0]
    board_height = geometry.size[1] * scale
    origin = {(t, n): (LEFT + (n - first) * (board_width + GAP), TOP + lines.index(t) * (board_height + GAP))
              for t, n in mv.boards}
    return Layout(geometry, origin, scale, LEFT + columns * (board_width + GAP), TOP + len(lines) * (board_height + GAP))


# -- positions ---------------------------------------------------------------------------------------


def unit_point(geometry: Geometry, location: str) -> tuple[float, float]:
    return geometry.coast_point(location) if "/" in location else geometry.label_point(location)


def centre_point(geometry: Geometry, province: str) -> tuple[float, float]:
    x, y = geometry.label_point(province)
    return x + 30, y - 26


def displaced_point(geometry: Geometry, location: str) -> tuple[float, float]:
    """Where a dislodged unit waiting to retreat is drawn: beside its province's own unit."""
    x, y = unit_point(geometry, location)
    return x - 30, y + 30


def retreat_options(mv: Multiverse, board: Board, retreat) -> list[str]:
    """Where a dislodged unit may go: neighbours of its kind, empty, not where the attack came from,
    not left vacant by a standoff (RULES.md retreats)."""
    unit = retreat.unit
    out = []
    for loc in mv.game_map.neighbours.get((unit.kind, unit.location), ()):
        prov = loc.split("/", 1)[0]
        if prov in board.units or prov == retreat.attacker_from or prov in retreat.barred:
            continue
        out.append(loc)
    return out


# -- drawing one picture -----------------------------------------------------------------------------


class _Svg:
    """Collects a picture's elements in layers (boards, then orders above them)."""

    def __init__(self) -> None:
        self.boards: list[str] = []
        self.orders: list[str] = []


def _board_title(mv: Multiverse, board: Board) -> str:
    lines = [f"{board.name}: {season_name(board.turn)}" + ("" if board.phase == "movement" else f", waiting for {board.phase}")]
    for power in sorted({u.power for u in board.units.values()} | set(board.centers.values())):
        units = sorted(unit_text(u, mv.game_map) for u in board.units.values() if u.power == power)
        centres = sorted(p.capitalize() for p, o in board.centers.items() if o == power)
        lines.append(f"{power}: {', '.join(units) or '-'} [{len(centres)} centres]")
    for r in board.retreats:
        lines.append(f"{r.unit.power} must retreat: {unit_text(r.unit, mv.game_map)}")
    return "\n".join(lines)


def _draw_board(svg: _Svg, mv: Multiverse, board: Board, layout: Layout, colours: Mapping[str, str],
                acting: bool, forked_from: str | None) -> None:
    geo, k = layout.geometry, layout.scale
    ox, oy = layout.origin[board.key]
    w, h = geo.size[0] * k, geo.size[1] * k
    cls = "board acting" if acting else "board"
    out = [f'<g class="{cls}" id="board-{_e(board.name)}" data-board="{_e(board.name)}">',
           f"<title>{_e(_board_title(mv, board))}</title>",
           f'<rect class="frame" x="{_f(ox - 3)}" y="{_f(oy - 3)}" width="{_f(w + 6)}" height="{_f(h + 6)}"/>',
           f'<use href="#map" x="{_f(ox)}" y="{_f(oy)}" width="{_f(w)}" height="{_f(h)}"/>',
           f'<text class="bname" x="{_f(ox + 4)}" y="{_f(oy + 14)}">{_e(board.name)} · {_e(season_name(board.turn))}'
           + (f" · {_e(board.phase)}" if board.phase != "movement" else "") + "</text>"]
    if forked_from:
        out.append(f'<text class="fork" x="{_f(ox + 4)}" y="{_f(oy + h - 6)}">forked from {_e(forked_from)}</text>')
    out.append(f'<g transform="translate({_f(ox)},{_f(oy)}) scale({k:.5f})">')
    for prov in mv.game_map.supply_centers:
        owner = board.centers.get(prov)
        x, y = centre_point(geo, prov)
        fill = colours.get(owner, "#ffffff") if owner else "#ffffff"
        who = owner or "neutral"
        out.append(f'<circle class="sc" data-sc="{_e(board.name)}:{_e(prov)}" cx="{_f(x)}" cy="{_f(y)}" r="11" fill="{fill}">'
                   f"<title>{_e(mv.game_map.provinces[prov].name)} ({_e(board.name)}): {_e(who)}</title></circle>")
    for unit in sorted(board.units.values(), key=lambda u: u.location):
        x, y = unit_point(geo, unit.location)
        title = f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} on {_e(board.name)}</title>"
        out.append(f'<g class="unit" data-unit="{_e(board.name)}:{_e(unit.province)}">'
                   + unit_shape(unit.kind, x, y, UNIT_R, colours.get(unit.power, "#888")) + title + "</g>")
    for r in board.retreats:
        unit = r.unit
        x, y = displaced_point(geo, unit.location)
        ux, uy = unit_point(geo, unit.location)
        options = retreat_options(mv, board, r)
        opts_text = ", ".join(mv.game_map.short_name(o) for o in options) or "none: it must disband"
        out.append(f'<g class="unit dislodged" data-unit="{_e(board.name)}:{_e(unit.province)}:dislodged">'
                   f'<line class="displace" x1="{_f(ux)}" y1="{_f(uy)}" x2="{_f(x)}" y2="{_f(y)}"/>'
                   + unit_shape(unit.kind, x, y, UNIT_R * 0.9, colours.get(unit.power, "#888"), ' stroke-dasharray="6 4"')
                   + f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} dislodged on {_e(board.name)}; "
                   f"may retreat to {_e(opts_text)}</title>")
        for opt in options:
            tx, ty = unit_point(geo, opt)
            mx, my = _shorten((x, y), (tx, ty), UNIT_R * 0.8)
            out.append(f'<line class="option" x1="{_f(x)}" y1="{_f(y)}" x2="{_f(mx)}" y2="{_f(my)}" marker-end="url(#m-option)"/>')
        out.append("</g>")
    out.append("</g></g>")
    svg.boards.append("".join(out))


def _place_point(mv: Multiverse, layout: Layout, place: Place, prefer_unit: bool = True) -> tuple[float, float] | None:
    if place is None or place.board not in layout.origin:
        return None
    board = mv.boards[place.board]
    loc = place.province
    unit = board.units.get(place.province)
    if prefer_unit and unit is not None:
        loc = unit.location
    elif place.coast:
        loc = f"{place.province}/{place.coast}"
    if loc.split("/")[0] not in layout.geometry.territories:
        return None
    return layout.point(place.board, unit_point(layout.geometry, loc))


def _unit_point_at(mv: Multiverse, layout: Layout, place: Place, retreating: bool = False) -> tuple[float, float] | None:
    """Where the ordered unit is drawn: its token, or its displaced token when it is retreating."""
    if place is None or place.board not in layout.origin:
        return None
    board = mv.boards[place.board]
    if retreating:
        r = next((r for r in board.retreats if r.unit.province == place.province), None)
        if r is not None:
            return layout.point(place.board, displaced_point(layout.geometry, r.unit.location))
    return _place_point(mv, layout, place)


def _shorten(a, b, by: float):
    """The segment a→b with ``by`` taken off its end (so an arrowhead stops short of a token)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy)
    if d <= by * 2 or d == 0:
        return b
    return b[0] - dx / d * by, b[1] - dy / d * by


def _path(a, b, curved: bool) -> str:
    if not curved:
        return f"M{_f(a[0])},{_f(a[1])} L{_f(b[0])},{_f(b[1])}"
    # between boards: a bow, so that the arrow does not run along a board's edge
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    bow = min(80.0, d * 0.25)
    cx, cy = mx - dy / d * bow, my + dx / d * bow
    return f"M{_f(a[0])},{_f(a[1])} Q{_f(cx)},{_f(cy)} {_f(b[0])},{_f(b[1])}"


def _mid(path_a, path_b, curved: bool):
    if not curved:
        return (path_a[0] + path_b[0]) / 2, (path_a[1] + path_b[1]) / 2
    mx, my = (path_a[0] + path_b[0]) / 2, (path_a[1] + path_b[1]) / 2
    dx, dy = path_b[0] - path_a[0], path_b[1] - path_a[1]
    d = math.hypot(dx, dy) or 1.0
    bow = min(80.0, d * 0.25) / 2
    return mx - dy / d * bow, my + dx / d * bow


def _draw_order(svg: _Svg, mv: Multiverse, layout: Layout, drawn: DrawnOrder, index: int, phase: str,
                colours: Mapping[str, str]) -> None:
    r = drawn.order
    result = drawn.result or "unknown"
    tok = UNIT_R * layout.scale * 1.2
    title = f"<title>{_e(r.power)}: {_e(r.text)} — {_e(result)}{' (' + _e(drawn.reason) + ')' if drawn.reason else ''}</title>"
    cls = f"order {r.kind} {result}"
    head = f'<g class="{_e(cls)}" data-order="{index}">'
    retreating = phase == "retreat"
    start = _unit_point_at(mv, layout, r.unit, retreating) if r.unit is not None else None
    body = ""
    if r.kind in ("move",) and start and r.dest is not None:
        end = _place_point(mv, layout, r.dest, prefer_unit=False)
        if end:
            cross = r.unit.board != r.dest.board
            end = _shorten(start, end, tok * 0.6)
            marker = "retreat" if retreating else ("fail" if result == "fails" else "move")
            body = f'<path class="arrow" d="{_path(start, end, cross)}" marker-end="url(#m-{marker})"/>'
            if result == "fails":
                mx, my = _mid(start, end, cross)
                s = tok * 0.55
                body += (f'<path class="failmark" d="M{_f(mx - s)},{_f(my - s)} L{_f(mx + s)},{_f(my + s)} '
                         f'M{_f(mx - s)},{_f(my + s)} L{_f(mx + s)},{_f(my - s)}"/>')
    elif r.kind in ("support_move", "convoy", "jump_assist") and start and r.target is not None and r.dest is not None:
        a = _place_point(mv, layout, r.target)
        b = _place_point(mv, layout, r.dest, prefer_unit=False)
        if a and b:
            target_cross = r.target.board != r.dest.board
            mid = _mid(a, b, target_cross)
            cross = r.unit.board != r.target.board
            body = f'<path class="arrow" d="{_path(start, _shorten(start, mid, tok * 0.3), cross)}" marker-end="url(#m-{MARKERS.get(r.kind, "support")})"/>'
    elif r.kind == "support_hold" and start and r.target is not None:
        a = _place_point(mv, layout, r.target)
        if a:
            cross = r.unit.board != r.target.board
            body = (f'<path class="arrow" d="{_path(start, _shorten(start, a, tok), cross)}"/>'
                    f'<circle class="ring" cx="{_f(a[0])}" cy="{_f(a[1])}" r="{_f(tok * 1.1)}"/>')
    elif r.kind == "open_convoy" and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.2)}"/>'
    elif r.kind == "hold" and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.05)}"/>'
    elif r.kind == "disband" and start:
        s = tok * 0.9
        body = (f'<path class="arrow" d="M{_f(start[0] - s)},{_f(start[1] - s)} L{_f(start[0] + s)},{_f(start[1] + s)} '
                f'M{_f(start[0] - s)},{_f(start[1] + s)} L{_f(start[0] + s)},{_f(start[1] - s)}"/>')
    elif r.kind == "build" and r.unit is not None and r.unit.board in layout.origin:
        loc = f"{r.unit.province}/{r.unit.coast}" if r.unit.coast else r.unit.province
        if r.unit.province in layout.geometry.territories:
            x, y = layout.point(r.unit.board, unit_point(layout.geometry, loc))
            body = (unit_shape(r.unit_kind or "army", x, y, tok * 0.8, colours.get(r.power, "#888"), cls="tok built")
                    + f'<circle class="ring" cx="{_f(x)}" cy="{_f(y)}" r="{_f(tok * 1.1)}"/>')
    if not body:
        # waives, and orders that name no place on the picture: kept, invisible, so each order appears once
        body = '<g class="unplaced"/>'
    svg.orders.append(head + title + body + "</g>")


def _defs(game_map: GameMap) -> str:
    markers = {"move": "#1b1b1b", "fail": "#c62828", "support": "#2e7d32", "convoy": "#1565c0", "retreat": "#8e24aa",
               "fork": "#8e24aa", "option": "#8e24aa", "assist": "#ef6c00"}
    out = ["<defs>"]
    for name, colour in markers.items():
        out.append(f'<marker id="m-{name}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
                   f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
    out.append(map_symbol(game_map.geometry))
    out.append("</defs>")
    return "".join(out)


def frame_svg(frame: Frame, board_width: float | None = None) -> str:
    """One step's multiverse as an SVG grid, with its orders and the forks it made."""
    mv = frame.mv
    geometry = mv.game_map.geometry
    if geometry is None:
        raise InputError(f"map {mv.game_map.name!r} has no geometry to draw (give it a 'geometry')")
    layout = grid_layout(mv, geometry, board_width)
    colours = power_colours(mv.game_map)
    svg = _Svg()
    firsts = {}
    for t, n in sorted(mv.boards):
        firsts.setdefault(t, n)
    for key in sorted(mv.boards):
        board = mv.boards[key]
        fork = mv.forks.get(board.timeline)
        forked_from = board_name(*fork) if fork and firsts[board.timeline] == board.turn else None
        _draw_board(svg, mv, board, layout, colours, key in frame.acting, forked_from)
    for i, drawn in enumerate(frame.orders):
        _draw_order(svg, mv, layout, drawn, i, frame.phase, colours)
    forks = []
    for t, (parent, turn) in sorted(mv.forks.items()):
        first = (t, firsts.get(t))
        if (parent, turn) in layout.origin and first in layout.origin:
            k = layout.scale
            a = layout.point((parent, turn), (geometry.size[0] / 2, geometry.size[1]))
            b = layout.point(first, (0, geometry.size[1] / 2))
            new = " new" if t in frame.new_timelines else ""
            forks.append(f'<g class="forkline{new}"><title>timeline {timeline_name(t)} forked from '
                         f'{board_name(parent, turn)}</title><path d="{_path(a, b, True)}" marker-end="url(#m-fork)"/></g>')
    lines = sorted({t for t, _ in mv.boards})
    labels = []
    for t in lines:
        n = firsts[t]
        _, y = layout.origin[(t, n)]
        labels.append(f'<text class="tl" x="8" y="{_f(y + geometry.size[1] * layout.scale / 2)}">{_e(timeline_name(t))}</text>')
    for n in sorted({n for _, n in mv.boards}):
        x = min(layout.origin[k][0] for k in mv.boards if k[1] == n)
        labels.append(f'<text class="turn" x="{_f(x)}" y="{_f(TOP - 10)}">{_e(season_name(n))} (turn {n})</text>')
    w, h = layout.width, layout.height
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse" viewBox="0 0 {_f(w)} {_f(h)}" '
            f'width="{_f(w)}" height="{_f(h)}">' + _defs(mv.game_map) + "".join(labels) + "".join(svg.boards)
            + '<g class="orders">' + "".join(forks) + "".join(svg.orders) + "</g></svg>")


def board_svg(frame: Frame, board_key: tuple[int, int], standalone: bool = True) -> str:
    """One board, large: its units, centres and the orders given on it (orders reaching other boards
    end at the board's edge with the other board's name)."""
    mv = frame.mv
    geometry = mv.game_map.geometry
    if geometry is None:
        raise InputError(f"map {mv.game_map.name!r} has no geometry to draw")
    board = mv.boards[board_key]
    width, height = geometry.size[0] + 20, geometry.size[1] + 50
    origin = {board_key: (10.0, 40.0)}
    mine = [d for d in frame.orders if d.order.unit is not None and d.order.unit.board == board_key]
    # other boards are off the picture: give them a place beyond the right edge
    for d in mine:
        for p in (d.order.target, d.order.dest):
            if p is not None and p.board not in origin and p.board in mv.boards:
                origin[p.board] = (width + 40, 40.0)
    layout = Layout(geometry, origin, 1.0, width, height)
    colours = power_colours(mv.game_map)
    svg = _Svg()
    fork = mv.forks.get(board.timeline)
    first = min(n for t, n in mv.boards if t == board.timeline)
    _draw_board(svg, mv, board, layout, colours, False, board_name(*fork) if fork and first == board.turn else None)
    for i, drawn in enumerate(mine):
        _draw_order(svg, mv, layout, drawn, i, frame.phase, colours)
    w = max(x for x, _ in layout.origin.values()) + (geometry.size[0] if len(layout.origin) == 1 else 60)
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    style = f"<style>{CSS}</style>" if standalone else ""
    return (f'<svg{ns} class="multiverse single" viewBox="0 0 {_f(w)} {_f(layout.height)}" width="{_f(w)}" '
            f'height="{_f(layout.height)}">' + style + _defs(mv.game_map) + "".join(svg.boards)
            + '<g class="orders">' + "".join(svg.orders) + "</g></svg>")


# -- the page --------------------------------------------------------------------------------------

CSS = """
svg,body{font-family:system-ui,sans-serif;}
body{margin:16px;background:#fafafa;color:#222}
h1{font-size:20px;margin:0 0 6px} h2{font-size:16px;margin:22px 0 6px}
.step{margin-bottom:26px} .scroll{overflow-x:auto}
pre{background:#fff;border:1px solid #ddd;padding:8px;font-size:12px;overflow-x:auto}
.t.ocean{fill:#bcd9f0;stroke:#7fa9c9;stroke-width:2}
.t.land{fill:#f1ead8;stroke:#8b7f66;stroke-width:2}
.t.impassable{fill:#b9b2a4;stroke:#8b7f66;stroke-width:2}
.lbl{font-size:26px;fill:#5c5344;text-anchor:middle;pointer-events:none}
.frame{fill:none;stroke:#4a4a4a;stroke-width:3}
.board.acting .frame{stroke:#e67e22;stroke-width:5}
.bname{font-size:12px;font-weight:600;fill:#222}
.fork{font-size:11px;fill:#8e24aa;font-weight:600}
.tl{font-size:18px;font-weight:700;fill:#333}
.turn{font-size:12px;fill:#333}
.sc{stroke:#222;stroke-width:3}
.tok{stroke:#111;stroke-width:3}
.dislodged .tok{opacity:.85}
.displace{stroke:#8e24aa;stroke-width:3;stroke-dasharray:4 4}
.option{stroke:#8e24aa;stroke-width:5;stroke-dasharray:3 6}
.order .arrow{fill:none;stroke-width:2.2}
.order.move .arrow{stroke:#1b1b1b}
.order.move.fails .arrow{stroke:#c62828;stroke-dasharray:6 3}
.order.support_move .arrow,.order.support_hold .arrow{stroke:#2e7d32;stroke-dasharray:2 3}
.order.convoy .arrow{stroke:#1565c0;stroke-dasharray:8 3 2 3}
.order.jump_assist .arrow{stroke:#ef6c00;stroke-dasharray:4 2}
.order.open_convoy .ring{stroke:#1565c0;stroke-dasharray:4 3}
.order.disband .arrow{stroke:#c62828}
.order.invalid .arrow{stroke:#999 !important;opacity:.7}
.order.fails.support_move .arrow,.order.fails.support_hold .arrow,.order.fails.convoy .arrow{opacity:.55}
.failmark{stroke:#c62828;stroke-width:3}
.single .order .arrow{stroke-width:4.5} .single .failmark{stroke-width:6} .single .ring{stroke-width:3.5}
.single .bname{font-size:22px} .single .fork{font-size:20px}
.ring{fill:none;stroke:#2e7d32;stroke-width:1.6}
.order.hold .ring{stroke:#555}
.forkline path{fill:none;stroke:#8e24aa;stroke-width:2;stroke-dasharray:5 4}
.forkline.new path{stroke-width:3.5}
.legend{display:flex;flex-wrap:wrap;gap:14px;align-items:center;font-size:13px;margin:8px 0 4px}
.legend svg{vertical-align:middle}
svg.hidden{position:absolute}
"""


def _legend(game_map: GameMap) -> str:
    colours = power_colours(game_map)
    items = []
    for power, colour in colours.items():
        items.append(f'<span><svg width="16" height="16"><circle cx="8" cy="8" r="7" fill="{colour}" stroke="#111"/></svg> '
                     f"{_e(power)}</span>")
    def line(cls: str, marker: str | None, label: str, extra: str = "") -> str:
        m = f' marker-end="url(#lg-{marker})"' if marker else ""
        return (f'<span><svg width="46" height="14"><g class="order {cls}"><path class="arrow" d="M2,7 L40,7"{m}/>{extra}</g></svg> '
                f"{_e(label)}</span>")
    defs = ('<svg width="0" height="0" class="hidden"><defs>'
            + "".join(f'<marker id="lg-{n}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto">'
                      f'<path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
                      for n, c in (("move", "#1b1b1b"), ("fail", "#c62828"), ("support", "#2e7d32"),
                                   ("convoy", "#1565c0"), ("retreat", "#8e24aa"), ("assist", "#ef6c00")))
            + "</defs></svg>")
    items += [
        '<span><svg width="18" height="18"><circle cx="9" cy="9" r="7" fill="#ccc" stroke="#111" stroke-width="1.5"/></svg> army</span>',
        '<span><svg width="22" height="18"><polygon points="2,9 11,2 20,9 11,16" fill="#ccc" stroke="#111" stroke-width="1.5"/></svg> fleet</span>',
        '<span><svg width="16" height="16"><circle cx="8" cy="8" r="4" fill="#fff" stroke="#111"/></svg> supply centre (owner\'s colour)</span>',
        line("move succeeds", "move", "move"),
        line("move fails", "fail", "move that fails",
             '<path class="failmark" d="M17,3 L25,11 M17,11 L25,3"/>'),
        line("support_move", "support", "support"),
        line("convoy", "convoy", "convoy"),
        line("jump_assist", "assist", "jump assist (option)"),
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" stroke="#8e24aa" stroke-width="2" stroke-dasharray="2 4"/></svg> '
        "dislodged unit (dashed outline) and its retreat options</span>",
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" stroke="#8e24aa" stroke-width="2.5" stroke-dasharray="5 4" '
        'marker-end="url(#lg-retreat)"/></svg> new timeline, from the board it forked from</span>',
        '<span><svg width="20" height="16"><rect x="2" y="2" width="16" height="12" fill="none" stroke="#e67e22" '
        'stroke-width="2.5"/></svg> board acting in the step</span>',
        "<span>curved arrows reach from board to board; hover over anything for details</span>",
    ]
    return defs + '<div class="legend">' + "".join(items) + "</div>"


def page(title: str, frames: Sequence[Frame], board_width: float | None = None) -> str:
    """The whole picture: a legend, then each step's grid with its text results beside it."""
    if not frames:
        raise InputError("nothing to draw")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', csp_meta(CSS),
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{_e(title)}</h1>", _legend(frames[0].mv.game_map)]
    for frame in frames:
        parts.append(f'<section class="step"><h2>{_e(frame.title)}</h2><div class="scroll">'
                     + frame_svg(frame, board_width) + "</div>")
        if frame.text:
            parts.append("<pre>" + _e("\n".join(frame.text)) + "</pre>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


# -- frames from scenarios and games ------------------------------------------------------------------


def _drawn_orders(report, lines: Mapping[str, Iterable[str]]) -> tuple[DrawnOrder, ...]:
    """The step's orders resolved against the multiverse they were given in, with their results."""
    from .step import read_orders

    results = {}
    for o in report.outcomes:
        results.setdefault((o.power, o.text), (o.result, o.reason))
    out = []
    seen = set()
    for _, r in read_orders(report.before, lines):
        if (r.power, r.text) in seen:
            continue
        seen.add((r.power, r.text))
        result, reason = results.get((r.power, r.text), (None, None))
        out.append(DrawnOrder(r, result, reason))
    return tuple(out)


def scenario_frames(path: str) -> tuple[str, list[Frame]]:
    from .cases import load_case, run_case
    from .cli import step_lines

    case = load_case(path)
    run = run_case(case)
    title = f"{case.id}: {case.title}" if case.title else case.id
    frames = []
    if not run.reports:
        frames.append(Frame("Start", case.start))
    for i, (report, step) in enumerate(zip(run.reports, case.steps), 1):
        lines = step_lines(report, i)
        new = tuple(t for t in report.after.forks if t not in report.before.forks)
        acting = frozenset(b.key for b in report.before.heads if b.phase == report.phase)
        frames.append(Frame(lines[0], report.after, _drawn_orders(report, step.orders), tuple(lines[1:]), new, acting,
                            report.phase))
    return title, frames


def game_frames(path: str) -> tuple[str, list[Frame]]:
    """A game: each step played, replayed from the game's start with the orders it recorded (as
    ``fivedp game export`` writes them), then the multiverse as it stands with the waiting orders."""
    from pathlib import Path

    from .game import load_game
    from .step import next_phase

    game = load_game(path)
    mv = game.mv
    title = f"Game {Path(path).stem}"
    frames = _replayed(game, title) if game.history else []
    if frames is None:
        frames = [_recorded_frame(mv, len(game.history))]
    text = [f"Timelines: {len(mv.timelines)}, boards: {len(mv.boards)}, steps played: {len(game.history)}"]
    if mv.winner:
        text.append(f"{mv.winner} has won.")
    text.append(f"Next: {next_phase(mv)}" + (", waiting orders:" if game.pending else ", no orders waiting"))
    for power, lines in sorted(game.pending.items()):
        text.append(f"  {power}: " + "; ".join(lines))
    acting = frozenset(b.key for b in mv.heads if b.phase == next_phase(mv))
    frames.append(Frame("Now", mv, (), tuple(text), acting=acting))
    return title, frames


def _replayed(game, title: str) -> list[Frame] | None:
    """The game's steps replayed as a scenario; None when the replay does not end where the game is
    (then the boards' records are drawn instead)."""
    import tempfile
    from pathlib import Path

    import yaml

    from .game import export_case

    case = export_case(game, title)
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "game.yaml"
        file.write_text(yaml.safe_dump(case, sort_keys=False, allow_unicode=True), encoding="utf-8")
        try:
            _, frames = scenario_frames(str(file))
        except InputError:
            return None
    end = frames[-1].mv if frames else None
    if end is None or set(end.boards) != set(game.mv.boards):
        return None
    return frames


def _recorded_frame(mv: Multiverse, steps: int) -> Frame:
    """Every board with the orders it was fought with, from its record (a move marked by its decision)."""
    orders = []
    for board in mv.boards.values():
        if board.record is None:
            continue
        for r in board.record.orders:
            result = None
            if r.kind == "move" and r.unit is not None:
                moved = board.record.decisions.get(("moves", (r.unit.timeline, r.unit.turn, r.unit.province)))
                result = None if moved is None else ("succeeds" if moved else "fails")
            orders.append(DrawnOrder(r, result))
    return Frame(f"Every board, with the orders it was fought with ({steps} steps)", mv, tuple(orders))


def is_game_file(path: str) -> bool:
    from .game import FORMAT

    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    # only a sniff: the loader that follows checks the encoding and reports it with the file's line
    return f"format: {FORMAT}".encode() in head


def render_file(path: str, board: str | None = None, svg_only: bool = False, step: int | None = None) -> str:
    """The picture of a scenario or a game file: the page, or one board (as SVG, or a page holding it);
    ``step`` keeps one step of a scenario (counted from 1)."""
    title, frames = game_frames(path) if is_game_file(path) else scenario_frames(path)
    if step is not None:
        if not 1 <= step <= len(frames):
            raise InputError(f"{path}: no step {step} (it has {len(frames)})")
        frames = frames[step - 1:step]
    if board is None:
        return page(title, frames)
    last = frames[-1]
    found = last.mv.find_board(board)
    if found is None:
        raise InputError(f"no board {board!r} (boards: {', '.join(sorted(b.name for b in last.mv.boards.values()))})")
    # the orders given on the board: from the step in which it acted
    frame = next((f for f in reversed(frames) if any(d.order.unit is not None and d.order.unit.board == found.key
                                                      for d in f.orders)), last)
    shown = Frame(frame.title, last.mv, frame.orders, frame.text, phase=frame.phase)
    svg = board_svg(shown, found.key, standalone=svg_only)
    if svg_only:
        return '<?xml version="1.0" encoding="utf-8"?>\n' + svg
    return ("<!DOCTYPE html>\n" + '<html lang="en"><head><meta charset="utf-8">' + csp_meta(CSS)
            + f'<title>{_e(title)}: {_e(found.name)}</title>'
            f"<style>{CSS}</style></head><body><h1>{_e(title)}: board {_e(found.name)} ({_e(season_name(found.turn))})</h1>"
            + _legend(last.mv.game_map) + svg + ("<pre>" + _e("\n".join(frame.text)) + "</pre>" if frame.text else "")
            + "</body></html>")


# -- the commands -------------------------------------------------------------------------------------


def write_picture(path: str, output: str | None, board: str | None, step: int | None = None) -> str:
    """Draws a scenario or game file into ``output`` (default: the input's name with .html, or .svg for
    one board written as SVG); returns the file written."""
    from pathlib import Path

    if output is None:
        output = Path(path).with_suffix(".html").name
    svg_only = board is not None and output.lower().endswith(".svg")
    if board is None and output.lower().endswith(".svg"):
        raise InputError("a whole multiverse is drawn as an HTML page: give -o FILE.html (or --board B for one board as SVG)")
    text = render_file(path, board, svg_only, step)
    Path(output).write_text(text, encoding="utf-8")
    return output


def cmd_render(args) -> int:
    written = write_picture(args.path, args.output, args.board, args.step)
    print(f"Wrote {written}")
    return 0


def add_render_parser(sub) -> None:
    p = sub.add_parser("render", help="draw a scenario or a game file: one HTML page (inline SVG), or one board")
    p.add_argument("path", help="a scenario file or a game file")
    p.add_argument("-o", "--output", help="the file to write (.html; .svg with --board); default: PATH's name with .html")
    p.add_argument("--board", help="draw this board alone, large (e.g. a2)")
    p.add_argument("--step", type=int, help="draw only this step of a scenario (from 1)")
    p.set_defaults(func=cmd_render)
