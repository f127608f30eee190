"""No module of the package is over ``MAX_LINES`` lines: a module that grows past them holds more than
one job, and is split along its own seams (one job a module, each named for what it holds) before it
grows further.

The modules still over the limit are listed in ``ALLOWED_OVER``, each with its reason; an entry that
excuses nothing any more (the module split, or gone) fails too, so the list only shrinks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

PACKAGE = Path(__file__).resolve().parents[2] / "fivedp_asp"  # the source tree, read, never imported
MAX_LINES = 700

ALLOWED_OVER: Mapping[str, str] = {}
"""Modules over ``MAX_LINES`` lines (paths inside the package), each with why it is still there."""


def module_lines(root: Path) -> dict[str, int]:
    """The lines of every module under ``root``, by its path inside ``root``."""
    return {path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(root.rglob("*.py"))}


def size_problems(lines: Mapping[str, int], allowed: Mapping[str, str] = ALLOWED_OVER,
                  limit: int = MAX_LINES) -> list[str]:
    """Each module over ``limit`` lines and not ``allowed``, and each entry of ``allowed`` that
    excuses nothing: a module no longer there, or no longer over the limit."""
    problems = [f"{name}: {n:,} lines (at most {limit:,}): split it along its seams"
                for name, n in sorted(lines.items()) if n > limit and name not in allowed]
    problems += [f"ALLOWED_OVER {name!r}: " + ("no such module" if name not in lines else
                                               f"{lines[name]:,} lines, within the limit: take it out")
                 for name in allowed if lines.get(name, 0) <= limit]
    return problems


def test_no_module_of_the_package_is_over_the_limit():
    lines = module_lines(PACKAGE)
    assert len(lines) > 50 and "solver/driver.py" in lines  # the scan sees the package
    problems = size_problems(lines)
    assert not problems, "modules over the limit:\n" + "\n".join(problems)


def test_a_module_over_the_limit_is_told_and_a_stale_exception_too(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "big.py").write_text("x = 1\n" * 8, encoding="utf-8")
    (tmp_path / "engine" / "small.py").write_text("x = 1\n" * 3, encoding="utf-8")
    (tmp_path / "old.py").write_text("x = 1\n" * 9, encoding="utf-8")
    lines = module_lines(tmp_path)
    assert lines == {"engine/big.py": 8, "engine/small.py": 3, "old.py": 9}
    assert size_problems(lines, allowed={"old.py": "being split"}, limit=5) == [
        "engine/big.py: 8 lines (at most 5): split it along its seams"]
    assert size_problems(lines, allowed={"engine/small.py": "x", "gone.py": "y"}, limit=5) == [
        "engine/big.py: 8 lines (at most 5): split it along its seams",
        "old.py: 9 lines (at most 5): split it along its seams",
        "ALLOWED_OVER 'engine/small.py': 3 lines, within the limit: take it out",
        "ALLOWED_OVER 'gone.py': no such module"]
    assert size_problems(lines, allowed={}, limit=9) == []  # the limit itself is allowed
