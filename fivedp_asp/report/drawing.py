"""The shapes of a picture: colours, the map, where boards stand (``Layout``), boards with their
units and centres, and orders as arrows between places, on one board or across boards.

Every shape carries its own colours (presentation attributes, ``paint``), so that a picture reads in
renderers without CSS; the page's CSS (render_assets.py) only changes what the pointer and the step
selector change. Every text from the input is escaped (``_e``) wherever it is written. Arrows between
boards run in the gutters between boards, never across a third board. Every board, unit and order
carries a ``<title>``.

A view of hundreds of boards holds tens of thousands of shapes, and a browser's time to draw it grows
with their number more than with anything else: a unit is one shape holding its title, the centres a
power owns on a board are one shape, and the map is one symbol every board places.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..model.kinds import Phase, Result, UnitKind
from ..model.geometry import Geometry
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse, board_name, season_name, unit_text
from ..model.orders import Place, ResolvedOrder, OrderKind
from ..engine.resolve import resolved_text
from .frames import DrawnOrder

POWER_COLOURS = {
    "Austria": "#d9463e", "England": "#2f57b3", "France": "#6cb7e8", "Germany": "#6b6257",
    "Italy": "#3d9a46", "Russia": "#9a6fc9", "Turkey": "#e8c23a",
}
PALETTE = ("#d9463e", "#2f57b3", "#6cb7e8", "#6b6257", "#3d9a46", "#9a6fc9", "#e8c23a", "#e07b28", "#2aa198")
NEUTRAL = "#888"  # a unit or centre of a power the map does not know
UNIT_R = 20  # a unit's size, in map units
MARKERS = {OrderKind.CONVOY: "convoy", OrderKind.SUPPORT_MOVE: "support", OrderKind.JUMP_ASSIST: "assist"}
BOARD_WIDTH = 300.0  # a board's width in the view, before zooming
GAP = 48.0  # the gutter between boards, where arrows between boards run
LEFT, TOP = 56.0, 44.0

# The colours every shape carries itself (presentation attributes), so that a picture reads in any
# renderer, one without CSS too; the page's CSS only adds what the pointer and the step selector change.
REGION_PAINT = {"ocean": ("#bcd9f0", "#7fa9c9"), "land": ("#f1ead8", "#8b7f66"), "impassable": ("#b9b2a4", "#8b7f66")}
LABEL, INK, FRAME, PURPLE, EDGE = "#5c5344", "#222", "#4a4a4a", "#8e24aa", "#111"
ORDER_COLOURS = {OrderKind.MOVE: "#1b1b1b", OrderKind.SUPPORT_MOVE: "#2e7d32", OrderKind.SUPPORT_HOLD: "#2e7d32",
                 OrderKind.CONVOY: "#1565c0", OrderKind.JUMP_ASSIST: "#ef6c00", OrderKind.OPEN_CONVOY: "#1565c0",
                 OrderKind.DISBAND: "#c62828", OrderKind.HOLD: "#555"}
ORDER_DASHES = {OrderKind.SUPPORT_MOVE: "2 3", OrderKind.SUPPORT_HOLD: "2 3", OrderKind.CONVOY: "8 3 2 3",
                OrderKind.JUMP_ASSIST: "4 2", OrderKind.OPEN_CONVOY: "4 3"}
FAILED, INVALID = "#c62828", "#999"
TOKEN_EDGE = f' stroke="{EDGE}" stroke-width="3"'  # the outline of units and centres, in map units
MARKER_COLOURS = {"move": "#1b1b1b", "fail": FAILED, "support": "#2e7d32", "convoy": "#1565c0", "retreat": PURPLE,
                  "fork": PURPLE, "option": PURPLE, "assist": "#ef6c00"}



# -- colours, escaping and small shapes ---------------------------------------------------------


def power_colours(game_map: GameMap) -> dict[str, str]:
    return {p: POWER_COLOURS.get(p, PALETTE[i % len(PALETTE)]) for i, p in enumerate(game_map.powers)}


def power_classes(game_map: GameMap) -> dict[str, str]:
    """Each power's CSS class: ``p`` and its index on the map, never its name (a name from a map file
    is not fit to be a class or a selector)."""
    return {p: f"p{i}" for i, p in enumerate(game_map.powers)}


def paint(**values: object) -> str:
    """Presentation attributes (``stroke_width=2`` is ``stroke-width="2"``), the ones given as None left
    out: every shape carries its own colours, so that a renderer without CSS draws it as the page does."""
    return "".join(f' {name.replace("_", "-")}="{_e(_f(v) if isinstance(v, float) else v)}"'
                   for name, v in values.items() if v is not None)


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


def unit_shape(kind: str, x: float, y: float, r: float, cls: str, colour: str, extra: str = "",
               width: float | None = 3.0, title: str | None = None) -> str:
    """An army is a round token, a fleet a pointed one (a diamond): told apart without colour or text.
    ``colour`` is its power's (``power_colours``), ``cls`` its classes (``power_classes``); ``width``
    None leaves the outline to the group it stands in (``TOKEN_EDGE`` there). ``extra``: more
    attributes; ``title``: the token's own ``<title>`` (already escaped), held inside the shape, so
    that a unit is one element and not a group of two."""
    look = paint(fill=colour, **({} if width is None else {"stroke": EDGE, "stroke_width": width})) + extra
    inner = "/>" if title is None else f"><title>{title}</title></{'circle' if kind == UnitKind.ARMY else 'polygon'}>"
    if kind == UnitKind.ARMY:
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" class="{_e(cls)}"{look}{inner}'
    pts = f"{_f(x - r * 1.25)},{_f(y)} {_f(x)},{_f(y - r)} {_f(x + r * 1.25)},{_f(y)} {_f(x)},{_f(y + r)}"
    return f'<polygon points="{pts}" class="{_e(cls)}"{look}{inner}'


def disc_path(points: Iterable[tuple[float, float]], r: float) -> str:
    """Discs of radius ``r`` as one path's data, two arcs each: the centres a power owns on a board
    are one shape instead of one each (a picture of hundreds of boards holds thousands of them)."""
    return "".join(f"M{_f(x - r)},{_f(y)}a{_f(r)},{_f(r)} 0 1 0 {_f(2 * r)},0a{_f(r)},{_f(r)} 0 1 0 {_f(-2 * r)},0"
                   for x, y in points)


# -- the map itself -----------------------------------------------------------------------------


def map_shapes(game_map: GameMap, labels: bool = True) -> str:
    """The map itself, in its own coordinates: territories filled by region, borders, names, and every
    supply centre as a neutral disc (a board draws only its owned centres over them)."""
    geometry = game_map.geometry
    parts = []
    for terr in geometry.territories.values():
        pts = " ".join(f"{x},{y}" for x, y in terr.border)
        fill, stroke = REGION_PAINT.get(terr.region, REGION_PAINT["land"])
        parts.append(f'<polygon class="t {_e(terr.region)}" points="{pts}"{paint(fill=fill, stroke=stroke, stroke_width=2)}/>')
    if labels:
        look = paint(fill=LABEL, font_size=26, text_anchor="middle")
        for terr in geometry.territories.values():
            x, y = geometry.label_point(terr.id)
            parts.append(f'<text class="lbl" x="{_f(x)}" y="{_f(y + 34)}"{look}>{_e(terr.id.capitalize())}</text>')
    disc = paint(fill="#fff", stroke=EDGE, stroke_width=3)
    for prov in game_map.supply_centers:
        x, y = centre_point(geometry, prov)
        parts.append(f'<circle class="sc0" cx="{_f(x)}" cy="{_f(y)}" r="11"{disc}/>')
    return "".join(parts)


def map_symbol(game_map: GameMap, symbol_id: str = "map", labels: bool = True) -> str:
    """The map drawn once, as a symbol every board of the view places with ``<use>``."""
    geometry = game_map.geometry
    return (f'<symbol id="{_e(symbol_id)}" viewBox="0 0 {geometry.size[0]} {geometry.size[1]}">'
            + map_shapes(game_map, labels) + "</symbol>")


# -- layout ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each board stands in the picture and at what scale; ``cells`` gives a board's row and
    column, which the routing of arrows between boards needs."""

    geometry: Geometry
    origin: Mapping[tuple[int, int], tuple[float, float]]
    scale: float = 1.0
    width: float = 0.0
    height: float = 0.0
    gap: float = GAP
    lines: tuple[int, ...] = ()
    first_turn: int = 0
    line: float = 2.2  # the width of an order's line, in the picture's units
    font: float = 13.0  # the size of a board's name
    own_edges: bool = False  # every token and centre carries its own outline (else its board's group does)
    elsewhere: Mapping[tuple[tuple[int, int], str], tuple[float, float]] | None = None
    """One board drawn alone: where the places on other boards its orders reach stand, beside it —
    (board, province) → point, beside the side of the board nearer to where the province lies on its
    own map, at about its height there."""

    def point(self, board: tuple[int, int], xy: tuple[float, float]) -> tuple[float, float]:
        ox, oy = self.origin[board]
        return ox + xy[0] * self.scale, oy + xy[1] * self.scale

    @property
    def board_size(self) -> tuple[float, float]:
        return self.geometry.size[0] * self.scale, self.geometry.size[1] * self.scale

    def cell(self, board: tuple[int, int]) -> tuple[int, int] | None:
        """(row, column) of a board of the grid; None for a board placed outside it."""
        if board[0] not in self.lines:
            return None
        return self.lines.index(board[0]), board[1] - self.first_turn

    def cell_origin(self, row: int, column: int) -> tuple[float, float]:
        w, h = self.board_size
        return LEFT + column * (w + self.gap), TOP + row * (h + self.gap)


