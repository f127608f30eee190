"""Game files: a game (``game.state``) read from and written to disk, and written as a scenario.

The game file (``docs/game-format.md``) is YAML a person can read: the whole multiverse — every
board with its units, centres, pending retreats and record — plus the orders waiting for the next
phase and the history of every step. It is written atomically (a temporary file in the same
folder, flushed to disk, then renamed over the old one), so a crash or a kill leaves either the
old game or the new one, never a half-written file.

In format 3 the boards already fought and the steps played are kept one line each below the rest
(``gamefile``): a game read from a file builds those boards and steps only when they are looked up
(``LazyBoards``, ``StoredHistory``) and writes their lines back unchanged, so that a command on a
long game costs what it reads and changes, not the whole game.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Sequence

import yaml

from ..model.kinds import Phase
from ..errors import FileError, InputError, NotationError, UsageError, quoted
from . import layout as gamefile
from .layout import StoredHistory, checked_digest, json_line
from ..inputs import LoadError, decode, read_bytes, write_file, write_target
from ..yaml_lines import TextDumper, value_line, line_of, lined_list, lined_map, on_line, parse_yaml, plain
from ..shapes import Anything, Fields, Flag, ListOf, MapOf, Opt, Text, Whole
from ..limits import MAX_BOARDS, MAX_FILE_BYTES, MAX_TURN
from .integrity import check_game, seal, unseal
from .scenarios import read_start
from ..model.map import GameMap, load_map
from ..engine.userrules import validated
from ..model.multiverse import (Board, LazyBoards, Multiverse, Record, Retreat, Unit, board_name,
                         board_name_readings, make_board, unit_text)
from ..model.notation import parse_order, parse_timeline, parse_unit, parse_where, timeline_name
from ..engine.resolve import resolve, resolved_text
from ..solver.driver import DECISIONS
from ..game.state import Game, position_data

FORMAT = "fivedp-game"
# 2: the file ends with its checksum line (format 1 files are upgraded by ``accept``);
# 3: fought boards and history one line each, below the rest (``gamefile``); format 2 is still read
VERSION = 3
READS = (2, 3)


# -- writing ----------------------------------------------------------------------------------


def _place_text(p: tuple[int, int, str]) -> str:
    return f"{timeline_name(p[0])}-{p[2].capitalize()}@{p[1]}"


def _board_data(m: GameMap, b: Board) -> dict:
    units, centers = position_data(m, b)
    data: dict[str, Any] = {"units": units, "centers": centers}
    if b.retreats:
        data["retreats"] = [{"power": r.unit.power, "unit": unit_text(r.unit, m),
                             "attacker_from": r.attacker_from.capitalize() if r.attacker_from else None,
                             "barred": sorted(p.capitalize() for p in r.barred)} for r in b.retreats]
    if b.adjustment_due:
        data["adjustment_due"] = True
    if b.record is not None:
        orders: dict[str, list[str]] = {}
        for r in b.record.orders:
            orders.setdefault(r.power, []).append(resolved_text(r, m))
        data["record"] = {
            "orders": orders,
            "incoming": [_place_text(p) for p in b.record.incoming],
            "decisions": {f"{name} {_place_text(p)}": v for (name, p), v in sorted(b.record.decisions.items())},
        }
    return data


def _sustain_data(mv: Multiverse) -> dict:
    """The sustain phase's state (option sustain, docs/rules.md §6.8.3); absent from games without it."""
    if not (mv.dissolved or mv.sustain_due is not None or mv.sustain_held is not None):
        return {}
    year = lambda y: None if y is None else 1901 + y  # noqa: E731
    return {"sustain": {"dissolved": [timeline_name(tl) for tl in sorted(mv.dissolved)],
                        "due": year(mv.sustain_due), "held": year(mv.sustain_held)}}


