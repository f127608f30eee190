"""Pictures of the multiverse: one self-contained HTML page (inline SVG, CSS and one small script,
nothing fetched), and single boards as SVG.

The page is a view of every board the scenario or game ever had, laid out once: timelines as rows,
turns as columns, so that boards of the same turn stand above each other. A board is drawn once for
each distinct state it was shown in (a played board never changes; a head may change between steps,
by retreats or builds), and each step's orders are drawn once, on the boards they were given on; the
steps are a view over these (a step selector shows the boards of that step and highlights its
orders). So a picture grows with boards and orders, not with steps times boards. The map's polygons
are one ``<symbol>`` placed on every board with ``<use>``. Arrows between boards run in the gutters
between boards, never across a third board. Every board, unit and order carries a ``<title>``. A
board drawn alone shows every order that acted on it, those from other boards starting beside it.

Every shape carries its own colours (presentation attributes, ``paint``), so that a picture reads in
renderers without CSS; the page's CSS (render_assets.py) only changes what the pointer and the step
selector change.

Every text from the input is escaped (``_e``) wherever it is written, and the page's
Content-Security-Policy allows only its own style and script (by hash) and fetches nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..errors import InputError, quoted
from ..model.geometry import Geometry
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse, board_name, season_name, unit_text
from ..model.notation import timeline_name
from ..model.orders import Place, ResolvedOrder
from ..engine.resolve import resolved_text
from .render_assets import CSS
from .render_assets import SCRIPT

POWER_COLOURS = {
    "Austria": "#d9463e", "England": "#2f57b3", "France": "#6cb7e8", "Germany": "#6b6257",
    "Italy": "#3d9a46", "Russia": "#9a6fc9", "Turkey": "#e8c23a",
}
PALETTE = ("#d9463e", "#2f57b3", "#6cb7e8", "#6b6257", "#3d9a46", "#9a6fc9", "#e8c23a", "#e07b28", "#2aa198")
NEUTRAL = "#888"  # a unit or centre of a power the map does not know
UNIT_R = 20  # a unit's size, in map units
MARKERS = {"convoy": "convoy", "support_move": "support", "jump_assist": "assist"}
BOARD_WIDTH = 300.0  # a board's width in the view, before zooming
GAP = 48.0  # the gutter between boards, where arrows between boards run
LEFT, TOP = 56.0, 44.0

# The colours every shape carries itself (presentation attributes), so that a picture reads in any
# renderer, one without CSS too; the page's CSS only adds what the pointer and the step selector change.
REGION_PAINT = {"ocean": ("#bcd9f0", "#7fa9c9"), "land": ("#f1ead8", "#8b7f66"), "impassable": ("#b9b2a4", "#8b7f66")}
LABEL, INK, FRAME, PURPLE, EDGE = "#5c5344", "#222", "#4a4a4a", "#8e24aa", "#111"
ORDER_COLOURS = {"move": "#1b1b1b", "support_move": "#2e7d32", "support_hold": "#2e7d32", "convoy": "#1565c0",
                 "jump_assist": "#ef6c00", "open_convoy": "#1565c0", "disband": "#c62828", "hold": "#555"}
ORDER_DASHES = {"support_move": "2 3", "support_hold": "2 3", "convoy": "8 3 2 3", "jump_assist": "4 2",
                "open_convoy": "4 3"}
FAILED, INVALID = "#c62828", "#999"
TOKEN_EDGE = f' stroke="{EDGE}" stroke-width="3"'  # the outline of units and centres, in map units
MARKER_COLOURS = {"move": "#1b1b1b", "fail": FAILED, "support": "#2e7d32", "convoy": "#1565c0", "retreat": PURPLE,
                  "fork": PURPLE, "option": PURPLE, "assist": "#ef6c00"}


@dataclass(frozen=True)
class DrawnOrder:
    """An order to draw, with its result (None where the picture does not know it)."""

    order: ResolvedOrder
    result: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Frame:
    """One position of the step selector: the multiverse after a step, the orders of the step drawn on
    it, and the step's text. ``step`` is the number of the step it shows (None for a position that is
    no step: the start, a game as it stands, the boards' records); ``label`` names the position in the
    selector (by default ``step N / M``)."""

    title: str
    mv: Multiverse
    orders: tuple[DrawnOrder, ...] = ()
    text: tuple[str, ...] = ()
    new_timelines: tuple[int, ...] = ()
    acting: frozenset[tuple[int, int]] = frozenset()
    phase: str = "movement"
    step: int | None = None
    label: str = ""


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
               width: float | None = 3.0) -> str:
    """An army is a round token, a fleet a pointed one (a diamond): told apart without colour or text.
    ``colour`` is its power's (``power_colours``), ``cls`` its classes (``power_classes``); ``width``
    None leaves the outline to the group it stands in (``TOKEN_EDGE`` there)."""
    look = paint(fill=colour, **({} if width is None else {"stroke": EDGE, "stroke_width": width})) + extra
    if kind == "army":
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" class="{_e(cls)}"{look}/>'
    pts = f"{_f(x - r * 1.25)},{_f(y)} {_f(x)},{_f(y - r)} {_f(x + r * 1.25)},{_f(y)} {_f(x)},{_f(y + r)}"
    return f'<polygon points="{pts}" class="{_e(cls)}"{look}/>'


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
    lines = [f"{board.name}: {season_name(board.turn)}" + ("" if board.phase == "movement" else f", waiting for {board.phase}")]
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
    geo, k = layout.geometry, layout.scale
    ox, oy = layout.origin[board.key]
    w, h = geo.size[0] * k, geo.size[1] * k
    classes = power_classes(mv.game_map)
    colours = power_colours(mv.game_map)
    cls = "board" + (" acting" if acting else "") + (" off" if hidden else "")
    place = f'translate({_f(ox)},{_f(oy)}) scale({k:.5f})'
    drawn_map = (f'<g transform="{place}">{inline_map}</g>' if inline_map is not None
                 else f'<use href="#map" x="{_f(ox)}" y="{_f(oy)}" width="{_f(w)}" height="{_f(h)}"/>')
    # the frame's colours are a board's at rest: the page's CSS frames the acting boards of the step shown
    out = [f'<g class="{cls}" data-board="{_e(board.name)}" data-tl="{board.timeline}"{attrs}>',
           f"<title>{_e(_board_title(mv, board))}</title>",
           f'<rect class="frame" x="{_f(ox - 3)}" y="{_f(oy - 3)}" width="{_f(w + 6)}" height="{_f(h + 6)}"'
           f'{paint(fill="none", stroke=FRAME, stroke_width=3)}/>',
           drawn_map,
           f'<text class="bname" x="{_f(ox + 5)}" y="{_f(oy + layout.font + 2)}"'
           f'{paint(fill=INK, font_size=layout.font, font_weight=600)}>{_e(board.name)} · {_e(season_name(board.turn))}'
           + (f" · {_e(board.phase)}" if board.phase != "movement" else "") + "</text>"]
    if forked_from:
        out.append(f'<text class="fork" x="{_f(ox + 5)}" y="{_f(oy + h - 6)}"'
                   f'{paint(fill=PURPLE, font_size=round(layout.font * 0.92, 1), font_weight=600)}>'
                   f"forked from {_e(forked_from)}</text>")
    # the view's boards share their tokens' outline through their group (the file grows with boards);
    # a board drawn alone gives every shape its own
    out.append(f'<g transform="{place}"' + ("" if layout.own_edges else TOKEN_EDGE) + ">")
    edge = {"stroke": EDGE, "stroke_width": 3} if layout.own_edges else {}
    width = 3.0 if layout.own_edges else None
    for prov, owner in sorted(board.centers.items()):
        if prov not in geo.territories:
            continue
        x, y = centre_point(geo, prov)
        out.append(f'<circle class="sc {_e(classes.get(owner, "pn"))}" data-sc="{_e(board.name)}:{_e(prov)}" '
                   f'cx="{_f(x)}" cy="{_f(y)}" r="11"{paint(fill=colours.get(owner, NEUTRAL), **edge)}/>')
    for unit in sorted(board.units.values(), key=lambda u: u.location):
        x, y = unit_point(geo, unit.location)
        out.append(f'<g class="unit" data-unit="{_e(board.name)}:{_e(unit.province)}">'
                   + unit_shape(unit.kind, x, y, UNIT_R, "tok " + classes.get(unit.power, "pn"),
                                colours.get(unit.power, NEUTRAL), width=width)
                   + f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} on {_e(board.name)}</title></g>")
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
    if r.unit is None or r.kind in ("waive", "sustain"):
        return None
    return resolved_text(r, mv.game_map)


def _arrow_paint(kind: str, result: str, width: float) -> str:
    """An order's line: its kind's colour and dashes; a failed move red and dashed, a failed support or
    convoy faint, an invalid order grey."""
    colour, dashes, opacity = ORDER_COLOURS.get(kind, ORDER_COLOURS["move"]), ORDER_DASHES.get(kind), None
    if kind == "move" and result == "fails":
        colour, dashes = FAILED, "6 3"
    if result == "invalid":
        colour, opacity = INVALID, ".7"
    elif result == "fails" and kind in ("support_move", "support_hold", "convoy"):
        opacity = ".55"
    return paint(fill="none", stroke=colour, stroke_width=width, stroke_dasharray=dashes, opacity=opacity)


def _ring_paint(kind: str, result: str, width: float) -> str:
    """A ring round a unit: grey for a hold, dashed blue for an open convoy, green for a unit supported
    or built; grey when the order is invalid."""
    colour = ORDER_COLOURS[kind] if kind in ("hold", "open_convoy") else ORDER_COLOURS["support_hold"]
    dashes = ORDER_DASHES["open_convoy"] if kind == "open_convoy" else None
    return paint(fill="none", stroke=INVALID if result == "invalid" else colour, stroke_width=width, stroke_dasharray=dashes)


def _draw_order(mv: Multiverse, layout: Layout, drawn: DrawnOrder, index: int, phase: str) -> str:
    r = drawn.order
    result = drawn.result or "unknown"
    tok = UNIT_R * layout.scale * 1.2
    title = f"<title>{_e(_order_title(mv, drawn))}</title>"
    tl = r.unit.timeline if r.unit is not None else ""
    elsewhere = layout.elsewhere is not None and any(
        p is not None and p.board not in layout.origin for p in (r.unit, r.target, r.dest))
    head = f'<g class="{_e(f"order {r.kind} {result}" + (" elsewhere" if elsewhere else ""))}" data-order="{index}" data-tl="{tl}">'
    retreating = phase == "retreat"
    start = _unit_point_at(mv, layout, r.unit, retreating) if r.unit is not None else None
    line = _arrow_paint(r.kind, result, layout.line)
    ring = _ring_paint(r.kind, result, layout.line * 0.75)
    ends: list[Place] = [r.unit] if r.unit is not None else []  # the places the order's shapes reach
    body = ""
    if r.kind in ("move",) and start and r.dest is not None:
        end = _place_point(mv, layout, r.dest, prefer_unit=False)
        if end:
            marker = "retreat" if retreating else ("fail" if result == "fails" else "move")
            d, (mx, my) = _arrow(layout, start, r.unit.board, end, r.dest.board, index, tok * 0.6)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-{marker})"{line}/>'
            ends.append(r.dest)
            if result == "fails":
                s = tok * 0.55
                body += (f'<path class="failmark" d="M{_f(mx - s)},{_f(my - s)} L{_f(mx + s)},{_f(my + s)} '
                         f'M{_f(mx - s)},{_f(my + s)} L{_f(mx + s)},{_f(my - s)}"'
                         f'{paint(fill="none", stroke=FAILED, stroke_width=layout.line * 1.35)}/>')
    elif r.kind in ("support_move", "convoy", "jump_assist") and start and r.target is not None and r.dest is not None:
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
    elif r.kind == "support_hold" and start and r.target is not None:
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
    elif r.kind == "open_convoy" and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.2)}"{ring}/>'
    elif r.kind == "hold" and start:
        body = f'<circle class="ring" cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(tok * 1.05)}"{ring}/>'
    elif r.kind == "disband" and start:
        s = tok * 0.9
        body = (f'<path class="arrow" d="M{_f(start[0] - s)},{_f(start[1] - s)} L{_f(start[0] + s)},{_f(start[1] + s)} '
                f'M{_f(start[0] - s)},{_f(start[1] + s)} L{_f(start[0] + s)},{_f(start[1] - s)}"{line}/>')
    elif r.kind == "build" and r.unit is not None and r.unit.board in layout.origin:
        loc = f"{r.unit.province}/{r.unit.coast}" if r.unit.coast else r.unit.province
        if r.unit.province in layout.geometry.territories:
            x, y = layout.point(r.unit.board, unit_point(layout.geometry, loc))
            cls = power_classes(mv.game_map).get(r.power, "pn")
            body = (unit_shape(r.unit_kind or "army", x, y, tok * 0.8, f"tok built {cls}",
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


# -- the view: every board once, steps as a view over them -------------------------------------------


def _board_state(board: Board) -> tuple:
    """What a board shows: two steps showing equal states draw the board once."""
    return (board.phase, tuple(sorted((u.location, u.kind, u.power) for u in board.units.values())),
            tuple(sorted(board.centers.items())), tuple(sorted((repr(r.unit), r.attacker_from, tuple(sorted(r.barred)))
                                                               for r in board.retreats)))


def view_svg(frames: Sequence[Frame], start: int = 0, board_width: float | None = None) -> str:
    """Every board of every step in one grid, each distinct state of a board drawn once and marked
    with the steps it is shown in (``data-from``/``data-to``), each step's orders in a group of their
    own (``data-step``), and fork lines shown from the step that made them. The step ``start`` is
    shown as drawn; the page's script switches steps."""
    if not frames:
        raise InputError("nothing to draw")
    game_map = frames[-1].mv.game_map
    geometry = game_map.geometry
    if geometry is None:
        raise InputError(f"map {game_map.name!r} has no geometry to draw (give it a 'geometry')")
    keys = {k for f in frames for k in f.mv.boards}
    layout = grid_layout(keys, geometry, board_width)
    w, h = layout.board_size
    # the distinct states of each board, each with the steps it is shown in
    versions: dict[tuple[int, int], list[list]] = {}
    for i, frame in enumerate(frames):
        for key, board in frame.mv.boards.items():
            state = _board_state(board)
            runs = versions.setdefault(key, [])
            if runs and runs[-1][1] == i - 1 and runs[-1][2] == state:
                runs[-1][1] = i
            else:
                runs.append([i, i, state, frame])
    acting_steps: dict[tuple[int, int], list[int]] = {}
    for i, frame in enumerate(frames):
        for key in frame.acting:
            acting_steps.setdefault(key, []).append(i)
    firsts: dict[int, int] = {}
    for t, n in sorted(keys):
        firsts.setdefault(t, n)
    forks: dict[int, tuple[int, tuple[int, int]]] = {}  # timeline → (step it appears, forked board)
    for i, frame in enumerate(frames):
        for t, fork in frame.mv.forks.items():
            forks.setdefault(t, (i, fork))
    boards = []
    for key in sorted(versions):
        for first_step, last_step, _, frame in versions[key]:
            board = frame.mv.boards[key]
            fork = frame.mv.forks.get(key[0])
            forked_from = board_name(*fork) if fork and firsts[key[0]] == key[1] else None
            acting = acting_steps.get(key, [])
            attrs = (f' data-from="{first_step}" data-to="{last_step}"'
                     + (f' data-acting="{" ".join(map(str, acting))}"' if acting else ""))
            boards.append(_draw_board(frame.mv, board, layout, start in acting, forked_from, attrs,
                                      hidden=not first_step <= start <= last_step))
    fork_lines = []
    last = len(frames) - 1
    for lane, (t, (step_made, (parent, turn))) in enumerate(sorted(forks.items())):
        first = (t, firsts.get(t))
        if (parent, turn) not in layout.origin or first not in layout.origin:
            continue
        a = layout.point((parent, turn), (geometry.size[0], geometry.size[1] * 0.5))
        b = layout.point(first, (0, geometry.size[1] * 0.5))
        d, _ = _arrow(layout, a, (parent, turn), b, first, lane, 0.0)
        cls = "forkline" + (" new" if step_made == start else "") + ("" if step_made <= start else " off")
        fork_lines.append(f'<g class="{cls}" data-from="{step_made}" data-to="{last}" data-tl="{t}"><title>timeline '
                          f'{_e(timeline_name(t))} forked from {_e(board_name(parent, turn))}</title>'
                          f'<path d="{d}" marker-end="url(#m-fork)"'
                          f'{paint(fill="none", stroke=PURPLE, stroke_width=2, stroke_dasharray="5 4")}/></g>')
    orders = []
    for i, frame in enumerate(frames):
        drawn = "".join(_draw_order(frame.mv, layout, d, k, frame.phase) for k, d in enumerate(frame.orders))
        cls = "steporders" + ("" if i == start else " off past")
        orders.append(f'<g class="{cls}" data-step="{i}">{drawn}</g>')
    # a row's and a column's labels show from the first step that has a board there
    row_from: dict[int, int] = {}
    column_from: dict[int, int] = {}
    for (t, n), runs in versions.items():
        row_from[t] = min(row_from.get(t, last), runs[0][0])
        column_from[n] = min(column_from.get(n, last), runs[0][0])

    def shown(step_from: int) -> str:
        return f' data-from="{step_from}" data-to="{last}"' + ("" if step_from <= start else ' class="off"')

    labels = []
    for row, t in enumerate(layout.lines):
        _, y = layout.cell_origin(row, 0)
        labels.append(f'<g data-tl="{t}"{shown(row_from[t])}><text class="tl" x="8" y="{_f(y + h / 2)}"'
                      f'{paint(fill="#333", font_size=20, font_weight=700)}>'
                      f'{_e(timeline_name(t))}</text></g>')
    for n in sorted({n for _, n in keys}):
        x, _ = layout.cell_origin(0, n - layout.first_turn)
        labels.append(f'<g{shown(column_from[n])}><text class="turn" x="{_f(x)}" y="{_f(TOP - 12)}"'
                      f'{paint(fill="#333", font_size=13)}>'
                      f'{_e(season_name(n))} (turn {n})</text></g>')
    vw, vh = layout.width + 10, layout.height + 10
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse view" id="view" viewBox="0 0 {_f(vw)} {_f(vh)}" '
            f'data-steps="{len(frames)}" data-start="{start}" data-cell="{_f(w + layout.gap)}">' + _defs(game_map) + "".join(labels)
            + '<g class="boards">' + "".join(boards) + '</g><g class="orders">' + "".join(fork_lines) + "".join(orders)
            + "</g></svg>")


