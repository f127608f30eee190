"""``--scheduler`` when the cluster is not what it should be: a bad address, a service that is not a Dask
scheduler, a worker or a scheduler that goes away. Each ends the command within a bounded time with
one line on standard error and exit status 2, never a hang, a traceback, Dask's own log lines or exit
status 3; results printed before a cluster was lost are the ones a run in one process prints.

The clusters are real: a ``dask scheduler`` and a ``dask worker`` started here as processes of their
own and ended with signals (skipped without Dask)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fivedp_asp.lab.check import workers
from fivedp_asp.lab.check.workers import CONNECT_SECONDS, LOST_SECONDS, in_batches
from fivedp_asp.errors import InputError
from fivedp_asp.files.scenarios import find_scenarios
from tests import forked

ROOT = Path(__file__).resolve().parent.parent.parent.parent
ACCEPTED = ("tcp://HOST:PORT", "local")  # every message on a bad address says what is accepted
MARGIN = 30  # seconds a test allows past a bound: starting Python, a last unanswered question, closing the client


@pytest.fixture(scope="module", autouse=True)
def dask():
    pytest.importorskip("dask.distributed")


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def fivedp(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, env=environment(),
                          capture_output=True, text=True, timeout=timeout)


def refused(*args: str, cwd: Path, timeout: float = 60,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A command that ends before any cluster is reached, as a process of its own forked from this
    checkout's code (``tests/forked.py``) rather than a new interpreter importing it: an address refused,
    or a service that is not a scheduler."""
    return forked.fivedp(cwd, *args, timeout=timeout, env=env)


