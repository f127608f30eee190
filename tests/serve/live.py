"""A real server for the tests that need one: ``fivedp serve`` started as its own process on a free
port of this machine, waited for until it answers, and stopped afterwards."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


PORTS_PER_WORKER = 400
_FIRST_PORT = 31000
_tried = itertools.count(os.getpid() % PORTS_PER_WORKER)  # two runs at once start at different ports


def free_port() -> int:
    """A port no one listens on. A worker of ``pytest -n`` (``PYTEST_XDIST_WORKER`` is ``gw<N>``) takes
    its ports from a range of its own, so that two workers never pick the same one between finding it
    free and starting a server on it (80 ranges from port 31000; a port another program holds is
    passed over); one process alone takes any port the system gives."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    first = _FIRST_PORT + PORTS_PER_WORKER * (int(worker[2:]) % 80)
    for _ in range(PORTS_PER_WORKER):
        port = first + next(_tried) % PORTS_PER_WORKER
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken by another program of this machine
            return port
    raise RuntimeError(f"no free port in {first}..{first + PORTS_PER_WORKER - 1} for worker {worker}")


@contextmanager
def server(db_url: str, cwd: Path, port: int | None = None, args: tuple[str, ...] = ()) -> Iterator[str]:
    """``fivedp serve --db db_url`` (and ``args``) on 127.0.0.1; yields its base address."""
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, "-m", "fivedp_asp.cli", "serve", "--port", str(port), "--db", db_url,
                             *args],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"fivedp serve stopped: {proc.stdout.read()}")
            try:
                urllib.request.urlopen(base + "/openapi.json", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("fivedp serve did not answer within 15 s")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
