"""The JSON documents of the command line and the API, as fivedp_asp/schema/fivedp.schema.json describes them.

Every document is an object with ``format`` (the version of this layout, :data:`FORMAT`) and ``kind``
(what it holds). Boards are named (``b3``), timelines are letters, orders come as written and fully
designated (``A a-Boh@0 - a-Sil@0``). An order's result is whatever ``OrderOutcome.as_dict()`` gives
(power, text, result, reason and any structured explanation), plus where the order stood. A reader
should ignore keys it does not know: later versions of the same ``format`` only add keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..model.kinds import Phase, Result
from ..yaml_lines import plain_json
from ..game.play import duties, qualify
from ..model.multiverse import Board, LazyBoards, Multiverse, board_name, season_name, unit_text
from ..model.notation import timeline_name
from ..model.settings import Settings
from ..engine.answer import OrderOutcome
from ..engine.step import StepReport
from ..model.orders import OrderKind

if TYPE_CHECKING:
    from ..files.scenarios import ScenarioRun

FORMAT = 1  # raised only when a key changes meaning or goes away


def schema_path() -> Path:
    """The JSON Schema of every document (shipped inside the package)."""
    return Path(__file__).resolve().parent.parent / "schema" / "fivedp.schema.json"


def load_schema() -> dict:
    return json.loads(schema_path().read_text(encoding="utf-8"))


def document(kind: str, **content: Any) -> dict:
    return {"format": FORMAT, "kind": kind, **content}


# -- pieces ------------------------------------------------------------------------------------


def board_json(mv: Multiverse, board: Board) -> dict:
    units: dict[str, list[str]] = {}
    for u in sorted(board.units.values(), key=lambda u: u.location):
        units.setdefault(u.power, []).append(unit_text(u, mv.game_map))
    centers: dict[str, list[str]] = {}
    for prov, owner in sorted(board.centers.items()):
        centers.setdefault(owner, []).append(prov.capitalize())
    return {
        "name": board.name,
        "timeline": timeline_name(board.timeline),
        "turn": board.turn,
        "season": season_name(board.turn),
        "phase": board.phase,
        "units": units,
        "centers": centers,
        "retreats": [{"power": r.unit.power, "unit": unit_text(r.unit, mv.game_map)} for r in board.retreats],
    }


def outcome_json(mv: Multiverse, outcome: OrderOutcome) -> dict:
    """An order's result as the outcome gives it, plus its fully designated form and its unit's board."""
    qualified, board = qualify(mv, outcome.power, outcome.text)
    return {**plain_json(outcome.as_dict()), "qualified": qualified, "board": board}


def options_json(settings: Settings) -> dict:
    """Every option of the registry (with the rules of your own the settings carry) with the value in
    effect, and whether it is the default."""
    if not isinstance(settings, Settings):
        raise TypeError(f"options_json: settings must be a Settings, not {type(settings).__name__}")
    return {name: {"value": settings.chosen(name), "default": settings.at_default(name)}
            for name in settings.registry}


def timelines_json(mv: Multiverse) -> list[dict]:
    out = []
    for tl in mv.timelines:
        fork = mv.forks.get(tl)
        out.append({"timeline": timeline_name(tl), "head": mv.boards[(tl, mv.latest_turn(tl))].name,
                    "forked_from": None if fork is None else board_name(*fork)})
    return out


def _backup_json(mv: Multiverse, rule: str, places, note: str) -> dict:
    from ..solver import terms as t

    units = []
    for sym in places:
        tl, tn, prov = t.read_place(sym)
        board = mv.boards.get((tl, tn))
        u = board.units.get(prov) if board else None
        where = mv.game_map.short_name(u.location if u else prov)
        units.append(f"{u.letter + ' ' if u else ''}{timeline_name(tl)}-{where}@{tn}")
    return {"rule": rule, "units": units, "text": note}


def changed_boards(report: StepReport) -> list[Board]:
    """The boards a step produced or changed, in timeline order."""
    def content(b: Board | None):
        return None if b is None else (dict(b.units), dict(b.centers), b.retreats, b.adjustment_due)

    before, after = report.before.boards, report.after.boards
    # a board both multiverses still hold as it was stored (a past board of a long game, never read)
    # is unchanged: it is not built just to be compared
    kept = after.kept_from if isinstance(after, LazyBoards) else lambda other, key: False
    changed = [after[k] for k in after if not kept(before, k) and content(before.get(k)) != content(after[k])]
    return sorted(changed, key=lambda b: b.key)


def disband_reason(report: StepReport, key: tuple[int, int], unit) -> str:
    """Why a unit left its board in this step: its own disband order, or the rule that removed it."""
    if unit.power in report.before.eliminated:
        return f"{unit.power} is eliminated: its units leave every board made after its elimination"
    if report.phase == Phase.MOVEMENT:
        return "dislodged with nowhere to retreat"
    if _disband_ordered(report, key, unit):
        return "disband ordered"
    if report.phase == Phase.RETREAT:
        return "no retreat that succeeds: disbanded"
    if report.phase == Phase.ADJUSTMENT:
        return "civil disorder: too few disbands ordered, removed by rule (off a centre, farthest from home, fleets first)"
    return "removed"


def _disband_ordered(report: StepReport, key: tuple[int, int], unit) -> bool:
    """Whether a disband order of this step that succeeded named this unit."""
    from ..errors import InputError
    from ..model.notation import parse_order
    from ..engine.resolve import resolve

    for o in report.outcomes:
        if o.power != unit.power or o.result != Result.SUCCEEDS:
            continue
        try:
            r = resolve(parse_order(o.text, report.before.game_map), o.power, o.text, report.before)
        except InputError:
            continue
        if r.kind is OrderKind.DISBAND and r.unit is not None and r.unit.board == key and r.unit.province == unit.province:
            return True
    return False


def step_json(report: StepReport, index: int) -> dict:
    before, after = report.before, report.after
    backups = report.solution.backups if report.solution is not None else ()
    notes = list(report.backups)
    return {
        "index": index,
        "phase": report.phase,
        "heads": [b.name for b in before.heads if b.phase == report.phase],
        "orders": [outcome_json(before, o) for o in report.outcomes],
        "dislodged": [{"board": before.boards[k].name, "power": u.power, "unit": unit_text(u, before.game_map),
                       **({"by": report.dislodgers[n]} if n < len(report.dislodgers) else {})}
                      for n, (k, u) in enumerate(report.dislodged)],
        # a dislodged unit with nowhere to go is disbanded off the board made by the battle, where it
        # would have retreated: a board the step made, not one it began with
        "disbanded": [{"board": board_name(*k), "power": u.power, "unit": unit_text(u, before.game_map),
                       "reason": disband_reason(report, k, u)} for k, u in report.disbanded],
        "backup_rules": [_backup_json(before, rule, places, notes[i] if i < len(notes) else rule)
                         for i, (rule, places) in enumerate(backups)],
        "refought": [{"board": board_name(*key), "because": list(because)} for key, because in report.refought],
        "new_timelines": [{"timeline": timeline_name(tl), "forked_from": board_name(p, k)}
                          for tl, (p, k) in sorted(after.forks.items()) if tl not in before.forks],
        "boards": {b.name: board_json(after, b) for b in changed_boards(report)},
        "eliminated": sorted(after.eliminated - before.eliminated),
        "winner": after.winner,
        **_sustain(report),
    }


def _sustain(report: StepReport) -> dict:
    """A sustain phase's fractions, chosen timelines and dissolved timelines, as the command line gives them."""
    result = getattr(report, "sustain", None)
    if result is None:
        return {}
    from ..engine.sustain import sustain_json

    return {"sustain": sustain_json(result, report.before.game_map)}