def grid_layout(keys: Iterable[tuple[int, int]], geometry: Geometry, board_width: float | None = None) -> Layout:
    """Timelines as rows, turns as columns: boards of one turn stand in one column, with a gutter
    between boards for the arrows that join them."""
    keys = sorted(keys)
    turns = sorted({n for _, n in keys})
    lines = tuple(sorted({t for t, _ in keys}))
    first = turns[0]
    columns = turns[-1] - first + 1
    board_width = board_width or BOARD_WIDTH
    scale = board_width / geometry.size[0]
    board_height = geometry.size[1] * scale
    origin = {(t, n): (LEFT + (n - first) * (board_width + GAP), TOP + lines.index(t) * (board_height + GAP))
              for t, n in keys}
    return Layout(geometry, origin, scale, LEFT + columns * (board_width + GAP), TOP + len(lines) * (board_height + GAP),
                  GAP, lines, first)


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
    not left vacant by a standoff (docs/rules.md §4)."""
    unit = retreat.unit
    out = []
    for loc in mv.game_map.neighbours.get((unit.kind, unit.location), ()):
        prov = loc.split("/", 1)[0]
        if prov in board.units or prov == retreat.attacker_from or prov in retreat.barred:
            continue
        out.append(loc)
    return out


# -- drawing boards ----------------------------------------------------------------------------------


def _board_title(mv: Multiverse, board: Board) -> str:
    waiting = "" if board.phase == Phase.MOVEMENT else f", waiting for {board.phase}"
    lines = [f"{board.name}: {season_name(board.turn)}{waiting}"]
    for power in sorted({u.power for u in board.units.values()} | set(board.centers.values())):
        units = sorted(unit_text(u, mv.game_map) for u in board.units.values() if u.power == power)
        centres = sorted(mv.game_map.provinces[p].name for p, o in board.centers.items() if o == power)
        lines.append(f"{power}: {', '.join(units) or '-'} [{len(centres)} centres: {', '.join(centres)}]")
    for r in board.retreats:
        lines.append(f"{r.unit.power} must retreat: {unit_text(r.unit, mv.game_map)}")
    return "\n".join(lines)


def _draw_board(mv: Multiverse, board: Board, layout: Layout, acting: bool, forked_from: str | None,
                attrs: str = "", hidden: bool = False, inline_map: str | None = None) -> str:
    """One board: its frame, the map, its name, owned centres, units and dislodged units with their
    retreat options. ``attrs`` are the view's data attributes (the steps it is shown in). The map is
    the view's symbol placed with ``<use>``, or ``inline_map`` (``map_shapes``) drawn in place."""
    return _board_opening(board, acting, attrs, hidden) + _board_inside(mv, board, layout, forked_from, inline_map)


