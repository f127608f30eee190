"""Option studies over games played by bots: ``fivedp explore --bot-games N --bot ... --option NAME=V1,V2``.

A study over random games (study.py) replays one game's orders under each value and looks for the
first place where adjudication differs. Bots play instead: each value gets its own game, and the bots
answer the positions that value leads to, so the study says how a rule changes play — how long games
last, who wins, how the centres end up shared, how many timelines grow. Game k is played under every
value from the same seed (bots/selfplay.py: a view's seed is the run's seed, the game's number, the
step and the power), so the values are compared over the same games, paired. The bots draw their
orders from what any compared value allows (``View.settings``): under a stricter value, an order
only a more permissive one allows is given all the same, and is invalid there.

Every figure is a mean over the games with its interval (stats.py: Clopper–Pearson for a share,
Student's t otherwise), per value, and the difference from the games' own setting over the same
games, tested by sign flips (or the sign test for a share) with every difference of the study
corrected together (Holm): a difference whose corrected p-value is below 5% is marked real. Below
``FEW`` games, and for a value no bot ever exercised, the study warns. A game that could not be
played to its end under some value is left out of every value's figures (the pairs must stay whole)
and reported.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Sequence

import yaml

from ...model.kinds import Result
from ..bots.registry import Seats
from ..bots.selfplay import Played, Table, game_json, play_tables
from ..bots.view import DEFAULT_BUDGET
from ...errors import UsageError
from ...model.settings import Settings
from ...report.jsonout import document
from .exploration import Asked, Value, column_label, column_settings, columns_for
from .stats import FEW, Difference, Interval, corrected, mean_interval, paired_test, share_interval

BATCH = 4
"""Games played together (each under every value, in lockstep): the unit of work given to a worker."""


def column_options(base: Settings, names: Sequence[str], column: Sequence[Value]) -> Settings:
    """The games' own settings with a column's values set."""
    return column_settings(base, names, column)


def exercise(own: str, other: str) -> tuple[int, int]:
    """(given, succeeded): the orders whose result differs between two game files of the same game
    under two values, while the games stand at the same position — the same orders given with the
    same results at every step before — and how many of them succeeded in ``other``. After the first
    step where the games part, a result also follows the position, not the value alone."""
    def steps(text: str) -> list[dict]:  # a game file read with the C loader where there is one: they grow long
        return (yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}).get("history") or []

    given = succeeded = 0
    for x, y in zip(steps(own), steps(other)):
        if (x.get("phase"), x.get("orders")) != (y.get("phase"), y.get("orders")):
            break
        mine = {(r["power"], r["order"]): r["result"] for r in x.get("results") or ()}
        theirs = {(r["power"], r["order"]): r["result"] for r in y.get("results") or ()}
        for key, result in theirs.items():
            if key in mine and mine[key] != result:
                given += 1
                succeeded += result == Result.SUCCEEDS
        if mine != theirs:
            break
    return given, succeeded


def bot_study_batch(numbers: Sequence[int], seed: int, years: int, seats: Seats, columns: Sequence[Settings],
                    travel: bool, budget: int, own: int = 0) -> list[tuple[int, list[Played], list[tuple[int, int]]]]:
    """Games ``numbers``, each under every column's options, as plain data a worker can send back:
    per game one ``Played`` per column (without its game file) and per column what ``exercise``
    finds against the own column's game ((0, 0) in the own column)."""
    tables = [Table(n, c) for n in numbers for c in columns]
    settings = tuple(columns)
    results = play_tables(tables, seed, years, seats, travel=travel, settings=settings, budget=budget, text=True)
    k = len(columns)
    out = []
    for i, n in enumerate(numbers):
        ps = results[i * k:(i + 1) * k]
        found = [(0, 0) if c == own or not ps[own].text or not p.text else exercise(ps[own].text, p.text)
                 for c, p in enumerate(ps)]
        out.append((n, [replace(p, text=None) for p in ps], found))
    return out


