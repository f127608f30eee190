"""The file store: a game file, the sealed orders and the undo log beside it, changed together.

Every command that changes a game goes through ``transact``, which reads the game without a lock,
lets the command work out its change (a function without side effects: it may run twice), then
takes the game's lock to write it. Under the lock it holds three promises (docs/game-format.md,
"Several commands at once"):

- **Nothing is lost.** A change is written only onto the very files it was worked out from: the game
  file's checksum line and the sealed orders are compared with what was read. If another command
  wrote either in between, the change is worked out again, under the lock, on what is there now, so
  two players submitting at once both count.
- **Nothing lands on a phase its author never saw.** A change is for one phase (``phase_key``: the
  step to play next and a digest chained over the start and every step played): the phase of the first read, or the one
  the caller names. When the game waits for another phase by the time the change would be written
  (a step adjudicated or undone in between), the change is refused with ``StalePhase``, naming the
  phase now waiting, and nothing is written.
- **What belongs together is written together.** Adjudicating opens the sealed sets, saves the step
  and removes them in one hold of the lock; undoing appends the step to the undo log and saves the
  game in one hold (the log is cut back when the save fails). A process killed between the two
  writes leaves the game whole and sealed sets for a phase that no longer waits, which are ignored.

Readers take no lock: every write replaces a file in one rename, so a reader sees the old file or
the new one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Generic, TypeVar

from ..errors import FileError, InputError, UsageError
from ..game.play import waiting_for
from ..game.state import Game, phase_key, phase_step
from .games import game_text, locked, read_game, write_atomic, checksum_line
from ..game.table import Sealed
from .sealed import beside, raw_sealed, sealed_of, sealed_path, write_sealed

T = TypeVar("T")


class StalePhase(InputError):
    """A change worked out for one phase, refused because the game now waits for another."""


@dataclass(frozen=True)
class Change(Generic[T]):
    """What a command's change makes of the game: ``result`` for the command to report, the new game
    (None: unchanged), the new sealed sets (None: unchanged) and a record for the undo log (None:
    nothing to log)."""

    result: T
    game: Game | None = None
    sealed: Sealed | None = None
    undone: dict | None = None


@dataclass(frozen=True)
class _Read:
    """The files as one read found them."""

    game: Game
    checksum: bytes
    sealed_raw: bytes | None

    def sealed(self, path: Path) -> Sealed:
        return sealed_of(self.sealed_raw, path, self.game)


def _read(path: Path) -> _Read:
    game, checksum = read_game(path)
    return _Read(game, checksum, raw_sealed(path))


def undo_log_path(game_file: str | Path) -> Path:
    return beside(game_file, ".undone")


def _stale(path: Path, game: Game, wanted: str | int, doing: str) -> StalePhase:
    """The refusal of a change for phase ``wanted`` (a key, or a step number) of a game now waiting for another."""
    then = wanted if isinstance(wanted, int) else phase_step(wanted)
    now = len(game.history) + 1
    if now > then:
        happened = f"step {then} has been adjudicated" if now == then + 1 else f"steps {then} to {now - 1} have been played"
    elif now < then:
        happened = (f"step {now} has been taken back (undo)" if now == then - 1
                    else f"steps {now} to {then - 1} have been taken back")
    else:
        happened = f"step {now - 1} has been taken back and played again" if now > 1 else "the game has been started anew"
    return StalePhase(f"{path}: the game has moved on: {happened}, and it now waits for step {now} "
                      f"({waiting_for(game.mv)}); {doing.format(step=then, last=then - 1)}, so nothing was done: look at "
                      "the game again and repeat what still makes sense")


def _check_phase(path: Path, game: Game, wanted: str | int, doing: str) -> None:
    if isinstance(wanted, int):
        if len(game.history) + 1 != wanted:
            raise _stale(path, game, wanted, doing)
    elif phase_key(game) != wanted:
        raise _stale(path, game, wanted, doing)


def transact(path: str | Path, change: Callable[[Game, Sealed], Change[T]], *, phase: str | int | None = None,
             doing: str = "the change was worked out for step {step}") -> tuple[Game, Change[T]]:
    """Works out ``change`` on the game and its sealed sets and writes what it returns, as the module
    docstring says. ``phase``: the phase the change is for, a phase key or a step number (None: the
    phase the game waits for when it is first read). ``doing`` says in the refusal of a stale change
    what was refused, with ``{step}`` for the step it was for and ``{last}`` for the one before
    (``"these orders were given for step {step}"``). Returns the game as written (or as read, when the change left it)
    and the change."""
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"transact: path must be a str or a path, not {type(path).__name__}")
    if phase is not None and (isinstance(phase, bool) or not isinstance(phase, (str, int))):
        raise UsageError(f"transact: phase must be a phase key or a step number, not {type(phase).__name__}")
    path = Path(path)
    first = _read(path)
    wanted = phase if phase is not None else phase_key(first.game)
    _check_phase(path, first.game, wanted, doing)
    done = change(first.game, first.sealed(path))
    with locked(path):
        if checksum_line(path) == first.checksum and raw_sealed(path) == first.sealed_raw:
            _commit(path, done)
            return done.game or first.game, done
        # another command wrote in between: the change is worked out again on what is there now
        now = _read(path)
        _check_phase(path, now.game, wanted, doing)
        done = change(now.game, now.sealed(path))
        _commit(path, done)
        return done.game or now.game, done


def _commit(path: Path, done: Change) -> None:
    """Writes a change under the lock: the undo log first (cut back if the game cannot be saved),
    then the game, then the sealed sets."""
    if done.game is not None:
        text = game_text(done.game)
        cut = _append_undo(path, done.undone) if done.undone is not None else None
        try:
            write_atomic(path, text)
        except BaseException:
            if cut is not None:
                cut()
            raise
    if done.sealed is not None:
        write_sealed(path, done.sealed)


def _append_undo(path: Path, entry: dict) -> Callable[[], None]:
    """Appends one line to the undo log (``FILE.undone``) and syncs it; returns what cuts the log back
    to where it was. A line is written whole or not at all: a failed write (a full disk) is cut back at
    once, and a log whose last line was cut short by an earlier fivedp gets a line end before the new
    line, so that every line but a cut one stays readable JSON."""
    log = undo_log_path(path)
    record = {"format": "fivedp-undone", "undone_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              **entry}
    line = (json.dumps(record, sort_keys=False) + "\n").encode("utf-8")
    if os.path.islink(log):
        raise FileError(log, "the undo log is a symbolic link, not a file: remove the link")
    try:
        fd = os.open(log, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise FileError(log, f"cannot write the undo log: {exc.strerror or exc}", exc.errno) from None
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError as exc:
            os.ftruncate(fd, size)
            raise FileError(log, f"cannot write the undo log: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.close(fd)

    def cut() -> None:
        try:
            os.truncate(log, size)
        except OSError:
            pass  # the log keeps a line for an undo that was not saved; the game itself is whole

    return cut


def create(path: str | Path, game: Game, *, force: bool = False) -> None:
    """Writes a new game, under the lock; an existing game file is replaced only with ``force``, and
    then the old game's sealed sets go with it (they were for another game)."""
    if not isinstance(game, Game):
        raise UsageError(f"create: game must be a Game, not {type(game).__name__}")
    path = Path(path)
    with locked(path):
        if path.exists() and not force:
            raise InputError(f"{path}: a game file is already there (use --force to replace it)")
        write_atomic(path, game_text(game))
        if raw_sealed(path) is not None:
            write_sealed(path, Sealed("", {}))


def sealed_now(path: str | Path, game: Game) -> Sealed:
    """The sealed sets waiting for the phase ``game`` (read from ``path``) waits for."""
    return sealed_of(raw_sealed(path), path, game)


__all__ = ["Change", "StalePhase", "create", "sealed_now", "sealed_path", "transact", "undo_log_path"]
