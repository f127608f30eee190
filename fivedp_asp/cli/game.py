"""``fivedp game ...``: play a multiversal game turn by turn from the command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, replace as replace_game
from pathlib import Path
from typing import Any, Mapping

from ..model.kinds import DutyKind, Result
from ..files.scenarios import read_scenario
from ..errors import InputError, quoted
from ..inputs import check_order_lines, read_order_text, read_stream, write_output
from .. import api
from ..api import check_orders, duties, legal_orders, load_game
from ..files.games import export_scenario, load_game as load_game_file, locked, save_game
from ..files.store import Change, create, sealed_now, transact, undo_log_path
from ..game.state import phase_key, phase_keys, phase_step
from ..game.play import reached_board, waiting_for
from ..game.state import new_game
from ..report.jsonout import (board_document, game_document, game_step_document, history_document, history_results,
                      options_json, orders_document, possible_document, timelines_json)
from ..model.map import load_map
from ..model.multiverse import SUSTAIN, opening, season_name
from ..model.notation import timeline_name
from ..model.options import preset, show as show_value
from ..model.settings import Settings, parse_setting
from ..engine.userrules import with_preset
from .options import add_preset_argument
from ..engine.step import next_phase
from ..yaml_lines import dump_yaml


def _options(pairs: list[str]) -> Settings:
    return Settings.of(dict(parse_setting(pair) for pair in pairs))


def cmd_new(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.exists() and not args.force:  # said before any work; said again under the lock
        raise InputError(f"{path}: a game file is already there (use --force to replace it)")
    if args.preset is not None:
        preset(args.preset)  # an unknown name is refused before any file is read
    start = None
    if args.from_scenario:
        scenario = read_scenario(args.from_scenario)
        mv, start = scenario.start, scenario.start_document
        if args.option:
            raise InputError("--option cannot be combined with --from (the scenario sets its options)")
        if args.preset is not None:
            from dataclasses import replace

            # the scenario's own options override the preset, as beside a preset: in its options
            mv = replace(mv, options=with_preset(mv.options, args.preset))
    else:
        mv = opening(load_map("standard"), with_preset(_options(args.option), args.preset))
    if args.rule:
        from dataclasses import replace

        from ..engine.userrules import parse_specs

        # rules of your own: in effect, and recorded with their text in the game file
        mv = replace(mv, options=mv.options.with_rules(parse_specs(args.rule), in_effect=True))
    create(path, new_game(mv, start), force=args.force)
    args.saved = f"the new game was saved in {path}"
    print(f"New game in {path}: {', '.join(b.name for b in mv.heads)} waiting for {next_phase(mv)} orders.")
    return 0


def _read_lines(args: argparse.Namespace, *, allow_none: bool = False) -> list[str]:
    lines = list(args.orders)
    if args.orders_file:
        if args.orders_file == "-":
            text = read_stream(sys.stdin.buffer, "<standard input>")
        else:
            text = read_order_text(args.orders_file)
        lines += text.splitlines()
    check_order_lines(lines)
    if not lines and not allow_none:
        raise InputError("no orders given (as arguments, or with --file F, or --file - for standard input)")
    return lines


def _emit(doc: dict) -> None:
    print(json.dumps(doc, indent=2))


def _acted_on(game) -> dict:
    """The phase a command acted on: the game as the command found it under the lock (its step,
    what it waited for, its key)."""
    return {"step": len(game.history) + 1, "waiting_for": waiting_for(game.mv), "key": phase_key(game)}


def _acted_line(what: str, acted: dict) -> str:
    return f"{what} step {acted['step']}: {acted['waiting_for']} (phase {acted['key']})"


def _viewer(game, power: str | None) -> str | None:
    """Whose view a command with ``--power`` shows: that power's (its own orders, and of the others
    only whether they have submitted); None, without ``--power``, is the game master's (every open
    order; of sealed sets only their size)."""
    if power is None:
        return None
    found = game.mv.game_map.power(power)
    if found is None:
        raise InputError(f"unknown power {quoted(power)} (powers: {', '.join(game.mv.game_map.powers)})")
    return found


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _waiting_lines(game, viewer: str | None, sealed) -> list[str]:
    """The orders waiting, as ``viewer`` (``_viewer``) may see them."""
    lines = []
    for power in sorted(set(game.pending) | set(sealed)):
        waiting = game.pending.get(power, [])
        if viewer is not None and power != viewer:
            lines.append(f"{power}: submitted")
            continue
        if waiting:
            lines.append(f"{power}: {_plural(len(waiting), 'order')} waiting")
            lines += [f"  {line}" for line in waiting]
        if power in sealed:
            if power == viewer:
                lines.append(f"{power}: {_plural(len(sealed[power]), 'order')} sealed")
                lines += [f"  {line}" for line in sealed[power]]
            else:
                lines.append(f"{power}: orders sealed ({_plural(len(sealed[power]), 'line')})")
            if waiting:
                lines.append(f"  (at adjudication {power}'s sealed set replaces its open orders)")
    return lines


def _read_as(mv, power: str, text: str) -> str:
    """`` (read as A a-Mun@1 S A a-Mun@0 - a-Tyr@0)`` when the boards a line stands for are not
    plain from the line itself (``game.reading``), else nothing."""
    from ..game.play import reading

    qualified = reading(mv, power, text)
    return f" (read as {qualified})" if qualified else ""


def _illegal_lines(game, illegal, total: int, given: int, phase: str) -> list[str]:
    """``orders --check``: of the orders checked (``given`` on the command line, the rest waiting), the
    ones the rules would ignore, and the adjustments that fail whatever else is ordered
    (``check_orders``)."""
    waiting = total - given
    shares = ([f"{given} given here"] if given else []) + ([f"{waiting} waiting"] if waiting else [])
    checked = f"Checked {_plural(total, 'order')} for the {phase}" + (f" ({', '.join(shares)})" if shares else "")
    if not illegal:
        return [f"{checked}: all legal."]
    invalid = sum(1 for o in illegal if o.result == Result.INVALID)
    parts = [f"{invalid} illegal (the unit holds, or the order is ignored)"] if invalid else []
    if len(illegal) > invalid:
        parts.append(f"{len(illegal) - invalid} legal but certain to fail")
    lines = [f"{checked}: {' and '.join(parts)}:"]
    lines += [f"  {o.power}: {o.text}{_read_as(game.mv, o.power, o.text)}: "
              f"{'fails: ' if o.result == Result.FAILS else ''}{o.reason or 'illegal'}" for o in illegal]
    return lines


def _submission_lines(before, sub) -> list[str]:
    """Per line given: taken or not, and whether the rules accept it (and why not)."""
    lines = []
    for a in sub.accepted:
        verdict = (f"WILL FAIL ({a.reason}): taken, but it cannot succeed" if a.fails
                   else "legal" if a.legal else f"taken, {a.reason}" if a.legal is None
                   else f"ILLEGAL ({a.reason}): taken, but the rules will ignore it")
        lines.append(f"{a.power}: {a.text}{_read_as(before.mv, a.power, a.text)}: {verdict}")
    for a in sub.refused:
        lines.append(f"{a.power}: {a.text}{_read_as(before.mv, a.power, a.text)}: ILLEGAL ({a.reason}): "
                     f"not taken, the legal {a.kept} stays (--force takes it)")
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
            given = len(sub.accepted) if sub else 0
            print("\n".join(_illegal_lines(game, illegal, total, given, next_phase(game.mv))))
        return 1 if illegal else 0
    if args.sealed:
        return _seal(args, lines)
    def give(game, sealed):
        viewer = _viewer(game, args.power)
        sub = api.submit_orders(game, lines, power=args.power, replace=args.replace, check=True, force=args.force)
        return Change((game, sub, viewer, dict(sealed.orders)), game=sub.game)

    game, done = transact(args.file, give, phase=args.step, doing="these orders were given for step {step}")
    before, sub, viewer, sealed = done.result
    acted = _acted_on(before)
    args.saved = f"the orders taken were saved in {args.file} for step {acted['step']}"
    if args.json:
        _emit({**orders_document(game, sub, viewer=viewer, sealed=sealed), "acted_on": acted})
        return 1 if sub.refused else 0
    print(_acted_line("Orders for", acted))
    print("\n".join(_submission_lines(before, sub)))
    for power, line in sub.withdrawn:
        print(f"Withdrawn: {power}: {line}")
    for a in sub.accepted:
        if a.replaces:
            print(f"Replaced: {a.power}: {a.replaces}  by  {a.text}")
    for power in sorted({a.power for a in sub.accepted} & set(sealed)):
        print(f"Note: {power} has sealed orders for this step: at adjudication they replace its open orders "
              f"(withdraw the sealed set with: fivedp game orders {args.file} --power {power} --sealed '# none')")
    print("\n".join(_waiting_lines(game, viewer, sealed)))
    return 1 if sub.refused else 0


def _seal(args: argparse.Namespace, lines: list[str]) -> int:
    """``orders --sealed``: the power's complete set for the next phase, checked and reported to the
    one who gives it, then kept out of the game file until ``adjudicate`` (``fivedp_asp/files/sealed.py``)."""
    from ..game.table import seal

    if not args.power:
        raise InputError("--sealed needs --power: a sealed set is one power's orders")
    if args.replace or args.json:
        raise InputError("--sealed cannot be combined with --replace or --json (a sealed set always replaces "
                         "the power's earlier sealed set)")
    def seal_set(game, sealed):
        power = _viewer(game, args.power)
        try:
            new, given = seal(game, sealed, power, lines)
        except InputError as exc:
            raise InputError(f"--sealed --power {power}: {exc}") from None
        return Change(given, sealed=new)

    game, done = transact(args.file, seal_set, phase=args.step, doing="this sealed set was given for step {step}")
    given = done.result
    power, taken, open_orders = given.power, given.lines, given.open_orders
    args.saved = f"the sealed set was saved beside {args.file}"
    print(_acted_line("Sealed orders for", _acted_on(game)))
    print("\n".join(_submission_lines(game, given.submission)))
    if not taken:
        print(f"{power}: no sealed orders for step {len(game.history) + 1}")
        return 0
    print(f"{power}: {_plural(len(taken), 'order')} sealed for step {len(game.history) + 1} "
          "(shown to nobody before adjudicate; a new sealed set replaces this one)")
    if open_orders:
        print(f"Note: at adjudication this sealed set replaces {power}'s {_plural(len(open_orders), 'open order')} "
              f"waiting: {'; '.join(open_orders)}")
    return 0


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from ..report.text import step_lines
    from ..files.verify import verify_latest
    from ..game.table import open_and_adjudicate

    def play(game, sealed):
        # the latest boards are what the last steps made, before a step is built on them
        edited = verify_latest(game)
        if edited is not None:
            raise InputError(f"{args.file}: the game is not what its last steps made, so nothing was adjudicated: "
                             f"{edited.text()}. Was the file edited by hand? An edit is taken only through "
                             f"`fivedp game accept {args.file}`, which replays the whole game")
        new, kept, opened = open_and_adjudicate(game, sealed, unsettled=_unsettled)
        return Change(_Adjudicated(opened.report, opened.opened, opened.set_aside, waiting_for(game.mv)),
                      game=new, sealed=kept)

    game, done = transact(args.file, play, phase=args.step, doing="this adjudication was asked for step {step}")
    report, opened, set_aside = done.result.report, done.result.opened, done.result.set_aside
    args.saved = f"step {len(game.history)} was adjudicated and saved in {args.file}"
    acted = {"step": len(game.history), "waiting_for": done.result.waited_for, "key": phase_keys(game)[-2]}
    if args.json:
        _emit({**game_step_document(game, report), "acted_on": acted})
        return 0
    print(_acted_line("Adjudicated", acted))
    if opened:
        print(f"Sealed orders opened: {', '.join(opened)}")
    for power, lines in sorted(set_aside.items()):
        print(f"  {power}'s open orders were set aside for its sealed set: {'; '.join(lines)}")
    print("\n".join(step_lines(report, len(game.history), detail=True)))
    if game.mv.eliminated:
        print(f"Eliminated: {', '.join(sorted(game.mv.eliminated))}")
    if game.mv.winner:
        print(f"{game.mv.winner} has won.")
    else:
        print(f"Next: {waiting_for(game.mv)} (step {len(game.history) + 1})")
    return 0


@dataclass(frozen=True)
class _Adjudicated:
    """What ``adjudicate`` did, with the phase it adjudicated as the game waited for it."""

    report: Any
    opened: tuple[str, ...]
    set_aside: Mapping[str, tuple[str, ...]]
    waited_for: str


@dataclass(frozen=True)
class _Undone:
    """What ``undo`` did, with the phase the game waited for when it took the step back."""

    step: int
    entry: dict
    resealed: tuple[str, ...]
    waited_for: str
    key: str


def _unsettled(exc, game):
    """A step that a rule of your own leaves unsettled, reported as bad input."""
    from ..engine.unsettled import unsettled

    return unsettled(exc, game.mv.options, game.pending, game.mv)


def _duty_line(d) -> str:
    if d.kind == DutyKind.ORDERS:
        missing = [u for u in d.units if u not in d.ordered]
        text = f"  {d.power} on {d.board}: orders for {', '.join(d.units)}"
        if d.ordered:
            text += f" ({len(d.ordered)} given" + (f"; without an order {', '.join(missing)} hold)" if missing else ")")
        return text
    if d.kind == DutyKind.RETREAT:
        where = ", ".join(d.options)
        done = " (order given)" if d.ordered else ""
        example = f" (write e.g. {d.units[0]} - {d.options[0]})" if d.options and not d.ordered else ""
        return f"  {d.power} on {d.board}: {d.units[0]} must retreat to {where} or disband{done}{example}"
    if d.kind == DutyKind.BUILD:
        if not d.options:
            return (f"  {d.power} on {d.board}: may build {d.count}, but no home centre it owns is free "
                    "(each holds a unit): nothing to build")
        return (f"  {d.power} on {d.board}: may build {d.count} (free home centres: {', '.join(d.options)}; "
                f"write e.g. Build A {d.options[0]})")
    if d.kind == DutyKind.DISBAND:
        given = f"; {len(d.ordered)} given" if d.ordered else ""
        return (f"  {d.power} on {d.board}: must disband {d.count} of {', '.join(d.units)}{given}"
                f" (write e.g. {d.units[0]} Disband; without orders, civil disorder chooses)")
    return f"  {d.power} on {d.board}: {d.kind} orders for {', '.join(d.units)}"


def _board_history_lines(game, name: str) -> list[str]:
    lines = []
    step = None
    for r in history_results(game, name):
        if r["step"] != step:
            step = r["step"]
            lines.append(f"  Step {step}: {r['phase']}")
        reason = f" ({r['reason']})" if r.get("reason") else ""
        # on a board's own page, the full form is news only for an order that reached another board
        read = (f" (read as {r['qualified']})" if r.get("qualified") and r["qualified"] != r["order"]
                and reached_board(r["qualified"], game.mv.game_map) not in (None, name) else "")
        lines.append(f"    {r['power']}: {r['order']}{read}  {r['result']}{reason}")
    return lines or ["  No orders were given on this board."]


def _fight_lines(game, name: str) -> list[str]:
    """Whether the board was fought again after its own battle, and whether that forked it."""
    from ..game.play import fights

    lines = []
    for f in fights(game, name):
        why = f" (because of {'; '.join(f.because)})" if f.because else ""
        lines.append(f"  Forked into {f.forked_into} at step {f.step}{why}" if f.forked_into
                     else f"  Fought again at step {f.step}, no fork{why}")
    return lines


def cmd_show(args: argparse.Namespace) -> int:
    from ..report.text import board_lines

    if args.html:
        from ..report.render import write_picture

        print(f"Wrote {write_picture(args.file, args.html, args.board, force=args.force)}")
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
        if board.record is not None:
            print("\n".join(_fight_lines(game, board.name) or ["  Not fought again after its own battle."]))
        print("Orders given on this board:")
        print("\n".join(_board_history_lines(game, board.name)))
        return 0
    sealed = sealed_now(args.file, game).orders
    power = _viewer(game, args.power)
    if args.json:
        _emit(game_document(game, power=power, sealed=sealed))
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
        print(f"To do ({waiting_for(mv)})" + (f" for {power}:" if power else ":"))
        due = [d for d in duties(game) if power is None or d.power == power]
        print("\n".join(_duty_line(d) + (" (sealed orders given)" if d.power in sealed else "") for d in due) if due
              else f"  nothing for {power}" if power else "  nothing: adjudicate to go on")
    print(f"Next: {waiting_for(mv) if phase == SUSTAIN else phase} (step {len(game.history) + 1})")
    for who in sorted(set(game.pending) | set(sealed)):
        if power is not None and who != power:
            print(f"  {who}: submitted")
            continue
        if game.pending.get(who):
            print(f"  {who}: " + "; ".join(game.pending[who]))
        if who in sealed:
            print(f"  {who} (sealed): " + "; ".join(sealed[who]) if who == power
                  else f"  {who}: orders sealed ({_plural(len(sealed[who]), 'line')})")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    """Takes back the last step; the step is first appended to the undo log beside the game file
    (``FILE.undone``), so that no record a player could dispute is lost."""
    from ..files.games import start_of
    from ..game.table import take_back as take_back_step

    def take_back(game, sealed):
        new, kept, back = take_back_step(game, sealed, start_of)
        return Change(_Undone(back.step, back.entry, back.resealed, waiting_for(game.mv), phase_key(game)),
                      game=new, sealed=kept, undone={"step": back.step, "entry": back.entry})

    step = None if args.step is None else args.step + 1  # taking back step N is done while step N + 1 waits
    new, done = transact(args.file, take_back, phase=step, doing="this undo was asked to take back step {last}")
    number, entry, resealed = done.result.step, done.result.entry, done.result.resealed
    log = undo_log_path(args.file)
    args.saved = f"step {number} was taken back in {args.file} (and kept in {log})"
    waiting = sum(len(v) for v in new.pending.values())
    print(_acted_line("Undone while the game waited for", {
        "step": number + 1, "waiting_for": done.result.waited_for, "key": done.result.key}))
    print(f"Undone step {number}: {entry.get('phase')} on {', '.join(entry.get('boards', ()))}; "
          f"its {waiting} order{'s' if waiting != 1 else ''} wait again; the step is kept in {log}.")
    if resealed:
        print(f"Sealed again: {', '.join(resealed)} (their sets wait, sealed, as they were given)")
    print(f"Next: {waiting_for(new.mv)} (step {len(new.history) + 1})")
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
        text = f"Step {i}: {h.get('phase')} on {', '.join(h.get('boards', ()))}: {_plural(len(results), 'order')} ({tally})"
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


#: ``game possible`` prints a longer list as a summary by unit, unless ``--all`` is given
_LISTED_IN_FULL = 60


def _possible_summary(mv, orders) -> list[str]:
    """A long list of possible orders as a few lines per unit: how many of each kind, and the boards
    they reach, written as ``--unit``, ``--kind`` and ``--to`` read them."""
    from ..engine.possible import summarise

    lines = [f"Possible {next_phase(mv)} orders: {len(orders)}, too many to list: counted by unit below "
             "(--all lists them; --unit U, --kind K or --to BOARD narrows the list)"]
    group = None
    for s in summarise(mv, orders):
        if (s.power, s.board) != group:
            group = (s.power, s.board)
            lines.append(f"  {s.power} on {s.board}:")
        counts = ", ".join(f"{n} {kind}" for kind, n in s.counts)
        reach = f"; to {', '.join(s.boards)}" if s.boards else ""
        lines.append(f"    {s.unit or 'builds and waives'}: {counts}{reach}")
    return lines


def cmd_possible(args: argparse.Namespace) -> int:
    game = load_game(args.file)
    if game.mv.winner:
        raise InputError(f"the game is over: {game.mv.winner} has won")
    orders = legal_orders(game, power=args.power, unit=args.unit, kind=args.kind, to=args.to)
    if args.json:
        _emit(possible_document(game.mv, orders))
        return 0
    if len(orders) > _LISTED_IN_FULL and not args.all:
        print("\n".join(_possible_summary(game.mv, orders)))
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
    scenario = export_scenario(game, args.id or f"game {Path(args.file).stem}")
    text = dump_yaml(scenario, sort_keys=False, allow_unicode=True)
    if args.output:
        # never over the game itself; another file only with --force; atomic: a failure leaves no file,
        # or the old one whole
        write_output(args.output, text, "scenario", force=args.force, reading=[args.file])
        print(f"Wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_accept(args: argparse.Namespace) -> int:
    """Takes a game file edited by hand (or written in format 1): read without its checksum, checked
    in full like any game, replayed from its start (``verify``) so that an edit of what was played
    is refused, then written anew in the current format with a fresh checksum."""
    from ..files.verify import verify_game

    with locked(args.file):
        game = load_game_file(args.file, verify=False)
        report = verify_game(game)
        if not report.honest:
            raise InputError(report.summary(args.file))
        save_game(args.file, game)
    mv = game.mv
    print(f"Accepted {args.file}: {len(mv.boards)} boards in {len(mv.timelines)} timelines, "
          f"{len(game.history)} steps played; checked, replayed as recorded and written with a new checksum.")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Replays the game from its start with its recorded orders and compares every board, record,
    result and fork with the file (``verify``): 0 for an honest record, 2 with the first divergence."""
    from ..report.jsonout import document
    from ..files.verify import verify_game

    game = load_game(args.file)
    report = verify_game(game)
    if args.json:
        _emit(document("verify", file=str(args.file), honest=report.honest, steps=report.steps,
                       boards=report.boards,
                       divergence=None if report.divergence is None else report.divergence.as_dict()))
    if not report.honest:
        raise InputError(report.summary(args.file))
    if not args.json:
        print(report.summary(args.file))
    return 0


