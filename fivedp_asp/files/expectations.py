"""What a step of a scenario expects (``expect``): its shape, checked when the scenario is read, and
a step's report held to it, every difference one line. Designations in ``expect`` are read against
the multiverse as it was *before* the step, so ``A Tyrolia`` in ``dislodged`` means the unit that
stood on the board the orders were given on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..model.kinds import Result, UnitKind
from ..errors import InputError, NotationError
from ..model.map import GameMap
from ..model.multiverse import PHASES, SUSTAIN, Board, Multiverse, Unit, board_name_readings
from ..model.notation import parse_order, parse_timeline, parse_unit, timeline_name
from ..engine.resolve import resolve, resolved_text, subject_place
from ..engine.answer import CAUSE_KINDS
from .positions import ScenarioError, _key_line, _line, _list, _mapping, _power, _province

if TYPE_CHECKING:
    from ..engine.step import StepReport

RESULTS = tuple(Result)
EXPECT_KEYS = {"results", "reasons", "dislodged", "boards", "retreats", "timelines", "centers",
               "phase", "in_play", "sustained", "dissolved", "winner", "no_boards", "rejudged"}


def _reason_kinds(line: Any, want: Any, path: str) -> dict[str, list | None]:
    """An expected reason: a kind, a list of kinds, or kinds with the units each must name (None: any)."""
    if isinstance(want, str):
        kinds: dict[str, list | None] = {want: None}
    elif isinstance(want, (list, tuple)):
        kinds = {}
        for item in want:
            if isinstance(item, Mapping):
                kinds.update({k: _list(v, f"reasons of {line}", path, _line(line)) for k, v in item.items()})
            else:
                kinds[item] = None
    elif isinstance(want, Mapping):
        kinds = {k: _list(v, f"reasons of {line}", path, _line(line)) for k, v in want.items()}
    else:
        raise ScenarioError(path, _line(line), f"reasons of {str(line)!r}: a kind, a list of kinds, or kinds with their units")
    for kind in kinds:
        if kind not in CAUSE_KINDS:
            raise ScenarioError(path, _line(kind) or _line(line),
                            f"reasons of {str(line)!r}: unknown kind {str(kind)!r} (kinds: {', '.join(CAUSE_KINDS)})")
    return {str(k): v for k, v in kinds.items()}


def _check_expect_shape(expect: dict, path: str) -> None:
    """Each expectation key has the shape the contract gives it, so checking never trips over a list."""
    for key in ("results", "reasons", "boards", "retreats", "centers", "rejudged"):
        _mapping(expect.get(key), key, path, _key_line(expect, key))
    for name in _list(expect.get("no_boards"), "no_boards", path, _key_line(expect, "no_boards")):
        if not board_name_readings(str(name)):
            raise ScenarioError(path, _line(name) or _key_line(expect, "no_boards"),
                                f"no_boards: {str(name)!r} must be a board name, like a1, b3 or b1@0")
    _list(expect.get("dislodged"), "dislodged", path, _key_line(expect, "dislodged"))
    _list(expect.get("timelines"), "timelines", path, _key_line(expect, "timelines"))
    _list(expect.get("in_play"), "in_play", path, _key_line(expect, "in_play"))
    _list(expect.get("dissolved"), "dissolved", path, _key_line(expect, "dissolved"))
    _mapping(expect.get("sustained"), "sustained", path, _key_line(expect, "sustained"))
    phase = expect.get("phase")
    if phase is not None and str(phase) not in (*PHASES, SUSTAIN):
        raise ScenarioError(path, _line(phase) or _key_line(expect, "phase"),
                        f"expect.phase must be one of {', '.join((*PHASES, SUSTAIN))}")
    for key in ("boards", "retreats", "centers"):
        for name, powers in (expect.get(key) or {}).items():
            for power, items in _mapping(powers, f"{key} of {name}", path, _line(name)).items():
                _list(items, f"{key} of {name} for {power}", path, _line(power))


def _check_expected_centres(expect: dict, game_map: GameMap, path: str) -> None:
    """``expect.centers`` names powers and supply centres of the map: a province that is no supply
    centre can never be owned, so such an expectation is a mistake in the scenario, reported when it is
    loaded (bad input) rather than as a scenario that fails."""
    for name, powers in (expect.get("centers") or {}).items():
        for power_text, provs in (powers or {}).items():
            _power(power_text, game_map, path)
            for text in provs or ():
                prov = _province(text, game_map, path)
                if not game_map.provinces[prov].center:
                    raise ScenarioError(path, _line(text), f"expect.centers of {name}: {game_map.provinces[prov].name} "
                                                       "is not a supply centre")



UnitKey = tuple[tuple[int, int], str, str, str | None]  # board, kind, province, coast (None: any)


def _expected_unit(text: Any, board: tuple[int, int] | None, mv: Multiverse, path: str) -> UnitKey:
    """An expected unit; without a board it is designated like an order's unit, relative to ``mv``."""
    try:
        spec = parse_unit(str(text), mv.game_map)
    except NotationError as exc:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: {exc.problem}") from None
    if spec.kind is None:
        raise ScenarioError(path, _line(text), f"unit {str(text)!r}: say whether it is an army (A) or a fleet (F)")
    if board is None:
        try:
            board = subject_place(mv, spec.where, str(text)).board
        except InputError as exc:
            raise ScenarioError(path, _line(text), str(exc)) from None
    coast = spec.where.coast if spec.kind == UnitKind.FLEET else None
    return board, spec.kind or "?", spec.where.province, coast


