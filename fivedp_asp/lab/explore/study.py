"""Option studies over random games: ``fivedp explore --random-games N --seed S --option NAME=V1,V2``.

N classic games are drawn from the standard opening with the random order generator of ``fivedp
compare`` (game/random_orders.py: legal orders of every kind plus about 5% illegal ones), each
seeded by (S, game number) so that a study is reproducible. The orders are drawn along the history
of the games' own options (the registry's defaults, or the ``--rule`` values put in effect); every
game is then explored like a scenario (explore.py): the same order lines are replayed under every
combination of the asked values, each following its own history, and only what differs is kept.

The study reports how often outcomes diverge: per phase (movement, retreat, adjustment), per kind of
order whose result changed, and for each game its first divergence, which ``--out DIR`` writes as a
ready scenario (the game's orders from the opening up to that step; explore it with the same
``--option``). ``--html FILE`` writes the same as one self-contained page with an SVG plot of how
many games have diverged by each step.
"""

from __future__ import annotations

import html
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from ...engine.batch import step_many
from ...files.scenarios import Scenario, ScenarioStep
from .exploration import Asked, Exploration, column_label, column_settings, columns_for, explore_scenarios
from ...inputs import write_file
from ...report.jsonout import document
from ...model.map import GameMap, load_map
from ...model.multiverse import MOVEMENT, Multiverse, opening
from ...model.notation import format_order, parse_order
from ...model.settings import Settings
from ...model.orders import (Build, Convoy, Disband, Hold, JumpAssist, Move, OpenConvoy, SupportHold, SupportMove,
                            Sustain, UnitSpec, Waive, Where)
from ...engine.step import next_phase
from ...game.random_play import study_orders

KINDS = ((Move, "move"), (SupportMove, "support to move"), (SupportHold, "support to hold"), (Convoy, "convoy"),
         (OpenConvoy, "open convoy"), (JumpAssist, "jump assist"), (Hold, "hold"), (Build, "build"),
         (Disband, "disband or removal"), (Waive, "waive"), (Sustain, "sustain"))


BEYOND = (1, 3)
"""Units given, each movement step, an order only another compared value allows (when they have one)."""


def beyond_orders(mv: Multiverse, rng: random.Random, others: Sequence[Settings], multiverse: bool,
                  tries: int) -> list[tuple[str, str]]:
    """(power, line) for up to ``tries`` units drawn at random from the heads that play: for each, one
    of its orders that some option setting of ``others`` allows and the game's own options do not
    (``legal_orders`` under each), when it has one; in a classic game only orders on its own board.
    An order that means something only with partners comes with them: a jump assist with its jump
    (only jumps of length 1, two turns back on the jumping unit's own timeline, which one assist makes
    legal), an open convoy with an army on the shore of the fleet's chain of seas moving by convoy to
    another shore. A unit is given at most one order."""
    from dataclasses import replace as changed

    from ...engine.possible import legal_orders
    from ...game.play import unit_designation

    m = mv.game_map
    heads = [h for h in (mv.heads if multiverse else mv.heads[:1]) if h.phase == MOVEMENT and h.units]
    if not others or not heads:
        return []
    under = [changed(mv, options=o) for o in others]
    out: list[tuple[str, str]] = []
    used: set[tuple[int, int, str]] = set()
    for _ in range(tries):
        head = rng.choice(heads)
        unit = rng.choice(sorted(head.units.values(), key=lambda u: u.location))
        if (head.timeline, head.turn, unit.province) in used:
            continue
        name = unit_designation(mv, head.key, unit)
        own = {p.order for p in legal_orders(mv, unit=name)}
        extra = sorted({p.order for x in under for p in legal_orders(x, unit=name)} - own)
        extra = [line for line in extra if _fits(parse_order(line, m), head, multiverse)]
        if not extra:
            continue
        line = rng.choice(extra)
        order = parse_order(line, m)
        group = [(unit.power, line)]
        places = {(head.timeline, head.turn, unit.province)}
        if isinstance(order, JumpAssist):
            target = order.target.where
            jumper = mv.boards[(target.timeline, target.turn)].units[target.province]
            group.append((jumper.power, format_order(Move(UnitSpec(target, jumper.kind), order.dest), m)))
            places.add((target.timeline, target.turn, target.province))
        elif isinstance(order, OpenConvoy):
            fleets = {p for p, u in head.units.items() if u.kind == "fleet" and m.provinces[p].is_sea}
            shore = sorted(m.shore(m.sea_region({unit.province}, fleets)))
            armies = [head.units[p] for p in shore if p in head.units and head.units[p].kind == "army"
                      and (head.timeline, head.turn, p) not in used]
            if armies:
                army = rng.choice(armies)
                dest = rng.choice([p for p in shore if p != army.province])
                move = Move(UnitSpec(Where(army.province, None, head.timeline, head.turn), "army"),
                            Where(dest, None, head.timeline, head.turn), via_convoy=True)
                group.append((army.power, format_order(move, m)))
                places.add((head.timeline, head.turn, army.province))
        if places & used:
            continue
        used |= places
        out += group
    return out


