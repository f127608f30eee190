"""Game records that prove themselves: a game replayed from its start and compared with its file.

A game file keeps its start position, its options and, in ``history``, the orders of every step. The
consistency checks of ``integrity`` make sure a file is *a* game; only a replay shows that it is
*this* game: the recorded orders adjudicated again, step by step from the start, must give every
board (units, centres, retreats, adjustments, records), every step's results, every fork and the
standing exactly as the file has them. A hand edit of a past board or of a result keeps the file's
structure but not its replay, so it is reported here with the first place it differs.

Replay costs one adjudication per step (each step's phase across its heads, as it was played). The
boards each step acted on are noted as it goes, so that every board is compared once, at the end,
and a difference is told with the last step that acted on that part of the board (the step that
should have made it as recorded). ``verify_games`` replays many games in lockstep, their waiting
phases adjudicated together (``batch.step_many``).

What replay does not cover is listed in docs/game-format.md ("Verifying a game"): the waiting orders
(nothing adjudicated them yet), the players (taken from the file), the layout and comment, and an
order that changed nothing dropped with its result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..model.kinds import Result
from ..errors import AdjudicationError, InputError, UsageError
from ..model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Multiverse, board_name
from ..model.notation import timeline_name

if TYPE_CHECKING:
    from ..game.state import Game

# the parts of a board compared, in the order a difference in them is reported
_FIELDS = ("units", "centers", "retreats", "adjustment_due", "record orders", "record incoming", "record decisions")
_QUOTE = 60  # at most this much of a recorded text is quoted in a message
_LISTED = 3  # at most this many differing items are named in a message


@dataclass(frozen=True)
class Divergence:
    """Where a recorded game first differs from its replay. ``step`` is the step (from 1) that
    produced the differing part, 0 for the start position; ``board`` the board's name, or None for
    what belongs to the step or the game rather than a board; ``what`` the part (``units``,
    ``result``, ``forks``, …); ``recorded`` and ``replayed`` the two versions, shortened to be quoted."""

    step: int
    board: str | None
    what: str
    recorded: str
    replayed: str

    def text(self) -> str:
        where = "the start" if self.step == 0 else f"step {self.step}"
        if self.board:
            where += f", board {self.board}"
        if not self.recorded and not self.replayed:
            return f"{where}: {self.what}"  # a replay that could not go on: nothing to set side by side
        return f"{where}: {self.what}: recorded {self.recorded}, replayed {self.replayed}"

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "board": self.board, "what": self.what, "recorded": self.recorded,
                "replayed": self.replayed, "text": self.text()}


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of replaying a game: how much was replayed and compared, and the first divergence
    (None when every board and result is as recorded)."""

    steps: int
    boards: int
    divergence: Divergence | None = None

    @property
    def honest(self) -> bool:
        return self.divergence is None

    def summary(self, name: str) -> str:
        if self.divergence is not None:
            return f"{name}: not an honest record: {self.divergence.text()}"
        return (f"{name}: {self.steps} step{'s' if self.steps != 1 else ''} replayed, {self.boards} "
                f"board{'s' if self.boards != 1 else ''} and every result as recorded")


def _short(text: object) -> str:
    s = str(text)
    return s if len(s) <= _QUOTE else s[:_QUOTE] + "…"


def _listing(items: Iterable[str]) -> str:
    items = sorted(items)
    if not items:
        return "none"
    shown = ", ".join(_short(x) for x in items[:_LISTED])
    return shown + (f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "")


def _plain(value: Any) -> Any:
    """A value as a game file's JSON line holds it, so that a replayed entry and a read one compare."""
    return json.loads(json.dumps(value, sort_keys=True, default=list))


# -- boards --------------------------------------------------------------------------------------


def _board_parts(mv: Multiverse, key: tuple[int, int]) -> dict[str, Any]:
    """A board as the file writes it, split into the parts compared (``_FIELDS``), each a set of
    items or a value."""
    from .games import _board_data

    data = _board_data(mv.game_map, mv.boards[key])
    record = data.get("record") or {}
    return {
        "units": {f"{p}: {u}" for p, us in data["units"].items() for u in us},
        "centers": {f"{p}: {c}" for p, cs in data["centers"].items() for c in cs},
        "retreats": {json.dumps(r, sort_keys=True) for r in data.get("retreats", ())},
        "adjustment_due": bool(data.get("adjustment_due")),
        "record orders": None if not record else {f"{p}: {x}" for p, xs in record["orders"].items() for x in xs},
        "record incoming": None if not record else set(record["incoming"]),
        "record decisions": None if not record else {f"{k} {'true' if v else 'false'}"
                                                      for k, v in record["decisions"].items()},
    }