def _matches(expected: set[UnitKey], actual: set[UnitKey]) -> bool:
    if len(expected) != len(actual):
        return False
    pool = set(actual)
    for b, k, p, c in expected:
        hit = next((a for a in pool if a[:3] == (b, k, p) and (c is None or a[3] == c)), None)
        if hit is None:
            return False
        pool.discard(hit)
    return True


def _key(board: tuple[int, int], u: Unit) -> UnitKey:
    coast = u.location.split("/", 1)[1] if "/" in u.location else None
    return board, u.kind, u.province, coast


def _show(keys: set[UnitKey]) -> str:
    return ", ".join(sorted(f"{'A' if k == UnitKind.ARMY else 'F'} {p}{'/' + c if c else ''}"
                            for _, k, p, c in keys)) or "none"


def _board_named(name: Any, mv: Multiverse, path: str) -> Board | None:
    """A board by name. ``b10`` may be timeline b turn 10 or timeline b1 turn 0: the one that exists is
    meant; ``b1@0`` (timeline, @, turn) says it without doubt."""
    readings = board_name_readings(str(name))
    if not readings:
        raise ScenarioError(path, _line(name), f"board name {str(name)!r} must be a timeline and a turn, like a1, b3 or b1@0")
    found = [mv.boards[k] for k in readings if k in mv.boards]
    if len(found) > 1:
        raise ScenarioError(path, _line(name), f"board name {str(name)!r} is ambiguous: write it as timeline@turn")
    return found[0] if found else None


