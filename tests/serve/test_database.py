"""The games database as the store relies on it: a game's row and its text are two tables
(``fivedp_game_texts``, schema version 3), read in two statements; a read transaction sees one state
of the database throughout, so that the text it reads is of the phase its row names even when an
adjudication commits in between (SQLite in WAL mode; PostgreSQL at ``REPEATABLE READ``)."""

from __future__ import annotations

from dataclasses import replace

from fivedp_asp.game.state import phase_key
from fivedp_asp.serve.database import Database
from fivedp_asp.serve.store import Games, game_from_start


def test_a_read_sees_the_text_of_the_phase_its_row_names(db_url):
    db = Database(db_url)
    games = Games(db)
    game = game_from_start({}, None, None)
    gid, _ = games.create(game)
    with db.transaction(write=False) as tx:
        row = tx.game(gid, lock=False)
        assert row.phase == phase_key(game)
        # another connection moves the game on and commits while the read is open
        with db.transaction(write=True) as other:
            other.run("UPDATE fivedp_games SET phase = ?, revision = revision + 1 WHERE id = ?", ("2-moved", gid))
            other.run("UPDATE fivedp_game_texts SET game = ? WHERE game_id = ?", ("moved on", gid))
        assert tx.game_text(gid) != "moved on"
        assert tx.game(gid, lock=False).phase == row.phase
    with db.transaction(write=False) as tx:
        assert tx.game_text(gid) == "moved on" and tx.game(gid, lock=False).phase == "2-moved"


def test_a_submission_writes_the_row_and_never_the_text(tmp_path):
    """The text is written when the game is made and when its phase changes; a submission, which
    changes the private sets and the revision, leaves it alone."""
    db = Database(f"sqlite:///{tmp_path}/games.db")
    games = Games(db)
    gid, _ = games.create(replace(game_from_start({}, None, None), pending={}))
    _, token = games.join(gid, "France")
    key = games.view(gid, token)["next"]["key"]
    with db.transaction(write=True) as tx:
        tx.run("UPDATE fivedp_game_texts SET game = game || '' WHERE game_id = ?", (gid,))
        tx.run("CREATE TRIGGER text_written AFTER UPDATE ON fivedp_game_texts BEGIN "
               "SELECT RAISE(ABORT, 'the game text was written'); END")
    answer = games.submit(gid, token, ["A Par - Bur"], phase=key, replace_all=True)
    assert answer["submitted"] == ["France"]
    assert games.view(gid, token)["pending"] == {"France": ["A Par - Bur"]}


