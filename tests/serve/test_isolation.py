"""One game never holds up another: solving runs in workers, never on the event loop and never while
a database write lock is held; a change is written only onto the game it was worked out from; each
due game is adjudicated on its own; the solving done at once is bounded; a grinding rule of your own
in one game is stopped by the server's time limit while another game plays on; idle connections are
closed; ``/events`` follows every change."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import urllib.request

import httpx
import pytest
from starlette.testclient import TestClient

import fivedp_asp.serve.store as store
from fivedp_asp.serve.app import Moves, Solvers, _deadlines, make_app
from fivedp_asp.serve.database import Database
from fivedp_asp.serve.store import Games, game_from_start

from tests.serve.conftest import TWO_POWERS, new_table
from tests.serve.live import server

# a rule of your own whose grounding takes far longer than any limit (docs/rules-of-your-own.md):
# spin/1 counts to two thousand million for each order; bad/2 reads it, so the rule is in effect
GRINDING = ("spin(X) :- order(I,U,P), X = 1..2000000000, X \\ 7 == 99.\n"
            "bad(I,\"never\") :- order(I,U,P), spin(X), X < 0.\n")


class Held:
    """``open_and_adjudicate`` held on its first call until released (or 10 s), as a slow step is."""

    def __init__(self, monkeypatch):
        self.started, self.released = threading.Event(), threading.Event()
        self.calls = 0
        real = store.open_and_adjudicate

        def held(*args, **kwargs):
            self.calls += 1
            if self.calls == 1:
                self.started.set()
                self.released.wait(10)
            return real(*args, **kwargs)

        monkeypatch.setattr(store, "open_and_adjudicate", held)


def test_one_games_adjudication_never_holds_up_another(db_url, monkeypatch):
    """Game A's adjudication is held in its solver; meanwhile game B is viewed, joined and given
    orders, each answered at once. Solved on the event loop, or inside a write transaction, B's
    requests would wait for A's adjudication."""
    held = Held(monkeypatch)
    app = make_app(db_url, deadline_check=None)

    async def play():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=30) as c:
            a = (await c.post("/api/games", json={"start": TWO_POWERS})).json()
            b = (await c.post("/api/games", json={"start": TWO_POWERS})).json()
            key_a = (await c.get(f"/api/games/{a['id']}")).json()["next"]["key"]
            adjudicating = asyncio.create_task(c.post(f"/api/games/{a['id']}/adjudicate", json={"phase": key_a},
                                                      headers={"Authorization": f"Bearer {a['host_token']}"}))
            while not held.started.is_set():
                await asyncio.sleep(0.01)
            france = (await c.post(f"/api/games/{b['id']}/players", json={"power": "France"})).json()["token"]
            view = (await c.get(f"/api/games/{b['id']}")).json()
            r = await c.post(f"/api/games/{b['id']}/orders", json={"lines": ["A Par - Bur"], "phase": view["next"]["key"]},
                             headers={"Authorization": f"Bearer {france}"})
            answered_while_held = not held.released.is_set() and not adjudicating.done()
            held.released.set()
            step = await adjudicating
            return answered_while_held, r, step

    answered_while_held, r, step = asyncio.run(play())
    assert r.status_code == 200 and step.status_code == 200, (r.text, step.text)
    assert answered_while_held
    assert step.json()["step"]["index"] == 1


def test_a_change_is_written_only_onto_the_game_it_was_worked_out_from(db_url, monkeypatch):
    """Two server processes share the games (here two ``Games`` on one database). While one solves the
    host's adjudication, France changes its orders through the other: that change is written at once
    (the solving holds no lock), and the adjudication, finding the orders changed, is worked out
    again with them: the step played is France's latest orders."""
    one, other = Games(Database(db_url)), Games(Database(db_url))
    gid, host = one.create(game_from_start({}, TWO_POWERS))
    _, france = one.join(gid, "France")
    one.join(gid, "Germany")
    key = one.view(gid, None)["next"]["key"]
    one.submit(gid, france, ["A Par - Pic"], phase=key)
    held = Held(monkeypatch)
    answer = {}
    thread = threading.Thread(target=lambda: answer.update(step=one.adjudicate(gid, host, phase=key)))
    thread.start()
    assert held.started.wait(10)
    other.submit(gid, france, ["A Par - Bur"], phase=key, replace_all=True)
    changed_while_held = not held.released.is_set()
    held.released.set()
    thread.join(30)
    assert changed_while_held
    assert held.calls == 2  # worked out again on what France wrote meanwhile
    step = answer["step"]["step"]
    assert [o["text"] for o in step["orders"] if o["power"] == "France"] == ["A Par - Bur"]
    assert one.history(gid, None)["steps"][0]["orders"]["France"] == ["A Par - Bur"]


