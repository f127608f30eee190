"""Served games: what the host, each player and a spectator may do and see, each change one database
transaction (``serve.database``).

A game is held as its game file's text (``files.games``: the same format ``fivedp game`` writes, so
``GET /api/games/{id}/file`` is a file ``fivedp game verify`` accepts) and its players' orders as
private sets (``game.table.Sealed``): every player's orders are sealed, shown to that player only,
opened when the phase is adjudicated. The operations are those of the command line's store
(``files.store``) on another storage: a change is for the phase its author saw (``phase``, the phase
key every view carries) and refused with ``Stale`` when the game waits for another; within the
transaction nothing else can write the game.

Roles come from the bearer token: the host (made with the game), a player (made by joining as a
power), or nobody (a spectator). Tokens are random, stored only as SHA-256 digests, compared in
constant time and never written to any message or log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from ..errors import AdjudicationError, InputError, UsageError, quoted
from ..files.games import game_from_bytes, game_text, start_of
from ..files.sealed import parse_sealed, sealed_text
from ..engine.possible import legal_orders as possible_orders
from ..game.play import duties, waiting_for
from ..game.state import Game, new_game, phase_key
from ..game.table import Sealed, open_and_adjudicate, seal, take_back
from ..inputs import check_order_lines
from ..report.jsonout import game_document, game_step_document, history_document, orders_document, possible_document
from .database import Database, GameRow, Transaction

HOST, PLAYER, SPECTATOR = "host", "player", "spectator"
MAX_PLAYERS_TRIES = 3
# the host digest (and player digest) of an open table (serve.oliveriver): not a SHA-256 digest, so no
# token ever matches it, and nobody holds the roles of such a game
OPEN_TABLE = "open-table"


class ServeError(InputError):
    """A request the server refuses; ``status`` is the HTTP status it answers with."""

    status = 400


class NotFound(ServeError):
    status = 404


class Unauthorized(ServeError):
    status = 401


class Forbidden(ServeError):
    status = 403


class Stale(ServeError):
    """A change for a phase the game no longer waits for (or a power already taken)."""

    status = 409

    def __init__(self, message: str, phase: str | None = None):
        super().__init__(message)
        self.phase = phase


@dataclass(frozen=True)
class Role:
    """Who a request comes from: ``kind`` host, player or spectator; ``power`` for a player."""

    kind: str
    power: str | None = None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A token nobody can guess: 192 random bits."""
    return secrets.token_urlsafe(24)


