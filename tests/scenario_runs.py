"""Every scenario of cases/, read and adjudicated in lockstep (``check_scenarios``) once per test
process, for the tests that compare another way of adjudicating, or of keeping what was adjudicated,
with this plain one: each of them took the corpus's 8 s of adjudication again.

The tests that use it are marked ``shares("every scenario")``: the conftest hands the slow tests that
share something to one worker of ``pytest -n``, which then adjudicates the corpus once. The values are
frozen (scenarios, reports, multiverses), so no test can change what another one reads.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from fivedp_asp.files.scenarios import Scenario, ScenarioRun, check_scenarios, find_scenarios, read_scenario

CASES = Path(__file__).resolve().parent.parent / "cases"
SHARED = "every scenario"
"""The name of what these tests share (``pytest.mark.shares``)."""


@lru_cache(maxsize=None)
def every_scenario() -> tuple[Scenario, ...]:
    """Every scenario of cases/, in ``find_scenarios``'s order."""
    return tuple(read_scenario(p) for p in find_scenarios([str(CASES)]))


@lru_cache(maxsize=None)
def every_scenario_checked() -> tuple[ScenarioRun | Exception, ...]:
    """``check_scenarios(every_scenario())``: each scenario's run (or exception), in the same order."""
    return tuple(check_scenarios(every_scenario()))
