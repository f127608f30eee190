"""A games database written by the release before the schema's version (fivedp at commit a846659:
``tests/data/release-a846659/served.db``, made by ``make_served.py`` beside it, its tokens and
waiting orders in ``served.json``) plays on: it is migrated at start, the players' tokens still work,
their waiting orders are still there and are adjudicated, and the phase keys have their new form. A
database newer than the program is refused, untouched."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fivedp_asp.errors import InputError
from fivedp_asp.files.games import game_from_bytes
from fivedp_asp.files.verify import verify_game
from fivedp_asp.game.state import KEY_DIGITS, phase_key
from fivedp_asp.serve.app import make_app
from fivedp_asp.serve.database import VERSION, Database
from tests.serve.conftest import Table

DATA = Path(__file__).resolve().parent.parent / "data" / "release-a846659"
RECORD = json.loads((DATA / "served.json").read_text(encoding="utf-8"))


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    path = tmp_path / "served.db"
    shutil.copyfile(DATA / "served.db", path)
    return path


def test_a_database_of_the_earlier_release_plays_on(old_db):
    games = RECORD["games"]
    with TestClient(make_app(f"sqlite:///{old_db}", deadline_check=None)) as c:
        # France's orders for step 2 wait; Germany's token still works, and its submission completes the phase
        g = games["waiting"]
        view = c.get(f"/api/games/{g['id']}", headers=bearer(g["tokens"]["France"])).json()
        assert view["server"]["role"] == "player" and view["server"]["power"] == "France"
        assert view["pending"] == g["waiting"] and view["submitted"] == ["France"]
        key = view["next"]["key"]
        assert key != g["phase"] and key.split("-")[0] == "2" and len(key.split("-")[1]) == KEY_DIGITS
        # a submission for the key of the earlier release is refused, naming the key now
        r = c.post(f"/api/games/{g['id']}/orders", json={"lines": ["A Mun H"], "phase": g["phase"]},
                   headers=bearer(g["tokens"]["Germany"]))
        assert r.status_code == 409 and r.json()["phase"] == key
        r = c.post(f"/api/games/{g['id']}/orders", json={"lines": ["A Ruh - Hol"], "phase": key},
                   headers=bearer(g["tokens"]["Germany"]))
        assert r.status_code == 200, r.text
        assert r.json()["complete"] is True
        table = Table(c, g["id"], g["host"])
        table.next_phase(key)
        step = table.last_step()
        assert sorted(step["orders"]) == ["France", "Germany"]
        given = {(o["power"], o["order"]) for o in step["results"]}
        assert given == {("France", "A Bur - Mun"), ("France", "A Mar - Bur"), ("Germany", "A Ruh - Hol")}
        text = c.get(f"/api/games/{g['id']}/file", headers=bearer(g["host"])).text
        game, _ = game_from_bytes(text.encode("utf-8"), "served")
        assert len(game.history) == 2 and verify_game(game).honest
        # the sets the earlier release opened, under its key, are sealed again when their step is undone
        g = games["undoable"]
        key = c.get(f"/api/games/{g['id']}").json()["next"]["key"]
        r = c.post(f"/api/games/{g['id']}/undo", json={"phase": key}, headers=bearer(g["host"]))
        assert r.status_code == 200, r.text
        assert r.json()["resealed"] == sorted(g["opened"])
        for power, lines in g["opened"].items():
            seen = c.get(f"/api/games/{g['id']}", headers=bearer(g["tokens"][power])).json()
            assert seen["pending"] == {power: lines} and seen["submitted"] == sorted(g["opened"])
        assert "A Par - Pic" not in c.get(f"/api/games/{g['id']}", headers=bearer(g["host"])).text
        # the opening: Italy's waiting orders are there, and the host adjudicates them
        g = games["opening"]
        key = c.get(f"/api/games/{g['id']}", headers=bearer(g["host"])).json()["next"]["key"]
        r = c.post(f"/api/games/{g['id']}/adjudicate", json={"phase": key}, headers=bearer(g["host"]))
        assert r.status_code == 200, r.text
        assert {(o["power"], o["text"], o["result"]) for o in r.json()["step"]["orders"]} == {
            ("Italy", "A Ven - Tyr", "succeeds")}
    conn = sqlite3.connect(old_db)
    try:
        assert conn.execute("SELECT version FROM fivedp_schema").fetchall() == [(VERSION,)]
        rows = conn.execute("SELECT g.id, t.game, g.phase FROM fivedp_games g JOIN fivedp_game_texts t "
                            "ON t.game_id = g.id").fetchall()
        assert len(rows) == len(games) == conn.execute("SELECT count(*) FROM fivedp_games").fetchone()[0]
        for game_id, text, key in rows:
            assert key == phase_key(game_from_bytes(text.encode("utf-8"), game_id)[0])
        # the text moved out of the rows every change writes
        assert "game" not in {c[1] for c in conn.execute("PRAGMA table_info(fivedp_games)")}
    finally:
        conn.close()


def test_a_database_is_migrated_once(old_db):
    """A second start finds the database at this version and changes nothing."""
    url = f"sqlite:///{old_db}"
    Database(url).prepare()
    conn = sqlite3.connect(old_db)
    before = conn.execute("SELECT id, phase, sealed, revision FROM fivedp_games ORDER BY id").fetchall()
    conn.close()
    Database(url).prepare()
    conn = sqlite3.connect(old_db)
    assert conn.execute("SELECT id, phase, sealed, revision FROM fivedp_games ORDER BY id").fetchall() == before
    conn.close()


def test_a_database_newer_than_the_program_is_refused_untouched(old_db):
    Database(f"sqlite:///{old_db}").prepare()
    conn = sqlite3.connect(old_db)
    conn.execute("UPDATE fivedp_schema SET version = ?", (VERSION + 1,))
    conn.commit()
    before = conn.execute("SELECT * FROM fivedp_games ORDER BY id").fetchall()
    conn.close()
    with pytest.raises(InputError, match=rf"written by a newer fivedp \(schema version {VERSION + 1}; this fivedp "
                                         rf"knows versions up to {VERSION}\): upgrade fivedp"):
        Database(f"sqlite:///{old_db}").prepare()
    conn = sqlite3.connect(old_db)
    assert conn.execute("SELECT * FROM fivedp_games ORDER BY id").fetchall() == before
    conn.close()


def test_a_new_database_starts_at_the_latest_version(tmp_path):
    path = tmp_path / "new.db"
    Database(f"sqlite:///{path}").prepare()
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM fivedp_schema").fetchall() == [(VERSION,)]
    conn.close()


def test_fivedp_serve_refuses_a_newer_database_with_a_plain_message(old_db):
    import subprocess
    import sys

    Database(f"sqlite:///{old_db}").prepare()
    conn = sqlite3.connect(old_db)
    conn.execute("UPDATE fivedp_schema SET version = ?", (VERSION + 1,))
    conn.commit()
    conn.close()
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parent.parent.parent
    p = subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "serve", "--db", f"sqlite:///{old_db}", "--port",
                        str(port)],
                       capture_output=True, text=True, timeout=60, cwd=root)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert f"written by a newer fivedp (schema version {VERSION + 1}" in p.stderr and "upgrade fivedp" in p.stderr
