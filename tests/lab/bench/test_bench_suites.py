"""`fivedp bench SUITE` runs that suite alone."""

from __future__ import annotations

import pytest

from fivedp_asp.lab.bench import benchmarks, classic
from fivedp_asp.cli import main


def test_the_possible_suite_prints_its_table_and_runs_no_other(monkeypatch, capsys):
    asked: list[tuple] = []

    def listing(timelines, seed, repeat):
        asked.append((timelines, seed, repeat))
        return [{"question": "--power Russia", "orders": 12, "cpu_s": 0.5, "boards": 3, "peak_mb": 10.0}]

    def other(*args, **kwargs):
        raise AssertionError("bench possible ran another suite")

    # the command imports the suites when it runs (cli/bench.py): replaced where it finds them
    monkeypatch.setattr(benchmarks, "bench_possible", listing)
    for module, name in ((classic, "bench_classic"), (classic, "record_phases"), (benchmarks, "bench_big"),
                         (benchmarks, "bench_multiverse"), (benchmarks, "bench_game")):
        monkeypatch.setattr(module, name, other)
    assert main(["bench", "possible", "--timelines", "5", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert asked == [(5, 1, 1)]
    assert "--power Russia" in out and "12" in out
    assert "classic" not in out


@pytest.mark.slow
def test_the_selfplay_suite_times_classic_and_multiverse_games(capsys):
    assert main(["bench", "selfplay", "--games", "1", "--years", "2", "--bot", "random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("selfplay: seven random bots, one game at a time (seed 1), classic games of 2 years")
    rows = [line.split() for line in out if line.startswith(("classic ", "multiverse ")) and "mean" not in line]
    assert [(r[0], r[2]) for r in rows] == [("classic", "2"), ("multiverse", "1")]
    assert all(float(r[-1]) > 0 for r in rows)
    assert sum("100 such games take about" in line for line in out) == 2
