"""``fivedp explore``: the arguments of an exploration and what it prints; the exploring itself is
explore/exploration.py's (and explore/study.py's for ``--random-games``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING
import json
import sys
from pathlib import Path

from ..errors import InputError
from ..model.settings import Settings, parse_setting
from ..files.scenarios import find_scenarios
from ..inputs import check_output_folder, output_target, write_output
from ..report.jsonout import document
from .options import add_preset_argument

if TYPE_CHECKING:
    from ..lab.explore.exploration import Asked


def cmd_explore(args: argparse.Namespace) -> int:
    """``fivedp explore``: scenarios (or a study, ``--random-games``) under the options asked for; the
    exit status is the worst of the files' (2 bad input, 3 a defect), 0 when all were explored."""
    from ..engine.userrules import parse_specs
    # read only when exploring: every other command starts without them
    from ..lab.explore.exploration import (Exploration, Failure, asked_values, exploration_json, exploration_lines,
                                       explore_paths, load_scenario, registering, summarise, summary_lines)

    rules = parse_specs(args.rule or [])
    asked = asked_values(args.option or [], args.all_values or [], rules, args.preset)
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.bot and args.bot_games is None:
        raise InputError("--bot names the players of a study over bot games: give --bot-games N")
    if args.set and args.bot_games is None:
        raise InputError("--set lays an option under every value of a study over bot games: give --bot-games N")
    if args.bot_games is not None:
        if args.random_games is not None:
            raise InputError("give --random-games or --bot-games, not both")
        from ..lab.explore.stats import require_scipy

        require_scipy()  # the figures of a study of bot games: asked before its games are played
        return _bot_study(args, asked, rules)
    if args.random_games is not None:
        return _study(args, asked, rules)
    if args.out:
        raise InputError("--out writes a study's first divergences: give --random-games N")
    if not args.paths:
        raise InputError("give scenario or game files to explore, or --random-games N")
    paths = [str(p) for p in find_scenarios(args.paths)]
    if not paths:
        raise InputError(f"no scenario files (.yaml) under {', '.join(args.paths)}")
    if args.html:
        output_target(args.html, "report", force=args.force, reading=paths)  # before the work, and when written
    names = tuple(asked)
    explored: list[Exploration] = []
    failures: list[Failure] = []
    for result in explore_paths(paths, asked, args.jobs, rules, args.scheduler):
        if isinstance(result, Failure):
            failures.append(result)
            print(f"error: {result.message}" if result.status == 2 else result.message, file=sys.stderr)
            continue
        explored.append(result)
        if not args.json:
            print("\n".join(exploration_lines(result)), flush=True)
    tallies = summarise(names, explored)
    if args.json:
        json.dump(document(
            "exploration",
            options={n: list(v) for n, v in asked.items()},
            scenarios=[exploration_json(ex) for ex in explored],
            errors=[{"path": f.path, "message": f.message} for f in failures],
            summary=[{"options": dict(zip(names, t.column)), "alternative_in": t.alternative_in,
                      "changes": len(t.changed), "changed": list(t.changed)} for t in tallies],
        ), sys.stdout, indent=2)
        print()
    elif len(paths) > 1:
        print("\n".join(summary_lines(names, tallies, len(explored), len(failures))))
    if args.html:
        from ..lab.explore.html import exploration_page

        differing = [registering(load_scenario(ex.path), rules) for ex in explored if ex.steps]
        write_output(args.html, exploration_page(differing, explored, asked), "report", force=args.force,
                     reading=paths)
    return max((f.status for f in failures), default=0)


def _study(args: argparse.Namespace, asked: "Asked", rules) -> int:
    """``--random-games N``: an option study over random games (study.py)."""
    from ..lab.explore.study import first_divergence_patterns, run_study, study_html, study_json, study_lines

    if args.paths:
        raise InputError("--random-games plays its own games: give no PATH")
    if args.random_games < 1 or args.years < 1:
        raise InputError("--random-games and --years must be at least 1")
    if args.html:
        output_target(args.html, "report", force=args.force)
    if args.out:
        check_output_folder(args.out, first_divergence_patterns(args.seed, args.random_games), force=args.force)
    own = Settings().with_rules(tuple(rules), in_effect=False)
    study = run_study(args.random_games, args.seed, args.years, asked, options=own,
                      out=Path(args.out) if args.out else None, jobs=args.jobs, scheduler=args.scheduler,
                      multiverse=args.multiverse, replace=args.force)
    if args.json:
        json.dump(study_json(study), sys.stdout, indent=2)
        print()
        for w in study.warnings():
            print(f"warning: {w}", file=sys.stderr)
    else:
        print("\n".join(study_lines(study)))
    if args.html:
        write_output(args.html, study_html(study), "report", force=args.force)
    return 0


