"""The ``fivedp`` command.

Exit status: 0 success, 1 a checked scenario failed (or engines disagreed), 2 bad input, 3 an engine
defect or any other unexpected failure (reported as a short message saying where to report it, never
a traceback).

The command line reads arguments and prints; the work and the wording of results are the layers'
below it (report/text.py for the lines printed, report/jsonout.py for ``--json``), and one module of
``cli/`` per command group holds its arguments. Nothing in the package imports the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import lru_cache
from typing import Sequence

from ..files.scenarios import find_scenarios, read_scenario, check_scenario
from ..errors import REPORT_HINT, AdjudicationError, EncodingError, InputError, crash_message, cut_text, shown_path
from ..model.options import preset
from ..solver.driver import (DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, check_memory_limit, check_time_limit,
                             memory_limit, time_limit)
from .bench import add_bench_parser
from .explore import add_explore_parser
from .options import add_options_parser, add_preset_argument
from .selfplay import add_selfplay_parser
from .serve import add_serve_parser
from .game import add_game_parser
from .render import add_render_parser
from ..report.jsonout import check_document, scenario_document
from ..report.text import step_lines


# -- commands ------------------------------------------------------------------------------------


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from ..engine.userrules import scenario_with_preset, scenario_with_rules, parse_specs

    rules = parse_specs(args.rule)
    if args.preset is not None:
        preset(args.preset)  # an unknown name is refused before the file is read
    run = check_scenario(scenario_with_preset(scenario_with_rules(read_scenario(args.file), rules), args.preset))
    if args.json:
        print(json.dumps(scenario_document(run), indent=2))
        return 0
    title = f"{run.scenario.id}: {run.scenario.title}" if run.scenario.title else run.scenario.id
    print(title)
    for i, report in enumerate(run.reports, 1):
        print("\n".join(step_lines(report, i)))
    if run.scenario.steps and any(s.expect for s in run.scenario.steps):
        print("Expectations: " + ("all met" if run.passed else "NOT met"))
        for p in run.problems:
            print(f"  {p}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ..lab.check.checking import check_paths

    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    passed = failed = 0
    bad_input = defect = False
    scenarios: list[dict] = []
    say = (lambda text: None) if args.json else print
    from ..engine.userrules import parse_specs

    rules = parse_specs(args.rule)
    for c in check_paths([str(p) for p in find_scenarios(args.paths)], args.jobs, rules=rules, scheduler=args.scheduler,
                         preset=args.preset):
        entry: dict = {"path": c.path, "id": c.id, "passed": c.passed, "problems": list(c.problems), "error": None}
        scenarios.append(entry)
        if c.error == "encoding":
            raise EncodingError(c.message)  # no scenario can run: exit 3 at once with clingo's file and line
        if c.error == "input":
            say(f"ERROR {c.message}")
            entry["error"] = {"kind": "input", "message": c.message}
            failed += 1
            bad_input = True
        elif c.error:
            say(f"DEFECT {c.path}: {c.message}")
            entry["error"] = {"kind": "engine", "message": c.message}
            failed += 1
            defect = True
        elif c.passed:
            passed += 1
            if args.verbose:
                say(f"ok   {c.id}")
        else:
            failed += 1
            for problem in c.problems:
                say(f"FAIL {c.id} ({c.path}): {problem}")
    if args.json:
        print(json.dumps(check_document(scenarios, passed, failed), indent=2))
    else:
        print(f"{passed} passed, {failed} failed")
    if defect:
        print(REPORT_HINT, file=sys.stderr)
        return 3
    if bad_input:
        return 2
    return 1 if failed else 0


def cmd_compare(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from ..lab.compare.lockstep import run_games
    from ..lab.compare.reference import get_reference
    from ..lab.compare.report import games_summary, scenarios_summary
    from ..lab.compare.scenarios import run_scenarios
    from ..model.map import load_map

    if args.paths and args.games is not None:
        raise InputError("give scenario paths or --games, not both")
    if not args.paths and args.games is None:
        raise InputError("give scenario paths to compare, or --games N for random games")
    if args.games is not None and args.games < 1:
        raise InputError("--games must be at least 1")
    if args.years < 1:
        raise InputError("--years must be at least 1")
    names = list(dict.fromkeys(args.reference or ["diplomacy"]))
    triangulating = len(names) > 1 or args.triangulate
    if args.games is not None and not triangulating:
        from ..lab.compare.lockstep import finding_patterns
        from ..inputs import check_output_folder

        # the scenarios of an earlier run are kept unless --force: checked before any game is played
        check_output_folder(args.out, finding_patterns(args.seed, args.games), force=args.force)
    game_map = load_map("standard")
    if triangulating:
        from ..lab.compare.triangulate import triangulate, triangulation_lines

        if args.jobs > 1:
            raise InputError("triangulation runs in one process: leave out -j")
        if len(names) < 2:
            names = list(dict.fromkeys(names + ["diplomacy", "pydip"]))
        references = [get_reference(n, game_map) for n in names]
        if args.games is not None:
            from ..lab.compare.triangulate import triangulate_games

            found = triangulate_games(references, game_map, games=args.games, seed=args.seed, years=args.years)
        else:
            found = triangulate(args.paths, references, game_map)
        print("\n".join(triangulation_lines(found, references, games=args.games is not None)))
        if found.errors:
            return 2
        return 1 if any(not r.agrees and not r.excused_by for s in found.splits for r in s.readings) else 0
    reference = get_reference(names[0], game_map)
    if args.paths:
        tally = run_scenarios(args.paths, reference, game_map, verbose=args.verbose)
        print("\n".join(scenarios_summary(tally, reference=reference.title, **_deviations(reference))))
        if tally.errors:
            return 2
        if tally.scenarios and tally.skipped == tally.scenarios:
            print(f"error: nothing to compare: the reference adjudicates classic Diplomacy only, and all "
                  f"{tally.scenarios} scenarios are multiverse (or not classic) scenarios", file=sys.stderr)
            return 2
        return 1 if tally.real else 0
    started = time.perf_counter()
    origin = f"`fivedp compare --reference {names[0]} --games {args.games} --seed {args.seed}`"
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.jobs > 1 and args.games > 1:
        from ..lab.compare.lockstep import run_games_parallel

        tally = run_games_parallel(names[0], min(args.jobs, args.games), games=args.games, seed=args.seed,
                                   years=args.years, out=Path(args.out), origin=origin, replace=args.force)
    else:
        tally = run_games(reference, game_map, games=args.games, seed=args.seed, years=args.years,
                          out=Path(args.out), origin=origin, replace=args.force)
    print("\n".join(games_summary(tally, reference=reference.title, **_deviations(reference), games=args.games,
                                  seed=args.seed,
                                  years=args.years, elapsed=time.perf_counter() - started)))
    return 1 if tally.findings else 0


def _deviations(reference) -> dict:
    """The reference's own list of known deviations, for the summary."""
    return {"deviations": getattr(reference, "deviations", None), "found": getattr(reference, "found_by_compare", None)}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fivedp-asp")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fivedp", description="Adjudicator for 5D Diplomacy with Multiversal Time Travel.")
    parser.add_argument("--version", action="version", version=f"fivedp {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("adjudicate", help="adjudicate a scenario file and print every step's results and positions")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the same as JSON")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE", help="a rule of your own: NAME=FILE.lp (a new option) or NAME=VALUE:FILE.lp (a new value), in effect (repeatable; docs/rules-of-your-own.md)")
    add_preset_argument(p)
    p.set_defaults(func=cmd_adjudicate)
    p = sub.add_parser("check", help="run scenario files (or folders of them) and check their expectations")
    p.add_argument("paths", nargs="+")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the cases that pass")
    p.add_argument("--json", action="store_true", help="print the outcome of every case as one JSON document")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="worker processes, each running its share of the files in lockstep batches (default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the batches on a Dask cluster: its scheduler's address (tcp://host:8786), or local "
                        "for a local cluster of -j worker processes (the 'dist' extra)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=FILE", help="a rule of your own: NAME=FILE.lp (a new option) or NAME=VALUE:FILE.lp (a new value), in effect (repeatable; docs/rules-of-your-own.md)")
    add_preset_argument(p)
    p.set_defaults(func=cmd_check)
    add_game_parser(sub)
    add_render_parser(sub)
    add_bench_parser(sub, main)
    add_explore_parser(sub)
    add_options_parser(sub)
    add_serve_parser(sub)
    add_selfplay_parser(sub)
    p = sub.add_parser("compare", help="compare this engine with a reference adjudicator, on scenarios or random games")
    p.add_argument("paths", nargs="*", help="scenario files or folders (classic scenarios only)")
    p.add_argument("--reference", action="append",
                   help="the reference adjudicator: diplomacy (default) or pydip; give two to triangulate")
    p.add_argument("--triangulate", action="store_true",
                   help="compare with diplomacy and pydip at once and report where they disagree with each "
                        "other, and which one fivedp agrees with")
    p.add_argument("--games", type=int, help="play this many random games in lockstep instead")
    p.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    p.add_argument("--years", type=int, default=10, help="years each random game lasts (default 10)")
    p.add_argument("--out", default="compare-out", help="folder for the scenarios of real disagreements")
    p.add_argument("--force", action="store_true",
                   help="replace scenarios of an earlier run with the same seed in the --out folder")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="--games: worker processes, each playing its share of the games (default 1)")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that agree")
    p.set_defaults(func=cmd_compare)
    # every command that adjudicates takes a time limit for each program it solves (docs/limits.md)
    game = _subcommands(sub.choices["game"])
    for command in (sub.choices["adjudicate"], sub.choices["check"], game["adjudicate"], sub.choices["explore"],
                    sub.choices["compare"], sub.choices["selfplay"]):
        command.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                             help=f"give up on a step not settled within this many seconds (default {DEFAULT_TIME_LIMIT:g})")
        command.add_argument("--memory-limit", type=_mebibytes, default=DEFAULT_MEMORY_LIMIT, metavar="MIB",
                             help="give up on a step with rules of your own whose program needs more memory than "
                                  f"this many MiB (default {DEFAULT_MEMORY_LIMIT})")
    return parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of a command (argparse keeps them in its subparsers action)."""
    return next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _seconds(text: str) -> float:
    """A time limit as argparse reads it: a positive number of seconds."""
    try:
        return check_time_limit(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None


def _mebibytes(text: str) -> int:
    """A memory limit as argparse reads it: a whole number of MiB."""
    try:
        return check_memory_limit(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None


class _QuietPipe:
    """Standard output that a reader may close early (``| head -1``), or that cannot take what is
    written (a full disk, ``> /dev/full``): once it fails, the rest of the output goes nowhere and the
    command finishes its work as it would have. A game file is always written before anything is
    printed, so nothing that was saved depends on the reader. A closed pipe changes nothing else; any
    other failure is kept (``error``) and reported when the command ends."""

    def __init__(self, stream):
        self._stream = stream
        self._gone = False
        self.error: OSError | None = None

    def _lost(self, exc: OSError) -> None:
        self._gone = True
        if not isinstance(exc, BrokenPipeError):
            self.error = exc
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass  # a stream without a file descriptor (tests capture output in memory)

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                self._stream.write(text)
            except OSError as exc:
                self._lost(exc)
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except OSError as exc:
                self._lost(exc)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


OUTPUT_LOST = 4
"""The exit status of a command that did its work (a game saved) but could not write its report."""


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")  # a name that is not UTF-8 is shown, not a crash
    stdout = sys.stdout
    out = sys.stdout = _QuietPipe(stdout)
    done: dict[str, str] = {}
    try:
        status = _main(argv, done)
        out.flush()
    finally:
        sys.stdout = stdout
    if out.error is not None:
        what = out.error.strerror or cut_text(str(out.error))
        if done.get("saved"):
            # the work is done and kept: a script must not do it again, so the status says so
            _say(f"error: standard output: cannot write the report: {what}; but {done['saved']}: do not repeat "
                 "the command (fivedp game show shows the game as it is)")
            return OUTPUT_LOST
        _say(f"error: standard output: cannot write: {what}")
        return status if status not in (0, 1) else 2
    return status


def _say(text: str) -> None:
    """A message on standard error, which may itself be gone."""
    try:
        print(text, file=sys.stderr)
    except OSError:
        pass


@lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    """``build_parser``'s parser, built once a process: its twenty commands' 170 arguments take 14 ms to
    build, which a process running many commands (a script calling ``main``, the tests) paid for each.
    Parsing reads a parser and never changes it; each command's function is the one it names when
    it is built."""
    return build_parser()


def _main(argv: Sequence[str] | None, done: dict[str, str]) -> int:
    """Runs the command; a command that saved something says what in ``done["saved"]`` (through
    ``args.saved``), so that an output that fails afterwards is reported as what it is."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # order lines may follow options: "fivedp game orders FILE --power Austria 'A Vie - Gal'"
        if getattr(args, "orders", None) is None or any(x.startswith("--") for x in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.orders = list(args.orders) + extra
    try:
        with time_limit(getattr(args, "time_limit", None)), memory_limit(getattr(args, "memory_limit", None)):
            status = args.func(args)
        if getattr(args, "saved", None):
            done["saved"] = str(args.saved)
        return status
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except AdjudicationError as exc:
        print(f"engine error: {exc}\n{REPORT_HINT}", file=sys.stderr)
        return 3
    except BrokenPipeError:
        # a pipe other than standard output went away: the work itself is done
        return 0
    except OSError as exc:
        # a file that cannot be read or written: say which and why
        where = f"{shown_path(exc.filename)}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or cut_text(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - any other failure is a defect of fivedp, not of the input
        print(crash_message(exc), file=sys.stderr)
        return 3
