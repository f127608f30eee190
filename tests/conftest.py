"""Fixtures shared by the tests of every folder: the ``fivedp`` command run in this process or as a
program of its own, and a new game file to play.

Many tests check what a user sees: an exit status and the text on standard output and standard error.
Running the command in this process is fast and lets a test look at what it changed; running it as a
program also checks what only a process has (its entry point, its environment, a hang ended by a
timeout). Both runners are here so that every test runs the command the same way.

The tests run in parallel (``pytest -n auto``, pytest-xdist): each worker has its own temporary folders
(pytest gives every worker a base folder of its own), its own ports (``tests/serve/live.py``) and,
when ``FIVEDP_TEST_POSTGRES`` names a server, its own PostgreSQL database, made here when the worker
starts and dropped when it ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fivedp_asp.cli.commands import main
from fivedp_asp.files.games import save_game
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

POSTGRES_VARIABLE = "FIVEDP_TEST_POSTGRES"
_OWN_DATABASE = pytest.StashKey[tuple[str, str]]()  # the server's address and the worker's database made on it


def worker_database(url: str, worker: str) -> str:
    """The address of a worker's own database on the server of ``url``: the database's name with the
    worker's suffix (``fivedp_ci`` becomes ``fivedp_ci_gw0`` for worker gw0), the rest kept."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "postgres"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme}://{parts.netloc}/{name}_{worker}{query}"  # an empty host kept: postgresql:///name


def _postgres_admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def pytest_configure(config: pytest.Config) -> None:
    """A worker of ``pytest -n`` gets a database of its own, made from the server named by
    ``FIVEDP_TEST_POSTGRES`` (its role may create databases), and the variable then names it, for the
    tests and for the servers they start as processes alike. Without xdist the database named is used
    as it is. A worker's database is made anew, dropping one left by an earlier run: two runs at once
    must name two databases."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    url = os.environ.get(POSTGRES_VARIABLE)
    if not worker or not url:
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return  # the postgres extra is missing: the PostgreSQL tests skip and say so
    own = worker_database(url, worker)
    name = urlsplit(own).path.lstrip("/")
    _postgres_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')
    config.stash[_OWN_DATABASE] = (url, name)
    os.environ[POSTGRES_VARIABLE] = own


# pytest-xdist's hooks are optional: ``-p no:xdist`` (or no xdist at all) runs the tests in one process
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. A third of a worker's time is spent waiting, not computing:
    on servers and clusters started as processes, on players pausing in the soaks, on bounds that a
    test waits out. A second worker a core computes meanwhile (docs/benchmarks.md, "The tests").
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still names a number of one's own."""
    named = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if named.isdigit() and int(named) > 0:
        return int(named)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 2 * max(1, cores)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow first, so that the long ones start early and side by side and the short
    ones fill in at the end, rather than one long test running alone after all the others are done.

    With workers (``PYTEST_XDIST_WORKER_COUNT``), work stealing hands each worker a run of the
    collection at the start, the first quarter to one of four and so on, and a worker that runs out
    takes the end of another's queue. Sorted as one list, every slow test was in the first worker's
    run, which played them one after another (the suite's longest test started 8 minutes into a
    14-minute run). So the collection is cut into runs of exactly the sizes the scheduler hands out, each
    beginning with its share of the slow tests, dealt in turn (neighbouring slow tests, often one
    file's, go to different workers), and ending with its share of the others, which are what
    stealing takes. The order is the same in every worker, as pytest-xdist requires.

    Slow tests marked ``shares(name)`` share something computed once per worker (a fixture of the
    module, a cache in a helper: ``tests/scenario_runs.py``); they are dealt to the run of the first
    of them, so that one worker computes it once rather than each worker that got one of them."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    quick = [item for item in items if item.get_closest_marker("slow") is None]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if workers <= 1:
        items[:] = slow + quick
        return
    # the sizes of the runs, as WorkStealingScheduling deals the pending tests among idle workers
    sizes, left = [], len(items)
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    runs: list[list[pytest.Item]] = [[] for _ in sizes]
    shared: dict[str, int] = {}  # what slow tests share -> the run that has them
    dealt = 0
    for item in slow:
        marker = item.get_closest_marker("shares")
        if marker is not None and marker.args[0] in shared:
            runs[shared[marker.args[0]]].append(item)
            continue
        if marker is not None:
            shared[marker.args[0]] = dealt % workers
        runs[dealt % workers].append(item)
        dealt += 1
    rest = iter(quick)
    for run, size in zip(runs, sizes):
        run.extend(next(rest) for _ in range(max(0, size - len(run))))
    runs[-1].extend(rest)  # a run given more slow tests than its size leaves the others to the last
    items[:] = [item for run in runs for item in run]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201 - pytest-xdist's types
    """``-n`` without ``--dist``: work stealing rather than pytest-xdist's own load scheduling, which
    hands each worker a queue of tests at the start and never takes one back, so that a worker left
    with several long tests in its queue ran them one after another while the others stood idle.
    A worker that runs out takes half of another's queue. An explicit ``--dist`` is kept."""
    if config.getoption("dist") != "load" or "--dist" in " ".join(config.invocation_params.args):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    made = config.stash.get(_OWN_DATABASE, None)
    if made:
        url, name = made
        os.environ[POSTGRES_VARIABLE] = url
        _postgres_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
