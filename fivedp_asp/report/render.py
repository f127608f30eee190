"""Pictures of the multiverse: one self-contained HTML page (inline SVG, CSS and one small script,
nothing fetched), and single boards as SVG.

The page is a view of every board the scenario or game ever had, laid out once: timelines as rows,
turns as columns, so that boards of the same turn stand above each other. A board is drawn once for
each distinct state it was shown in (a played board never changes; a head may change between steps,
by retreats or builds), and each step's orders are drawn once, on the boards they were given on; the
steps are a view over these (a step selector shows the boards of that step and highlights its
orders). So a picture grows with boards and orders, not with steps times boards. The map's polygons
are one ``<symbol>`` placed on every board with ``<use>``. Arrows between boards run in the gutters
between boards, never across a third board. Every board, unit and order carries a ``<title>``.

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
from .render_assets import CSS as BASE_CSS
from .render_assets import SCRIPT

POWER_COLOURS = {
    "Austria": "#d9463e", "England": "#2f57b3", "France": "#6cb7e8", "Germany": "#6b6257",
    "Italy": "#3d9a46", "Russia": "#9a6fc9", "Turkey": "#e8c23a",
}
PALETTE = ("#d9463e", "#2f57b3", "#6cb7e8", "#6b6257", "#3d9a46", "#9a6fc9", "#e8c23a", "#e07b28", "#2aa198")
UNIT_R = 20  # a unit's size, in map units
MARKERS = {"convoy": "convoy", "support_move": "support", "jump_assist": "assist"}
BOARD_WIDTH = 300.0  # a board's width in the view, before zooming
GAP = 48.0  # the gutter between boards, where arrows between boards run
LEFT, TOP = 56.0, 44.0


@dataclass(frozen=True)
class DrawnOrder:
    """An order to draw, with its result (None where the picture does not know it)."""

    order: ResolvedOrder
    result: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Frame:
    """One step: the multiverse after it, the orders of the step drawn on it, and the step's text."""

    title: str
    mv: Multiverse
    orders: tuple[DrawnOrder, ...] = ()
    text: tuple[str, ...] = ()
    new_timelines: tuple[int, ...] = ()
    acting: frozenset[tuple[int, int]] = frozenset()
    phase: str = "movement"


# -- colours, escaping and small shapes ---------------------------------------------------------


def power_colours(game_map: GameMap) -> dict[str, str]:
    return {p: POWER_COLOURS.get(p, PALETTE[i % len(PALETTE)]) for i, p in enumerate(game_map.powers)}


def power_classes(game_map: GameMap) -> dict[str, str]:
    """Each power's CSS class: ``p`` and its index on the map, never its name (a name from a map file
    is not fit to be a class or a selector)."""
    return {p: f"p{i}" for i, p in enumerate(game_map.powers)}


def css(game_map: GameMap) -> str:
    """The page's style: the fixed rules and one colour rule per power of the map."""
    colours = power_colours(game_map)
    return BASE_CSS + "".join(f".{cls}{{fill:{colours[p]}}}" for p, cls in power_classes(game_map).items()) + ".pn{fill:#888}\n"


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


def unit_shape(kind: str, x: float, y: float, r: float, cls: str, extra: str = "") -> str:
    """An army is a round token, a fleet a pointed one (a diamond): told apart without colour or text.
    ``cls`` gives the colour (a power's class, ``power_classes``)."""
    if kind == "army":
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" class="{_e(cls)}"{extra}/>'
    pts = f"{_f(x - r * 1.25)},{_f(y)} {_f(x)},{_f(y - r)} {_f(x + r * 1.25)},{_f(y)} {_f(x)},{_f(y + r)}"
    return f'<polygon points="{pts}" class="{_e(cls)}"{extra}/>'


# -- the map itself -----------------------------------------------------------------------------


