"""Option studies over games played by bots: ``fivedp explore --bot-games N --bot ... --option NAME=V1,V2``.

A study over random games (study.py) replays one game's orders under each value and looks for the
first place where adjudication differs. Bots play instead: each value gets its own game, and the bots
answer the positions that value leads to, so the study says how a rule changes play — how long games
last, who wins, how the centres end up shared, how many timelines grow. Game k is played under every
value from the same seed (bots/selfplay.py: a view's seed is the run's seed, the game's number, the
step and the power), so the values are compared over the same games, paired. The bots draw their
orders from what any compared value allows (``View.settings``): under a stricter value, an order
only a more permissive one allows is given all the same, and is invalid there.

Every measure is a mean over the games with a bootstrap interval (stats.py), per value, and the
difference from the games' own setting over the same games, with its interval: a difference whose
interval leaves out 0 is marked real. A game that could not be played to its end under some value
is left out of every value's figures (the pairs must stay whole) and reported.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Sequence

from ..bots.registry import Seats
from ..bots.selfplay import Played, Table, game_json, play_tables
from ..bots.view import DEFAULT_BUDGET
from ...errors import UsageError
from ...model.settings import Settings
from ...report.jsonout import document
from .exploration import Asked, Value, column_label, column_settings, columns_for
from .stats import Interval, Resampler

BATCH = 4
"""Games played together (each under every value, in lockstep): the unit of work given to a worker."""


def column_options(base: Settings, names: Sequence[str], column: Sequence[Value]) -> Settings:
    """The games' own settings with a column's values set."""
    return column_settings(base, names, column)


def bot_study_batch(numbers: Sequence[int], seed: int, years: int, seats: Seats, columns: Sequence[Settings],
                    travel: bool, budget: int) -> list[tuple[int, list[Played]]]:
    """Games ``numbers``, each under every column's options, as plain data a worker can send back."""
    tables = [Table(n, c) for n in numbers for c in columns]
    settings = tuple(columns)
    results = play_tables(tables, seed, years, seats, travel=travel, settings=settings, budget=budget)
    k = len(columns)
    return [(n, results[i * k:(i + 1) * k]) for i, n in enumerate(numbers)]


@dataclass(frozen=True)
class Measure:
    """One figure of the games: per column, a mean with its interval, and its difference from the own
    column over the same games (None in the own column)."""

    key: str  # years, steps, timelines, boards, eliminated, winner, centres, unique
    label: str
    power: str | None
    values: tuple[Interval, ...]
    versus_own: tuple[Interval | None, ...]


@dataclass
class BotStudy:
    names: tuple[str, ...]
    columns: tuple[tuple[Value, ...], ...]
    own: int
    games: int
    seed: int
    years: int
    seats: Seats
    multiverse: bool = False
    played: list[tuple[int, list[Played]]] = field(default_factory=list)  # per game: one Played per column
    failures: list[str] = field(default_factory=list)

    @property
    def complete(self) -> list[tuple[int, list[Played]]]:
        """The games played to their end under every column: those the figures are made of."""
        return [(n, ps) for n, ps in self.played if not any(p.error for p in ps)]

    def measures(self) -> list[Measure]:
        """Every figure, in the order they are printed: game length, steps, timelines, boards, powers
        eliminated, the share of games each power won (and none did), each power's final centres (in a multiverse,
        summed over the heads, then counted once by name)."""
        games = self.complete
        if not games:
            return []
        sampler = Resampler(len(games), f"fivedp-bot-study/{self.seed}")
        powers = [p for p, _ in self.seats.bots]

        def column(get) -> list[list[float]]:
            return [[float(get(ps[c])) for _, ps in games] for c in range(len(self.columns))]

        wanted: list[tuple[str, str, str | None, Any]] = [
            ("years", "game length (years)", None, lambda p: p.years),
            ("steps", "steps", None, lambda p: p.steps),
            ("timelines", "timelines", None, lambda p: p.timelines),
            ("boards", "boards", None, lambda p: p.boards),
            ("eliminated", "powers eliminated", None, lambda p: len(p.eliminated)),
            ("winner", "no winner", None, lambda p: p.winner is None),
        ]
        wanted += [("winner", f"won by {power}", power, lambda p, w=power: p.winner == w) for power in powers]
        centres = "centres summed over the heads" if self.multiverse else "centres"
        wanted += [("centres", f"{centres}: {power}", power, lambda p, w=power: p.centres.get(w, 0))
                   for power in powers]
        if self.multiverse:
            wanted += [("unique", f"centres by name: {power}", power, lambda p, w=power: p.unique.get(w, 0))
                       for power in powers]
        out = []
        for key, label, power, get in wanted:
            values = column(get)
            out.append(Measure(key, label, power, tuple(sampler.interval(v) for v in values),
                               tuple(None if c == self.own else sampler.difference(values[self.own], v)
                                     for c, v in enumerate(values))))
        return out


