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

Every text from the input is escaped (``_e``) wherever it is written, and the page's
Content-Security-Policy allows only its own style and script (by hash) and fetches nothing.

The parts: ``frames.py`` (what a picture shows, from scenarios and games), ``drawing.py`` (the
shapes: map, boards, orders), this module (the view of every board, one board drawn alone, the page,
the file written).
"""

from __future__ import annotations

from typing import Sequence

from ..model.kinds import OrderKind, Result
from ..errors import InputError, quoted
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse, board_name, season_name
from ..model.notation import timeline_name
from ..model.orders import Place, ResolvedOrder
from .drawing import (FAILED, MARKER_COLOURS, PURPLE, TOP, Layout, _arrow, _arrow_paint, _board_inside,
                      _board_opening, _defs, _draw_board, _draw_order, _e, _elsewhere_text, _f, csp_meta, grid_layout,
                      map_shapes, paint, power_classes, power_colours)
from .frames import DrawnOrder, Frame, game_frames, game_pictures, game_steps, scenario_frames
from .render_assets import CSS
from .render_assets import SCRIPT

__all__ = ["DrawnOrder", "Frame", "board_picture", "board_svg", "frame_svg", "game_frames", "game_pictures",
           "game_steps", "page", "render_file", "scenario_frames", "view_svg", "write_picture"]

# -- the view: every board once, steps as a view over them -------------------------------------------


def _board_state(board: Board) -> tuple:
    """What a board shows: two steps showing equal states draw the board once. Kept on the board,
    which never changes once made and which the steps that leave it alone share: a view of the last
    ten steps of a 300-board game asks it of 3,000 boards."""
    kept = board.__dict__.get("_shown_state")
    if kept is None:
        kept = board.__dict__["_shown_state"] = _state_of(board)
    return kept


def _state_of(board: Board) -> tuple:
    return (board.phase, tuple(sorted((u.location, u.kind, u.power) for u in board.units.values())),
            tuple(sorted(board.centers.items())), tuple(sorted((repr(r.unit), r.attacker_from, tuple(sorted(r.barred)))
                                                               for r in board.retreats)))


def _inside(kept: dict, mv: Multiverse, board: Board, layout: Layout, forked_from: str | None) -> str:
    """What a board's group holds (``drawing._board_inside``), drawn once per state of the board
    (``_board_state``: all it draws but its name, which its key gives) and place in the layout, in
    ``kept``."""
    k = (board.key, _board_state(board), layout.origin[board.key], layout.scale, layout.font, layout.own_edges,
         forked_from)
    found = kept.get(k)
    if found is None:
        found = kept[k] = _board_inside(mv, board, layout, forked_from)
    return found


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
    laid_out = (board_width, tuple(sorted(keys)))  # what the layout is made of, with the map
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
    # the boards drawn, kept on the multiverse the view ends in, which never changes once made: every
    # view of a served game's phase ends in the game as it stands (each player's, of every step or of
    # the last few), and the steps before it share most boards' states
    kept_boards = frames[-1].mv.__dict__.setdefault("_drawn_boards", {})
    boards = []
    for key in sorted(versions):
        for first_step, last_step, _, frame in versions[key]:
            board = frame.mv.boards[key]
            fork = frame.mv.forks.get(key[0])
            forked_from = board_name(*fork) if fork and firsts[key[0]] == key[1] else None
            acting = acting_steps.get(key, [])
            attrs = (f' data-from="{first_step}" data-to="{last_step}"'
                     + (f' data-acting="{" ".join(map(str, acting))}"' if acting else ""))
            hidden = not first_step <= start <= last_step
            boards.append(_board_opening(board, start in acting, attrs, hidden)
                          + _inside(kept_boards, frame.mv, board, layout, forked_from))
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
        # a step's orders are drawn alike in every view of the same boards (the steps a served game's
        # players are shown are one list of frames, shared): kept on the frame, by the boards laid out
        kept = frame.__dict__.setdefault("_drawn_orders", {})
        drawn = kept.get(laid_out)
        if drawn is None:
            drawn = kept[laid_out] = "".join(_draw_order(frame.mv, layout, d, k, frame.phase)
                                             for k, d in enumerate(frame.orders))
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
        line(OrderKind.MOVE, Result.SUCCEEDS, "move", "move"),
        line(OrderKind.MOVE, Result.FAILS, "fail", "move that fails",
             f'<path class="failmark" d="M17,3 L25,11 M17,11 L25,3"{paint(fill="none", stroke=FAILED, stroke_width=3)}/>'),
        line(OrderKind.SUPPORT_MOVE, Result.SUCCEEDS, "support", "support"),
        line(OrderKind.CONVOY, Result.SUCCEEDS, "convoy", "convoy"),
        line(OrderKind.JUMP_ASSIST, Result.SUCCEEDS, "assist", "jump assist (option)"),
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
        played = "" if frame.step is None else f' data-played="{frame.step}"'
        texts.append(f'<div class="steptext" data-step="{i}" data-label="{_e(step_label(frames, i))}"{played}{hidden}>'
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
