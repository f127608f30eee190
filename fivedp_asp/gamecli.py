"""``fivedp game ...``: play a multiversal game turn by turn from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from .cases import load_case
from .errors import InputError
from .inputs import read_stream, read_text
from .limits import MAX_ORDERS
from . import api
from .api import adjudicate, check_orders, duties, legal_orders, load_game
from .game import export_case, load_game as load_game_file, locked, new_game, save_game, update_game
from .jsonout import (board_document, game_document, game_step_document, history_document, history_results,
                      options_json, orders_document, possible_document, timelines_json)
from .map import load_map
from .multiverse import SUSTAIN, opening, season_name
from .notation import timeline_name
from .options import parse_setting, show as show_value
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
    if args.rule:
        from dataclasses import replace
        from types import MappingProxyType

        from .options import with_rules
        from .userrules import parse_specs

        # rules of your own: in effect, and recorded with their text in the game file
        mv = replace(mv, options=MappingProxyType(with_rules(mv.options, parse_specs(args.rule), in_effect=True)))
    with locked(path):
        save_game(path, new_game(mv))
    print(f"New game in {path}: {', '.join(b.name for b in mv.heads)} waiting for {next_phase(mv)} orders.")
    return 0


def _read_lines(args: argparse.Namespace, *, allow_none: bool = False) -> list[str]:
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
    if not lines and not allow_none:
        raise InputError("no orders given (as arguments, or with --file F, or --file - for standard input)")
    return lines


def _emit(doc: dict) -> None:
    print(json.dumps(doc, indent=2))


def _waiting_lines(game) -> list[str]:
    lines = []
    for power, waiting in sorted(game.pending.items()):
        lines.append(f"{power}: {len(waiting)} order{'s' if len(waiting) != 1 else ''} waiting")
        lines += [f"  {line}" for line in waiting]
    return lines


def _illegal_lines(illegal, total: int, phase: str) -> list[str]:
    if not illegal:
        return [f"Checked {total} waiting order{'s' if total != 1 else ''} for the {phase}: all legal."]
    lines = [f"Checked {total} waiting order{'s' if total != 1 else ''} for the {phase}: "
             f"{len(illegal)} illegal (the unit holds, or the order is ignored):"]
    lines += [f"  {o.power}: {o.text}: {o.reason or 'illegal'}" for o in illegal]
    return lines


def cmd_orders(args: argparse.Namespace) -> int:
    lines = _read_lines(args, allow_none=args.check)
    if args.check:
        # nothing is written: the orders are checked as if they had been given
        game = load_game(args.file)
        sub = api.submit_orders(game, lines, power=args.power, replace=args.replace) if lines else None
        game = sub.game if sub else game
        illegal = check_orders(game)
        if args.json:
            _emit(orders_document(game, sub, illegal, checked=True))
        else:
            total = sum(len(v) for v in game.pending.values())
            print("\n".join(_illegal_lines(illegal, total, next_phase(game.mv))))
        return 1 if illegal else 0
    def give(game):
        sub = api.submit_orders(game, lines, power=args.power, replace=args.replace)
        return sub.game, sub

    game, sub = update_game(args.file, give)
    if args.json:
        _emit(orders_document(game, sub))
        return 0
    for power, line in sub.withdrawn:
        print(f"Withdrawn: {power}: {line}")
    for a in sub.accepted:
        if a.replaces:
            print(f"Replaced: {a.power}: {a.replaces}  by  {a.text}")
    print("\n".join(_waiting_lines(game)))
    return 0


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from .cli import step_lines

    game, report = update_game(args.file, _adjudicate)
    if args.json:
        _emit(game_step_document(game, report))
        return 0
    print("\n".join(step_lines(report, len(game.history))))
    if game.mv.eliminated:
        print(f"Eliminated: {', '.join(sorted(game.mv.eliminated))}")
    if game.mv.winner:
        print(f"{game.mv.winner} has won.")
    else:
        print(f"Next: {_next_text(game.mv)}")
    return 0


def _adjudicate(game):
    """``adjudicate``, with a step that a rule of your own leaves unsettled reported as bad input."""
    from .errors import AdjudicationError
    from .userrules import unsettled

    try:
        return adjudicate(game)
    except AdjudicationError as exc:
        raise unsettled(exc, game.mv.options, game.pending, game.mv) from None


def _next_text(mv) -> str:
    phase = next_phase(mv)
    if phase == SUSTAIN:
        return f"sustain phase of {1901 + mv.sustain_due}"
    return f"{phase} on " + ", ".join(b.name for b in mv.heads if b.phase == phase)


def _duty_line(d) -> str:
    if d.kind == "orders":
        missing = [u for u in d.units if u not in d.ordered]
        text = f"  {d.power} on {d.board}: orders for {', '.join(d.units)}"
        if d.ordered:
            text += f" ({len(d.ordered)} given" + (f"; without an order {', '.join(missing)} hold)" if missing else ")")
        return text
    if d.kind == "retreat":
        where = ", ".join(d.options)
        done = " (order given)" if d.ordered else ""
        return f"  {d.power} on {d.board}: {d.units[0]} must retreat to {where} or disband{done}"
    if d.kind == "build":
        free = ", ".join(d.options) or "no free home centre"
        return f"  {d.power} on {d.board}: may build {d.count} (free home centres: {free})"
    if d.kind == "disband":
        given = f"; {len(d.ordered)} given" if d.ordered else ""
        return (f"  {d.power} on {d.board}: must disband {d.count} of {', '.join(d.units)}{given}"
                " (without orders, civil disorder chooses)")
    return f"  {d.power} on {d.board}: {d.kind} orders for {', '.join(d.units)}"


def _board_history_lines(game, name: str) -> list[str]:
    lines = []
    step = None
    for r in history_results(game, name):
        if r["step"] != step:
            step = r["step"]
            lines.append(f"  Step {step}: {r['phase']}")
        reason = f" ({r['reason']})" if r.get("reason") else ""
        lines.append(f"    {r['power']}: {r['order']}  {r['result']}{reason}")
    return lines or ["  No orders were given on this board."]


def cmd_show(args: argparse.Namespace) -> int:
    from .cli import board_lines

    if args.html:
        from .render import write_picture

        print(f"Wrote {write_picture(args.file, args.html, args.board)}")
        return 0
    game = load_game(args.file)
    mv = game.mv
    if args.board:
        board = api.board(game, args.board)
        if args.json:
            _emit(board_document(game, board))
            return 0
        print("\n".join(board_lines(mv, board)))
        if board.timeline in mv.dissolved:
            print(f"  (timeline {timeline_name(board.timeline)} has dissolved: this board is history, out of play)")
        print("Orders given on this board:")
        print("\n".join(_board_history_lines(game, board.name)))
        return 0
    if args.json:
        _emit(game_document(game))
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
    forks = [f"{t['timeline']} from {t['forked_from']}" for t in timelines_json(mv) if t["forked_from"]]
    print("Forks: " + ("; ".join(forks) if forks else "none (one timeline)"))
    options = options_json(mv.options)
    changed = [f"{k}={show_value(v['value'])}" for k, v in options.items() if not v["default"]]
    print("Options: " + (", ".join(changed) + " (the others at their defaults)" if changed
                         else "all at their defaults"))
    if mv.eliminated:
        print(f"Eliminated: {', '.join(sorted(mv.eliminated))}")
    phase = next_phase(mv)
    if not mv.winner:
        print(f"To do ({_next_text(mv)}):")
        due = duties(game)
        print("\n".join(_duty_line(d) for d in due) if due else "  nothing: adjudicate to go on")
    print(f"Next: {_next_text(mv) if phase == SUSTAIN else phase}")
    for power, lines in sorted(game.pending.items()):
        print(f"  {power}: " + "; ".join(lines))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    game = load_game(args.file)
    if args.json:
        _emit(history_document(game))
        return 0
    if not game.history:
        print("No steps played yet.")
    for i, h in enumerate(game.history, 1):
        results = h.get("results", [])
        counts = {}
        for r in results:
            counts[r["result"]] = counts.get(r["result"], 0) + 1
        tally = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no orders"
        text = f"Step {i}: {h.get('phase')} on {', '.join(h.get('boards', ()))}: {len(results)} orders ({tally})"
        for tl, origin in (h.get("new_timelines") or {}).items():
            text += f"; timeline {tl} forked from {origin}"
        if h.get("eliminated"):
            text += f"; eliminated: {', '.join(h['eliminated'])}"
        if h.get("winner"):
            text += f"; {h['winner']} won"
        print(text)
        if args.verbose:
            for r in results:
                reason = f" ({r['reason']})" if r.get("reason") else ""
                print(f"    {r['power']}: {r.get('qualified') or r['order']}  {r['result']}{reason}")
    return 0


def cmd_possible(args: argparse.Namespace) -> int:
    game = load_game(args.file)
    if game.mv.winner:
        raise InputError(f"the game is over: {game.mv.winner} has won")
    orders = legal_orders(game, power=args.power, unit=args.unit)
    if args.json:
        _emit(possible_document(game.mv, orders))
        return 0
    print(f"Possible {next_phase(game.mv)} orders: {len(orders)}")
    group = None
    for p in orders:
        if (p.power, p.board, p.unit) != group:
            group = (p.power, p.board, p.unit)
            print(f"  {p.power} on {p.board}" + (f", {p.unit}:" if p.unit else ":"))
        print(f"    {p.order}")
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


def cmd_accept(args: argparse.Namespace) -> int:
    """Takes a game file edited by hand (or written in format 1): read without its checksum, checked
    in full like any game, then written anew in the current format with a fresh checksum."""
    with locked(args.file):
        game = load_game_file(args.file, verify=False)
        save_game(args.file, game)
    mv = game.mv
    print(f"Accepted {args.file}: {len(mv.boards)} boards in {len(mv.timelines)} timelines, "
          f"{len(game.history)} steps played; checked and written with a new checksum.")
    return 0


def add_game_parser(sub) -> None:
    game = sub.add_parser("game", help="play a game turn by turn (the game file holds the whole multiverse)")
    gsub = game.add_subparsers(dest="game_command", required=True)
    p = gsub.add_parser("new", help="start a game from the standard opening or from a scenario's start")
    p.add_argument("file")
    p.add_argument("--from", dest="from_case", metavar="CASE", help="start from this scenario's start position")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE",
                   help="a rule of your own: NAME=FILE.lp or NAME=VALUE:FILE.lp, in effect; the game file records "
                        "its text (repeatable; docs/rules-of-your-own.md)")
    p.add_argument("--force", action="store_true", help="replace an existing game file")
    p.set_defaults(func=cmd_new)
    p = gsub.add_parser("orders", help="submit orders for the next phase (a later order for a unit replaces its earlier one)")
    p.add_argument("file")
    p.add_argument("orders", nargs="*", help='order lines, e.g. "A Mun - Tyr" or "Germany: A Mun - Tyr"')
    p.add_argument("--power", help="the power giving the orders (otherwise read from each unit)")
    p.add_argument("--file", dest="orders_file", metavar="F", help="read order lines from F (- for standard input)")
    p.add_argument("--replace", action="store_true", help="withdraw the power's waiting orders first")
    p.add_argument("--add", action="store_true", help="add to the waiting orders (what happens anyway; kept for scripts)")
    p.add_argument("--check", action="store_true",
                   help="report the waiting orders (and these) that the rules would find illegal; saves nothing")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_orders)
    p = gsub.add_parser("adjudicate", help="adjudicate the next phase with the waiting orders")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_adjudicate)
    p = gsub.add_parser("show", help="show the heads, forks, options and what each power must do (or one board)")
    p.add_argument("file")
    p.add_argument("board", nargs="?", help="a board name such as a3 or b1 (its units, and the orders given on it)")
    p.add_argument("--html", metavar="FILE", help="draw the multiverse (or the board) into an HTML page instead")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_show)
    p = gsub.add_parser("history", help="list the steps played")
    p.add_argument("file")
    p.add_argument("-v", "--verbose", action="store_true", help="also list every order with its result")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_history)
    p = gsub.add_parser("possible", help="list the orders the rules accept in the next phase")
    p.add_argument("file")
    p.add_argument("--power", help="only this power's orders")
    p.add_argument("--unit", help="only this unit's orders (e.g. 'A b-Mun')")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_possible)
    p = gsub.add_parser("export", help="write the game as a scenario file")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="the scenario file to write (default: standard output)")
    p.add_argument("--id", help="the scenario's id")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_export)
    p = gsub.add_parser("accept", help="check a game file edited by hand (or an older format) in full and "
                                       "write it with a new checksum")
    p.add_argument("file")
    p.set_defaults(func=cmd_accept)