def run_bot_study(count: int, seed: int, years: int, seats: Seats, asked: Asked, *,
                  options: Settings | None = None, multiverse: bool = False, budget: int = DEFAULT_BUDGET,
                  jobs: int = 1, scheduler: str | None = None, progress=None) -> BotStudy:
    """Games 1 to ``count`` under every combination of the asked values (the games' own options,
    ``options``, laid under each); batches of games go to workers as a study's do (workers.in_batches).
    ``progress``: called with the number of games done, as they come back."""
    from ..check.workers import in_batches

    if not isinstance(seats, Seats):
        raise UsageError(f"run_bot_study: seats must be Seats, not {type(seats).__name__}")
    if options is not None and not isinstance(options, Settings):
        raise UsageError(f"run_bot_study: options must be a Settings, not {type(options).__name__}")
    base = options or Settings()
    columns, own = columns_for(base, asked)
    names = tuple(asked)
    opts = [column_options(base, names, c) for c in columns]
    study = BotStudy(names, columns, own, count, seed, years, seats, multiverse)
    run = partial(bot_study_batch, seed=seed, years=years, seats=seats, columns=opts, travel=multiverse, budget=budget)
    for n, ps in in_batches(list(range(1, count + 1)), run, BATCH, jobs, scheduler=scheduler, what="games"):
        study.played.append((n, ps))
        for c, p in enumerate(ps):
            if p.error:
                study.failures.append(f"game {n} under {column_label(names, columns[c])}: {p.error}")
        if progress is not None:
            progress(1)
    return study


# -- reports -------------------------------------------------------------------------------------


def _number(x: float, share: bool) -> str:
    return f"{100 * x:.0f}%" if share else f"{x:.2f}"


def _cell(i: Interval, share: bool) -> str:
    return f"{_number(i.mean, share)} [{_number(i.low, share)}, {_number(i.high, share)}]"


def _diff(i: Interval, share: bool) -> str:
    sign = "+" if i.mean > 0 else ""
    mark = " *" if i.real else ""
    return f"{sign}{_number(i.mean, share)} [{_number(i.low, share)}, {_number(i.high, share)}]{mark}"


def heading(study: BotStudy) -> str:
    n = len(study.played)
    kind = "multiverse" if study.multiverse else "classic"
    return (f"Bot study: {n} {kind} game{'' if n == 1 else 's'} of {study.years} year{'' if study.years == 1 else 's'}"
            f", seed {study.seed}; {study.seats.text()}; options {', '.join(study.names)}; "
            f"own: {column_label(study.names, study.columns[study.own])}")


def shown(measures: Sequence[Measure]) -> list[Measure]:
    """The figures worth a row: a power's share of wins only when it won some game under some value."""
    return [m for m in measures if not (m.key == "winner" and m.power is not None
                                        and all(v.high == 0 for v in m.values))]


