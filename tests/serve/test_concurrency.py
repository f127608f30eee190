"""Seven clients at one table, all at once, for many rounds: each submits, changes its mind and
withdraws at random while the others do, against a real server (and, on PostgreSQL, against two
server processes sharing the database). The game adjudicates each phase when the last power submits.
Afterwards every step's recorded orders are compared with what each client was last told for that
phase: nothing a client was told was taken is missing, nothing lands on a phase its client did not
send it for, and every refusal was for a phase that had moved on."""

from __future__ import annotations

import os
import random
import threading
from collections import Counter

import pytest

from tests.serve.conftest import postgres
from tests.serve.live import server

httpx = pytest.importorskip("httpx")

ROUNDS = int(os.environ.get("FIVEDP_SERVE_ROUNDS", "12"))
LIMIT = ("--time-limit", "3")
UNITS = {"Austria": ["A Bud", "A Vie", "F Tri"], "England": ["A Lvp", "F Edi", "F Lon"],
         "France": ["A Mar", "A Par", "F Bre"], "Germany": ["A Ber", "A Mun", "F Kie"],
         "Italy": ["A Rom", "A Ven", "F Nap"], "Russia": ["A Mos", "A War", "F Sev", "F Stp"],
         "Turkey": ["A Con", "A Smy", "F Ank"]}


def grinding(base: str, stop: threading.Event, rest: float = 0.0) -> dict:
    """A game whose every adjudication grinds until the time limit, adjudicated by its host again and
    again until ``stop``, ``rest`` seconds after each refusal: its id (``game``), its host's token
    (``host``) and the statuses answered."""
    from dataclasses import replace

    from fivedp_asp.files.games import game_text
    from fivedp_asp.serve.store import game_from_start
    from tests.serve.test_isolation import GRINDING

    c = httpx.Client(base_url=base, timeout=120)
    game = game_from_start({}, None, {"spin": {"text": GRINDING}})
    r = c.post("/api/games", json={"file": game_text(replace(game, pending={"France": ["A Par - Bur"]}))})
    assert r.status_code == 200, f"the grinding game was not made: {r.status_code} {r.text[:300]}"
    made = r.json()
    seen = c.get(f"/api/games/{made['id']}")
    assert seen.status_code == 200, f"the grinding game's view: {seen.status_code} {seen.text[:300]}"
    key = seen.json()["next"]["key"]
    statuses = []
    while not stop.is_set():
        statuses.append(c.post(f"/api/games/{made['id']}/adjudicate", json={"phase": key},
                               headers={"Authorization": f"Bearer {made['host_token']}"}).status_code)
        stop.wait(rest)
    return {"game": made["id"], "host": made["host_token"], "statuses": statuses}


def play(bases: list[str], rounds: int) -> dict:
    """The rounds played by seven clients, while another game grinds; what each was told and what the
    game recorded."""
    stop, ground = threading.Event(), []
    grinder = threading.Thread(target=lambda: ground.extend(grinding(bases[-1], stop)["statuses"]))
    grinder.start()
    try:
        result = _play(bases, rounds)
    finally:
        stop.set()
        grinder.join(120)
    result["ground"] = ground
    return result


