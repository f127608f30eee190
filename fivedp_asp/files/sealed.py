"""Sealed orders: one power's orders for the next phase, kept out of every other command's output
until the phase is adjudicated.

They are kept beside the game file, in ``FILE.sealed`` (JSON, mode 0600), not in the game file: the
game file is shown to everyone (``game show`` prints its waiting orders), the sealed file is read
only by ``game adjudicate``, which takes each power's sealed set as that power's orders (it replaces
the power's open waiting ones). The file names the phase its sets are for (``game.state.phase_key``),
and keeps the sets the last adjudication opened under the phase they were for (``opened``): when
that step is undone, the game waits for that phase again and the sets are sealed again, not turned
into open orders everyone could read. Sets for any other phase (left by an adjudication interrupted
after saving, or sealed before an undo) are ignored. Sealing hides orders from fivedp's output, not
from a person who can read the folder's files: it is a convenience for a game master's machine, not
encryption.

This module reads and writes the file; ``files.store`` changes it together with the game, under the
game's lock.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Mapping

from ..errors import FileError, InputError, UsageError
from ..game.state import Game, earlier_keys, phase_key, phase_step
from ..game.table import Sealed
from ..inputs import write_file

FORMAT = "fivedp-sealed"
# a phase key as releases before the chained digest wrote it (``game.state.legacy_phase_key``)
_LEGACY_KEY = re.compile(rb'"phase": "[0-9]+-[0-9a-f]{8}"')
_LIMIT = 32 << 20  # the size cap of every input file (limits.MAX_FILE_BYTES)


def beside(game_file: str | Path, suffix: str) -> Path:
    """A file kept beside the game: beside the file a symbolic link leads to, as the game's lock is,
    so that every link to one game shares it."""
    if not isinstance(game_file, (str, os.PathLike)):
        raise UsageError(f"the game file must be a str or a path, not {type(game_file).__name__}")
    path = Path(game_file)
    if os.path.islink(path):
        path = Path(os.path.realpath(path))
    return path.with_name(path.name + suffix)


def sealed_path(game_file: str | Path) -> Path:
    return beside(game_file, ".sealed")


def raw_sealed(game_file: str | Path) -> bytes | None:
    """The sealed file's bytes, None when there is none. Only a regular file is read, and never
    through a symbolic link: a link planted where the sealed orders belong would lead them, or lead
    fivedp's reading, somewhere else."""
    path = sealed_path(game_file)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise FileError(path, "the sealed orders are a symbolic link, not a file: sealed orders are kept "
                                  "only in a regular file beside the game; remove the link") from None
        raise FileError(path, f"cannot read the sealed orders: {exc.strerror or exc}", exc.errno) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileError(path, "cannot read the sealed orders: not a regular file")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > _LIMIT:
                raise FileError(path, f"damaged sealed orders: larger than {_LIMIT:,} bytes")
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(path, f"cannot read the sealed orders: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.close(fd)


def parse_sealed(raw: bytes | None, game_file: str | Path, phase: str, earlier: Mapping[str, str] | None = None) -> Sealed:
    """The sealed sets for ``phase``: those sealed for it, or those the last adjudication opened for
    it (the step has been undone); none when there is no file or it holds sets for other phases
    (``Sealed.for_phase``). ``earlier`` maps the keys an earlier release gave phases to their keys
    now (``game.state.earlier_keys``): a file such a release sealed names its phases so."""
    if raw is None:
        return Sealed(phase, {})
    path = sealed_path(game_file)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: damaged sealed orders: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: damaged sealed orders: not valid JSON (line {exc.lineno})") from None
    if isinstance(data, dict) and "phase" not in data and isinstance(data.get("step"), int):
        # sealed by an earlier fivedp, which named the number of steps played only
        data = {**data, "phase": phase if data["step"] == phase_step(phase) - 1 else ""}
    opened = data.get("opened") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != FORMAT or not _sets(data)
            or not (opened is None or _sets(opened))):
        raise InputError(f"{path}: damaged sealed orders (expected format {FORMAT}, a phase and orders per power)")
    keys = earlier or {}
    stored = Sealed(keys.get(data["phase"], data["phase"]), _orders(data),
                    None if opened is None else keys.get(opened["phase"], opened["phase"]),
                    {} if opened is None else _orders(opened))
    return stored.for_phase(phase)


def _sets(data: object) -> bool:
    """Whether ``data`` is a phase key and order lines per power, as the file writes them."""
    orders = data.get("orders") if isinstance(data, dict) else None
    return (isinstance(data, dict) and isinstance(data.get("phase"), str) and isinstance(orders, dict)
            and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in orders.values()))


def _orders(data: dict) -> dict[str, tuple[str, ...]]:
    return {str(p): tuple(v) for p, v in data["orders"].items()}


def read_sealed(game_file: str | Path, phase: str) -> Sealed:
    """The sealed sets for ``phase`` as the file holds them now (``parse_sealed``)."""
    return parse_sealed(raw_sealed(game_file), game_file, phase)


def sealed_of(raw: bytes | None, game_file: str | Path, game: Game) -> Sealed:
    """The sealed sets for the phase ``game`` waits for (``parse_sealed``), a file sealed by an
    earlier release read with its keys converted: those naming the phase waiting, or the phase
    before the last step (opened sets, sealed again if that step is undone), are taken as these
    phases; a key of an earlier release names only the step number and the last step, so it is
    trusted only for a game that has not moved since it was written."""
    if not isinstance(game, Game):
        raise UsageError(f"sealed_of: game must be a Game, not {type(game).__name__}")
    earlier = earlier_keys(game) if raw is not None and _LEGACY_KEY.search(raw) else None
    return parse_sealed(raw, game_file, phase_key(game), earlier)


def sealed_text(sealed: Sealed) -> str:
    """The sets as the sealed file writes them (JSON); ``parse_sealed`` reads it back."""
    data: dict = {"format": FORMAT, "phase": sealed.phase,
                  "orders": {p: list(v) for p, v in sorted(sealed.orders.items())}}
    if sealed.opened:
        data["opened"] = {"phase": sealed.opened_phase, "orders": {p: list(v) for p, v in sorted(sealed.opened.items())}}
    return json.dumps(data, indent=1) + "\n"


def write_sealed(game_file: str | Path, sealed: Sealed) -> None:
    """Writes the sealed sets atomically, readable by their owner only; no sets removes the file.
    Called under the game's lock (``files.store``)."""
    path = sealed_path(game_file)
    if os.path.islink(path):
        raise FileError(path, "the sealed orders are a symbolic link, not a file: sealed orders are kept only "
                              "in a regular file beside the game; remove the link")
    if not sealed.orders and not sealed.opened:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise FileError(path, f"cannot remove the sealed orders: {exc.strerror or exc}", exc.errno) from None
        return
    text = sealed_text(sealed)
    old = os.umask(0o077)  # a new sealed file is for its owner's eyes only
    try:
        write_file(path, text, "sealed orders")
        os.chmod(path, 0o600)
    except OSError as exc:
        if isinstance(exc, FileError):
            raise
        raise FileError(path, f"cannot write the sealed orders: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.umask(old)