def _retreat_text(item: str) -> str:
    r = json.loads(item)
    barred = f", barred {', '.join(r['barred'])}" if r.get("barred") else ""
    attacker = f" (attacked from {r['attacker_from']})" if r.get("attacker_from") else ""
    return f"{r['power']}: {r['unit']}{attacker}{barred}"


def _part_difference(field: str, recorded: Any, replayed: Any) -> tuple[str, str]:
    """The two versions of a differing part, as little of each as tells them apart."""
    if isinstance(recorded, set) and isinstance(replayed, set):
        only_rec, only_rep = recorded - replayed, replayed - recorded
        if field == "retreats":
            only_rec, only_rep = {_retreat_text(x) for x in only_rec}, {_retreat_text(x) for x in only_rep}
        return _listing(only_rec), _listing(only_rep)
    show = lambda v: "no record" if v is None else ("true" if v is True else "false" if v is False  # noqa: E731
                                                   else _listing(v))
    return show(recorded), show(replayed)


# -- history entries -----------------------------------------------------------------------------


def _result_text(r: Mapping) -> str:
    return f"{r.get('power')}: {r.get('order')}"


def _entry_divergence(step: int, recorded: Mapping, replayed: Mapping) -> Divergence | None:
    """The first difference between a step as recorded and as replayed: its phase and boards, then its
    results order by order, then its forks, eliminations and winner."""
    rec, rep = _plain(recorded), _plain(replayed)
    if not isinstance(rec, dict):
        return Divergence(step, None, "the step", _short(rec), "a step")
    for key in ("phase", "boards"):
        if rec.get(key) != rep.get(key):
            return Divergence(step, None, key, _short(rec.get(key)), _short(rep.get(key)))
    got, want = rec.get("results") or [], rep.get("results") or []
    for i in range(max(len(got), len(want))):
        a = got[i] if i < len(got) else None
        b = want[i] if i < len(want) else None
        if a == b:
            continue
        if a is None or b is None or (a.get("power"), a.get("order")) != (b.get("power"), b.get("order")):
            return Divergence(step, None, f"result {i + 1}", "none" if a is None else _short(_result_text(a)),
                              "none" if b is None else _short(_result_text(b)))
        # a step adjudicated without reasons (api.adjudicate(..., reasons=False)) records a legal order's
        # result with neither reason nor explanation: the replay's are not compared with nothing (the
        # result itself still is)
        unexplained = a.get("result") != Result.INVALID and not a.get("reason") and not a.get("explanation")
        for key in sorted(set(a) | set(b), key=lambda k: (k != "result", k)):
            if unexplained and key in ("reason", "explanation"):
                continue
            if a.get(key) != b.get(key):
                what = _short(_result_text(a)) + ("" if key == "result" else f": {key}")
                return Divergence(step, b.get("board"), what, _short(a.get(key)), _short(b.get(key)))
    for key in ("new_timelines", "eliminated", "winner", "sustain", "orders", *sorted(set(rec) | set(rep))):
        if key != "results" and rec.get(key) != rep.get(key):  # the results were compared one by one above
            return Divergence(step, None, key, _short(rec.get(key) or "none"), _short(rep.get(key) or "none"))
    return None


# -- replay --------------------------------------------------------------------------------------


def start_position(game: "Game") -> Multiverse:
    """The multiverse the game began with, from its recorded ``start``, options and players.
    InputError when the file records no start, or one that cannot be read."""
    from .scenarios import read_start

    if not game.start:
        raise InputError("no start position is recorded, so the game cannot be replayed")
    mv = game.mv
    try:
        begun = read_start({"start": dict(game.start)}, mv.game_map, mv.options, "start")
    except InputError as exc:
        raise InputError(f"the recorded start cannot be read: {exc}") from None
    return replace(begun, players=mv.players)


_RECORD = ("record orders", "record incoming", "record decisions")
_POSITION = tuple(f for f in _FIELDS if f not in _RECORD)


def _touched(before: Multiverse, after: Multiverse, phase: str) -> dict[tuple[int, int], tuple[str, ...]]:
    """The boards a step acted on and the parts of each it may have set (docs/rules.md §4–§6): a
    movement writes the records of the heads it fought and makes new boards; a retreat, an
    adjustment or a sustain phase sets the position of the heads it acted on; an elimination empties
    the power's part of every head. A part that differs is told with the last step that may have set
    it, so a step that should have changed a board but did not is the one named."""
    touched: dict[tuple[int, int], tuple[str, ...]] = {}
    acting = [h.key for h in before.heads if phase not in (MOVEMENT, RETREAT, ADJUSTMENT) or h.phase == phase]
    for key in acting:
        touched[key] = _RECORD if phase == MOVEMENT else _POSITION
    for h in after.heads:
        if h.key not in before.boards:
            touched[h.key] = _FIELDS
        elif after.eliminated != before.eliminated:
            touched[h.key] = tuple(dict.fromkeys(touched.get(h.key, ()) + _POSITION))
    return touched


