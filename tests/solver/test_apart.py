"""Work done apart (``fivedp_asp/solver/apart.py``): a child process that answers, raises, or is
stopped at its time or memory limit — forked from a process of one thread, and from one of several
by the server of forks, where a lock another thread holds at that moment must not hold the child.

The work is made of functions defined here at the top level, so that it pickles for the server of
forks (this test may run in a process of several threads: pytest-xdist's workers are)."""

from __future__ import annotations

import threading
import time

import pytest

from fivedp_asp.errors import FileError, RuleError
from fivedp_asp.solver import apart
from fivedp_asp.solver.apart import LimitHit, can_run_apart, run_apart

pytestmark = pytest.mark.skipif(not can_run_apart(), reason="work is done apart only where there is fork")

# held by another thread in the test of the server of forks
HELD = threading.Lock()


def answer() -> dict:
    return {"answer": [1, 2, 3]}


def refused() -> None:
    raise RuleError("mine.lp:1:1: refused")


def unreadable() -> None:
    raise FileError("x.lp", "cannot read the rule file")  # its arguments do not rebuild it


def a_function() -> object:
    return answer  # a function as a result: it pickles by name


def sleeps(seconds: float) -> None:
    time.sleep(seconds)


def allocates(size: int) -> int:
    return len(bytearray(size))


def takes_the_lock() -> str:
    with HELD:
        return "taken"


def files_parsed_already() -> int:
    """How many files the child's encodings cache held when it started its work."""
    from fivedp_asp.solver.encodings import _parsed_entry

    return _parsed_entry.cache_info().currsize


@pytest.fixture
def by_a_server(monkeypatch):
    """This test process as one that asked for a server of forks (``fork_by_a_server``), for this test."""
    monkeypatch.setattr(apart, "_served", threading.Event())
    apart.fork_by_a_server()


@pytest.fixture(params=["one thread", "several threads"])
def threads(request, monkeypatch, by_a_server):
    """Each test as a process of one thread asks (the child forked) and as one of several does (the
    child forked by the server of forks), whatever the test process is."""
    several = request.param == "several threads"
    monkeypatch.setattr(apart.threading, "active_count", lambda: 2 if several else 1)
    return several


def test_the_answer_and_the_exceptions_come_back(threads):
    assert run_apart(answer, 30, None) == {"answer": [1, 2, 3]}
    assert run_apart(allocates, 30, None, (10,)) == 10
    assert run_apart(a_function, 30, None) is answer
    with pytest.raises(RuleError, match="mine.lp:1:1: refused"):
        run_apart(refused, 30, 256 << 20)
    with pytest.raises(RuntimeError, match="FileError: x.lp: cannot read the rule file"):
        run_apart(unreadable, 30, None)


def test_a_child_of_the_server_of_forks_starts_with_the_encodings_parsed(monkeypatch, by_a_server):
    # the server of forks parsed every built-in encoding and option file before forking (solver/preparsed.py):
    # its child finds them in its caches rather than parsing them again
    from fivedp_asp.solver.encodings import asp_dir

    monkeypatch.setattr(apart.threading, "active_count", lambda: 2)
    built_in = len(list(asp_dir().glob("*.lp"))) + len(list((asp_dir() / "options").glob("*.lp")))
    assert run_apart(files_parsed_already, 60, None) >= built_in > 40


def test_encodings_that_cannot_be_parsed_beforehand_leave_the_server_of_forks_running(monkeypatch):
    # an exception from a module the server of forks preloads (other than an ImportError) would end it,
    # and every child it was to fork with it: the child parses the file and reports it instead
    import importlib

    from fivedp_asp.errors import EncodingError
    from fivedp_asp.solver import encodings, preparsed

    def unreadable() -> int:
        raise EncodingError("asp/movement.lp:1:1: error: syntax error")

    monkeypatch.setattr(encodings, "parse_builtin", unreadable)
    importlib.reload(preparsed)  # what the server of forks does when it starts: no exception


def test_work_that_does_not_pickle(monkeypatch):
    # forked, the child has the work already, but its result must pickle; from a process of several
    # threads that asked for a server of forks the work itself must, and a closure does not (below).
    # This test process may have asked already (a server test run before it in the same worker)
    monkeypatch.setattr(apart, "_served", threading.Event())
    with pytest.raises(RuntimeError, match="without an answer"):
        run_apart(lambda: (lambda: None), 30, None)


def test_a_closure_is_refused_by_the_server_of_forks(monkeypatch, by_a_server):
    monkeypatch.setattr(apart.threading, "active_count", lambda: 2)
    with pytest.raises(TypeError, match="must pickle"):
        run_apart(lambda: 1, 30, None)


def test_a_lock_held_by_another_thread_does_not_hold_the_child(by_a_server):
    # the server's threads: one holds a lock (clingo's own, while it grounds another game) at the
    # moment another asks for work apart; a child forked then would wait on it until its time is up
    # and be reported as work without end. Here the process really has several threads
    taken, release = threading.Event(), threading.Event()

    def holder() -> None:
        with HELD:
            taken.set()
            release.wait(60)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert taken.wait(10) and threading.active_count() > 1
        t0 = time.monotonic()
        assert run_apart(takes_the_lock, 20, None) == "taken"
        assert time.monotonic() - t0 < 15
    finally:
        release.set()
        thread.join()


@pytest.mark.slow
def test_work_past_its_time_is_stopped(threads):
    t0 = time.monotonic()
    with pytest.raises(LimitHit) as hit:
        run_apart(sleeps, 0.5, None, (60,))
    assert hit.value.kind == "time"
    assert time.monotonic() - t0 < 10


def test_work_past_its_memory_is_stopped(threads):
    with pytest.raises(LimitHit) as hit:
        run_apart(allocates, 60, 64 << 20, (1 << 30,))
    assert hit.value.kind == "memory"
    # within the limit, the same work is done
    assert run_apart(allocates, 60, 64 << 20, (1 << 20,)) == 1 << 20


@pytest.mark.parametrize("seconds,memory", [(0, None), (-1, None), (True, None), (1, 0), (1, 1.5), (1, True)])
def test_limits_are_checked(seconds, memory):
    with pytest.raises(ValueError):
        run_apart(answer, seconds, memory)
    with pytest.raises(TypeError):
        run_apart("not callable", 1, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        run_apart(answer, 1, None, [1])  # type: ignore[arg-type]


def test_a_process_of_threads_that_did_not_ask_forks_itself(monkeypatch):
    # a script of threads (without the main module's guard, which the server of forks would need):
    # its work apart is forked as before, and a closure, which only a fork can run, is done
    monkeypatch.setattr(apart, "_served", threading.Event())
    monkeypatch.setattr(apart.threading, "active_count", lambda: 2)
    assert run_apart(lambda: "forked", 30, None) == "forked"


def test_the_game_server_asks_for_a_server_of_forks(monkeypatch, tmp_path):
    pytest.importorskip("starlette")
    from fivedp_asp.serve.app import make_app

    monkeypatch.setattr(apart, "_served", threading.Event())
    make_app(f"sqlite:///{tmp_path}/games.db", deadline_check=None)
    assert apart._served.is_set()