def _board_opening(board: Board, acting: bool, attrs: str = "", hidden: bool = False) -> str:
    """A board's group as a view shows it: whether it acts in the step shown, whether that step shows
    it, the steps it is shown in (``attrs``). What the group holds does not depend on them
    (``_board_inside``), so that views of other steps draw it once."""
    cls = "board" + (" acting" if acting else "") + (" off" if hidden else "")
    return f'<g class="{cls}" data-board="{_e(board.name)}" data-tl="{board.timeline}"{attrs}>'


def _board_inside(mv: Multiverse, board: Board, layout: Layout, forked_from: str | None,
                  inline_map: str | None = None) -> str:
    """What a board's group holds, and its end (``_draw_board``)."""
    geo, k = layout.geometry, layout.scale
    ox, oy = layout.origin[board.key]
    w, h = geo.size[0] * k, geo.size[1] * k
    classes = power_classes(mv.game_map)
    colours = power_colours(mv.game_map)
    place = f'translate({_f(ox)},{_f(oy)}) scale({k:.5f})'
    drawn_map = (f'<g transform="{place}">{inline_map}</g>' if inline_map is not None
                 else f'<use href="#map" x="{_f(ox)}" y="{_f(oy)}" width="{_f(w)}" height="{_f(h)}"/>')
    # the frame's colours are a board's at rest: the page's CSS frames the acting boards of the step shown
    out = [f"<title>{_e(_board_title(mv, board))}</title>",
           f'<rect class="frame" x="{_f(ox - 3)}" y="{_f(oy - 3)}" width="{_f(w + 6)}" height="{_f(h + 6)}"'
           f'{paint(fill="none", stroke=FRAME, stroke_width=3)}/>',
           drawn_map,
           f'<text class="bname" x="{_f(ox + 5)}" y="{_f(oy + layout.font + 2)}"'
           f'{paint(fill=INK, font_size=layout.font, font_weight=600)}>{_e(board.name)} · {_e(season_name(board.turn))}'
           + (f" · {_e(board.phase)}" if board.phase != Phase.MOVEMENT else "") + "</text>"]
    if forked_from:
        out.append(f'<text class="fork" x="{_f(ox + 5)}" y="{_f(oy + h - 6)}"'
                   f'{paint(fill=PURPLE, font_size=round(layout.font * 0.92, 1), font_weight=600)}>'
                   f"forked from {_e(forked_from)}</text>")
    # the view's boards share their tokens' outline through their group (the file grows with boards);
    # a board drawn alone gives every shape its own
    out.append(f'<g transform="{place}"' + ("" if layout.own_edges else TOKEN_EDGE) + ">")
    edge = {"stroke": EDGE, "stroke_width": 3} if layout.own_edges else {}
    width = 3.0 if layout.own_edges else None
    owned: dict[str, list[str]] = {}  # each power's centres on the board: one shape a power
    for prov, owner in sorted(board.centers.items()):
        if prov in geo.territories:
            owned.setdefault(owner, []).append(prov)
    for owner, provs in owned.items():
        names = " ".join(f"{board.name}:{prov}" for prov in provs)
        out.append(f'<path class="sc {_e(classes.get(owner, "pn"))}" data-sc="{_e(names)}" '
                   f'd="{disc_path((centre_point(geo, prov) for prov in provs), 11)}"'
                   f'{paint(fill=colours.get(owner, NEUTRAL), **edge)}/>')
    for unit in sorted(board.units.values(), key=lambda u: u.location):
        x, y = unit_point(geo, unit.location)
        out.append(unit_shape(unit.kind, x, y, UNIT_R, "unit tok " + classes.get(unit.power, "pn"),
                              colours.get(unit.power, NEUTRAL),
                              f' data-unit="{_e(board.name)}:{_e(unit.province)}"', width=width,
                              title=f"{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} on {_e(board.name)}"))
    for r in board.retreats:
        unit = r.unit
        x, y = displaced_point(geo, unit.location)
        ux, uy = unit_point(geo, unit.location)
        options = retreat_options(mv, board, r)
        opts_text = ", ".join(mv.game_map.short_name(o) for o in options) or "none: it must disband"
        out.append(f'<g class="unit dislodged" data-unit="{_e(board.name)}:{_e(unit.province)}:dislodged">'
                   f'<line class="displace" x1="{_f(ux)}" y1="{_f(uy)}" x2="{_f(x)}" y2="{_f(y)}"'
                   f'{paint(fill="none", stroke=PURPLE, stroke_width=3, stroke_dasharray="4 4")}/>'
                   + unit_shape(unit.kind, x, y, UNIT_R * 0.9, "tok " + classes.get(unit.power, "pn"),
                                colours.get(unit.power, NEUTRAL), paint(stroke_dasharray="6 4", opacity=".85"), width=width)
                   + f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} dislodged on {_e(board.name)}; "
                   f"may retreat to {_e(opts_text)}</title>")
        for opt in options:
            tx, ty = unit_point(geo, opt)
            mx, my = _shorten((x, y), (tx, ty), UNIT_R * 0.8)
            out.append(f'<line class="option" x1="{_f(x)}" y1="{_f(y)}" x2="{_f(mx)}" y2="{_f(my)}" marker-end="url(#m-option)"'
                       f'{paint(fill="none", stroke=PURPLE, stroke_width=5, stroke_dasharray="3 6")}/>')
        out.append("</g>")
    out.append("</g></g>")
    return "".join(out)