def test_each_due_game_is_adjudicated_on_its_own(db_url, monkeypatch):
    """Two games are due; the first one's adjudication is held: the second is adjudicated all the same."""
    now = [1000.0]
    games = Games(Database(db_url), clock=lambda: now[0])
    slow, _ = games.create(game_from_start({}, None), deadline=30)
    quick, _ = games.create(game_from_start({}, None), deadline=30)
    now[0] += 31
    released = threading.Event()
    real = games.adjudicate_due

    def adjudicate_due(gid):
        if gid == slow:
            released.wait(10)
        return real(gid)

    monkeypatch.setattr(games, "adjudicate_due", adjudicate_due)

    async def run():
        task = asyncio.create_task(_deadlines(games, 0.01, Solvers(2)))
        began = time.monotonic()
        while games.view(quick, None)["steps"] == 0 and time.monotonic() - began < 8:
            await asyncio.sleep(0.02)
        quick_done_while_held = not released.is_set() and games.view(quick, None)["steps"] == 1
        released.set()
        while games.view(slow, None)["steps"] == 0 and time.monotonic() - began < 20:
            await asyncio.sleep(0.02)
        task.cancel()
        return quick_done_while_held

    assert asyncio.run(run())
    assert games.view(slow, None)["steps"] == 1


@pytest.mark.slow
def test_a_due_game_that_keeps_failing_is_tried_less_and_less_often_until_it_changes(db_url, monkeypatch):
    """A due game whose every adjudication fails (here: past the time limit) is not tried at every look
    (every 0.05 s here), each try holding a worker, but after growing intervals; once the game
    changes (a player joins), it is tried again at once."""
    from fivedp_asp.errors import TimeLimitError

    now = [1000.0]
    games = Games(Database(db_url), clock=lambda: now[0])
    gid, _ = games.create(game_from_start({}, None), deadline=30)
    now[0] += 31
    tries: list[float] = []

    def adjudicate_due(game_id):
        tries.append(time.monotonic())
        raise TimeLimitError("this step is too big to settle within the time limit of 1 s")

    monkeypatch.setattr(games, "adjudicate_due", adjudicate_due)

    async def run():
        task = asyncio.create_task(_deadlines(games, 0.05, Solvers(2)))
        await asyncio.sleep(2.5)
        before = len(tries)
        changed = time.monotonic()
        games.join(gid, "France")
        while len(tries) == before and time.monotonic() - changed < 5:
            await asyncio.sleep(0.01)
        task.cancel()
        return before, time.monotonic() - changed

    before, retried_after = asyncio.run(run())
    # looks every 0.05 s; tries 0.1, 0.2, 0.4, 0.8 s apart: five or so in 2.5 s (some 50 without)
    assert 3 <= before <= 8, before
    assert len(tries) > before and retried_after < 0.5, retried_after


