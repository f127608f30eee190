"""The command line without the extras: ``pip install .`` has no starlette, uvicorn or scipy, and every
command but those needing them must still start (the README's first command runs on such an install)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_command_line_starts_without_the_extras():
    # a module set to None in sys.modules cannot be imported: as if the extra were not installed
    code = ("import sys\n"
            "for name in ('starlette', 'uvicorn', 'scipy', 'psycopg', 'dask', 'playwright'):\n"
            "    sys.modules[name] = None\n"
            "from fivedp_asp.cli import main\n"
            "sys.exit(main(['adjudicate', 'cases/mdatc/3.A.2.yaml']))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("MDATC 3.A.2: Support to repelled past move forks timeline\n")