def test_what_the_server_keeps_is_bounded_and_shared():
    """The server's kept values (``store._Kept``): at most its size, the least recently used dropped
    first; a value made again when the kept one is no longer fresh; two threads making one key at
    once both get the value kept first."""
    import threading

    from fivedp_asp.serve.store import _Kept

    kept = _Kept(2)
    assert kept.kept("a", lambda: ["a"]) == ["a"]
    kept.kept("b", lambda: ["b"])
    assert kept.kept("a", lambda: ["a again"]) == ["a"]  # used last: "b" is now the oldest
    kept.kept("c", lambda: ["c"])
    assert kept.kept("b", lambda: ["b again"]) == ["b again"]
    assert kept.kept("a", lambda: ["a at last"]) == ["a at last"]
    assert kept.kept("a", lambda: ["stale"], fresh=lambda v: v != ["a at last"]) == ["stale"]
    assert kept.peek("a") == ["stale"] and kept.peek("c") is None  # "c" was dropped; peek makes nothing
    both, gate = [], threading.Barrier(2)

    def make():
        gate.wait()
        return object()

    threads = [threading.Thread(target=lambda: both.append(kept.kept("d", make))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(both) == 2 and both[0] is both[1]


# -- the connections kept between transactions ------------------------------------------------------


def _counting(db: Database, monkeypatch) -> list:
    """The connections ``db`` opens from now on, as they are opened."""
    opened, connect = [], Database._connect
    monkeypatch.setattr(db, "_connect", lambda: opened.append(connect(db)) or opened[-1])
    return opened


def test_transactions_one_after_another_share_one_connection(db_url, monkeypatch):
    db = Database(db_url)
    games = Games(db)
    gid, _ = games.create(game_from_start({}, None, None))
    opened = _counting(db, monkeypatch)
    for n in range(20):
        with db.transaction(write=n % 2 == 0) as tx:
            assert tx.game(gid, lock=n % 2 == 0).id == gid
    assert len(opened) == 0  # the one the game's making used, kept
    db.close_idle()
    with db.transaction(write=False) as tx:
        tx.game(gid, lock=False)
    assert len(opened) == 1


def test_a_connection_is_kept_for_a_bounded_time_and_in_bounded_numbers(tmp_path, monkeypatch):
    import threading

    from fivedp_asp.serve import database

    db = Database(f"sqlite:///{tmp_path}/games.db")
    gid, _ = Games(db).create(game_from_start({}, None, None))
    opened = _counting(db, monkeypatch)
    monkeypatch.setattr(database, "CONNECTION_SECONDS", 0.0)  # none is young enough to be used again
    for _ in range(3):
        with db.transaction(write=False) as tx:
            tx.game(gid, lock=False)
    assert len(opened) == 3
    monkeypatch.setattr(database, "CONNECTION_SECONDS", 60.0)
    # twelve transactions open at once: twelve connections, of which IDLE_CONNECTIONS are kept
    ready, release = threading.Barrier(12), threading.Event()

    def reader() -> None:
        with db.transaction(write=False) as tx:
            tx.game(gid, lock=False)
            ready.wait(30)
            release.wait(30)

    threads = [threading.Thread(target=reader) for _ in range(12)]
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join(30)
    assert len(db.kept_connections()) == database.IDLE_CONNECTIONS
    assert sum(not c.in_transaction for c in db.kept_connections()) == database.IDLE_CONNECTIONS  # each one's transaction ended


def test_a_failure_of_the_storage_closes_every_connection_kept(tmp_path, monkeypatch):
    import sqlite3

    import pytest

    from fivedp_asp.serve.database import Unavailable

    db = Database(f"sqlite:///{tmp_path}/games.db")
    gid, _ = Games(db).create(game_from_start({}, None, None))
    with db.transaction(write=False) as one, db.transaction(write=False) as two:
        one.game(gid, lock=False), two.game(gid, lock=False)
    kept = db.kept_connections()
    assert len(kept) == 2
    with pytest.raises(Unavailable), db.transaction(write=True) as tx:
        raise sqlite3.OperationalError("disk I/O error")
    assert db.kept_connections() == ()
    for conn in kept:  # closed, not merely forgotten
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    # a refusal inside a transaction (not the storage failing) rolls it back and keeps its connection
    with pytest.raises(LookupError), db.transaction(write=True) as tx:
        tx.run("UPDATE fivedp_games SET revision = revision + 100 WHERE id = ?", (gid,))
        raise LookupError("refused")
    assert len(db.kept_connections()) == 1
    with db.transaction(write=False) as tx:
        assert tx.game(gid, lock=False).revision < 100


def test_a_kept_postgresql_connection_the_server_dropped_is_replaced_unseen():
    """A PostgreSQL restart (here the kept connection's own process ended) fails no request: the kept
    connection is asked before it is used, and a new one is opened."""
    import pytest

    from tests.serve.conftest import postgres

    if not postgres():
        pytest.skip("no PostgreSQL server: set FIVEDP_TEST_POSTGRES=postgresql://... (.ci/run does)")
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    db = Database(postgres())
    gid, _ = Games(db).create(game_from_start({}, None, None))
    with db.transaction(write=False) as tx:
        backend = tx.rows("SELECT pg_backend_pid()")[0][0]
        # a read is one snapshot; a later write on the same kept connection is at the server's own level
        assert tx.rows("SHOW transaction_isolation")[0][0] == "repeatable read"
    with db.transaction(write=True) as tx:
        assert tx.rows("SELECT pg_backend_pid()")[0][0] == backend  # the same connection, kept
        assert tx.rows("SHOW transaction_isolation")[0][0] == "read committed"
    other = Database(postgres())
    with other.transaction(write=True) as tx:
        assert tx.rows("SELECT pg_terminate_backend(?)", (backend,))[0][0] is True
    other.close_idle()
    with db.transaction(write=True) as tx:
        assert tx.rows("SELECT pg_backend_pid()")[0][0] != backend
        assert tx.game(gid, lock=True).id == gid
    db.close_idle()
