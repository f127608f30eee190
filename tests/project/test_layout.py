"""The tests are laid out like the package: every test file sits in a folder of tests/ named after a
part of ``fivedp_asp`` (a subpackage such as ``engine``, or ``lab/explore`` for ``fivedp_asp/lab/explore``,
the folders nested as the subpackages are; ``base`` for the top-level
modules errors, limits, inputs, yaml_lines and shapes; ``api`` for the public API), or in ``cases`` (the scenario corpus) or
``project`` (README, docs, dependencies, this layout). A test file at the top of tests/ or in a folder
of its own would hide what it tests.

Every folder of tests is a package: pytest then imports a test module by its full name
(``tests.engine.test_batch``), and two folders may hold files of the same name without a clash."""

from __future__ import annotations

import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
OUTSIDE_THE_SUBPACKAGES = {"base", "api", "cases", "project"}


def _test_files() -> list[Path]:
    """Every file pytest collects tests from by its default names."""
    found = {p for pattern in ("test_*.py", "*_test.py") for p in TESTS.rglob(pattern)}
    return sorted(p for p in found if "__pycache__" not in p.parts)


def _folders() -> set[str]:
    """The folders a test file may sit in (relative to tests/): one for each subpackage of fivedp_asp,
    nested as it is, and the others."""
    package = ROOT / "fivedp_asp"
    subpackages = {p.parent.relative_to(package).as_posix() for p in package.rglob("*/__init__.py")}
    assert {"engine", "model", "files", "lab/explore"} <= subpackages
    return subpackages | OUTSIDE_THE_SUBPACKAGES


def test_every_test_file_is_in_the_folder_of_a_part_of_the_package():
    files = _test_files()
    assert len(files) > 40
    folders = _folders()
    misplaced = [str(p.relative_to(TESTS)) for p in files
                 if p.parent.relative_to(TESTS).as_posix() not in folders]
    assert not misplaced, f"test files outside a folder of a part of fivedp_asp ({sorted(folders)}): {misplaced}"


def test_every_folder_with_tests_is_a_package():
    folders = {p.parent for p in _test_files()} | {TESTS}
    missing = sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file())
    assert not missing, f"folders without __init__.py: {missing}"


def test_the_slow_marker_is_registered_and_unknown_markers_are_refused():
    """``-m "not slow"`` leaves out exactly the tests marked slow: a misspelt marker would be an
    unmarked test, so unknown markers are errors."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"].split()
    assert any(m.split(":")[0].strip() == "slow" for m in options["markers"])