class _Replay:
    """One game's replay as it goes: the replayed game, which step last changed each part of each
    board, of the forks and of the standing, and the first divergence of a step's entry."""

    def __init__(self, recorded: "Game"):
        from ..game.state import new_game

        self.recorded = recorded
        self.history = list(recorded.history)
        self.done = 0
        self.stopped: Divergence | None = None
        self.changed: dict[tuple[tuple[int, int], str], int] = {}
        self.game_parts: dict[str, int] = {}  # the last step that changed each part of the standing
        self.fork_steps: dict[int, int] = {}  # the step that made each timeline
        self.first_entry: Divergence | None = None
        try:
            mv = start_position(recorded)
        except InputError as exc:
            self.stopped = Divergence(0, None, str(exc), "", "")
            self.game = None
            return
        self.game = new_game(mv, recorded.start if "boards" in recorded.start else None)
        self._note(None, mv, "", 0)

    @property
    def waiting(self) -> bool:
        return self.stopped is None and self.done < len(self.history)

    def _note(self, before: Multiverse | None, after: Multiverse, phase: str, step: int) -> None:
        if before is None:
            self.changed.update({(key, field): step for key in after.boards for field in _FIELDS})
        else:
            for key, fields in _touched(before, after, phase).items():
                self.changed.update({(key, field): step for field in fields})
        old_standing = None if before is None else _standing(before)
        for name, value in _standing(after).items():
            if old_standing is not None and old_standing[name] != value:
                self.game_parts[name] = step
        for t in after.forks:
            self.fork_steps.setdefault(t, step)

    def pending(self) -> dict[str, list[str]]:
        entry = self.history[self.done]
        orders = entry.get("orders") if isinstance(entry, Mapping) else None
        return {str(p): [str(x) for x in lines or ()] for p, lines in (orders or {}).items()}

    def advance(self, report: Any) -> None:
        """Takes the next step's report (or the exception its adjudication raised)."""
        from ..game.play import adjudicate

        step = self.done + 1
        if isinstance(report, AdjudicationError):
            raise report
        if isinstance(report, InputError):
            self.stopped = Divergence(step, None, f"the recorded orders cannot be adjudicated: {str(report)[:160]}", "", "")
            return
        if isinstance(report, Exception):
            raise report
        before = self.game
        assert before is not None
        game, _ = adjudicate(replace(before, pending=self.pending(), history=()), report)
        self.done = step
        if self.first_entry is None:
            self.first_entry = _entry_divergence(step, self.history[step - 1], game.history[-1])
        self.game = replace(game, history=())
        self._note(before.mv, self.game.mv, report.phase, step)
        if self.game.mv.winner and self.done < len(self.history):
            self.stopped = Divergence(step + 1, None, f"the game was over after step {step} ({self.game.mv.winner} won), "
                                                      "but more steps are recorded", "", "")

    def report(self) -> VerifyReport:
        boards = len(self.recorded.mv.boards)
        found = [d for d in (self.stopped, self.first_entry) if d is not None]
        if self.game is not None:
            found += _board_divergences(self, self.game.mv)
        first = min(found, key=lambda d: d.step) if found else None
        return VerifyReport(self.done, boards, first)


def _standing(mv: Multiverse) -> dict[str, Any]:
    """What the file's top says of the whole game, beside the forks (compared timeline by timeline)."""
    return {
        "eliminated": ", ".join(sorted(mv.eliminated)) or "none",
        "winner": mv.winner or "none",
        "dissolved timelines": ", ".join(sorted(timeline_name(t) for t in mv.dissolved)) or "none",
        "sustain due": "none" if mv.sustain_due is None else str(1901 + mv.sustain_due),
        "sustain held": "none" if mv.sustain_held is None else str(1901 + mv.sustain_held),
    }