def test_the_servers_limits_hold_around_solving(tmp_path, monkeypatch):
    """``--time-limit`` and ``--memory-limit`` (here through make_app) are the limits in effect where
    a submission's lines are checked and where a step is solved."""
    from fivedp_asp.solver.driver import time_limit_in_effect
    from fivedp_asp.solver.limits import _MEMORY_LIMIT

    seen = []
    real_seal, real_open = store.seal, store.open_and_adjudicate

    def seal(*args, **kwargs):
        seen.append(("seal", time_limit_in_effect(), _MEMORY_LIMIT.get()))
        return real_seal(*args, **kwargs)

    def open_and_adjudicate(*args, **kwargs):
        seen.append(("step", time_limit_in_effect(), _MEMORY_LIMIT.get()))
        return real_open(*args, **kwargs)

    monkeypatch.setattr(store, "seal", seal)
    monkeypatch.setattr(store, "open_and_adjudicate", open_and_adjudicate)
    from starlette.testclient import TestClient

    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, time_limit=7,
                             memory_limit=300)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        t.orders("France", "A Par - Bur")
        t.adjudicate()
    assert seen == [("seal", 7.0, 300), ("step", 7.0, 300)]


def test_a_step_over_the_time_limit_is_refused_with_what_a_served_games_players_can_do(tmp_path):
    """Past the server's time limit, a check and an adjudication are refused with 400 naming the limit
    and what can be done about it here: simpler orders, or the operator's ``fivedp serve
    --time-limit``; never the command line's flag or the API's argument, which a player cannot
    change. Nothing is changed. The game grinds on every order (GRINDING), so that no step of it can
    end within the limit however fast the machine."""
    from dataclasses import replace

    from starlette.testclient import TestClient

    from fivedp_asp.files.games import game_text

    grinder = game_from_start({}, TWO_POWERS, {"spin": {"text": GRINDING}})
    upload = game_text(replace(grinder, pending={"Germany": ["A Mun - Tyr"]}))
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, time_limit=0.5)) as client:
        t = new_table(client, {"file": upload})
        t.join("France")
        refused = [t.orders("France", "A Par - Bur"), t.adjudicate()]
        view = t.view()
    for r in refused:
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert "time limit of 0.5 s" in error and "fivedp serve --time-limit" in error, error
        assert "time_limit=" not in error and "raise --time-limit" not in error, error
    assert view["steps"] == 0 and view["submitted"] == ["Germany"]


def test_the_solving_done_at_once_is_bounded_and_one_per_game():
    async def run(count: int, keys: list[str], alongside: bool = False) -> int:
        solvers = Solvers(count)
        busy, most = [0], [0]
        lock = threading.Lock()

        def work():
            with lock:
                busy[0] += 1
                most[0] = max(most[0], busy[0])
            time.sleep(0.05)
            with lock:
                busy[0] -= 1

        await asyncio.gather(*(solvers.run(k, work, alongside=alongside) for k in keys))
        solvers.close()
        return most[0]

    assert asyncio.run(run(2, [f"g{n}" for n in range(8)])) == 2  # eight games, two at once
    assert asyncio.run(run(4, ["same"] * 4)) == 1  # one game: one thing at a time
    assert asyncio.run(run(3, [None] * 6)) == 3
    # the checks of one game's orders side by side (a game without rules of its own), still bounded
    assert asyncio.run(run(2, ["same"] * 6, alongside=True)) == 2


def test_only_a_game_known_to_have_no_rules_of_its_own_checks_orders_side_by_side(tmp_path):
    """``Games.rules_free`` says which games' order checks may run side by side (``Solvers``): not a
    game never read, not a game with a rule of its own (which may grind: its checks adjudicate the
    step, and one such game must never take every worker)."""
    games = Games(Database(f"sqlite:///{tmp_path}/games.db"))
    plain, _ = games.create(game_from_start({}, None))
    ruled, _ = games.create(game_from_start({}, None, {"spin": {"text": GRINDING}}))
    assert not games.rules_free(plain) and not games.rules_free(ruled) and not games.rules_free("no-such-game")
    for gid in (plain, ruled):
        games.revision(gid)  # a read of the row only
    assert not games.rules_free(plain)
    for gid in (plain, ruled):
        games.view(gid, None)
    assert games.rules_free(plain) and not games.rules_free(ruled)


# -- a real server ---------------------------------------------------------------------------------------


def _call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict, float]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    began = time.monotonic()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, json.load(r), time.monotonic() - began
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc), time.monotonic() - began


