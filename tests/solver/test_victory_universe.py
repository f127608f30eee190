"""The victory rules answered on a program grounded once (solve.solve_in_universe) give the answer of a
program grounded for the phase's own facts, and the answer the rules state (docs/rules.md §6.7)."""

from __future__ import annotations

import pytest

from fivedp_asp.engine import victory as victory_module
from fivedp_asp.api import new_game, settings
from fivedp_asp.model.multiverse import make_board
from fivedp_asp.engine.answer import Answer
from fivedp_asp.solver.driver import solve_decisions, solve_in_universe


def _with_head(mv, keep_units, keep_centres, timeline=0):
    """``mv`` with the head of ``timeline`` replaced by one whose units and centres pass the filters."""
    head = next(h for h in mv.heads if h.timeline == timeline)
    units = [u for u in head.units.values() if keep_units(u)]
    centres = {p: o for p, o in head.centers.items() if keep_centres(p, o)}
    return mv.with_boards([make_board(head.timeline, head.turn, units, centres)])


def _answers(mv):
    """(eliminated, winners) from the plain program and from the universe's program."""
    query = next(victory_module.adjudicate(mv))
    assert query.universe is not None
    out = []
    for solution in (solve_decisions(query.programs, query.text(), query.static),
                     solve_in_universe(query.programs, query.universe, query.static)):
        answer = Answer.of(solution.atoms)
        out.append((sorted(p for _, p in answer.values("eliminated")), sorted(p for _, p in answer.values("winner"))))
    return out


def test_nothing_happens_at_the_opening():
    plain, universe = _answers(new_game().mv)
    assert plain == universe == ([], [])


def test_a_power_with_nothing_left_is_eliminated():
    mv = _with_head(new_game().mv, lambda u: u.power != "Austria", lambda p, o: o != "Austria")
    plain, universe = _answers(mv)
    assert plain == universe == (["austria"], [])


def test_units_alone_or_centres_alone_keep_a_power_in():
    mv = new_game().mv
    no_units = _with_head(mv, lambda u: u.power != "Italy", lambda p, o: True)
    no_centres = _with_head(mv, lambda u: True, lambda p, o: o != "Italy")
    for case in (no_units, no_centres):
        plain, universe = _answers(case)
        assert plain == universe == ([], [])


def test_the_last_power_left_wins():
    mv = _with_head(new_game().mv, lambda u: u.power == "France", lambda p, o: o == "France")
    plain, universe = _answers(mv)
    assert plain == universe
    assert universe[1] == ["france"]
    assert len(universe[0]) == 6


def test_a_power_eliminated_before_stays_out():
    mv = new_game().mv
    mv = mv.standing(frozenset({"Turkey"}), None)
    mv = _with_head(mv, lambda u: u.power != "Russia", lambda p, o: o != "Russia")
    plain, universe = _answers(mv)
    assert plain == universe
    assert "russia" in universe[0] and "turkey" not in universe[0]


@pytest.mark.parametrize("option", ["majority", "unique"])
def test_other_options_are_answered_by_their_own_program(option):
    game = new_game(settings({"victory": option}))
    query = next(victory_module.adjudicate(game.mv))
    assert query.universe is None


def test_heads_that_stand_alike_are_judged_once(monkeypatch):
    """Under victory=elimination the facts name one head per standing (powers with units, powers with
    centres): the same eliminations and winner as with every head named."""
    from fivedp_asp.lab.bench.positions import synthetic_multiverse

    base = synthetic_multiverse(6, 30)
    cases = [base,
             _with_head(base, lambda u: u.power != "Austria", lambda p, o: o != "Austria", timeline=3),
             _with_head(_with_head(base, lambda u: u.power != "Italy", lambda p, o: True, timeline=1),
                        lambda u: True, lambda p, o: o != "Italy", timeline=4),
             _with_head(base, lambda u: u.power == "France", lambda p, o: o == "France", timeline=2)]
    for mv in cases:
        judged = victory_module.victory(mv)
        query = next(victory_module.adjudicate(mv))
        assert len({f[2] for f in query.facts if f[0] == "head"}) < len(mv.heads)
        with monkeypatch.context() as m:
            m.setattr(victory_module, "_standings", lambda mv: list(mv.heads))
            every_head = victory_module.victory(mv)
        assert (judged.eliminated, judged.winner) == (every_head.eliminated, every_head.winner)
    assert victory_module.victory(cases[1]).eliminated == {"Austria"}
    assert victory_module.victory(cases[2]).eliminated == frozenset()