def _board_divergences(replay: _Replay, replayed: Multiverse) -> list[Divergence]:
    """Every board, the forks and the standing compared with the file (the first difference of each
    board). A replay that stopped early (orders the rules refused, a game won too soon) compares
    only the boards it had fought: they are final, the others and the standing are not yet."""
    recorded = replay.recorded.mv
    last = replay.done
    stopped = replay.stopped is not None
    found: list[Divergence] = []
    for key in sorted(set(recorded.boards) | set(replayed.boards)):
        name = board_name(*key)
        if stopped and (key not in replayed.boards or key[1] == replayed.latest_turn(key[0])):
            continue
        if key not in replayed.boards:
            found.append(Divergence(last, name, "the board", "a board", "no such board"))
            continue
        if key not in recorded.boards:
            found.append(Divergence(replay.changed.get((key, "units"), last), name, "the board", "no such board",
                                    "a board"))
            continue
        rec, rep = _board_parts(recorded, key), _board_parts(replayed, key)
        for field in _FIELDS:
            if rec[field] != rep[field]:
                a, b = _part_difference(field, rec[field], rep[field])
                found.append(Divergence(replay.changed.get((key, field), 0), name, field, a, b))
                break
    if stopped:
        return found
    for t in sorted(set(recorded.forks) | set(replayed.forks)):
        mine, theirs = recorded.forks.get(t), replayed.forks.get(t)
        if mine != theirs:
            show = lambda k: "none" if k is None else board_name(*k)  # noqa: E731
            found.append(Divergence(replay.fork_steps.get(t, last), None, f"forks: timeline {timeline_name(t)}",
                                    f"forked from {show(mine)}", f"forked from {show(theirs)}"))
    mine, theirs = _standing(recorded), _standing(replayed)
    for name, value in mine.items():
        if theirs[name] != value:
            found.append(Divergence(replay.game_parts.get(name, last), None, name, _short(value), _short(theirs[name])))
    return found


def verify_latest(game: "Game") -> Divergence | None:
    """The game's latest boards checked against a replay of its last steps: from the position before
    its last movement step, rebuilt from its own boards (``play.rewound``; the start, before any
    movement step), the recorded orders of every step since are adjudicated again and the boards
    those steps fought, made and changed, the forks and the standing are compared with the file.
    None when they agree, else the first difference. Costs the steps since the last movement step,
    not the game: run before a step is built on the latest boards, so that an edit of them made
    outside ``fivedp game accept`` is refused before it spreads into new boards."""
    from ..engine.step import step
    from ..game.play import rewound
    from ..game.state import Game
    from ..yaml_lines import plain

    if not isinstance(game, Game):
        raise UsageError(f"verify_latest: game must be a Game, not {type(game).__name__}")
    history = game.history
    if not history:
        return None
    back = rewound(game)
    if back is None and not game.start:
        return None  # a game made by a program without its start: nothing to replay from
    first, mv = back if back is not None else (0, start_position(game))
    fought = {h.key for h in mv.heads}  # the boards the replayed movement step records
    for i in range(first, len(history)):
        orders = history[i].get("orders") if isinstance(history[i], Mapping) else None
        try:
            mv = step(mv, plain(orders or {}), reasons=False).after
        except InputError as exc:
            return Divergence(i + 1, None, f"the recorded orders cannot be adjudicated: {str(exc)[:160]}", "", "")
    recorded, last = game.mv, len(history)
    if set(recorded.boards) != set(mv.boards):
        extra = sorted(set(recorded.boards) ^ set(mv.boards))[0]
        name = board_name(*extra)
        return Divergence(last, name, "the board", "a board" if extra in recorded.boards else "no such board",
                          "a board" if extra in mv.boards else "no such board")
    latest = {(t, mv.latest_turn(t)) for t in mv.timelines}
    for key in sorted(fought | latest):
        rec, rep = _board_parts(recorded, key), _board_parts(mv, key)
        for field in _FIELDS:
            if rec[field] != rep[field]:
                a, b = _part_difference(field, rec[field], rep[field])
                return Divergence(last, board_name(*key), field, a, b)
    if dict(recorded.forks) != dict(mv.forks):
        return Divergence(last, None, "forks", _short(sorted(recorded.forks.items())), _short(sorted(mv.forks.items())))
    mine, theirs = _standing(recorded), _standing(mv)
    for name, value in mine.items():
        if theirs[name] != value:
            return Divergence(last, None, name, _short(value), _short(theirs[name]))
    return None


def verify_games(games: Sequence["Game"]) -> list[VerifyReport]:
    """Replays every game from its start with its recorded orders and compares it with its file (see
    the module's docstring): one report per game, in order. The games' steps are adjudicated in
    lockstep, the phases waiting at once answered together. An engine defect raises
    AdjudicationError; orders the rules refuse are a divergence of their game."""
    from ..engine.batch import step_many

    replays = [_Replay(g) for g in games]
    while True:
        waiting = [r for r in replays if r.waiting]
        if not waiting:
            break
        reports = step_many([(r.game.mv, r.pending()) for r in waiting])
        for replay, report in zip(waiting, reports):
            replay.advance(report)
    return [r.report() for r in replays]


def verify_game(game: "Game") -> VerifyReport:
    """``verify_games`` for one game."""
    return verify_games([game])[0]
