"""The layout of a game file of format 3: what changes at the top, what only grows below.

A game file is one YAML document (docs/game-format.md). In format 3 it has three parts:

- the *top*, plain block YAML: format, version, map, options, players, standing, forks, start, the
  waiting orders and each timeline's latest board — everything a command may change;
- two *append-only sections*: ``past:``, one line per fought board, and ``history:``, one line per
  step played, each line a JSON object (JSON is YAML's flow style, so the file stays one YAML
  document). A fought board and a played step never change, so a command copies these lines as
  they are and a step only appends to them;
- ``end: fivedp-game`` and the checksum line.

Reading a long game therefore parses the small top as YAML and only splits the sections into
lines: a line is parsed (``json``) when the board or step on it is first needed. The top's
``checked`` line is a digest of the sections as they were when every check last passed over them
(``checked_digest``); while it matches, the consistency checks of ``integrity`` need not read them
again (see docs/game-format.md, "Integrity").
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from ..errors import InputError, quoted
from ..limits import MAX_DEPTH, MAX_NUMBER_DIGITS
from ..yaml_lines import json_line

PAST, HISTORY, END = "past", "history", "end"
_PAST_LINE = re.compile(r"  ([a-z][a-z0-9]*(?:@[0-9]+)?): (\{.*\})\Z")


@dataclass(frozen=True)
class Stored:
    """One line of a section: the board's name (past) or None (history), its line number in the
    file, and its JSON text, parsed only when needed."""

    name: str | None
    line: int
    text: str


@dataclass(frozen=True)
class Layout:
    """A format-3 file cut into its parts (nothing parsed yet but the split into lines)."""

    top: str  # the YAML before ``past:``
    sections: bytes  # from ``past:`` to the last history line, as the checked digest covers them
    past: tuple[Stored, ...]
    history: tuple[Stored, ...]
    problem: str | None = None  # a section line that is not as format 3 writes it, with its line


def split(text: str) -> Layout | None:
    """The parts of a format-3 file's text (the bytes the checksum covers), or None when the text
    has no ``past:`` section (an older format, or a file too damaged to tell)."""
    past_at = text.rfind("\npast:") + 1
    if past_at == 0:
        return None
    end_at = text.rfind("\nend:") + 1
    if end_at <= past_at:
        end_at = len(text)
    first_line = text.count("\n", 0, past_at) + 1
    lines = text[past_at:end_at].split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    past: list[Stored] = []
    history: list[Stored] = []
    problem = None
    section = None
    for i, line in enumerate(lines):
        number = first_line + i
        if line in ("past:", "past: {}") and section is None:
            section = PAST
        elif line in ("history:", "history: []") and section == PAST:
            section = HISTORY
        elif section == PAST and (m := _PAST_LINE.match(line)):
            past.append(Stored(m[1], number, m[2]))
        elif section == HISTORY and line.startswith("- {") and line.endswith("}"):
            history.append(Stored(None, number, line[2:]))
        else:
            problem = (f"line {number} is not a line of the '{section or PAST}' section "
                       f"({'one board per line: NAME: {...}' if section != HISTORY else 'one step per line: - {...}'})")
            break
    if problem is None and section != HISTORY:
        problem = "the 'history' section is missing"
    sections = text[past_at:end_at].encode("utf-8")
    return Layout(text[:past_at], sections, tuple(past), tuple(history), problem)


def checked_digest(map_name: str, players: Iterable[str], latest: Iterable[str], sections: bytes) -> str:
    """The digest the top's ``checked`` line holds: the sections, with what their checks depend on
    outside them (the map, the players, which boards are the latest ones)."""
    h = hashlib.sha256()
    h.update(f"fivedp-game 3\nmap: {map_name}\nplayers: {','.join(players)}\nlatest: {','.join(latest)}\n"
             .encode("utf-8"))
    h.update(sections)
    return f"sha256:{h.hexdigest()}"


class JsonRefused(ValueError):
    """JSON that parses but is beyond the bounds of :func:`load_json`; the message says which."""


def _json_int(text: str) -> int:
    if sum(ch.isdigit() for ch in text) > MAX_NUMBER_DIGITS:
        raise JsonRefused(f"a number of {len(text.lstrip('-')):,} digits is too large "
                          f"(at most {MAX_NUMBER_DIGITS} digits)")
    return int(text)


def _json_constant(text: str) -> Any:
    raise JsonRefused(f"{text} is not a JSON value")


def _json_object(pairs: list[tuple[str, Any]]) -> dict:
    data: dict = {}
    for key, value in pairs:
        if key in data:
            raise JsonRefused(f"duplicate key {quoted(key)} in one object")
        data[key] = value
    return data


def _json_depth(data: Any) -> int:
    """The deepest nesting of lists and objects in parsed JSON (walked without recursion)."""
    deepest = 0
    todo = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            todo.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return deepest


def load_json(text: str) -> Any:
    """JSON read with the guards YAML input has (``inputs``): a key twice in one object, an integer of
    more than ``MAX_NUMBER_DIGITS`` digits, ``NaN``/``Infinity`` and nesting deeper than ``MAX_DEPTH``
    raise JsonRefused; text that is not JSON raises ``json.JSONDecodeError``. Python's own reader
    would keep the last of two keys, read any number and recurse until it fails."""
    try:
        data = json.loads(text, parse_int=_json_int, parse_constant=_json_constant, object_pairs_hook=_json_object)
    except RecursionError:
        raise JsonRefused(f"nested more than {MAX_DEPTH} levels deep") from None
    if _json_depth(data) > MAX_DEPTH:
        raise JsonRefused(f"nested more than {MAX_DEPTH} levels deep")
    return data


def parse_line(item: Stored, path: str) -> Any:
    """A section line's JSON, or a damaged-file error naming the line."""
    try:
        return load_json(item.text)
    except JsonRefused as exc:
        raise InputError(f"{path}: damaged game file: line {item.line}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{path}: damaged game file: line {item.line}: not valid JSON: {exc}") from None


