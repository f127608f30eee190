"""``fivedp bench serve``: a real server (``fivedp serve`` as its own process, on SQLite in a temporary
folder) under seven players submitting at once, and the table of a big game as a player meets it.

Two games are played: the classic opening, and a game of about 300 boards
(``game.random_play.random_game_until(..., history=True)``: played at random from the opening with
every step in its history, as a game played at a table holds it; set up in the database directly).
For each game, before the rounds:

- the picture of the game (``GET /api/games/{id}/picture``), first (the steps played drawn) and again;
- the table in Chromium, when Playwright and a Chromium are installed: from opening ``/play/ID`` with
  a player's link until the picture's view is drawn, ready and painted in its frame, first and again
  (a new page; the server's drawing kept);
- one unit's legal orders (``GET /possible?unit=U``) for units spread over the player's To-do.

Then each round, seven threads wait at a barrier and submit their power's orders together (every unit
holds; the seventh submission completes the phase), and the round ends when the game waits for the
next phase. Afterwards each step's recorded orders are compared with what each player was told: orders
lost must be 0. Latencies are of whole HTTP requests on this machine, client, browser and server
sharing its cores, so they measure the machine's load too; beside them, the processor time the
server's workers spent on each request (its ``Server-Timing`` header), the server process's processor
time over each round, and the load average.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from ...model.kinds import Phase


def _request(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, bytes]:
    status, data, _ = _timed_request(base, method, path, body, token)
    return status, data


def _timed_request(base: str, method: str, path: str, body: dict | None = None,
                   token: str | None = None) -> tuple[int, bytes, float | None]:
    """The status, the body and the processor milliseconds the server's workers spent on the request
    (its ``Server-Timing: cpu;dur=MS``; None when it says none)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=300) as r:
            return r.status, r.read(), _cpu_ms(r.headers.get("Server-Timing"))
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), _cpu_ms(exc.headers.get("Server-Timing"))


def _cpu_ms(header: str | None) -> float | None:
    for metric in (header or "").split(","):
        name, _, params = metric.strip().partition(";")
        if name == "cpu" and params.startswith("dur="):
            return float(params[4:])
    return None


def _process_cpu(pid: int) -> float:
    """The processor seconds a process has used (user and system), from /proc."""
    import os

    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load() -> float:
    import os

    return os.getloadavg()[0]


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _rounds(base: str, gid: str, host: str, tokens: dict[str, str], rounds: int, pid: int) -> dict:
    """``rounds`` phases: in each, every power with something to do submits at once (its units hold;
    in a retreat or adjustment phase an empty set: the rules disband and build nothing). A round ends
    when the game waits for the next phase (``turnaround``: from the submissions sent until then); the
    server process's processor time is taken over each round (``round_cpu``)."""
    latencies: list[float] = []
    cpu_ms: list[float | None] = []  # the server's worker processor time of each submission
    turnaround: list[float] = []
    round_cpu: list[float] = []
    loads: list[float] = []
    completed: list[bool] = []  # whether each submission completed its phase
    told: dict[str, dict[str, list[str]]] = {p: {} for p in tokens}
    stale = 0
    problems: list[str] = []
    lock = threading.Lock()
    for _ in range(rounds):
        view = json.loads(_request(base, "GET", f"/api/games/{gid}")[1])
        if view["winner"]:
            break
        key, phase = view["next"]["key"], view["next"]["phase"]
        units: dict[str, list[str]] = {}
        for duty in view["next"]["due"]:
            units.setdefault(duty["power"], []).extend(duty["units"] if phase == Phase.MOVEMENT else [])
        if not units:
            _request(base, "POST", f"/api/games/{gid}/adjudicate", {"phase": key}, host)
            continue
        barrier = threading.Barrier(len(units) + 1)

        def submit(power: str) -> None:
            nonlocal stale
            lines = [f"{u} H" for u in units[power]]
            barrier.wait()
            t0 = time.perf_counter()
            status, body, cpu = _timed_request(base, "POST", f"/api/games/{gid}/orders",
                                               {"lines": lines, "replace": True, "phase": key}, tokens[power])
            took = time.perf_counter() - t0
            with lock:
                latencies.append(took)
                cpu_ms.append(cpu)
                completed.append(status == 200 and json.loads(body)["complete"])
                if status == 200:
                    told[power][key] = lines
                elif status == 409:
                    stale += 1
                else:
                    problems.append(f"{power}: HTTP {status}: {body[:200]!r}")

        threads = [threading.Thread(target=submit, args=(p,)) for p in units]
        for t in threads:
            t.start()
        cpu0 = _process_cpu(pid)
        barrier.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        if problems:
            raise RuntimeError("; ".join(problems[:3]))
        _next_phase(base, gid, key)
        turnaround.append(time.perf_counter() - t0)
        round_cpu.append(_process_cpu(pid) - cpu0)
        loads.append(_load())
    history = json.loads(_request(base, "GET", f"/api/games/{gid}/history")[1])["steps"]
    keys = _keys(_request(base, "GET", f"/api/games/{gid}/file", token=host)[1].decode("utf-8"))
    lost = sum(1 for step, key in zip(history, keys) for p in tokens
               if told[p].get(key) is not None and (step["orders"].get(p) or []) != told[p][key])
    return {"latencies": latencies, "completed": completed, "stale": stale, "lost": lost, "steps": len(history),
            "cpu_ms": cpu_ms, "turnaround": turnaround, "round_cpu": round_cpu, "loads": loads}


