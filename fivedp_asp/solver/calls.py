"""One solver call: first in the caller's thread with its conflicts bounded, then, when that bound
is reached, in a thread of its own that the clock (the time limit) and Ctrl-C can stop.
"""

from __future__ import annotations

from typing import Callable

import clingo

from .limits import _Clock

_WAIT = 0.25  # how often a waiting solve call looks up (so that Ctrl-C stops it)

# conflicts a solver call may meet in its first, quick attempt (``_solve``): a phase's call meets a
# handful, and a thousand keep the attempt short even on a program far bigger than a big step's
_QUICK_CONFLICTS = "1000"
# the models a program's first solver call asks for: two, which tell one answer from several
# (``_Driver.run``, ``solve_in_universe``)
_FIRST_MODELS = 2
# the models ``_Driver.consequences`` reads in each mode before it leaves several models to the backup rounds
_CONSEQUENCE_MODELS = 8


def new_control(logger: Callable[[clingo.MessageCode, str], None] | None = None) -> clingo.Control:
    """A Control set as a program's first solver call wants it (``_solve``): its conflicts bounded, two
    models asked for. Each setting read or changed through ``configuration`` costs a call into clingo,
    and that call would otherwise read one and change three. Warnings are off: the encodings leave inputs empty
    on purpose."""
    return clingo.Control(["--warn=none", f"--solve-limit={_QUICK_CONFLICTS}", f"--models={_FIRST_MODELS}"],
                          logger=logger)


def _solve(ctl: clingo.Control, clock: _Clock, assumptions: list, on_model=None,
           core: list[int] | None = None, restart: Callable[[], None] | None = None,
           wanted: int = 0) -> clingo.SolveResult:
    """One solver call that gives up when the clock runs out (the search is interrupted). An
    unsatisfiable call puts its core (the assumption literals it rests on) into ``core``.

    With ``restart`` (which forgets what ``on_model`` has collected), the call is first made in this
    thread with a bound on its conflicts: a phase's call ends long before that bound, and a call in a
    thread of its own, which the clock can stop, costs a thread started and joined, a good part of a
    phase's solving (docs/benchmarks.md). A call that reaches the bound before it is done is made
    again, ``restart`` called first, in a thread of its own; the bound keeps the first attempt short,
    so that the time limit and Ctrl-C still stop a hard search promptly. ``ctl`` is made by
    ``new_control``, bounded already (the call made again lifts the bound for itself alone);
    ``wanted``: the models it is set to find (0: all)."""
    clock.check()
    # (a core is read off the handle of a call in its own thread: such a call is made that way at once)
    if restart is not None and core is None:
        seen = 0

        def counted(m: clingo.Model) -> None:
            nonlocal seen
            seen += 1
            if on_model is not None:
                on_model(m)

        result = ctl.solve(assumptions=assumptions, on_model=counted)
        if result.exhausted or 0 < wanted <= seen:
            return result
        restart()
        clock.check()
    ctl.configuration.solve.solve_limit = "umax"
    try:
        with ctl.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:
            try:
                while not handle.wait(max(0.0, min(_WAIT, clock.left()))):
                    if clock.left() <= 0:
                        handle.cancel()
                        clock.exceeded()
                result = handle.get()
                if core is not None and result.unsatisfiable:
                    core.extend(handle.core())
                return result
            except BaseException:
                handle.cancel()
                raise
    finally:
        ctl.configuration.solve.solve_limit = _QUICK_CONFLICTS
