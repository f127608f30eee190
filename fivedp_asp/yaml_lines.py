"""YAML read through its guards, each loaded value remembering the line it was written on.

- YAML aliases are refused (an alias bomb expands a few hundred bytes into gigabytes), nesting is
  capped (``limits.MAX_DEPTH``), duplicate keys are refused (YAML would silently keep the last),
  integers longer than ``limits.MAX_NUMBER_DIGITS`` digits are refused at their line;
- every loaded value remembers its line: strings and integers carry it (``_Str``/``_Int``),
  lists and mappings carry their own line and those of their items (``_Seq``/``_Map``), so a type
  check deep in a document (``shapes.py``) can still say where the bad value was written.

YAML goes through libyaml when PyYAML has it (``_parse_c``: far faster on long game files),
else through the pure-Python parser (``_parse_python``); both hold every guard above.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import yaml

from .errors import quoted
from .inputs import LoadError, read_text
from .limits import MAX_DEPTH, MAX_NUMBER_DIGITS


class _Str(str):
    line: int = 0


class _Int(int):
    line: int = 0


class _Seq(list):
    """A YAML list with its own line and the line of each item."""
    line: int = 0
    lines: list[int]


class _Map(dict):
    """A YAML mapping with its own line and, per key, the lines of the key and of the value."""
    line: int = 0
    key_lines: dict
    value_lines: dict


# characters JSON leaves as they are but YAML does not take raw: C1 controls (U+0085 is a YAML line
# break), the Unicode line and paragraph separators, and the two non-characters
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")


def json_line(value: Any) -> str:
    """A value as one line of JSON that YAML reads as the same value (non-ASCII text kept readable):
    how a game file writes each fought board and each step played."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


class TextDumper(yaml.SafeDumper):
    """PyYAML's safe dumper, writing every ``str`` subclass as plain text: the members of the closed
    sets of names (``model/kinds.py``, ``StrEnum``) and loaded strings carrying their line, which the
    safe dumper would refuse. The representer is this class's own, never PyYAML's global one."""


TextDumper.add_multi_representer(str, lambda dumper, value: dumper.represent_str(str(value)))


def dump_yaml(value: Any, **options: Any) -> str:
    """``yaml.safe_dump`` of ``value`` (with ``options``), names of closed sets written as their text."""
    return yaml.dump(value, Dumper=TextDumper, **options)


def line_of(value: Any) -> int:
    """The line a loaded value was written on (0 for values that cannot carry one: null, booleans)."""
    return getattr(value, "line", 0)


def key_line(data: Any, key: Any) -> int:
    """The line of ``key`` in a loaded mapping (0 when absent)."""
    return getattr(data, "key_lines", {}).get(key, 0)


def value_line(data: Any, key: Any) -> int:
    """The line of the value under ``key`` (or index) in a loaded mapping or list; else the key's."""
    if isinstance(data, _Seq):
        return data.lines[key] if isinstance(key, int) and 0 <= key < len(data.lines) else data.line
    lines = getattr(data, "value_lines", {})
    return lines.get(key) or key_line(data, key) or line_of(data)


def plain(value: Any) -> Any:
    """The same data without line numbers (for values written back out, as in game files)."""
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    return value


def plain_json(value: Any) -> Any:
    """A value as JSON holds it (tuples as lists, mapping proxies as objects)."""
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain_json(v) for v in value]
    return value


def on_line(value: Any, line: int) -> Any:
    """Data read from one line of a file by another parser (JSON) made to remember that line, as
    YAML-loaded data does, so that checks on it name the line."""
    if isinstance(value, Mapping):
        data = _Map()
        data.line = line
        data.key_lines, data.value_lines = {}, {}
        for k, v in value.items():
            key = on_line(k, line)
            data[key] = on_line(v, line)
            data.key_lines[key] = data.value_lines[key] = line
        return data
    if isinstance(value, list):
        seq = _Seq(on_line(v, line) for v in value)
        seq.line, seq.lines = line, [line] * len(seq)
        return seq
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        s = _Str(value)
        s.line = line
        return s
    if isinstance(value, int):
        n = _Int(value)
        n.line = line
        return n
    return value


def lined_map(items: list[tuple[Any, Any, int]], line: int) -> dict:
    """A mapping of (key, value, line) items, with those lines, written at ``line``."""
    data = _Map()
    data.line = line
    data.key_lines, data.value_lines = {}, {}
    for key, value, at in items:
        data[key] = value
        data.key_lines[key] = data.value_lines[key] = at
    return data


def lined_list(items: list[tuple[Any, int]], line: int) -> list:
    """A list of (value, line) items, with those lines, written at ``line``."""
    seq = _Seq(value for value, _ in items)
    seq.line, seq.lines = line, [at for _, at in items]
    return seq