# -- drawing orders ----------------------------------------------------------------------------------


def _place_point(mv: Multiverse, layout: Layout, place: Place, prefer_unit: bool = True) -> tuple[float, float] | None:
    """Where a place is drawn: its unit's token (``prefer_unit``) or the place itself; on a board drawn
    alone, a place on another board stands beside it (``Layout.elsewhere``). None for a place the
    picture does not show."""
    if place is None or place.board not in mv.boards:
        return None
    if place.board not in layout.origin:
        if layout.elsewhere is None:
            return None
        return layout.elsewhere.get((place.board, place.province))
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
    if place is None or place.board not in mv.boards:
        return None
    if retreating and place.board in layout.origin:
        board = mv.boards[place.board]
        r = next((r for r in board.retreats if r.unit.province == place.province), None)
        if r is not None:
            return layout.point(place.board, displaced_point(layout.geometry, r.unit.location))
    return _place_point(mv, layout, place)


def _elsewhere_text(mv: Multiverse, place: Place) -> str:
    """The label of a place on another board beside a board drawn alone: that board and the province."""
    return f"{board_name(*place.board)} {mv.game_map.short_name(place.province)}"


def _shorten(a, b, by: float):
    """The segment a→b with ``by`` taken off its end (so an arrowhead stops short of a token)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy)
    if d <= by * 2 or d == 0:
        return b
    return b[0] - dx / d * by, b[1] - dy / d * by


def _route(layout: Layout, a, a_board, b, b_board, lane: int = 0) -> list[tuple[float, float]]:
    """The corners of an arrow from point ``a`` on one board to point ``b`` on another, through the
    gutters: out of the first board sideways into the gutter beside it (towards the second), along
    that gutter, along the gutter beside the second board's row when columns lie between, and into
    the second board. Every leg runs inside one of the two boards or in a gutter, so no arrow crosses
    a third board. ``lane`` shifts the gutter legs a little, so that arrows sharing a gutter are seen
    apart. Within one board, or for a board outside the grid: the straight segment."""
    ca, cb = layout.cell(a_board), layout.cell(b_board)
    if a_board == b_board or ca is None or cb is None:
        return [a, b]
    (ra, col_a), (rb, col_b) = ca, cb
    w, h = layout.board_size
    shift = ((lane % 5) - 2) * layout.gap / 8
    xa, ya = layout.cell_origin(ra, col_a)
    if col_a == col_b:
        xg = xa - layout.gap / 2 + shift
        return [a, (xg, a[1]), (xg, b[1]), b]
    right = col_b > col_a
    xg = (xa + w + layout.gap / 2 if right else xa - layout.gap / 2) + shift
    if abs(col_b - col_a) == 1:
        return [a, (xg, a[1]), (xg, b[1]), b]
    xb, yb = layout.cell_origin(rb, col_b)
    yg = (yb + h + layout.gap / 2 if rb < ra else yb - layout.gap / 2) + shift
    return [a, (xg, a[1]), (xg, yg), (b[0], yg), b]


def _path(points: Sequence[tuple[float, float]], radius: float = 14.0) -> str:
    """An SVG path through the points, its corners rounded."""
    out = [f"M{_f(points[0][0])},{_f(points[0][1])}"]
    for prev, corner, nxt in zip(points, points[1:], points[2:]):
        d_in = math.hypot(corner[0] - prev[0], corner[1] - prev[1]) or 1.0
        d_out = math.hypot(nxt[0] - corner[0], nxt[1] - corner[1]) or 1.0
        r = min(radius, d_in / 2, d_out / 2)
        p = (corner[0] - (corner[0] - prev[0]) / d_in * r, corner[1] - (corner[1] - prev[1]) / d_in * r)
        q = (corner[0] + (nxt[0] - corner[0]) / d_out * r, corner[1] + (nxt[1] - corner[1]) / d_out * r)
        out.append(f" L{_f(p[0])},{_f(p[1])} Q{_f(corner[0])},{_f(corner[1])} {_f(q[0])},{_f(q[1])}")
    out.append(f" L{_f(points[-1][0])},{_f(points[-1][1])}")
    return "".join(out)


def _arrow(layout: Layout, a, a_board, b, b_board, lane: int, shorten_by: float) -> tuple[str, tuple[float, float]]:
    """A routed arrow's path, its end taken back by ``shorten_by``; and the middle of its first gutter
    leg (or of the segment), where a failed move's cross goes."""
    pts = _route(layout, a, a_board, b, b_board, lane)
    pts[-1] = _shorten(pts[-2], pts[-1], shorten_by)
    if len(pts) == 2:
        mid = ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
    else:
        mid = ((pts[1][0] + pts[2][0]) / 2, (pts[1][1] + pts[2][1]) / 2)
    return _path(pts), mid


