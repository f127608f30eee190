"""Bots by name: the built-in ones, and bots of your own named by where their code is.

A bot is named on the command line (``--bot England=greedy``) by one of these:

- a built-in name: ``random``, ``greedy`` or ``search`` (``BUILTIN``);
- ``MODULE:FUNCTION``, a callable of an importable module (``mybots.cautious:play``), imported as
  Python imports it (the module must be on the path: installed, or in the current folder);
- ``FILE.py:FUNCTION``, a callable defined in a Python file, loaded from that file.

The callable takes a :class:`~fivedp_asp.lab.bots.view.View` and returns the power's order lines
(docs/bots.md). Loading a bot of your own runs its module's code, as importing it would: name only
code you trust. A bot travels to worker processes and Dask workers as its name (``Seat``), and each
worker loads it again, so a file or module must be there too.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from ...errors import InputError, UsageError, quoted
from ...model.map import GameMap
from .greedy import greedy_bot
from .random_bot import random_bot
from .search import search_bot
from .view import Bot

BUILTIN: Mapping[str, Bot] = {"random": random_bot, "greedy": greedy_bot, "search": search_bot}
"""The bots every game knows, by name."""

DEFAULT = "random"
"""The bot of a power no ``--bot`` names."""

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def is_builtin(name: str) -> bool:
    return name in BUILTIN


def check_name(name: str) -> tuple[str, str, str]:
    """A bot's name read without running any of its code: (the name, where its code is, the callable's
    name), where being empty for a built-in bot; InputError saying what is wrong with the name (a file
    that is not there, a module name that is not one)."""
    if not isinstance(name, str):
        raise UsageError(f"check_name: the name must be text, not {type(name).__name__}")
    text = name.strip()
    if text in BUILTIN:
        return text, "", ""
    where, sep, attr = text.rpartition(":")
    if not sep or not where or not attr:
        raise InputError(f"bot {quoted(text)}: not a bot (built in: {', '.join(BUILTIN)}; or MODULE:FUNCTION, "
                         "or FILE.py:FUNCTION for a bot of your own)")
    if not _DOTTED.fullmatch(attr):
        raise InputError(f"bot {quoted(text)}: {quoted(attr)} is not a Python name")
    if where.endswith(".py"):
        if not Path(where).expanduser().is_file():
            raise InputError(f"bot {quoted(text)}: {quoted(where)}: no such file")
    elif not _DOTTED.fullmatch(where):
        raise InputError(f"bot {quoted(text)}: {quoted(where)} is not a module name (or a file ending in .py)")
    return text, where, attr


def load_bot(name: str) -> Bot:
    """The bot a name names (see the module); InputError saying what is wrong with the name. A bot of
    your own is loaded by running its module: the runner of games does that only in the bot's own
    process (bots/sandbox.py)."""
    text, where, attr = check_name(name)
    if not where:
        return BUILTIN[text]
    module = _from_file(text, where) if where.endswith(".py") else _import(text, where)
    found = module
    for part in attr.split("."):
        if not hasattr(found, part):
            raise InputError(f"bot {quoted(text)}: {quoted(where)} has no {quoted(attr)}")
        found = getattr(found, part)
    if not callable(found):
        raise InputError(f"bot {quoted(text)}: {quoted(attr)} is not callable (a bot is a function of a View)")
    return found


def _import(text: str, module: str):
    if not _DOTTED.fullmatch(module):
        raise InputError(f"bot {quoted(text)}: {quoted(module)} is not a module name (or a file ending in .py)")
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise InputError(f"bot {quoted(text)}: cannot import {quoted(module)}: {quoted(str(exc), 120)}") from None
    except Exception as exc:  # noqa: BLE001 - the bot's own module failed as it loaded
        raise InputError(f"bot {quoted(text)}: importing {quoted(module)} failed: {type(exc).__name__}: "
                         f"{quoted(str(exc), 120)}") from None


def _from_file(text: str, file: str):
    path = Path(file).expanduser()
    if not path.is_file():
        raise InputError(f"bot {quoted(text)}: {quoted(file)}: no such file")
    resolved = path.resolve()
    # one module per file, named after the file's path, so that two files of the same name stay apart
    name = "fivedp_bot_" + hashlib.sha256(str(resolved).encode("utf-8")).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise InputError(f"bot {quoted(text)}: {quoted(file)} cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the bot's own file failed as it loaded
        del sys.modules[name]
        raise InputError(f"bot {quoted(text)}: loading {quoted(file)} failed: {type(exc).__name__}: "
                         f"{quoted(str(exc), 120)}") from None
    return module


@dataclass(frozen=True)
class Seats:
    """Which bot plays which power: every power of the map, by the bot's name."""

    bots: tuple[tuple[str, str], ...]  # (power, bot name), in the map's order of powers

    def of(self, power: str) -> str:
        return dict(self.bots)[power]

    def text(self) -> str:
        """``England=greedy, others random`` / ``all greedy``: the seating in words."""
        names = [b for _, b in self.bots]
        common = max(set(names), key=lambda b: (names.count(b), b == DEFAULT))
        if names.count(common) == len(names):
            return f"all {common}"
        named = ", ".join(f"{p}={b}" for p, b in self.bots if b != common)
        return f"{named}, others {common}"


def parse_seats(specs: Iterable[str], game_map: GameMap) -> Seats:
    """``--bot POWER=NAME`` and ``--bot all=NAME`` arguments: a power named plays its bot, ``all``
    sets the bot of the powers not named (``random`` without it). Every name is checked here, so that
    a bad one is told before any game is played; a bot of your own is not loaded here (its code runs
    only in a process of its own, bots/sandbox.py), so a module that cannot be imported is told when
    the games start."""
    if isinstance(specs, str):
        raise UsageError("parse_seats: give a list of POWER=NAME texts, not one text")
    named: dict[str, str] = {}
    everyone: str | None = None
    for spec in specs:
        power, sep, bot = str(spec).partition("=")
        power, bot = power.strip(), bot.strip()
        if not sep or not power or not bot:
            raise InputError(f"--bot {quoted(spec)}: write POWER=NAME or all=NAME (bots: {', '.join(BUILTIN)}, "
                             "or MODULE:FUNCTION)")
        bot = check_name(bot)[0]
        if power.lower() == "all":
            if everyone is not None and everyone != bot:
                raise InputError(f"--bot {quoted(spec)}: all is given twice")
            everyone = bot
            continue
        known = game_map.power(power)
        if known is None:
            raise InputError(f"--bot {quoted(spec)}: unknown power {quoted(power)} (powers: "
                             f"{', '.join(game_map.powers)}, or all)")
        if known in named and named[known] != bot:
            raise InputError(f"--bot {quoted(spec)}: {known} is given two bots")
        named[known] = bot
    return Seats(tuple((p, named.get(p, everyone or DEFAULT)) for p in game_map.powers))
