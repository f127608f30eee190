"""Sealed orders: one power's orders for the next phase, kept out of every other command's output
until the phase is adjudicated.

They are kept beside the game file, in ``FILE.sealed`` (JSON, written atomically under the game's
lock, mode 0600), not in the game file: the game file is shown to everyone (``game show`` prints its
waiting orders), the sealed file is read only by ``game adjudicate``, which takes each power's sealed
set as that power's orders (it replaces the power's open waiting ones) and removes the file once the
step is saved. Each sealed set names the step it is for (the number of steps played when it was
sealed): a set left behind by an adjudication interrupted after saving is for a step already played,
and is ignored and removed. Sealing hides orders from fivedp's output, not from a person who can
read the folder's files: it is a convenience for a game master's machine, not encryption.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..errors import InputError
from .games import locked, write_atomic

FORMAT = "fivedp-sealed"


@dataclass(frozen=True)
class Sealed:
    """The sealed order sets for one step: ``step`` is the number of steps played when they were sealed."""

    step: int
    orders: Mapping[str, tuple[str, ...]]


def sealed_path(game_file: str | Path) -> Path:
    game_file = Path(game_file)
    return game_file.with_name(game_file.name + ".sealed")


def read_sealed(game_file: str | Path, step: int) -> Sealed:
    """The sealed sets for the step after ``step`` steps played (none when the file is absent or holds
    sets for another step)."""
    path = sealed_path(game_file)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Sealed(step, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the sealed orders: {exc}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: damaged sealed orders: not valid JSON (line {exc.lineno})") from None
    orders = data.get("orders") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("step"), int)
            or not isinstance(orders, dict)
            or not all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in orders.values())):
        raise InputError(f"{path}: damaged sealed orders (expected format {FORMAT}, a step and orders per power)")
    if data["step"] != step:
        return Sealed(step, {})
    return Sealed(step, {str(p): tuple(v) for p, v in orders.items()})


def _write(game_file: str | Path, sealed: Sealed) -> None:
    path = sealed_path(game_file)
    if not sealed.orders:
        path.unlink(missing_ok=True)
        return
    text = json.dumps({"format": FORMAT, "step": sealed.step,
                       "orders": {p: list(v) for p, v in sorted(sealed.orders.items())}}, indent=1) + "\n"
    old = os.umask(0o077)  # a new sealed file is for its owner's eyes only
    try:
        write_atomic(path, text)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)


def seal(game_file: str | Path, power: str, lines: list[str], step: int) -> Sealed:
    """Stores ``lines`` as ``power``'s sealed orders for the step after ``step`` (replacing its earlier
    sealed set; no lines withdraws it), under the game's lock."""
    with locked(game_file):
        current = read_sealed(game_file, step)
        orders = {p: v for p, v in current.orders.items() if p != power}
        if lines:
            orders[power] = tuple(lines)
        new = Sealed(step, orders)
        _write(game_file, new)
        return new


def clear(game_file: str | Path) -> None:
    """Removes the sealed orders (after the step they were for has been saved)."""
    with locked(game_file):
        sealed_path(game_file).unlink(missing_ok=True)