@dataclass(frozen=True)
class Measure:
    """One figure of the games: per column, a mean with its interval, and its difference from the own
    column over the same games, tested (None in the own column)."""

    key: str  # years, timelines, boards, eliminated, winner, centres, unique
    label: str
    power: str | None
    values: tuple[Interval, ...]
    versus_own: tuple[Difference | None, ...]


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
    laid: dict = field(default_factory=dict)  # the games' own options set under every column (``--set``), by name
    played: list[tuple[int, list[Played]]] = field(default_factory=list)  # per game: one Played per column
    failures: list[str] = field(default_factory=list)
    given: Counter = field(default_factory=Counter)  # column -> orders whose result it changed (``exercise``)
    succeeded: Counter = field(default_factory=Counter)  # column -> of those, how many succeeded under it

    @property
    def complete(self) -> list[tuple[int, list[Played]]]:
        """The games played to their end under every column: those the figures are made of."""
        return [(n, ps) for n, ps in self.played if not any(p.error for p in ps)]

    def measures(self) -> list[Measure]:
        """Every figure, in the order they are printed: game length, timelines, boards, powers
        eliminated, the share of games each power won (and none did), each power's final centres (in a
        multiverse, summed over the heads, then counted once by name). Game length is counted once, in
        years (movement steps over two): the steps a game took say the same. The differences of all
        of them are corrected together (``stats.corrected``), those where no game differs left out of
        the correction: they cannot be marked whatever the others do."""
        games = self.complete
        if not games:
            return []
        powers = [p for p, _ in self.seats.bots]

        def column(get) -> list[list[float]]:
            return [[float(get(ps[c])) for _, ps in games] for c in range(len(self.columns))]

        wanted: list[tuple[str, str, str | None, Any]] = [
            ("years", "game length (years)", None, lambda p: p.years),
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
        figures = []
        for k, (key, label, power, get) in enumerate(wanted):
            values = column(get)
            interval = share_interval if key == "winner" else mean_interval
            figures.append((key, label, power, tuple(interval(v) for v in values),
                            [None if c == self.own else paired_test(values[self.own], v, seed=self.seed * 1000 + k)
                             for c, v in enumerate(values)]))
        tested = [d for *_, ds in figures for d in ds if d is not None and d.differing]
        fixed = iter(corrected(tested))
        out = []
        for key, label, power, values, ds in figures:
            ds = [d if d is None or not d.differing else next(fixed) for d in ds]
            out.append(Measure(key, label, power, values, tuple(ds)))
        return out

    def warnings(self) -> list[str]:
        """Sentences a reader of the study must see before its figures."""
        out = []
        for i, column in enumerate(self.columns):
            if i != self.own and not self.given[i]:
                out.append(f"{column_label(self.names, column)} was never exercised: in these {len(self.played)} "
                           "games the bots gave no order whose result it changes at the same position; what it "
                           "allows or forbids in orders was not tried, and any change of play comes from what "
                           "it changes without them (a phase, a winner)")
        n = len(self.complete)
        if n < FEW:
            out.append(f"only {n} game{'' if n == 1 else 's'} played to their end under every value: below {FEW} "
                       "the intervals are wide and a real difference is seldom marked; a figure without a mark "
                       "is not shown to be the same")
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
    study = BotStudy(names, columns, own, count, seed, years, seats, multiverse, laid=base.plain())
    run = partial(bot_study_batch, seed=seed, years=years, seats=seats, columns=opts, travel=multiverse, budget=budget,
                  own=own)
    for n, ps, found in in_batches(list(range(1, count + 1)), run, BATCH, jobs, scheduler=scheduler, what="games"):
        study.played.append((n, ps))
        for c, (given, succeeded) in enumerate(found):
            study.given[c] += given
            study.succeeded[c] += succeeded
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


def _p(p: float) -> str:
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _diff(d: Difference, share: bool) -> str:
    sign = "+" if d.mean > 0 else ""
    mark = " *" if d.real else ""
    return f"{sign}{_number(d.mean, share)} ({_p(d.adjusted)}){mark}"


def heading(study: BotStudy) -> str:
    n = len(study.played)
    kind = "multiverse" if study.multiverse else "classic"
    return (f"Bot study: {n} {kind} game{'' if n == 1 else 's'} of {study.years} year{'' if study.years == 1 else 's'}"
            f", seed {study.seed}; {study.seats.text()}; options {', '.join(study.names)}; "
            f"own: {column_label(study.names, study.columns[study.own])}"
            + (f"; set under every value: {column_label(tuple(study.laid), tuple(study.laid.values()))}"
               if study.laid else ""))


def shown(measures: Sequence[Measure]) -> list[Measure]:
    """The figures worth a row: a power's share of wins only when it won some game under some value."""
    return [m for m in measures if not (m.key == "winner" and m.power is not None
                                        and all(v.mean == 0 for v in m.values))]


def _preamble(study: BotStudy) -> list[str]:
    """What to read before the table: how often each value was exercised, and how to read it."""
    games = len(study.complete)
    out = [f"exercised: {column_label(study.names, column)}: {study.given[i]} orders given whose result it changes "
           f"at the same position, {study.succeeded[i]} succeeded"
           for i, column in enumerate(study.columns) if i != study.own]
    out.append(f"means over {games} game{'' if games == 1 else 's'} [95% interval: Clopper-Pearson for a share, "
               "Student's t otherwise]; under a figure, the difference from the own value over the same games "
               "(left out where no game differs) and its p-value (sign flips, or the sign test for a share; "
               "Holm-corrected over the study), * below 0.05; powers that won no game are left out")
    return out


def bot_study_lines(study: BotStudy) -> list[str]:
    """The study as text: how often each value was exercised, a row per figure, a column per value,
    each difference from the own value under it (``*`` where it is real) unless no game differs at
    all, then the warnings."""
    lines = [heading(study)] + ["  " + x for x in _preamble(study)]
    heads = [column_label(study.names, c) + (" (own)" if i == study.own else "") for i, c in enumerate(study.columns)]
    measures = shown(study.measures())
    cells = [[_cell(v, m.key == "winner") for v in m.values] for m in measures]
    diffs = [["" if d is None else _diff(d, m.key == "winner") for d in m.versus_own] for m in measures]
    label_w = max([len(m.label) for m in measures] + [8]) + 2
    widths = [max([len(h)] + [len(r[j]) for r in cells + diffs]) for j, h in enumerate(heads)]
    lines.append("  " + "".ljust(label_w) + "  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
    for m, row, drow in zip(measures, cells, diffs):
        lines.append(("  " + m.label.ljust(label_w) + "  ".join(c.ljust(w) for c, w in zip(row, widths))).rstrip())
        if any(d is not None and d.differing for d in m.versus_own):
            lines.append(("  " + "  vs own".ljust(label_w) + "  ".join(c.ljust(w) for c, w in zip(drow, widths)))
                         .rstrip())
    for f in study.failures:
        lines.append(f"  not played to its end: {f}")
    for w in study.warnings():
        lines.append(f"  warning: {w}")
    return lines


def bot_study_json(study: BotStudy) -> dict:
    """``explore --bot-games --json``: the figures per value, with their intervals and differences,
    and every game's outcome under each value."""
    def measure(m: Measure) -> dict:
        out: dict[str, Any] = {"measure": m.key, "label": m.label}
        if m.power is not None or m.key == "winner":
            out["power"] = m.power
        out["values"] = [v.as_json() for v in m.values]
        out["versus_own"] = [None if d is None else d.as_json() for d in m.versus_own]
        return out

    def column(i: int) -> dict:
        out: dict[str, Any] = dict(zip(study.names, study.columns[i]))
        out["exercised"] = None if i == study.own else {"given": study.given[i], "succeeded": study.succeeded[i]}
        return out

    return document(
        "bot_study", games=len(study.played), complete=len(study.complete), seed=study.seed, years=study.years,
        multiverse=study.multiverse, bots=dict(study.seats.bots), set=dict(study.laid), options=list(study.names),
        columns=[column(i) for i in range(len(study.columns))], own=study.own,
        measures=[measure(m) for m in study.measures()],
        per_game=[{"game": n, "columns": [game_json(p) for p in ps]} for n, ps in study.played],
        failures=list(study.failures), warnings=study.warnings())


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
    rows = []
    for m in measures:
        share = m.key == "winner"
        cells = "".join(f"<td>{esc(_cell(v, share))}" + (f"<br><small>{esc(_diff(d, share))}</small>" if d else "")
                        + "</td>" for v, d in zip(m.values, m.versus_own))
        rows.append(f"<tr><th>{esc(m.label)}</th>{cells}</tr>")
    table = ("<table><tr><th></th>" + "".join(f"<th>{esc(x)}</th>" for x in labels) + "</tr>" + "".join(rows)
             + "</table>")
    plots = [_whiskers(m.label, labels, m.values, False) for m in measures
             if m.key in ("years", "timelines", "eliminated")]
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
            f"<h1>Bot study</h1><p>{esc(heading(study))}</p>"
            + "".join(f'<p class="warning"><b>Warning:</b> {esc(w)}</p>' for w in study.warnings())
            + "".join(f"<p>{esc(x)}</p>" for x in _preamble(study)) + table
            + "".join(plots)
            + (f"<h2>Not played to their end</h2><ul>{failures}</ul>" if failures else "")
            + "</body></html>\n")
