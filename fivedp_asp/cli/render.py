"""``fivedp render``: the arguments of a picture; the drawing is report/render.py's."""

from __future__ import annotations


def cmd_render(args) -> int:
    """``fivedp render``: writes the picture and says where."""
    from ..report.render import write_picture  # the drawing code is read only when a picture is drawn

    written = write_picture(args.path, args.output, args.board, args.step, force=args.force)
    print(f"Wrote {written}")
    return 0


def add_render_parser(sub) -> None:
    p = sub.add_parser("render", help="draw a scenario or a game file: one HTML page (inline SVG), or one board")
    p.add_argument("path", help="a scenario file or a game file")
    p.add_argument("-o", "--output", help="the file to write (.html; .svg with --board); default: PATH's name with .html")
    p.add_argument("--board", help="draw this board alone, large (e.g. a2)")
    p.add_argument("--force", action="store_true", help="replace the file if it is there (never PATH itself)")
    p.add_argument("--step", type=int, help="the step shown first (from 1, as the step selector counts them; by default the "
                                            "last position: for a game, the boards as they stand); with --board, the board after this step")
    p.set_defaults(func=cmd_render)