def _read_sustain(data: Any, path: str) -> dict:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _damaged(path, "'sustain' must be a mapping")
    year = lambda y: None if y is None else int(y) - 1901  # noqa: E731
    return {"dissolved": frozenset(parse_timeline(str(x)) for x in data.get("dissolved") or ()),
            "sustain_due": year(data.get("due")), "sustain_held": year(data.get("held"))}


def game_top(game: Game) -> dict:
    """What the top of a game file holds before the boards: what a command may change."""
    mv = game.mv
    return {
        "format": FORMAT,
        "version": VERSION,
        "map": mv.game_map.source,
        "options": mv.options.document(),
        "players": list(mv.players),
        "eliminated": sorted(mv.eliminated),
        "winner": mv.winner,
        "forks": {timeline_name(t): board_name(p, k) for t, (p, k) in sorted(mv.forks.items())},
        **_sustain_data(mv),
        "start": game.start,
        "pending": {p: list(lines) for p, lines in game.pending.items()},
    }


def game_data(game: Game) -> dict:
    """The whole game as one document (``to_json``, and what a format-2 file held): every board by
    name, then the history. A format-3 file holds the same content laid out in parts (``game_text``)."""
    mv = game.mv
    top = game_top(game)
    data = {k: v for k, v in top.items() if k not in ("start", "pending")}
    data["boards"] = {board_name(*k): _board_data(mv.game_map, mv.boards[k]) for k in sorted(mv.boards)}
    data.update(start=top["start"], pending=top["pending"], history=list(game.history))
    # the last key: a file cut short anywhere lacks it, so truncation never passes for a game
    data["end"] = FORMAT
    return data