def _play(bases: list[str], rounds: int) -> dict:
    first = httpx.Client(base_url=bases[0], timeout=60)
    made = first.post("/api/games", json={}).json()
    gid, host = made["id"], made["host_token"]
    tokens = {p: first.post(f"/api/games/{gid}/players", json={"power": p}).json()["token"] for p in UNITS}
    told: dict[str, dict[str, tuple | None]] = {p: {} for p in UNITS}  # power -> phase key -> last set accepted
    counts: Counter = Counter()
    failures: list[str] = []
    lock = threading.Lock()

    def client(power: str, seed: int) -> None:
        rng = random.Random(seed)
        c = httpx.Client(base_url=bases[seed % len(bases)], timeout=60,
                         headers={"Authorization": f"Bearer {tokens[power]}"})
        step = 1
        while step <= rounds:
            view = c.get(f"/api/games/{gid}").json()
            key, now = view["next"]["key"], view["next"]["step"]
            if now > step:
                step = now
                continue
            if now < step:
                continue  # the adjudication this client saw has not been read back yet
            for _ in range(rng.randint(1, 4)):
                lines = [f"{u} H" for u in UNITS[power] if rng.random() < 0.7]
                if rng.random() < 0.25:
                    r = c.delete(f"/api/games/{gid}/orders", params={"phase": key})
                    kept = None
                else:
                    r = c.post(f"/api/games/{gid}/orders", json={"lines": lines, "replace": True, "phase": key})
                    kept = tuple(lines)
                with lock:
                    if r.status_code == 200:
                        told[power][key] = kept
                        counts["taken"] += 1
                    elif r.status_code == 409:
                        counts["refused as stale"] += 1
                    else:
                        failures.append(f"{power}: {r.status_code} {r.text[:200]}")
                if r.status_code != 200:
                    break
            # the round ends with a submission, so that the last power's completes the phase
            lines = [f"{u} H" for u in UNITS[power] if rng.random() < 0.7]
            r = c.post(f"/api/games/{gid}/orders", json={"lines": lines, "replace": True, "phase": key})
            with lock:
                if r.status_code == 200:
                    told[power][key] = tuple(lines)
                    counts["taken"] += 1
                elif r.status_code == 409:
                    counts["refused as stale"] += 1
                else:
                    failures.append(f"{power}: {r.status_code} {r.text[:200]}")
            step = now + 1
            while c.get(f"/api/games/{gid}").json()["next"]["step"] < step:
                threading.Event().wait(0.02)

    threads = [threading.Thread(target=client, args=(p, n)) for n, p in enumerate(UNITS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a client hung"
    history = first.get(f"/api/games/{gid}/history").json()["steps"]
    # the phase key of each step: read back from the game file (the host's), step by step
    from fivedp_asp.files.games import game_from_bytes
    from fivedp_asp.game.state import phase_keys

    game, _ = game_from_bytes(first.get(f"/api/games/{gid}/file", headers={"Authorization": f"Bearer {host}"})
                              .text.encode("utf-8"), "served")
    from fivedp_asp.files.verify import verify_game

    assert verify_game(game).honest  # the game of seven powers played through the API proves itself
    keys = phase_keys(game)[:-1]
    return {"history": history, "keys": keys, "told": told, "counts": counts, "failures": failures}


def check(result: dict, rounds: int) -> Counter:
    assert not result["failures"], result["failures"][:5]
    assert result["ground"] and set(result["ground"]) == {400}  # each grind stopped by the time limit
    history, keys, told = result["history"], result["keys"], result["told"]
    assert len(history) >= rounds
    lost = misplaced = 0
    for step, key in zip(history, keys):
        for power in UNITS:
            last = told[power].get(key)
            recorded = step["orders"].get(power)
            if last is None:
                misplaced += recorded is not None and len(recorded) > 0
            elif tuple(recorded or ()) != last:
                lost += 1
    # every set a client was told was taken is for a phase that was then adjudicated (the last
    # phase, still waiting, aside)
    waiting = {k for p in told for k in told[p]} - set(keys)
    assert len(waiting) <= 1
    assert lost == 0 and misplaced == 0
    return result["counts"]


@pytest.mark.slow
def test_seven_clients_lose_nothing_on_sqlite(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=LIMIT) as base:
        result = play([base], ROUNDS)
    counts = check(result, ROUNDS)
    assert counts["taken"] > 7 * ROUNDS
    print(dict(counts))


@pytest.mark.slow
@pytest.mark.skipif(not postgres(), reason="no PostgreSQL server: set FIVEDP_TEST_POSTGRES (.ci/run does)")
def test_seven_clients_on_two_server_processes_sharing_postgresql(tmp_path):
    pytest.importorskip("psycopg")
    with server(postgres(), tmp_path, args=LIMIT) as a, server(postgres(), tmp_path, args=LIMIT) as b:
        result = play([a, b], ROUNDS)
    counts = check(result, ROUNDS)
    assert counts["taken"] > 7 * ROUNDS
    print(dict(counts))
