"""The soak: seven players for a hundred steps against real servers, each submitting, changing its
mind and withdrawing at random, the host taking back steps at random, while another game's rule of
your own grinds on every adjudication (each stopped by the server's time limit; its host asks again
``GRIND_REST`` seconds after each). On SQLite with one server process; on PostgreSQL with two sharing
the database.

The server adjudicates a phase after the submission that completes it has answered: clients learn of
each step from the game, as players do. Two things are recorded as the clients are told them. Each
player's set: the set it was last told was taken for a phase (or withdrawn), by phase key. Each step
shown: the last step of the history, read with the view between two equal revisions (so that both
are of one state of the game), under the phase key the view then waits for (``next.key``); and each
step the host was told it took back (the phase it named). Afterwards every game passes ``fivedp game
verify``; every step of its history holds, for each power, the set that power was last told was taken
for that step's phase (an undone branch never comes back, and nothing a player was told is lost);
every step of the history was shown to some client, at its index and key, as the history keeps it;
every step taken back is one shown; and every step shown that is not in the history was taken back.
The start is one army a power, so that a hundred steps stay cheap; the players move at random, so
that a step taken back and played again differs from the one undone."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from tests.serve.conftest import postgres
from tests.serve.live import server
from tests.serve.test_concurrency import grinding

httpx = pytest.importorskip("httpx")

ROUNDS = int(os.environ.get("FIVEDP_SOAK_HISTORY_ROUNDS", "100"))
SEED = int(os.environ.get("FIVEDP_SOAK_HISTORY_SEED", "2026"))
LIMIT = ("--time-limit", "3")
# seconds the grinding game's host waits after each refusal before asking again: a grind holds a
# core until the time limit stops it, and asked for back to back they held one of the two cores of the
# machine the suite runs on for the whole soak; one grind in five time limits still runs beside a
# fifth of the play (measured: 4 grinds in a soak of 62.6 s on SQLite), each stopped by the limit
GRIND_REST = 12.0
HOMES = {"Austria": "Vienna", "England": "Liverpool", "France": "Paris", "Germany": "Munich", "Italy": "Venice",
         "Russia": "Warsaw", "Turkey": "Constantinople"}
START = {"turn": 0, "units": {p: [f"A {h}"] for p, h in HOMES.items()}, "centers": {p: [h] for p, h in HOMES.items()}}
LOOK = 0.3  # seconds between two looks at the game of a player waiting for the others
WAIT = 90.0  # seconds a client waits for the game to move before it says the game is stuck


def _neighbours() -> dict[str, list[str]]:
    from fivedp_asp.model.map import load_map

    m = load_map("standard")
    return {m.short_name(a): [m.short_name(b) for b in bs] for (kind, a), bs in m.neighbours.items()
            if kind == "army"}


class Record:
    """What the clients were told, in the order they were told it, and what went wrong."""

    def __init__(self):
        self.lock = threading.Lock()
        self.steps: dict[tuple[int, str], tuple[str, dict]] = {}  # (index, next.key) -> who saw it first, the step
        self.undone: list[tuple[int, str]] = []  # the step taken back, the phase the host named
        # power -> phase key -> the set it was last told was taken for that phase (None: withdrawn)
        self.sets: dict[str, dict[str, tuple | None]] = {p: {} for p in HOMES}
        self.counts: Counter = Counter()
        self.failures: list[str] = []
        self.done = threading.Event()

    def fail(self, message: str) -> None:
        with self.lock:
            self.failures.append(message)
        self.done.set()

    def stepped(self, who: str, key: str, step: dict) -> None:
        with self.lock:
            seen = self.steps.setdefault((step["index"], key), (who, step))
            if seen[1] != step:
                self.failures.append(f"step {step['index']} at {key} was shown to {seen[0]} and {who} otherwise")
                self.done.set()
            self.counts["steps told"] = len(self.steps)
            if len(self.steps) >= ROUNDS:
                self.done.set()


class Follower:
    """The game's revision as the ``/events`` streams of its servers tell it, each read in a thread of
    its own: a client learns of each change as an open page does, rather than asking for the revision
    again and again. A stream tells a change made through its own server at once, one made through
    another within a second: following each server, a client learns of every change at once. A stream
    quiet for ``QUIET`` seconds is opened again (it says the revision at once)."""

    QUIET = 5.0

    def __init__(self, bases: list[str], gid: str, record: Record):
        self.gid, self.record = gid, record
        self.told: dict[str, int | None] = dict.fromkeys(bases)  # server -> the revision its stream told last
        self.threads = [threading.Thread(target=self._follow, args=(base,), daemon=True) for base in bases]
        for thread in self.threads:
            thread.start()

    @property
    def revision(self) -> int | None:
        """The latest revision told (revisions only grow), None before any."""
        return max((r for r in self.told.values() if r is not None), default=None)

    def _follow(self, base: str) -> None:
        timeout = httpx.Timeout(120, read=self.QUIET)
        with httpx.Client(base_url=base, timeout=timeout) as c:
            while not self.record.done.is_set():
                try:
                    with c.stream("GET", f"/api/games/{self.gid}/events") as r:
                        if r.status_code != 200:
                            return self.record.fail(f"/events: {r.status_code}")
                        for line in r.iter_lines():
                            if line.startswith("data: "):
                                self.told[base] = int(line[6:])
                            if self.record.done.is_set():
                                return
                except httpx.ReadTimeout:
                    continue
                except httpx.HTTPError as exc:
                    if not self.record.done.is_set():
                        self.record.fail(f"/events: {type(exc).__name__}: {exc}")
                    return


def observe(c, gid: str, who: str, record: Record, memo: dict | None = None) -> dict | None:
    """The game's view, with its last step (read from the history between two equal revisions: the
    view's own and one read after the history, so that both are of one state of the game) recorded as
    shown to ``who``; None when the game kept moving. ``memo``: this client's last (steps, next.key)
    recorded, so that the history is read only when the view shows another (a submission moves the
    revision, not the history; the key names the whole position, so that the same key and count are
    the same last step)."""
    for _ in range(5):
        view = c.get(f"/api/games/{gid}").json()
        before = view["server"]["revision"]  # read with the view, in one transaction
        now = (view["steps"], view["next"]["key"])
        known = memo is not None and memo.get("last") == now
        read = view["steps"] and not known
        steps = c.get(f"/api/games/{gid}/history").json()["steps"] if read else []
        # the view alone is of one state (one transaction): the revision is read again only to tie
        # the history to it
        if not read or c.get(f"/api/games/{gid}/revision").json()["revision"] == before:
            if steps:
                record.stepped(who, view["next"]["key"], steps[-1])
            if memo is not None:
                memo["last"] = now
            return view
    return None


def _lines(rng: random.Random, due: list[dict], near: dict[str, list[str]]) -> list[str]:
    """A movement phase's orders: each unit holds or moves to a neighbour, at random; nothing for a
    retreat or an adjustment (the unit disbands, the build is waived)."""
    lines = []
    for duty in due:
        if duty["kind"] != "orders":
            continue
        for unit in duty["units"]:
            kind, where = unit.split(" ", 1)
            choices = near.get(where, [])
            if kind == "A" and choices and rng.random() < 0.8:
                lines.append(f"{unit} - {rng.choice(choices)}")
            else:
                lines.append(f"{unit} H")
    return lines


def player(base: str, gid: str, power: str, token: str, seed: int, record: Record, near: dict,
           follow: Follower) -> None:
    """One player: whenever the phase waits for it (it has not submitted, or the game moved since its
    last submission), it thinks a moment and submits; at random it withdraws and submits again, or
    changes its mind. It looks at the game only when the revision changed (``follow``)."""
    rng = random.Random(seed)
    c = httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {token}"})
    finished, revision, undos, since, looked = None, None, 0, time.monotonic(), 0.0
    memo: dict = {}  # the last state of the game this client recorded (observe)
    while not record.done.is_set():
        now = follow.revision
        # a step taken back gives the phase before it back, with every order it had: the same key and
        # the same sets as when this player last submitted for it, so the host's word says it moved.
        # A player that has submitted looks again at most every LOOK seconds (each look solves)
        if (now == revision and len(record.undone) == undos) or (finished and time.monotonic() - looked < LOOK) \
                or now is None:
            if time.monotonic() - since > WAIT:
                return record.fail(f"{power}: the game stayed at revision {now} for {WAIT:.0f} s")
            time.sleep(0.03)
            continue
        revision, since = now, time.monotonic()
        if len(record.undone) != undos:
            finished, undos = None, len(record.undone)
        view, looked = observe(c, gid, power, record, memo), time.monotonic()
        if view is None:
            revision = None  # looked at again at once
            continue
        key = view["next"]["key"]
        if key == finished and power in view["submitted"]:
            continue
        # the host's moment to take the step back: the host's undo is refused once a player has
        # submitted for the phase, so in about one phase of three (the same for every player, drawn from
        # the phase's key) every player thinks longer, and the host, which looks when the revision
        # moves, has time to see the step and take it back
        long = random.Random(key).random() < 0.3
        time.sleep(rng.uniform(0.4, 0.6) if long else rng.uniform(0, 0.1))
        due = [d for d in view["next"]["due"] if d["power"] == power]
        actions = ["submit"]
        if rng.random() < 0.25:
            actions = ["submit", "withdraw", "submit"] if rng.random() < 0.5 else ["withdraw", "submit"]
        elif rng.random() < 0.15:
            actions = ["submit", "submit"]
        for n, action in enumerate(actions):
            lines = None
            if action == "withdraw":
                r = c.delete(f"/api/games/{gid}/orders", params={"phase": key})
            else:
                lines = _lines(rng, due, near)
                r = c.post(f"/api/games/{gid}/orders", json={"lines": lines, "replace": True, "phase": key})
            if r.status_code == 409:
                with record.lock:
                    record.counts["refused as stale"] += 1
                break
            if r.status_code != 200:
                return record.fail(f"{power}: {r.status_code} {r.text[:300]}")
            with record.lock:
                record.counts["withdrawn" if action == "withdraw" else "submitted"] += 1
                record.sets[power][key] = None if lines is None else tuple(lines)
            if n == len(actions) - 1:
                finished = key  # the last is always a submission, so that the phase completes


def host(base: str, gid: str, token: str, seed: int, record: Record, follow: Follower) -> None:
    """The host: looks at the game whenever it changes (``follow``) and, at random, takes back the last
    step (refused while orders for the next phase wait, and when the game moved on)."""
    rng = random.Random(seed)
    c = httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {token}"})
    seen, revision = None, None
    memo: dict = {}  # the last state of the game the host recorded (observe)
    while not record.done.is_set():
        now = follow.revision
        if now == revision:
            time.sleep(0.03)
            continue
        revision = now
        view = observe(c, gid, "the host", record, memo)
        if view is None:
            revision = None
            continue
        key = view["next"]["key"]
        if key == seen or view["steps"] == 0:
            continue
        seen = key
        if rng.random() >= 0.3:
            continue
        r = c.post(f"/api/games/{gid}/undo", json={"phase": key})
        if r.status_code == 200:
            with record.lock:
                record.undone.append((r.json()["undone"], key))
                record.counts["undone"] += 1
        elif r.status_code == 409 or (r.status_code == 400 and "orders for the next phase are waiting" in r.text):
            with record.lock:
                record.counts["undo refused"] += 1
        else:
            return record.fail(f"host: {r.status_code} {r.text[:300]}")


def _kept(step: dict) -> tuple:
    """A step as the history keeps it, in the same terms."""
    return (step["index"], step["phase"], tuple(step["heads"]),
            tuple(sorted((r["power"], r["order"], r["qualified"], r["result"], r.get("reason")) for r in step["results"])))


def settled(c, gid: str, record: Record, quiet: float = 2.0) -> None:
    """Waits until the game's revision has not moved for ``quiet`` seconds (at most WAIT seconds),
    then looks at it as a client would."""
    began, last, since = time.monotonic(), None, time.monotonic()
    while time.monotonic() - began < WAIT:
        now = c.get(f"/api/games/{gid}/revision").json()["revision"]
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
        time.sleep(0.1)
    assert observe(c, gid, "a client after the end", record) is not None


def verified(base: str, gid: str, token: str, tmp_path, name: str) -> str:
    """The game's file as its host downloads it, through ``fivedp game verify``; its text."""
    r = httpx.get(f"{base}/api/games/{gid}/file", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert r.status_code == 200, r.text
    path = tmp_path / f"{name}.yaml"
    path.write_text(r.text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "game", "verify", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (name, run.stdout[-2000:], run.stderr[-2000:])
    return r.text


def soak(bases: list[str], tmp_path) -> dict:
    began = time.monotonic()
    first = httpx.Client(base_url=bases[0], timeout=120)
    made = first.post("/api/games", json={"start": START}).json()
    gid, host_token = made["id"], made["host_token"]
    tokens = {p: first.post(f"/api/games/{gid}/players", json={"power": p}).json()["token"] for p in HOMES}
    record, near = Record(), _neighbours()
    stop, ground = threading.Event(), {}

    def grind() -> None:
        try:
            ground.update(grinding(bases[-1], stop, GRIND_REST))
        except Exception as exc:  # noqa: BLE001 - said by the test, not lost in the thread
            record.fail(f"the grinding game: {type(exc).__name__}: {exc}")

    grinder = threading.Thread(target=grind)
    grinder.start()
    followers = [Follower(bases, gid, record) for _ in range(len(HOMES) + 1)]
    threads = [threading.Thread(target=player, args=(bases[n % len(bases)], gid, p, tokens[p], SEED + n, record, near,
                                                     followers[n]))
               for n, p in enumerate(HOMES)]
    threads.append(threading.Thread(target=host, args=(bases[0], gid, host_token, SEED + 99, record, followers[-1])))
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        assert not any(t.is_alive() for t in threads), "a client hung"
    finally:
        record.done.set()
        stop.set()
        grinder.join(120)
        for thread in (t for follower in followers for t in follower.threads):  # each stream ends at its
            thread.join(2 * Follower.QUIET)  # next line, or when quiet
    played = time.monotonic() - began
    # the clients stopped looking once enough steps were shown: the phase their last submissions
    # completed may be adjudicated after that, and is shown to one more client once the game is still
    settled(first, gid, record)
    assert not record.failures, record.failures[:5]
    history = first.get(f"/api/games/{gid}/history").json()["steps"]
    text = verified(bases[0], gid, host_token, tmp_path, "played")
    verified(bases[-1], ground["game"], ground["host"], tmp_path, "ground")
    from fivedp_asp.files.games import game_from_bytes
    from fivedp_asp.game.state import phase_keys

    keys = phase_keys(game_from_bytes(text.encode("utf-8"), "served")[0])
    # the key of the phase each step played, and of the phase each step led to
    return {"record": record, "history": history, "played_at": keys[:-1], "keys": keys[1:],
            "ground": ground["statuses"], "played": played}


def check(result: dict) -> Counter:
    record, history = result["record"], result["history"]
    assert not record.failures, record.failures[:5]
    assert result["ground"] and set(result["ground"]) == {400}  # each grind stopped by the time limit
    told = record.steps
    assert len(history) == len(result["keys"]) == len(result["played_at"])
    # each step holds, for each power, the set it was last told was taken for that phase (or none);
    # the phases of undone branches are other keys, which no step of the game names
    wrong = [(step["index"], power, record.sets[power].get(key), step["orders"].get(power))
             for step, key in zip(history, result["played_at"]) for power in HOMES
             if tuple(step["orders"].get(power) or ()) != (record.sets[power].get(key) or ())]
    assert not wrong, wrong[:5]
    # every step of the history was shown to a client, at its index and key, as the history keeps it
    for step, key in zip(history, result["keys"]):
        assert (step["index"], key) in told, f"step {step['index']} at {key} was shown to no client"
        assert _kept(told[step["index"], key][1]) == _kept(step), (step["index"], key)
    # every step taken back is a step shown, at that index and with the phase key the view gave
    undone = set(record.undone)
    for index, key in undone:
        assert (index, key) in told, f"the host took back step {index} at {key}, which no client was shown"
    # a step shown that the history does not hold was taken back: none is lost
    kept = set(zip((s["index"] for s in history), result["keys"]))
    lost = [k for k in told if k not in kept and k not in undone]
    assert not lost, lost[:5]
    assert len(told) >= ROUNDS
    return record.counts


def _report(name: str, result: dict) -> None:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{name}: {dict(result['record'].counts)}, {len(result['history'])} steps kept, "
          f"{len(result['ground'])} grinding adjudications refused, {result['played']:.1f} s played "
          f"(load {load})")


@pytest.mark.slow
def test_soak_on_sqlite(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=LIMIT) as base:
        result = soak([base], tmp_path)
    _report("SQLite", result)
    counts = check(result)
    assert counts["undone"] and counts["withdrawn"]


@pytest.mark.slow
@pytest.mark.skipif(not postgres(), reason="no PostgreSQL server: set FIVEDP_TEST_POSTGRES (.ci/run does)")
def test_soak_on_two_server_processes_sharing_postgresql(tmp_path):
    pytest.importorskip("psycopg")
    with server(postgres(), tmp_path, args=LIMIT) as a, server(postgres(), tmp_path, args=LIMIT) as b:
        result = soak([a, b], tmp_path)
    _report("PostgreSQL, two processes", result)
    counts = check(result)
    assert counts["undone"] and counts["withdrawn"]
