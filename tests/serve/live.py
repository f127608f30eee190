"""A real server for the tests that need one: ``fivedp serve`` started as its own process on a free
port of this machine, waited for until it answers, and stopped afterwards."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
