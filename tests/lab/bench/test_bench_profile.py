"""`fivedp bench --profile`: the stages of a step's time, and the programs it grounds."""

from __future__ import annotations

import pytest

import time

from fivedp_asp.engine import phase as phase_module
from fivedp_asp.engine import step as step_module
from fivedp_asp.lab.bench.profile import STAGES, profile_step
from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse
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


# -- phases adjudicated together ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_batch_profile_times_every_stage_and_counts_every_program(monkeypatch):
    from fivedp_asp.lab.bench.profile import profile_batch
    from fivedp_asp.lab.bench.classic import record_phases
    from fivedp_asp.engine import batch
    from fivedp_asp.engine.batch import Stages, step_many

    group = record_phases(12, 1)  # 20 phases; the 18th has circular movement (the driver's backup rule)
    # the programs and the phases answered again alone, counted independently of the profiler
    calls: list[tuple[str, ...]] = []
    real = batch.solve_decisions

    def counting(programs, *args, **kwargs):
        calls.append(programs)
        return real(programs, *args, **kwargs)

    monkeypatch.setattr(batch, "solve_decisions", counting)
    stages = Stages()
    t0 = time.perf_counter()
    reports = step_many([(p.mv, p.orders) for p in group], statistics=True, reasons=False, stages=stages)
    wall = time.perf_counter() - t0
    monkeypatch.setattr(batch, "solve_decisions", real)
    assert stages.programs == len(calls) > 0
    assert set(stages.seconds) == set(STAGES)
    assert all(v >= 0 for v in stages.seconds.values())
    assert sum(stages.seconds.values()) <= wall
    assert stages.seconds["parse"] > 0 and stages.seconds["ground"] > 0 and stages.seconds["answer"] > 0
    assert stages.rules > 0 and stages.atoms > 0
    # a phase the joint program left open is settled alone, and only such a phase has backups here
    assert stages.alone == sum(1 for r in reports if r.backups) == 1
    # the profile divides a run's stages by the group's size
    profile = profile_batch(group, repeat=1)
    assert profile.phases == len(group) and profile.programs == stages.programs and profile.alone == stages.alone
    assert profile.rules == stages.rules / len(group)


@pytest.mark.slow
def test_a_batch_profile_command_prints_every_stage(capsys):
    assert main(["bench", "classic", "--profile", "--batch", "4", "--phases", "6", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(n for n, line in enumerate(lines) if line.split()[:2] == ["groups", "phases"])
    assert lines[header].split()[2:2 + len(STAGES)] == list(STAGES)
    row = lines[header + 1].split()
    assert int(row[0]) == -(-int(row[1]) // 4) and all(float(x) >= 0 for x in row[2:])


def test_batch_is_refused_where_it_means_nothing(capsys):
    assert main(["bench", "multiverse", "--batch", "4"]) == 2
    assert "--batch is for the classic benchmark" in capsys.readouterr().err
    assert main(["bench", "classic", "--profile", "--batch", "0"]) == 2
    assert "--batch must be at least 1" in capsys.readouterr().err
