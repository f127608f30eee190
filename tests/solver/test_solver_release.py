"""A step's ground programs are released when the step is done with them, not left for Python's cycle
collector: a Control held in a reference cycle stays in memory until the collector runs, which then
pays for releasing several programs at once in the middle of some later phase."""

from __future__ import annotations

import pytest

import gc

import clingo

from fivedp_asp.api import new_game
from fivedp_asp.lab.bench.positions import copied_position
from fivedp_asp.engine.step import step


def _controls_left_in_cycles(run) -> int:
    """How many clingo Controls ``run`` leaves behind that only the cycle collector could release."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return sum(1 for o in gc.garbage if isinstance(o, clingo.Control))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


@pytest.mark.slow
def test_a_plain_step_leaves_no_program_to_the_cycle_collector():
    mv = new_game().mv
    assert _controls_left_in_cycles(lambda: step(mv, {"France": ["A Paris - Burgundy"]})) == 0


@pytest.mark.slow
def test_a_step_with_paradoxes_leaves_no_program_to_the_cycle_collector():
    # the backup rules index the step's parts and talk to the clock: the driver's whole machinery
    mv, orders, _ = copied_position("6.F.16", 3)
    report = step(mv, orders)
    assert len(report.backups) == 3
    assert _controls_left_in_cycles(lambda: step(mv, orders)) == 0
