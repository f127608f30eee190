"""The dependency policy (docs/dependencies.md): every requirement has a lower bound and an upper bound
at a major version (the one after the newest release tested), or is pinned; the table of
docs/dependencies.md states exactly those bounds, and CI lists each installed one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        found += extra
    return found


def _parts(requirement: str) -> tuple[str, str]:
    name = re.match(r"[A-Za-z0-9_.-]+(\[[a-z,]+\])?", requirement).group(0)  # with its extras: dask[distributed]
    return name.lower(), requirement[len(name):].strip()


def test_every_requirement_is_bounded_below_the_next_major():
    for requirement in _requirements():
        name, spec = _parts(requirement)
        if re.fullmatch(r"==[0-9][0-9.]*", spec):
            continue
        low = re.fullmatch(r">=([0-9]+)\.[0-9.]+,<([0-9]+)", spec)
        assert low, f"{requirement}: write it as >=X.Y.Z,<N (tested lower bound, next major excluded) or ==X.Y.Z"
        assert int(low.group(2)) > int(low.group(1)), f"{requirement}: the upper bound excludes the lower bound"


def test_the_dependencies_page_states_the_bounds():
    page = (ROOT / "docs" / "dependencies.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| ([a-z][\w.\[\],-]*) \| `([^`]+)` \|", page, flags=re.M))
    assert table == dict(_parts(r) for r in _requirements())
    assert "(docs/dependencies.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_lists_every_dependency_it_installed():
    """``.ci/run`` prints the version of each dependency it installed: a requirement missing from its
    list would be tested without anyone seeing which release ran."""
    listed = re.search(r"grep -i -E '\^\(([^)]*)\)==", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))[1]
    names = {re.sub(r"\[.*\]", "", _parts(r)[0]) for r in _requirements()}
    assert names <= set(listed.split("|"))