def map_symbol(game_map: GameMap, symbol_id: str = "map", labels: bool = True) -> str:
    """The map drawn once: territories filled by region, borders, names, and every supply centre as
    a neutral disc (a board draws only its owned centres over them)."""
    geometry = game_map.geometry
    parts = [f'<symbol id="{_e(symbol_id)}" viewBox="0 0 {geometry.size[0]} {geometry.size[1]}">']
    for terr in geometry.territories.values():
        pts = " ".join(f"{x},{y}" for x, y in terr.border)
        parts.append(f'<polygon class="t {_e(terr.region)}" points="{pts}"/>')
    if labels:
        for terr in geometry.territories.values():
            x, y = geometry.label_point(terr.id)
            parts.append(f'<text class="lbl" x="{_f(x)}" y="{_f(y + 34)}">{_e(terr.id.capitalize())}</text>')
    for prov in game_map.supply_centers:
        x, y = centre_point(geometry, prov)
        parts.append(f'<circle class="sc0" cx="{_f(x)}" cy="{_f(y)}" r="11"/>')
    parts.append("</symbol>")
    return "".join(parts)


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
                attrs: str = "", hidden: bool = False) -> str:
    """One board: its frame, the map, its name, owned centres, units and dislodged units with their
    retreat options. ``attrs`` are the view's data attributes (the steps it is shown in)."""
    geo, k = layout.geometry, layout.scale
    ox, oy = layout.origin[board.key]
    w, h = geo.size[0] * k, geo.size[1] * k
    classes = power_classes(mv.game_map)
    cls = "board" + (" acting" if acting else "") + (" off" if hidden else "")
    out = [f'<g class="{cls}" data-board="{_e(board.name)}" data-tl="{board.timeline}"{attrs}>',
           f"<title>{_e(_board_title(mv, board))}</title>",
           f'<rect class="frame" x="{_f(ox - 3)}" y="{_f(oy - 3)}" width="{_f(w + 6)}" height="{_f(h + 6)}"/>',
           f'<use href="#map" x="{_f(ox)}" y="{_f(oy)}" width="{_f(w)}" height="{_f(h)}"/>',
           f'<text class="bname" x="{_f(ox + 5)}" y="{_f(oy + 15)}">{_e(board.name)} · {_e(season_name(board.turn))}'
           + (f" · {_e(board.phase)}" if board.phase != "movement" else "") + "</text>"]
    if forked_from:
        out.append(f'<text class="fork" x="{_f(ox + 5)}" y="{_f(oy + h - 6)}">forked from {_e(forked_from)}</text>')
    out.append(f'<g transform="translate({_f(ox)},{_f(oy)}) scale({k:.5f})">')
    for prov, owner in sorted(board.centers.items()):
        if prov not in geo.territories:
            continue
        x, y = centre_point(geo, prov)
        out.append(f'<circle class="sc {_e(classes.get(owner, "pn"))}" data-sc="{_e(board.name)}:{_e(prov)}" '
                   f'cx="{_f(x)}" cy="{_f(y)}" r="11"/>')
    for unit in sorted(board.units.values(), key=lambda u: u.location):
        x, y = unit_point(geo, unit.location)
        out.append(f'<g class="unit" data-unit="{_e(board.name)}:{_e(unit.province)}">'
                   + unit_shape(unit.kind, x, y, UNIT_R, "tok " + classes.get(unit.power, "pn"))
                   + f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} on {_e(board.name)}</title></g>")
    for r in board.retreats:
        unit = r.unit
        x, y = displaced_point(geo, unit.location)
        ux, uy = unit_point(geo, unit.location)
        options = retreat_options(mv, board, r)
        opts_text = ", ".join(mv.game_map.short_name(o) for o in options) or "none: it must disband"
        out.append(f'<g class="unit dislodged" data-unit="{_e(board.name)}:{_e(unit.province)}:dislodged">'
                   f'<line class="displace" x1="{_f(ux)}" y1="{_f(uy)}" x2="{_f(x)}" y2="{_f(y)}"/>'
                   + unit_shape(unit.kind, x, y, UNIT_R * 0.9, "tok " + classes.get(unit.power, "pn"), ' stroke-dasharray="6 4"')
                   + f"<title>{_e(unit.power)}: {_e(unit_text(unit, mv.game_map))} dislodged on {_e(board.name)}; "
                   f"may retreat to {_e(opts_text)}</title>")
        for opt in options:
            tx, ty = unit_point(geo, opt)
            mx, my = _shorten((x, y), (tx, ty), UNIT_R * 0.8)
            out.append(f'<line class="option" x1="{_f(x)}" y1="{_f(y)}" x2="{_f(mx)}" y2="{_f(my)}" marker-end="url(#m-option)"/>')
        out.append("</g>")
    out.append("</g></g>")
    return "".join(out)


