"""The soak: seven players for many rounds, each submitting, changing its mind and withdrawing at
random, while the host undoes the last step at random (when no orders wait yet) and the players play
the restored phase again with other orders. Bounded in rounds (``FIVEDP_SOAK_ROUNDS``) and in time
(``FIVEDP_SOAK_SECONDS``): a soak that runs out of time before its rounds fails. Afterwards the game
passes ``fivedp game verify`` and every step of its history holds, for each power, the set that
power was last told was taken for that step's phase: an undone branch never comes back, and nothing a
player was told is lost."""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter

import pytest

from tests.serve.conftest import postgres
from tests.serve.live import server
from tests.serve.test_concurrency import UNITS

httpx = pytest.importorskip("httpx")

ROUNDS = int(os.environ.get("FIVEDP_SOAK_ROUNDS", "30"))
SECONDS = float(os.environ.get("FIVEDP_SOAK_SECONDS", "120"))
LOOK = 0.1  # seconds between two looks at the game by a client waiting for it to move
# the chance that the host, on seeing a position new to it (a step just taken, or one just restored),
# tries to take back the last step, racing the players' first submissions (it is refused once one
# waits): steps are undone, some twice in a row, and the game still moves forward, so that its rounds
# end within its time (measured: 30 steps with 5 to 10 undone, in 20 to 35 s on SQLite)
UNDO = 0.5


def soak(bases: list[str], rounds: int, seconds: float) -> dict:
    first = httpx.Client(base_url=bases[0], timeout=60)
    made = first.post("/api/games", json={}).json()
    gid, host = made["id"], made["host_token"]
    tokens = {p: first.post(f"/api/games/{gid}/players", json={"power": p}).json()["token"] for p in UNITS}
    told: dict[str, dict[str, tuple | None]] = {p: {} for p in UNITS}
    counts: Counter = Counter()
    failures: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    until = time.monotonic() + seconds
    played: dict[str, set[str]] = {p: set() for p in UNITS}  # the phases each player has played (and not seen undone)
    undos = [0]  # the host's undos so far

    def record(power: str, key: str, r, kept: tuple | None) -> None:
        with lock:
            if r.status_code == 200:
                told[power][key] = kept
                counts["taken"] += 1
            elif r.status_code == 409:
                counts["refused as stale"] += 1
            else:
                failures.append(f"{power}: {r.status_code} {r.text[:200]}")

    def player(power: str, seed: int) -> None:
        rng = random.Random(seed)
        c = httpx.Client(base_url=bases[seed % len(bases)], timeout=60,
                         headers={"Authorization": f"Bearer {tokens[power]}"})
        done = played[power]
        while not stop.is_set():
            with lock:
                seen = undos[0]  # the undos so far: a phase is played only if none came in between
            view = c.get(f"/api/games/{gid}").json()
            key = view["next"]["key"]
            with lock:
                again = key in done
            if again:  # played already (by this client) and not undone since: wait for the next phase
                threading.Event().wait(LOOK)
                continue
            threading.Event().wait(rng.uniform(0.0, 0.5))  # a player reads the new boards first
            for _ in range(rng.randint(0, 3)):
                if rng.random() < 0.3:
                    r = c.delete(f"/api/games/{gid}/orders", params={"phase": key})
                    record(power, key, r, None)
                else:
                    lines = [f"{u} H" for u in UNITS[power] if rng.random() < 0.7]
                    r = c.post(f"/api/games/{gid}/orders", json={"lines": lines, "replace": True, "phase": key})
                    record(power, key, r, tuple(lines))
                if r.status_code != 200:
                    break
            lines = [f"{u} H" for u in UNITS[power] if rng.random() < 0.7]
            r = c.post(f"/api/games/{gid}/orders", json={"lines": lines, "replace": True, "phase": key})
            record(power, key, r, tuple(lines))
            with lock:
                # a step undone meanwhile may be played again as it was, to the same phase key: a key
                # this client played before that undo is not one it has played since
                if undos[0] == seen:
                    done.add(key)

    def the_host() -> None:
        rng = random.Random(99)
        c = httpx.Client(base_url=bases[-1], timeout=60, headers={"Authorization": f"Bearer {host}"})
        seen = None
        while not stop.is_set():
            view = c.get(f"/api/games/{gid}").json()
            if view["next"]["step"] > rounds or time.monotonic() > until:
                with lock:
                    counts["rounds played"] = view["next"]["step"] - 1
                stop.set()
                break
            if view["next"]["key"] == seen:  # decided already for this position: wait for the next
                threading.Event().wait(LOOK)
                continue
            seen = view["next"]["key"]
            threading.Event().wait(rng.uniform(0.0, 0.1))  # racing the players' first submissions
            if rng.random() < UNDO:
                r = c.post(f"/api/games/{gid}/undo", json={"phase": view["next"]["key"]})
                with lock:
                    # refused while orders wait (400) or once the game has moved on (409)
                    if r.status_code == 200:
                        counts["undone"] += 1
                    elif r.status_code in (400, 409):
                        counts[f"undo refused ({r.status_code})"] += 1
                    else:
                        failures.append(f"host: {r.status_code} {r.text[:200]}")
                if r.status_code == 200:
                    # the players play the restored phase again, with other orders; and since a phase key
                    # names the position and the history that led to it, a step played again as it was
                    # played before leads to a phase they played already, which they must play again too
                    with lock:
                        undos[0] += 1
                        for keys in played.values():
                            keys.clear()

    threads = [threading.Thread(target=player, args=(p, n)) for n, p in enumerate(UNITS)]
    threads.append(threading.Thread(target=the_host))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 600)
    assert not any(t.is_alive() for t in threads), "a client hung"
    from fivedp_asp.files.games import game_from_bytes
    from fivedp_asp.files.verify import verify_game
    from fivedp_asp.game.state import phase_keys

    history = first.get(f"/api/games/{gid}/history").json()["steps"]
    game, _ = game_from_bytes(first.get(f"/api/games/{gid}/file", headers={"Authorization": f"Bearer {host}"})
                              .text.encode("utf-8"), "served")
    assert verify_game(game).honest
    return {"history": history, "keys": phase_keys(game)[:-1], "told": told, "counts": counts, "failures": failures}


