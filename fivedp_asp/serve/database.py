"""The server's database: SQLite in one file (the default, nothing to install) or PostgreSQL (several
server processes, or machines, sharing the games).

Every change of a game is one transaction that first takes the game's row for itself (SQLite: the
database's write lock, ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT ... FOR UPDATE``), reads it, and
writes what the change makes of it: two players submitting at the same moment are served one after
the other, each on what the other wrote, and an adjudication never interleaves with a submission.
Readers see the last committed state (SQLite in WAL mode; PostgreSQL's snapshot).

The schema has a version, recorded in ``fivedp_schema``; each start runs the migrations
(``MIGRATIONS``) the database has not had, and refuses a database newer than this fivedp. Tables
(version 3): ``fivedp_games``, the phase a game waits for, its private order sets (the format of
``files.sealed``), a revision raised by every change, the host's token digest, the deadline;
``fivedp_game_texts``, each game's file text, apart, since it changes only with the phase while
every submission rewrites the game's row (a row holding a big game's text, 2 MB after 50 steps of a
300-board game, was written out again by each one); ``fivedp_players``, each power's token digest.
Tokens themselves are never stored.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import unquote, urlparse

from ..errors import InputError, UsageError

log = logging.getLogger("fivedp.serve")

#: the tables as version 1 made them (migration 1; migration 3 moves the game text apart)
SCHEMA_1 = (
    """CREATE TABLE IF NOT EXISTS fivedp_games (
        id TEXT PRIMARY KEY,
        host_hash TEXT NOT NULL,
        game TEXT NOT NULL,
        phase TEXT NOT NULL,
        sealed TEXT NOT NULL,
        revision INTEGER NOT NULL,
        deadline INTEGER,
        phase_since DOUBLE PRECISION NOT NULL,
        finished INTEGER NOT NULL,
        created DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS fivedp_players (
        game_id TEXT NOT NULL REFERENCES fivedp_games(id),
        power TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        joined DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, power)
    )""",
)
#: the table that records the schema's version (one row); a database without it, made by a release
#: before versions were recorded, is at version 1 when it holds the games table, empty otherwise
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS fivedp_schema (version INTEGER NOT NULL)"


def _make_tables(tx: "Transaction") -> None:
    for statement in SCHEMA_1:
        tx.run(statement)


def _chained_phase_keys(tx: "Transaction") -> None:
    """Every game's phase key, and those its private sets name, from the key of the last step only
    (``game.state.legacy_phase_key``) to the digest chained over every step: the sets waiting for
    the phase the game waits for, and those opened by its last step, keep their phases."""
    from ..files.games import game_from_bytes
    from ..files.sealed import parse_sealed, sealed_text
    from ..game.state import earlier_keys, phase_key

    for game_id, text, sealed in tx.rows("SELECT id, game, sealed FROM fivedp_games"):
        game, _ = game_from_bytes(text.encode("utf-8"), f"game {game_id}")
        key = phase_key(game)
        kept = parse_sealed(sealed.encode("utf-8"), f"game {game_id}", key, earlier_keys(game))
        tx.run("UPDATE fivedp_games SET phase = ?, sealed = ?, revision = revision + 1 WHERE id = ?",
               (key, sealed_text(kept), game_id))


def _game_texts_apart(tx: "Transaction") -> None:
    """Each game's file text moved from its row to ``fivedp_game_texts``: a submission rewrites the
    row (its private sets and revision), and with the text in it, the whole text each time."""
    tx.run("""CREATE TABLE fivedp_game_texts (
        game_id TEXT PRIMARY KEY REFERENCES fivedp_games(id),
        game TEXT NOT NULL
    )""")
    tx.run("INSERT INTO fivedp_game_texts (game_id, game) SELECT id, game FROM fivedp_games")
    tx.run("ALTER TABLE fivedp_games DROP COLUMN game")


#: the migrations, in order: the version each brings the database to, what it does, the change
MIGRATIONS = (
    (1, "the games and players tables", _make_tables),
    (2, "phase keys chained over every step played", _chained_phase_keys),
    (3, "game texts kept apart from the rows every change writes", _game_texts_apart),
)
VERSION = MIGRATIONS[-1][0]

GAME_COLUMNS = ("id", "host_hash", "phase", "sealed", "revision", "deadline", "phase_since", "finished",
                "created")


@dataclass(frozen=True)
class GameRow:
    """One row of ``fivedp_games``. The game's text is not in it (``Transaction.game_text``): the
    phase key names it, and a server keeps the game of a phase it has read."""

    id: str
    host_hash: str
    phase: str
    sealed: str
    revision: int
    deadline: int | None
    phase_since: float
    finished: bool
    created: float


class Transaction:
    """One transaction on one database: ``run`` executes a statement written with ``?`` placeholders
    (turned into ``%s`` for PostgreSQL), ``rows`` returns what it selects."""

    def __init__(self, conn: Any, postgres: bool):
        self._conn = conn
        self._postgres = postgres

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._conn.execute(self._sql(sql), tuple(params))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return list(self._conn.execute(self._sql(sql), tuple(params)).fetchall())

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self._postgres else sql

    def game(self, game_id: str, *, lock: bool) -> GameRow | None:
        """The game's row; ``lock``: taken for this transaction (PostgreSQL; SQLite's write
        transaction holds the whole database already)."""
        sql = f"SELECT {', '.join(GAME_COLUMNS)} FROM fivedp_games WHERE id = ?"
        if lock and self._postgres:
            sql += " FOR UPDATE"
        found = self.rows(sql, (game_id,))
        if not found:
            return None
        row = dict(zip(GAME_COLUMNS, found[0]))
        row["finished"] = bool(row["finished"])
        return GameRow(**row)

    def game_text(self, game_id: str) -> str:
        """The game's file text (``fivedp_game_texts``)."""
        found = self.rows("SELECT game FROM fivedp_game_texts WHERE game_id = ?", (game_id,))
        if not found:
            raise LookupError(f"game {game_id[:40]!r} has a row but no text")
        return found[0][0]