# -- drawing orders ----------------------------------------------------------------------------------


def _place_point(mv: Multiverse, layout: Layout, place: Place, prefer_unit: bool = True) -> tuple[float, float] | None:
    if place is None or place.board not in layout.origin or place.board not in mv.boards:
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
    if place is None or place.board not in layout.origin or place.board not in mv.boards:
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


def _draw_order(mv: Multiverse, layout: Layout, drawn: DrawnOrder, index: int, phase: str) -> str:
    r = drawn.order
    result = drawn.result or "unknown"
    tok = UNIT_R * layout.scale * 1.2
    title = f"<title>{_e(r.power)}: {_e(r.text)} — {_e(result)}{' (' + _e(drawn.reason) + ')' if drawn.reason else ''}</title>"
    tl = r.unit.timeline if r.unit is not None else ""
    head = f'<g class="{_e(f"order {r.kind} {result}")}" data-order="{index}" data-tl="{tl}">'
    retreating = phase == "retreat"
    start = _unit_point_at(mv, layout, r.unit, retreating) if r.unit is not None else None
    body = ""
    if r.kind in ("move",) and start and r.dest is not None:
        end = _place_point(mv, layout, r.dest, prefer_unit=False)
        if end:
            marker = "retreat" if retreating else ("fail" if result == "fails" else "move")
            d, (mx, my) = _arrow(layout, start, r.unit.board, end, r.dest.board, index, tok * 0.6)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-{marker})"/>'
            if result == "fails":
                s = tok * 0.55
                body += (f'<path class="failmark" d="M{_f(mx - s)},{_f(my - s)} L{_f(mx + s)},{_f(my + s)} '
                         f'M{_f(mx - s)},{_f(my + s)} L{_f(mx + s)},{_f(my - s)}"/>')
    elif r.kind in ("support_move", "convoy", "jump_assist") and start and r.target is not None and r.dest is not None:
        a = _place_point(mv, layout, r.target)
        b = _place_point(mv, layout, r.dest, prefer_unit=False)
        if a and b:
            # to the middle of the supported move when it stays on one board, else to the moving unit
            end = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if r.target.board == r.dest.board else a
            d, _ = _arrow(layout, start, r.unit.board, end, r.target.board, index, tok * 0.3)
            body = f'<path class="arrow" d="{d}" marker-end="url(#m-{MARKERS.get(r.kind, "support")})"/>'
    elif r.kind == "support_hold" and start and r.target is not None:
        a = _place_point(mv, layout, r.target)
        if a:
            d, _ = _arrow(layout, start, r.unit.board, a, r.target.board, index, tok)
            body = (f'<path class="arrow" d="{d}"/>'
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
            cls = power_classes(mv.game_map).get(r.power, "pn")
            body = (unit_shape(r.unit_kind or "army", x, y, tok * 0.8, f"tok built {cls}")
                    + f'<circle class="ring" cx="{_f(x)}" cy="{_f(y)}" r="{_f(tok * 1.1)}"/>')
    if not body:
        # waives, and orders that name no place on the picture: kept, invisible, so each order appears once
        body = '<g class="unplaced"/>'
    return head + title + body + "</g>"


def _defs(game_map: GameMap) -> str:
    markers = {"move": "#1b1b1b", "fail": "#c62828", "support": "#2e7d32", "convoy": "#1565c0", "retreat": "#8e24aa",
               "fork": "#8e24aa", "option": "#8e24aa", "assist": "#ef6c00"}
    out = ["<defs>"]
    for name, colour in markers.items():
        out.append(f'<marker id="m-{name}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
                   f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
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
                          f'<path d="{d}" marker-end="url(#m-fork)"/></g>')
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
        labels.append(f'<g data-tl="{t}"{shown(row_from[t])}><text class="tl" x="8" y="{_f(y + h / 2)}">'
                      f'{_e(timeline_name(t))}</text></g>')
    for n in sorted({n for _, n in keys}):
        x, _ = layout.cell_origin(0, n - layout.first_turn)
        labels.append(f'<g{shown(column_from[n])}><text class="turn" x="{_f(x)}" y="{_f(TOP - 12)}">'
                      f'{_e(season_name(n))} (turn {n})</text></g>')
    vw, vh = layout.width + 10, layout.height + 10
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse view" id="view" viewBox="0 0 {_f(vw)} {_f(vh)}" '
            f'data-steps="{len(frames)}" data-start="{start}" data-cell="{_f(w + layout.gap)}">' + _defs(game_map) + "".join(labels)
            + '<g class="boards">' + "".join(boards) + '</g><g class="orders">' + "".join(fork_lines) + "".join(orders)
            + "</g></svg>")