class Games:
    """The served games on one database. Parsed games are cached per process by phase, so that views
    and submissions do not read the game file's text again while the game waits for one phase."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time):
        if not isinstance(db, Database):
            raise UsageError(f"Games needs a Database, not {type(db).__name__}")
        self.db = db
        self.clock = clock
        self._cache: OrderedDict[tuple[str, str], Game] = OrderedDict()
        self._cache_lock = threading.Lock()
        db.prepare()

    # -- reading --------------------------------------------------------------------------------

    def _game(self, row: GameRow) -> Game:
        # the game text changes only with the phase (a step played or taken back): submissions, which
        # change the private sets and the revision, read the same game
        key = (row.id, row.phase)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        game, _ = game_from_bytes(row.game.encode("utf-8"), f"game {row.id}")
        with self._cache_lock:
            self._cache[key] = game
            while len(self._cache) > 64:
                self._cache.popitem(last=False)
        return game

    def _sealed(self, row: GameRow) -> Sealed:
        return parse_sealed(row.sealed.encode("utf-8"), f"game {row.id}", row.phase)

    def _row(self, tx: Transaction, game_id: str, *, lock: bool) -> GameRow:
        if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
            raise NotFound("no such game")
        row = tx.game(game_id, lock=lock)
        if row is None:
            raise NotFound(f"no game {game_id[:40]!r}")
        return row

    def role(self, tx: Transaction, row: GameRow, token: str | None) -> Role:
        """The role a bearer token gives in this game: every digest of the game is compared, in
        constant time, so that the time taken says nothing of which came close."""
        if token is None:
            return Role(SPECTATOR)
        given = digest(token)
        found = Role(SPECTATOR)
        matched = hmac.compare_digest(given, row.host_hash)
        if matched:
            found = Role(HOST)
        for power, stored in tx.rows("SELECT power, token_hash FROM fivedp_players WHERE game_id = ?", (row.id,)):
            if hmac.compare_digest(given, stored) and not matched:
                found, matched = Role(PLAYER, power), True
        if not matched:
            raise Unauthorized("this token belongs to no host or player of this game")
        return found

    def _players(self, tx: Transaction, game_id: str) -> dict[str, float]:
        return {p: t for p, t in tx.rows("SELECT power, joined FROM fivedp_players WHERE game_id = ?", (game_id,))}

    # -- making and joining -------------------------------------------------------------------------

    def create(self, game: Game, *, deadline: int | None = None) -> tuple[str, str]:
        """A new served game; returns its id and the host's token."""
        if not isinstance(game, Game):
            raise UsageError(f"create needs a Game, not {type(game).__name__}")
        if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, int)
                                     or not 10 <= deadline <= 366 * 86400):
            raise ServeError("deadline: give the seconds each phase may take, from 10 to a year")
        token = new_token()
        now = self.clock()
        text = game_text(replace(game, pending={}))
        sealed = Sealed(phase_key(game), {p: tuple(v) for p, v in game.pending.items() if v})
        for _ in range(5):
            game_id = secrets.token_hex(6)
            with self.db.transaction(write=True) as tx:
                if tx.game(game_id, lock=False) is not None:
                    continue
                tx.run("INSERT INTO fivedp_games (id, host_hash, game, phase, sealed, revision, deadline, phase_since, "
                       "finished, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (game_id, digest(token), text, phase_key(game), sealed_text(sealed), 1, deadline, now,
                        int(bool(game.mv.winner)), now))
                return game_id, token
        raise ServeError("could not find a free game id; try again")

    def join(self, game_id: str, power: str) -> tuple[str, str]:
        """A player for ``power``; returns the power's name and the player's token. A power is
        joined once: its token is the only way in."""
        with self.db.transaction(write=True) as tx:
            row = self._row(tx, game_id, lock=True)
            if row.host_hash == OPEN_TABLE:
                raise Forbidden("this game is an open table: it is played through the routes of fivedp serve "
                                "--oliveriver, where whoever names a power plays it; it has no tokens to give")
            game = self._game(row)
            found = game.mv.game_map.power(str(power)) if isinstance(power, str) else None
            if found is None:
                raise ServeError(f"unknown power {quoted(str(power))} (powers: {', '.join(game.mv.players)})")
            if found not in game.mv.players:
                raise ServeError(f"{found} does not play in this game (players: {', '.join(game.mv.players)})")
            if found in game.mv.eliminated:
                raise ServeError(f"{found} has been eliminated")
            if found in self._players(tx, row.id):
                raise Stale(f"{found} has joined already: ask its player for the link")
            token = new_token()
            tx.run("INSERT INTO fivedp_players (game_id, power, token_hash, joined) VALUES (?, ?, ?, ?)",
                   (row.id, found, digest(token), self.clock()))
            tx.run("UPDATE fivedp_games SET revision = revision + 1 WHERE id = ?", (row.id,))
            return found, token

    # -- views -------------------------------------------------------------------------------------

    def view(self, game_id: str, token: str | None) -> dict:
        """``game show --json`` as the token's holder may see it: a player its own orders and of the
        others who has submitted; the host and spectators who has submitted only."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            game, sealed = self._game(row), self._sealed(row)
            players = sorted(self._players(tx, row.id))
        # a player's own orders are its waiting orders: the others' are never in its view
        own = {role.power: list(sealed.orders[role.power])} if role.power in sealed.orders else {}
        doc = game_document(replace(game, pending=own), power=role.power)
        doc["submitted"] = sorted(sealed.orders)
        doc["server"] = {"id": row.id, "role": role.kind, "power": role.power, "revision": row.revision,
                         "players": players, "deadline": self._deadline(row), "waiting_for": waiting_for(game.mv),
                         "finished": row.finished, "open_table": row.host_hash == OPEN_TABLE}
        return doc

    def _deadline(self, row: GameRow) -> dict | None:
        if row.deadline is None or row.finished:
            return None
        due = row.phase_since + row.deadline
        return {"seconds": row.deadline, "at": due, "left": max(0.0, due - self.clock())}

    def revision(self, game_id: str) -> int:
        with self.db.transaction(write=False) as tx:
            return self._row(tx, game_id, lock=False).revision

    def history(self, game_id: str, token: str | None) -> dict:
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            self.role(tx, row, token)
            game = self._game(row)
        return history_document(game)

    def possible(self, game_id: str, token: str | None, *, unit: str | None = None, kind: list[str] | None = None,
                 to: str | None = None) -> dict:
        """The orders the rules accept in the next phase: a player's own, or any power's for the host."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            game = self._game(row)
        if role.kind == SPECTATOR:
            raise Unauthorized("the orders a power may give are shown to its player (and the host): send your token")
        if game.mv.winner:
            raise Stale(f"the game is over: {game.mv.winner} has won")
        orders = possible_orders(game.mv, power=role.power, unit=unit, kind=kind, to=to)
        return possible_document(game.mv, orders)

    def game_file(self, game_id: str, token: str | None) -> str:
        """The game file (host only): every private set given so far as waiting orders."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            if self.role(tx, row, token).kind != HOST:
                raise Forbidden("only the host may download the game file (it holds every power's orders)")
            game, sealed = self._game(row), self._sealed(row)
        return game_text(replace(game, pending={p: list(v) for p, v in sealed.orders.items()}))

    def snapshot(self, game_id: str, token: str | None) -> tuple[Game, Role, Sealed]:
        """The game, the role of the token and the private sets, for what draws the game."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            return self._game(row), role, self._sealed(row)

    # -- changes ----------------------------------------------------------------------------------------

    def _change(self, game_id: str, token: str | None, phase: str | None, doing: str,
                work: Callable[[Transaction, GameRow, Role, Game, Sealed], Any]) -> Any:
        """One change, in one transaction holding the game's row: the token's role, the phase check,
        then ``work``."""
        if phase is not None and not isinstance(phase, str):
            raise ServeError("phase: give the phase key a view of the game carries (next.key)")
        with self.db.transaction(write=True) as tx:
            row = self._row(tx, game_id, lock=True)
            role = self.role(tx, row, token)
            game = self._game(row)
            if phase is not None and phase != row.phase:
                raise Stale(f"the game has moved on: it now waits for step {len(game.history) + 1} "
                            f"({waiting_for(game.mv)}); {doing}, so nothing was done: look at the game again",
                            row.phase)
            if game.mv.winner:
                raise Stale(f"the game is over: {game.mv.winner} has won")
            return work(tx, row, role, game, self._sealed(row))

    def _save(self, tx: Transaction, row: GameRow, game: Game | None, sealed: Sealed) -> None:
        if game is None:
            tx.run("UPDATE fivedp_games SET sealed = ?, revision = revision + 1 WHERE id = ?",
                   (sealed_text(sealed), row.id))
            return
        tx.run("UPDATE fivedp_games SET game = ?, phase = ?, sealed = ?, revision = revision + 1, phase_since = ?, "
               "finished = ? WHERE id = ?",
               (game_text(game), phase_key(game), sealed_text(sealed), self.clock(), int(bool(game.mv.winner)),
                row.id))

    def submit(self, game_id: str, token: str | None, lines: list[str], *, phase: str | None = None,
               replace_all: bool = False, force: bool = False) -> dict:
        """A player's orders for the next phase, kept private until it is adjudicated: each line as
        ``game orders`` takes it (a line for a unit replaces that unit's earlier line; an illegal line
        does not replace a legal one unless ``force``; ``replace_all``: the new lines are the whole
        set). Submitting counts as having submitted, even with no line (the units hold). When every
        power with something to do has submitted, the phase is adjudicated at once."""
        check_order_lines(lines)

        def work(tx, row, role, game, sealed):
            if role.kind != PLAYER:
                raise Forbidden("orders are given by players: send a player's token")
            new, given = seal(game, sealed, role.power, lines, keep=not replace_all, keep_empty=True, force=force)
            doc = orders_document(replace(game, pending={role.power: list(given.lines)}), given.submission,
                                  viewer=role.power)
            doc["submitted"] = sorted(new.orders)
            step = self._adjudicate_if_all_in(tx, row, game, new)
            if step is None:
                self._save(tx, row, None, new)
            doc["adjudicated"] = step
            return doc

        return self._change(game_id, token, phase, "these orders were given for another step", work)

    def check(self, game_id: str, token: str | None, lines: list[str]) -> dict:
        """The verdict on each line as if it were submitted (nothing is saved)."""
        check_order_lines(lines)
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            game, sealed = self._game(row), self._sealed(row)
        if role.kind != PLAYER:
            raise Forbidden("orders are checked for a player: send a player's token")
        _, given = seal(game, sealed, role.power, lines, keep=True, keep_empty=True)
        doc = orders_document(replace(game, pending={}), given.submission, checked=True, viewer=role.power)
        doc["pending"] = {}
        return doc

    def withdraw(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """A player's orders taken back: the power has not submitted any more."""
        def work(tx, row, role, game, sealed):
            if role.kind != PLAYER:
                raise Forbidden("orders are withdrawn by their player: send a player's token")
            self._save(tx, row, None, sealed.with_set(role.power, None))
            return {"withdrawn": role.power}

        return self._change(game_id, token, phase, "this withdrawal was asked for another step", work)

    def adjudicate(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """The host adjudicates the phase now, with the orders submitted (the others hold)."""
        def work(tx, row, role, game, sealed):
            if role.kind != HOST:
                raise Forbidden("only the host may adjudicate before everyone has submitted")
            return self._adjudicate(tx, row, game, sealed)

        return self._change(game_id, token, phase, "this adjudication was asked for another step", work)

    def _adjudicate(self, tx: Transaction, row: GameRow, game: Game, sealed: Sealed) -> dict:
        from ..engine.unsettled import unsettled

        def explain(exc: AdjudicationError, played: Game) -> Exception:
            return unsettled(exc, played.mv.options, played.pending, played.mv)

        new, kept, opened = open_and_adjudicate(replace(game, pending={}), sealed, unsettled=explain)
        self._save(tx, row, new, kept)
        doc = game_step_document(new, opened.report)
        doc["opened"] = list(opened.opened)
        return doc

    def _adjudicate_if_all_in(self, tx: Transaction, row: GameRow, game: Game, sealed: Sealed) -> dict | None:
        """Adjudicates when every power with something to do in the next phase has submitted."""
        due = {d.power for d in duties(game) if d.kind != "build" or d.options}
        if not due or not due <= set(sealed.orders):
            return None
        return self._adjudicate(tx, row, game, sealed)

    def undo(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """The host takes back the last step; the orders of that step wait again, private."""
        def work(tx, row, role, game, sealed):
            if role.kind != HOST:
                raise Forbidden("only the host may undo a step")
            new, kept, back = take_back(replace(game, pending={}), sealed, start_of)
            # every order of a served game is private: those the undone step gives back are too
            restored = {p: tuple(v) for p, v in new.pending.items() if v}
            new = replace(new, pending={})
            kept = Sealed(phase_key(new), {**restored, **dict(kept.orders)}, kept.opened_phase, kept.opened)
            self._save(tx, row, new, kept)
            return {"undone": back.step, "resealed": list(back.resealed), "waiting_for": waiting_for(new.mv)}

        return self._change(game_id, token, phase, "this undo was asked for another step", work)

    def due(self) -> list[str]:
        """The games whose phase is past its deadline."""
        now = self.clock()
        with self.db.transaction(write=False) as tx:
            rows = tx.rows("SELECT id FROM fivedp_games WHERE deadline IS NOT NULL AND finished = 0 "
                           "AND phase_since + deadline <= ?", (now,))
        return [r[0] for r in rows]

    def adjudicate_due(self, game_id: str) -> dict | None:
        """Adjudicates a game whose deadline has passed (checked again under the lock: another process
        may have done it)."""
        with self.db.transaction(write=True) as tx:
            row = self._row(tx, game_id, lock=True)
            if row.deadline is None or row.finished or row.phase_since + row.deadline > self.clock():
                return None
            return self._adjudicate(tx, row, self._game(row), self._sealed(row))


def game_from_start(options: Mapping[str, Any] | None, start: Mapping[str, Any] | None,
                    rules: Mapping[str, Any] | None = None) -> Game:
    """A new game from the standard opening or a scenario's ``start`` mapping, with these options
    (and rules of your own, as a scenario's ``options: rules:`` holds them)."""
    from ..engine.userrules import rules_from_mapping, validated
    from ..files.scenarios import read_start
    from ..model.map import load_map
    from ..model.multiverse import opening

    raw = dict(options or {})
    try:
        chosen = validated({k: v for k, v in raw.items() if k != "rules"})
    except InputError as exc:
        raise ServeError(f"options: {exc}") from None
    m = load_map("standard")
    if start is not None:
        if not isinstance(start, Mapping):
            raise ServeError("start: give a start position as a scenario writes it (turn, units, centers)")
        mv = read_start({"start": dict(start)}, m, chosen, "start")
    else:
        mv = opening(m, chosen)
    if rules:
        mv = replace(mv, options=mv.options.with_rules(rules_from_mapping(rules), in_effect=True))
    return new_game(mv)


# -- open tables (serve.oliveriver) ----------------------------------------------------------------------
# A game whose host digest is OPEN_TABLE has no host and no tokens: whoever names a power plays it,
# through the routes of ``serve.oliveriver``. These read and change such a game inside the caller's
# transaction (which may write tables of its own in it); to them every other game is no game at all.


def open_table(games: Games, tx: Transaction, game_id: str, *, lock: bool) -> tuple[GameRow, Game, Sealed]:
    """An open table's row, its game and its private sets; NotFound for a game that has tokens."""
    if not isinstance(games, Games) or not isinstance(tx, Transaction):
        raise UsageError("open_table: give the Games and a transaction of their database")
    row = games._row(tx, game_id, lock=lock)
    if row.host_hash != OPEN_TABLE:
        raise NotFound(f"no game {game_id[:40]!r}")
    return row, games._game(row), games._sealed(row)


def open_table_submit(games: Games, tx: Transaction, row: GameRow, game: Game, sealed: Sealed,
                      adjudicate: bool) -> dict | None:
    """The private sets of an open table saved, or opened and the phase adjudicated (``adjudicate``);
    returns the step document when it was."""
    if row.host_hash != OPEN_TABLE:
        raise NotFound(f"no game {row.id[:40]!r}")
    if not adjudicate:
        games._save(tx, row, None, sealed)
        return None
    return games._adjudicate(tx, row, game, sealed)