def check_step(path: str, index: int, report: StepReport, expect: dict) -> list[str]:
    """Every difference between the expectation and the report of step ``index`` (from 0) of the
    scenario in ``path``, as one line each."""
    before, after = report.before, report.after
    where = f"step {index + 1} ({report.phase})"
    problems = []
    by_text: dict[str, list] = {}
    for o in report.outcomes:
        by_text.setdefault(o.text, []).append(o)
    for line, want in (expect.get("results") or {}).items():
        got = by_text.get(str(line))
        if not got:
            problems.append(f"{where}: results: no order {str(line)!r} in this step")
            continue
        for o in got:
            if o.result != want:
                reason = f" ({o.reason})" if o.reason else ""
                problems.append(f"{where}: results: {str(line)!r} expected {want}, got {o.result}{reason}")
    for line, raw in (expect.get("reasons") or {}).items():
        got = by_text.get(str(line))
        if not got:
            problems.append(f"{where}: reasons: no order {str(line)!r} in this step")
            continue
        for kind, units in _reason_kinds(line, raw, path).items():
            for o in got:
                named = [c for c in o.explanation if c.kind == kind]
                shown = f" (got: {o.reason or 'no reason'})"
                if not named:
                    problems.append(f"{where}: reasons: {str(line)!r} expected {kind}{shown}")
                    continue
                if units is None:
                    continue
                want_u = {_expected_unit(u, None, before, path) for u in units}
                got_u = {_expected_unit(u, None, before, path) for c in named for u in c.units}
                if not _matches(want_u, got_u):
                    problems.append(f"{where}: reasons: {str(line)!r} expected {kind} naming {_show(want_u)}, "
                                    f"got {_show(got_u)}")
    if "dislodged" in expect:
        want = {_expected_unit(u, None, before, path) for u in expect["dislodged"] or ()}
        got = {_key(b, u) for b, u in report.dislodged}
        if not _matches(want, got):
            problems.append(f"{where}: dislodged: expected {_show(want)}, got {_show(got)}")
    for name, powers in (expect.get("boards") or {}).items():
        board = _board_named(name, after, path)
        if board is None:
            problems.append(f"{where}: boards: there is no board {name}")
            continue
        want = set()
        for power_text, units in (powers or {}).items():
            power = _power(power_text, after.game_map, path)
            for u in units or ():
                key = _expected_unit(u, board.key, after, path)
                want.add(key + (power,))
        got = {_key(board.key, u) + (u.power,) for u in board.units.values()}
        if not _matches_owned(want, got):
            problems.append(f"{where}: boards: {name} expected {_show_owned(want)}, got {_show_owned(got)}")
    for name, powers in (expect.get("retreats") or {}).items():
        board = _board_named(name, after, path)
        want = {_expected_unit(u, board.key if board else (0, 0), after, path) + (_power(p, after.game_map, path),)
                for p, units in (powers or {}).items() for u in units or ()}
        got = {_key(board.key, r.unit) + (r.unit.power,) for r in board.retreats} if board else set()
        if not _matches_owned(want, got):
            problems.append(f"{where}: retreats: {name} expected {_show_owned(want)}, got {_show_owned(got)}")
    if "timelines" in expect:
        want_t = []
        for x in expect["timelines"] or ():
            try:
                want_t.append(parse_timeline(str(x)))
            except NotationError as exc:
                raise ScenarioError(path, _line(x), f"timeline {str(x)!r}: {exc.problem}") from None
        want_t.sort()
        if want_t != list(after.timelines):
            problems.append(f"{where}: timelines: expected {[timeline_name(x) for x in want_t]}, "
                            f"got {[timeline_name(x) for x in after.timelines]}")
    for name in expect.get("no_boards") or ():
        if _board_named(name, after, path) is not None:
            problems.append(f"{where}: no_boards: board {name} exists")
    problems += _check_rejudged(report, expect, where, path)
    problems += _check_sustain(report, expect, where, path)
    for name, powers in (expect.get("centers") or {}).items():
        board = _board_named(name, after, path)
        if board is None:
            problems.append(f"{where}: centers: there is no board {name}")
            continue
        want_c = {_province(p, after.game_map, path): _power(pw, after.game_map, path)
                  for pw, provs in (powers or {}).items() for p in provs or ()}
        if want_c != dict(board.centers):
            problems.append(f"{where}: centers: {name} expected {sorted(want_c.items())}, got {sorted(board.centers.items())}")
    return problems