def frame_svg(frame: Frame, board_width: float | None = None) -> str:
    """One step alone: its multiverse with its orders and the forks it made."""
    return view_svg([frame], 0, board_width)


def board_svg(frame: Frame, board_key: tuple[int, int], standalone: bool = True) -> str:
    """One board, large: its units, centres and the orders given on it (orders reaching other boards
    point beyond its right edge)."""
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
    fork = mv.forks.get(board.timeline)
    first = min(n for t, n in mv.boards if t == board.timeline)
    drawn = _draw_board(mv, board, layout, False, board_name(*fork) if fork and first == board.turn else None)
    orders = "".join(_draw_order(mv, layout, d, i, frame.phase) for i, d in enumerate(mine))
    w = max(x for x, _ in layout.origin.values()) + (geometry.size[0] if len(layout.origin) == 1 else 60)
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    style = f"<style>{css(mv.game_map)}</style>" if standalone else ""
    return (f'<svg{ns} class="multiverse single" viewBox="0 0 {_f(w)} {_f(layout.height)}" width="{_f(w)}" '
            f'height="{_f(layout.height)}">' + style + _defs(mv.game_map) + drawn
            + '<g class="orders">' + orders + "</g></svg>")


# -- the page --------------------------------------------------------------------------------------


def _legend(game_map: GameMap) -> str:
    items = []
    for power, cls in power_classes(game_map).items():
        items.append(f'<span><svg width="16" height="16"><circle cx="8" cy="8" r="7" class="{cls}" stroke="#111"/></svg> '
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
        line("move fails", "fail", "move that fails", '<path class="failmark" d="M17,3 L25,11 M17,11 L25,3"/>'),
        line("support_move", "support", "support"),
        line("convoy", "convoy", "convoy"),
        line("jump_assist", "assist", "jump assist (option)"),
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" stroke="#8e24aa" stroke-width="2" stroke-dasharray="2 4"/></svg> '
        "dislodged unit and its retreat options</span>",
        '<span><svg width="46" height="14"><path d="M2,7 L40,7" stroke="#8e24aa" stroke-width="2.5" stroke-dasharray="5 4" '
        'marker-end="url(#lg-retreat)"/></svg> new timeline, from the board it forked from</span>',
        '<span><svg width="20" height="16"><rect x="2" y="2" width="16" height="12" fill="none" stroke="#e67e22" '
        'stroke-width="2.5"/></svg> board acting in the step</span>',
    ]
    return defs + '<div class="legend">' + "".join(items) + "</div>"


HELP = ("drag to pan, wheel to zoom, click a board to open it large (Esc or Fit: back), "
        "hover for details, ← → change step")