def _fits(order: Any, head: Any, multiverse: bool) -> bool:
    """Whether an order may be drawn: in a classic game it stays on its head's board; a jump assist
    names a jump two turns back on the jumping unit's own timeline (length 1: one assist is enough)."""
    if isinstance(order, JumpAssist):
        t = order.target.where
        if order.dest.timeline != t.timeline or t.turn - order.dest.turn != 2:
            return False
    if multiverse:
        return True
    places = [getattr(order, "dest", None), getattr(getattr(order, "target", None), "where", None)]
    return all(p is None or (p.timeline, p.turn) == head.key for p in places)


def _with_beyond(orders: Mapping[str, list[str]], extra: Sequence[tuple[str, str]], game_map: GameMap) -> dict[str, list[str]]:
    """The step's orders with the ``beyond_orders`` given instead of every other order of their units."""
    from ...game.random_orders import ordered_unit

    if not extra:
        return dict(orders)
    taken = {ordered_unit(line, game_map) for _, line in extra}
    out = {p: [x for x in lines if ordered_unit(x, game_map) not in taken] for p, lines in orders.items()}
    for power, line in extra:
        out.setdefault(power, []).append(line)
    return {p: v for p, v in out.items() if v}


def random_games(count: int | Sequence[int], seed: int, years: int, options: Settings | None = None,
                 game_map: GameMap | None = None, illegal_share: float = 0.05,
                 multiverse: bool = False, others: Sequence[Settings] = ()) -> list[tuple[Scenario, list[str]]]:
    """Seeded random games of ``years`` years (games 1 to ``count``, or the game numbers given) as
    scenarios (their orders, no expectations), each with the phase of every step, played in lockstep
    so that their phases are adjudicated together. A game depends on the seed and its number only.
    ``multiverse``: every head gets orders, and a few units travel to the past, to other heads and to
    parent timelines each movement step (a game then lasts six steps a year). ``others``: the option
    settings of the other values a study compares; each movement step, one to three units then get an
    order one of them allows and the game's own options do not (``beyond_orders``, drawn from a
    generator of their own, so that a game in which no unit has one is the game drawn without them)."""
    from ...game.random_orders import OrderGenerator

    game_map = game_map or load_map("standard")
    start = opening(game_map, options)
    numbers = list(range(1, count + 1)) if isinstance(count, int) else list(count)
    count = len(numbers)
    rngs = [random.Random(f"fivedp-study/{seed}/{i}{'/mv' if multiverse else ''}") for i in numbers]
    beyond = [random.Random(f"fivedp-study/{seed}/{i}/beyond") for i in numbers]
    gens = [OrderGenerator(game_map, rng, illegal_share) for rng in rngs]
    positions = [start] * count
    steps: list[list[ScenarioStep]] = [[] for _ in range(count)]
    phases: list[list[str]] = [[] for _ in range(count)]
    playing = list(range(count))
    while playing:
        asked = []
        for n in playing:
            mv = positions[n]
            phase = next_phase(mv)
            orders = study_orders(mv, gens[n], rngs[n], multiverse)
            if others and phase == MOVEMENT:
                extra = beyond_orders(mv, beyond[n], others, multiverse, beyond[n].randint(*BEYOND))
                orders = _with_beyond(orders, extra, game_map)
            steps[n].append(ScenarioStep(orders, {}, 0))
            phases[n].append(phase)
            asked.append((mv, orders))
        # drawing a game keeps only its orders and positions; exploring it (with reasons) comes after
        reports = step_many(asked, reasons=False)
        still = []
        for n, report in zip(playing, reports):
            if isinstance(report, Exception):
                steps[n].pop()  # the game ends before a phase the engine cannot adjudicate
                phases[n].pop()
                continue
            positions[n] = report.after
            nxt = positions[n]
            if nxt.winner or (nxt.heads[0].turn >= 2 * years and next_phase(nxt) == MOVEMENT) \
                    or (multiverse and len(steps[n]) >= 6 * years):
                continue
            still.append(n)
        playing = still
    return [(Scenario(f"random game {k} of seed {seed}", f"random game {k} of seed {seed}, {years} years",
                  f"<random game {k} of seed {seed}>", start, tuple(steps[n]), "", start.options), phases[n])
            for n, k in enumerate(numbers)]


