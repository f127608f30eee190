"""The server's JSON routes, role by role and refusal by refusal, through the framework's test client
(on SQLite, and on PostgreSQL where one is running: ``conftest.db_url``)."""

from __future__ import annotations

import json
import logging

import pytest

from fivedp_asp.files.games import game_from_bytes
from fivedp_asp.files.verify import verify_game
from fivedp_asp.limits import MAX_FILE_BYTES, MAX_ORDERS
from fivedp_asp.report.jsonout import load_schema

from tests.schema_check import errors
from tests.serve.conftest import TWO_POWERS, new_table

SCHEMA = load_schema()


def valid(doc: dict, kind: str) -> dict:
    assert doc["format"] == 1 and doc["kind"] == kind
    problems = errors(doc, SCHEMA)
    assert not problems, problems[:5]
    return doc


def test_a_game_made_joined_and_played_by_its_roles(client):
    t = new_table(client, {"start": TWO_POWERS})
    assert len(t.host) >= 32 and t.view()["server"]["role"] == "spectator"
    assert t.view("host")["server"]["role"] == "host"
    t.join("France")
    t.join("germany")  # a power by any spelling the map reads
    assert set(t.tokens) == {"France", "germany"}
    view = valid(t.view("France"), "game")
    assert view["server"]["role"] == "player" and view["server"]["power"] == "France"
    assert view["server"]["players"] == ["France", "Germany"]
    key = view["next"]["key"]
    r = t.orders("France", "A Par - Bur", "A Mar S A Par - Bur", phase=key)
    assert r.status_code == 200, r.text
    doc = valid(r.json(), "orders")
    assert [(a["order"], a["legal"]) for a in doc["accepted"]] == [("A Par - Bur", True), ("A Mar S A Par - Bur", True)]
    assert doc["pending"] == {"France": ["A Par - Bur", "A Mar S A Par - Bur"]} and doc["complete"] is False
    # the other player and the host see that France submitted, never what
    for who in ("germany", "host", None):
        seen = t.view(who)
        assert seen["submitted"] == ["France"] and "Bur" not in json.dumps(seen), who
    assert "A Par - Bur" not in t.get("/picture", "germany").text and "A Par - Bur" in t.get("/picture", "France").text
    # Germany submits too: every power with something to do has, so the phase is complete; the answer
    # says so at once, and the server adjudicates it next
    r = t.orders("germany", "A Mun - Bur", phase=key)
    assert valid(r.json(), "orders")["complete"] is True and r.json()["submitted"] == ["France", "Germany"]
    t.next_phase(key)
    step = valid(t.get("/history").json(), "history")["steps"][-1]
    assert step["index"] == 1 and sorted(step["orders"]) == ["France", "Germany"]
    results = {(o["power"], o["order"]): o["result"] for o in step["results"]}
    assert results[("France", "A Par - Bur")] == "succeeds" and results[("Germany", "A Mun - Bur")] == "fails"
    after = t.view("France")
    assert after["next"]["step"] == 2 and after["submitted"] == [] and after["pending"] == {}
    assert valid(t.get("/history").json(), "history")["steps"][0]["orders"]["France"] == ["A Par - Bur",
                                                                                         "A Mar S A Par - Bur"]