class _Dumper(TextDumper):
    """Writes a value shared by two keys out twice: game files are read with YAML aliases refused."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_HEADER = "# fivedp game file (docs/game-format.md)\n"


def game_text(game: Game) -> str:
    """The game file's text (format 3, sealed). Fought boards and steps the game was read with are
    written as the file had them, line for line; only new ones are serialised."""
    mv = game.mv
    m = mv.game_map
    last = {t: mv.latest_turn(t) for t in mv.timelines}
    latest = sorted((t, n) for t, n in last.items())
    boards = mv.boards
    past: list[str] = []
    copied: set[tuple[int, int]] = set()
    if isinstance(boards, LazyBoards):
        for key in boards.stored_keys():
            item = boards.stored_item(key)
            if item is not None and last.get(key[0]) != key[1]:
                past.append(f"  {item.name}: {item.text}\n")
                copied.add(key)
    for key in sorted(boards):
        if key not in copied and last[key[0]] != key[1]:
            past.append(f"  {board_name(*key)}: {json_line(_board_data(m, boards[key]))}\n")
    history = game.history
    stored = history.stored_line if isinstance(history, StoredHistory) else lambda i: None
    # a stored step is copied without being parsed
    steps = [f"- {stored(i) or json_line(history[i])}\n" for i in range(len(history))]
    sections = ("past:\n" + "".join(past) if past else "past: {}\n") + \
               ("history:\n" + "".join(steps) if steps else "history: []\n")
    latest_names = [board_name(*k) for k in latest]
    top = game_top(game)
    top["latest"] = {board_name(*k): _board_data(m, boards[k]) for k in latest}
    top["checked"] = checked_digest(m.source, mv.players, latest_names, sections.encode("utf-8"))
    return seal(_HEADER + yaml.dump(top, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
                + sections + f"end: {FORMAT}\n")


def save_game(path: str | Path, game: Game) -> None:
    """Writes the game atomically: the old file stays whole until the new one is complete on disk."""
    write_atomic(path, game_text(game))


def write_atomic(path: str | Path, text: str) -> None:
    """The game file written atomically through ``inputs.write_file``: a temporary file in the same
    folder, synced, renamed over the file (a symbolic link's target, the link kept); any failure
    leaves the old file whole and is a FileError naming the game file."""
    write_file(path, text, "game file")


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Holds the game's lock while a command writes it (``store.transact``), or reads, changes and
    writes it, so that two commands run at once (orders from two powers, say) do not lose each
    other's work. The lock is a small file beside the game, ``.NAME.lock``; temporary files a killed
    writer left behind are removed under it."""
    target = write_target(path, "game file")  # a symbolic link's target: every link to a game shares its lock
    folder = target.parent if str(target.parent) else Path(".")
    lock_name = folder / f".{target.name}.lock"
    try:
        # without blocking: a FIFO put where the lock belongs is refused, not waited on
        fd = os.open(lock_name, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise FileError(path, f"cannot take the game's lock ({lock_name.name} beside it): {exc.strerror or exc}",
                        exc.errno) from None
    with os.fdopen(fd, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for stale in folder.glob(f".{target.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def checksum_line(path: Path) -> bytes | None:
    """The file's last line (its checksum line), read from its end; None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        size = os.lseek(fd, 0, os.SEEK_END)
        tail = os.pread(fd, 256, max(0, size - 256))
    except OSError:
        return None
    finally:
        os.close(fd)
    tail = tail.replace(b"\r\n", b"\n")  # as read_game reads it: line ends do not count
    return tail[tail.rfind(b"\n", 0, len(tail) - 1) + 1:]


# -- reading ----------------------------------------------------------------------------------


def _damaged(path: str, problem: str, at: Any = None) -> InputError:
    """A damaged game file, at the line ``at`` (a loaded value) was written on when it is known."""
    line = line_of(at)
    return InputError(f"{path}: damaged game file: {problem}" + (f" (line {line})" if line and "(line " not in problem else ""))


_NAMED = Opt(MapOf(Text(), Opt(ListOf(Text()))))
_BOARD = Fields({
    "units": _NAMED, "centers": _NAMED, "adjustment_due": Opt(Flag()),
    "retreats": Opt(ListOf(Fields({"power": Text(), "unit": Text(), "attacker_from": Opt(Text()),
                                   "barred": Opt(ListOf(Text()))}, required=("power", "unit")))),
    "record": Opt(Fields({"orders": _NAMED, "incoming": Opt(ListOf(Text())), "decisions": Opt(MapOf(Text(), Flag()))})),
})
_HISTORY = Fields({
    "phase": Text(), "boards": Opt(ListOf(Text())), "orders": _NAMED, "sustain": Anything(),
    "results": Opt(ListOf(Fields({"power": Text(), "order": Text(), "qualified": Opt(Text()), "board": Opt(Text()),
                                  "result": Text(), "reason": Opt(Text()), "explanation": Anything()},
                                 required=("order", "result")))),
    "new_timelines": Opt(MapOf(Text(), Text())), "eliminated": Opt(ListOf(Text())), "winner": Opt(Text()),
})
GAME_SCHEMA = Fields({
    "format": Text(), "version": Whole(0, 1_000_000), "map": Text(), "options": Opt(MapOf(Text(), Anything())),
    "players": Opt(ListOf(Text())), "eliminated": Opt(ListOf(Text())), "winner": Opt(Text()),
    "forks": Opt(MapOf(Text(), Text())), "boards": MapOf(Text(), Opt(_BOARD)),
    "sustain": Opt(Fields({"dissolved": Opt(ListOf(Text())), "due": Opt(Whole(1901, 1901 + MAX_TURN)),
                           "held": Opt(Whole(1901, 1901 + MAX_TURN))})), "start": Opt(MapOf(Text(), Anything())),
    "pending": Opt(MapOf(Text(), Opt(ListOf(Text())))), "history": Opt(ListOf(_HISTORY)), "end": Text(),
}, required=("format", "version", "map", "end"))
"""The shape of a game file (docs/game-format.md), checked with key path and line before its meaning."""


def _read_place(text: str, m: GameMap, path: str, at: Any = None) -> tuple[int, int, str]:
    """A fully designated place; ``at`` is the loaded value it was cut from, when it is not ``text``."""
    at = text if at is None else at
    try:
        w = parse_where(str(text), m)
    except NotationError as exc:
        raise _damaged(path, f"bad place {quoted(text)}: {exc.problem}", at) from None
    if w.timeline is None or w.turn is None:
        raise _damaged(path, f"place {quoted(text)} is not fully designated", at)
    return w.timeline, w.turn, w.province


def _read_power(text: object, m: GameMap, path: str) -> str:
    power = m.power(str(text))
    if power is None:
        raise _damaged(path, f"unknown power {quoted(text)}", text)
    return power


def _read_province(text: object, m: GameMap, path: str) -> str:
    prov = m.province(str(text))
    if prov is None:
        raise _damaged(path, f"unknown province {quoted(text)}", text)
    return prov


def _read_unit(text: str, power: str, m: GameMap, path: str) -> Unit:
    """A unit as the file writes it, checked as a scenario's units are."""
    try:
        spec = parse_unit(str(text), m)
    except NotationError as exc:
        raise _damaged(path, f"bad unit {quoted(text)}: {exc.problem}", text) from None
    if spec.kind is None:
        raise _damaged(path, f"unit {quoted(text)} has no type", text)
    try:
        return Unit(spec.kind, power, m.unit_location(spec.kind, spec.where.province, spec.where.coast))
    except ValueError as exc:
        raise _damaged(path, f"unit {quoted(text)}: {exc}", text) from None


def _board_key(name: str, path: str) -> tuple[int, int]:
    """``a3``, or ``b1@3`` for timelines past z (the file always writes those with the @)."""
    readings = board_name_readings(str(name))
    if not readings:
        raise _damaged(path, f"bad board name {quoted(name)}", name)
    return readings[0]


_SHORT_NAME = re.compile(r"([a-z])([0-9]{1,6})")


def _written_key(name: str, path: str) -> tuple[int, int]:
    """The key of a board name as the file writes it: ``a12`` read directly (thousands of past
    boards are named so), anything else as ``_board_key`` reads it."""
    m = _SHORT_NAME.fullmatch(name)
    return (ord(m[1]) - 97, int(m[2])) if m and int(m[2]) <= MAX_TURN else _board_key(name, path)


def _read_board(name: str, data: dict, mv: Multiverse, path: str, units: dict | None = None) -> Board:
    """A board without its record (``_with_record`` adds it). ``units`` memoises the units read so far
    by text and power: a long game writes the same few hundred units thousands of times."""
    m = mv.game_map
    key = _board_key(name, path)
    memo = {} if units is None else units
    found = []
    for p, us in (data.get("units") or {}).items():
        power = _read_power(p, m, path)
        for u in us or ():
            unit = memo.get((u, power))
            if unit is None:
                unit = memo[(u, power)] = _read_unit(u, power, m, path)
            found.append(unit)
    if len({u.province for u in found}) != len(found):
        raise _damaged(path, f"board {name}: two units in one province", name)
    centers = {}
    for p, cs in (data.get("centers") or {}).items():
        for c in cs or ():
            prov = m.province(str(c))
            if prov is None or not m.provinces[prov].center:
                raise _damaged(path, f"board {name}: {quoted(c)} is not a supply centre", c)
            if prov in centers:
                raise _damaged(path, f"board {name}: centre {c} is owned twice", c)
            centers[prov] = _read_power(p, m, path)
    retreats = []
    for r in data.get("retreats") or ():
        power = _read_power(r["power"], m, path)
        retreats.append(Retreat(_read_unit(r["unit"], power, m, path),
                                _read_province(r["attacker_from"], m, path) if r.get("attacker_from") else None,
                                frozenset(_read_province(b, m, path) for b in r.get("barred") or ())))
    if not isinstance(data.get("adjustment_due", False), bool):
        raise _damaged(path, f"board {name}: adjustment_due must be true or false")
    return make_board(key[0], key[1], found, centers, retreats=tuple(retreats),
                      adjustment_due=bool(data.get("adjustment_due", False)))


def _with_record(board: Board, name: str, data: dict, mv: Multiverse, path: str) -> Board:
    """The board with the record ``data`` holds, if it holds one; recorded orders are resolved
    against ``mv`` (they are fully designated: only its map and options matter)."""
    if "record" not in data:
        return board
    m = mv.game_map
    rec = data["record"] or {}
    orders = []
    for power, lines in (rec.get("orders") or {}).items():
        for line in lines or ():
            try:
                orders.append(resolve(parse_order(line, m), m.power(power) or power, line, mv))
            except (NotationError, InputError) as exc:
                raise _damaged(path, f"board {name}: bad recorded order {quoted(line)}: {exc}", line) from None
    decisions = {}
    for k, v in (rec.get("decisions") or {}).items():
        dname, _, place = str(k).partition(" ")
        if dname not in DECISIONS or not isinstance(v, bool):
            raise _damaged(path, f"board {name}: bad decision {quoted(k)}: {quoted(v)}", k)
        decisions[(dname, _read_place(place, m, path, k))] = v
    record = Record(tuple(orders), tuple(_read_place(p, m, path) for p in rec.get("incoming") or ()),
                    MappingProxyType(decisions))
    return replace(board, record=record)


def load_game(path: str | Path, *, verify: bool = True) -> Game:
    """Reads a game file: its checksum first (``integrity``), then its content through the guarded
    loader (any damage is an InputError naming line and key), then the game's consistency.
    ``verify=False`` skips the checksum only, for ``fivedp game accept``, and checks everything."""
    return read_game(path, verify=verify)[0]


def read_game(path: str | Path, *, verify: bool = True) -> tuple[Game, bytes]:
    """``load_game``, and the checksum line of the text read (what ``store.transact`` compares to tell
    whether the file changed since)."""
    path = str(path)
    return game_from_bytes(read_bytes(path, "game file"), path, verify=verify)


def game_from_bytes(raw: bytes, path: str = "<game>", *, verify: bool = True) -> tuple[Game, bytes]:
    """``read_game`` of a game file's bytes held in memory (a database, an upload): ``path`` names
    it in messages."""
    if not isinstance(raw, bytes):
        raise UsageError(f"game_from_bytes: raw must be bytes, not {type(raw).__name__}")
    if len(raw) > MAX_FILE_BYTES:
        raise _damaged(path, f"too large (more than {MAX_FILE_BYTES:,} bytes)")
    # CRLF line ends (a file saved by a Windows editor) are read as LF before anything else, the
    # checksum included: it then covers the content, and any edit but the line ends is still refused
    if b"\r" in raw:  # a search, cheaper than copying a long file that has none
        raw = raw.replace(b"\r\n", b"\n")
    body = unseal(raw, path, verify=verify)
    try:
        text = decode(body, path)
        layout = gamefile.split(text)
        top = parse_yaml(layout.top, path) if layout is not None else None
        if not (isinstance(top, dict) and top.get("version") == 3 and not isinstance(top.get("version"), bool)):
            layout = None
        if layout is None:
            return game_from_data(parse_yaml(text, path), path, upgrade=not verify), raw[len(body):]
    except LoadError as exc:
        raise _load_error(exc, path) from None
    return _game_from_layout(text, top, layout, path, verify=verify), raw[len(body):]


def _load_error(exc: LoadError, path: str) -> InputError:
    if exc.problem.startswith("not valid YAML"):
        return _damaged(path, f"not valid YAML (line {exc.line}){exc.problem[len('not valid YAML'):]}", _At(exc.line))
    return _damaged(path, exc.problem, _At(exc.line)) if exc.line else exc


_TOP_SCHEMA = Fields({**{k: v for k, v in GAME_SCHEMA.fields.items() if k not in ("boards", "history", "end")},
                      "latest": MapOf(Text(), Opt(_BOARD)), "checked": Text()},
                     required=("format", "version", "map", "latest", "checked"))
"""The top of a format-3 file, above its sections (``gamefile``)."""


def _game_from_layout(text: str, top: dict, layout: gamefile.Layout, path: str, *, verify: bool) -> Game:
    """A format-3 game. When the top's ``checked`` digest matches the sections (and the checksum was
    verified), the fought boards and the history passed every check when they were written and are
    read only when needed; otherwise the whole file is read and checked, as format 2 is."""
    _check_version(top, path, upgrade=not verify)
    if not text.endswith(f"\nend: {FORMAT}\n"):
        raise _damaged(path, "it ends early (the closing 'end' line is missing): the file was cut short")
    if layout.problem:
        raise _damaged(path, layout.problem)
    try:
        _TOP_SCHEMA.check(top, "", path, 1)
    except LoadError as exc:
        raise _shape_error(exc, path) from None
    latest = top.get("latest") or {}
    names = [str(n) for n in latest]
    players = [str(p) for p in top.get("players") or ()]
    fast = verify and str(top["checked"]) == checked_digest(str(top["map"]), players, names, layout.sections)
    if not fast:
        return game_from_data(_whole_document(top, layout, path), path, upgrade=not verify)
    m, mv = _header(top, path)
    ready = {}
    units: dict = {}
    for name, data in latest.items():
        if "record" in (data or {}):
            raise _damaged(path, f"board {name} is its timeline's last board but has a record", name)
        board = _read_board(name, data or {}, mv, path, units)
        if board.key in ready:
            raise _damaged(path, "two boards with the same name", name)
        ready[board.key] = board
    stored: dict[tuple[int, int], gamefile.Stored] = {}
    for item in layout.past:
        key = _written_key(item.name, path)
        if board_name(*key) != item.name:
            raise _damaged(path, f"line {item.line}: board name {quoted(item.name)} is not written as fivedp writes it")
        if key in stored or key in ready:
            raise _damaged(path, f"line {item.line}: board {item.name} is written twice")
        stored[key] = item
    if not ready:
        raise _damaged(path, "no boards", latest)
    if len(ready) + len(stored) > MAX_BOARDS:
        raise _damaged(path, f"{len(ready) + len(stored):,} boards (the limit is {MAX_BOARDS:,})")
    reader = _PastReader(path, units)
    boards = LazyBoards(ready, stored, reader.board)
    mv = replace(mv, boards=boards)
    reader.mv = mv  # recorded orders are fully designated: they need the map and options, no board
    pending = {str(p): [str(x) for x in lines or ()] for p, lines in (top.get("pending") or {}).items()}
    history = gamefile.StoredHistory(layout.history, path)
    game = Game(_without_ghosts(mv, history), pending, history, plain(top.get("start") or {}))
    check_game(game, path, checked=frozenset(stored))
    return game


class _PastReader:
    """Builds a fought board from its line of the ``past`` section when the board is first needed."""

    def __init__(self, path: str, units: dict):
        self.path = path
        self.units = units  # the units read so far, by text and power
        self.mv: Multiverse | None = None

    def board(self, key: tuple[int, int], item: gamefile.Stored) -> Board:
        data = on_line(gamefile.parse_line(item, self.path), item.line)
        try:
            _BOARD.check(data, f"past.{item.name}", self.path, item.line)
        except LoadError as exc:
            raise _shape_error(exc, self.path) from None
        if not isinstance(data, dict) or "record" not in data:
            raise _damaged(self.path, f"board {item.name} has no record, but later boards of its timeline exist",
                           _At(item.line))
        assert self.mv is not None
        return _with_record(_read_board(item.name, data, self.mv, self.path, self.units), item.name, data, self.mv,
                            self.path)


def _whole_document(top: dict, layout: gamefile.Layout, path: str) -> dict:
    """A format-3 file as the one document ``game_from_data`` checks in full: the latest and the
    past boards together as ``boards``, the history lines as ``history``."""
    try:
        _TOP_SCHEMA.check(top, "", path, 1)
    except LoadError as exc:
        raise _shape_error(exc, path) from None
    latest = top.get("latest") or {}
    items = [(k, v, value_line(latest, k)) for k, v in latest.items()]
    seen = {str(k): value_line(latest, k) for k in latest}
    for item in layout.past:
        if item.name in seen:
            raise _damaged(path, f"board {item.name} is written twice (lines {seen[item.name]} and {item.line})")
        seen[item.name] = item.line
        items.append((on_line(item.name, item.line), on_line(gamefile.parse_line(item, path), item.line), item.line))
    first = layout.past[0].line if layout.past else 1
    data = {k: v for k, v in top.items() if k not in ("latest", "checked")}
    data["boards"] = lined_map(items, first)
    data["history"] = lined_list([(on_line(gamefile.parse_line(h, path), h.line), h.line) for h in layout.history],
                                 layout.history[0].line if layout.history else first)
    data["end"] = FORMAT
    return data


def _shape_error(exc: LoadError, path: str) -> InputError:
    missing = re.match(r"missing key '(?:.*\.)?([^.']+)'", exc.problem)
    shape = f" (missing '{missing[1]}')" if missing else ""
    return _damaged(path, f"a key has content of the wrong shape{shape}: {exc.problem}", _At(exc.line))


def _check_version(data: Any, path: str, *, upgrade: bool) -> None:
    """The file is a game file of a format this fivedp reads (format 1 only to upgrade it)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        line = value_line(data, "format") if isinstance(data, dict) and "format" in data else 1
        raise InputError(f"{path}: not a fivedp game file (line {line}: no 'format: {FORMAT}')")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _damaged(path, "no version", version)
    if version > VERSION:
        raise InputError(f"{path}: written by a newer version of fivedp (game format {version}); "
                         f"this one reads format {VERSION}: upgrade fivedp")
    if version < 1 or (version not in READS and not upgrade):
        raise _damaged(path, f"unknown game format version {version} (this fivedp writes format {VERSION})")


def _header(data: dict, path: str) -> tuple[GameMap, Multiverse]:
    """The map and a multiverse without boards: options, forks, players, standing, sustain."""
    if not data.get("map"):
        raise _damaged(path, "no map", data.get("map"))
    try:
        m = load_map(str(data["map"]))
    except InputError as exc:
        raise _damaged(path, f"map: {exc}", data["map"]) from None
    try:
        options = validated(plain(data.get("options") or {}))
    except InputError as exc:
        raise _damaged(path, f"options: {exc}", data.get("options")) from None
    forks = {}
    for t_name, forked_from in (data.get("forks") or {}).items():
        try:
            forks[parse_timeline(str(t_name))] = _board_key(str(forked_from), path)
        except NotationError as exc:
            raise _damaged(path, f"forks: {exc.problem}", t_name) from None
    players = tuple(_read_power(p, m, path) for p in data.get("players") or ())
    eliminated = frozenset(_read_power(p, m, path) for p in data.get("eliminated") or ())
    winner = _read_power(data["winner"], m, path) if data.get("winner") is not None else None
    try:
        sustain = _read_sustain(data.get("sustain"), path)
    except NotationError as exc:
        raise _damaged(path, f"sustain: {exc.problem}", data.get("sustain")) from None
    return m, Multiverse(m, MappingProxyType({}), MappingProxyType(forks), options,
                         players=players, eliminated=eliminated, winner=winner, **sustain)


def game_from_data(data: Any, path: str = "<game>", *, upgrade: bool = False) -> Game:
    """A game from the content of a game file as one document (``game_data``), read from YAML or
    JSON, checked in full; ``path`` names it in messages."""
    _check_version(data, path, upgrade=upgrade)
    if data.get("end") != FORMAT:
        last = max(getattr(data, "value_lines", {}).values(), default=1)
        raise _damaged(path, "it ends early (the closing 'end' line is missing): the file was cut short"
                       f" (its last top-level key read is on line {last})")
    try:
        GAME_SCHEMA.check(data, "", path, 1)
    except LoadError as exc:
        raise _shape_error(exc, path) from None
    if not data.get("map"):
        raise _damaged(path, "no map", data.get("map"))
    boards_data = data.get("boards") or {}
    if not boards_data:
        raise _damaged(path, "no boards", boards_data)
    if len(boards_data) > MAX_BOARDS:
        raise _damaged(path, f"{len(boards_data):,} boards (the limit is {MAX_BOARDS:,})", boards_data)
    m, mv = _header(data, path)
    # boards first (records are resolved against the boards that exist)
    units: dict = {}
    plain_boards = [_read_board(n, d or {}, mv, path, units) for n, d in boards_data.items()]
    if len({b.key for b in plain_boards}) != len(plain_boards):
        raise _damaged(path, "two boards with the same name", boards_data)
    mv = mv.with_boards(plain_boards)
    mv = mv.with_boards([_with_record(b, n, d or {}, mv, path) for b, (n, d) in zip(plain_boards, boards_data.items())])
    pending = {str(p): [str(x) for x in lines or ()] for p, lines in (data.get("pending") or {}).items()}
    history = tuple(plain(data.get("history") or ()))
    game = Game(_without_ghosts(mv, history), pending, history, plain(data.get("start") or {}))
    check_game(game, path)
    return game


def _without_ghosts(mv: Multiverse, history: Sequence[Any]) -> Multiverse:
    """The multiverse without units and centres, on its heads, of the powers a recorded step
    eliminated. Earlier versions of fivedp left them where a fork of a board from before the
    elimination brought them back, and then refused the file they had written; the rules remove them
    (docs/rules.md §8), and so does reading such a file. A power the file calls eliminated that no
    step eliminated (a hand edit) is left as it is, for the consistency checks to refuse."""
    if not mv.eliminated:
        return mv
    entries = history.entries_with('"eliminated"') if isinstance(history, StoredHistory) else history
    by_steps = {str(p) for e in entries if isinstance(e, Mapping) for p in e.get("eliminated") or ()}
    return mv.standing(mv.eliminated, mv.winner) if mv.eliminated <= by_steps else mv


@dataclass(frozen=True)
class _At:
    """A bare line number, for a message about a value that did not carry one."""
    line: int


# -- a game as a scenario ----------------------------------------------------------------------


def export_scenario(game: Game, scenario_id: str) -> dict:
    """The game as a scenario: its start and every step's orders, with the results it got as expectations.
    A line written by two powers with different results is left out of the expectations (results are
    keyed by the line's text)."""
    steps = []
    for h in game.history:
        seen: dict[str, set] = {}
        for r in h.get("results", ()):
            seen.setdefault(r["order"], set()).add(r["result"])
        results = {text: next(iter(got)) for text, got in seen.items() if len(got) == 1}
        steps.append({"orders": h.get("orders", {}), "expect": {"results": results}})
    start = {k: v for k, v in game.start.items() if k != "phase" or v != Phase.MOVEMENT}
    scenario: dict[str, Any] = {"id": scenario_id, "title": "Exported game",
                            "description": "Exported from a game file; the expectations are the results the game recorded."}
    if game.mv.game_map.source != "standard":
        scenario["map"] = game.mv.game_map.source
    scenario.update({"options": game.mv.options.document(), "start": start, "steps": steps})
    return scenario


def start_of(game: Game) -> Multiverse:
    """The position the game began with (``Game.start``), read as a scenario's start is read (a start
    no scenario could hold is an InputError): the multiverse ``game.play.undo`` replays the game from."""
    return read_start(export_scenario(game, "undo"), game.mv.game_map, game.mv.options, "<the game's start>")