@pytest.mark.slow
def test_a_grinding_rule_is_stopped_by_the_time_limit_while_another_game_plays_on(tmp_path):
    """Game A has a rule of your own that grinds on every order, and an order waiting (its game file
    was uploaded so); its host asks again and again for an adjudication, and France for a check of
    its orders. Game B, with a deadline, is joined, given orders and adjudicated at its deadline on
    time; A's requests are refused when the server's time limit (3 s here) is up."""
    from dataclasses import replace

    from fivedp_asp.files.games import game_text

    grinder = game_from_start({}, TWO_POWERS, {"spin": {"text": GRINDING}})
    upload = game_text(replace(grinder, pending={"France": ["A Par - Bur"]}))
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=("--time-limit", "3")) as base:
        status, a, _ = _call(base, "POST", "/api/games", {"file": upload})
        assert status == 200, a
        status, b, _ = _call(base, "POST", "/api/games", {"start": TWO_POWERS, "deadline": 10})
        made_b = time.monotonic()
        a_france = _call(base, "POST", f"/api/games/{a['id']}/players", {"power": "France"})[1]["token"]
        key_a = _call(base, "GET", f"/api/games/{a['id']}")[1]["next"]["key"]
        grinding: list[tuple[int, dict, float]] = []
        stop = threading.Event()

        def grind():
            grinding.append(_call(base, "POST", f"/api/games/{a['id']}/orders/check", {"lines": ["A Par - Bur"]},
                                  a_france))
            while not stop.is_set():
                grinding.append(_call(base, "POST", f"/api/games/{a['id']}/adjudicate", {"phase": key_a}, a["host_token"]))

        threads = [threading.Thread(target=grind) for _ in range(2)]
        for th in threads:
            th.start()
        time.sleep(1.0)
        latencies = []
        tokens = {}
        for power in ("France", "Germany"):
            status, joined, took = _call(base, "POST", f"/api/games/{b['id']}/players", {"power": power})
            assert status == 200, joined
            tokens[power] = joined["token"]
            latencies.append(took)
        status, view, took = _call(base, "GET", f"/api/games/{b['id']}", token=tokens["France"])
        latencies.append(took)
        status, doc, took = _call(base, "POST", f"/api/games/{b['id']}/orders",
                                  {"lines": ["A Par - Bur"], "phase": view["next"]["key"]}, tokens["France"])
        assert status == 200, doc
        latencies.append(took)
        # B's deadline: 10 s after it was made, looked at every 5 s
        while time.monotonic() - made_b < 25:
            status, view, took = _call(base, "GET", f"/api/games/{b['id']}")
            latencies.append(took)
            if view["steps"] == 1:
                break
            time.sleep(0.5)
        adjudicated_after = time.monotonic() - made_b
        stop.set()
        for th in threads:
            th.join(60)
    print(f"B adjudicated {adjudicated_after:.1f} s after it was made (deadline 10 s); B's requests took at most "
          f"{max(latencies):.2f} s; A's {len(grinding)} requests each refused after {min(g[2] for g in grinding):.1f} to "
          f"{max(g[2] for g in grinding):.1f} s")
    assert view["steps"] == 1 and adjudicated_after < 20, adjudicated_after
    assert max(latencies) < 2.0, latencies
    assert grinding and all(s == 400 and "time limit of 3 s" in d["error"] and "fivedp serve --time-limit" in d["error"]
                            and "time_limit=" not in d["error"] for s, d, _ in grinding), grinding[:3]
    # each refused after about 3 s, waiting for the others of its game (a game solves one thing at a time)
    assert all(took < 12 for _, _, took in grinding)


