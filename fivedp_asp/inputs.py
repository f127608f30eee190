"""The one guarded way in for files and text from outside, and out for files written: scenarios, maps,
game files, order files, pictures, studies.

Every input path reads through here so that bad input ends as an ``InputError`` naming the file and
line (exit 2), never as a traceback, a hang or a silent misreading: files are capped in size
(``limits.MAX_FILE_BYTES``), must be regular files and UTF-8 (the message names the line and column
of the first bad byte). Every file written is written whole or not at all (``write_file``), and an
output replaces a file already there only when asked (``write_output``). YAML is read by
``yaml_lines.py`` and held to its shape by ``shapes.py``.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from .errors import FileError, InputError, UsageError, quoted, shown_path
from .limits import MAX_FILE_BYTES, MAX_ORDERS


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
