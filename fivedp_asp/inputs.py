"""The one guarded way in for files and text from outside: scenarios, maps, game files, order files.

Every input path reads through here so that bad input ends as an ``InputError`` naming the file and
line (exit 2), never as a traceback, a hang or a silent misreading:

- files are capped in size (``limits.MAX_FILE_BYTES``) and must be UTF-8 (the message names the
  line and column of the first bad byte);
- YAML aliases are refused (an alias bomb expands a few hundred bytes into gigabytes), nesting is
  capped (``limits.MAX_DEPTH``), duplicate keys are refused (YAML would silently keep the last),
  integers longer than ``limits.MAX_NUMBER_DIGITS`` digits are refused at their line;
- every loaded value remembers its line: strings and integers carry it (``_Str``/``_Int``),
  lists and mappings carry their own line and those of their items (``_Seq``/``_Map``), so a type
  check deep in a document can still say where the bad value was written;
- ``check`` holds a document to a small schema (``Fields``, ``MapOf``, ``ListOf``, ``Whole`` ...)
  and names the key path, the line and what was expected.

YAML goes through libyaml when PyYAML has it (``_parse_c``: about ten times faster on long game files),
else through the pure-Python parser (``_parse_python``); both hold every guard above.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Mapping

import yaml

from .errors import FileError, InputError, UsageError, quoted, shown_path
from .limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_NUMBER_DIGITS, MAX_ORDERS


class LoadError(InputError):
    """Bad input at a known place: ``file:line: problem``."""

    def __init__(self, path: str, line: int, problem: str):
        self.path, self.line, self.problem = path, line, problem
        name = shown_path(path)
        super().__init__(f"{name}:{line}: {problem}" if line else f"{name}: {problem}")


# -- text ------------------------------------------------------------------------------------------


def decode(data: bytes, path: str) -> str:
    """UTF-8 text, or a LoadError naming the line and column of the first byte that is not."""
    if len(data) > MAX_FILE_BYTES:
        raise LoadError(path, 0, f"too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise LoadError(path, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def path_name(path: Any, what: str = "file") -> str:
    """The name of a file given as ``str`` or ``os.PathLike``, checked: a name with a NUL character
    (which no file can have) is an InputError naming it, any other type a UsageError."""
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        name = os.fspath(path)
        if isinstance(name, str):
            if "\0" in name:
                shown = shown_path(name.replace("\0", "\\0"))
                raise InputError(f"{shown}: not a file name (the {what}'s name holds a NUL character)")
            if not name:
                raise InputError(f"the {what}'s name is empty")
            return name
    raise UsageError(f"the {what} must be given as a str or a path (os.PathLike), not {type(path).__name__}")


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> str | None:
    """What a file of this mode is, when it is not a regular file (None for a regular one)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | Path, what: str = "file", limit: int = MAX_FILE_BYTES + 1) -> bytes:
    """A file's bytes, at most one byte past the size cap (so that a caller can tell it is too large).

    The file is opened without blocking and refused at once unless it is a regular file: opening a
    FIFO nobody writes to would wait forever, and a device (``/dev/zero``) never ends. What is
    checked is the file opened (``fstat``), so a file swapped between a check and the open cannot
    slip through. Symbolic links are followed. ``limit``: read at most this many bytes (a sniff of
    the file's start)."""
    name = path_name(path, what)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise FileError(name, f"cannot read the {what}: {exc.strerror or exc}", exc.errno) from None
    try:
        kind = _not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise FileError(name, f"cannot read the {what}: it is {kind}, not a regular file")
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(name, f"cannot read the {what}: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.close(fd)


def read_text(path: str | Path, what: str = "file") -> str:
    """A file's text, size-capped and UTF-8 checked."""
    return decode(read_bytes(path, what), str(path))


def read_stream(stream: BinaryIO, name: str = "<stdin>") -> str:
    """Text from a byte stream (standard input), with the same checks as a file."""
    return decode(stream.read(MAX_FILE_BYTES + 1), name)


def read_order_text(path: str | Path) -> str:
    """An order file (``--file F``): a regular file as every file is read, or a stream the user named on
    purpose, a FIFO or character device (``--file <(make_orders)``, ``--file /dev/stdin``), read to its
    end as standard input is, with the same size cap: a game or scenario file is never read that way."""
    name = path_name(path, "order file")
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return read_text(path, "order file")  # the error, with the file named
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return read_text(path, "order file")
    try:
        with open(name, "rb") as stream:
            return read_stream(stream, name)
    except OSError as exc:
        raise FileError(name, f"cannot read the order file: {exc.strerror or exc}", exc.errno) from None


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
"""A control character, but a tab."""


def check_order_lines(lines: list[str]) -> None:
    """The checks every order line from outside passes, from the command line or the API: at most
    ``limits.MAX_ORDERS`` lines, each UTF-8 text (no lone surrogate) without control characters
    (a tab is allowed): a line break inside a line would be one order read as two by the next reader."""
    if len(lines) > MAX_ORDERS:
        raise InputError(f"{len(lines):,} order lines (the limit is {MAX_ORDERS:,})")
    for n, line in enumerate(lines, 1):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"order line {n}: not UTF-8 text") from None
        bad = _CONTROL.search(line)
        if bad is not None:
            raise InputError(f"order line {n} {quoted(line, 40)}: control character at column {bad.start() + 1}")


