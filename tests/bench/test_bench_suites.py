"""`fivedp bench SUITE` runs that suite alone."""

from __future__ import annotations

from fivedp_asp.bench import benchmarks
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
    for name in ("bench_classic", "record_phases", "bench_big", "bench_multiverse", "bench_game"):
        monkeypatch.setattr(benchmarks, name, other)
    assert main(["bench", "possible", "--timelines", "5", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert asked == [(5, 1, 1)]
    assert "--power Russia" in out and "12" in out
    assert "classic" not in out
