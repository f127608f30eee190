"""The cycle collector held off while a step runs (``collector.paused``), and given back as it was."""

from __future__ import annotations

import gc

import pytest

from fivedp_asp.api import new_game
from fivedp_asp.engine import batch, collector, step as step_module
from fivedp_asp.engine.step import step

ORDERS = {"France": ["A Paris - Burgundy"], "Germany": ["A Munich - Burgundy"]}


@pytest.fixture
def collector_on():
    was_on = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was_on else gc.disable)()


def test_paused_turns_the_collector_off_and_back_on(collector_on):
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_gives_the_collector_back_when_the_block_raises(collector_on):
    with pytest.raises(ValueError):
        with collector.paused():
            raise ValueError("inside")
    assert gc.isenabled()


def test_paused_leaves_a_collector_the_caller_turned_off_off(collector_on):
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_give_it_back_once_the_outer_one_ends(collector_on):
    with collector.paused():
        with collector.paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_step_and_a_batch_run_with_the_collector_off_and_give_it_back(collector_on, monkeypatch):
    seen: list[bool] = []
    answer = step_module.run

    def watched(steps):
        seen.append(gc.isenabled())
        return answer(steps)

    monkeypatch.setattr(step_module, "run", watched)
    report = step(new_game().mv, ORDERS)
    assert seen == [False] and gc.isenabled()
    # the two moves into Burgundy bounce: results as the rules give them
    assert {o.text: o.result for o in report.outcomes} == {"A Paris - Burgundy": "fails",
                                                           "A Munich - Burgundy": "fails"}

    running: list[bool] = []
    run_all = batch.run_all
    monkeypatch.setattr(batch, "run_all",
                        lambda generators, stages=None: (running.append(gc.isenabled()), run_all(generators, stages))[1])
    reports = batch.step_many([(new_game().mv, ORDERS)])
    assert running == [False] and gc.isenabled()
    assert [o.result for o in reports[0].outcomes] == [o.result for o in report.outcomes]


def test_listing_legal_orders_runs_with_the_collector_off_and_gives_it_back(collector_on, monkeypatch):
    from fivedp_asp.engine import possible

    seen: list[bool] = []
    check = possible._legal

    def watched(mv, candidates):
        seen.append(gc.isenabled())
        return check(mv, candidates)

    monkeypatch.setattr(possible, "_legal", watched)
    listed = possible.legal_orders(new_game().mv, unit="A Paris")
    assert seen and not any(seen) and gc.isenabled()
    assert "A a-Par@0 - a-Bur@0" in {o.order for o in listed}