def _check_rejudged(report: StepReport, expect: dict, where: str, path: str) -> list[str]:
    """``rejudged``: the results that orders recorded on past boards get when this step fights those
    boards again (docs/rules.md §6.4). A line is read against the multiverse before the step and
    matched, fully designated, with a recorded order judged again."""
    if "rejudged" not in expect:
        return []
    before = report.before
    again = dict(report.rejudged)
    problems = []
    for line, want in (expect.get("rejudged") or {}).items():
        try:
            r = resolve(parse_order(str(line), before.game_map), "?", str(line), before)
        except (NotationError, InputError) as exc:
            raise ScenarioError(path, _line(line), f"rejudged: {str(line)!r}: {exc}") from None
        text = resolved_text(r, before.game_map)
        if text not in again:
            judged = ", ".join(repr(t) for t in sorted(again)) or "none"
            problems.append(f"{where}: rejudged: {str(line)!r} ({text}) is no recorded order judged again in this "
                            f"step (judged again: {judged})")
        elif again[text] != str(want):
            problems.append(f"{where}: rejudged: {str(line)!r} expected {want}, got {again[text]}")
    return problems


def _timeline_list(items: Any, path: str) -> list[int]:
    out = []
    for x in items or ():
        try:
            out.append(parse_timeline(str(x)))
        except NotationError as exc:
            raise ScenarioError(path, _line(x), f"timeline {str(x)!r}: {exc.problem}") from None
    return sorted(out)


def _check_sustain(report: StepReport, expect: dict, where: str, path: str) -> list[str]:
    """The phase the step was, the timelines in play after it, and a sustain phase's outcome
    (docs/rules.md §6.8.3): what each listed time centre sustained, and exactly which timelines dissolved."""
    problems = []
    names = lambda tls: [timeline_name(x) for x in tls]  # noqa: E731
    if "phase" in expect and str(expect["phase"]) != report.phase:
        problems.append(f"{where}: phase: expected {expect['phase']}, got {report.phase}")
    if "in_play" in expect:
        want = _timeline_list(expect["in_play"], path)
        if want != list(report.after.in_play):
            problems.append(f"{where}: in_play: expected {names(want)}, got {names(report.after.in_play)}")
    if "winner" in expect:
        problems += check_winner(where, expect["winner"], report.after, path)
    result = report.sustain
    if "dissolved" in expect:
        want = _timeline_list(expect["dissolved"], path)
        got = list(result.dissolved) if result else []
        if want != got:
            problems.append(f"{where}: dissolved: expected {names(want)}, got {names(got)}")
    for centre, timeline in (expect.get("sustained") or {}).items():
        prov = _province(centre, report.before.game_map, path)
        vote = next((c for c in result.centres if c.center == prov), None) if result else None
        if result is None:
            problems.append(f"{where}: sustained: this step is no sustain phase")
            continue
        if vote is None:
            problems.append(f"{where}: sustained: {centre} is not a time centre")
            continue
        want_tl = None if timeline is None or str(timeline).lower() == "none" else _timeline_list([timeline], path)[0]
        if want_tl != vote.sustains:
            got = timeline_name(vote.sustains) if vote.sustains is not None else "none"
            problems.append(f"{where}: sustained: {centre} expected {timeline if want_tl is not None else 'none'}, "
                            f"got {got}")
    return problems


def check_winner(where: str, raw: Any, mv: Multiverse, path: str) -> list[str]:
    """The expected winner (a power, or ``none``) held to the standing of ``mv``: one line when they differ."""
    want = None if raw is None or str(raw).lower() == "none" else _power(raw, mv.game_map, path)
    if want != mv.winner:
        return [f"{where}: winner: expected {want or 'none'}, got {mv.winner or 'none'}"]
    return []


def _matches_owned(want: set, got: set) -> bool:
    return all(_matches({w[:4] for w in want if w[4] == p}, {g[:4] for g in got if g[4] == p})
               for p in {x[4] for x in want | got})


def _show_owned(keys: set) -> str:
    powers = sorted({k[4] for k in keys})
    return "; ".join(f"{p}: {_show({k[:4] for k in keys if k[4] == p})}" for p in powers) or "nothing"