def _bot_study(args: argparse.Namespace, asked: "Asked", rules) -> int:
    """``--bot-games N``: the same seeded games played by bots under each value (botstudy.py)."""
    from ..lab.bots.registry import parse_seats
    from ..lab.explore.botstudy import bot_study_html, bot_study_json, bot_study_lines, run_bot_study
    from ..model.map import load_map
    from .selfplay import ProgressBar

    if args.paths:
        raise InputError("--bot-games plays its own games: give no PATH")
    if args.out:
        raise InputError("--out writes a study's first divergences: give --random-games N (selfplay --out "
                         "writes games played by bots)")
    if args.bot_games < 1 or args.years < 1:
        raise InputError("--bot-games and --years must be at least 1")
    if args.budget < 0:
        raise InputError("--budget must be at least 0")
    seats = parse_seats(args.bot or [], load_map("standard"))
    own = laid_under(Settings().with_rules(tuple(rules), in_effect=False), args.set or [])
    if args.html:
        output_target(args.html, "report", force=args.force)
    bar = ProgressBar(args.bot_games)
    try:
        study = run_bot_study(args.bot_games, args.seed, args.years, seats, asked, options=own,
                              multiverse=args.multiverse, budget=args.budget, jobs=args.jobs,
                              scheduler=args.scheduler, progress=bar.advance)
    finally:
        bar.close()
    if args.json:
        json.dump(bot_study_json(study), sys.stdout, indent=2)
        print()
        for w in study.warnings():
            print(f"warning: {w}", file=sys.stderr)
    else:
        print("\n".join(bot_study_lines(study)))
    if args.html:
        write_output(args.html, bot_study_html(study), "report", force=args.force)
    return max((p.status for _, ps in study.played for p in ps), default=0)


def laid_under(settings: Settings, texts: list[str]) -> Settings:
    """``settings`` with each ``--set NAME=VALUE`` given, read through the options registry (and the
    options of ``--rule``): an unknown name or value is an InputError naming what is allowed, an
    option set twice one naming it."""
    values: dict = {}
    for text in texts:
        try:
            name, value = parse_setting(text, settings)
        except InputError as e:
            raise InputError(f"--set {text}: {e}") from None
        if name in values:
            raise InputError(f"--set {name}: given twice")
        values[name] = value
    return settings.with_values(values)


def add_explore_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explore", help="run scenarios (or game files) under several rule options and show only what differs",
        description="Runs each scenario under every combination of the option values asked for (the "
                    "scenario's own value of each is always included, marked (own)) and prints, step by "
                    "step, only what differs between them. Several scenarios end with a summary: how many "
                    "each combination changes, and which.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="scenario files, folders of them, or game files (their adjudicated steps)")
    p.add_argument("--random-games", type=int, metavar="N",
                   help="a study instead: N seeded random classic games, their orders replayed under each value")
    p.add_argument("--bot-games", type=int, metavar="N",
                   help="a study of play instead: N seeded games between bots (--bot), played under each value; "
                        "game length, winners, centres and timelines compared, with intervals")
    p.add_argument("--bot", action="append", metavar="POWER=NAME",
                   help="--bot-games: the bot of a power (random, greedy, search, MODULE:FUNCTION or FILE.py:FUNCTION); "
                        "all=NAME for every power not named (default random; repeatable)")
    p.add_argument("--budget", type=int, default=3,
                   help="--bot-games: order sets each bot may try on a copy of the game per phase (default 3)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    p.add_argument("--years", type=int, default=5, help="years each random or bot game lasts (default 5)")
    p.add_argument("--multiverse", action="store_true",
                   help="random games with time travel: orders on every head, moves and supports into the past, "
                        "other heads and parent timelines (bot games: the bots play across boards)")
    p.add_argument("--out", metavar="DIR", help="write each game's first divergence as a scenario here")
    p.add_argument("--html", metavar="FILE",
                   help="write what differs as one self-contained HTML page: the boards under each value side by "
                        "side, the changed orders with their reasons (a study: its report)")
    p.add_argument("--force", action="store_true",
                   help="replace the --html file, and the scenarios in --out DIR, if they are there (never a file "
                        "explored)")
    p.add_argument("--option", action="append", metavar="NAME=V1,V2",
                   help="values of an option to compare (repeat for more options: every combination is run)")
    p.add_argument("--all-values", action="append", metavar="NAME", help="compare every value of this option")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="--bot-games: an option set in every game under every value compared, not compared itself "
                        "(--set victory=unique: games that a power can win by centres); an option also compared "
                        "takes this value as its own, the one the others are compared with (repeatable)")
    p.add_argument("--rule", action="append", metavar="NAME=FILE",
                   help="a rule of your own to sweep: NAME=FILE.lp (a new option, compared off and on) or "
                        "NAME=VALUE:FILE.lp (a new value); compared with the scenario's own setting when no "
                        "--option asks otherwise (repeatable; docs/rules-of-your-own.md)")
    add_preset_argument(p, "presets to compare, P1,P2 (seeds,oliveriver): each is one column, the scenario's "
                           "own options over it (fivedp options lists them)")
    p.add_argument("--json", action="store_true", help="print the same as JSON")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="worker processes (default 1); with --scheduler local, the local Dask cluster's workers")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the batches on a Dask cluster: its scheduler's address (tcp://host:8786), or local "
                        "for a local cluster of -j worker processes (the 'dist' extra)")
    p.set_defaults(func=cmd_explore)