def _next_phase(base: str, gid: str, key: str, timeout: float = 300.0) -> None:
    """Waits until the game no longer waits for the phase ``key`` (its revision watched, the view read
    when it changes)."""
    began, seen = time.perf_counter(), None
    while time.perf_counter() - began < timeout:
        revision = json.loads(_request(base, "GET", f"/api/games/{gid}/revision")[1])["revision"]
        if revision != seen:
            seen = revision
            if json.loads(_request(base, "GET", f"/api/games/{gid}")[1])["next"]["key"] != key:
                return
        time.sleep(0.02)
    raise RuntimeError(f"the phase {key} was not adjudicated within {timeout:.0f} s")


def _keys(file_text: str) -> list[str]:
    """The phase key each step was played in, from the game file."""
    from ...files.games import game_from_bytes
    from ...game.state import phase_keys

    game, _ = game_from_bytes(file_text.encode("utf-8"), "bench")
    return phase_keys(game)[:-1]


def bench_serve(rounds: int = 20, timelines: int = 30, seed: int = 1, browser: bool = True,
                units: int = 20) -> list[dict]:
    """The rows of the table: one per game. ``timelines``: those of the big game (30: 311 boards with
    seed 1); ``browser``: the table measured in Chromium too (when it can be); ``units``: how many
    units' legal orders are asked for."""
    from ...game.random_play import random_game_until
    from ...game.state import new_game
    from ...model.map import load_map
    from ...model.multiverse import opening
    from ...serve.database import Database
    from ...serve.store import Games

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        games = Games(Database(url))
        big = random_game_until(timelines, seed=seed, history=True)
        classic = new_game(opening(load_map("standard")))
        made = {"classic": (*games.create(classic), 0),
                f"{len(big.mv.boards)} boards": (*games.create(big), len(big.history))}
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "fivedp_asp.cli", "serve", "--port", str(port), "--db", url],
                                cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait(base)
            for name, (gid, host, played) in made.items():
                view = json.loads(_request(base, "GET", f"/api/games/{gid}")[1])
                tokens = {p: json.loads(_request(base, "POST", f"/api/games/{gid}/players", {"power": p})[1])["token"]
                          for p in view["players"] if p not in view["eliminated"]}
                t0 = time.perf_counter()
                page_first_cpu = _timed_request(base, "GET", f"/api/games/{gid}/picture", token=host)[2]
                page_first = time.perf_counter() - t0
                t0 = time.perf_counter()
                page_again_cpu = _timed_request(base, "GET", f"/api/games/{gid}/picture", token=host)[2]
                page_again = time.perf_counter() - t0
                power = max(tokens, key=lambda p: sum(len(d["units"]) for d in view["next"]["due"] if d["power"] == p))
                table = _table_in_browser(base, gid, tokens[power], proc.pid) if browser else None
                legal, legal_cpu = _legal_orders(base, gid, tokens[power], view, power, units)
                r = _rounds(base, gid, host, tokens, rounds, proc.pid)
                t0 = time.perf_counter()
                _request(base, "GET", f"/api/games/{gid}/picture", token=host)
                page_after = time.perf_counter() - t0
                lat = r["latencies"]
                # the submissions that completed their phase apart from the others
                completing = [t for t, done in zip(lat, r["completed"]) if done]
                others = [t for t, done in zip(lat, r["completed"]) if not done]
                cpu = [c or 0.0 for c in r["cpu_ms"]]
                cpu_completing = [c for c, done in zip(cpu, r["completed"]) if done]
                cpu_others = [c for c, done in zip(cpu, r["completed"]) if not done]
                rows.append({"game": name, "players": len(tokens), "rounds": rounds, "steps": r["steps"],
                             "played_before": played,
                             "submissions": len(lat), "lost": r["lost"], "stale": r["stale"],
                             "p50_ms": 1000 * statistics.median(lat), "p95_ms": 1000 * _percentile(lat, 95),
                             "others_p95_ms": 1000 * _percentile(others, 95) if others else None,
                             "completing_p50_ms": 1000 * statistics.median(completing) if completing else None,
                             "page_after_s": page_after,
                             "page_s": page_first, "page_again_s": page_again, "boards": view["boards"],
                             "table_s": None if table is None else table[0],
                             "table_again_s": None if table is None else table[1],
                             "table_cpu_s": None if table is None else table[2],
                             "table_again_cpu_s": None if table is None else table[3],
                             "legal_units": len(legal), "legal_p50_ms": 1000 * statistics.median(legal) if legal else None,
                             "legal_max_ms": 1000 * max(legal) if legal else None,
                             "cpu_p50_ms": statistics.median(cpu), "cpu_p95_ms": _percentile(cpu, 95),
                             "cpu_others_p95_ms": _percentile(cpu_others, 95) if cpu_others else None,
                             "cpu_completing_p50_ms": statistics.median(cpu_completing) if cpu_completing else None,
                             "turnaround_p50_s": statistics.median(r["turnaround"]) if r["turnaround"] else None,
                             "round_cpu_p50_s": statistics.median(r["round_cpu"]) if r["round_cpu"] else None,
                             "load": (min(r["loads"]), max(r["loads"])) if r["loads"] else (_load(), _load()),
                             "page_cpu_s": (page_first_cpu or 0) / 1000, "page_again_cpu_s": (page_again_cpu or 0) / 1000,
                             "legal_cpu_p50_ms": statistics.median(legal_cpu) if legal_cpu else None,
                             "legal_cpu_max_ms": max(legal_cpu) if legal_cpu else None})
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return rows


