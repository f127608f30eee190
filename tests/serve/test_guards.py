"""The server's promises tried as a hostile user and a bad day would (docs/server.md): every change
names its phase, unknown fields are refused by name, the host never reads waiting orders, an upload
opens nothing on the server's disk, storage failures are a 503 that keeps reads working, every
response carries the security headers, games per minute are bounded, tokens are kept as digests
and compared in constant time, every change raises the revision, a power with nothing to do is not
waited for, the sustain phase is the host's or the deadline's, and the line limit holds."""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import sqlite3
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from fivedp_asp.files.integrity import reseal
from fivedp_asp.limits import MAX_ORDER_CHARS
from fivedp_asp.serve.app import Makers, make_app
from fivedp_asp.serve.database import Database
from fivedp_asp.serve.store import digest

from tests.serve.conftest import TWO_POWERS, new_table
from tests.serve.live import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_every_change_names_its_phase(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    assert t.orders("France", "A Par - Bur").status_code == 200
    before = t.view("France")
    refused = [
        t.post("/orders", {"lines": ["A Par - Pic"]}, "France"),
        client.delete(f"/api/games/{t.id}/orders", headers=t.auth("France")),
        t.post("/adjudicate", {}, "host"),
        t.post("/undo", {}, "host"),
    ]
    for r in refused:
        assert r.status_code == 400 and r.json()["error"].startswith("phase: name the phase"), r.text
    after = t.view("France")
    assert after["pending"] == before["pending"] == {"France": ["A Par - Bur"]} and after["steps"] == 0
    assert after["server"]["revision"] == before["server"]["revision"]


def test_every_unknown_field_is_refused_by_name(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    key = t.key()
    cases = [
        (client.post("/api/games", json={"deadlin": 60}), "deadlin"),
        (client.post("/api/games", json={"file": "x", "deadline": 60, "opitons": {}}), "opitons"),
        (t.post("/players", {"power": "Germany", "colour": "red"}), "colour"),
        (t.post("/orders", {"lines": ["A Par - Bur"], "phase": key, "power": "Germany"}, "France"), "power"),
        (t.post("/orders", {"lines": ["A Par - Bur"], "phase": key, "replace_all": True}, "France"), "replace_all"),
        (t.post("/orders/check", {"lines": ["A Par - Bur"], "phase": key}, "France"), "phase"),
        (t.post("/adjudicate", {"phase": key, "force": True}, "host"), "force"),
        (t.post("/undo", {"phase": key, "steps": 2}, "host"), "steps"),
        (client.delete(f"/api/games/{t.id}/orders", params={"phase": key, "all": "1"}, headers=t.auth("France")), "all"),
        (t.get("/possible", "France", params={"unit": "A Par", "knd": "move"}), "knd"),
    ]
    for r, name in cases:
        assert r.status_code == 400, (name, r.text)
        assert r.json()["error"].startswith(f"unknown field '{name}'"), r.json()
    view = t.view("France")
    assert view["pending"] == {} and view["submitted"] == [] and view["steps"] == 0
    assert t.view("Germany" if "Germany" in t.tokens else None)["server"]["players"] == ["France"]


def test_the_host_never_reads_a_waiting_order(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    t.join("Germany")
    t.orders("France", "A Par - Bur", "A Mar S A Par - Bur")
    for text in (t.get("/file", "host").text, t.get("/picture", "host").text, t.get("", "host").text):
        assert "Par - Bur" not in text and "a-Par@0 - a-Bur@0" not in text and "S A Par" not in text
    assert t.view("host")["submitted"] == ["France"]
    t.adjudicate()
    # once adjudicated, the orders are in the file, as the step they were played in
    text = t.get("/file", "host").text
    assert "A a-Par@0 - a-Bur@0" in text


def test_the_host_is_given_the_link_to_share(client):
    r = client.post("/api/games", json={})
    made = r.json()
    assert made["join"] == f"/play/{made['id']}" and made["play"].startswith(made["join"] + "#token=")
    page = client.get(made["join"]).text
    # the host's page says its own link is the host's, and gives the game's own link to share
    assert "This link is the host's: keep it to yourself." in page
    script = client.get("/static/table.js").text  # the table's script, which the page loads
    assert '<script src="/static/table.js">' in page
    assert "$('joinlink').value = location.origin + '/play/'" in script and "$('share').hidden = s.role !== 'host'" in script


def _game_file(client) -> str:
    t = new_table(client)
    return t.get("/file", "host").text


def test_an_upload_opens_nothing_of_the_servers_disk(client, tmp_path):
    text = _game_file(client)
    body = text.rsplit("checksum:", 1)[0]
    assert "\nmap: standard\n" in body
    copy = tmp_path / "standard.yaml"
    copy.write_text((ROOT / "fivedp_asp" / "maps" / "standard.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    link = tmp_path / "link.yaml"
    link.symlink_to(copy)
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", encoding="utf-8")
    answers = []
    for name in (str(tmp_path / "missing.yaml"), str(copy), str(link), str(secret), "nosuchmap", "../maps/standard"):
        r = client.post("/api/games", json={"file": reseal(body.replace("\nmap: standard\n", f"\nmap: {name}\n"))})
        assert r.status_code == 400, (name, r.text)
        answers.append(r.json()["error"])
        assert str(tmp_path) not in r.text and "password" not in r.text
    assert len(set(answers)) == 1 and "only the maps shipped with fivedp" in answers[0], answers
    # a start names no map at all
    r = client.post("/api/games", json={"start": {**TWO_POWERS, "map": str(copy)}})
    assert r.status_code == 400 and "unknown key 'map'" in r.json()["error"]
    # the shipped map by its name is played
    assert client.post("/api/games", json={"file": text}).status_code == 200


def test_the_line_limit_holds_through_the_server(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    long = "A Par - Bur " + "x" * (MAX_ORDER_CHARS - 11)
    assert len(long) == MAX_ORDER_CHARS + 1
    for r in (t.orders("France", long), t.post("/orders/check", {"lines": [long]}, "France")):
        assert r.status_code == 400 and "1,000" in r.json()["error"], r.text
    assert t.view("France")["submitted"] == []
    fits = "A Par - Bur" + " " * (MAX_ORDER_CHARS - 11)
    assert t.orders("France", fits).status_code == 200


# -- storage failures ----------------------------------------------------------------------------------


def _read_only(path: Path) -> bool:
    """Makes the file read-only even for root (the immutable flag); False where that cannot be done."""
    path.chmod(0o444)
    try:
        with open(path, "ab"):
            pass
    except PermissionError:
        return True
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def test_a_read_only_database_is_a_503_and_reads_go_on(tmp_path, caplog):
    db = tmp_path / "games.db"
    with TestClient(make_app(f"sqlite:///{db}", deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        key = t.key()
        if not _read_only(db):
            pytest.skip("this file system cannot make a file read-only")
        # the connections the server keeps were opened writable; new ones (within CONNECTION_SECONDS,
        # or at once after a failure) see the file read-only: opened again here
        client.app.state.games.db.close_idle()
        try:
            with caplog.at_level(logging.ERROR, logger="fivedp.serve"):
                r = t.orders("France", "A Par - Bur", phase=key)
                made = client.post("/api/games", json={})
            for r in (r, made):
                assert r.status_code == 503, r.text
                assert r.json()["error"] == ("the games database cannot be written just now: nothing was changed; "
                                             "try again later")
                assert str(tmp_path) not in r.text
            assert "readonly" in caplog.text and str(db) in caplog.text  # the details, in the log only
            # reads keep working
            assert t.view("France")["submitted"] == [] and t.get("/history").status_code == 200
            assert t.get("/file", "host").status_code == 200 and t.get("/revision").status_code == 200
        finally:
            subprocess.run(["chattr", "-i", str(db)], capture_output=True)
            db.chmod(0o644)


def test_a_full_disk_is_a_503_and_reads_go_on(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    with TestClient(make_app(f"sqlite:///{db}", deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        connect = Database._connect

        class Full:
            """A connection whose writes find the disk full, as SQLite says it."""

            def __init__(self, conn):
                self._conn = conn

            def execute(self, sql, *args):
                if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
                    raise sqlite3.OperationalError("database or disk is full")
                return self._conn.execute(sql, *args)

            def __getattr__(self, name):
                return getattr(self._conn, name)

        monkeypatch.setattr(Database, "_connect", lambda self: Full(connect(self)))
        client.app.state.games.db.close_idle()  # the connections kept open go too: the disk fills under them all
        r = t.orders("France", "A Par - Bur")
        assert r.status_code == 503 and "cannot be written just now" in r.json()["error"]
        assert "disk" not in r.json()["error"] and str(tmp_path) not in r.text
        assert t.post("/players", {"power": "Germany"}).status_code == 503
        assert t.view()["server"]["players"] == ["France"] and t.get("/history").status_code == 200
        monkeypatch.setattr(Database, "_connect", connect)
        client.app.state.games.db.close_idle()  # the connections the reads kept were opened onto the full disk
        assert t.orders("France", "A Par - Bur").status_code == 200  # the disk has room again


def test_a_database_server_that_does_not_answer_is_a_503_naming_no_host(tmp_path):
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    port = free_port()  # nothing listens there
    db = Database(f"postgresql://fivedp:secret@127.0.0.1:{port}/fivedp")
    db._ready = True  # the tables were made before the server went away
    with TestClient(make_app(db, deadline_check=None)) as client:
        for r in (client.get("/api/games/abcdef"), client.post("/api/games", json={}),
                  client.get("/api/games/abcdef/revision")):
            assert r.status_code == 503, r.text
            assert "cannot be reached just now" in r.json()["error"]
            assert str(port) not in r.text and "127.0.0.1" not in r.text and "secret" not in r.text
        assert client.get("/").status_code == 200  # the pages need no database


# -- headers and bounds ----------------------------------------------------------------------------------


def _digests(html: str) -> set[str]:
    found = re.findall(r"<script>(.*?)</script>", html, re.S) + re.findall(r"<style>(.*?)</style>", html, re.S)
    return {"'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in found}


def test_only_the_tables_picture_frame_may_be_framed_and_by_this_server_only(client):
    framed = client.get("/static/picture.html")
    policy = framed.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in policy and framed.headers["x-frame-options"] == "SAMEORIGIN"
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    for r in (client.get("/"), client.get("/static/table.js"), client.get("/static/picture.js"),
              client.get(f"/play/{new_table(client).id}")):
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY"


def test_every_response_carries_the_security_headers(client):
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    responses = [client.get("/"), client.get(f"/play/{t.id}"), t.get("/picture", "France"), client.get("/openapi.json"),
                 t.view and t.get(""), t.get("/file", "host"), client.get("/api/games/nosuchgame"),
                 t.post("/orders", {"lines": 3}, "France"), client.get("/nowhere"),
                 client.post("/api/games", content=b"{", headers={"Content-Type": "application/json"})]
    for r in responses:
        policy = r.headers.get("content-security-policy", "")
        assert r.headers.get("x-content-type-options") == "nosniff", r.request.url
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy, (r.request.url, policy)
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        if r.headers["content-type"].startswith("text/html"):
            # each inline script and style of the page is allowed, by its digest
            assert _digests(r.text) <= set(policy.replace(";", " ").split()), r.request.url
        else:
            assert "script-src" not in policy


def test_a_kept_page_policy_allows_only_that_pages_own_scripts():
    """The policies of pages sent are kept by their body's digest: the same page sent again gets its
    policy as worked out afresh; a page one script longer, or the same page as the framed one, never
    gets the kept one."""
    from fivedp_asp.serve.headers import SecurityHeaders, page_policy

    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html; charset=utf-8")]})
        await send({"type": "http.response.body", "body": scope["body"]})

    async def send(message):
        sent.append(message)

    import asyncio

    middleware = SecurityHeaders(app)

    def policy_of(body: bytes, path: str = "/api/games/g/picture") -> str:
        sent.clear()
        asyncio.run(middleware({"type": "http", "path": path, "body": body}, None, send))
        return dict(sent[0]["headers"])[b"content-security-policy"].decode()

    page = b"<html><script>one()</script><p>a picture</p></html>"
    longer = page.replace(b"</html>", b"<script>two()</script></html>")
    assert policy_of(page) == policy_of(page) == page_policy(page.decode())
    assert policy_of(longer) == page_policy(longer.decode()) != policy_of(page)
    assert _digests(longer.decode()) <= set(policy_of(longer).replace(";", " ").split())
    assert policy_of(page, "/static/picture.html") == page_policy(page.decode(), framed=True)
    assert "frame-ancestors 'none'" in policy_of(page)  # the framed page's policy not kept for another
    for i in range(SecurityHeaders.KEPT + 5):  # bounded: the oldest go
        policy_of(page + str(i).encode())
    assert len(middleware._policies) == SecurityHeaders.KEPT


def test_games_per_minute_are_bounded_per_address(tmp_path):
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, games_per_minute=3)) as client:
        for _ in range(3):
            assert client.post("/api/games", json={}).status_code == 200
        r = client.post("/api/games", json={})
        assert r.status_code == 429 and "the limit is 3" in r.json()["error"]
    now = [0.0]
    makers = Makers(2, clock=lambda: now[0])
    one, other = (SimpleNamespace(client=SimpleNamespace(host=h)) for h in ("10.0.0.1", "10.0.0.2"))
    makers.check(one)
    makers.check(one)
    with pytest.raises(Exception, match="the limit is 2"):
        makers.check(one)
    makers.check(other)  # another address has its own share
    now[0] = 60.5
    makers.check(one)  # a minute later, again
    Makers(0).check(one)  # 0: no bound


# -- tokens and revisions ----------------------------------------------------------------------------------


def test_tokens_are_kept_as_digests_and_compared_in_constant_time(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    with TestClient(make_app(f"sqlite:///{db}", deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        token = t.join("France")
        with sqlite3.connect(db) as conn:
            rows = [r for table in ("fivedp_games", "fivedp_players") for r in conn.execute(f"SELECT * FROM {table}")]
        stored = " ".join(str(v) for r in rows for v in r)
        assert token not in stored and t.host not in stored
        assert digest(token) in stored and digest(t.host) in stored
        import fivedp_asp.serve.store as store

        compared = []
        constant_time = store.hmac.compare_digest

        def compare_digest(a, b):
            compared.append((a, b))
            return constant_time(a, b)

        monkeypatch.setattr(store, "hmac", SimpleNamespace(compare_digest=compare_digest))
        assert t.view("France")["server"]["power"] == "France"
        # the digest of the token given was compared with each stored digest, by compare_digest
        assert (digest(token), digest(t.host)) in compared and (digest(token), digest(token)) in compared
        compared.clear()
        assert client.get(f"/api/games/{t.id}", headers={"Authorization": "Bearer nothing"}).status_code == 401
        assert len(compared) == 2


def test_every_change_raises_the_revision(client):
    t = new_table(client, {"start": TWO_POWERS})

    def revision() -> int:
        r = t.get("/revision")
        assert r.json()["revision"] == t.view()["server"]["revision"]
        return r.json()["revision"]

    seen = [revision()]
    changes = [lambda: t.join("France"), lambda: t.join("Germany"), lambda: t.orders("France", "A Par - Bur"),
               lambda: t.withdraw("France"), lambda: t.orders("France", "A Par - Pic"), lambda: t.adjudicate(),
               lambda: t.undo()]
    reads = [lambda: t.view("France"), lambda: t.post("/orders/check", {"lines": ["A Par - Bur"]}, "France"),
             lambda: t.get("/possible", "France"), lambda: t.get("/history"), lambda: t.get("/file", "host")]
    for change in changes:
        r = change()
        assert getattr(r, "status_code", 200) == 200, getattr(r, "text", r)
        seen.append(revision())
        assert seen[-1] > seen[-2], seen
        for read in reads:
            read()
        assert revision() == seen[-1]


# -- phases ---------------------------------------------------------------------------------------------


def test_a_power_with_nothing_to_do_is_not_waited_for(client):
    """Fall 1901: France takes Belgium and may build in Paris; Germany, its centres and units equal,
    has nothing to do in the adjustment: France's builds alone complete the phase."""
    start = {"turn": 1, "units": {"France": ["A Burgundy", "A Marseilles", "F Brest"],
                                  "Germany": ["A Munich", "A Berlin", "F Kiel"]},
             "centers": {"France": ["Paris", "Marseilles", "Brest"], "Germany": ["Munich", "Berlin", "Kiel"]}}
    t = new_table(client, {"start": start})
    t.join("France")
    t.join("Germany")
    key = t.key()
    t.orders("Germany")
    assert t.orders("France", "A Bur - Bel").json()["complete"] is True
    assert t.next_phase(key)["steps"] == 1
    assert t.view("Germany")["next"]["phase"] == "adjustment" and t.view("Germany")["next"]["due"] == []
    assert {d["power"] for d in t.view("France")["next"]["due"]} == {"France"}
    key = t.key()
    r = t.orders("France", "Build A Par")
    assert r.status_code == 200 and r.json()["complete"] is True, r.text
    view = t.next_phase(key)
    assert view["next"]["phase"] == "movement" and view["steps"] == 2


def test_the_sustain_phase_is_adjudicated_by_the_host_through_the_api(client):
    """cases/options/sustain/01-default-votes.yaml, through the API: the sustain phase asks nobody for
    orders, so no submission completes it; the host adjudicates it, and timeline b dissolves."""
    start = {"units": {"England": ["A Wales", "A Liverpool"], "France": ["F English Channel", "A Paris"],
                       "Germany": ["A Berlin"]},
             "centers": {"England": ["London", "Liverpool"], "France": ["Paris", "Brest"], "Germany": ["Berlin"]}}
    t = new_table(client, {"start": start, "options": {"sustain": True}})
    for power in ("England", "France", "Germany"):
        t.join(power)
    assert t.adjudicate().status_code == 200  # Spring 1901: nobody orders
    key = t.key()
    t.orders("France", "F English Channel - London")
    t.orders("Germany")
    assert t.orders("England", "A Wales - a-Yorkshire@0").json()["complete"] is True
    assert t.next_phase(key)["steps"] == 2
    view = t.view("France")
    assert view["next"]["phase"] == "sustain" and view["next"]["due"] == []
    for power in ("England", "France", "Germany"):
        r = t.orders(power)
        assert r.status_code == 200 and r.json()["complete"] is False
    assert t.view()["steps"] == 2
    assert t.adjudicate("France").status_code == 403
    step = t.adjudicate().json()
    assert step["step"]["phase"] == "sustain" and step["step"]["sustain"]["dissolved"] == ["b"]
    assert step["step"]["sustain"]["centres"]["London"]["sustains"] == "a"
    assert t.view()["next"]["phase"] == "adjustment"


def test_the_statuses_of_docs_server_md_are_those_of_the_openapi_document(client):
    """docs/server.md lists every status each route answers (500 aside); so does the OpenAPI
    document: the two say the same."""
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    table = text.split("| route | who | what | statuses |", 1)[1].split("\n\n", 1)[0]
    documented = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        route, statuses = cells[0], {int(n) for n in re.findall(r"\b([1-5]\d\d)\b", cells[-1])}
        method, path = re.match(r"`(\w+) ([^`?]+)", route).groups()
        path = path.replace("{id}", "{game_id}")
        documented[(method.lower(), path)] = statuses
        if path.endswith("/revision"):
            documented[("get", path.replace("/revision", "/events"))] = statuses
    served = {(method, path): {int(code) for code in op["responses"]}
              for path, ops in client.get("/openapi.json").json()["paths"].items() for method, op in ops.items()}
    assert documented == served


def test_their_routes_keep_their_contract_under_the_same_guards(tmp_path):
    """The routes of --oliveriver: refusals stay plain text, with the same security headers, the
    same bound on games per minute and the same 503 for a database that does not answer."""
    body = {"isSandbox": False, "player": "France", "hasStrictAdjacencies": False}
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, oliveriver=True,
                             games_per_minute=2)) as client:
        for _ in range(2):
            r = client.post("/game", json=body)
            assert r.status_code == 200 and r.headers["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        r = client.post("/game", json=body)
        assert r.status_code == 429 and r.headers["content-type"].startswith("text/plain")
        assert "the limit is 2" in r.text
        # the database file goes where it cannot be opened (a folder that does not exist)
        client.app.state.games.db.path = tmp_path / "gone" / "g.db"
        client.app.state.games.db.close_idle()  # the connections kept open to the old file go
        r = client.get("/game/1234567/iteration")
        assert r.status_code == 503 and r.headers["content-type"].startswith("text/plain")
        assert r.text.startswith("the games database cannot be reached just now") and str(tmp_path) not in r.text


def test_a_read_only_postgresql_is_a_503_and_reads_go_on():
    """PostgreSQL refusing writes (here every connection opened with default_transaction_read_only,
    as a standby or a database set read-only is): writes are a 503, reads go on."""
    from tests.serve.conftest import postgres

    if not postgres():
        pytest.skip("no PostgreSQL server: set FIVEDP_TEST_POSTGRES=postgresql://... (.ci/run does)")
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    with TestClient(make_app(postgres(), deadline_check=None)) as client:
        t = new_table(client, {"start": TWO_POWERS})
        t.join("France")
        db = client.app.state.games.db
        writable = db.url
        db.url = writable + ("&" if "?" in writable else "?") + "options=-c%20default_transaction_read_only%3Don"
        db.close_idle()  # the connections kept open were opened writable
        try:
            r = t.orders("France", "A Par - Bur")
            assert r.status_code == 503 and "cannot be written just now" in r.json()["error"], r.text
            assert t.view("France")["submitted"] == [] and t.get("/history").status_code == 200
        finally:
            db.url = writable
            db.close_idle()  # the connections the reads kept were opened read-only (closed within CONNECTION_SECONDS)
        assert t.orders("France", "A Par - Bur").status_code == 200
