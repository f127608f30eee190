"""Work done apart (``fivedp_asp/solver/apart.py``): a child process that answers, raises, or is
stopped at its time or memory limit."""

from __future__ import annotations

import time

import pytest

from fivedp_asp.errors import FileError, RuleError
from fivedp_asp.solver.apart import LimitHit, can_run_apart, run_apart

pytestmark = pytest.mark.skipif(not can_run_apart(), reason="work is done apart only where there is fork")


def test_the_answer_and_the_exceptions_come_back():
    assert run_apart(lambda: {"answer": [1, 2, 3]}, 30, None) == {"answer": [1, 2, 3]}

    def refused() -> None:
        raise RuleError("mine.lp:1:1: refused")

    with pytest.raises(RuleError, match="mine.lp:1:1: refused"):
        run_apart(refused, 30, 256 << 20)

    def unreadable() -> None:
        raise FileError("x.lp", "cannot read the rule file")  # its arguments do not rebuild it

    with pytest.raises(RuntimeError, match="FileError: x.lp: cannot read the rule file"):
        run_apart(unreadable, 30, None)
    with pytest.raises(RuntimeError, match="without an answer"):
        run_apart(lambda: (lambda: None), 30, None)  # a function does not pickle


@pytest.mark.slow
def test_work_past_its_time_is_stopped():
    t0 = time.monotonic()
    with pytest.raises(LimitHit) as hit:
        run_apart(lambda: time.sleep(60), 0.5, None)
    assert hit.value.kind == "time"
    assert time.monotonic() - t0 < 10


def test_work_past_its_memory_is_stopped():
    with pytest.raises(LimitHit) as hit:
        run_apart(lambda: len(bytearray(1 << 30)), 60, 64 << 20)
    assert hit.value.kind == "memory"
    # within the limit, the same work is done
    assert run_apart(lambda: len(bytearray(1 << 20)), 60, 64 << 20) == 1 << 20


@pytest.mark.parametrize("seconds,memory", [(0, None), (-1, None), (True, None), (1, 0), (1, 1.5), (1, True)])
def test_limits_are_checked(seconds, memory):
    with pytest.raises(ValueError):
        run_apart(lambda: None, seconds, memory)
    with pytest.raises(TypeError):
        run_apart("not callable", 1, None)  # type: ignore[arg-type]
