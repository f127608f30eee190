"""Fixtures shared by the tests of every folder: the ``fivedp`` command run in this process or as a
program of its own, and a new game file to play.

Many tests check what a user sees: an exit status and the text on standard output and standard error.
Running the command in this process is fast and lets a test look at what it changed; running it as a
program also checks what only a process has (its entry point, its environment, a hang ended by a
timeout). Both runners are here so that every test runs the command the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from fivedp_asp.cli.commands import main
from fivedp_asp.files.games import save_game
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``cli(*argv)`` runs ``fivedp argv`` in this process through the command's entry point and gives
    (exit status, standard output, standard error). Paths may be given as they are; every argument is
    passed as its text. The captured output is everything printed since the last read of ``capsys``."""

    def run(*argv: object) -> tuple[int, str, str]:
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err

    return run


@pytest.fixture
def program() -> Callable[..., subprocess.CompletedProcess]:
    """``program(cwd, *args, input=None, timeout=300, env=None)`` runs ``python -m fivedp_asp.cli args``
    as a process in ``cwd``, its output captured as text. The process inherits this environment, with
    ``env`` laid over it (``env={"PYTHONPATH": checkout}`` for this checkout's code rather than an
    installed copy); a command that hangs fails the test through the timeout."""

    def run(cwd: Path, *args: object, input: str | None = None, timeout: float = 300,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
        environment = None if env is None else {**os.environ, **env}
        return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *(str(a) for a in args)], cwd=cwd,
                              capture_output=True, text=True, input=input, timeout=timeout, env=environment)

    return run


@pytest.fixture
def new_game_file(tmp_path: Path) -> Path:
    """``g.yaml`` in the test's own folder: a new game at the standard opening, no option set, no
    orders given."""
    path = tmp_path / "g.yaml"
    save_game(path, new_game(opening(load_map("standard"))))
    return path
