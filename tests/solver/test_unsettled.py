"""``solve_decisions(settle=False)``, as many phases solved in one program ask for it (``engine/batch.py``):
with several models, no backup rule is applied; the answer holds the shown atoms true in every model,
and ``unsettled`` those true in some only. One model, or none, is answered as when settling."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedp_asp.errors import AdjudicationError
from fivedp_asp.solver.driver import solve_decisions
from fivedp_asp.solver.terms import symbol_texts


def _program(tmp_path: Path, text: str) -> str:
    # a program given by absolute path is used whole, as rules of your own are
    path = tmp_path / "program.lp"
    path.write_text(text + "\n#show a/0. #show b/0. #show c/1.\n")
    return str(path)


def test_several_models_give_what_holds_in_all_and_what_holds_in_some(tmp_path):
    # four models: {a}, {b} and c(1) in each; c(2) with a only, c(3) in every model but through either
    program = _program(tmp_path, "{ a }. b :- not a. c(1). c(2) :- a. c(3) :- a. c(3) :- b. { d }.")
    answer = solve_decisions((program,), "", settle=False)
    assert sorted(symbol_texts(answer.atoms)) == ["c(1)", "c(3)"]
    assert sorted(symbol_texts(answer.unsettled)) == ["a", "b", "c(2)"]
    assert answer.backups == ()


def test_one_model_is_the_answer_whether_settled_or_not(tmp_path):
    program = _program(tmp_path, "a. c(1) :- a. c(2) :- not b.")
    unsettled = solve_decisions((program,), "", settle=False)
    settled = solve_decisions((program,), "")
    assert sorted(symbol_texts(unsettled.atoms)) == sorted(symbol_texts(settled.atoms)) == ["a", "c(1)", "c(2)"]
    assert unsettled.unsettled == () == settled.unsettled


def test_no_model_is_settled_by_the_backup_rules_even_unasked(tmp_path):
    # no model and no convoy paradox to explain it: the driver says so, as it does when settling
    program = _program(tmp_path, "a :- not a.")
    for settle in (True, False):
        with pytest.raises(AdjudicationError, match="no adjudication satisfies the rules"):
            solve_decisions((program,), "", settle=settle)
