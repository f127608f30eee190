"""``fivedp`` commands run as processes of their own without a new interpreter each: forked by a server
of forks that imported the package once (``multiprocessing``'s ``forkserver``, one per test process).

A command started as ``python -m fivedp_asp.cli`` spends about 0.4 s of processor time starting the
interpreter and importing the package before it does anything; the tests that run commands by the
hundred (races between commands, a game played from the command line) spend most of their time there.
A forked process runs the same ``main`` in its own process, with its own files and exit status, so
that commands still race on the files as shells' commands do. The tests of the entry point itself, of
the environment a command inherits and of signals keep starting interpreters (``conftest.program``)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

# the modules every forked command starts with, imported once by the server of forks: the command, the
# built-in encodings parsed, the standard map loaded with its facts (tests/forked_warm.py). Each forked
# command would otherwise parse and load them again before its own work, as a new interpreter does:
# 24 `game orders` and `game show` commands took 2.6-2.8 s that way, 1.7 s this way (docs/benchmarks.md)
PRELOAD = ["fivedp_asp.cli.commands", "fivedp_asp.solver.preparsed", "tests.forked_warm"]


def started(cwd: Path, args: Sequence[str], input: str | None = None, env: Mapping[str, str] | None = None) -> tuple:
    """``fivedp args`` forked in ``cwd`` and started: a handle for ``ended``. The command has this
    process's environment, with ``env`` laid over it."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    cwd = Path(cwd)
    n = 0
    while (cwd / f".fivedp-{os.getpid()}-{n}.out").exists():
        n += 1
    files = tuple(cwd / f".fivedp-{os.getpid()}-{n}.{kind}" for kind in ("in", "out", "err"))
    files[0].write_text(input or "", encoding="utf-8")
    for f in files[1:]:
        f.write_bytes(b"")
    argv = [str(a) for a in args]
    proc = context.Process(target=_command, args=(argv, str(cwd), {**os.environ, **(env or {})},
                                                          *(str(f) for f in files)))
    proc.start()
    return argv, proc, files


def ended(handle: tuple, timeout: float = 120) -> subprocess.CompletedProcess:
    """What a started command said and its exit status, once it ended (killed after ``timeout`` s)."""
    argv, proc, files = handle
    proc.join(timeout)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
        raise subprocess.TimeoutExpired(argv, timeout)
    out, err = (f.read_text(encoding="utf-8", errors="backslashreplace") for f in files[1:])
    for f in files:
        f.unlink()
    return subprocess.CompletedProcess(argv, proc.exitcode, out, err)


def fivedp(cwd: Path, *args: object, input: str | None = None, timeout: float = 120,
           env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``fivedp args`` run in ``cwd`` as a forked process, its output captured as text."""
    return ended(started(cwd, [str(a) for a in args], input, env), timeout)


def _command(argv: list[str], cwd: str, environment: dict, stdin: str, stdout: str, stderr: str) -> None:
    """A forked process's life: ``fivedp argv`` in ``cwd`` with the asking test's environment (the server
    of forks keeps the one it started with), reading ``stdin``, its output and errors into files, its
    status the process's exit status (an uncaught exception shown as the interpreter shows it, status 1)."""
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    for fd, name, mode in ((0, stdin, os.O_RDONLY), (1, stdout, os.O_WRONLY), (2, stderr, os.O_WRONLY)):
        opened = os.open(name, mode)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
    sys.argv = ["fivedp", *argv]
    status = 1
    try:
        from fivedp_asp.cli.commands import main

        status = main(argv)
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - shown in the errors, as the interpreter shows it
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status or 0)