def test_refusals_say_why_with_their_status(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    key = t.key()
    cases = [
        (t.post("/players", {"power": "France"}), 409, "France has joined already"),
        (t.post("/players", {"power": "Atlantis"}), 400, "unknown power 'Atlantis'"),
        (t.post("/players", {"power": "Italy"}), 400, "Italy does not play in this game"),
        (t.post("/players", {}), 400, "power: name the power to play"),
        (t.orders(None, "A Par - Bur"), 403, "orders are given by players"),
        (t.orders("host", "A Par - Bur"), 403, "orders are given by players"),
        (t.adjudicate("France"), 403, "only the host may adjudicate"),
        (t.undo("France"), 403, "only the host may undo"),
        (t.get("/file", "France"), 403, "only the host may download the game file"),
        (t.get("/possible"), 401, "send your token"),
        (client.get(f"/api/games/{t.id}", headers={"Authorization": "Bearer not-a-token"}), 401,
         "belongs to no host or player of this game"),
        (client.get(f"/api/games/{t.id}", headers={"Authorization": "Basic abc"}), 400, "write 'Bearer TOKEN'"),
        (client.get("/api/games/nosuchgame"), 404, "no game 'nosuchgame'"),
        (t.orders("France", "A Par -> Narnia"), 400, "unknown province 'Narnia'"),
        (t.orders("France", "Germany: A Mun - Ruh"), 400, "a private set is one power's orders"),
        (t.post("/orders", {"lines": "A Par - Bur"}, "France"), 400, "lines: give the order lines as a list"),
        (t.post("/orders", {"lines": [], "phase": 3}, "France"), 400, "phase:"),
        (t.post("/orders", {"lines": [], "replace": "yes"}, "France"), 400, "replace: give true or false"),
        (client.post(f"/api/games/{t.id}/orders", content=b"{not json", headers=t.auth("France")), 400, "not valid JSON"),
        (client.post(f"/api/games/{t.id}/orders", content=b"[1]", headers=t.auth("France")), 400, "a JSON object"),
        (client.post(f"/api/games/{t.id}/orders", content=b'{"a":1,"a":2}', headers=t.auth("France")), 400, "duplicate key 'a'"),
        (client.post(f"/api/games/{t.id}/orders", content=b"\xff\xfe", headers=t.auth("France")), 400, "UTF-8"),
        (t.orders("France", *["A Par H"] * (MAX_ORDERS + 1)), 400, "order lines (the limit is 16,384)"),
        (client.post("/api/games", json={"options": {"adjacency": "weird"}}), 400, "adjacency cannot be 'weird'"),
        (client.post("/api/games", json={"deadline": 1}), 400, "deadline:"),
        (client.post("/api/games", json={"file": "not a game", "options": {}}), 400, "give file alone"),
        (client.post("/api/games", json={"file": "format: nothing\n"}), 400, "the uploaded game file: not a fivedp game file"),
    ]
    for r, status, words in cases:
        assert r.status_code == status, (words, r.status_code, r.text)
        assert words in r.json()["error"], (words, r.json())
        assert "Traceback" not in r.text
    # a change for a phase no longer waiting: 409, the phase now waiting in the answer
    assert t.adjudicate(phase=key).status_code == 200
    r = t.orders("France", "A Par - Pic", phase=key)
    assert r.status_code == 409 and r.json()["phase"] == t.key()
    assert "the game has moved on: it now waits for step 2" in r.json()["error"]
    assert t.view("France")["pending"] == {}


def test_a_request_larger_than_the_file_limit_is_413(client):
    t = new_table(client)
    t.join("France")
    r = client.post(f"/api/games/{t.id}/orders", content=b'{"lines": ["' + b"x" * (MAX_FILE_BYTES + 10) + b'"]}',
                    headers={**t.auth("France"), "Content-Type": "application/json"})
    assert r.status_code == 413 and "too large" in r.json()["error"]


def test_check_withdraw_and_change_of_mind(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    t.join("Germany")
    r = t.post("/orders/check", {"lines": ["A Par - Mos", "A Mar - Spa"]}, "France")
    doc = valid(r.json(), "orders")
    assert [(a["order"], a["legal"], a["reason"]) for a in doc["accepted"]] == [
        ("A Par - Mos", False, "not adjacent"), ("A Mar - Spa", True, None)]
    assert t.view("France")["submitted"] == []  # checking saves nothing
    t.orders("France", "A Par - Bur")
    t.orders("France", "A Par - Pic")  # a line for a unit replaces that unit's line
    assert t.view("France")["pending"] == {"France": ["A Par - Pic"]}
    t.orders("France", "A Mar - Spa", replace=True)
    assert t.view("France")["pending"] == {"France": ["A Mar - Spa"]}
    r = t.withdraw("France")
    assert r.status_code == 200 and t.view("France")["submitted"] == []
    r = t.orders("France")  # an empty set is a submission: every unit holds
    assert r.status_code == 200 and t.view("Germany")["submitted"] == ["France"]


def test_the_host_adjudicates_undoes_and_downloads_a_file_verify_accepts(client):
    t = new_table(client)
    t.join("England")
    t.orders("England", "F Lon - Eng")
    step = t.adjudicate().json()
    assert step["step"]["index"] == 1 and step["opened"] == ["England"]
    r = t.undo()
    assert r.status_code == 200 and r.json()["undone"] == 1 and r.json()["resealed"] == ["England"]
    # the orders of the step taken back wait again, private
    assert t.view("England")["pending"] == {"England": ["F Lon - Eng"]} and t.view()["submitted"] == ["England"]
    assert t.undo().status_code == 400  # orders wait: nothing to take back over them
    t.adjudicate()
    text = t.get("/file", "host").text
    game, _ = game_from_bytes(text.encode("utf-8"), "downloaded")
    assert len(game.history) == 1 and verify_game(game).honest
    # the file starts a new served game
    r = client.post("/api/games", json={"file": text})
    assert r.status_code == 200
    copy = client.get(f"/api/games/{r.json()['id']}").json()
    assert copy["steps"] == 1 and copy["next"]["key"] == t.key()
    # an edited file is refused
    edited = text.replace("- F Eng", "- F Wal")
    from fivedp_asp.files.integrity import reseal

    r = client.post("/api/games", json={"file": reseal(edited.rsplit("checksum:", 1)[0])})
    assert r.status_code == 400 and "not an honest record" in r.json()["error"]


def test_possible_orders_are_the_players_own(client):
    t = new_table(client)
    t.join("Italy")
    mine = valid(t.get("/possible", "Italy", params={"unit": "A Ven"}).json(), "possible")
    assert mine["orders"] and {o["power"] for o in mine["orders"]} == {"Italy"}
    everyone = t.get("/possible", "host", params={"kind": "hold"}).json()
    assert {o["power"] for o in everyone["orders"]} == {"Austria", "England", "France", "Germany", "Italy",
                                                        "Russia", "Turkey"}


def test_a_players_look_at_a_phase_works_out_its_legal_orders_ahead_of_the_questions(client, monkeypatch):
    """What every legal-orders question of a movement phase shares (which boards each head may act on:
    one solver call) is worked out once a player has looked at the phase, beside that answer, and is
    not worked out again by the questions; a spectator's look starts nothing."""
    import time

    from fivedp_asp.engine import possible

    calls = []
    real = possible._Space._board_adjacency
    monkeypatch.setattr(possible._Space, "_board_adjacency", lambda self: calls.append(1) or real(self))
    games = client.app.state.games
    t = new_table(client)
    t.join("Italy")
    key = t.view()["next"]["key"]  # a spectator
    time.sleep(0.3)
    assert not games.possible_kept(t.id, key) and calls == []
    assert t.view("Italy")["next"]["key"] == key
    for _ in range(100):
        if games.possible_kept(t.id, key) and calls:
            break
        time.sleep(0.05)
    assert calls == [1]
    for unit in ("A Ven", "F Nap", "A Rom"):
        assert t.get("/possible", "Italy", params={"unit": unit}).json()["orders"]
    t.view("Italy")  # a look again prepares nothing again
    time.sleep(0.2)
    assert calls == [1]


def test_looking_again_and_again_at_a_game_whose_rules_grind_grinds_once(tmp_path, monkeypatch, caplog):
    """The legal orders worked out ahead of a phase are tried once per phase: a rule of one's own
    that grinds until the time limit is not set grinding again by every look at the game."""
    import time

    from starlette.testclient import TestClient

    from fivedp_asp.serve.app import make_app
    from fivedp_asp.serve.store import Games
    # grinds on any board: in the program that works out which boards each head may act on too
    grinding = "spin(X) :- board(B), X = 1..2000000000, X \\ 7 == 99.\ncut(S) :- supports(S,X,T), spin(1).\n"
    tried, real = [], Games.prepare_possible
    monkeypatch.setattr(Games, "prepare_possible", lambda self, gid: tried.append(gid) or real(self, gid))
    caplog.set_level(logging.INFO, logger="fivedp.serve")
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, time_limit=1)) as client:
        t = new_table(client, {"rules": {"spin": {"text": grinding}}})
        t.join("France")
        for _ in range(5):
            assert t.view("France")["server"]["role"] == "player"
            time.sleep(0.1)
        time.sleep(1.5)  # the one try has ended at the time limit
        t.view("France")
        time.sleep(0.3)
        assert tried == [t.id]
        assert "legal orders not prepared ahead: TimeLimitError" in caplog.text
        r = t.get("/possible", "France", params={"unit": "A Par"})  # the question itself says why
        assert r.status_code == 400 and "time limit" in r.json()["error"], r.text