# -- writing ---------------------------------------------------------------------------------------


def write_target(path: str | Path, what: str = "file") -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the file a symbolic link leads to
    (written through, so that the link stays a link). Refused unless it is a regular file or does
    not exist yet: replacing a folder, a FIFO or a device by a file is never what was meant."""
    name = path_name(path, what)
    target = Path(os.path.realpath(name)) if os.path.islink(name) else Path(name)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise FileError(name, f"cannot write the {what}: {exc.strerror or exc}", exc.errno) from None
    kind = _not_regular(mode)
    if kind is not None:
        raise FileError(name, f"cannot write the {what}: it is {kind}, not a regular file")
    return target


def _same_file(a: str, b: str) -> bool:
    """Whether two names lead to one file: the same path once links are resolved, or one file under
    two names (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def output_target(path: str | Path, what: str = "file", *, force: bool = False,
                  reading: Iterable[str | Path] = ()) -> Path:
    """The file a command's output named ``path`` will be, checked before any work is done (drawing a
    game, exploring scenarios): a file the user saved is never replaced unasked.

    Refused, whatever ``force`` says: what ``write_target`` refuses (a folder, a FIFO, a device), and a
    file the command reads (``reading``: by its name, through a symbolic link or as a hard link),
    which the output would destroy. Refused unless ``force``: a file that is there, or a symbolic link
    to one, and a dangling symbolic link (with ``force``, its target is made and the link kept, as a
    game file behind a link is written). Returns the file written (a link's target)."""
    name = path_name(path, what)
    if not isinstance(force, bool):
        raise UsageError(f"force must be True or False, not {type(force).__name__}")
    if isinstance(reading, (str, os.PathLike)):
        raise UsageError("reading must be a list of file names, not one name")
    sources = [path_name(source, "file read") for source in reading]
    target = write_target(name, what)
    shown = shown_path(name)
    for source in sources:
        if _same_file(name, source):
            raise InputError(f"{shown}: the {what} cannot be written over {shown_path(source)}, the file it is made "
                             "from (name another file; --force never allows this)")
    if os.path.islink(name) and not os.path.lexists(target):
        if not force:
            raise InputError(f"{shown}: a symbolic link to {shown_path(target)}, which does not exist "
                             f"(use --force to write the {what} there, through the link)")
    elif os.path.lexists(name) and not force:
        raise InputError(_already_there(name, target))
    return target


def _already_there(name: str, target: Path) -> str:
    if os.path.islink(name):
        return (f"{shown_path(name)}: already exists (a symbolic link to {shown_path(target)}; use --force to "
                "replace that file)")
    return f"{shown_path(name)}: already exists (use --force to replace it)"


def write_output(path: str | Path, text: str, what: str = "file", *, force: bool = False,
                 reading: Iterable[str | Path] = ()) -> Path:
    """Writes a command's output file atomically (``write_file``) after the checks of ``output_target``,
    made again at the moment of writing: a file that appeared since the command began is kept unless
    ``force``, and the write itself never replaces one then (``write_file(replace=False)``)."""
    output_target(path, what, force=force, reading=reading)
    return write_file(path, text, what, replace=force)


def check_output_folder(folder: str | Path, patterns: Iterable[str], what: str = "folder", *,
                        force: bool = False) -> Path:
    """A folder a command writes files into (``--out DIR``), checked before any work: it must be a
    folder or not be there yet (it is made when the first file is written); unless ``force``, it must
    hold no file, link or dangling link matching one of ``patterns`` (``fnmatch`` patterns of the
    names this run may write), so that a run never replaces what an earlier run found."""
    name = path_name(folder, what)
    if not isinstance(force, bool):
        raise UsageError(f"force must be True or False, not {type(force).__name__}")
    if isinstance(patterns, str):
        raise UsageError("patterns must be a list of file name patterns, not one pattern")
    wanted = list(patterns)
    if os.path.lexists(name) and not os.path.isdir(name):
        kind = "a dangling symbolic link" if os.path.islink(name) else (
            _not_regular(os.stat(name).st_mode) or "a file")
        raise InputError(f"{shown_path(name)}: not a folder (it is {kind}); --out names the folder its files "
                         "are written into")
    if force or not os.path.isdir(name):
        return Path(name)
    try:
        there = sorted(entry.name for entry in os.scandir(name))
    except OSError as exc:
        raise FileError(name, f"cannot read the {what}: {exc.strerror or exc}", exc.errno) from None
    found = [entry for entry in there if any(fnmatch.fnmatchcase(entry, p) for p in wanted)]
    if found:
        more = f" and {len(found) - 1:,} more" if len(found) > 1 else ""
        raise InputError(f"{shown_path(name)}: already holds {shown_path(found[0])}{more}, which this run may "
                         "replace (use --force to replace them)")
    return Path(name)


def _new_file_mode(target: Path) -> int:
    """The mode the written file gets: the present file's, or what the umask gives a new file."""
    try:
        return os.stat(target).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_file(path: str | Path, text: str, what: str = "file", replace: bool = True) -> Path:
    """Writes ``text`` to ``path`` atomically; returns the file written (a symbolic link's target).

    A temporary file in the target's own folder (``.NAME.XXXXXXXX.tmp``) is written in full, synced
    to disk and renamed over the target, then the folder is synced: whatever fails or however the
    process ends, the target is the old file or the new one, never a part of one. Any failure (a
    full disk, no permission, a read-only file system, a folder that does not exist) removes the
    temporary file and raises a FileError naming ``path``.

    With ``replace`` false, a file (or link) at ``path`` is never replaced, not even one made a moment
    before: the temporary file is then linked to its name (``link`` fails on an existing name, where
    a rename would replace it), an InputError saying the file is there."""
    name = path_name(path, what)
    if not isinstance(replace, bool):
        raise UsageError(f"replace must be True or False, not {type(replace).__name__}")
    target = write_target(name, what)
    if not replace:
        if os.path.lexists(name):
            raise InputError(_already_there(name, target))
        target = Path(name)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{shown_path(name)}: cannot write the {what}: character {exc.object[exc.start]!r} "
                         "is not UTF-8") from None
    folder = target.parent if str(target.parent) else Path(".")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        try:
            os.fchmod(fd, _new_file_mode(target))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace or not _linked(tmp, name, target):
            os.replace(tmp, target)
            tmp = None
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise FileError(name, f"cannot write the {what}: {exc.strerror or exc}", exc.errno) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return target


def _linked(tmp: str, name: str, target: Path) -> bool:
    """Gives the written temporary file its name only if no file has that name (``write_file`` with
    ``replace`` false); the temporary name is left for the caller to remove. False on a file system
    without hard links (some network and FAT file systems), after one more look: the caller renames
    then, and the moment between the look and the rename is the only one left unguarded there."""
    try:
        os.link(tmp, target)
        return True
    except FileExistsError:
        raise InputError(_already_there(name, target)) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
    if os.path.lexists(target):
        raise InputError(_already_there(name, target))
    return False


# -- YAML with lines -------------------------------------------------------------------------------


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
        """libyaml's parser and composer with ``_Loader``'s constructors (about ten times faster).

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


# -- schemas ---------------------------------------------------------------------------------------


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