@dataclass
class Study:
    """What a study found, for text, scenario files and the HTML page."""

    names: tuple[str, ...]
    columns: tuple[tuple, ...]
    own: int
    games: int
    seed: int
    years: int
    lengths: list[int] = field(default_factory=list)  # steps per game
    first: list[int | None] = field(default_factory=list)  # first diverging step per game (1-based)
    by_phase: Counter = field(default_factory=Counter)  # phase -> diverging steps
    steps_by_phase: Counter = field(default_factory=Counter)  # phase -> steps played
    by_kind: Counter = field(default_factory=Counter)  # order kind -> orders whose result changed
    by_column: Counter = field(default_factory=Counter)  # column -> games it changes
    failures: list[str] = field(default_factory=list)
    multiverse: bool = False

    @property
    def diverged(self) -> int:
        return sum(1 for f in self.first if f is not None)


def _kind(text: str, game_map: GameMap) -> str:
    try:
        order = parse_order(text, game_map)
    except Exception:  # noqa: BLE001 - an order the generator wrote illegal on purpose
        return "unreadable"
    return next((name for cls, name in KINDS if isinstance(order, cls)), type(order).__name__.lower())


BATCH = 8  # games drawn and explored together (in lockstep), the unit of work given to a worker


def other_settings(settings: Settings, asked: Asked) -> list[Settings]:
    """The settings of every compared combination but the games' own (columns_for)."""
    columns, own = columns_for(settings, asked)
    return [column_settings(settings, tuple(asked), column) for i, column in enumerate(columns) if i != own]


def study_batch(numbers: Sequence[int], seed: int, years: int, asked: Asked,
                options: Settings | None = None, multiverse: bool = False) -> list[tuple[int, list, list[str], Any]]:
    """Games ``numbers`` drawn and explored: per game its number, its orders per step, its phases and
    its exploration (or the error that stopped it), as plain data a worker process can send back. The
    games' orders are drawn from what any compared value allows (``random_games``, ``others``)."""
    drawn = random_games(list(numbers), seed, years, options, multiverse=multiverse,
                         others=other_settings(options or Settings(), asked))
    results = explore_scenarios([g for g, _ in drawn], asked)
    out = []
    for n, (game, phases), ex in zip(numbers, drawn, results):
        if isinstance(ex, Exception):
            ex = RuntimeError(f"{type(ex).__name__}: {ex}")
        out.append((n, [s.orders for s in game.steps], phases, ex))
    return out


