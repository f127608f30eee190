"""``fivedp bench``: the benchmarks' arguments and their tables; the measuring is lab/bench/'s."""

from __future__ import annotations

from functools import partial
from typing import Callable
from ..model.kinds import Phase
from ..model.multiverse import PHASES



def _ints(text: str) -> list[int]:
    """A comma-separated list of whole numbers of at least 1, as the options of the suites take them."""
    from ..errors import InputError

    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"{text!r}: give whole numbers separated by commas, like 1,4,16,64") from None
    if not values or min(values) < 1:
        raise InputError(f"{text!r}: give whole numbers of at least 1, separated by commas")
    return values


def cmd_bench(args, command: Callable[[list[str]], int]) -> int:
    """``fivedp bench SUITE``: runs one suite and prints its table. ``command`` is the ``fivedp``
    entry point, which the game suite times in process."""
    import sys

    # the benchmarks are read only when one is run: every other command starts without them
    from ..lab.bench.benchmarks import (BIG_RUNS, MULTIVERSE_HEADER, bench_big, bench_game, bench_multiverse,
                                        bench_possible, format_row, start_seconds)
    from ..lab.bench.classic import bench_classic, record_phases
    from ..lab.bench.profile import print_batch_profile, print_profile, profile_batch, profile_step
    from ..lab.bench.positions import step_orders, synthetic_multiverse

    if args.profile and args.suite not in ("classic", "multiverse"):
        from ..errors import InputError

        raise InputError("--profile is for the classic and multiverse benchmarks")
    if args.batch < 1 or (args.batch > 1 and args.suite != "classic"):
        from ..errors import InputError

        raise InputError("--batch must be at least 1" if args.batch < 1 else "--batch is for the classic benchmark")
    if args.suite == "game":
        print(f"game: commands on synthetic game files (8 timelines, 4 past boards and one history entry of 34 "
              f"orders per step), in process; median of {args.repeat} runs")
        print(f"{'steps':>6} {'boards':>7} {'MB':>7} {'load s':>7} {'orders s':>9} {'show s':>7}")
        for steps in _ints(args.steps):
            r = bench_game(steps, args.repeat, command)
            print(f"{r['steps']:>6} {r['boards']:>7} {r['bytes'] / 1e6:>7.2f} {r['load_s']:>7.2f} "
                  f"{r['orders_s']:>9.2f} {r['show_s']:>7.2f}", flush=True)
        print(f"on top of each command run as a program: the interpreter's start and imports, "
              f"{start_seconds(args.repeat):.2f} s")
        return 0
    if args.suite == "selfplay":
        from ..lab.bench.benchmarks import bench_selfplay

        if args.games < 1 or args.years < 1:
            from ..errors import InputError

            raise InputError("--games and --years must be at least 1")
        print(f"selfplay: seven {args.bot} bots, one game at a time (seed {args.seed}), classic games of "
              f"{args.years} years and multiverse games of {max(args.years // 2, 1)}; wall-clock and processor "
              "seconds per game", flush=True)
        print(f"{'kind':<11} {'game':>4} {'years':>5} {'steps':>5} {'timelines':>9} {'boards':>6} {'wall s':>7} "
              f"{'cpu s':>6}")
        for multiverse, years in ((False, args.years), (True, max(args.years // 2, 1))):
            kind = "multiverse" if multiverse else "classic"
            rows = bench_selfplay(args.games, years, args.seed, multiverse, args.bot)
            for r in rows:
                print(f"{kind:<11} {r['game']:>4} {r['years']:>5g} {r['steps']:>5} {r['timelines']:>9} "
                      f"{r['boards']:>6} {r['wall_s']:>7.2f} {r['cpu_s']:>6.2f}" + (f"  {r['error']}" if r['error']
                                                                                     else ""), flush=True)
            cpu = sum(r["cpu_s"] for r in rows) / len(rows)
            print(f"{kind:<11} mean {cpu:.2f} processor s a game: 100 such games take about "
                  f"{100 * cpu / 2 / 60:.0f} min on two cores (-j 2)", flush=True)
        return 0
    if args.suite == "serve":
        from ..lab.bench.serve import bench_serve

        print(f"serve: fivedp serve on SQLite, every power's player submitting at once, {args.rounds} rounds; "
              "latency of a submission (the last of a round completes the phase, which the server then adjudicates), the wait until the next phase, the picture's page twice, the table in "
              "Chromium twice (until its picture is drawn), one unit's legal orders", flush=True)
        print(f"{'game':<12} {'boards':>6} {'played':>6} {'players':>7} {'steps':>5} {'lost':>4} {'stale':>5} "
              f"{'p50 ms':>7} {'p95 ms':>7} {'others p95':>10} {'compl. p50':>10} {'page s':>7} {'again s':>7} "
              f"{'after s':>7} {'table s':>7} {'again s':>7} {'legal p50 ms':>12} {'max ms':>7}")

        def cell(value, width: int, spec: str) -> str:
            return f"{'-':>{width}}" if value is None else f"{value:>{width}{spec}}"

        rows = []
        for r in bench_serve(args.rounds, args.serve_timelines, args.seed):
            print(f"{r['game']:<12} {r['boards']:>6} {r['played_before']:>6} {r['players']:>7} {r['steps']:>5} "
                  f"{r['lost']:>4} {r['stale']:>5} {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} "
                  f"{cell(r['others_p95_ms'], 10, '.1f')} {cell(r['completing_p50_ms'], 10, '.1f')} {r['page_s']:>7.2f} "
                  f"{r['page_again_s']:>7.2f} {r['page_after_s']:>7.2f} {cell(r['table_s'], 7, '.2f')} "
                  f"{cell(r['table_again_s'], 7, '.2f')} "
                  f"{cell(r['legal_p50_ms'], 12, '.1f')} {cell(r['legal_max_ms'], 7, '.1f')}", flush=True)
            rows.append(r)
        print("processor time of the server's workers per request (Server-Timing), of the server process per "
              "round and while the table was drawn in Chromium, and the load average during the rounds")
        print(f"{'game':<12} {'cpu p50 ms':>10} {'p95 ms':>7} {'others p95':>10} {'completing p50':>14} "
              f"{'round cpu s':>11} {'round wall s':>12} {'page cpu s':>10} {'again':>6} {'legal cpu p50':>13} "
              f"{'max ms':>7} {'table cpu s':>11} {'again':>6} {'load':>9}")
        for r in rows:
            print(f"{r['game']:<12} {r['cpu_p50_ms']:>10.1f} {r['cpu_p95_ms']:>7.1f} "
                  f"{cell(r['cpu_others_p95_ms'], 10, '.1f')} {cell(r['cpu_completing_p50_ms'], 14, '.1f')} "
                  f"{cell(r['round_cpu_p50_s'], 11, '.2f')} {cell(r['turnaround_p50_s'], 12, '.2f')} "
                  f"{r['page_cpu_s']:>10.2f} {r['page_again_cpu_s']:>6.2f} {cell(r['legal_cpu_p50_ms'], 13, '.1f')} "
                  f"{cell(r['legal_cpu_max_ms'], 7, '.1f')} {cell(r['table_cpu_s'], 11, '.2f')} "
                  f"{cell(r['table_again_cpu_s'], 6, '.2f')} {r['load'][0]:>4.1f}-{r['load'][1]:<4.1f}", flush=True)
        return 0
    if args.suite == "possible":
        print(f"possible: api.legal_orders on random_game_until({args.timelines}, seed={args.seed}), processor "
              f"time, best of {args.repeat}", flush=True)
        rows = bench_possible(args.timelines, args.seed, args.repeat)
        print(f"{rows[0]['boards']} boards; {'question':<36} {'orders':>7} {'cpu s':>6} {'peak MB':>8}")
        for r in rows:
            print(f"{'':>{len(str(rows[0]['boards'])) + 8}} {r['question']:<36} {r['orders']:>7} {r['cpu_s']:>6.2f} "
                  f"{r['peak_mb']:>8.0f}", flush=True)
        return 0
    if args.suite == "big":
        print(f"big: one movement step on one board of a map made of N disjoint copies of a DATC position's "
              f"provinces; without reasons; best of {args.repeat} runs")
        print(f"{'position':<8} {'copies':>6} {'orders':>6} {'step s':>8} {'backups':>7} {'as DATC':>7}")
        for name, sizes in BIG_RUNS:
            for copies in (_ints(args.copies) if args.copies else sizes):
                r = bench_big(name, copies, args.repeat)
                print(f"{r.position:<8} {r.copies:>6} {r.orders:>6} {r.seconds:>8.2f} {r.backups:>7} "
                      f"{r.as_datc:>7}", flush=True)
        return 0
    if args.profile and args.suite == "classic" and args.batch > 1:
        print(f"classic --profile --batch {args.batch}: {args.phases} movement phases of seeded random games (seed "
              f"{args.seed}) and their retreat and adjustment phases, adjudicated {args.batch} at a time in one "
              f"program, without reasons; best of {args.repeat} per group", flush=True)
        phases = record_phases(args.phases, args.seed)
        print_batch_profile([profile_batch(phases[i:i + args.batch], args.repeat)
                             for i in range(0, len(phases), args.batch)])
        return 0
    if args.profile:
        if args.suite == "classic":
            print(f"classic --profile: {args.phases} movement phases of seeded random games (seed {args.seed}) and "
                  f"their retreat and adjustment phases, one at a time, without reasons; best of {args.repeat}", flush=True)
            cases = [(p.mv, p.orders) for p in record_phases(args.phases, args.seed)]
        else:
            print(f"multiverse --profile: one movement step, every head's units ordered, {args.travel} of them "
                  f"travelling in time; without reasons; best of {args.repeat}", flush=True)
            cases = []
            for heads in _ints(args.heads):
                for history in _ints(args.history):
                    mv = synthetic_multiverse(heads, history)
                    cases.append((mv, step_orders(mv, args.travel, args.seed)[0]))
        runs = [[profile_step(mv, orders) for mv, orders in cases] for _ in range(args.repeat)]
        if args.suite == "classic":
            print_profile(runs)
        else:
            for k, (mv, _) in enumerate(cases):
                print(f"{len(mv.heads)} heads, {len(mv.boards)} boards:")
                print_profile([[r[k]] for r in runs])
        return 0
    if args.suite == "multiverse":
        heads_list, history_list = _ints(args.heads), _ints(args.history)
        print(f"multiverse: one movement step, every head's units ordered, {args.travel} of them travelling in "
              f"time; without reasons; median of {args.repeat} runs")
        print(MULTIVERSE_HEADER)
        for heads in heads_list:
            for history in history_list:
                print(format_row(bench_multiverse(heads, history, args.travel, args.repeat, args.seed)), flush=True)
        return 0
    import importlib.util

    if importlib.util.find_spec("diplomacy") is None:
        from ..errors import InputError

        raise InputError("the classic benchmark needs the reference package: pip install 'fivedp-asp[reference]'")

    def progress(i: int, n: int) -> None:
        print(f"  timing phase {i}/{n}", file=sys.stderr, flush=True)

    if args.batch > 1:
        print(f"classic: {args.phases} movement phases of seeded random games (seed {args.seed}) and their retreat "
              f"and adjustment phases, adjudicated {args.batch} at a time in one program; the reference one "
              f"phase at a time; whole pipeline, order text in, results and positions out; per phase: a group's "
              f"time (best of {args.repeat}) over its size, median over groups", flush=True)
        r = bench_classic(args.phases, args.seed, args.repeat, progress, batch=args.batch)
        print(f"{'batch':>6} {'groups':>7} {'phases':>7} {'fivedp ms':>10} {'reference ms':>13} {'with reasons':>13}")
        print(f"{r['batch']:>6} {r['groups']:>7} {r['phases']:>7} {r['ours_ms']:>10.2f} {r['reference_ms']:>13.2f} "
              f"{r['ours_reasons_ms']:>13.2f}")
        print(f"ratio ours/reference {r['ours_ms'] / r['reference_ms']:.2f}")
        print(f"with reasons: {r['ours_reasons_ms']:.2f} ms a phase, "
              f"ratio {r['ours_reasons_ms'] / r['reference_ms']:.2f}")
        print(_REASONS_NOTE)
        return 0
    print(f"classic: {args.phases} movement phases of seeded random games (seed {args.seed}) and their retreat "
          f"and adjustment phases; whole pipeline, order text in, results and positions out; best of "
          f"{args.repeat} per phase, median over phases", flush=True)
    r = bench_classic(args.phases, args.seed, args.repeat, progress)
    print(f"{'phase':<12} {'count':>6} {'fivedp ms':>10} {'reference ms':>13} {'with reasons':>13}")
    for kind in PHASES:
        if kind in r["phases"]:
            print(f"{kind:<12} {r['phases'][kind]:>6} {r['ours_ms'][kind]:>10.2f} {r['reference_ms'][kind]:>13.2f} "
                  f"{r['ours_reasons_ms'][kind]:>13.2f}")
    print(f"{'all':<12} {sum(r['phases'].values()):>6} {r['ours_all_ms']:>10.2f} {r['reference_all_ms']:>13.2f} "
          f"{r['ours_reasons_all_ms']:>13.2f}")
    print(f"ratio ours/reference {r['ours_all_ms'] / r['reference_all_ms']:.2f}")
    moves = f"movement {r['ours_reasons_ms']['movement']:.2f} ms, " if Phase.MOVEMENT in r["phases"] else ""
    print(f"with reasons: {moves}all {r['ours_reasons_all_ms']:.2f} ms, ratio "
          f"{r['ours_reasons_all_ms'] / r['reference_all_ms']:.2f}")
    print(_REASONS_NOTE)
    return 0


_REASONS_NOTE = ("fivedp ms: without reasons (the reference gives result codes only); with reasons: why each order has its result "
                 "too, as every command that prints results asks, timed alternately with it")


def add_bench_parser(sub, command: Callable[[list[str]], int]) -> None:
    """The ``bench`` command; ``command`` is the ``fivedp`` entry point itself (cli.commands.main),
    handed in rather than imported so that this module and the one that builds the parser do not
    import each other."""
    p = sub.add_parser("bench", help="benchmarks: classic (against the reference), multiverse (scaling), game (game "
                                     "file commands), possible (legal orders), big (many independent paradoxes in one "
                                     "step), serve (the server) or selfplay (games between bots)")
    p.add_argument("suite", choices=("classic", "multiverse", "game", "possible", "big", "serve", "selfplay"))
    p.add_argument("--phases", type=int, default=500, help="classic: movement phases to record (default 500)")
    p.add_argument("--batch", type=int, default=1,
                   help="classic: phases adjudicated together in one program (default 1: one at a time)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (default 3)")
    p.add_argument("--rounds", type=int, default=20, help="serve: rounds of seven submissions at once (default 20)")
    p.add_argument("--serve-timelines", type=int, default=30,
                   help="serve: timelines of the big game played at the table (default 30: 311 boards)")
    p.add_argument("--games", type=int, default=3, help="selfplay: games of each kind, one at a time (default 3)")
    p.add_argument("--years", type=int, default=10,
                   help="selfplay: years of a classic game; a multiverse game plays half as many (default 10)")
    p.add_argument("--bot", default="greedy", help="selfplay: the bot of all seven powers (default greedy)")
    p.add_argument("--profile", action="store_true",
                   help="classic, multiverse: where each step's time goes, stage by stage, with the programs' sizes")
    p.add_argument("--heads", default="1,4,16,64", help="multiverse: boards in play, comma-separated")
    p.add_argument("--history", default="200,1000", help="multiverse: boards of history, comma-separated")
    p.add_argument("--travel", type=int, default=30, help="multiverse: time-travel orders in the step")
    p.add_argument("--steps", default="60,2000", help="game: steps of the game files, comma-separated")
    p.add_argument("--timelines", type=int, default=28,
                   help="possible: timelines of the random game the orders are listed on (default 28)")
    p.add_argument("--copies", help="big: copies of each position, comma-separated (default: 128,512,1024 circles "
                                    "of 6.C.1; 20,100,1000 of 6.F.18 and of 6.F.16)")
    p.set_defaults(func=partial(cmd_bench, command=command))
