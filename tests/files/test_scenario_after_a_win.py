"""A scenario's steps after the game is won (docs/case-format.md, ``winner``): the game is over, so no
such step is adjudicated; one that gives orders or expects anything but the winner is refused on its
line, and an expected winner is still held to the standing."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from fivedp_asp.cli import main
from fivedp_asp.files.scenarios import ScenarioError, check_scenarios, read_scenario

WON = Path(__file__).parent.parent.parent / "cases" / "rules" / "no-step-after-a-win.yaml"


def _with_last_step(tmp_path: Path, step: str) -> Path:
    text = WON.read_text(encoding="utf-8")
    head = text[:text.index("  - note: after the win")]
    path = tmp_path / "won.yaml"
    path.write_text(head + step, encoding="utf-8")
    return path


def _cli(*argv: str) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, err.getvalue() + out.getvalue()


def test_the_step_after_a_win_is_not_played():
    run = check_scenarios([read_scenario(WON)])[0]
    assert run.passed, run.problems
    assert len(run.reports) == 1  # the first step only: France won in it
    assert run.reports[0].after.winner == "France"


def test_orders_after_a_win_are_refused_on_their_step_line(tmp_path):
    path = _with_last_step(tmp_path, "  - orders:\n      France: [A London - Wales]\n")
    run = check_scenarios([read_scenario(path)])[0]
    assert isinstance(run, ScenarioError)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[run.line - 1].strip() == "- orders:"
    assert run.problem == ("step 2 gives orders, but France won the game in step 1: no step is played after "
                           "a win (a step after it may only expect 'winner')")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:{run.line}: step 2 gives orders" in text and "Traceback" not in text


def test_other_expectations_after_a_win_are_refused(tmp_path):
    path = _with_last_step(tmp_path, "  - expect:\n      winner: France\n      timelines: [a]\n")
    run = check_scenarios([read_scenario(path)])[0]
    assert isinstance(run, ScenarioError)
    assert run.problem.startswith("step 2 expects 'timelines', but France won the game in step 1")


def test_a_wrong_winner_after_a_win_is_a_failed_expectation(tmp_path):
    path = _with_last_step(tmp_path, "  - expect: {winner: England}\n")
    run = check_scenarios([read_scenario(path)])[0]
    assert run.problems == ("step 2 (after the win): winner: expected England, got France",)
    code, text = _cli("check", str(path))
    assert code == 1 and "step 2 (after the win): winner: expected England, got France" in text
