"""A solver call is first made in the caller's thread with a bound on its conflicts, and made again in
a thread the clock can stop when that bound is reached (``calls._solve``): the answer is the same
either way, and the time limit still stops a long search."""

from __future__ import annotations

import clingo
import pytest

from fivedp_asp.errors import TimeLimitError
from fivedp_asp.solver.calls import _FIRST_MODELS, _QUICK_CONFLICTS, _solve, new_control
from fivedp_asp.solver.limits import _Clock

# n pigeons, n - 1 holes: no model, and the solver meets far more conflicts than the quick bound
# before it knows (9 pigeons: some 27,000 conflicts; 11: some 1.6 million, many seconds)
PIGEONS = "p(1..{n}). h(1..{m}). 1 {{ a(P,H) : h(H) }} 1 :- p(P). :- a(P1,H), a(P2,H), P1 < P2."


BOUND = f"{_QUICK_CONFLICTS},umax"  # the quick attempt's bound, as the configuration spells it


def _control(program: str) -> clingo.Control:
    ctl = new_control()
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    return ctl


def test_a_new_control_is_bounded_and_asks_for_two_models():
    ctl = new_control()
    assert ctl.configuration.solve.solve_limit == BOUND
    assert int(ctl.configuration.solve.models) == _FIRST_MODELS == 2


def test_a_quick_call_is_not_made_again():
    ctl = _control("{ a; b }.")
    seen, restarts = [], []
    result = _solve(ctl, _Clock(60.0), [], on_model=lambda m: seen.append(m.symbols(atoms=True)),
                    restart=lambda: restarts.append(1), wanted=2)
    assert result.satisfiable and len(seen) == 2 and not restarts
    assert ctl.configuration.solve.solve_limit == BOUND


@pytest.mark.slow
def test_a_call_past_the_bound_is_made_again_and_answers_alike():
    ctl = _control(PIGEONS.format(n=9, m=8))
    seen, restarts = [], []

    def restart() -> None:
        restarts.append(len(seen))
        seen.clear()

    result = _solve(ctl, _Clock(60.0), [], on_model=seen.append, restart=restart, wanted=2)
    assert result.unsatisfiable and result.exhausted and not seen and restarts == [0]
    # the call made again was unbounded; the next call's quick attempt is bounded again
    assert ctl.configuration.solve.solve_limit == BOUND


def test_a_call_past_the_bound_with_one_model_is_made_again():
    # one model (x), and past it a search that the quick attempt cannot finish: asked for two models,
    # that attempt stops with at most one, and the call made again finds exactly the one
    ctl = _control("{ x }. p(1..9). h(1..8). 1 { a(P,H) : h(H) } 1 :- p(P), not x. "
                   ":- a(P1,H), a(P2,H), P1 < P2. #show x/0.")
    seen: list[list[str]] = []
    restarts: list[int] = []

    def restart() -> None:
        restarts.append(len(seen))
        seen.clear()

    result = _solve(ctl, _Clock(60.0), [], on_model=lambda m: seen.append([str(a) for a in m.symbols(shown=True)]),
                    restart=restart, wanted=2)
    assert result.satisfiable and result.exhausted and len(restarts) == 1
    assert seen == [["x"]]


def test_the_time_limit_stops_a_search_past_the_bound():
    ctl = _control(PIGEONS.format(n=11, m=10))
    with pytest.raises(TimeLimitError, match="time limit of 0.2 s"):
        _solve(ctl, _Clock(0.2), [], restart=lambda: None, wanted=2)
    assert ctl.configuration.solve.solve_limit == BOUND


def test_a_call_for_a_core_is_unbounded_and_leaves_the_bound_behind():
    # a core is asked for straight away in a thread of its own: no quick attempt, no bound
    ctl = _control(PIGEONS.format(n=9, m=8) + " #external e.")
    e = ctl.symbolic_atoms[clingo.Function("e")].literal
    core: list[int] = []
    result = _solve(ctl, _Clock(60.0), [e], core=core)
    assert result.unsatisfiable and result.exhausted
    assert ctl.configuration.solve.solve_limit == BOUND