def one_error_line(stderr: str) -> str:
    """The single line a failure prints: ``error: ...``, and nothing of Dask's."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


# -- addresses that are wrong before anything is sent -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("address, problem", [
    ("bogus://x", "'bogus' addresses are not supported"),
    ("", "no address"),
    ("inproc://x", "'inproc' addresses are not supported"),
    ("ucx://127.0.0.1:8786", "'ucx' addresses are not supported"),
    ("tcp://127.0.0.1", "no port"),
    ("127.0.0.1", "no port"),
    ("tcp://127.0.0.1:99999", "port must be a number from 1 to 65535"),
    ("tcp://127.0.0.1:http", "port must be a number from 1 to 65535"),
    ("tcp://:8786", "no host"),
    ("tcp://127.0.0.1:8786/status", "a path"),
    ("tls://127.0.0.1:8786", "TLS"),
])
def test_a_bad_address_is_bad_input_that_says_what_is_accepted(tmp_path, address, problem):
    # DASK_CONFIG points at an empty folder, so no TLS set up elsewhere changes the tls:// case
    env = {"DASK_CONFIG": str(tmp_path)}
    for command in (["check", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml")],
                    ["explore", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--option", "adjacency=any"]):
        p = refused(*command, "--scheduler", address, cwd=tmp_path, env=env)
        line = one_error_line(p.stderr)
        assert p.returncode == 2 and p.stdout == "", (command, p.stderr)
        assert line.startswith("error: --scheduler ") and problem in line, line
        assert all(a in line for a in ACCEPTED), line


@pytest.mark.slow
def test_a_closed_port_is_told_at_once(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free again once closed: nothing listens there
    started = time.monotonic()
    p = refused("check", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--scheduler", f"tcp://127.0.0.1:{port}",
                cwd=tmp_path)
    line = one_error_line(p.stderr)
    assert p.returncode == 2 and f"cannot reach a Dask scheduler at tcp://127.0.0.1:{port}: " in line, line
    assert "refused" in line and time.monotonic() - started < CONNECT_SECONDS, line


# -- services that are not a Dask scheduler -----------------------------------------------------------


class Server:
    """A TCP server on a free loopback port, in a thread of this process: ``answer`` is sent back to
    whatever a client sends (``None``: nothing is ever sent), and the connection is held open."""

    def __init__(self, answer: bytes | None):
        self.answer = answer
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.held: list[socket.socket] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.socket.accept()
            except (TimeoutError, OSError):
                continue
            self.held.append(conn)
            if self.answer is not None:
                conn.settimeout(5)
                try:
                    conn.recv(65536)
                    conn.sendall(self.answer)
                except OSError:
                    pass

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        for conn in self.held:
            conn.close()
        self.socket.close()


@pytest.fixture
def server(request):
    s = Server(request.param)
    yield s
    s.close()


HTTP_ANSWER = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nBad Request"


@pytest.mark.slow
@pytest.mark.parametrize("server", [HTTP_ANSWER], indirect=True)
def test_an_http_server_is_not_a_scheduler(tmp_path, server):
    started = time.monotonic()
    p = refused("check", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--scheduler", f"tcp://127.0.0.1:{server.port}",
                cwd=tmp_path)
    line = one_error_line(p.stderr)
    assert p.returncode == 2 and f"cannot reach a Dask scheduler at tcp://127.0.0.1:{server.port}: " in line, line
    assert "does not answer as a Dask scheduler" in line, line
    assert time.monotonic() - started < CONNECT_SECONDS + MARGIN


@pytest.mark.slow  # waits the whole time allowed for an answer
@pytest.mark.parametrize("server", [None], indirect=True)
def test_a_server_that_never_speaks_is_given_up_on(tmp_path, server):
    started = time.monotonic()
    p = refused("explore", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--option", "adjacency=any",
                "--scheduler", f"127.0.0.1:{server.port}", cwd=tmp_path, timeout=CONNECT_SECONDS + 2 * MARGIN)
    line = one_error_line(p.stderr)
    assert p.returncode == 2 and f"cannot reach a Dask scheduler at tcp://127.0.0.1:{server.port}: " in line, line
    assert f"no answer within {CONNECT_SECONDS:g} s" in line, line
    assert time.monotonic() - started < CONNECT_SECONDS + MARGIN


# -- a real cluster that loses its worker or its scheduler --------------------------------------------


class Cluster:
    """A ``dask scheduler`` and one ``dask worker`` (no nanny, so a killed worker stays dead), each a
    process of its own with its log in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.processes: list[subprocess.Popen] = []
        file = folder / "scheduler.json"
        self.scheduler = self._start("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                                    "--port", "0", "--no-dashboard", "--scheduler-file", str(file)])
        self._wait(lambda: file.exists() and file.read_text().strip().endswith("}"), "the scheduler's file")
        self.address = json.loads(file.read_text())["address"]
        self.worker = self._start("worker", ["distributed.cli.dask_worker", self.address, "--no-nanny",
                                              "--nthreads", "1", "--no-dashboard", "--local-directory", str(folder)])
        self._wait(lambda: "Registered to" in (folder / "worker.log").read_text(), "the worker")

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "w")
        p = subprocess.Popen([sys.executable, "-m", *args], cwd=self.folder, env=environment(), stdout=log,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.processes.append(p)
        return p

    def _wait(self, ready, what: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                raise RuntimeError(f"{what} did not start: " + " | ".join(
                    f.read_text()[-2000:] for f in self.folder.glob("*.log")))
            time.sleep(0.2)

    def stop(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)  # a stopped process takes no other signal
                p.kill()
            p.wait(10)


@pytest.fixture
def cluster(tmp_path):
    folder = tmp_path / "cluster"
    folder.mkdir()
    c = Cluster(folder)
    yield c
    c.stop()


class Run:
    """``fivedp args`` started in the background, its output going to files that the test reads while
    it runs."""

    def __init__(self, folder: Path, *args: str):
        self.out, self.err = folder / "out.txt", folder / "err.txt"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.process = subprocess.Popen([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=folder,
                                            env=environment(), stdout=out, stderr=err, stdin=subprocess.DEVNULL)

    def first_line(self, seconds: float = 120) -> None:
        """Waits for the first line of results: the cluster has run a batch."""
        deadline = time.monotonic() + seconds
        while "\n" not in self.out.read_text():
            assert self.process.poll() is None, self.err.read_text()
            assert time.monotonic() < deadline, "no result came back from the cluster"
            time.sleep(0.05)

    def end(self, seconds: float) -> tuple[int, str, str]:
        try:
            status = self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"still running {seconds:g} s later: {self.err.read_text()[-2000:]}")
        return status, self.out.read_text(), self.err.read_text()


def printed_first(folder: Path, args: list[str], out: str) -> str:
    """What ``fivedp args`` run in one process prints first, as long as ``out`` at least (or all it
    prints): a run that lost its cluster is compared with the start of one that did not, so the
    one-process run is ended once it has printed that much, rather than left to do the rest."""
    folder.mkdir()
    run = Run(folder, *args)
    wanted = len(out.encode("utf-8"))
    end = time.monotonic() + 300  # as long as the whole run was given before
    while run.process.poll() is None and run.out.stat().st_size < wanted and time.monotonic() < end:
        time.sleep(0.05)
    if run.process.poll() is None:
        run.process.kill()
    status = run.process.wait()
    assert status in (0, -signal.SIGKILL), run.err.read_text()
    return run.out.read_bytes().decode("utf-8", errors="replace")  # a kill may cut a character short


def done_files(line: str) -> int:
    """How many files the message says were done (``... (files 1 to K of N) ...``; 0 when none was)."""
    if "none of the" in line or "its one batch" in line:
        return 0
    return int(line.split("(files 1 to ", 1)[1].split(" ", 1)[0])


@pytest.mark.slow  # a cluster, and the time a cluster with no worker is waited for
def test_a_sweep_whose_only_worker_is_killed_ends_with_what_was_done(tmp_path, cluster):
    sweep = ["explore", str(ROOT / "cases"), "--option", "adjacency=any"]
    run = Run(tmp_path, *sweep, "--scheduler", cluster.address)
    run.first_line()
    cluster.worker.kill()
    killed = time.monotonic()
    status, out, err = run.end(LOST_SECONDS + 2 * MARGIN)
    line = one_error_line(err)
    assert status == 2, err
    assert time.monotonic() - killed < LOST_SECONDS + MARGIN
    assert f"lost the Dask cluster at {cluster.address}: it has had no worker for {LOST_SECONDS:g} s" in line, line
    files = len(list(find_scenarios([str(ROOT / "cases")])))
    assert " were done (files 1 to " in line and f" of {files})" in line and "were not" in line, line
    # what was printed is what a run in one process prints first, once, and no summary follows it
    assert out and printed_first(tmp_path / "alone", sweep, out).startswith(out) and out.endswith("\n")
    assert "Summary:" not in out


@pytest.mark.slow  # a cluster
def test_a_check_whose_scheduler_is_killed_ends_at_once_with_what_was_done(tmp_path, cluster):
    check = ["check", str(ROOT / "cases"), "-v"]  # one line for each file: every scenario passes
    run = Run(tmp_path, *check, "--scheduler", cluster.address)
    run.first_line()
    cluster.scheduler.kill()
    killed = time.monotonic()
    status, out, err = run.end(2 * MARGIN)
    line = one_error_line(err)
    assert status == 2, err
    assert time.monotonic() - killed < MARGIN
    assert f"lost the Dask cluster at {cluster.address}: its scheduler went away" in line, line
    assert printed_first(tmp_path / "alone", check, out).startswith(out) and out.endswith("\n") and "passed," not in out
    assert len(out.splitlines()) == done_files(line) > 0, line


@pytest.mark.slow  # a cluster, and the time a scheduler that does not answer is waited for
def test_a_sweep_whose_scheduler_stops_answering_ends_with_what_was_done(tmp_path, cluster):
    sweep = ["explore", str(ROOT / "cases"), "--option", "adjacency=any"]
    run = Run(tmp_path, *sweep, "--scheduler", cluster.address)
    run.first_line()
    cluster.scheduler.send_signal(signal.SIGSTOP)
    stopped = time.monotonic()
    status, out, err = run.end(LOST_SECONDS + 2 * MARGIN)
    line = one_error_line(err)
    assert status == 2, err
    assert time.monotonic() - stopped < LOST_SECONDS + MARGIN
    assert f"lost the Dask cluster at {cluster.address}: its scheduler has not answered for {LOST_SECONDS:g} s" in line
    assert "Summary:" not in out


@pytest.mark.slow  # a cluster
def test_a_dask_worker_is_not_a_scheduler(tmp_path, cluster):
    address = next(line.split("Start worker at:", 1)[1].strip() for line in
                   (cluster.folder / "worker.log").read_text().splitlines() if "Start worker at:" in line)
    p = refused("check", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"), "--scheduler", address, cwd=tmp_path)
    line = one_error_line(p.stderr)
    assert p.returncode == 2 and f"cannot reach a Dask scheduler at {address}: " in line, line
    assert "a Dask worker, not a scheduler" in line, line


@pytest.mark.slow  # a worker process started again and again
def test_a_batch_that_ends_every_worker_that_runs_it_is_told(capfd):
    # each worker process that takes the batch ends; Dask gives up on the batch after a few
    with pytest.raises(InputError, match=r"^lost the Dask cluster at local: batch 1 ended every worker process "
                                         r"that ran it .*; its one batch \(games 1 to 2\) was not done$"):
        list(in_batches([1, 2], lambda batch: os._exit(1), 8, scheduler="local", what="games"))
    out, err = capfd.readouterr()
    assert out == err == ""


@pytest.mark.slow  # a batch that runs longer than the bound
def test_a_batch_that_runs_longer_than_the_bound_is_waited_for_while_the_cluster_has_a_worker(monkeypatch, capfd):
    monkeypatch.setattr(workers, "LOST_SECONDS", 2.0)  # the bound is read as the run waits
    assert list(in_batches([1], lambda batch: [time.sleep(6), *batch][1:], 8, scheduler="local")) == [1]
    out, err = capfd.readouterr()
    assert out == err == ""


@pytest.mark.slow
def test_a_check_on_a_local_cluster_prints_nothing_of_dask(tmp_path):
    p = fivedp("check", str(ROOT / "cases" / "mdatc"), "--scheduler", "local", "-j", "2", cwd=tmp_path, timeout=120)
    assert p.returncode == 0 and p.stderr == "" and p.stdout.endswith("passed, 0 failed\n"), p.stderr
