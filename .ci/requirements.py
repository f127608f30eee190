"""The dependency sets CI installs, read from pyproject.toml so that the bounds are written once.

``python3 .ci/requirements.py oldest`` prints every requirement pinned to its lower bound (the oldest
releases the project claims to work with); ``latest`` prints the bare names (the newest releases,
upper bounds lifted, so that a new major release is seen here before the bound lets users have it).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

def requirements() -> list[str]:
    """Every requirement, the extras' included: CI runs every test, none skipped for a missing extra."""
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    found = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        found += extra
    return found


def split(requirement: str) -> tuple[str, str | None]:
    """The distribution name and the version the requirement is pinned to or bounded below by."""
    name = re.match(r"[A-Za-z0-9_.-]+(\[[A-Za-z0-9_,.-]+\])?", requirement).group(0)  # dask[distributed]
    low = re.search(r"(?:>=|==)\s*([0-9][^,;\s]*)", requirement)
    return name, low.group(1) if low else None


def main(mode: str) -> int:
    for requirement in requirements():
        name, low = split(requirement)
        if mode == "oldest":
            if low is None:
                print(f"{requirement}: no lower bound", file=sys.stderr)
                return 2
            print(f"{name}=={low}")
        else:
            print(name)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("oldest", "latest"):
        print("usage: python3 .ci/requirements.py oldest|latest", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
