"""``fivedp explore``: one scenario under several rule options, and only what the options change.

Each combination of the values asked for (a cartesian product, over the scenario's own options)
replays the scenario's orders step by step from its start, following its own history; then, step
by step, every order result, dislodgement, disbandment, new timeline, board content, pending
retreat, supply centre, backup rule and multiverse-wide state (eliminated powers, the winner, and
any such field the multiverse gains) is compared across the combinations, and only what is not the
same in all of them is reported. The scenario's own value of each asked option is always one of the
columns, so asking for one other value answers "what would change".

Everything is generic over the option registry (options.py): a new option can be explored as soon as
it is registered, and a rule of your own (``--rule``, userrules.py) is swept like a built-in value:
it is added to every scenario's options without being put in effect, so the scenario's own setting
stays one column and the rule's value is another. The comparison is plain data (no clingo symbols, no multiverses), so scenarios can
be explored in worker processes and sent back.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
import textwrap
from functools import partial
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ...files.scenarios import Scenario, read_scenario, check_scenarios
from ...errors import AdjudicationError, InputError
from ...inputs import read_text
from ..check.workers import in_batches
from ...model.multiverse import Board, board_name, unit_text
from ...model.notation import timeline_name
from ...model.options import PRESET, PRESETS, UserRule, preset as preset_named, same_value, show
from ...model.settings import Settings, parse_setting, problem
from ...engine.userrules import with_preset
from ...engine.step import StepReport
from ...yaml_lines import dump_yaml

Value = str | bool
Asked = Mapping[str, tuple[Value, ...]]  # option -> the values to try, in the order given
NO_BOARD = "(no board)"

# -- what to explore ------------------------------------------------------------------------------


def asked_values(settings: Sequence[str], all_values: Sequence[str],
                 rules: Sequence[UserRule] = (), presets: str | None = None) -> dict[str, tuple[Value, ...]]:
    """The values asked for per option, from ``--option NAME=V1,V2`` and ``--all-values NAME``; the
    options and values of ``rules`` (``--rule``) are known too, and when nothing else is asked, each
    rule's value is. ``presets`` (``--preset P1,P2``) compares presets: each is one column, under
    the key ``preset`` (``column_settings``). Raises InputError naming the option and the values allowed."""
    mine = Settings().with_rules(tuple(rules), in_effect=False)
    known = mine.registry
    asked: dict[str, list[Value]] = {}
    if presets is not None:
        names = [part.strip() for part in presets.split(",")]
        for name in names:
            preset_named(name)
        asked[PRESET] = list(dict.fromkeys(names))
    for text in settings:
        name, sep, raw = text.partition("=")
        if not sep or not name.strip() or not raw.strip():
            raise InputError(f"--option {text!r}: write NAME=VALUE or NAME=V1,V2 (options: {', '.join(known)})")
        if name.strip() not in known and not re.fullmatch(r"[a-z][a-z0-9_]*", name.strip()):
            mine.option(name.strip())  # not even a name: refused before its values are read
        for part in raw.split(","):
            if name.strip() in known:
                name_, value = parse_setting(f"{name.strip()}={part.strip()}", mine)
            else:
                # perhaps an option of the scenarios' own rules (a game file's): checked per scenario
                name_, value = name.strip(), part.strip()
                value = value.lower() == "true" if value.lower() in ("true", "false") else value
            if value not in asked.setdefault(name_, []):
                asked[name_].append(value)
    for name in all_values:
        for v in mine.option(name.strip()).values:
            if v.value not in asked.setdefault(name.strip(), []):
                asked[name.strip()].append(v.value)
    if not asked:
        for rule in rules:
            asked.setdefault(rule.option, []).append(rule.value)
    if not asked:
        raise InputError("say what to explore: --option NAME=V1,V2, --all-values NAME or --rule NAME=FILE "
                         f"(options: {', '.join(known)}; `fivedp options` lists their values)")
    return {name: tuple(values) for name, values in asked.items()}


def columns_for(settings: Settings, asked: Asked) -> tuple[tuple[tuple[Value, ...], ...], int]:
    """Every combination of the asked values, and the index of the scenario's own one. The scenario's
    own value of an option comes first when it was not asked for, so it is always compared with."""
    if not isinstance(settings, Settings):
        raise TypeError(f"columns_for: settings must be a Settings, not {type(settings).__name__}")
    own = tuple(own_preset(settings) if name == PRESET else settings.chosen(name) for name in asked)
    lists = []
    for name, mine in zip(asked, own):
        values = list(asked[name])
        if not any(_same(v, mine) for v in values):
            values.insert(0, mine)
        lists.append(values)
    columns = tuple(itertools.product(*lists))
    return columns, next(i for i, c in enumerate(columns) if all(_same(a, b) for a, b in zip(c, own)))


def own_preset(settings: Settings) -> str:
    """The preset a scenario's or game's settings play: the one whose values they all give (as a game
    made with ``--preset oliveriver`` records them, or ``preset: oliveriver`` in a scenario), the one
    with the most values when several do, else ``seeds`` (which gives none)."""
    if not isinstance(settings, Settings):
        raise TypeError(f"own_preset: settings must be a Settings, not {type(settings).__name__}")
    best, size = "seeds", 0
    for p in PRESETS.values():
        if len(p.values) > size and all(same_value(settings.given(n), v) for n, v in p.values):
            best, size = p.name, len(p.values)
    return best


def column_settings(settings: Settings, names: Sequence[str], column: Sequence[Value]) -> Settings:
    """``settings`` with a column's values set. A ``preset`` of the column takes the place of the
    settings' own preset (``own_preset``): its values go under the values the settings give beyond
    their own preset's (which override it, as beside ``preset:``); the options of the column go over
    both."""
    if not isinstance(settings, Settings) or len(names) != len(column):
        raise TypeError("column_settings: give a Settings and as many option names as values")
    values = dict(zip(names, column))
    chosen = values.pop(PRESET, None)
    if chosen is not None:
        own = PRESETS[own_preset(settings)].values
        beyond = tuple((n, v) for n, v in settings.plain().items() if not any(
            n == m and same_value(v, w) for m, w in own))
        settings = with_preset(Settings(beyond, settings.rules), str(chosen))
    return settings.with_values(values)


def _same(a: Value, b: Value) -> bool:
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def column_label(names: Iterable[str], column: Sequence[Value]) -> str:
    return " ".join(f"{n}={show(v)}" for n, v in zip(names, column))


# -- loading a scenario or a game --------------------------------------------------------------

_GAME = re.compile(r"^format:\s*['\"]?fivedp-game['\"]?\s*$", re.M)


def load_scenario(path: str | Path) -> Scenario:
    """A scenario file, or a game file turned into the scenario of its start and its orders so far."""
    path = str(path)
    text = read_text(path, "scenario or game file")  # the guarded reader: never blocks on a FIFO
    if not _GAME.search(text):
        return read_scenario(path)
    from ...files.games import export_scenario, load_game

    data = export_scenario(load_game(path), f"game {Path(path).name}")
    data["title"] = f"the orders of the game in {path}"
    # the scenario loader reads files: the game's scenario goes through one, named after the game in messages
    with tempfile.TemporaryDirectory(prefix="fivedp-explore-") as folder:
        file = Path(folder) / "game.yaml"
        file.write_text(dump_yaml(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        try:
            scenario = read_scenario(file)
        except InputError as exc:
            raise InputError(str(exc).replace(str(file), f"{path} (its orders as a scenario)")) from None
    return replace(scenario, path=path)


# -- one scenario ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One thing that is not the same under every combination: ``cells`` holds it per column."""

    # phase, order, dislodged, disbanded, new timelines, units, retreats, centres, backup rules, or a
    # multiverse-wide field the step changed (eliminated, winner, ...) by its name
    what: str
    cells: tuple[Any, ...]
    board: str | None = None
    power: str | None = None
    order: str | None = None

    @property
    def label(self) -> str:
        if self.what == "order":
            return f"{self.power}: {self.order}"
        if self.board is not None:
            suffix = {"units": "", "retreats": " retreating", "centres": " centres"}[self.what]
            return f"{self.board} {self.power}{suffix}"
        return self.what


