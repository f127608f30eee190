"""Batches on a Dask cluster (``--scheduler``): the same output, byte for byte, as a run in one process.
A local cluster of two worker processes stands in for a remote one (skipped without Dask)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent.parent
pytestmark = pytest.mark.slow  # every test runs a cluster of worker processes or waits for one that cannot be reached


def fivedp(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module", autouse=True)
def dask():
    pytest.importorskip("dask.distributed")


def test_a_study_on_a_local_cluster_is_the_study_in_one_process(tmp_path):
    # four games of two years, two of which part at once (support_results), one worker's share each
    args = ["explore", "--random-games", "4", "--seed", "3", "--years", "2", "--all-values", "support_results"]
    one = fivedp(*args, "--out", "one", "--html", "one.html", cwd=tmp_path)
    two = fivedp(*args, "--out", "two", "--html", "two.html", "--scheduler", "local", "-j", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and "games whose play changed: 2 of 4" in one.stdout
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()
    written = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "two").iterdir()) and written
    for name in written:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_sweep_and_a_check_on_a_local_cluster(tmp_path):
    sweep = ["explore", str(ROOT / "cases" / "multiverse"), "--option", "adjacency=any", "--json"]
    one, two = fivedp(*sweep, cwd=tmp_path), fivedp(*sweep, "--scheduler", "local", "-j", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 0 and one.stdout == two.stdout
    check = ["check", str(ROOT / "cases" / "mdatc"), "--json"]
    one, two = fivedp(*check, cwd=tmp_path), fivedp(*check, "--scheduler", "local", "-j", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 0 and one.stdout == two.stdout


def test_an_unreachable_scheduler_is_bad_input(tmp_path):
    p = fivedp("check", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--scheduler", "tcp://127.0.0.1:9", cwd=tmp_path)
    assert p.returncode == 2 and "cannot reach a Dask scheduler at tcp://127.0.0.1:9: " in p.stderr and "Traceback" not in p.stderr


def test_a_study_of_bot_games_on_a_local_cluster_is_the_study_in_one_process(tmp_path):
    args = ["explore", "--bot-games", "4", "--seed", "2", "--years", "2", "--bot", "England=greedy",
            "--option", "victory=elimination,majority", "--json"]
    one = fivedp(*args, cwd=tmp_path)
    two = fivedp(*args, "--scheduler", "local", "-j", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and '"kind": "bot_study"' in one.stdout