def page(title: str, frames: Sequence[Frame], board_width: float | None = None, start: int | None = None) -> str:
    """The whole picture: controls (step, timelines, fit), the view of every board, and beside it the
    details of what the pointer is on and the text results of the step shown. ``start`` (from 0) is
    the step shown first; the last step by default."""
    if not frames:
        raise InputError("nothing to draw")
    start = len(frames) - 1 if start is None else start
    game_map = frames[-1].mv.game_map
    style = css(game_map)
    timelines = sorted({t for f in frames for t, _ in f.mv.boards})
    boxes = "".join(f'<label><input type="checkbox" data-tl="{t}" checked> {_e(timeline_name(t))}</label>' for t in timelines)
    texts = []
    for i, frame in enumerate(frames):
        hidden = "" if i == start else " hidden"
        texts.append(f'<div class="steptext" data-step="{i}"{hidden}><h2>{_e(frame.title)}</h2>'
                     + ("<pre>" + _e("\n".join(frame.text)) + "</pre>" if frame.text else "") + "</div>")
    controls = (f'<div class="controls"><button type="button" id="prev">◀</button>'
                f'<input type="range" id="step" min="0" max="{len(frames) - 1}" value="{start}" aria-label="step">'
                f'<button type="button" id="next">▶</button><span>step <span id="stepno">{start + 1} / {len(frames)}</span></span>'
                f'<label><input type="checkbox" id="all"> earlier steps\' orders, faint</label>'
                f'<button type="button" id="fit">Fit</button><span>{_e(HELP)}</span></div>'
                f'<div class="tls">timelines: {boxes}</div>')
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', csp_meta(style, [SCRIPT]),
             f"<title>{_e(title)}</title><style>{style}</style></head><body>",
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
    from ..files.scenarios import read_scenario, check_scenario
    from .text import step_lines

    case = read_scenario(path)
    run = check_scenario(case)
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

    from ..files.games import load_game
    from ..engine.step import next_phase

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
    return Frame(f"Every board, with the orders it was fought with ({steps} steps)", mv, tuple(orders))


def is_game_file(path: str) -> bool:
    from ..files.games import FORMAT

    from ..inputs import read_bytes

    head = read_bytes(path, "file", limit=4096)  # refuses a FIFO or a device at once, never blocks
    # only a sniff: the loader that follows checks the encoding and reports it with the file's line
    return f"format: {FORMAT}".encode() in head


def render_file(path: str, board: str | None = None, svg_only: bool = False, step: int | None = None) -> str:
    """The picture of a scenario or a game file: the page, or one board (as SVG, or a page holding it).
    ``step`` (counted from 1) is the step the page shows first; for one board, the step it is drawn
    as it stood after."""
    title, frames = game_frames(path) if is_game_file(path) else scenario_frames(path)
    if step is not None and not 1 <= step <= len(frames):
        raise InputError(f"{path}: no step {step} (it has {len(frames)})")
    if board is None:
        return page(title, frames, start=None if step is None else step - 1)
    if step is not None:
        frames = frames[:step]
    last = frames[-1]
    found = last.mv.find_board(board)
    if found is None:
        raise InputError(f"no board {quoted(board)} (boards: {', '.join(sorted(b.name for b in last.mv.boards.values()))})")
    # the orders given on the board: from the step in which it acted
    frame = next((f for f in reversed(frames) if any(d.order.unit is not None and d.order.unit.board == found.key
                                                      for d in f.orders)), last)
    shown = Frame(frame.title, last.mv, frame.orders, frame.text, phase=frame.phase)
    svg = board_svg(shown, found.key, standalone=svg_only)
    if svg_only:
        return '<?xml version="1.0" encoding="utf-8"?>\n' + svg
    style = css(last.mv.game_map)
    return ("<!DOCTYPE html>\n" + '<html lang="en"><head><meta charset="utf-8">' + csp_meta(style)
            + f'<title>{_e(title)}: {_e(found.name)}</title>'
            f"<style>{style}</style></head><body><h1>{_e(title)}: board {_e(found.name)} ({_e(season_name(found.turn))})</h1>"
            + _legend(last.mv.game_map) + svg + ("<pre>" + _e("\n".join(frame.text)) + "</pre>" if frame.text else "")
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