def _order_title(mv: Multiverse, drawn: DrawnOrder) -> str:
    """An order's details: its power, its line as written, its result and why, and below, as ``fivedp
    game`` prints it, the order as read with every place on its board (``read as A a-Ser@3 - a-Rum@3``),
    so that orders of many boards are told apart wherever the details are shown."""
    r = drawn.order
    text = f"{r.power}: {r.text} — {drawn.result or 'unknown'}" + (f" ({drawn.reason})" if drawn.reason else "")
    designated = _designated(mv, r)
    if designated is not None and designated != r.text.strip():
        text += f"\nread as {designated}"
    return text


def _designated(mv: Multiverse, r: ResolvedOrder) -> str | None:
    """The order with every place fully designated; None for one that names no unit (a waive, a
    sustain order, a line that could not be placed)."""
    if r.unit is None or r.kind in (OrderKind.WAIVE, OrderKind.SUSTAIN):
        return None
    return resolved_text(r, mv.game_map)


def _arrow_paint(kind: str, result: str, width: float) -> str:
    """An order's line: its kind's colour and dashes; a failed move red and dashed, a failed support or
    convoy faint, an invalid order grey."""
    colour, dashes, opacity = ORDER_COLOURS.get(kind, ORDER_COLOURS[OrderKind.MOVE]), ORDER_DASHES.get(kind), None
    if kind == OrderKind.MOVE and result == Result.FAILS:
        colour, dashes = FAILED, "6 3"
    if result == Result.INVALID:
        colour, opacity = INVALID, ".7"
    elif result == Result.FAILS and kind in (OrderKind.SUPPORT_MOVE, OrderKind.SUPPORT_HOLD, OrderKind.CONVOY):
        opacity = ".55"
    return paint(fill="none", stroke=colour, stroke_width=width, stroke_dasharray=dashes, opacity=opacity)