# -- documents ---------------------------------------------------------------------------------


def scenario_document(run: "ScenarioRun") -> dict:
    """``fivedp adjudicate --json``."""
    checked = any(s.expect for s in run.scenario.steps)
    return document("scenario", id=run.scenario.id, title=run.scenario.title,
                    steps=[step_json(r, i) for i, r in enumerate(run.reports, 1)],
                    expectation_problems=list(run.problems), passed=run.passed if checked else None)


def check_document(scenarios: list[dict], passed: int, failed: int) -> dict:
    """``fivedp check --json``: each scenario with its problems, or the error that kept it from running."""
    return document("check", cases=scenarios, passed=passed, failed=failed)


# -- games -------------------------------------------------------------------------------------


def duty_json(d) -> dict:
    return {"power": d.power, "board": d.board, "kind": d.kind, "units": list(d.units), "ordered": list(d.ordered),
            "count": d.count, "options": list(d.options)}


def next_json(game) -> dict:
    """The next phase, the heads it acts on, what each power must do there, and the step it is with
    its phase key (``game.state.phase_key``: what a command for this phase names)."""
    from ..engine.step import next_phase
    from ..game.state import phase_key

    mv = game.mv
    where = {"step": len(game.history) + 1, "key": phase_key(game)}
    if mv.winner:
        return {"phase": None, "heads": [], "due": [], **where}
    phase = next_phase(mv)
    return {"phase": phase, "heads": [b.name for b in mv.heads if b.phase == phase],
            "due": [duty_json(d) for d in duties(game)], **where}


def waiting_json(game, viewer: str | None, sealed: Mapping[str, Any] | None) -> dict:
    """The orders waiting as ``viewer`` may see them: a power (``--power``) its own open orders and
    sealed lines, and of the others only who has submitted; the game master (None) every open order
    and the size of each sealed set."""
    sealed = sealed or {}
    submitted = sorted({p for p, v in game.pending.items() if v} | set(sealed))
    if viewer is None:
        return {"pending": {p: list(v) for p, v in sorted(game.pending.items())},
                "sealed": {p: len(v) for p, v in sorted(sealed.items())}, "submitted": submitted}
    out: dict[str, Any] = {"pending": {p: list(v) for p, v in game.pending.items() if p == viewer},
                           "sealed": {p: len(v) for p, v in sealed.items() if p == viewer}, "submitted": submitted}
    if viewer in sealed:
        out["own_sealed"] = list(sealed[viewer])
    return out