def bot_study_lines(study: BotStudy) -> list[str]:
    """The study as text: a row per figure, a column per value, each difference from the own value
    under it (``*`` where it is real) unless no game differs at all."""
    lines = [heading(study)]
    games = len(study.complete)
    lines.append(f"  means over {games} game{'' if games == 1 else 's'} [95% bootstrap interval]; under a figure, "
                 "the difference from the own value over the same games (left out where no game differs), "
                 "* where its interval leaves out 0; powers that won no game are left out")
    heads = [column_label(study.names, c) + (" (own)" if i == study.own else "") for i, c in enumerate(study.columns)]
    measures = shown(study.measures())
    cells = [[_cell(v, m.key == "winner") for v in m.values] for m in measures]
    diffs = [["" if d is None else _diff(d, m.key == "winner") for d in m.versus_own] for m in measures]
    label_w = max([len(m.label) for m in measures] + [8]) + 2
    widths = [max([len(h)] + [len(r[j]) for r in cells + diffs]) for j, h in enumerate(heads)]
    lines.append("  " + "".ljust(label_w) + "  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
    for m, row, drow in zip(measures, cells, diffs):
        lines.append(("  " + m.label.ljust(label_w) + "  ".join(c.ljust(w) for c, w in zip(row, widths))).rstrip())
        if any(d is not None and (d.low, d.high) != (0, 0) for d in m.versus_own):
            lines.append(("  " + "  vs own".ljust(label_w) + "  ".join(c.ljust(w) for c, w in zip(drow, widths)))
                         .rstrip())
    for f in study.failures:
        lines.append(f"  not played to its end: {f}")
    return lines


def bot_study_json(study: BotStudy) -> dict:
    """``explore --bot-games --json``: the figures per value, with their intervals and differences,
    and every game's outcome under each value."""
    def measure(m: Measure) -> dict:
        out: dict[str, Any] = {"measure": m.key, "label": m.label}
        if m.power is not None or m.key == "winner":
            out["power"] = m.power
        out["values"] = [v.as_json() for v in m.values]
        out["versus_own"] = [None if d is None else {**d.as_json(), "real": d.real} for d in m.versus_own]
        return out

    return document(
        "bot_study", games=len(study.played), complete=len(study.complete), seed=study.seed, years=study.years,
        multiverse=study.multiverse, bots=dict(study.seats.bots), options=list(study.names),
        columns=[dict(zip(study.names, c)) for c in study.columns], own=study.own,
        measures=[measure(m) for m in study.measures()],
        per_game=[{"game": n, "columns": [game_json(p) for p in ps]} for n, ps in study.played],
        failures=list(study.failures))


# -- the page --------------------------------------------------------------------------------------

_COLOURS = ("#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50", "#f39c12")


def _whiskers(title: str, labels: Sequence[str], values: Sequence[Interval], share: bool) -> str:
    """An SVG of one figure: a row per value, its mean as a dot and its interval as a bar."""
    esc = html.escape
    w, row, left, right = 640, 26, 190, 30
    h = 40 + row * len(values) + 24
    lo = min([0.0] + [v.low for v in values])
    hi = max(v.high for v in values)
    if hi - lo < 1e-9:
        hi = lo + 1.0  # every value the same: an axis of one unit, the dots at its start
    if share:
        lo, hi = 0.0, 1.0
    span = hi - lo or 1.0

    def x(v: float) -> float:
        return left + (w - left - right) * (v - lo) / span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{esc(title)}">',
             f'<text x="{left}" y="18" font-size="13" font-weight="bold">{esc(title)}</text>']
    for k, (label, v) in enumerate(zip(labels, values)):
        y = 40 + row * k
        colour = _COLOURS[k % len(_COLOURS)]
        parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end" font-size="11">{esc(label)}</text>')
        parts.append(f'<line x1="{x(v.low):.1f}" y1="{y}" x2="{x(v.high):.1f}" y2="{y}" stroke="{colour}" '
                     'stroke-width="3"/>')
        parts.append(f'<circle cx="{x(v.mean):.1f}" cy="{y}" r="5" fill="{colour}"><title>{esc(label)}: '
                     f'{esc(_cell(v, share))}</title></circle>')
    axis = 40 + row * len(values)
    parts.append(f'<line x1="{left}" y1="{axis - 10}" x2="{w - right}" y2="{axis - 10}" stroke="#333"/>')
    for tick in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{x(tick):.1f}" y="{axis + 6}" text-anchor="middle" font-size="10">'
                     f'{esc(_number(tick, share))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _shares(labels: Sequence[str], measures: Sequence[Measure]) -> str:
    """An SVG of who won: per value a bar split by the share of games each power (or nobody) won."""
    esc = html.escape
    w, row, left, right = 640, 26, 190, 30
    h = 40 + row * len(labels) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="winners">',
             f'<text x="{left}" y="18" font-size="13" font-weight="bold">share of games won</text>']
    for k, label in enumerate(labels):
        y = 30 + row * k
        parts.append(f'<text x="{left - 8}" y="{y + 14}" text-anchor="end" font-size="11">{esc(label)}</text>')
        start = 0.0
        for j, m in enumerate(measures):
            share = m.values[k].mean
            if share <= 0:
                continue
            x0 = left + (w - left - right) * start
            width = (w - left - right) * share
            parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{width:.1f}" height="18" fill="{_COLOURS[j % len(_COLOURS)]}">'
                         f'<title>{esc(label)}: {esc(m.label)} {esc(_cell(m.values[k], True))}</title></rect>')
            start += share
    y = 30 + row * len(labels) + 8
    x0 = left
    for j, m in enumerate(measures):
        name = m.power or "none"
        parts.append(f'<rect x="{x0}" y="{y}" width="10" height="10" fill="{_COLOURS[j % len(_COLOURS)]}"/>'
                     f'<text x="{x0 + 13}" y="{y + 9}" font-size="10">{esc(name)}</text>')
        x0 += 14 + 7 * len(name) + 10
    parts.append("</svg>")
    return "".join(parts)


