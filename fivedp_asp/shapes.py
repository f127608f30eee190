"""The shape a loaded document must have: ``check`` holds a value read by ``yaml_lines.py`` to a
small schema (``Fields``, ``MapOf``, ``ListOf``, ``Whole`` ...) and names the key path, the line and
what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from .errors import quoted
from .inputs import LoadError
from .yaml_lines import key_line, line_of, value_line


class Schema:
    """What a value must be; ``check`` raises a LoadError naming path and line."""

    def describe(self) -> str:
        raise NotImplementedError

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        raise NotImplementedError

    def fail(self, value: Any, where: str, path: str, line: int) -> LoadError:
        return LoadError(path, line_of(value) or line, f"{where} must be {self.describe()}, not {_kind(value)}")


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, int):
        return f"{value} (a number)" if len(str(value)) < 20 else "a number"
    if isinstance(value, str):
        return quoted(value, 40)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


@dataclass(frozen=True)
class Text(Schema):
    """A string; numbers are accepted as their text when ``numbers`` (ids such as ``6.A.1`` or ``12``)."""
    numbers: bool = False

    def describe(self) -> str:
        return "text"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        ok = isinstance(value, str) or (self.numbers and isinstance(value, (int, float)) and not isinstance(value, bool))
        if not ok:
            raise self.fail(value, where, path, line)


@dataclass(frozen=True)
class Whole(Schema):
    lo: int
    hi: int

    def describe(self) -> str:
        return f"a whole number from {self.lo} to {self.hi:,}"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or not self.lo <= value <= self.hi:
            raise self.fail(value, where, path, line)


@dataclass(frozen=True)
class Flag(Schema):
    def describe(self) -> str:
        return "true or false"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, bool):
            raise self.fail(value, where, path, line)


@dataclass(frozen=True)
class Choice(Schema):
    values: tuple[str, ...]

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, str) or value not in self.values:
            raise self.fail(value, where, path, line)


@dataclass(frozen=True)
class Anything(Schema):
    def describe(self) -> str:
        return "anything"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        return None


@dataclass(frozen=True)
class Scalar(Schema):
    """Text, a number or a boolean (option values)."""

    def describe(self) -> str:
        return "text, a number or a boolean"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, (str, int, float, bool)):
            raise self.fail(value, where, path, line)


@dataclass(frozen=True)
class Opt(Schema):
    """The inner schema, or empty (null)."""
    inner: Schema

    def describe(self) -> str:
        return self.inner.describe()

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if value is not None:
            self.inner.check(value, where, path, line)


@dataclass(frozen=True)
class ListOf(Schema):
    item: Schema

    def describe(self) -> str:
        return "a list"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, list):
            raise self.fail(value, where, path, line)
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i + 1}]", path, value_line(value, i) or line)


@dataclass(frozen=True)
class MapOf(Schema):
    key: Schema
    value: Schema

    def describe(self) -> str:
        return "a mapping"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, Mapping):
            raise self.fail(value, where, path, line)
        for k, v in value.items():
            self.key.check(k, f"a key of {where}", path, key_line(value, k) or line)
            self.value.check(v, f"{where}.{k}", path, value_line(value, k) or line)


@dataclass(frozen=True)
class Fields(Schema):
    """A mapping with known keys; unknown keys are refused, ``required`` ones must be there."""
    fields: Mapping[str, Schema]
    required: tuple[str, ...] = ()

    def describe(self) -> str:
        return "a mapping"

    def check(self, value: Any, where: str, path: str, line: int) -> None:
        if not isinstance(value, Mapping):
            raise self.fail(value, where, path, line)
        prefix = f"{where}." if where else ""
        for k in value:
            if not isinstance(k, str) or k not in self.fields:
                raise LoadError(path, key_line(value, k) or line,
                                f"unknown key {quoted(str(k))}{' in ' + where if where else ''} "
                                f"(known: {', '.join(sorted(self.fields))})")
        for k in self.required:
            if k not in value:
                raise LoadError(path, line_of(value) or line, f"missing key '{prefix}{k}'")
        for k, v in value.items():
            self.fields[k].check(v, f"{prefix}{k}", path, value_line(value, k) or line)