class _Loader(yaml.SafeLoader):
    """SafeLoader refusing aliases, deep nesting, duplicate keys and overlong numbers; values keep lines."""

    def __init__(self, stream: str, path: str):
        super().__init__(stream)
        self.path = path
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise LoadError(self.path, event.start_mark.line + 1,
                            f"YAML aliases (*{event.anchor}) are not accepted: write the value out")
        if self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise LoadError(self.path, self.peek_event().start_mark.line + 1,
                                f"nested more than {MAX_DEPTH} levels deep")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1
        return super().compose_node(parent, index)


def _construct_str(loader: _Loader, node: yaml.ScalarNode) -> Any:
    s = _Str(loader.construct_scalar(node))
    s.line = node.start_mark.line + 1
    return s


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> Any:
    digits = sum(ch.isdigit() for ch in str(node.value))
    if digits > MAX_NUMBER_DIGITS:
        raise LoadError(loader.path, node.start_mark.line + 1,
                        f"number of {digits} digits is too large (at most {MAX_NUMBER_DIGITS} digits)")
    value = _Int(yaml.SafeLoader.construct_yaml_int(loader, node))
    value.line = node.start_mark.line + 1
    return value


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> Any:
    seq = _Seq()
    seq.line = node.start_mark.line + 1
    seq.lines = [item.start_mark.line + 1 for item in node.value]
    yield seq
    seq.extend(loader.construct_object(item, deep=True) for item in node.value)


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> Any:
    data = _Map()
    data.line = node.start_mark.line + 1
    data.key_lines, data.value_lines = {}, {}
    yield data
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise LoadError(loader.path, line, "a mapping key must be a plain value, not a list or mapping") from None
        if key in data:
            raise LoadError(loader.path, line, f"duplicate key {quoted(str(key))} (first on line {data.key_lines.get(key, '?')})")
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = line
        data.value_lines[key] = value_node.start_mark.line + 1


_Loader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)


_CSafeLoader = getattr(yaml, "CSafeLoader", None)


if _CSafeLoader is not None:
    class _CLoader(_CSafeLoader):  # type: ignore[misc, valid-type]
        """libyaml's parser and composer with ``_Loader``'s constructors (far faster than PyYAML's own).

        libyaml composes in C, out of reach of ``_Loader.compose_node``: ``_screen`` must pass the
        text first, so that no alias and no deep nesting ever reaches the C composer.
        """

        def __init__(self, stream: str, path: str):
            super().__init__(stream)
            self.path = path

    _CLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)
    _CLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _CLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
    _CLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def _screen(text: str, path: str) -> None:
    """Walk libyaml's events once, refusing an alias or nesting beyond the cap where ``_Loader``
    would (same message, same line), before anything is composed."""
    parser = _CSafeLoader(text)
    try:
        depth = 0
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                continue
            if kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                depth += 1
                if depth > MAX_DEPTH:
                    raise LoadError(path, event.start_mark.line + 1, f"nested more than {MAX_DEPTH} levels deep")
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                depth -= 1
            elif kind is yaml.AliasEvent:
                raise LoadError(path, event.start_mark.line + 1,
                                f"YAML aliases (*{event.anchor}) are not accepted: write the value out")
            elif kind is yaml.StreamEndEvent:
                return
    finally:
        parser.dispose()


def _parse_c(text: str, path: str) -> Any:
    """``parse_yaml`` through libyaml; any YAML error is left to the caller."""
    _screen(text, path)
    loader = _CLoader(text, path)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse_yaml(text: str, path: str) -> Any:
    """One YAML document from ``text``, guarded; ``path`` names it in messages.

    libyaml reads it when PyYAML has it. Should libyaml refuse the text for any reason, the
    pure-Python loader reads it again: bad input then gets the pure-Python parser's wording, and the
    two parsers' rare disagreements on odd YAML resolve to the same answer with or without libyaml.
    """
    if _CSafeLoader is not None:
        try:
            return _parse_c(text, path)
        except (yaml.YAMLError, LoadError, RecursionError, MemoryError, ValueError, OverflowError):
            pass
    return _parse_python(text, path)


def _parse_python(text: str, path: str) -> Any:
    """``parse_yaml`` through PyYAML's pure-Python parser, guarded in ``_Loader.compose_node``."""
    loader = None
    try:
        loader = _Loader(text, path)
        return loader.get_single_data()
    except LoadError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "unreadable"
        raise LoadError(path, mark.line + 1 if mark else 1, f"not valid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else 1
        reason = getattr(exc, "reason", None) or "unreadable"
        raise LoadError(path, line, f"not valid YAML: {reason}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise LoadError(path, 1, f"not valid YAML: {type(exc).__name__}") from None
    finally:
        if loader is not None:
            loader.dispose()


def load_yaml(path: str | Path, what: str = "file") -> Any:
    """A YAML file, read and parsed through every guard."""
    return parse_yaml(read_text(path, what), str(path))