def game_document(game, power: str | None = None, sealed: Mapping[str, Any] | None = None) -> dict:
    """``fivedp game show --json``: the heads, forks, options, standing and what comes next. With
    ``power`` (``--power``), that power's view: its duties and its own waiting orders, of the others
    only who has submitted (``waiting_json``); ``sealed``: the sealed sets by power."""
    mv = game.mv
    heads = []
    for b in mv.heads:
        data = board_json(mv, b)
        present = set(data["units"]) | set(data["centers"]) | {r["power"] for r in data["retreats"]}
        data["powers"] = sorted(present - mv.eliminated)
        heads.append(data)
    upcoming = next_json(game)
    if power is not None:
        upcoming["due"] = [d for d in upcoming["due"] if d["power"] == power]
    doc = document("game", map=mv.game_map.source, options=options_json(mv.options), players=list(mv.players),
                   eliminated=sorted(mv.eliminated), winner=mv.winner, timelines=timelines_json(mv),
                   boards=len(mv.boards), steps=len(game.history), heads=heads, next=upcoming,
                   **waiting_json(game, power, sealed))
    if power is not None:
        doc["power"] = power
    return doc


def history_results(game, name: str) -> list[dict]:
    """Every recorded result of an order given on board ``name``, with the step it was given in."""
    out = []
    for i, h in enumerate(game.history, 1):
        if name not in h.get("boards", ()):
            continue
        only = len(h.get("boards", ())) == 1
        for r in h.get("results", ()):
            if r.get("board") == name or ("board" not in r and only):
                out.append({"step": i, "phase": h.get("phase"), **plain_json(r)})
    return out


def board_document(game, board: Board) -> dict:
    """``fivedp game show FILE BOARD --json``: the board, and the orders given on it with their results."""
    mv = game.mv
    from ..game.play import fights

    return document("board", board=board_json(mv, board), head=any(h.key == board.key for h in mv.heads),
                    orders=history_results(game, board.name),
                    refought=[{"step": f.step, "forked_into": f.forked_into, "because": list(f.because)}
                              for f in fights(game, board.name)])


def orders_document(game, submission=None, illegal=None, checked: bool = False, viewer: str | None = None,
                    sealed: Mapping[str, Any] | None = None) -> dict:
    """``fivedp game orders --json``: what was taken, what it replaced, what is now waiting (as
    ``viewer`` may see it, ``waiting_json``)."""
    from ..engine.step import next_phase

    def line(a) -> dict:
        out = {"power": a.power, "order": a.text, "qualified": a.qualified, "replaces": a.replaces}
        if a.legal is not None:
            out.update(legal=a.legal, reason=a.reason)
        if a.fails:
            out["fails"] = True
        if a.kept is not None:
            out["kept"] = a.kept
        return out

    accepted = [] if submission is None else [line(a) for a in submission.accepted]
    refused = [] if submission is None else [line(a) for a in submission.refused]
    withdrawn = [] if submission is None else [{"power": p, "order": line} for p, line in submission.withdrawn]
    doc = document("orders", phase=next_phase(game.mv), accepted=accepted, refused=refused, withdrawn=withdrawn,
                   **waiting_json(game, viewer, sealed), saved=not checked)
    if checked:
        doc["illegal"] = [outcome_json(game.mv, o) for o in illegal or ()]
    return doc


def game_step_document(game, report: StepReport) -> dict:
    """``fivedp game adjudicate --json``: the step, then what comes next."""
    return document("step", step=step_json(report, len(game.history)), next=next_json(game))


def history_document(game) -> dict:
    """``fivedp game history --json``: every step as the game file keeps it."""
    from ..game.play import refought

    m = game.mv.game_map
    steps = [{"index": i, "phase": h.get("phase"), "heads": list(h.get("boards", ())),
              "orders": plain_json(h.get("orders", {})), "results": plain_json(h.get("results", [])),
              "refought": [{"board": b, "because": list(v)} for b, v in refought(h, m).items()],
              "new_timelines": [{"timeline": k, "forked_from": v} for k, v in (h.get("new_timelines") or {}).items()],
              "eliminated": list(h.get("eliminated", [])), "winner": h.get("winner")}
             for i, h in enumerate(game.history, 1)]
    return document("history", steps=steps)


def possible_document(mv: Multiverse, orders) -> dict:
    """``fivedp game possible --json``."""
    from ..engine.step import next_phase

    return document("possible", phase=next_phase(mv), orders=[
        {"power": p.power, "board": p.board, "unit": p.unit, "kind": p.kind, "order": p.order} for p in orders])