def test_a_finished_game_takes_no_more_orders(client):
    start = {"units": {"France": ["A Burgundy", "A Belgium"], "Germany": ["A Ruhr"]}, "centers": {"France": ["Paris"]}}
    t = new_table(client, {"start": start})
    t.join("France")
    t.orders("France", "A Bur - Ruh", "A Bel S A Bur - Ruh")
    t.adjudicate()  # the German army is dislodged
    step = t.adjudicate().json()  # and, with no retreat order, disbanded
    assert step["step"]["eliminated"] == ["Germany"] and step["step"]["winner"] == "France"
    r = t.orders("France", "A Ruh - Kie")
    assert r.status_code == 409 and r.json()["error"] == "the game is over: France has won"
    assert t.adjudicate().status_code == 409
    assert t.view()["server"]["finished"] is True


def test_deadlines_adjudicate_a_phase_that_is_due(db_url):
    from fivedp_asp.serve.database import Database
    from fivedp_asp.serve.store import Games, game_from_start

    now = [1000.0]
    games = Games(Database(db_url), clock=lambda: now[0])
    gid, host = games.create(game_from_start({}, None), deadline=60)
    assert gid not in games.due()
    now[0] += 61
    assert gid in games.due()
    step = games.adjudicate_due(gid)
    assert step["step"]["index"] == 1
    assert games.adjudicate_due(gid) is None  # the next phase's deadline has not come
    assert games.view(gid, None)["server"]["deadline"]["left"] == 60


