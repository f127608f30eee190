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
