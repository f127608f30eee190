"""Option studies over random games: ``fivedp explore --random-games N --seed S --option NAME=V1,V2``.

N classic games are drawn from the standard opening with the random order generator of ``fivedp
compare`` (game/random_orders.py: legal orders of every kind plus about 5% illegal ones), each
seeded by (S, game number) so that a study is reproducible. The orders are drawn along the history
of the games' own options (the registry's defaults, or the ``--rule`` values put in effect); every
game is then explored like a scenario (explore.py): the same order lines are replayed under every
combination of the asked values, each following its own history, and only what differs is kept.

Each movement step a few units are given orders only another compared value allows (``beyond_orders``),
so a value that allows more is tried at all; those orders' own results differ by construction. The
study therefore tells apart, per value, the games where only the added orders' results differ and
the games where play changed (units, centres, timelines, the winner, any other order's result): the
headline is the second. It also says how often each value was exercised (orders given whose result
it changes, and how many of them succeeded), warns of a value never exercised, and counts the steps
where play changed per phase and the orders not added whose result changed per kind. Each game's
first step where play changed is what ``--out DIR`` writes as a ready scenario (the game's orders
from the opening up to that step; explore it with the same ``--option``). ``--html FILE`` writes the
same as one self-contained page with an SVG plot of how many games' play has changed by each step.
"""

from __future__ import annotations

import html
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