def run_study(count: int, seed: int, years: int, asked: Asked, *, options: Settings | None = None,
              out: Path | None = None, jobs: int = 1, scheduler: str | None = None,
              multiverse: bool = False, replace: bool = True) -> Study:
    """The study of games 1 to ``count``; with ``jobs`` or a Dask ``scheduler``, batches of games go to
    workers (workers.in_batches), and the study is the same whatever runs it. Each game's first
    divergence is written into ``out`` (when given) as ``first_divergence_patterns`` names it; a file
    already there is replaced only with ``replace`` (``fivedp explore --force``)."""
    from functools import partial

    from ..check.workers import in_batches

    game_map = load_map("standard")
    if options is not None and not isinstance(options, Settings):
        raise TypeError(f"run_study: options must be a Settings, not {type(options).__name__}")
    run = partial(study_batch, seed=seed, years=years, asked=dict(asked), options=options or Settings(),
                  multiverse=multiverse)
    names = tuple(asked)
    study: Study | None = None
    failures = []
    for n, orders, phases, ex in in_batches(list(range(1, count + 1)), run, BATCH, jobs, scheduler=scheduler,
                                             what="games"):
        if isinstance(ex, Exception):
            failures.append(f"random game {n} of seed {seed}: {ex}")
            continue
        if study is None:
            study = Study(names, ex.columns, ex.own, count, seed, years, multiverse=multiverse)
        _add(study, n, orders, phases, ex, game_map, out, replace)
    if study is None:
        raise RuntimeError("no game could be explored: " + "; ".join(failures[:3]))
    study.failures = failures
    return study


def _add(study: Study, number: int, orders: list, phases: list[str], ex: Exploration, game_map: GameMap,
         out: Path | None, replace: bool = True) -> None:
    study.lengths.append(len(orders))
    first = ex.steps[0].number if ex.steps else None
    study.first.append(first)
    for i in ex.changed_by():
        study.by_column[i] += 1
    for s in ex.steps:
        study.by_phase[s.phases[ex.own] or "none"] += 1
        for r in s.rows:
            if r.what == "order" and r.order:
                study.by_kind[_kind(r.order, game_map)] += 1
    study.steps_by_phase.update(phases)
    if out is not None and first is not None:
        _write_first(out, number, study.seed, orders, ex, first, replace)


_FIRST = "study-s{seed}-g{number:03d}-step{step}.yaml"
"""The name of a game's first divergence in ``--out DIR``."""


def first_divergence_patterns(seed: int, count: int) -> list[str]:
    """The names a study of games 1 to ``count`` may write into its folder (``fnmatch`` patterns, the
    step left open): what ``fivedp explore --out`` must not find there unless given ``--force``."""
    return [_FIRST.format(seed=seed, number=n, step="*") for n in range(1, count + 1)]


def _write_first(out: Path, number: int, seed: int, orders: list, ex: Exploration, first: int,
                 replace: bool = True) -> Path:
    """The game up to its first diverging step, as a scenario of its own orders."""
    out.mkdir(parents=True, exist_ok=True)
    game_id = f"random game {number} of seed {seed}"
    path = out / _FIRST.format(seed=seed, number=number, step=first)
    what = "; ".join(f"{r.power + ': ' if r.power else ''}{r.order or r.what}" for r in ex.steps[0].rows[:4])
    data = {
        "id": f"study {game_id}, step {first}",
        "title": f"first divergence of {game_id} under {', '.join(ex.names)}",
        "description": (f"Written by `fivedp explore --random-games` ({column_label(ex.names, ex.columns[ex.own])} "
                        f"is the game's own setting). Step {first} is the first whose outcome depends on the "
                        f"option; it differs in: {what}. Explore it with --option."),
        "steps": [{"orders": {p: list(ls) for p, ls in step.items()}} for step in orders[:first]],
    }
    write_file(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), "scenario", replace=replace)
    return path


# -- reports -------------------------------------------------------------------------------------


def study_lines(study: Study) -> list[str]:
    n = len(study.first)
    kind = "multiverse" if study.multiverse else "classic"
    lines = [f"Study: {n} random {kind} game{'' if n == 1 else 's'} of {study.years} "
             f"year{'' if study.years == 1 else 's'}, seed {study.seed}; "
             f"options {', '.join(study.names)}; own: {column_label(study.names, study.columns[study.own])}"]
    lines.append(f"  games whose outcome diverges: {study.diverged} of {n}")
    for i, column in enumerate(study.columns):
        if i != study.own:
            lines.append(f"    {column_label(study.names, column)}: changes {study.by_column[i]} game{'' if study.by_column[i] == 1 else 's'}")
    if study.diverged:
        firsts = sorted(f for f in study.first if f is not None)
        lines.append(f"  first divergence: step {firsts[0]} at the earliest, median step {firsts[len(firsts) // 2]}")
    lines.append("  diverging steps by phase: " + (", ".join(f"{p} {k}" for p, k in sorted(study.by_phase.items()))
                                                 or "none"))
    lines.append("  orders whose result changed, by kind: "
                 + (", ".join(f"{k} {v}" for k, v in study.by_kind.most_common()) or "none"))
    for f in study.failures:
        lines.append(f"  could not explore {f}")
    return lines


