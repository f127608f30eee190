"""What a server process holds for long is kept out of the cycle collector's full collections
(``serve.memory``), and nothing is lost or kept for good by it: objects stay alive as long as they are
referred to, objects no longer referred to are freed at once, and cycles no longer reachable are freed
by the next sweep."""

from __future__ import annotations

import gc
import weakref

import pytest

from fivedp_asp.errors import UsageError
from fivedp_asp.serve.memory import LongLived

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

from fivedp_asp.serve.app import Solvers, make_app  # noqa: E402
from tests.serve.conftest import TWO_POWERS, new_table  # noqa: E402


class Node:
    """An object that can be part of a cycle."""

    def __init__(self):
        self.other = None


def _cycle() -> weakref.ref:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector_off():
    """The automatic collector off, so that only what the test does collects; everything back after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_settled_objects_are_out_of_the_collectors_reach_and_still_freed_by_their_count(collector_off):
    clock = Clock()
    kept = LongLived(sweep_seconds=60, clock=clock)
    alive = [Node() for _ in range(1000)]
    dropped = Node()
    dropped_ref = weakref.ref(dropped)
    assert any(o is alive[0] for o in gc.get_objects())
    kept.settle()
    assert gc.get_freeze_count() >= 1001
    # a collection walks none of them now
    assert not any(o is alive[0] for o in gc.get_objects())
    assert alive[0].other is None and len(alive) == 1000
    # an object out of reach is freed as soon as nothing refers to it
    del dropped
    assert dropped_ref() is None
    kept.close()
    assert gc.get_freeze_count() == 0
    assert any(o is alive[0] for o in gc.get_objects())


def test_a_cycle_settled_after_it_became_unreachable_is_freed_by_the_next_sweep_and_not_before(collector_off):
    clock = Clock()
    kept = LongLived(sweep_seconds=60, clock=clock)
    ref = _cycle()
    kept.settle()
    gc.collect()  # a full collection does not reach it
    assert ref() is not None
    clock.now = 59.0
    kept.settle()
    assert ref() is not None and kept.sweeps == 0
    clock.now = 60.0
    kept.settle()  # the sweep is due: everything back, collected, settled again
    assert ref() is None and kept.sweeps == 1
    survivor = Node()
    kept.settle()
    assert not any(o is survivor for o in gc.get_objects()) and kept.sweeps == 1


def test_the_server_settles_after_each_solving_job_and_puts_everything_back_when_it_stops(db_url, collector_off):
    with TestClient(make_app(db_url, deadline_check=None, settle=True)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        gc.unfreeze()
        view = t.view("France")  # worked out by a solver job
        assert gc.get_freeze_count() > 0
        frozen = gc.get_freeze_count()
        # what a request leaves alive afterwards is settled too, and the game plays on
        t.orders("France", "A Par - Bur", phase=view["next"]["key"])
        assert gc.get_freeze_count() >= frozen
        assert t.view("France")["next"]["key"] == view["next"]["key"]
    assert gc.get_freeze_count() == 0  # the application's end puts every object back


def test_without_settle_the_server_leaves_the_collector_alone(db_url, collector_off):
    with TestClient(make_app(db_url, deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        gc.unfreeze()
        t.view("France")
        assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("bad", [0, -1, True, "60", float("nan")])
def test_a_sweep_period_that_is_no_positive_number_is_refused(bad):
    with pytest.raises(UsageError, match="sweep_seconds"):
        LongLived(sweep_seconds=bad)


def test_solvers_refuse_a_settle_that_is_not_a_function():
    with pytest.raises(UsageError, match="settle"):
        Solvers(1, settle="yes")
