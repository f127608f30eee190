"""Game files that cannot be silently damaged: the checksum line and the consistency of a loaded game.

A game file ends with ``checksum: sha256:HEX``, the SHA-256 of every byte before that line. It is
written last and checked first, so a file cut short, a deleted line or a flipped byte is refused
before its content is trusted. A deliberate hand edit is taken with ``fivedp game accept``, which
reads the file without the checksum, runs every check below, and writes it again with a new one.

The consistency checks run on every load, checksum or not: they make sure that what was read is a
game this program could have written (boards form each timeline without gaps, forks name boards that
exist, powers are known, eliminated powers and the winner agree with the boards), so that a file
whose checksum was recomputed over a bad edit is still refused rather than played as another game.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..model.kinds import Phase, Result
from ..errors import InputError
from ..model.multiverse import PHASES, SUSTAIN, Multiverse, board_name
from ..model.notation import timeline_name

if TYPE_CHECKING:
    from ..game.state import Game

CHECKSUM_KEY = "checksum"
_CHECKSUM_LINE = re.compile(rb"checksum: sha256:([0-9a-f]{64})\n\Z")
RESULTS = tuple(Result)


def damaged(path: str, problem: str) -> InputError:
    return InputError(f"{path}: damaged game file: {problem}")


def seal(text: str) -> str:
    """The text with its checksum line appended (``text`` ends with a newline)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"{text}{CHECKSUM_KEY}: sha256:{digest}\n"


def reseal(text: str) -> str:
    """The text with its checksum line (if any) replaced by one over its present content: what
    ``accept`` writes for a hand edit, here without the checks (tests make damaged files with it)."""
    body = re.sub(r"checksum: [^\n]*\n?\Z", "", text)
    return seal(body if body.endswith("\n") or not body else body + "\n")


def accept_hint(path: str) -> str:
    return f"if it was edited on purpose, check and accept the edit with `fivedp game accept {path}`"


def unseal(raw: bytes, path: str, *, verify: bool = True) -> bytes:
    """The bytes the checksum covers, after checking it. ``verify=False`` (for ``accept``) takes a
    file whose checksum is missing or wrong; it still has to pass every other check."""
    body_end = raw.rfind(b"\n", 0, len(raw) - 1) + 1
    last = raw[body_end:]
    match = _CHECKSUM_LINE.match(last)
    if match is None:
        if not verify:
            return raw[:body_end] if last.startswith(b"checksum:") else raw
        if not re.search(rb"^format: fivedp-game\r?$", raw, re.MULTILINE):
            raise InputError(f"{path}: not a fivedp game file")
        if re.search(rb"^version: 1\r?$", raw, re.MULTILINE) and b"\nchecksum:" not in raw:
            raise InputError(f"{path}: game format 1, written before game files carried a checksum: check it and "
                             f"upgrade it to format 3 with `fivedp game accept {path}`")
        raise damaged(path, "its last line is not its checksum (`checksum: sha256:...`): the file was cut short "
                            f"or damaged; {accept_hint(path)}")
    body = raw[:body_end]
    if verify and hashlib.sha256(body).hexdigest() != match[1].decode():
        raise damaged(path, "the checksum does not match the content: the file was damaged or edited; "
                            + accept_hint(path))
    return body


# -- consistency --------------------------------------------------------------------------------


def check_game(game: "Game", path: str, checked: frozenset[tuple[int, int]] | None = None) -> None:
    """Refuses (InputError naming the problem) a game no sequence of commands could have produced.

    ``checked``: the past boards whose content (and the history's) passed every check before and
    has not changed since (the game file's ``checked`` digest says so): of those only the keys are
    looked at, so that a long game is not read in full to be checked again. None checks everything."""
    mv = game.mv
    done = checked or frozenset()
    problem = (_powers_problem(game, done) or _timelines_problem(mv) or _boards_problem(mv, done)
               or _adjustment_problem(game, done) or _recorded_orders_problem(mv, done)
               or _start_problem(game) or (None if checked is not None else _history_problem(game))
               or _standing_problem(mv, bool(game.history)))
    if problem:
        raise damaged(path, problem)


def _powers_problem(game: "Game", done: frozenset[tuple[int, int]]) -> str | None:
    mv = game.mv
    m = mv.game_map
    known = set(m.powers)
    for p in mv.players:
        if p not in known:
            return f"players: unknown power {p!r}"
    if len(set(mv.players)) != len(mv.players):
        return "players: a power is listed twice"
    players = set(mv.players)
    for p in sorted(mv.eliminated):
        if p not in players:
            return f"eliminated: {p!r} is not a player"
    if mv.winner is not None:
        if mv.winner not in players:
            return f"winner: {mv.winner!r} is not a player"
        if mv.winner in mv.eliminated:
            return f"winner: {mv.winner} is eliminated"
    for key in sorted(k for k in mv.boards if k not in done):
        b = mv.boards[key]
        owners = {u.power for u in b.units.values()} | set(b.centers.values()) | {r.unit.power for r in b.retreats}
        stranger = sorted(owners - players)
        if stranger:
            return f"board {b.name}: {stranger[0]} is not a player"
    for p in game.pending:
        if p not in known:
            return f"pending: unknown power {p!r}"
    return None