@pytest.mark.slow
def test_idle_connections_are_closed(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=("--idle-timeout", "1")) as base:
        port = int(base.rsplit(":", 1)[1])
        for sent in (b"", b"GET / HTTP/1.1\r\nHost: x\r\n", b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(sent)
                began, received = time.monotonic(), b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                closed_after = time.monotonic() - began
            assert closed_after < 4, (sent, closed_after)
            assert (b"200 OK" in received) == sent.endswith(b"\r\n\r\n"), received[:100]


@pytest.mark.slow
def test_events_follow_every_change(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path) as base:
        status, made, _ = _call(base, "POST", "/api/games", {"start": TWO_POWERS})
        gid = made["id"]
        seen: list[int] = []

        def listen():
            with httpx.stream("GET", f"{base}/api/games/{gid}/events", timeout=30) as r:
                assert r.headers["content-type"].startswith("text/event-stream")
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        seen.append(int(line[6:]))
                        if len(seen) == 4:
                            return

        thread = threading.Thread(target=listen)
        thread.start()

        def wait_for(n: int) -> None:
            began = time.monotonic()
            while len(seen) < n and time.monotonic() - began < 10:
                time.sleep(0.05)

        wait_for(1)
        france = _call(base, "POST", f"/api/games/{gid}/players", {"power": "France"})[1]["token"]
        wait_for(2)
        key = _call(base, "GET", f"/api/games/{gid}")[1]["next"]["key"]
        _call(base, "POST", f"/api/games/{gid}/orders", {"lines": ["A Par - Bur"], "phase": key}, france)
        wait_for(3)
        _call(base, "POST", f"/api/games/{gid}/adjudicate", {"phase": key}, made["host_token"])
        thread.join(20)
        last = _call(base, "GET", f"/api/games/{gid}/revision")[1]["revision"]
    assert len(seen) == 4 and seen == sorted(set(seen)) and seen[-1] == last, seen


def test_streams_share_a_read_of_the_revision_never_one_begun_before_a_change():
    """The /events streams of a game woken by one change share one read of its revision; a stream
    that learnt of a change while that read was under way reads again (else it would say the
    revision before the change, and wait for the next)."""
    revision, reads, gate = {"g": 1}, [], threading.Event()

    def read(gid: str) -> int:
        value = revision[gid]
        reads.append(value)
        gate.wait(10)
        return value

    async def streams():
        moves = Moves(read)
        (first_woken, first_told), (second_woken, second_told) = moves.next("g"), moves.next("g")
        assert first_woken is second_woken
        first = asyncio.ensure_future(moves.revision("g", first_told))
        while not reads:
            await asyncio.sleep(0.01)
        second = asyncio.ensure_future(moves.revision("g", second_told))
        revision["g"] = 2
        moves.moved("g")  # written, and told while the first read is under way
        assert first_woken.is_set()
        third_woken, third_told = moves.next("g")
        assert not third_woken.is_set()
        third = asyncio.ensure_future(moves.revision("g", third_told))
        for _ in range(500):  # its own read begins (at most 5 s)
            if len(reads) == 2:
                break
            await asyncio.sleep(0.01)
        gate.set()
        return await first, await second, await third

    assert asyncio.run(streams()) == (1, 1, 2)
    assert reads == [1, 2]


def test_every_route_that_changes_a_game_wakes_its_streams_at_once(db_url):
    """docs/server.md: a change made through the same process is sent on /events at once, not at the
    stream's next read a second later: each changing route wakes the game's streams when it answers,
    refused or not; a read does not."""
    with TestClient(make_app(db_url, deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        moves = client.app.state.moves

        def wakes(change) -> bool:
            woken, _ = moves.next(t.id)
            change()
            return woken.is_set()

        assert wakes(lambda: t.join("France"))
        assert wakes(lambda: t.join("Germany"))
        key = t.view("France")["next"]["key"]
        assert not wakes(lambda: t.view("France"))
        assert wakes(lambda: t.orders("France", "A Par - Bur", phase=key))
        assert wakes(lambda: t.withdraw("France", key))
        assert wakes(lambda: client.post(f"/api/games/{t.id}/adjudicate", json={"phase": key}, headers=t.auth("host")))
        key = t.view("host")["next"]["key"]
        assert wakes(lambda: client.post(f"/api/games/{t.id}/undo", json={"phase": key}, headers=t.auth("host")))
        assert wakes(lambda: client.post(f"/api/games/{t.id}/adjudicate", json={"phase": "stale"}, headers=t.auth("host")))
