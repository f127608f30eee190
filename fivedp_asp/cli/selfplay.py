"""``fivedp selfplay``: games between bots; the arguments and what is printed. The playing is
bots/selfplay.py's."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from ..errors import InputError
from ..model.settings import Settings
from .options import add_preset_argument


class ProgressBar:
    """A bar on standard error while games are played, drawn only when standard error is a terminal
    (never into a file or a pipe), and wiped when the work is done."""

    WIDTH = 30

    def __init__(self, total: int, what: str = "games", stream: TextIO | None = None):
        self.total = max(total, 1)
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.shown = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = 0

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.shown:
            filled = self.WIDTH * self.done // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} {self.what}")
            self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (self.WIDTH + 40) + "\r")
            self.stream.flush()


def game_options(settings: list[str], rule_specs: list[str], preset: str | None = None) -> Settings:
    """The settings of the games: ``--rule`` files in effect, then ``--option NAME=VALUE`` settings
    (which may name the rules' options), over the ``--preset`` when one is named."""
    from ..engine.userrules import from_arguments, with_preset

    return with_preset(from_arguments(settings or [], rule_specs or []), preset)


def out_name(seed: int, number: int) -> str:
    """The name of a game's file in ``--out DIR``."""
    return f"selfplay-s{seed}-g{number:03d}.yaml"


def cmd_selfplay(args: argparse.Namespace) -> int:
    """``fivedp selfplay``: plays the games and prints each one's outcome as it ends; the exit status is
    2 or 3 when a game stopped on bad input or an engine defect."""
    from ..lab.bots.registry import parse_seats
    from ..lab.bots.selfplay import game_json, game_lines, play_games, summary_lines
    from ..inputs import check_output_folder, write_file
    from ..model.map import load_map
    from ..report.jsonout import document

    if args.games < 1 or args.years < 1:
        raise InputError("--games and --years must be at least 1")
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.budget < 0:
        raise InputError("--budget must be at least 0")
    if args.bot_time_limit is not None and not args.bot_time_limit > 0:
        raise InputError("--bot-time-limit must be a number of seconds above 0")
    game_map = load_map("standard")
    seats = parse_seats(args.bot or [], game_map)
    options = game_options(args.option, args.rule, args.preset)
    out = None
    if args.out:
        out = check_output_folder(args.out, [out_name(args.seed, n) for n in range(1, args.games + 1)],
                                  force=args.force)
    # made before anything is printed: a bad --scheduler address is told at once (workers.in_batches)
    results = play_games(args.games, args.seed, args.years, seats, options=options,
                         travel=args.multiverse, budget=args.budget, text=out is not None, jobs=args.jobs,
                         scheduler=args.scheduler, time_limit=args.bot_time_limit)
    kind = "multiverse" if args.multiverse else "classic"
    if not args.json:
        print(f"Selfplay: {args.games} {kind} game{'' if args.games == 1 else 's'} of {args.years} "
              f"year{'' if args.years == 1 else 's'}, seed {args.seed}; {seats.text()}", flush=True)
    bar = ProgressBar(args.games)
    games = []
    entries = []
    try:
        for p in results:
            games.append(p)
            file = None
            if out is not None and p.text is not None:
                out.mkdir(parents=True, exist_ok=True)
                file = str(out / out_name(args.seed, p.number))
                write_file(file, p.text, "game file", replace=args.force)
            entries.append(game_json(p, file))
            bar.advance()
            if not args.json:
                bar.close()
                print("\n".join(game_lines(p, args.multiverse)), flush=True)
                bar.advance(0)
    finally:
        bar.close()
    if args.json:
        json.dump(document("selfplay", seed=args.seed, years=args.years, multiverse=args.multiverse,
                           bots=dict(seats.bots), options=options.document(), games=entries), sys.stdout,
                  indent=2)
        print()
    else:
        print("\n".join(summary_lines(games, seats, args.multiverse)))
        if out is not None:
            print(f"Wrote {len(games)} game file{'' if len(games) == 1 else 's'} into {Path(out)}")
    return max((p.status for p in games), default=0)


def add_selfplay_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "selfplay", help="play seeded games between bots and print how each ended",
        description="Plays seeded games from the standard opening between bots (docs/bots.md) to a win or "
                    "--years years, and prints per game the winner, the final supply centres, and the steps, "
                    "timelines and boards it took.")
    p.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    p.add_argument("--years", type=int, default=10, help="game years before a game without a winner ends (default 10)")
    p.add_argument("--bot", action="append", metavar="POWER=NAME",
                   help="the bot of a power: random, greedy, search, or a bot of your own as MODULE:FUNCTION or "
                        "FILE.py:FUNCTION; all=NAME for every power not named (default random; repeatable)")
    p.add_argument("--multiverse", action="store_true",
                   help="the bots play across boards too: moves and supports into the past and onto other timelines")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a rule option (repeatable)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE",
                   help="a rule of your own, in effect: NAME=FILE.lp or NAME=VALUE:FILE.lp (repeatable; "
                        "docs/rules-of-your-own.md)")
    p.add_argument("--budget", type=int, default=3,
                   help="order sets each power's bot may try on copies of the game per phase, counted by the "
                        "runner (default 3)")
    p.add_argument("--bot-time-limit", type=float, metavar="S",
                   help="seconds a bot of your own may take to give one phase's orders; one that takes longer "
                        "is stopped and the run fails (default: no limit)")
    p.add_argument("--json", action="store_true", help="print the games as one JSON document")
    p.add_argument("--out", metavar="DIR", help="write each game as a game file into DIR (selfplay-sS-gNNN.yaml)")
    p.add_argument("--force", action="store_true", help="replace game files of the same names in --out DIR")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="worker processes (default 1); with --scheduler local, the local Dask cluster's workers")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="play the batches of games on a Dask cluster: its scheduler's address, or local")
    add_preset_argument(p)
    p.set_defaults(func=cmd_selfplay)