def _run(bases: list[str]) -> Counter:
    result = soak(bases, ROUNDS, SECONDS)
    assert not result["failures"], result["failures"][:5]
    history, keys, told, counts = result["history"], result["keys"], result["told"], result["counts"]
    # each step holds, for each power, the set it was last told was taken for that phase (or none);
    # the phases of undone branches are other keys, which no step of the game names
    wrong = [(step["index"], power, told[power].get(key), step["orders"].get(power))
             for step, key in zip(history, keys) for power in UNITS
             if tuple(step["orders"].get(power) or ()) != (told[power].get(key) or ())]
    assert not wrong, wrong[:5]
    assert counts["undone"] > 0 and counts["taken"] > 7 * len(history)
    # the game reached its rounds within the time: a soak whose players wait on one another to the
    # end plays a few steps and would say nothing of the rest
    assert counts["rounds played"] >= ROUNDS, dict(counts)
    print(dict(counts), len(result["history"]), "steps")
    return counts


@pytest.mark.slow
def test_seven_players_and_an_undoing_host_on_sqlite(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path) as base:
        _run([base])


@pytest.mark.slow
@pytest.mark.skipif(not postgres(), reason="no PostgreSQL server: set FIVEDP_TEST_POSTGRES (.ci/run does)")
def test_seven_players_and_an_undoing_host_on_two_server_processes_sharing_postgresql(tmp_path):
    pytest.importorskip("psycopg")
    with server(postgres(), tmp_path) as a, server(postgres(), tmp_path) as b:
        _run([a, b])
