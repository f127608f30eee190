"""``fivedp game ...``: play a multiversal game turn by turn from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from .cases import load_case
from .errors import InputError
from .inputs import read_stream, read_text
from .limits import MAX_ORDERS
from .game import adjudicate, export_case, load_game, locked, new_game, save_game, submit
from .map import load_map
from .multiverse import SUSTAIN, opening, season_name
from .notation import timeline_name
from .options import parse_setting
from .step import next_phase


def _options(pairs: list[str]) -> dict:
    return dict(parse_setting(pair) for pair in pairs)


def cmd_new(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.exists() and not args.force:
        raise InputError(f"{path}: a game file is already there (use --force to replace it)")
    if args.from_case:
        case = load_case(args.from_case)
        mv = case.start
        if args.option:
            raise InputError("--option cannot be combined with --from (the scenario sets its options)")
    else:
        mv = opening(load_map("standard"), _options(args.option))
    with locked(path):
        save_game(path, new_game(mv))
    print(f"New game in {path}: {', '.join(b.name for b in mv.heads)} waiting for {next_phase(mv)} orders.")
    return 0


def _read_lines(args: argparse.Namespace) -> list[str]:
    lines = list(args.orders)
    if args.orders_file:
        if args.orders_file == "-":
            text = read_stream(sys.stdin.buffer, "<standard input>")
        else:
            text = read_text(args.orders_file, "order file")
        lines += text.splitlines()
    if len(lines) > MAX_ORDERS:
        raise InputError(f"{len(lines):,} order lines (the limit is {MAX_ORDERS:,})")
    for n, line in enumerate(lines, 1):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"order line {n}: not UTF-8 text") from None
        bad = next((i for i, ch in enumerate(line) if ch < " " and ch != "\t" or ch == "\x7f"), None)
        if bad is not None:
            raise InputError(f"order line {n} {line[:40]!r}: control character at column {bad + 1}")
    if not lines:
        raise InputError("no orders given (as arguments, or with --file F, or --file - for standard input)")
    return lines


def cmd_orders(args: argparse.Namespace) -> int:
    lines = _read_lines(args)
    with locked(args.file):
        game = submit(load_game(args.file), args.power, lines, add=args.add)
        save_game(args.file, game)
    for power, lines in sorted(game.pending.items()):
        print(f"{power}: {len(lines)} order{'s' if len(lines) != 1 else ''} waiting")
    return 0


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from .cli import step_lines

    with locked(args.file):
        game, report = adjudicate(load_game(args.file))
        save_game(args.file, game)
    print("\n".join(step_lines(report, len(game.history))))
    if game.mv.eliminated:
        print(f"Eliminated: {', '.join(sorted(game.mv.eliminated))}")
    if game.mv.winner:
        print(f"{game.mv.winner} has won.")
    else:
        print(f"Next: {_next_text(game.mv)}")
    return 0


def _next_text(mv) -> str:
    phase = next_phase(mv)
    if phase == SUSTAIN:
        return f"sustain phase of {1901 + mv.sustain_due}"
    return f"{phase} on " + ", ".join(b.name for b in mv.heads if b.phase == phase)


def cmd_show(args: argparse.Namespace) -> int:
    from .cli import board_lines

    if args.html:
        from .render import write_picture

        print(f"Wrote {write_picture(args.file, args.html, args.board)}")
        return 0
    game = load_game(args.file)
    mv = game.mv
    if args.board:
        board = mv.find_board(args.board)
        if board is None:
            raise InputError(f"no board {args.board!r} (boards: {', '.join(sorted(b.name for b in mv.boards.values()))})")
        print("\n".join(board_lines(mv, board)))
        if board.timeline in mv.dissolved:
            print(f"  (timeline {timeline_name(board.timeline)} has dissolved: this board is history, out of play)")
        return 0
    print(f"Timelines: {len(mv.timelines)}, boards: {len(mv.boards)}, steps played: {len(game.history)}")
    if mv.winner:
        print(f"{mv.winner} has won.")
    print("Heads:")
    for head in mv.heads:
        print("\n".join(board_lines(mv, head)))
    for tl in sorted(mv.dissolved):
        last = mv.boards[(tl, mv.latest_turn(tl))]
        print(f"  timeline {timeline_name(tl)}: dissolved (out of play; last board {last.name}, {season_name(last.turn)})")
    phase = next_phase(mv)
    print(f"Next: {_next_text(mv) if phase == SUSTAIN else phase}")
    for power, lines in sorted(game.pending.items()):
        print(f"  {power}: " + "; ".join(lines))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    game = load_game(args.file)
    case = export_case(game, args.id or f"game {Path(args.file).stem}")
    text = yaml.safe_dump(case, sort_keys=False, allow_unicode=True)
    if args.output:
        out = Path(args.output)
        if out.exists() and not args.force:
            raise InputError(f"{out}: already exists (use --force to replace it)")
        out.write_text(text, encoding="utf-8")
        print(f"Wrote {out}")
    else:
        sys.stdout.write(text)
    return 0


def add_game_parser(sub) -> None:
    game = sub.add_parser("game", help="play a game turn by turn (the game file holds the whole multiverse)")
    gsub = game.add_subparsers(dest="game_command", required=True)
    p = gsub.add_parser("new", help="start a game from the standard opening or from a scenario's start")
    p.add_argument("file")
    p.add_argument("--from", dest="from_case", metavar="CASE", help="start from this scenario's start position")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
    p.add_argument("--force", action="store_true", help="replace an existing game file")
    p.set_defaults(func=cmd_new)
    p = gsub.add_parser("orders", help="submit orders for the next phase (a power's new orders replace its old ones)")
    p.add_argument("file")
    p.add_argument("orders", nargs="*", help='order lines, e.g. "A Mun - Tyr" or "Germany: A Mun - Tyr"')
    p.add_argument("--power", help="the power giving the orders (otherwise read from each unit)")
    p.add_argument("--file", dest="orders_file", metavar="F", help="read order lines from F (- for standard input)")
    p.add_argument("--add", action="store_true", help="add to the power's waiting orders instead of replacing them")
    p.set_defaults(func=cmd_orders)
    p = gsub.add_parser("adjudicate", help="adjudicate the next phase with the waiting orders")
    p.add_argument("file")
    p.set_defaults(func=cmd_adjudicate)
    p = gsub.add_parser("show", help="show the heads (or one board) and the waiting orders")
    p.add_argument("file")
    p.add_argument("board", nargs="?", help="a board name such as a3 or b1")
    p.add_argument("--html", metavar="FILE", help="draw the multiverse (or the board) into an HTML page instead")
    p.set_defaults(func=cmd_show)
    p = gsub.add_parser("export", help="write the game as a scenario file")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="the scenario file to write (default: standard output)")
    p.add_argument("--id", help="the scenario's id")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_export)