def _ring_paint(kind: str, result: str, width: float) -> str:
    """A ring round a unit: grey for a hold, dashed blue for an open convoy, green for a unit supported
    or built; grey when the order is invalid."""
    colour = ORDER_COLOURS[kind if kind in (OrderKind.HOLD, OrderKind.OPEN_CONVOY) else OrderKind.SUPPORT_HOLD]
    dashes = ORDER_DASHES[OrderKind.OPEN_CONVOY] if kind == OrderKind.OPEN_CONVOY else None
    return paint(fill="none", stroke=INVALID if result == Result.INVALID else colour, stroke_width=width,
                 stroke_dasharray=dashes)


def _draw_order(mv: Multiverse, layout: Layout, drawn: DrawnOrder, index: int, phase: str) -> str:
    r = drawn.order
    result = drawn.result or "unknown"
    tok = UNIT_R * layout.scale * 1.2
    title = f"<title>{_e(_order_title(mv, drawn))}</title>"
    tl = r.unit.timeline if r.unit is not None else ""
    elsewhere = layout.elsewhere is not None and any(
        p is not None and p.board not in layout.origin for p in (r.unit, r.target, r.dest))
    head = f'<g class="{_e(f"order {r.kind} {result}" + (" elsewhere" if elsewhere else ""))}" data-order="{index}" data-tl="{tl}">'
    retreating = phase == Phase.RETREAT
    start = _unit_point_at(mv, layout, r.unit, retreating) if r.unit is not None else None
    line = _arrow_paint(r.kind, result, layout.line)
    ring = _ring_paint(r.kind, result, layout.line * 0.75)
    ends: list[Place] = [r.unit] if r.unit is not None else []  # the places the order's shapes reach
    body = ""
    if r.kind in (OrderKind.MOVE,) and start and r.dest is not None:
        end = _place_point(mv, layout, r.dest, prefer_unit=False)
        if end:
            marker = "retreat" if retreating else ("fail" if result == Result.FAILS else "move")
            d, (mx, my) = _arrow(layout, start, r.unit.board, end, r.dest.board, index, tok * 0.6)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-{marker})"{line}/>'
            ends.append(r.dest)
            if result == Result.FAILS:
                s = tok * 0.55
                body += (f'<path class="failmark" d="M{_f(mx - s)},{_f(my - s)} L{_f(mx + s)},{_f(my + s)} '
                         f'M{_f(mx - s)},{_f(my + s)} L{_f(mx + s)},{_f(my - s)}"'
                         f'{paint(fill="none", stroke=FAILED, stroke_width=layout.line * 1.35)}/>')
    elif r.kind in (OrderKind.SUPPORT_MOVE, OrderKind.CONVOY, OrderKind.JUMP_ASSIST) and start and r.target is not None and r.dest is not None:
        a = _place_point(mv, layout, r.target)
        b = _place_point(mv, layout, r.dest, prefer_unit=False)
        if a and b:
            # to the middle of the supported move when it stays on one board, else to the moving unit;
            # on a board drawn alone, to the destination when the moving unit stands on another board
            if r.target.board == r.dest.board:
                end, to, ends_at = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), r.target.board, [r.target, r.dest]
            elif layout.elsewhere is not None and r.target.board not in layout.origin and r.dest.board in layout.origin:
                end, to, ends_at = b, r.dest.board, [r.dest]
            else:
                end, to, ends_at = a, r.target.board, [r.target]
            d, _ = _arrow(layout, start, r.unit.board, end, to, index, tok * 0.3)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-{MARKERS.get(r.kind, "support")})"{line}/>'
            ends += ends_at
    elif r.kind is OrderKind.SUPPORT_HOLD and start and r.target is not None:
        a = _place_point(mv, layout, r.target)
        if a and r.target.board not in layout.origin:
            # a unit on another board, beside a board drawn alone: an arrow to its name, no ring
            d, _ = _arrow(layout, start, r.unit.board, a, r.target.board, index, tok * 0.3)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-support)"{line}/>'
            ends.append(r.target)
        elif a:
            d, _ = _arrow(layout, start, r.unit.board, a, r.target.board, index, tok)
            body = (f'<path class="arrow" d="{d}"{line}/>'
                    f'<circle class="ring" cx="{_f(a[0])}" cy="{_f(a[1])}" r="{_f(tok * 1.1)}"{ring}/>')
    elif r.kind is OrderKind.OPEN_CONVOY and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.2)}"{ring}/>'
    elif r.kind is OrderKind.HOLD and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.05)}"{ring}/>'
    elif r.kind is OrderKind.DISBAND and start:
        s = tok * 0.9
        body = (f'<path class="arrow" d="M{_f(start[0] - s)},{_f(start[1] - s)} L{_f(start[0] + s)},{_f(start[1] + s)} '
                f'M{_f(start[0] - s)},{_f(start[1] + s)} L{_f(start[0] + s)},{_f(start[1] - s)}"{line}/>')
    elif r.kind is OrderKind.BUILD and r.unit is not None and r.unit.board in layout.origin:
        loc = f"{r.unit.province}/{r.unit.coast}" if r.unit.coast else r.unit.province
        if r.unit.province in layout.geometry.territories:
            x, y = layout.point(r.unit.board, unit_point(layout.geometry, loc))
            cls = power_classes(mv.game_map).get(r.power, "pn")
            body = (unit_shape(r.unit_kind or UnitKind.ARMY, x, y, tok * 0.8, f"tok built {cls}",
                               power_colours(mv.game_map).get(r.power, NEUTRAL), width=3 * layout.scale)
                    + f'<circle class="ring" cx="{_f(x)}" cy="{_f(y)}" r="{_f(tok * 1.1)}"{ring}/>')
    if not body:
        # waives, and orders that name no place on the picture: kept, invisible, so each order appears once
        return head + title + '<g class="unplaced"/></g>'
    return head + title + body + _elsewhere_labels(mv, layout, ends) + "</g>"