def study_json(study: Study) -> dict:
    """``explore --random-games --json``: the study's counts, per game its length and first diverging
    step (null where none), as one document like every other."""
    return document(
        "study", games=len(study.first), seed=study.seed, years=study.years, multiverse=study.multiverse,
        options=list(study.names), columns=[dict(zip(study.names, c)) for c in study.columns], own=study.own,
        diverged=study.diverged,
        changes=[{"options": dict(zip(study.names, study.columns[i])), "games": study.by_column[i]}
                 for i in range(len(study.columns)) if i != study.own],
        by_phase=[{"phase": p, "diverging": study.by_phase[p], "played": study.steps_by_phase[p]}
                  for p in sorted(set(study.steps_by_phase) | set(study.by_phase))],
        by_kind=dict(sorted(study.by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
        per_game=[{"game": n, "steps": length, "first_divergence": first}
                  for n, (length, first) in enumerate(zip(study.lengths, study.first), 1)],
        failures=list(study.failures))


def study_html(study: Study) -> str:
    """One self-contained page: the counts and an SVG plot of the share of games diverged by each step."""
    esc = html.escape
    n = max(len(study.first), 1)
    longest = max(study.lengths or [1])
    points = []
    for step in range(0, longest + 1):
        share = sum(1 for f in study.first if f is not None and f <= step) / n
        points.append((step, share))
    w, h, pad = 640, 280, 40
    def x(s: float) -> float:
        return pad + (w - 2 * pad) * s / max(longest, 1)
    def y(v: float) -> float:
        return h - pad - (h - 2 * pad) * v
    path = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in points)
    ended = "".join(f'<circle cx="{x(L):.1f}" cy="{h - pad + 8}" r="2" fill="#999"><title>a game of {L} steps</title></circle>'
                    for L in study.lengths)
    rows = "".join(f"<tr><td>{esc(str(p))}</td><td>{study.by_phase.get(p, 0)}</td><td>{study.steps_by_phase.get(p, 0)}</td></tr>"
                   for p in sorted(set(study.by_phase) | set(study.steps_by_phase)))
    kinds = "".join(f"<tr><td>{esc(str(k))}</td><td>{v}</td></tr>" for k, v in study.by_kind.most_common())
    text = "".join(f"<li>{esc(line.strip())}</li>" for line in study_lines(study)[1:])
    title = esc(study_lines(study)[0])
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
           f'aria-label="share of games diverged by step">'
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#333"/>'
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#333"/>'
           f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle" font-size="12">step of the game (game length)</text>'
           f'<text x="12" y="{h / 2}" font-size="12" transform="rotate(-90 12 {h / 2})" text-anchor="middle">'
           f'games diverged</text>'
           f'<text x="{pad - 4}" y="{y(1) + 4}" text-anchor="end" font-size="10">100%</text>'
           f'<text x="{pad - 4}" y="{y(0) + 4}" text-anchor="end" font-size="10">0</text>'
           f'<text x="{x(longest)}" y="{h - pad + 22}" text-anchor="middle" font-size="10">{longest}</text>'
           f'<polyline fill="none" stroke="#c0392b" stroke-width="2" points="{path}"/>{ended}</svg>')
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>fivedp option study</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 8px}</style></head><body>"
            f"<h1>Option study</h1><p>{title}</p><ul>{text}</ul>{svg}"
            "<p>The curve: the share of games whose outcome has diverged by each step; grey dots: where each "
            "game ended.</p>"
            f"<h2>Diverging steps by phase</h2><table><tr><th>phase</th><th>diverging steps</th>"
            f"<th>steps played</th></tr>{rows}</table>"
            f"<h2>Orders whose result changed</h2><table><tr><th>kind</th><th>orders</th></tr>{kinds}</table>"
            "</body></html>\n")