def test_no_token_reaches_a_log_or_an_answer_on_failure(client, caplog, monkeypatch):
    t = new_table(client)
    token = t.join("France")
    import fivedp_asp.serve.store as store

    def broken(*_a, **_k):
        raise RuntimeError("something unexpected")

    monkeypatch.setattr(store, "seal", broken)
    with caplog.at_level(logging.DEBUG):
        r = t.orders("France", "A Par - Bur")
    assert r.status_code == 500 and "internal error (RuntimeError)" in r.json()["error"]
    assert "Traceback" not in r.text and token not in r.text
    assert token not in caplog.text and t.host not in caplog.text
    assert "something unexpected" in caplog.text


def test_the_openapi_document_names_every_route(client):
    doc = client.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    app_routes = {r.path for r in client.app.routes if r.path.startswith("/api/")}
    assert set(doc["paths"]) == app_routes
    # every reference resolves
    text = json.dumps(doc)
    import re

    for ref in set(re.findall(r'"#/components/schemas/([a-z_]+)"', text)):
        assert ref in doc["components"]["schemas"], ref


@pytest.mark.parametrize("path", ["/", "/play/abc"])
def test_pages_fetch_nothing_from_elsewhere(client, path):
    html = client.get(path).text
    assert html.startswith("<!DOCTYPE html>")
    assert "http://" not in html and "https://" not in html and "//cdn" not in html


@pytest.mark.slow
def test_the_serve_benchmark_loses_nothing():
    """``fivedp bench serve`` on a short run: every power submitting at once, nothing lost."""
    from fivedp_asp.lab.bench.serve import bench_serve

    rows = bench_serve(rounds=3, timelines=3, seed=2, browser=False, units=3)
    assert [r["game"].split()[-1] for r in rows] == ["classic", "boards"]
    for r in rows:
        assert r["lost"] == 0 and r["steps"] >= 3 and r["submissions"] >= 3 * 2
        assert 0 < r["p50_ms"] <= r["p95_ms"] and r["page_s"] > 0 and r["page_after_s"] > 0
        assert r["legal_units"] >= 1 and 0 < r["legal_p50_ms"] <= r["legal_max_ms"] and r["table_s"] is None
        assert r["completing_p50_ms"] is not None  # every round's last submission completed its phase
        assert r["turnaround_p50_s"] > 0 and r["round_cpu_p50_s"] > 0 and r["cpu_p50_ms"] > 0
    # the big game is played with its history, as a table holds it
    assert rows[1]["played_before"] > 0 and rows[1]["steps"] >= rows[1]["played_before"] + 3