def _timelines_problem(mv: Multiverse) -> str | None:
    """Each timeline's boards are consecutive turns from its first one; each timeline but the first was
    forked from a fought board of an older timeline, and starts the turn after it."""
    turns: dict[int, list[int]] = {}
    for t, n in mv.boards:
        turns.setdefault(t, []).append(n)
    timelines = sorted(turns)
    if timelines != list(range(len(timelines))):
        missing = next(t for t in range(len(timelines) + 1) if t not in turns)
        return f"timeline {timeline_name(missing)} has no board, but later timelines do"
    for t, parent in sorted(mv.forks.items()):
        if t not in turns:
            return f"forks: timeline {timeline_name(t)} has no board"
        if t == 0:
            return "forks: the first timeline a is forked from nothing"
        if parent not in mv.boards:
            return f"forks: timeline {timeline_name(t)} forked from {board_name(*parent)}, which is no board"
        if parent[0] >= t:
            return f"forks: timeline {timeline_name(t)} forked from {board_name(*parent)}, a board of a later timeline"
        if mv.boards[parent].record is None:
            return f"forks: timeline {timeline_name(t)} forked from {board_name(*parent)}, a board never fought"
    for t in timelines:
        ns = sorted(turns[t])
        if t and t not in mv.forks:
            return f"timeline {timeline_name(t)} is not in forks"
        if t and ns[0] != mv.forks[t][1] + 1:
            return (f"timeline {timeline_name(t)} forked from {board_name(*mv.forks[t])} starts at "
                    f"{board_name(t, ns[0])}, not {board_name(t, mv.forks[t][1] + 1)}")
        gap = next((n + 1 for n, after in zip(ns, ns[1:]) if after != n + 1), None)
        if gap is not None:
            return f"timeline {timeline_name(t)} has no board {board_name(t, gap)} between its boards"
    for tl in sorted(mv.dissolved):
        if tl not in turns:
            return f"sustain: dissolved timeline {timeline_name(tl)} has no board"
    return None


def _boards_problem(mv: Multiverse, done: frozenset[tuple[int, int]]) -> str | None:
    """Every board but a timeline's last was fought (it has a record); the last was not, and only it
    can wait for retreats or adjustments. Recorded places name boards that exist. A board in
    ``done`` was checked before as a fought board: it must not be its timeline's last."""
    last = {t: mv.latest_turn(t) for t in mv.timelines}
    for key in sorted(mv.boards):
        if key in done:
            if key[1] == last[key[0]]:
                return (f"board {board_name(*key)} is its timeline's last board but has a record "
                        "(a later board is missing)")
            continue
        b = mv.boards[key]
        head = b.turn == last[b.timeline]
        if head and b.record is not None:
            return f"board {b.name} is its timeline's last board but has a record (a later board is missing)"
        if not head and b.record is None:
            return f"board {b.name} has no record, but later boards of its timeline exist"
        if not head and (b.retreats or b.adjustment_due):
            return f"board {b.name} waits for {'retreats' if b.retreats else 'adjustments'}, but it is not a head"
        retreating = [r.unit.province for r in b.retreats]
        if len(set(retreating)) != len(retreating):
            return f"board {b.name}: two units retreat from one province"
        if b.record is not None:
            places = list(b.record.incoming) + [p for _, p in b.record.decisions]
            places += [(r.unit.timeline, r.unit.turn) for r in b.record.orders if r.unit is not None]
            for p in places:
                if tuple(p[:2]) not in mv.boards:
                    return f"board {b.name}: its record names board {board_name(p[0], p[1])}, which is no board"
    return None


def _adjustment_problem(game: "Game", done: frozenset[tuple[int, int]]) -> str | None:
    """Adjustments come after a Fall battle, before the next Spring board's movement (docs/rules.md
    §5.4, ``step.settle``): only a Spring board after the first year (an even turn from 2) can wait
    for them, and the first board of a game whose start is an adjustment phase."""
    start = game.start if isinstance(game.start, Mapping) else {}
    first = min((n for t, n in game.mv.boards if t == 0), default=None)
    for key in sorted(k for k in game.mv.boards if k not in done):
        b = game.mv.boards[key]
        if not b.adjustment_due or (b.turn % 2 == 0 and b.turn > 0):
            continue
        if key == (0, first) and start.get("phase") == Phase.ADJUSTMENT:
            continue
        season = "Spring 1901, before any Fall battle" if b.turn == 0 else f"Fall {1901 + b.turn // 2}"
        return (f"board {b.name} waits for adjustments, but it is {season}: adjustments come after a Fall "
                "battle, before the next Spring's movement")
    return None