def _legal_orders(base: str, gid: str, token: str, view: dict, power: str, count: int) -> tuple[list[float], list[float]]:
    """Seconds to list one unit's legal orders, and the server's processor milliseconds for it, for
    ``count`` units spread evenly over the power's To-do (every board it acts on, not one board's units)."""
    mine = [u for d in view["next"]["due"] if d["power"] == power for u in d["units"]]
    if not mine:
        return [], []
    chosen = [mine[round(i * (len(mine) - 1) / max(1, count - 1))] for i in range(min(count, len(mine)))]
    took, cpu = [], []
    for unit in dict.fromkeys(chosen):
        t0 = time.perf_counter()
        status, body, spent = _timed_request(base, "GET", f"/api/games/{gid}/possible?unit={urllib.parse.quote(unit)}",
                                             token=token)
        took.append(time.perf_counter() - t0)
        cpu.append(spent or 0.0)
        if status != 200 or not json.loads(body)["orders"]:
            raise RuntimeError(f"the legal orders of {unit}: HTTP {status}: {body[:200]!r}")
    return took, cpu


def _table_in_browser(base: str, gid: str, token: str, pid: int) -> tuple[float, float, float, float] | None:
    """Seconds from opening the table with a player's link until the picture's view is drawn and
    ready in its frame and painted: a first page, then a second (the server's drawing kept); and the
    processor seconds the server process spent meanwhile, for each. None without Playwright or a
    Chromium."""
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    took, spent = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(2):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                cpu0 = _process_cpu(pid)
                t0 = time.perf_counter()
                page.goto(f"{base}/play/{gid}#token={token}")
                page.frame_locator("#picture").locator("svg#view[data-ready]").wait_for(state="attached",
                                                                                         timeout=300_000)
                # and painted: the frame's next two animation frames (the first runs before its paint)
                (frame,) = page.main_frame.child_frames
                frame.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
                took.append(time.perf_counter() - t0)
                spent.append(_process_cpu(pid) - cpu0)
                page.close()
        finally:
            browser.close()
    return took[0], took[1], spent[0], spent[1]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(base: str) -> None:
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/openapi.json", timeout=1).read()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("fivedp serve did not answer within 15 s")