def bot_study_html(study: BotStudy) -> str:
    """One self-contained page (inline SVG and CSS, no scripts, every text escaped): the table of
    figures, and a plot per figure of each value's mean and interval."""
    esc = html.escape
    labels = [column_label(study.names, c) + (" (own)" if i == study.own else "") for i, c in enumerate(study.columns)]
    measures = shown(study.measures())
    text = bot_study_lines(study)
    rows = []
    for m in measures:
        share = m.key == "winner"
        cells = "".join(f"<td>{esc(_cell(v, share))}" + (f"<br><small>{esc(_diff(d, share))}</small>" if d else "")
                        + "</td>" for v, d in zip(m.values, m.versus_own))
        rows.append(f"<tr><th>{esc(m.label)}</th>{cells}</tr>")
    table = ("<table><tr><th></th>" + "".join(f"<th>{esc(x)}</th>" for x in labels) + "</tr>" + "".join(rows)
             + "</table>")
    plots = [_whiskers(m.label, labels, m.values, False) for m in measures
             if m.key in ("years", "steps", "timelines", "eliminated")]
    winners = [m for m in measures if m.key == "winner"]
    if winners:
        plots.append(_shares(labels, winners))
    for key in ("centres", "unique"):
        for m in (m for m in measures if m.key == key):
            plots.append(_whiskers(m.label, labels, m.values, False))
    failures = "".join(f"<li>{esc(f)}</li>" for f in study.failures)
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>fivedp bot study</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}small{color:#555}"
            "svg{display:block;margin:1em 0}</style></head><body>"
            f"<h1>Bot study</h1><p>{esc(text[0])}</p><p>{esc(text[1].strip())}</p>{table}"
            + "".join(plots)
            + (f"<h2>Not played to their end</h2><ul>{failures}</ul>" if failures else "")
            + "</body></html>\n")
