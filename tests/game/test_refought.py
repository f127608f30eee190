"""Which past boards a step fought again, and why: the step's report names each with the new orders
that reached it (``Fought again: a0 (because of A a-Mun@1 S a-Mun@0 - a-Tyr@0)``, ``refought`` in
JSON), and ``game show FILE BOARD`` tells the same of the board's later battles, from the history.
The two are made apart (the rules' ``reaches/2``; the recorded results), so random games compare them."""

from __future__ import annotations

import pytest

import dataclasses
import json

from fivedp_asp.cli import main
from fivedp_asp.game.play import adjudicate, fights
from fivedp_asp.model.multiverse import board_name
from fivedp_asp.report.jsonout import history_document, step_json

from tests.game.test_rewound import random_games


@pytest.mark.slow
def test_the_report_and_the_history_name_the_same_boards_and_orders(tmp_path):
    seen = 0
    for seed, options in ((4, {}), (5, {"adjacency": "any"})):
        games = random_games(seed, 12, options)
        last = games[-1]
        history = history_document(last)
        for n in range(1, len(games)):
            before = dataclasses.replace(games[n - 1], pending=dict(last.history[n - 1]["orders"]))
            _, report = adjudicate(before, reasons=False)
            from_report = {board_name(*k): set(because) for k, because in report.refought}
            from_history = {}
            for key in last.mv.boards:
                for f in fights(last, board_name(*key)):
                    if f.step == n and f.because:
                        from_history[board_name(*key)] = set(f.because)
            assert from_report == from_history, f"seed {seed}, step {n}"
            seen += len(from_report)
            listed = [{"board": b, "because": sorted(v)} for b, v in sorted(from_report.items())]
            assert step_json(report, n)["refought"] == listed
            assert history["steps"][n - 1]["refought"] == listed
    assert seen > 5


def test_a_player_reads_why_a_past_board_was_fought_again(tmp_path, capsys):
    path = tmp_path / "g.yaml"
    assert main(["game", "new", str(path)]) == 0
    assert main(["game", "orders", str(path), "A Mun - Tyr", "A Vie - Boh"]) == 0
    assert main(["game", "adjudicate", str(path)]) == 0
    assert main(["game", "orders", str(path), "A Tyr - a-Boh@0", "A Boh S A Tyr - a-Boh@0"]) == 0
    capsys.readouterr()
    assert main(["game", "adjudicate", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  Fought again: a0 (because of A a-Boh@1 S a-Tyr@1 - a-Boh@0; A a-Tyr@1 - a-Boh@0)" in out
    assert main(["game", "show", str(path), "a0"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert "  Forked into b at step 2 (because of A a-Boh@1 S a-Tyr@1 - a-Boh@0; A a-Tyr@1 - a-Boh@0)" in shown
    assert main(["game", "show", str(path), "a0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["refought"] == [{"step": 2, "forked_into": "b",
                                 "because": ["A a-Boh@1 S a-Tyr@1 - a-Boh@0", "A a-Tyr@1 - a-Boh@0"]}]
