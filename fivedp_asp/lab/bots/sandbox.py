"""Bots of your own, each in a process of its own.

A bot named by where its code is (``MODULE:FUNCTION``, ``FILE.py:FUNCTION``) is never imported by the
process that plays the games: it is loaded and called in a child process (``python -m
fivedp_asp.lab.bots.sandbox NAME``), which is sent, for each call, its power's view (the game, the
power, its own seed, the option sets, whether it travels) and sends back the order lines. So:

- the child holds nothing but what its views hold: not the run's secret, from which the other powers'
  seeds are drawn (bots/selfplay.py), nor the other bots;
- its tries (``View.simulate``, from any view it makes) are sent to the runner, which adjudicates them
  and counts them against the power's budget for the phase (``view.Ledger``);
- anything it raises, ``SystemExit`` and ``KeyboardInterrupt`` included, and its process ending, is its
  failure, told in one line naming the bot, the power, the game and the step;
- with a time limit, a call that has not answered within it (the time the runner spends adjudicating
  its tries not counted) is stopped by ending the child.

Each message goes after its length (8 bytes, big-endian), on the child's standard input and on a copy
of its standard output; what the bot prints goes to standard error. The runner's messages are pickles
(the game as it stands, the reports of tries); the child's are JSON, never unpickled, so that what a
bot sends is data and never code run in the runner; they are read up to ``MAX_MESSAGE`` bytes.
"""

from __future__ import annotations

import copyreg
import io
import json
import os
import pickle
import select
import struct
import subprocess
import sys
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable

from ...errors import InputError, UsageError, quoted

_HEADER = struct.Struct(">Q")

MAX_MESSAGE = 64 * 1024 * 1024
"""The longest message the runner reads from a bot's process."""