def _elsewhere_labels(mv: Multiverse, layout: Layout, ends: Iterable[Place]) -> str:
    """On a board drawn alone, the name of each place on another board an order's line ends at, beside
    the line's end: which board the order came from, or went to."""
    if layout.elsewhere is None:
        return ""
    out = []
    size = layout.font * 0.85
    (left, _), = layout.origin.values()
    for place in dict.fromkeys(ends):
        point = layout.elsewhere.get((place.board, place.province)) if place.board not in layout.origin else None
        if point is None:
            continue
        before = point[0] < left  # beside the board's left side: the name ends at the point
        out.append(f'<text class="elsewhere" x="{_f(point[0] - 8 if before else point[0] + 8)}" y="{_f(point[1] + size * 0.35)}"'
                   f'{paint(fill=INK, font_size=size, font_weight=600, text_anchor="end" if before else "start")}>'
                   f"{_e(_elsewhere_text(mv, place))}</text>")
    return "".join(out)


def _defs(game_map: GameMap, symbol: bool = True) -> str:
    """The arrowheads, and the map as a symbol for ``<use>`` (left out for a board whose map is drawn in place)."""
    out = ["<defs>"]
    for name, colour in MARKER_COLOURS.items():
        out.append(f'<marker id="m-{name}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
                   f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"{paint(fill=colour, stroke="none")}/></marker>')
    if symbol:
        out.append(map_symbol(game_map))
    out.append("</defs>")
    return "".join(out)