@pytest.mark.slow
def test_a_game_with_a_rule_of_your_own_is_served_and_refuses_a_runaway_rule(client, monkeypatch):
    """Rules of your own travel with the game (its file records their text) and are ground apart,
    with the time and memory limits, also inside the server; a rule that grounds without end is
    refused when the game is made, not left to hang a request."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "no_cross_timeline_support.lp").read_text()
    t = new_table(client, {"rules": {"no_cross_timeline_support": {"text": text}}})
    options = t.view()["options"]
    assert options["no_cross_timeline_support"]["value"] is True
    t.join("Austria")
    t.orders("Austria", "A Vie - Gal")
    assert t.adjudicate().json()["step"]["orders"][0]["result"] == "succeeds"
    assert "no_cross_timeline_support" in t.get("/file", "host").text
    import fivedp_asp.engine.userrules as userrules

    monkeypatch.setattr(userrules, "ALONE_SECONDS", 1.0)  # the cap on grounding a rule alone, shortened
    r = client.post("/api/games", json={"rules": {"runaway": {"text": "p(X+1) :- p(X). p(0). cut(1) :- p(-1)."}}})
    assert r.status_code == 400 and "ground" in r.json()["error"], r.json()


def test_the_servers_deadline_task_adjudicates_what_is_due(db_url):
    """The task every server process runs: a phase past its deadline is adjudicated once."""
    import asyncio

    from fivedp_asp.serve.app import _deadlines
    from fivedp_asp.serve.database import Database
    from fivedp_asp.serve.store import Games, game_from_start

    now = [5000.0]
    games = Games(Database(db_url), clock=lambda: now[0])
    gid, _ = games.create(game_from_start({}, None), deadline=30)
    other, _ = games.create(game_from_start({}, None))  # no deadline: never adjudicated by the task
    now[0] += 31

    async def run_a_while():
        task = asyncio.create_task(_deadlines(games, 0.01))
        for _ in range(500):
            await asyncio.sleep(0.01)
            if games.view(gid, None)["steps"] == 1:
                break
        task.cancel()

    asyncio.run(run_a_while())
    assert games.view(gid, None)["steps"] == 1 and games.view(other, None)["steps"] == 0


def test_the_completing_submission_answers_before_the_step_and_a_withdrawal_meanwhile_holds_it(client):
    """The submission that completes a phase answers at once (``complete``) while the server's scheduler
    adjudicates; a player who withdraws before that adjudication is written is not overruled: the
    phase waits again, and its next completion is adjudicated."""
    import threading
    import time

    t = new_table(client, {"start": TWO_POWERS})
    t.join("France"), t.join("Germany")
    games = client.app.state.games
    real, held, asked = games.adjudicate_complete, threading.Event(), threading.Event()

    def adjudicate_complete(gid, phase):
        asked.set()
        held.wait(60)  # the scheduler's adjudication held until the withdrawal is written
        return real(gid, phase)

    games.adjudicate_complete = adjudicate_complete
    key = t.key()
    assert t.orders("France", "A Par - Bur").json()["complete"] is False
    r = t.orders("Germany", "A Mun - Bur")
    assert r.status_code == 200 and r.json()["complete"] is True  # answered while the step is held
    assert "cpu;dur=" in r.headers["Server-Timing"]  # the processor time its solving took
    assert asked.wait(60)
    assert t.withdraw("Germany", phase=key).status_code == 200
    held.set()
    scheduler = client.app.state.scheduler
    for _ in range(1200):  # the held adjudication finds the phase no longer complete: nothing is played
        if not scheduler.adjudicating():
            break
        time.sleep(0.05)
    assert not scheduler.adjudicating()
    view = t.view("France")
    assert view["steps"] == 0 and view["next"]["key"] == key and view["submitted"] == ["France"]
    assert t.view("Germany")["pending"] == {}
    # Germany submits again: complete, and adjudicated with France's orders and Germany's new ones
    assert t.orders("Germany", "A Mun H", phase=key).json()["complete"] is True
    assert t.next_phase(key)["steps"] == 1
    step = t.last_step()
    assert step["orders"] == {"France": ["A Par - Bur"], "Germany": ["A Mun H"]}


def test_a_check_and_the_submission_of_the_same_lines_ask_the_rules_once(client, monkeypatch):
    """The verdicts on a set of lines are kept for the phase: the page's check and then its submission
    of the same lines ask the rules once, and give the same verdicts; other lines, or the same lines in
    the next phase, are asked of the rules again."""
    import fivedp_asp.game.play as play

    asked = []
    real = play.check_orders
    monkeypatch.setattr(play, "check_orders", lambda game: asked.append(1) or real(game))
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France"), t.join("Germany")
    lines = ["A Par - Bur", "F Bre - Lon"]
    checked = t.post("/orders/check", {"lines": lines}, "France").json()
    r = t.orders("France", *lines, replace=True)
    verdicts = [(a["order"], a["legal"], a["reason"]) for a in r.json()["accepted"]]
    assert verdicts == [(a["order"], a["legal"], a["reason"]) for a in checked["accepted"]]
    assert verdicts == [("A Par - Bur", True, None), ("F Bre - Lon", False, "not adjacent")] and len(asked) == 1
    t.orders("France", "A Par - Pic", replace=True)
    assert len(asked) == 2
    key = t.key()
    t.orders("Germany")
    t.next_phase(key)
    before = len(asked)
    t.post("/orders/check", {"lines": ["A Pic - Bel"]}, "France")
    t.orders("France", "A Pic - Bel", replace=True)
    assert len(asked) == before + 1  # the next phase's verdicts, asked once for its check and submission


def test_a_phase_left_complete_by_a_stopped_server_is_adjudicated_when_one_starts(db_url):
    """Every power submitted, then the server stopped before adjudicating: the next server to start
    adjudicates that phase; a game still waiting for a power is left waiting."""
    from starlette.testclient import TestClient

    from fivedp_asp.serve.app import make_app
    from fivedp_asp.serve.database import Database
    from fivedp_asp.serve.store import Games, game_from_start

    games = Games(Database(db_url))
    made = {}
    for name in ("complete", "waiting"):
        gid, _ = games.create(game_from_start({}, None))
        tokens = {p: games.join(gid, p)[1] for p in ("Austria", "England", "France", "Germany", "Italy", "Russia",
                                                     "Turkey")}
        key = games.view(gid, None)["next"]["key"]
        answers = [games.submit(gid, tokens[p], [], phase=key) for p in sorted(tokens)[:7 if name == "complete" else 6]]
        assert answers[-1]["complete"] is (name == "complete")  # nothing adjudicates it here: no server runs
        made[name] = (gid, key)
    assert games.view(made["complete"][0], None)["steps"] == 0
    with TestClient(make_app(db_url, deadline_check=0.05)) as client:
        from tests.serve.conftest import Table

        view = Table(client, made["complete"][0], "").next_phase(made["complete"][1], timeout=60)
        assert view["steps"] == 1
    assert games.view(made["waiting"][0], None)["steps"] == 0


def test_a_complete_phase_whose_adjudication_fails_waits_with_its_orders(client, caplog):
    """The scheduler's adjudication of a complete phase fails (here once, as a step past the time
    limit would): nothing is lost, the phase waits with every set submitted, and the host's
    adjudicate plays it."""
    import time

    from fivedp_asp.serve.store import ServeError

    t = new_table(client, {"start": TWO_POWERS})
    t.join("France"), t.join("Germany")
    games, scheduler = client.app.state.games, client.app.state.scheduler
    real, failed = games._adjudicated, []

    def adjudicated(game, sealed):
        if not failed:
            failed.append(1)
            raise ServeError("the step took longer than the time limit")
        return real(game, sealed)

    games._adjudicated = adjudicated
    key = t.key()
    t.orders("France", "A Par - Bur")
    with caplog.at_level(logging.ERROR, logger="fivedp.serve"):
        assert t.orders("Germany", "A Mun - Bur").json()["complete"] is True
        for _ in range(1200):
            if failed and not scheduler.adjudicating():
                break
            time.sleep(0.05)
    assert failed and not scheduler.adjudicating()
    assert "complete phase of game" in caplog.text and "A Mun" not in caplog.text
    view = t.view("France")
    assert view["steps"] == 0 and view["next"]["key"] == key and view["submitted"] == ["France", "Germany"]
    r = t.adjudicate()
    assert r.status_code == 200 and r.json()["opened"] == ["France", "Germany"]
    assert t.last_step()["orders"] == {"France": ["A Par - Bur"], "Germany": ["A Mun - Bur"]}