def _step_number(text: str) -> int:
    """A step number as argparse reads it: a whole number from 1."""
    if not text.isascii() or not text.isdigit() or not 0 < int(text[:9]) < 10**9 or len(text) > 9:
        raise argparse.ArgumentTypeError(f"give a step number (1, 2, ...), not {text[:20]!r}")
    return int(text)


def _step_or_key(text: str) -> int | str:
    """A step number, or a phase key (``2-9f2c41d07a1b22c3``, the ``next.key`` of ``show --json``):
    a key names the phase itself, so a step undone and played otherwise since is refused too."""
    if "-" not in text:
        return _step_number(text)
    try:
        phase_step(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_game_parser(sub) -> None:
    game = sub.add_parser("game", help="play a game turn by turn (the game file holds the whole multiverse)")
    gsub = game.add_subparsers(dest="game_command", required=True)
    p = gsub.add_parser("new", help="start a game from the standard opening or from a scenario's start")
    p.add_argument("file")
    p.add_argument("--from", dest="from_scenario", metavar="CASE", help="start from this scenario's start position")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE",
                   help="a rule of your own: NAME=FILE.lp or NAME=VALUE:FILE.lp, in effect; the game file records "
                        "its text (repeatable; docs/rules-of-your-own.md)")
    p.add_argument("--force", action="store_true", help="replace an existing game file")
    add_preset_argument(p, "a preset, a named bundle of option values (seeds, oliveriver; fivedp options lists "
                           "them), recorded in the game file as the values it sets; --option values, or with "
                           "--from the scenario's options, override it")
    p.set_defaults(func=cmd_new)
    p = gsub.add_parser("orders", help="submit orders for the next phase (a later order for a unit replaces its earlier one)")
    p.add_argument("file")
    p.add_argument("orders", nargs="*", help='order lines, e.g. "A Mun - Tyr" or "Germany: A Mun - Tyr"')
    p.add_argument("--power", help="the power giving the orders (otherwise read from each unit)")
    p.add_argument("--file", dest="orders_file", metavar="F", help="read order lines from F (- for standard input)")
    p.add_argument("--replace", action="store_true", help="withdraw the power's waiting orders first")
    p.add_argument("--add", action="store_true", help="add to the waiting orders (what happens anyway; kept for scripts)")
    p.add_argument("--force", action="store_true",
                   help="take an illegal line even where it would replace a legal waiting order")
    p.add_argument("--check", action="store_true",
                   help="report the waiting orders (and these) that the rules would find illegal, or in an adjustment "
                        "phase that would fail whatever else is ordered; saves nothing")
    p.add_argument("--sealed", action="store_true",
                   help="keep these lines (with --power: the power's complete set) hidden until adjudicate")
    p.add_argument("--step", type=_step_or_key, metavar="N|KEY",
                   help="the step these orders are for (as show names it), or its phase key (show --json's next.key): "
                        "refused if the game waits for another")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_orders)
    p = gsub.add_parser("adjudicate", help="adjudicate the next phase with the waiting orders")
    p.add_argument("file")
    p.add_argument("--step", type=_step_or_key, metavar="N|KEY",
                   help="adjudicate only if the game waits for step N, or for the phase of this key (a script that "
                        "repeats the command does not play two steps)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_adjudicate)
    p = gsub.add_parser("show", help="show the heads, forks, options and what each power must do (or one board)")
    p.add_argument("file")
    p.add_argument("board", nargs="?", help="a board name such as a3 or b1 (its units, and the orders given on it)")
    p.add_argument("--power", help="what this power must do, and only its own waiting orders")
    p.add_argument("--html", metavar="FILE", help="draw the multiverse (or the board) into an HTML page instead")
    p.add_argument("--force", action="store_true", help="with --html: replace FILE if it is there (never the game file)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_show)
    p = gsub.add_parser("undo", help="take back the last step (before any orders are given after it); "
                                     "the step is kept in FILE.undone")
    p.add_argument("file")
    p.add_argument("--step", type=_step_number, metavar="N",
                   help="take back only step N: refused if another step is the last one played")
    p.set_defaults(func=cmd_undo)
    p = gsub.add_parser("history", help="list the steps played")
    p.add_argument("file")
    p.add_argument("-v", "--verbose", action="store_true", help="also list every order with its result")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_history)
    p = gsub.add_parser("possible", help="list the orders the rules accept in the next phase")
    p.add_argument("file")
    p.add_argument("--power", help="only this power's orders")
    p.add_argument("--unit", help="only this unit's orders (e.g. 'A b-Mun')")
    p.add_argument("--kind", action="append", metavar="KIND",
                   help="only orders of this kind: hold, move, support (support_hold, support_move), convoy, "
                        "open_convoy, jump_assist, retreat, disband, build, waive (repeatable)")
    p.add_argument("--to", metavar="BOARD", help="only orders whose destination is on this board (e.g. b3): "
                                                  "moves, retreats, supports, convoys, jump assists")
    p.add_argument("--all", action="store_true",
                   help=f"list every order even when there are more than {_LISTED_IN_FULL} (otherwise they are "
                        "counted by unit)")
    p.add_argument("--json", action="store_true", help="print a JSON document instead (always the whole list)")
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
    p = gsub.add_parser("verify", help="replay the game from its start and compare every board, record, result "
                                       "and fork with the file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print a JSON document instead")
    p.set_defaults(func=cmd_verify)