def frame_svg(frame: Frame, board_width: float | None = None) -> str:
    """One step alone: its multiverse with its orders and the forks it made."""
    return view_svg([frame], 0, board_width)


REACH = 30.0  # on a board drawn alone: how far beside it the places on other boards stand
SINGLE_LINE, SINGLE_FONT = 4.5, 22.0  # a board drawn alone: its orders' lines and its name's size


def touches(order: ResolvedOrder, board_key: tuple[int, int]) -> bool:
    """Whether an order acted on a board: its unit, the unit it supports, convoys or assists, or where
    it goes, stands there."""
    return any(p is not None and p.board == board_key for p in (order.unit, order.target, order.dest))


def _spread(ys: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Heights in increasing order pushed at least ``gap`` apart, kept between ``low`` and ``high``."""
    out: list[float] = []
    for y in ys:
        out.append(max(y, low, out[-1] + gap if out else low))
    for i in range(len(out) - 1, -1, -1):
        out[i] = max(low, min(out[i], high if i == len(out) - 1 else out[i + 1] - gap))
    return out


def board_svg(frame: Frame, board_key: tuple[int, int], standalone: bool = True) -> str:
    """One board, large: its units, centres and every order of ``frame`` that acted on it — given on it,
    or given on another board and reaching into it. A place on another board stands beside it, named
    with its board, beside the side nearer to where it lies on its own map: an order coming in starts
    there, an order going out ends there, and every line stays inside the picture. The map is drawn in place and every shape carries its
    own colours: the SVG reads in a renderer without CSS too."""
    mv = frame.mv
    geometry = mv.game_map.geometry
    if geometry is None:
        raise InputError(f"map {mv.game_map.name!r} has no geometry to draw")
    if board_key not in mv.boards:
        raise InputError(f"no board {board_name(*board_key)} to draw")
    board = mv.boards[board_key]
    mine = [d for d in frame.orders if touches(d.order, board_key)]
    size = SINGLE_FONT * 0.85
    map_w, map_h = geometry.size
    # each place on another board: on the side nearer to where it lies on its own map, at its height
    wanted: dict[tuple[tuple[int, int], str], tuple[bool, float]] = {}
    for d in mine:
        for place in (d.order.unit, d.order.target, d.order.dest):
            if (place is not None and place.board != board_key and place.board in mv.boards
                    and place.province in geometry.territories):
                x, y = geometry.label_point(place.province)
                wanted[(place.board, place.province)] = (x < map_w / 2, y)

    def margin(on_left: bool) -> float:
        names = [_elsewhere_text(mv, Place(b[0], b[1], p)) for (b, p), (side, _) in wanted.items() if side == on_left]
        return REACH + 24 + max(len(n) for n in names) * size * 0.72 if names else 10.0  # a generous width per letter

    left, right, top = margin(True), margin(False), 40.0
    elsewhere = {}
    for on_left, x in ((True, left - REACH), (False, left + map_w + REACH)):
        keys = sorted((k for k, (side, _) in wanted.items() if side == on_left), key=lambda k: (wanted[k][1], k))
        heights = _spread([top + wanted[k][1] for k in keys], size * 1.3, top + size, top + map_h - size)
        elsewhere.update({k: (x, y) for k, y in zip(keys, heights)})
    width, height = left + map_w + right, top + map_h + 10
    layout = Layout(geometry, {board_key: (left, top)}, 1.0, width, height, line=SINGLE_LINE, font=SINGLE_FONT,
                    own_edges=True, elsewhere=elsewhere)
    fork = mv.forks.get(board.timeline)
    first = min(n for t, n in mv.boards if t == board.timeline)
    drawn = _draw_board(mv, board, layout, False, board_name(*fork) if fork and first == board.turn else None,
                        inline_map=map_shapes(mv.game_map))
    orders = "".join(_draw_order(mv, layout, d, i, frame.phase) for i, d in enumerate(mine))
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    style = f"<style>{CSS}</style>" if standalone else ""
    return (f'<svg{ns} class="multiverse single" viewBox="0 0 {_f(width)} {_f(height)}" width="{_f(width)}" '
            f'height="{_f(height)}" font-family="system-ui, sans-serif">' + style + _defs(mv.game_map, symbol=False) + drawn
            + '<g class="orders">' + orders + "</g></svg>")


# -- the page --------------------------------------------------------------------------------------


def _legend(game_map: GameMap) -> str:
    colours = power_colours(game_map)
    items = []
    for power, cls in power_classes(game_map).items():
        items.append(f'<span><svg width="16" height="16"><circle cx="8" cy="8" r="7" class="{cls}"'
                     f'{paint(fill=colours[power], stroke="#111")}/></svg> {_e(power)}</span>')

    def line(kind: str, result: str, marker: str | None, label: str, extra: str = "") -> str:
        m = f' marker-end="url(#lg-{marker})"' if marker else ""
        return (f'<span><svg width="46" height="14"><g class="order {kind} {result}"><path class="arrow" d="M2,7 L40,7"{m}'
                f'{_arrow_paint(kind, result, 2.2)}/>{extra}</g></svg> {_e(label)}</span>')
    defs = ('<svg width="0" height="0" class="hidden"><defs>'
            + "".join(f'<marker id="lg-{n}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto">'
                      f'<path d="M0,0 L10,5 L0,10 z"{paint(fill=MARKER_COLOURS[n], stroke="none")}/></marker>'
                      for n in ("move", "fail", "support", "convoy", "retreat", "assist"))
            + "</defs></svg>")
    items += [
        '<span><svg width="18" height="18"><circle cx="9" cy="9" r="7" fill="#ccc" stroke="#111" stroke-width="1.5"/></svg> army</span>',
        '<span><svg width="22" height="18"><polygon points="2,9 11,2 20,9 11,16" fill="#ccc" stroke="#111" stroke-width="1.5"/></svg> fleet</span>',
        '<span><svg width="16" height="16"><circle cx="8" cy="8" r="4" fill="#fff" stroke="#111"/></svg> supply centre (owner\'s colour)</span>',
        line("move", "succeeds", "move", "move"),
        line("move", "fails", "fail", "move that fails",
             f'<path class="failmark" d="M17,3 L25,11 M17,11 L25,3"{paint(fill="none", stroke=FAILED, stroke_width=3)}/>'),
        line("support_move", "succeeds", "support", "support"),
        line("convoy", "succeeds", "convoy", "convoy"),
        line("jump_assist", "succeeds", "assist", "jump assist (option)"),
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" fill="none" stroke="#8e24aa" stroke-width="2" stroke-dasharray="2 4"/></svg> '
        "dislodged unit and its retreat options</span>",
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" fill="none" stroke="#8e24aa" stroke-width="2.5" stroke-dasharray="5 4" '
        'marker-end="url(#lg-retreat)"/></svg> new timeline, from the board it forked from</span>',
        '<span><svg width="20" height="16"><rect x="2" y="2" width="16" height="12" fill="none" stroke="#e67e22" '
        'stroke-width="2.5"/></svg> board acting in the step</span>',
    ]
    return defs + '<div class="legend">' + "".join(items) + "</div>"


HELP = ("drag to pan, wheel to zoom, click a board to open it large (Esc or Fit: back), "
        "hover for details, ← → change step")


def step_label(frames: Sequence[Frame], index: int) -> str:
    """What the step selector says at a position: ``step N / M`` for a step played (M the steps there
    are), else the position's own label (``start``, a game as it stands)."""
    frame = frames[index]
    if frame.label:
        return frame.label
    if frame.step is not None:
        return f"step {frame.step} / {max(f.step for f in frames if f.step is not None)}"
    return f"{index + 1} / {len(frames)}"


def page(title: str, frames: Sequence[Frame], board_width: float | None = None, start: int | None = None) -> str:
    """The whole picture: controls (step, timelines, fit), the view of every board, and beside it the
    details of what the pointer is on and the text results of the step shown. ``start`` (from 0) is
    the position shown first; the last by default."""
    if not frames:
        raise InputError("nothing to draw")
    start = len(frames) - 1 if start is None else start
    if not 0 <= start < len(frames):
        raise InputError(f"no position {start} to show first (there are {len(frames)})")
    game_map = frames[-1].mv.game_map
    timelines = sorted({t for f in frames for t, _ in f.mv.boards})
    boxes = "".join(f'<label><input type="checkbox" data-tl="{t}" checked> {_e(timeline_name(t))}</label>' for t in timelines)
    texts = []
    for i, frame in enumerate(frames):
        hidden = "" if i == start else " hidden"
        texts.append(f'<div class="steptext" data-step="{i}" data-label="{_e(step_label(frames, i))}"{hidden}>'
                     f"<h2>{_e(frame.title)}</h2>"
                     + ("<pre>" + _e("\n".join(frame.text)) + "</pre>" if frame.text else "") + "</div>")
    controls = (f'<div class="controls"><button type="button" id="prev">◀</button>'
                f'<input type="range" id="step" min="0" max="{len(frames) - 1}" value="{start}" aria-label="step">'
                f'<button type="button" id="next">▶</button><span id="stepno">{_e(step_label(frames, start))}</span>'
                f'<label><input type="checkbox" id="all"> earlier steps\' orders, faint</label>'
                f'<button type="button" id="fit">Fit</button><span>{_e(HELP)}</span></div>'
                f'<div class="tls">timelines: {boxes}</div>')
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', csp_meta(CSS, [SCRIPT]),
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<header><h1>{_e(title)}</h1>{controls}{_legend(game_map)}</header>",
             '<div class="layout">' + view_svg(frames, start, board_width)
             + f'<aside><pre id="info">{_e(HELP)}</pre>' + "".join(texts) + "</aside></div>",
             f"<script>{SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts)


# -- frames from scenarios and games ------------------------------------------------------------------


def _drawn_orders(report, lines: Mapping[str, Iterable[str]]) -> tuple[DrawnOrder, ...]:
    """The step's orders resolved against the multiverse they were given in, with their results."""
    from ..engine.step import read_orders

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
    """A scenario: each step, its multiverse after it, its orders, and its results as ``fivedp game``
    prints them (an order line that leaves boards out with the order it was read as, each disbanded
    unit with its board and why it went), so that units of many boards are told apart."""
    from ..files.scenarios import read_scenario, check_scenario
    from .text import step_lines

    case = read_scenario(path)
    run = check_scenario(case)
    title = f"{case.id}: {case.title}" if case.title else case.id
    frames = []
    if not run.reports:
        frames.append(Frame("Start", case.start, label="start"))
    for i, (report, step) in enumerate(zip(run.reports, case.steps), 1):
        lines = step_lines(report, i, detail=True)
        new = tuple(t for t in report.after.forks if t not in report.before.forks)
        acting = frozenset(b.key for b in report.before.heads if b.phase == report.phase)
        frames.append(Frame(lines[0], report.after, _drawn_orders(report, step.orders), tuple(lines[1:]), new, acting,
                            report.phase, step=i))
    return title, frames


def game_frames(path: str) -> tuple[str, list[Frame]]:
    """A game: each step played, replayed from the game's start with the orders it recorded (as
    ``fivedp game export`` writes them), then the multiverse as it stands with the waiting orders."""
    from pathlib import Path

    from ..files.games import load_game

    title = f"Game {Path(path).stem}"
    return title, game_pictures(load_game(path), title)


def game_pictures(game, title: str, steps: list[Frame] | None = None) -> list[Frame]:
    """The frames of a game: ``steps`` (the steps played, drawn already; by default replayed here,
    or the boards' records when a replay does not reach the game), then the multiverse as it stands
    with the game's waiting orders (the server draws a player's own only)."""
    from ..engine.step import next_phase
    from ..game.play import reading

    mv = game.mv
    frames = list(steps) if steps is not None else game_steps(game, title)
    text = [f"Timelines: {len(mv.timelines)}, boards: {len(mv.boards)}, steps played: {len(game.history)}"]
    if mv.winner:
        text.append(f"{mv.winner} has won.")
    text.append(f"Next: {next_phase(mv)}" + (", waiting orders:" if game.pending else ", no orders waiting"))
    for power, lines in sorted(game.pending.items()):
        shown = []
        for line in lines:
            qualified = reading(mv, power, line)  # as fivedp game prints it: the board of every unit
            shown.append(line + (f" (read as {qualified})" if qualified else ""))
        text.append(f"  {power}: " + "; ".join(shown))
    acting = frozenset(b.key for b in mv.heads if b.phase == next_phase(mv))
    label = "now: as it stands, " + ("orders waiting" if game.pending else "no orders waiting")
    frames.append(Frame("Now", mv, (), tuple(text), acting=acting, label=label))
    return frames


def game_steps(game, title: str, replayed: int | None = None) -> list[Frame]:
    """The steps a game played, replayed (``replayed``: only when there are at most that many), or
    else the boards as their records have them."""
    if not game.history:
        return []
    frames = _replayed(game, title) if replayed is None or len(game.history) <= replayed else None
    return frames if frames is not None else [_recorded_frame(game.mv, len(game.history))]


def _replayed(game, title: str) -> list[Frame] | None:
    """The game's steps replayed as a scenario; None when the replay does not end where the game is
    (then the boards' records are drawn instead)."""
    import tempfile
    from pathlib import Path

    import yaml

    from ..files.games import export_scenario

    case = export_scenario(game, title)
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
    return Frame(f"Every board, with the orders it was fought with ({steps} steps)", mv, tuple(orders),
                 label=f"every board, from its record ({steps} steps)")


def is_game_file(path: str) -> bool:
    from ..files.games import FORMAT

    from ..inputs import read_bytes

    head = read_bytes(path, "file", limit=4096)  # refuses a FIFO or a device at once, never blocks
    # only a sniff: the loader that follows checks the encoding and reports it with the file's line
    return f"format: {FORMAT}".encode() in head


def render_file(path: str, board: str | None = None, svg_only: bool = False, step: int | None = None) -> str:
    """The picture of a scenario or a game file: the page, or one board (as SVG, or a page holding it).
    ``step`` is the step (as the step selector numbers it, from 1) the page shows first, by default the
    last position (for a game: the boards as they stand); for one board, the step it is drawn as it
    stood after."""
    game = is_game_file(path)
    title, frames = game_frames(path) if game else scenario_frames(path)
    index = None if step is None else _step_index(path, frames, step, game)
    if board is None:
        return page(title, frames, start=index)
    return board_picture(title, frames if index is None else frames[:index + 1], board, svg_only)


def _step_index(path: str, frames: Sequence[Frame], step: int, game: bool) -> int:
    """The position of the step numbered ``step``, or a clear error naming the steps there are."""
    for i, frame in enumerate(frames):
        if frame.step == step:
            return i
    numbers = [f.step for f in frames if f.step is not None]
    there = (f"steps 1 to {max(numbers)}" if len(numbers) > 1 else "step 1 only" if numbers
             else "no steps drawn one by one")
    raise InputError(f"{path}: no step {step} ({there}" + ("; without --step: the game as it stands)" if game else ")"))


def board_picture(title: str, frames: Sequence[Frame], board: str, svg_only: bool = False) -> str:
    """One board as it stands after the last of ``frames``, with every order that acted on it: those
    given on it (in the last step it was given orders in) and those given on other boards that reached
    it (supports and moves into it, convoys through it, from any of the steps). As SVG alone, or as a
    page with the legend and the text of those steps."""
    if not frames:
        raise InputError("nothing to draw")
    last = frames[-1]
    found = last.mv.find_board(board)
    if found is None:
        raise InputError(f"no board {quoted(board)} (boards: {', '.join(sorted(b.name for b in last.mv.boards.values()))})")
    key = found.key

    def given_on(d: DrawnOrder) -> bool:
        return d.order.unit is not None and d.order.unit.board == key

    own = next((i for i in range(len(frames) - 1, -1, -1) if any(given_on(d) for d in frames[i].orders)), None)
    orders: list[DrawnOrder] = []
    steps: list[int] = []
    for i, frame in enumerate(frames):
        chosen = [d for d in frame.orders if touches(d.order, key) and (i == own or not given_on(d))]
        if chosen:
            orders += chosen
            steps.append(i)
    text = tuple(line for i in steps for line in (frames[i].title, *frames[i].text))
    phase = frames[own].phase if own is not None else last.phase
    shown = Frame(last.title, last.mv, tuple(orders), text, phase=phase)
    svg = board_svg(shown, key, standalone=svg_only)
    if svg_only:
        return '<?xml version="1.0" encoding="utf-8"?>\n' + svg
    return ("<!DOCTYPE html>\n" + '<html lang="en"><head><meta charset="utf-8">' + csp_meta(CSS)
            + f'<title>{_e(title)}: {_e(found.name)}</title>'
            f"<style>{CSS}</style></head><body><h1>{_e(title)}: board {_e(found.name)} ({_e(season_name(found.turn))})</h1>"
            + _legend(last.mv.game_map) + svg + ("<pre>" + _e("\n".join(text)) + "</pre>" if text else "")
            + "</body></html>")


# -- writing a picture --------------------------------------------------------------------------------


def write_picture(path: str, output: str | None, board: str | None, step: int | None = None, *,
                  force: bool = False) -> str:
    """Draws a scenario or game file into ``output`` (default: the input's name with .html, or .svg for
    one board written as SVG); returns the file written. A file already there (or a symbolic link, even
    a dangling one) is replaced only with ``force``, the file drawn never: both are checked before
    the drawing, and again when the picture is written (``inputs.write_output``)."""
    from pathlib import Path

    if output is None:
        name = Path(path).name
        # a name without a stem ("." or "..", a folder) gets a plain one; reading it then says what it is
        output = Path(name).with_suffix(".html").name if name not in ("", ".", "..") else "picture.html"
    svg_only = board is not None and output.lower().endswith(".svg")
    if board is None and output.lower().endswith(".svg"):
        raise InputError("a whole multiverse is drawn as an HTML page: give -o FILE.html (or --board B for one board as SVG)")
    from ..inputs import output_target, write_output

    output_target(output, "picture", force=force, reading=[path])
    text = render_file(path, board, svg_only, step)
    write_output(output, text, "picture", force=force, reading=[path])  # atomic: no file, or the old one whole
    return output