class Unavailable(InputError):
    """The storage failed (a full disk, a read-only database, a database server that does not
    answer): the caller is told so in a plain sentence, with no host, port or path, and the server's
    log gets the details. Served with the status 503: the request may succeed later."""

    status = 503


UNREACHABLE = "the games database cannot be reached just now: nothing was read or changed; try again later"
UNWRITABLE = "the games database cannot be written just now: nothing was changed; try again later"


def _close(conn: Any) -> None:
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - a connection that is gone already is closed
        pass


def _storage_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the storage failing rather than a statement of fivedp's that is wrong (a
    defect, which stays a defect): SQLite's and PostgreSQL's operational errors, and a PostgreSQL
    that has been made read-only."""
    if isinstance(exc, sqlite3.OperationalError):
        return True
    try:
        import psycopg
    except ImportError:
        return False
    return isinstance(exc, (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction))


#: connections kept open between transactions, for the next ones: opening one per request cost a
#: PostgreSQL server a process of its own each time (the soak of tests/serve on PostgreSQL: more
#: processor time in the database's processes than in both servers), and SQLite reads its schema
#: again on every new connection
IDLE_CONNECTIONS = 8
#: seconds a connection serves before it is closed rather than kept: a change made to the database
#: under a running server that only new connections see (a file or a database made read-only) is
#: seen within this time
CONNECTION_SECONDS = 60.0


class Database:
    """A database named by a URL: ``sqlite:///games.db`` (a file, made when missing; ``sqlite:///:memory:``
    is refused, as every connection opens the file again), ``postgresql://user@host/db``.

    Each transaction takes a connection kept from an earlier one (at most ``IDLE_CONNECTIONS`` are
    kept, each for ``CONNECTION_SECONDS`` at most), or opens one. A connection goes back only after
    its transaction committed or rolled back cleanly; after a failure of the storage every connection kept is closed, and a kept PostgreSQL
    connection is asked a trivial question before it is used, so that one the server has dropped
    (a restart) is replaced by a new one rather than failing a request."""

    def __init__(self, url: str):
        if not isinstance(url, str):
            raise UsageError(f"the database must be given as a URL string, not {type(url).__name__}")
        parsed = urlparse(url)
        self.url = url
        self.postgres = parsed.scheme in ("postgresql", "postgres")
        if parsed.scheme == "sqlite":
            path = unquote(parsed.path)
            if url.startswith("sqlite:////"):
                path = "/" + path.lstrip("/")
            elif url.startswith("sqlite:///"):
                path = path[1:]
            if not path or path == ":memory:":
                raise InputError(f"--db {url!r}: name a database file (sqlite:///games.db)")
            self.path: Path | None = Path(path)
        elif self.postgres:
            self.path = None
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise InputError("--db postgresql://...: PostgreSQL needs the postgres extra "
                                 "(pip install 'fivedp-asp[serve,postgres]')") from None
        else:
            raise InputError(f"--db {url[:80]!r}: a database URL is sqlite:///FILE or postgresql://USER@HOST/DB")
        self._lock = threading.Lock()
        self._ready = False
        self._kept_open: sqlite3.Connection | None = None
        # connections between two transactions, with when each was opened; the last kept on top
        self._idle: list[tuple[Any, float]] = []
        self._idle_lock = threading.Lock()

    def describe(self) -> str:
        """The database without any password, for messages and the log."""
        if self.path is not None:
            return f"SQLite database {self.path}"
        p = urlparse(self.url)
        return f"PostgreSQL database {p.hostname or 'localhost'}{':' + str(p.port) if p.port else ''}/{p.path.lstrip('/')}"

    def _connect(self) -> Any:
        if self.path is not None:
            try:
                # kept connections serve any thread, one transaction at a time
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA busy_timeout = 30000")
            except sqlite3.Error as exc:
                log.error("%s: cannot open it: %s", self.describe(), str(exc)[:300])
                raise Unavailable(UNREACHABLE) from None
            return conn
        import psycopg

        try:
            return psycopg.connect(self.url, connect_timeout=10)
        except psycopg.Error as exc:
            log.error("%s: cannot connect: %s", self.describe(), str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__)
            raise Unavailable(UNREACHABLE) from None

    def _take(self) -> tuple[Any, float]:
        """A connection for one transaction, and when it was opened: a kept one that still answers, or
        a new one."""
        while True:
            with self._idle_lock:
                conn, opened = self._idle.pop() if self._idle else (None, 0.0)
            if conn is None:
                return self._connect(), time.monotonic()
            if time.monotonic() - opened > CONNECTION_SECONDS:
                _close(conn)
                continue
            if not self.postgres:
                return conn, opened
            try:
                conn.execute("SELECT 1")  # the server may have dropped it (a restart): asked, not assumed
                conn.rollback()
                return conn, opened
            except Exception:  # noqa: BLE001 - a dropped connection: the others kept are likely dropped too
                _close(conn)
                self.close_idle()

    def _give_back(self, conn: Any, opened: float) -> None:
        if time.monotonic() - opened <= CONNECTION_SECONDS:
            with self._idle_lock:
                if len(self._idle) < IDLE_CONNECTIONS:
                    self._idle.append((conn, opened))
                    return
        _close(conn)

    def kept_connections(self) -> tuple[Any, ...]:
        """The connections kept between transactions now, in the order they were kept (the last is the
        next taken; at most ``IDLE_CONNECTIONS``): what the next transactions will use, for a diagnosis
        or a test."""
        with self._idle_lock:
            return tuple(conn for conn, _ in self._idle)

    def close_idle(self) -> None:
        """Closes the connections kept between transactions: the next transactions open their own (a
        server stopping; the database moved or changed under the server)."""
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            _close(conn)

    def prepare(self) -> None:
        """Brings the database to this fivedp's schema (once per process): the tables made when
        missing, the migrations after the version it records run in order, in one transaction (on
        PostgreSQL under a lock, so that two servers starting together migrate once). A database
        of a newer schema than this fivedp knows is refused, untouched."""
        with self._lock:
            if self._ready:
                return
            with self.transaction(write=True) as tx:
                if self.postgres:
                    tx.run("SELECT pg_advisory_xact_lock(5935413)")  # fivedp's schema, one server at a time
                version = self._version(tx)
                if version > VERSION:
                    raise InputError(f"{self.describe()}: its games were written by a newer fivedp (schema version "
                                     f"{version}; this fivedp knows versions up to {VERSION}): upgrade fivedp to "
                                     "serve them; nothing was changed")
                for number, _, migrate in MIGRATIONS:
                    if number > version:
                        migrate(tx)
                if version < VERSION:
                    tx.run("DELETE FROM fivedp_schema")
                    tx.run("INSERT INTO fivedp_schema (version) VALUES (?)", (VERSION,))
            if self.path is not None:
                # this connection stays open while the database is served: when the last connection
                # to a database in WAL mode closes, SQLite copies the log back into the file, and
                # every request closing its own connection made each of them the last (a submission
                # to a 300-board game: 42 to 31 ms of processor time); the log is then copied back
                # as SQLite does by default, once it has grown to a thousand pages
                conn = self._connect()
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                except BaseException:
                    conn.close()
                    raise
                self._kept_open = conn
            self._ready = True

    def _version(self, tx: Transaction) -> int:
        """The schema version the database records (``VERSION_TABLE``)."""
        if self.postgres:
            games = tx.rows("SELECT to_regclass('fivedp_games') IS NOT NULL")[0][0]
        else:
            games = bool(tx.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fivedp_games'"))
        tx.run(VERSION_TABLE)
        found = tx.rows("SELECT version FROM fivedp_schema")
        if found:
            return max(int(v) for (v,) in found)
        return 1 if games else 0

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Transaction]:
        """One transaction, committed when the block ends and rolled back when it raises. A write
        transaction on SQLite takes the database's write lock at once (``BEGIN IMMEDIATE``), so that
        what it reads is still so when it writes; a read on PostgreSQL is one snapshot (``REPEATABLE
        READ``), as a read on SQLite is.

        A failure of the storage itself (``_storage_failure``) becomes ``Unavailable``: logged with
        its details, told to the caller in a plain sentence."""
        (conn, opened), clean = self._take(), False  # clean: the transaction ended, committed or rolled back
        try:
            try:
                if self.path is not None:
                    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                else:
                    # a read sees one state of the database throughout, as SQLite's does: a game's row
                    # and its text (read in two statements) then belong to the same phase. A write
                    # holds the game's row (FOR UPDATE), which every writer of its text holds first,
                    # at the server's own level (a kept connection may come from a read)
                    import psycopg

                    conn.isolation_level = None if write else psycopg.IsolationLevel.REPEATABLE_READ
                tx = Transaction(conn, self.postgres)
                try:
                    yield tx
                except BaseException:
                    conn.rollback()
                    clean = True
                    raise
                conn.commit()
                clean = True
            except Exception as exc:
                if not _storage_failure(exc):
                    raise
                clean = False
                self.close_idle()  # what failed one connection may have failed the others
                log.error("%s: %s failed: %s: %s", self.describe(), "a write" if write else "a read",
                          type(exc).__name__, str(exc).strip()[:300])
                raise Unavailable(UNWRITABLE if write else UNREACHABLE) from None
        finally:
            if clean:
                self._give_back(conn, opened)
            else:
                _close(conn)