def _proxy(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


def dumps(value: Any) -> bytes:
    """``value`` pickled, read-only mappings (a game's boards and units) as the mappings they show."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = copyreg.dispatch_table.copy()
    pickler.dispatch_table[MappingProxyType] = lambda m: (_proxy, (dict(m),))
    pickler.dump(value)
    return buffer.getvalue()


def _send(fd: int, value: Any, *, as_json: bool = False, deadline: float | None = None) -> bool:
    """``value`` written to ``fd``; False when the deadline passes first (a non-blocking ``fd``: the
    runner's pipe to a bot, which a bot that reads nothing must not be able to hang)."""
    data = json.dumps(value).encode("utf-8") if as_json else dumps(value)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        left = None if deadline is None else deadline - time.monotonic()
        if (left is not None and left <= 0) or not select.select([], [fd], [], left)[1]:
            return False
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
    return True


def _read(fd: int, n: int, deadline: float | None) -> bytes | None:
    """``n`` bytes from ``fd``; None when the deadline passes first; EOFError when the pipe closes."""
    parts = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _receive(fd: int, deadline: float | None = None, *, as_json: bool = False) -> Any:
    """The next message, or None when the deadline passes first; from a bot's process (``as_json``),
    a list whose first item names what it is, or ValueError."""
    header = _read(fd, _HEADER.size, deadline)
    if header is None:
        return None
    size = _HEADER.unpack(header)[0]
    if as_json and size > MAX_MESSAGE:
        raise ValueError(f"sent a message of {size:,} bytes (at most {MAX_MESSAGE:,})")
    body = _read(fd, size, deadline)
    if body is None or not as_json:
        return None if body is None else pickle.loads(body)
    try:
        message = json.loads(body.decode("utf-8"))
    except RecursionError:
        raise ValueError("sent a message nested too deep") from None
    if not isinstance(message, list) or not message or not isinstance(message[0], str):
        raise ValueError("sent a message the runner does not read")
    return message


def answer_lines(lines: Any) -> list[str] | str:
    """A bot's answer as a list of text lines, or a sentence saying what is wrong with it (the bot's
    name, power, game and step go before it)."""
    if isinstance(lines, str) or not isinstance(lines, Iterable):
        return f"returned {type(lines).__name__}: a bot returns a list of order lines"
    out = []
    for line in lines:
        if not isinstance(line, str):
            return f"returned {type(line).__name__} among its orders: an order is a line of text"
        out.append(line)
    return out


def _plain(reports: list) -> list:
    """Reports to send to the child: an exception that cannot travel as it is goes as its message."""
    out = []
    for r in reports:
        if isinstance(r, BaseException):
            try:
                pickle.loads(dumps(r))
            except Exception:  # noqa: BLE001 - an exception of the engine that does not pickle
                r = RuntimeError(f"{type(r).__name__}: {r}")
        out.append(r)
    return out


class Sandbox:
    """A bot of your own in its child process, for the games of one runner. ``time_limit``: seconds a
    call may take (None: no limit). Use as a context manager: the child ends with it."""

    def __init__(self, name: str, time_limit: float | None = None):
        if not isinstance(name, str):
            raise UsageError(f"Sandbox: name must be text, not {type(name).__name__}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not time_limit > 0):
            raise UsageError(f"Sandbox: time_limit must be a number of seconds above 0, not {time_limit!r:.40}")
        self.name = name
        self.time_limit = time_limit
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self) -> subprocess.Popen:
        """The child, once it has loaded the bot (an InputError saying why it could not)."""
        if self.process is not None and self.process.poll() is None:
            return self.process
        # the child imports this package as this process did, installed or not
        home = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [home, os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen([sys.executable, "-m", "fivedp_asp.lab.bots.sandbox", self.name],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        try:
            # the package imported (no bot code has run yet: not counted), then the bot's module loaded
            started = _receive(self.process.stdout.fileno(), as_json=True)
            deadline = None if self.time_limit is None else time.monotonic() + self.time_limit
            first = _receive(self.process.stdout.fileno(), deadline, as_json=True) if started == ["started"] \
                else ["bad"]
        except EOFError:
            first = ["error", f"bot {quoted(self.name)}: its process ended as it loaded"]
        except ValueError:
            first = ["bad"]
        if first is None:
            first = ["error", f"bot {quoted(self.name)}: not loaded within {self.time_limit:g} s (--bot-time-limit)"]
        if first[0] != "ready" or len(first) != 1:
            self.close()
            raise InputError(str(first[1])[:400] if first[0] == "error" and len(first) == 2
                             else f"bot {quoted(self.name)}: its process sent what the runner does not read")
        return self.process

    def close(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
            self.process = None

    def call(self, view: Any, runner: Any, where: str) -> list[str]:
        """The bot's order lines for ``view`` (its game, power, seed, option sets and travel are sent);
        its tries adjudicated by ``runner`` (``view.Ledger``). ``where``: ``England, game 1, step 3``,
        for the messages. InputError naming the bot when it fails."""
        process = self._start()
        fault = f"bot {quoted(self.name)} ({where})"
        to_child, from_child = process.stdin.fileno(), process.stdout.fileno()
        os.set_blocking(to_child, False)
        waited = 0.0

        def talk(value: Any) -> Any:
            """``value`` sent, then the bot's next message, within what remains of its time; the time
            counted is the bot's, not the runner's."""
            nonlocal waited
            started = time.monotonic()
            deadline = None if self.time_limit is None else started + self.time_limit - waited
            sent = _send(to_child, value, deadline=deadline)
            message = _receive(from_child, deadline, as_json=True) if sent else None
            waited += time.monotonic() - started
            if message is None:
                self.close()
                raise InputError(f"{fault} failed: gave no orders within {self.time_limit:g} s (--bot-time-limit)")
            return message

        try:
            message = talk(("call", view.game, view.power, view.seed, view.settings, view.travel))
            while True:
                if message[0] == "remaining":
                    message = talk(runner.remaining())
                elif message[0] == "simulate":
                    reports = _plain(runner.simulate(view.mv, _order_sets(message[1:])))
                    message = talk(reports)
                elif message[0] in ("failed", "bad") and len(message) == 2 and isinstance(message[1], str):
                    failed = " failed:" if message[0] == "failed" else ""
                    raise InputError(f"{fault}{failed} {message[1][:300]}")
                elif message[0] == "done" and len(message) == 2 and isinstance(message[1], list) \
                        and all(isinstance(x, str) for x in message[1]):
                    return message[1]
                else:
                    raise ValueError("sent a message the runner does not read")
        except (EOFError, BrokenPipeError):
            status = process.wait()
            self.close()
            raise InputError(f"{fault} failed: its process ended (exit status {status})") from None
        except ValueError as exc:
            self.close()
            raise InputError(f"{fault} failed: {exc}") from None


def _order_sets(rest: list) -> list[dict[str, list[str]]]:
    """The order sets of a ``simulate`` message, checked to be power -> lines; ValueError otherwise."""
    if len(rest) != 1 or not isinstance(rest[0], list) or not all(
            isinstance(s, dict) and all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                        for v in s.values()) for s in rest[0]):
        raise ValueError("sent a message the runner does not read")
    return rest[0]


class _ToRunner:
    """In the child: the runner, reached through the pipe (``view.RUNNER``)."""

    def __init__(self, to_parent: int, from_parent: int):
        self.to_parent, self.from_parent = to_parent, from_parent
        self.mv: Any = None  # the position of the call in progress

    def remaining(self) -> int:
        _send(self.to_parent, ["remaining"], as_json=True)
        return _receive(self.from_parent)

    def simulate(self, mv: Any, order_sets: list) -> list:
        if mv is not self.mv and mv != self.mv:
            raise UsageError("View.simulate: in a game, a bot of your own tries orders on the game's own "
                             "position (the view it was given)")
        _send(self.to_parent, ["simulate", order_sets], as_json=True)
        return _receive(self.from_parent)


def _serve(name: str, to_parent: int, from_parent: int, load: Callable[[str], Any]) -> None:
    from .view import RUNNER, View

    try:
        bot = load(name)
    except BaseException as exc:  # noqa: BLE001 - loading runs the bot's module: any failure is its own
        message = str(exc) if isinstance(exc, InputError) else \
            f"bot {quoted(name)}: loading failed: {type(exc).__name__}: {quoted(str(exc), 120)}"
        _send(to_parent, ["error", message], as_json=True)
        return
    _send(to_parent, ["ready"], as_json=True)
    runner = _ToRunner(to_parent, from_parent)
    while True:
        try:
            message = _receive(from_parent)
        except EOFError:
            return
        _, game, power, seed, settings, travel = message
        runner.mv = game.mv
        token = RUNNER.set(runner)
        try:
            answer = answer_lines(bot(View(game, power, seed, settings, travel)))
        except BaseException as exc:  # noqa: BLE001 - whatever the bot raises, exits included, is its failure
            _send(to_parent, ["failed", f"{type(exc).__name__}: {quoted(str(exc), 120)}"], as_json=True)
            continue
        finally:
            RUNNER.reset(token)
        _send(to_parent, ["done", answer] if isinstance(answer, list) else ["bad", answer], as_json=True)


def main() -> None:
    """The child: the protocol on a copy of standard output, the bot's prints on standard error."""
    to_parent = os.dup(1)
    os.dup2(2, 1)
    from_parent = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    from .registry import load_bot

    _send(to_parent, ["started"], as_json=True)
    _serve(sys.argv[1], to_parent, from_parent, load_bot)


if __name__ == "__main__":
    main()
