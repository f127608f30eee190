"""A broken encoding is an engine defect: exit 3 with clingo's file and line, never a traceback."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent
SCENARIO = ROOT / "cases" / "datc" / "6.A.01.yaml"


def _copy(tmp_path: Path) -> Path:
    """A copy of the package and its logic programs, to break without touching the checkout."""
    shutil.copytree(ROOT / "fivedp_asp", tmp_path / "fivedp_asp", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "asp", tmp_path / "asp")
    return tmp_path


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=root, capture_output=True,
                          text=True, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["adjudicate"], ["check"], ["compare", "--reference", "diplomacy"]])
def test_syntax_error_names_file_and_line(tmp_path, command):
    if command[0] == "compare":
        pytest.importorskip("diplomacy")
    root = _copy(tmp_path)
    scope = root / "asp" / "movement" / "scope.lp"
    lines = scope.read_text().splitlines()
    broken = len(lines) + 1
    scope.write_text("\n".join(lines) + "\nscope(B :- head(B).\n")
    done = _run(root, *command, str(SCENARIO))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert f"asp/movement/scope.lp:{broken}:" in done.stderr
    assert "syntax error" in done.stderr


@pytest.mark.slow
def test_unsafe_rule_names_file_and_line(tmp_path):
    root = _copy(tmp_path)
    outcome = root / "asp" / "movement" / "outcome.lp"
    lines = outcome.read_text().splitlines()
    broken = len(lines) + 1
    outcome.write_text("\n".join(lines) + "\nstray(X) :- head(_).\n")
    done = _run(root, "adjudicate", str(SCENARIO))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert f"asp/movement/outcome.lp:{broken}:" in done.stderr
    assert "unsafe" in done.stderr


@pytest.mark.slow
def test_intact_copy_runs(tmp_path):
    # the copy itself works: the failures above come from the broken lines alone
    done = _run(_copy(tmp_path), "check", str(SCENARIO))
    assert done.returncode == 0, done.stdout + done.stderr


def test_statements_grounded_alone_say_what_clingo_refuses():
    from clingo import ast

    from fivedp_asp.solver.driver import refusals_alone

    def parsed(text: str) -> list:
        out: list = []
        ast.parse_string(text, out.append)
        return out

    assert refusals_alone(parsed("a(X) :- b(X).")) is None
    refused = refusals_alone(parsed("a(X) :- not b(X)."))
    assert refused and any("unsafe" in m for m in refused)
    with pytest.raises(TypeError, match="syntax trees"):
        refusals_alone(["a(X) :- b(X)."])