from ...model.kinds import Result, UnitKind
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
from ...yaml_lines import dump_yaml

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
            fleets = {p for p, u in head.units.items() if u.kind == UnitKind.FLEET and m.provinces[p].is_sea}
            shore = sorted(m.shore(m.sea_region({unit.province}, fleets)))
            armies = [head.units[p] for p in shore if p in head.units and head.units[p].kind == UnitKind.ARMY
                      and (head.timeline, head.turn, p) not in used]
            if armies:
                army = rng.choice(armies)
                dest = rng.choice([p for p in shore if p != army.province])
                move = Move(UnitSpec(Where(army.province, None, head.timeline, head.turn), UnitKind.ARMY),
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


def _unit_at(line: str, mv: Multiverse) -> tuple[int, int, str] | None:
    """The unit a line orders, as (timeline, turn, province): a line that names no board (a classic
    game's generator writes ``F Mao - Gas``) orders a unit of the first head, the one board a classic
    game plays on. None for a line that orders no unit (a build, a waive) or cannot be read (the
    generator writes a few illegal lines on purpose)."""
    from ...game.random_orders import ordered_unit

    try:
        unit = ordered_unit(line, mv.game_map)
    except Exception:  # noqa: BLE001 - an unreadable line orders no unit we can name
        return None
    if unit is None:
        return None
    timeline, turn, province = unit
    head = mv.heads[0].key
    return (head[0] if timeline is None else timeline, head[1] if turn is None else turn, province)


def _with_beyond(orders: Mapping[str, list[str]], extra: Sequence[tuple[str, str]], mv: Multiverse) -> dict[str, list[str]]:
    """The step's orders with the ``beyond_orders`` given instead of every other order of their units:
    units are compared, not spellings (``F a-Mao@5 C`` replaces ``F Mao - Gas``), so that no unit has
    two orders, which would make both invalid (conflicting orders) under every value."""
    if not extra:
        return dict(orders)
    taken = {_unit_at(line, mv) for _, line in extra} - {None}
    out = {p: [x for x in lines if _unit_at(x, mv) not in taken] for p, lines in orders.items()}
    for power, line in extra:
        out.setdefault(power, []).append(line)
    return {p: v for p, v in out.items() if v}


class Drawn(NamedTuple):
    """A study's random game: the scenario of its orders, the phase of each step, and per step the
    orders only another compared value allows (with their partners), as (power, line)."""

    scenario: Scenario
    phases: list[str]
    added: list[frozenset]


def random_games(count: int | Sequence[int], seed: int, years: int, options: Settings | None = None,
                 game_map: GameMap | None = None, illegal_share: float = 0.05,
                 multiverse: bool = False, others: Sequence[Settings] = ()) -> list[Drawn]:
    """Seeded random games of ``years`` years (games 1 to ``count``, or the game numbers given) as
    scenarios (their orders, no expectations), each with the phase of every step, played in lockstep
    so that their phases are adjudicated together. A game depends on the seed and its number only.
    ``multiverse``: every head gets orders, and a few units travel to the past, to other heads and to
    parent timelines each movement step (a game then lasts six steps a year). ``others``: the option
    settings of the other values a study compares; each movement step, one to three units then get an
    order one of them allows and the game's own options do not (``beyond_orders``, drawn from a
    generator of their own, so that a game in which no unit has one is the game drawn without them);
    each game keeps, per step, the (power, line) of those orders and their partners (``Drawn.added``)."""
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
    added: list[list[frozenset]] = [[] for _ in range(count)]
    playing = list(range(count))
    while playing:
        asked = []
        for n in playing:
            mv = positions[n]
            phase = next_phase(mv)
            orders = study_orders(mv, gens[n], rngs[n], multiverse)
            extra: list[tuple[str, str]] = []
            if others and phase == MOVEMENT:
                extra = beyond_orders(mv, beyond[n], others, multiverse, beyond[n].randint(*BEYOND))
                orders = _with_beyond(orders, extra, mv)
            steps[n].append(ScenarioStep(orders, {}, 0))
            phases[n].append(phase)
            added[n].append(frozenset(extra))
            asked.append((mv, orders))
        # drawing a game keeps only its orders and positions; exploring it (with reasons) comes after
        reports = step_many(asked, reasons=False)
        still = []
        for n, report in zip(playing, reports):
            if isinstance(report, Exception):
                steps[n].pop()  # the game ends before a phase the engine cannot adjudicate
                phases[n].pop()
                added[n].pop()
                continue
            positions[n] = report.after
            nxt = positions[n]
            if nxt.winner or (nxt.heads[0].turn >= 2 * years and next_phase(nxt) == MOVEMENT) \
                    or (multiverse and len(steps[n]) >= 6 * years):
                continue
            still.append(n)
        playing = still
    return [Drawn(Scenario(f"random game {k} of seed {seed}", f"random game {k} of seed {seed}, {years} years",
                           f"<random game {k} of seed {seed}>", start, tuple(steps[n]), "", start.options),
                  phases[n], added[n])
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
    first: list[int | None] = field(default_factory=list)  # first step where play changed, per game (1-based)
    by_phase: Counter = field(default_factory=Counter)  # phase -> steps where play changed
    steps_by_phase: Counter = field(default_factory=Counter)  # phase -> steps played
    by_kind: Counter = field(default_factory=Counter)  # order kind -> orders not added whose result changed
    by_column: Counter = field(default_factory=Counter)  # column -> games in which it changes play
    only_added: Counter = field(default_factory=Counter)  # column -> games where only added orders' results differ
    given: Counter = field(default_factory=Counter)  # column -> orders given whose result it changes
    succeeded: Counter = field(default_factory=Counter)  # column -> of those, how many succeed under it
    failures: list[str] = field(default_factory=list)
    multiverse: bool = False

    @property
    def diverged(self) -> int:
        """Games in which play changed under some value (not only the results of the orders added)."""
        return sum(1 for f in self.first if f is not None)

    def warnings(self) -> list[str]:
        """Sentences a reader of the study must see before its counts."""
        out = []
        for i, column in enumerate(self.columns):
            if i != self.own and not self.given[i]:
                out.append(f"{column_label(self.names, column)} was never exercised: in these "
                           f"{len(self.first)} games no order was given whose result it changes at the same "
                           "position; what it allows or forbids in orders was not tried, and any change of "
                           "play comes from what it changes without them (a phase, a winner)")
        return out


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


def study_batch(numbers: Sequence[int], seed: int, years: int, asked: Asked, options: Settings | None = None,
                multiverse: bool = False) -> list[tuple[int, list, list[str], list[frozenset], Any]]:
    """Games ``numbers`` drawn and explored: per game its number, its orders per step, its phases, the
    orders added per step and its exploration (or the error that stopped it), as plain data a worker
    process can send back. The games' orders are drawn from what any compared value allows
    (``random_games``, ``others``)."""
    drawn = random_games(list(numbers), seed, years, options, multiverse=multiverse,
                         others=other_settings(options or Settings(), asked))
    results = explore_scenarios([g.scenario for g in drawn], asked)
    out = []
    for n, (game, phases, added), ex in zip(numbers, drawn, results):
        if isinstance(ex, Exception):
            ex = RuntimeError(f"{type(ex).__name__}: {ex}")
        out.append((n, [s.orders for s in game.steps], phases, added, ex))
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
    for n, orders, phases, added, ex in in_batches(list(range(1, count + 1)), run, BATCH, jobs,
                                                    scheduler=scheduler, what="games"):
        if isinstance(ex, Exception):
            failures.append(f"random game {n} of seed {seed}: {ex}")
            continue
        if study is None:
            study = Study(names, ex.columns, ex.own, count, seed, years, multiverse=multiverse)
        _add(study, n, orders, phases, added, ex, game_map, out, replace)
    if study is None:
        raise RuntimeError("no game could be explored: " + "; ".join(failures[:3]))
    study.failures = failures
    return study


@dataclass(frozen=True)
class Effect:
    """What one value did to one game, against the own value: the first step where play changed (None
    when it never did), whether the results of the orders added for the other values differ, and the
    orders whose result it changes at the same position, given and succeeded under it."""

    play: int | None
    added_differ: bool
    given: int
    succeeded: int


def effects(ex: Exploration, added: Sequence[frozenset]) -> dict[int, Effect]:
    """Each column's ``Effect`` on a game, against the own column. A row that differs is play unless
    it is the result of an order added at its step (``added``: (power, line) per step): units, centres,
    timelines, phases, the winner and every other order's result are play. Orders are counted as given
    up to the first step where play changed: until then both columns stand at the same position, so a
    result that differs is the value's own doing; after it, results also follow the position."""
    out = {}
    for i in range(len(ex.columns)):
        if i == ex.own:
            continue
        play, added_differ, given, succeeded = None, False, 0, 0
        for s in ex.steps:
            extra = added[s.number - 1] if s.number <= len(added) else frozenset()
            changed = False
            for r in s.rows:
                mine, theirs = r.cells[ex.own], r.cells[i]
                if mine == theirs:
                    continue
                if r.what == "order":
                    if play is None and mine is not None and theirs is not None and mine[0] != theirs[0]:
                        given += 1
                        succeeded += theirs[0] == Result.SUCCEEDS
                    if (r.power, r.order) in extra:
                        added_differ = True
                        continue
                changed = True
            if changed and play is None:
                play = s.number
        out[i] = Effect(play, added_differ, given, succeeded)
    return out


def _add(study: Study, number: int, orders: list, phases: list[str], added: Sequence[frozenset], ex: Exploration,
         game_map: GameMap, out: Path | None, replace: bool = True) -> None:
    study.lengths.append(len(orders))
    found = effects(ex, added)
    changed = [e.play for e in found.values() if e.play is not None]
    first = min(changed) if changed else None
    study.first.append(first)
    for i, e in found.items():
        study.given[i] += e.given
        study.succeeded[i] += e.succeeded
        if e.play is not None:
            study.by_column[i] += 1
        elif e.added_differ:
            study.only_added[i] += 1
    for s in ex.steps:
        extra = added[s.number - 1] if s.number <= len(added) else frozenset()
        play = [r for r in s.rows if not (r.what == "order" and (r.power, r.order) in extra)]
        if play:
            study.by_phase[s.phases[ex.own] or "none"] += 1
        for r in play:
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
    rows = next(s.rows for s in ex.steps if s.number == first)
    what = "; ".join(f"{r.power + ': ' if r.power else ''}{r.order or r.what}" for r in rows[:4])
    data = {
        "id": f"study {game_id}, step {first}",
        "title": f"first divergence of {game_id} under {', '.join(ex.names)}",
        "description": (f"Written by `fivedp explore --random-games` ({column_label(ex.names, ex.columns[ex.own])} "
                        f"is the game's own setting). Step {first} is the first where play depends on the "
                        f"option; it differs in: {what}. Explore it with --option."),
        "steps": [{"orders": {p: list(ls) for p, ls in step.items()}} for step in orders[:first]],
    }
    write_file(path, dump_yaml(data, sort_keys=False, allow_unicode=True, width=100), "scenario", replace=replace)
    return path


# -- reports -------------------------------------------------------------------------------------


def _games(k: int) -> str:
    return f"{k} game{'' if k == 1 else 's'}"


def study_lines(study: Study) -> list[str]:
    n = len(study.first)
    kind = "multiverse" if study.multiverse else "classic"
    lines = [f"Study: {n} random {kind} game{'' if n == 1 else 's'} of {study.years} "
             f"year{'' if study.years == 1 else 's'}, seed {study.seed}; "
             f"options {', '.join(study.names)}; own: {column_label(study.names, study.columns[study.own])}"]
    lines.append(f"  games whose play changed: {study.diverged} of {n} (units, centres, timelines, the winner "
                 "or the result of an order not added for another value)")
    for i, column in enumerate(study.columns):
        if i != study.own:
            lines.append(f"    {column_label(study.names, column)}: changes play in {_games(study.by_column[i])}; "
                         f"only the added orders' own results differ in {study.only_added[i]} more")
    lines.append("  exercised: orders given whose result the value changes, at the same position, and how many "
                 "succeeded under it")
    for i, column in enumerate(study.columns):
        if i != study.own:
            lines.append(f"    {column_label(study.names, column)}: {study.given[i]} given, "
                         f"{study.succeeded[i]} succeeded")
    if study.diverged:
        firsts = sorted(f for f in study.first if f is not None)
        lines.append(f"  play first changed: step {firsts[0]} at the earliest, median step {firsts[len(firsts) // 2]}")
    lines.append("  steps where play changed, by phase: "
                 + (", ".join(f"{p} {k}" for p, k in sorted(study.by_phase.items())) or "none"))
    lines.append("  orders not added whose result changed, by kind: "
                 + (", ".join(f"{k} {v}" for k, v in study.by_kind.most_common()) or "none"))
    for f in study.failures:
        lines.append(f"  could not explore {f}")
    for w in study.warnings():
        lines.append(f"  warning: {w}")
    return lines


def study_json(study: Study) -> dict:
    """``explore --random-games --json``: the study's counts, per column what exercised it, per game
    its length and first step where play changed (null where none), as one document like every other."""
    def column(i: int) -> dict:
        out: dict[str, Any] = dict(zip(study.names, study.columns[i]))
        out["exercised"] = None if i == study.own else {"given": study.given[i], "succeeded": study.succeeded[i]}
        return out

    return document(
        "study", games=len(study.first), seed=study.seed, years=study.years, multiverse=study.multiverse,
        options=list(study.names), columns=[column(i) for i in range(len(study.columns))], own=study.own,
        diverged=study.diverged,
        changes=[{"options": dict(zip(study.names, study.columns[i])), "games": study.by_column[i],
                  "only_added": study.only_added[i]}
                 for i in range(len(study.columns)) if i != study.own],
        by_phase=[{"phase": p, "diverging": study.by_phase[p], "played": study.steps_by_phase[p]}
                  for p in sorted(set(study.steps_by_phase) | set(study.by_phase))],
        by_kind=dict(sorted(study.by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
        per_game=[{"game": n, "steps": length, "first_divergence": first}
                  for n, (length, first) in enumerate(zip(study.lengths, study.first), 1)],
        failures=list(study.failures), warnings=study.warnings())


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
    body = study_lines(study)[1:]
    text = "".join(f"<li>{esc(line.strip())}</li>" for line in body[:len(body) - len(study.warnings())])
    warned = "".join(f'<p class="warning"><b>Warning:</b> {esc(w)}</p>' for w in study.warnings())
    title = esc(study_lines(study)[0])
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
           f'aria-label="share of games whose play changed, by step">'
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#333"/>'
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#333"/>'
           f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle" font-size="12">step of the game (game length)</text>'
           f'<text x="12" y="{h / 2}" font-size="12" transform="rotate(-90 12 {h / 2})" text-anchor="middle">'
           f'play changed</text>'
           f'<text x="{pad - 4}" y="{y(1) + 4}" text-anchor="end" font-size="10">100%</text>'
           f'<text x="{pad - 4}" y="{y(0) + 4}" text-anchor="end" font-size="10">0</text>'
           f'<text x="{x(longest)}" y="{h - pad + 22}" text-anchor="middle" font-size="10">{longest}</text>'
           f'<polyline fill="none" stroke="#c0392b" stroke-width="2" points="{path}"/>{ended}</svg>')
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>fivedp option study</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 8px}</style></head><body>"
            f"<h1>Option study</h1><p>{title}</p>{warned}<ul>{text}</ul>{svg}"
            "<p>The curve: the share of games whose play has changed by each step; grey dots: where each "
            "game ended.</p>"
            f"<h2>Steps where play changed, by phase</h2><table><tr><th>phase</th><th>steps where play changed</th>"
            f"<th>steps played</th></tr>{rows}</table>"
            f"<h2>Orders not added whose result changed</h2><table><tr><th>kind</th><th>orders</th></tr>{kinds}</table>"
            "</body></html>\n")