def _recorded_orders_problem(mv: Multiverse, done: frozenset[tuple[int, int]]) -> str | None:
    """A record keeps the legal orders of its own board's units (``movement._records``): each of a player,
    fully designated, for a unit of that power on that very board."""
    players = set(mv.players)
    for key in sorted(k for k in mv.boards if k not in done):
        b = mv.boards[key]
        if b.record is None:
            continue
        for r in b.record.orders:
            text = r.text if len(r.text) <= 40 else r.text[:40] + "…"
            if r.power not in players:
                known = r.power in mv.game_map.powers
                return f"board {b.name}: recorded order {text!r} of {'non-player' if known else 'unknown power'} {r.power!r}"
            spec = getattr(r.order, "unit", None)
            if r.unit is None or spec is None:
                return f"board {b.name}: recorded order {text!r} orders no unit"
            if spec.where.timeline is None or spec.where.turn is None:
                return f"board {b.name}: recorded order {text!r} does not designate its unit's board"
            if r.unit.board != b.key:
                return f"board {b.name}: recorded order {text!r} is for a unit on {board_name(*r.unit.board)}"
            unit = b.units.get(r.unit.province)
            if unit is None or unit.power != r.power:
                return f"board {b.name}: recorded order {text!r} of {r.power} names no unit of {r.power} there"
    return None


def _start_problem(game: "Game") -> str | None:
    start = game.start
    if not start:
        return None
    if not isinstance(start, Mapping):
        return "start is not a mapping"
    if "boards" in start:  # a start of several boards, read (and checked) as a scenario's when replayed
        return None if isinstance(start["boards"], Mapping) and start["boards"] else "start: 'boards' names no board"
    turn = start.get("turn")
    first = min((n for t, n in game.mv.boards if t == 0), default=None)
    if not isinstance(turn, int) or isinstance(turn, bool) or turn != first:
        return f"start: turn {turn!r} is not the turn of the first board {board_name(0, first or 0)}"
    if start.get("phase", "movement") not in PHASES:
        return f"start: unknown phase {start.get('phase')!r}"
    return None


def _history_problem(game: "Game") -> str | None:
    """History entries have the shape ``export`` and ``show`` read."""
    known = set(game.mv.game_map.powers)
    for i, entry in enumerate(game.history, 1):
        where = f"history entry {i}"
        if not isinstance(entry, Mapping):
            return f"{where} is not a mapping"
        if entry.get("phase") not in (*PHASES, SUSTAIN):
            return f"{where}: unknown phase {entry.get('phase')!r}"
        orders = entry.get("orders") or {}
        if not isinstance(orders, Mapping) or not all(
                p in known and isinstance(v, list) and all(isinstance(x, str) for x in v) for p, v in orders.items()):
            return f"{where}: 'orders' must map powers to lists of order lines"
        results = entry.get("results") or []
        if not isinstance(results, list):
            return f"{where}: 'results' must be a list"
        for r in results:
            if not isinstance(r, Mapping) or not isinstance(r.get("order"), str) or r.get("result") not in RESULTS \
                    or r.get("power") not in known:
                return f"{where}: a result needs a known 'power', an 'order' and a 'result' ({', '.join(RESULTS)})"
        for name in entry.get("boards") or ():
            if not any(b.name == str(name) for b in _boards_named(game.mv, str(name))):
                return f"{where}: board {name} is no board"
    return None


def _boards_named(mv: Multiverse, name: str) -> list[Any]:
    from ..model.multiverse import board_name_readings

    return [mv.boards[k] for k in board_name_readings(name) if k in mv.boards]


def _standing_problem(mv: Multiverse, played: bool) -> str | None:
    """Eliminated powers own nothing on the heads, and the standing the victory rules give the heads
    is the one the file says (no elimination or winner missing, none made up). The rules are applied
    after every step, never to the start: before the first step nobody is out and nobody has won."""
    from dataclasses import replace

    from ..engine.victory import victory

    if not played:
        if mv.eliminated:
            return f"eliminated: {', '.join(sorted(mv.eliminated))}, but no step has been played"
        if mv.winner is not None:
            return f"winner: {mv.winner}, but no step has been played"
        return None
    for h in mv.heads:
        for p in sorted(mv.eliminated):
            if any(u.power == p for u in h.units.values()) or p in h.centers.values():
                return f"eliminated: {p} still has units or centres on board {h.name}"
    again = victory(replace(mv, winner=None))
    if again.eliminated != mv.eliminated:
        missing = sorted(again.eliminated - mv.eliminated)
        return f"eliminated: {', '.join(missing)} should be eliminated by the boards"
    if again.winner != mv.winner:
        if mv.winner is None:
            return f"winner: the boards give {again.winner} the victory, but no winner is written"
        return f"winner: the boards do not give {mv.winner} the victory"
    return None