@dataclass(frozen=True)
class StepDiff:
    number: int  # 1-based, as the scenario's steps are counted
    phases: tuple[str, ...]  # per column
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Exploration:
    id: str
    title: str
    path: str
    names: tuple[str, ...]  # the options asked for
    columns: tuple[tuple[Value, ...], ...]  # each combination's values of ``names``
    own: int  # the column with the scenario's own options
    steps: tuple[StepDiff, ...]  # only the steps where something differs

    def changed_by(self) -> tuple[int, ...]:
        """The columns that differ from the scenario's own in some step."""
        return tuple(i for i in range(len(self.columns)) if i != self.own
                     and any(r.cells[i] != r.cells[self.own] for s in self.steps for r in s.rows))


@dataclass(frozen=True)
class Failure:
    path: str
    message: str
    status: int  # 2 bad input, 3 engine defect


def _content(b: Board | None):
    return None if b is None else (dict(b.units), dict(b.centers), b.retreats, b.adjustment_due)


def _touched(report: StepReport) -> set[tuple[int, int]]:
    """The boards a step produced or changed."""
    return {k for k, b in report.after.boards.items() if _content(report.before.boards.get(k)) != _content(b)}


def _by_power(items: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for power, text in items:
        out.setdefault(power, []).append(text)
    return {p: tuple(sorted(v)) for p, v in out.items()}


# the multiverse's own state besides its boards (eliminated, winner, ...): compared field by field
_NOT_STANDING = {"game_map", "boards", "forks", "options", "players"}


def _standing_fields(report: StepReport) -> list[str]:
    """The multiverse-wide fields (eliminated powers, the winner, and any such state) a step changed."""
    return [f.name for f in fields(report.after) if f.name not in _NOT_STANDING
            and getattr(report.after, f.name) != getattr(report.before, f.name)]


# standing fields whose values are timeline indices: shown by their letters, as everywhere else
_TIMELINE_FIELDS = {"dissolved"}


def _plain(value: Any) -> Any:
    """A field's value as plain, comparable data: a collection as its sorted items' text."""
    if value is None or isinstance(value, (str, bool, int)):
        return value if value is None or isinstance(value, str) else str(value).lower()
    if isinstance(value, Mapping):
        return tuple(sorted(f"{k}: {v}" for k, v in value.items()))
    if isinstance(value, Iterable):
        return tuple(sorted(str(v) for v in value))
    return str(value)


def _cells(report: StepReport, boards: Sequence[tuple[int, int]], standing: Sequence[str]) -> dict[tuple, Any]:
    """Everything a step says, keyed so that the same thing under another combination has the same key."""
    before, after, m = report.before, report.after, report.before.game_map
    cells: dict[tuple, Any] = {("phase",): report.phase}
    seen: dict[tuple[str, str], int] = {}
    for o in report.outcomes:
        n = seen[(o.power, o.text)] = seen.get((o.power, o.text), 0) + 1
        cells[("order", o.power, o.text, n)] = (o.result, o.reason)
    cells[("dislodged",)] = tuple(sorted(f"{unit_text(u, m)} ({board_name(*k)})" for k, u in report.dislodged))
    cells[("disbanded",)] = tuple(sorted(f"{unit_text(u, m)} ({board_name(*k)})" for k, u in report.disbanded))
    cells[("new timelines",)] = tuple(f"{timeline_name(tl)} from {board_name(*at)}"
                                      for tl, at in sorted(after.forks.items()) if tl not in before.forks)
    for key in boards:
        b = after.boards.get(key)
        name = board_name(*key)
        if b is None:
            cells[("board", name)] = NO_BOARD
            continue
        cells[("board", name)] = None
        for power, units in _by_power((u.power, unit_text(u, m)) for u in b.units.values()).items():
            cells[("units", name, power)] = units
        for power, units in _by_power((r.unit.power, unit_text(r.unit, m)) for r in b.retreats).items():
            cells[("retreats", name, power)] = units
        for power, centres in _by_power((o, p.capitalize()) for p, o in b.centers.items()).items():
            cells[("centres", name, power)] = centres
    cells[("backup rules",)] = tuple(report.backups)
    for name in standing:
        value = getattr(after, name)
        if name in _TIMELINE_FIELDS:
            value = tuple(timeline_name(tl) for tl in sorted(value))
        cells[("standing", name)] = _plain(value)
    return cells


_ORDER = {"phase": 0, "order": 1, "dislodged": 2, "disbanded": 3, "new timelines": 4, "board": 5,
          "backup rules": 6, "standing": 7}
_BOARD_PARTS = {"units": 0, "retreats": 1, "centres": 2}


GAME_OVER = "game over"
"""The phase of a column whose game was won before the step: nothing more is played."""


def _diff_step(number: int, reports: Sequence[StepReport]) -> StepDiff | None:
    touched = sorted(set().union(*(_touched(r) for r in reports)), key=lambda k: (k[1], k[0]))
    standing = list(dict.fromkeys(name for r in reports for name in _standing_fields(r)))
    per_column = [_cells(r, touched, standing) for r in reports]
    keys: dict[tuple, int] = {}  # every key in the order first met, with its position
    for cells in per_column:
        for k in cells:
            keys.setdefault(k, len(keys))
    board_rank = {board_name(*k): i for i, k in enumerate(touched)}
    rows = []
    for key in keys:
        kind = key[0]
        if kind == "board":
            continue  # a board's existence shows in its rows below
        if kind in _BOARD_PARTS:
            board = key[1]
            values = tuple(NO_BOARD if c.get(("board", board)) == NO_BOARD else c.get(key, ()) for c in per_column)
        else:
            values = tuple(c.get(key) for c in per_column)
        if all(v == values[0] for v in values):
            continue
        if kind == "order":
            rows.append(((_ORDER[kind], 0, 0, keys[key]), Row("order", values, power=key[1], order=key[2])))
        elif kind in _BOARD_PARTS:
            rank = (_ORDER["board"], board_rank[key[1]], _BOARD_PARTS[kind], key[2])
            rows.append((rank, Row(kind, values, board=key[1], power=key[2])))
        elif kind == "standing":
            rows.append(((_ORDER[kind], 0, 0, standing.index(key[1])), Row(key[1].replace("_", " "), values)))
        else:
            rows.append(((_ORDER[kind], 0, 0, 0), Row(kind, values)))
    # a board that exists under some combinations only: its centres say nothing its units do not
    with_units = {r.board for _, r in rows if r.what == "units"}
    rows = [(rank, r) for rank, r in rows if not (
        r.what == "centres" and r.board in with_units
        and len({v for v in r.cells if v != NO_BOARD}) == 1)]
    if not rows:
        return None
    rows.sort(key=lambda x: x[0])
    return StepDiff(number, tuple(r.phase for r in reports), tuple(r for _, r in rows))


def _variants(scenario: Scenario, asked: Asked) -> tuple[tuple, list, object, list[Scenario]]:
    """The scenario under every combination of the asked values: (option names, columns, the scenario's own
    column, one scenario per column, expectations dropped since they hold for one reading only)."""
    for name, values in asked.items():
        for value in values:
            reason = None if name == PRESET else problem(name, value, scenario.options)
            if reason:
                raise InputError(f"{scenario.path}: {reason}")
    columns, own = columns_for(scenario.options, asked)
    names = tuple(asked)
    plain = tuple(replace(s, expect={}) for s in scenario.steps)
    variants = []
    for column in columns:
        start = replace(scenario.start, options=column_settings(scenario.options, names, column))
        variants.append(replace(scenario, start=start, steps=plain))
    return names, columns, own, variants


def explore_scenarios(scenarios: Sequence[Scenario], asked: Asked) -> list[Exploration | Exception]:
    """Each scenario under every combination of the asked values, keeping what differs. All the runs go in
    lockstep (``scenarios.check_scenarios``), so the phases of different scenarios under the same values are
    adjudicated together. A scenario that cannot run gives its exception."""
    plans = [_variants(scenario, asked) for scenario in scenarios]
    runs = iter(check_scenarios([v for _, _, _, variants in plans for v in variants]))
    out: list[Exploration | Exception] = []
    for scenario, (names, columns, own, variants) in zip(scenarios, plans):
        mine = [next(runs) for _ in variants]
        failed = next(((column, r) for column, r in zip(columns, mine) if isinstance(r, Exception)), None)
        if failed is not None:
            column, exc = failed
            if isinstance(exc, AdjudicationError):
                exc = AdjudicationError(f"{scenario.path} under {column_label(names, column)}: {exc}")
            out.append(exc)
            continue
        try:
            steps = []
            # a run stops at a win (``files.scenarios``): a step it did not play is a difference in itself
            played = [len(run.reports) for run in mine]
            for i in range(max(played, default=0)):
                if min(played) > i:
                    diff = _diff_step(i + 1, [run.reports[i] for run in mine])
                else:
                    cells = tuple("played" if n > i else "not played: the game was won" for n in played)
                    diff = StepDiff(i + 1, tuple(run.reports[i].phase if n > i else GAME_OVER
                                                 for run, n in zip(mine, played)), (Row("step", cells),))
                if diff:
                    steps.append(diff)
        except Exception as exc:  # noqa: BLE001 - a defect met comparing this scenario's runs is its own result
            out.append(exc)
            continue
        out.append(Exploration(scenario.id, scenario.title, scenario.path, names, columns, own, tuple(steps)))
    return out


def explore_scenario(scenario: Scenario, asked: Asked) -> Exploration:
    """Runs ``scenario`` under every combination of the asked values and keeps what differs."""
    result = explore_scenarios([scenario], asked)[0]
    if isinstance(result, Exception):
        raise result
    return result


def _failure(path: str, exc: Exception) -> Failure:
    """What went wrong with one file, as a value. Bad input and engine errors name the file in their
    own message; any other exception is a defect of fivedp, reported with the file it was met in so
    that a sweep can go on with the others (exit status 3 at the end)."""
    if isinstance(exc, InputError):
        return Failure(path, str(exc), 2)
    if isinstance(exc, AdjudicationError):
        return Failure(path, f"engine error: {exc}", 3)
    from ...errors import crash_message

    return Failure(path, f"{path}: {crash_message(exc).splitlines()[0]}", 3)


def _explore_each(scenarios: Sequence[Scenario], asked: Asked) -> list[Exploration | Exception]:
    """Like ``explore_scenarios``, but if the lockstep run of them all fails as a whole, each scenario again on
    its own: a defect met by one file then stays that file's, and the others are still explored."""
    try:
        return explore_scenarios(scenarios, asked)
    except Exception:  # noqa: BLE001 - which scenario caused it is found by running them one by one
        pass
    out: list[Exploration | Exception] = []
    for scenario in scenarios:
        try:
            out.append(explore_scenarios([scenario], asked)[0])
        except Exception as exc:  # noqa: BLE001 - this file's own defect
            out.append(exc)
    return out


def registering(scenario: Scenario, rules: Sequence[UserRule]) -> Scenario:
    """The scenario with these rules of your own among its options' known values, none of them in effect."""
    if not rules:
        return scenario
    settings = scenario.options.with_rules(tuple(rules), in_effect=False)
    return replace(scenario, options=settings, start=replace(scenario.start, options=settings))


def explore_batch(paths: Sequence[str], asked: Asked, rules: Sequence[UserRule] = ()) -> list[Exploration | Failure]:
    """Several files explored together, with their problems as values (so that a worker process can
    send them back): a file that cannot be read or explored, for whatever reason, is reported as a
    ``Failure`` naming it, and the other files of the batch are explored all the same."""
    loaded: list[Scenario | Failure] = []
    for path in paths:
        try:
            loaded.append(registering(load_scenario(path), rules))
        except Exception as exc:  # noqa: BLE001 - reported as this file's failure
            loaded.append(_failure(path, exc))
    explored = iter(_explore_each([c for c in loaded if isinstance(c, Scenario)], asked))
    out: list[Exploration | Failure] = []
    for path, c in zip(paths, loaded):
        if isinstance(c, Failure):
            out.append(c)
            continue
        result = next(explored)
        out.append(_failure(path, result) if isinstance(result, Exception) else result)
    return out


BATCH = 16  # files explored together: their runs are adjudicated in lockstep


def explore_paths(paths: Sequence[str], asked: Asked, jobs: int = 1, rules: Sequence[UserRule] = (),
                  scheduler: str | None = None) -> Iterator[Exploration | Failure]:
    """Each file's exploration, in the order of the files, a batch of files at a time (on a Dask
    cluster with ``scheduler``)."""
    return in_batches(paths, partial(explore_batch, asked=dict(asked), rules=tuple(rules)), BATCH, jobs,
                      scheduler=scheduler, what="files")


# -- the summary of a sweep ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    column: tuple[Value, ...]
    alternative_in: int  # scenarios where this combination is not the scenario's own
    changed: tuple[str, ...]  # ids of the scenarios it changes


def summarise(names: Sequence[str], explorations: Sequence[Exploration]) -> list[Tally]:
    order: list[tuple[Value, ...]] = []
    alternative: dict[tuple, int] = {}
    changed: dict[tuple, list[str]] = {}
    for ex in explorations:
        differing = set(ex.changed_by())
        for i, column in enumerate(ex.columns):
            key = tuple((type(v).__name__, v) for v in column)
            if key not in alternative:
                order.append(column)
                alternative[key], changed[key] = 0, []
            if i != ex.own:
                alternative[key] += 1
                if i in differing:
                    changed[key].append(ex.id)
    keys = [tuple((type(v).__name__, v) for v in c) for c in order]
    return [Tally(c, alternative[k], tuple(changed[k])) for c, k in zip(order, keys)]


# -- text ------------------------------------------------------------------------------------


def _text(value: Any, what: str) -> str:
    if value is None:
        return "-"
    if what == "order":
        result, reason = value
        return f"{result} ({reason})" if reason else result
    if isinstance(value, str):
        return value
    if what == "backup rules":
        return "; ".join(value) or "none"
    return ", ".join(value) or "-"


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def _width() -> int:
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def idle_options(ex: Exploration) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The options (by index) that change nothing in this scenario, and the columns left once they are
    set to the scenario's own value. An option changes nothing when any two combinations that differ
    in it alone give the same results throughout; dropping it loses nothing, so the table is narrower."""
    vectors = [tuple(r.cells[j] for s in ex.steps for r in s.rows) for j in range(len(ex.columns))]
    keep = list(range(len(ex.columns)))
    idle = []
    for i in range(len(ex.names)):
        groups: dict[tuple, set] = {}
        for j in keep:
            rest = tuple((type(v).__name__, v) for k, v in enumerate(ex.columns[j]) if k != i)
            groups.setdefault(rest, set()).add(vectors[j])
        if all(len(g) == 1 for g in groups.values()):
            idle.append(i)
            keep = [j for j in keep if _same(ex.columns[j][i], ex.columns[ex.own][i])]
    return tuple(idle), tuple(keep)


def exploration_lines(ex: Exploration, width: int | None = None) -> list[str]:
    """The scenario's differences as a table: the option values as column heads, one row per thing."""
    width = width or _width()

    def values(i: int) -> str:
        return f"{ex.names[i]} = " + ", ".join(dict.fromkeys(show(c[i]) for c in ex.columns))

    if len(ex.columns) == 1:
        return [f"{ex.id}: nothing to compare: " + "; ".join(values(i) for i in range(len(ex.names)))
                + " is the scenario's own setting"]
    if not ex.steps:
        return [f"{ex.id}: no difference under " + "; ".join(values(i) for i in range(len(ex.names)))]
    idle, keep = idle_options(ex)
    shown = [i for i in range(len(ex.names)) if i not in idle]
    heads = [[show(ex.columns[j][i]) + (" (own)" if j == ex.own else "") for j in keep] for i in shown]
    rows = [(row.label, [_text(row.cells[j], row.what) for j in keep]) for s in ex.steps for row in s.rows]
    n = len(keep)
    names_w = max(len(ex.names[i]) for i in shown)
    natural = max([names_w] + [len(label) + 2 for label, _ in rows])
    # columns of 18 first, then labels up to 36 (and never narrower than the option names, up to 30)
    label_w = max(min(names_w, 30), min(natural, 36, max(16, width - 2 - n * (18 + 2))))
    cap = max(12, (width - 2 - label_w - 2 * n) // n)

    def widths(rows) -> list[int]:
        return [min(cap, max([len(h[j]) for h in heads] + [len(cells[j]) for _, cells in rows])) for j in range(n)]

    def tall(cells: Sequence[str], col_w: Sequence[int]) -> bool:
        return any(len(_wrap(c, w)) > 2 for c, w in zip(cells, col_w))

    col_w = widths(rows)
    col_w = widths([r for r in rows if not tall(r[1], col_w)] or rows[:0])
    names = ["/".join(show(ex.columns[j][i]) for i in shown) + (" (own)" if j == ex.own else "") for j in keep]

    def line(label: str, cells: Sequence[str], indent: str) -> list[str]:
        """A row of the table; a label too long for its column gets a line of its own, and a row whose
        cells would wrap over more than two lines is written as a list, one line per distinct value."""
        out = []
        if len(indent + label) > label_w:
            out += ["  " + indent + x for x in _wrap(label, width - 2 - len(indent))]
            label = ""
        if tall(cells, col_w):
            by_value: dict[str, list[str]] = {}
            for name, cell in zip(names, cells):
                by_value.setdefault(cell, []).append(name)
            if label:
                out.append("  " + indent + label)
            for cell, who in by_value.items():
                first = f"{', '.join(who)}: "
                out += textwrap.wrap(first + cell, width, initial_indent="  " + indent + "  ",
                                     subsequent_indent="  " + indent + "    ", break_on_hyphens=False)
            return out
        parts = [_wrap(label, label_w - len(indent))] + [_wrap(c, w) for c, w in zip(cells, col_w)]
        for k in range(max(len(p) for p in parts)):
            left = (indent + (parts[0][k] if k < len(parts[0]) else "")).ljust(label_w)
            cols = [(p[k] if k < len(p) else "").ljust(w) for p, w in zip(parts[1:], col_w)]
            out.append(("  " + left + "  " + "  ".join(cols)).rstrip())
        return out

    lines = [f"{ex.id}: {ex.title}" if ex.title else ex.id]
    for i in idle:
        lines.append(f"  {values(i)}: no difference (the columns show {show(ex.columns[ex.own][i])})")
    for i, cells in zip(shown, heads):
        lines += line(ex.names[i], cells, "")
    for s in ex.steps:
        phases = [s.phases[j] for j in keep]
        lines.append(f"  Step {s.number}" + (f" ({phases[0]})" if len(set(phases)) == 1 else ""))
        for label, cells in ((r.label, [_text(r.cells[j], r.what) for j in keep]) for r in s.rows):
            lines += line(label, cells, "  ")
    return lines


def _pack(ids: Sequence[str], width: int) -> list[str]:
    """Comma-separated ids in lines of at most ``width``, never breaking an id (``DATC 6.F.18``)."""
    lines = [""]
    for i, item in enumerate(ids):
        piece = item + ("," if i < len(ids) - 1 else "")
        if lines[-1] and len(lines[-1]) + 1 + len(piece) > width:
            lines.append("")
        lines[-1] += (" " if lines[-1] else "") + piece
    return lines


def summary_lines(names: Sequence[str], tallies: Sequence[Tally], explored: int, failed: int,
                  width: int | None = None) -> list[str]:
    width = width or _width()
    lines = [f"Summary: {explored} scenario{'s' if explored != 1 else ''} explored"
             + (f", {failed} not (errors above)" if failed else "")
             + "; each combination against the scenarios whose own options it changes:"]
    alternatives = [t for t in tallies if t.alternative_in]
    if not alternatives:
        lines.append("  every combination asked for is each scenario's own: nothing to compare")
    labels = [column_label(names, t.column) for t in alternatives]
    pad = max((len(x) for x in labels), default=0)
    heads = [f"  {label.ljust(pad)}  changes {len(t.changed)} of {t.alternative_in}" for label, t in zip(labels, alternatives)]
    head_w = max((len(h) for h in heads), default=0) + 2
    for head, t in zip(heads, alternatives):
        if not t.changed:
            lines.append(head)
            continue
        wrapped = _pack(t.changed, max(30, width - head_w))
        lines.append((head + ":").ljust(head_w) + wrapped[0])
        lines += [" " * head_w + w for w in wrapped[1:]]
    return lines


# -- JSON ------------------------------------------------------------------------------------


def _json_value(value: Any, what: str) -> Any:
    if what == "order":
        return {"result": value[0], "reason": value[1]}
    if value == NO_BOARD or value is None or isinstance(value, str):
        return None if value == NO_BOARD else value
    return list(value)


def exploration_json(ex: Exploration) -> dict:
    steps = []
    for s in ex.steps:
        rows = []
        for r in s.rows:
            row: dict[str, Any] = {"what": r.what}
            for field in ("board", "power", "order"):
                if getattr(r, field) is not None:
                    row[field] = getattr(r, field)
            row["values"] = [_json_value(v, r.what) for v in r.cells]
            rows.append(row)
        steps.append({"step": s.number, "phases": list(s.phases), "rows": rows})
    return {
        "id": ex.id, "title": ex.title, "path": ex.path,
        "columns": [dict(zip(ex.names, c)) for c in ex.columns],
        "own": ex.own,
        "differs": bool(ex.steps),
        "changed_by": [dict(zip(ex.names, ex.columns[i])) for i in ex.changed_by()],
        "no_effect": [ex.names[i] for i in idle_options(ex)[0]] if ex.steps else list(ex.names),
        "steps": steps,
    }
