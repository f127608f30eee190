"""`fivedp bench --profile`: the stages of a step's time, and the programs it grounds."""

from __future__ import annotations

import time

from fivedp_asp.engine import phase as phase_module
from fivedp_asp.engine import step as step_module
from fivedp_asp.bench.benchmarks import STAGES, profile_step, step_orders, synthetic_multiverse
from fivedp_asp.cli import main
from fivedp_asp.solver.driver import encoding_size


def _grounded_programs(mv, orders) -> list[str]:
    """The programs ``step`` grounds for this step, counted independently of the profiler."""
    seen: list[str] = []
    real = phase_module.solve_decisions

    def counting(programs, *args, **kwargs):
        seen.append(programs[0].removesuffix(".lp"))
        return real(programs, *args, **kwargs)

    phase_module.solve_decisions = counting
    try:
        step_module.step(mv, orders)
    finally:
        phase_module.solve_decisions = real
    return seen


def test_a_classic_phase_grounds_one_program_and_reuses_the_victory_program():
    from fivedp_asp.api import new_game

    mv = new_game().mv
    orders = {"France": ["A Paris - Burgundy"]}
    profile = profile_step(mv, orders)
    assert list(profile.programs) == _grounded_programs(mv, orders) == ["movement"]


def test_profile_counts_every_program_and_stays_within_the_wall_time():
    mv = synthetic_multiverse(2, 20)
    orders, _ = step_orders(mv, 4, 1)
    t0 = time.perf_counter()
    profile = profile_step(mv, orders)
    wall = time.perf_counter() - t0
    assert profile.phase == "movement"
    assert list(profile.programs) == _grounded_programs(mv, orders)
    assert set(profile.seconds) == set(STAGES)
    assert all(v >= 0 for v in profile.seconds.values())
    assert sum(profile.seconds.values()) <= wall
    assert profile.seconds["ground"] > 0 and profile.seconds["add"] > 0
    # the first program is the movement encoding with the option files in effect, without the reasons
    # (the benchmarks read none); with them the grounder is handed more
    first = next(step_module.steps(mv, orders, reasons=False))
    assert profile.statements == encoding_size(first.programs, first.text(), first.static)
    full = next(step_module.steps(mv, orders))
    assert profile_step(mv, orders, reasons=True).statements == encoding_size(full.programs, full.text(), full.static)
    assert profile.statements < encoding_size(full.programs, full.text(), full.static)
    # the rules that cannot fire on the step's facts are not handed over (no open convoys here)
    assert profile.statements < encoding_size(phase_module.program(mv, "movement"))
    assert profile.rules > 0 and profile.atoms > 0


def test_profile_is_refused_for_other_suites(capsys):
    assert main(["bench", "big", "--profile"]) == 2
    assert "--profile is for the classic and multiverse benchmarks" in capsys.readouterr().err


def test_profile_command_prints_every_stage(capsys):
    assert main(["bench", "multiverse", "--profile", "--heads", "1", "--history", "10", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("phase"))
    assert header.split()[2:2 + len(STAGES)] == list(STAGES)
    assert any(line.startswith("movement") for line in out.splitlines())