class StoredHistory(Sequence):
    """A game's history read from the file: each step's entry is parsed when it is first read.
    Adding entries (``+``) keeps the stored ones stored, so that writing the game copies their lines."""

    def __init__(self, stored: Sequence[Stored], path: str, added: tuple[dict, ...] = (), cache: dict | None = None):
        self._stored = tuple(stored)
        self._added = tuple(added)
        self._path = path
        self._cache: dict[int, Any] = {} if cache is None else cache

    def __len__(self) -> int:
        return len(self._stored) + len(self._added)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            start, stop, stride = index.indices(len(self))
            if start == 0 and stride == 1:
                # a beginning of the history (the game before its last steps) keeps its lines as stored,
                # so that it is written, and its phase key computed, from the same text
                kept = len(self._stored)
                return StoredHistory(self._stored[:stop], self._path, self._added[:max(0, stop - kept)], self._cache)
            return tuple(self[i] for i in range(start, stop, stride))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("history index out of range")
        if index >= len(self._stored):
            return self._added[index - len(self._stored)]
        if index not in self._cache:
            self._cache[index] = parse_line(self._stored[index], self._path)
        return self._cache[index]

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def entries_with(self, text: str) -> Iterator[Any]:
        """The entries whose line holds ``text`` (a key, say), parsed; the others stay unparsed."""
        for i, item in enumerate(self._stored):
            if text in item.text:
                yield self[i]
        yield from (entry for entry in self._added if text in json_line(entry))

    def __add__(self, other: Sequence) -> "StoredHistory":
        return StoredHistory(self._stored, self._path, self._added + tuple(other), self._cache)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StoredHistory({len(self)} steps)"

    def stored_line(self, index: int) -> str | None:
        """The JSON text of a stored entry, as the file has it (None for an added one)."""
        return self._stored[index].text if index < len(self._stored) else None
