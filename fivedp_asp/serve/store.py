"""Served games: what the host, each player and a spectator may do and see, each change written in
one short database transaction (``serve.database``).

A game is held as its game file's text (``files.games``: the same format ``fivedp game`` writes, so
``GET /api/games/{id}/file`` is a file ``fivedp game verify`` accepts) and its players' orders as
private sets (``game.table.Sealed``): every player's orders are sealed, shown to that player only,
opened when the phase is adjudicated. The operations are those of the command line's store
(``files.store``) on another storage: a change is for the phase its author saw (``phase``, the phase
key every view carries, required) and refused with ``Stale`` when the game waits for another.
Whatever solves (a check of order lines, an adjudication, an undo's replay) is worked out on a
snapshot with no transaction open, within the server's time and memory limits, and written only if
the game has not moved on meanwhile (``_replace_game``, ``submit``): no write lock is ever held while
the solver runs.

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
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable, Generic, Iterator, Mapping, TypeVar

from ..model.kinds import DutyKind
from ..errors import AdjudicationError, InputError, UsageError, quoted
from ..files.games import game_from_bytes, game_text, start_of
from ..files.sealed import parse_sealed, sealed_text
from ..engine.possible import LegalOrders
from ..engine.movement import judged_alone
from ..game.play import duties, waiting_for
from ..game.state import Game, new_game, phase_key
from ..game.table import Sealed, open_and_adjudicate, seal, take_back
from ..inputs import check_order_lines
from ..solver.driver import check_memory_limit, check_time_limit, limit_remedies, memory_limit, time_limit
from ..report.jsonout import game_document, game_step_document, history_document, orders_document, possible_document
from .database import Database, GameRow, Transaction

HOST, PLAYER, SPECTATOR = "host", "player", "spectator"
MAX_PLAYERS_TRIES = 3
VERDICT_SETS = 32  # order sets whose verdicts are kept per phase (a player's check and submission of the same lines)
CHANGE_TRIES = 3  # a change worked out again on what others wrote meanwhile, at most so many times
# the limits of one solver program in a served game: a server is shared, one user's machine is not
SERVE_TIME_LIMIT = 60.0
SERVE_MEMORY_LIMIT = 1024
# defaults of fivedp serve kept here, not in serve.app, so that the command line reads them without starlette
SOLVERS = 2  # solving at once in one server process (fivedp serve --solvers)
GAMES_PER_MINUTE = 10  # games one address may make in a minute (fivedp serve --games-per-minute)
# what a refusal at those limits tells the players of a served game, who cannot change the server's flags
SERVE_TIME_REMEDY = ("simpler orders may settle in time; the server's operator can raise fivedp serve "
                     "--time-limit")
SERVE_MEMORY_REMEDY = "the server's operator can raise fivedp serve --memory-limit"
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

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time,
                 time_limit: float | None = SERVE_TIME_LIMIT, memory_limit: int | None = SERVE_MEMORY_LIMIT):
        if not isinstance(db, Database):
            raise UsageError(f"Games needs a Database, not {type(db).__name__}")
        self.db = db
        self.clock = clock
        self.time_limit = check_time_limit(time_limit)
        self.memory_limit = check_memory_limit(memory_limit)
        # what is kept per game's phase key (the key names the game's whole position): the game read
        self._games: _Kept[Game] = _Kept(64)
        # the legal orders of a game's phase, asked unit by unit: what the questions share
        self._listings: _Kept[LegalOrders] = _Kept(16)
        # the rules' verdicts on order sets given for a game's phase (a check, then the submission of
        # the same lines, ask the rules once)
        self._verdicts: _Kept[_Verdicts] = _Kept(64)
        # the powers a game's phase waits for (each submission asks whether they all have submitted)
        self._due: _Kept[frozenset[str]] = _Kept(256)
        # the steps played up to a game's phase, as the history route gives them: every player looks
        # at them whenever the revision moves, and they change only with the phase
        self._histories: _Kept[dict] = _Kept(16)
        # whether each game read has no rules of its own (its options never change): ``rules_free``;
        # a game dropped from it counts as one with rules until it is read again
        self._rules_free: _Kept[bool] = _Kept(4096)
        db.prepare()

    # -- reading --------------------------------------------------------------------------------

    def _game(self, tx: Transaction, row: GameRow) -> Game:
        """The game of ``row``'s phase: its text is read (in ``tx``, the transaction ``row`` was read
        in) only when this server has not kept it. The phase key names the game's whole position (a
        digest chained over every step), so a game kept under it is the game the row stands for;
        submissions, which change the private sets and the revision, read the same game."""
        def read() -> Game:
            game, _ = game_from_bytes(tx.game_text(row.id).encode("utf-8"), f"game {row.id}")
            self._rules_free.kept(row.id, lambda: judged_alone(game.mv))
            return game

        return self._games.kept((row.id, row.phase), read)

    def rules_free(self, game_id: str) -> bool:
        """Whether the game is known, from a read of it, to have no rules of its own: the legality
        rules alone then check its players' orders (``engine.movement.judged_alone``), in a time
        bounded by the game's size, so that they may be checked side by side (``app.Solvers``). A game
        not read yet, or with rules of its own, is not."""
        if not isinstance(game_id, str):
            raise UsageError(f"rules_free: game_id must be a string, not {type(game_id).__name__}")
        return bool(self._rules_free.peek(game_id))

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
                tx.run("INSERT INTO fivedp_games (id, host_hash, phase, sealed, revision, deadline, phase_since, "
                       "finished, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (game_id, digest(token), phase_key(game), sealed_text(sealed), 1, deadline, now,
                        int(bool(game.mv.winner)), now))
                tx.run("INSERT INTO fivedp_game_texts (game_id, game) VALUES (?, ?)", (game_id, text))
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
            game = self._game(tx, row)
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
            game, sealed = self._game(tx, row), self._sealed(row)
            players = sorted(self._players(tx, row.id))
        # a player's own orders are its waiting orders: the others' are never in its view
        own = {role.power: list(sealed.orders[role.power])} if role.power in sealed.orders else {}
        with self._limits():
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
        """The steps played, the same for every role (no waiting order is in them). The document is
        kept per phase and shared: it must not be changed."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            self.role(tx, row, token)
            game = self._game(tx, row)
        return self._histories.kept((row.id, row.phase), lambda: history_document(game))

    def possible(self, game_id: str, token: str | None, *, unit: str | None = None, kind: list[str] | None = None,
                 to: str | None = None) -> dict:
        """The orders the rules accept in the next phase: a player's own, or any power's for the host."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            game = self._game(tx, row)
        if role.kind == SPECTATOR:
            raise Unauthorized("the orders a power may give are shown to its player (and the host): send your token")
        if game.mv.winner:
            raise Stale(f"the game is over: {game.mv.winner} has won")
        listing = self._listings.kept((row.id, row.phase), lambda: LegalOrders(game.mv),
                                      fresh=lambda kept: kept.mv is game.mv)
        with self._limits():
            orders = listing(power=role.power, unit=unit, kind=kind, to=to)
        return possible_document(game.mv, orders)

    def prepare_possible(self, game_id: str) -> bool:
        """What the legal-orders questions of the phase now waiting share, worked out ahead of them and
        kept (``LegalOrders.prepare``); False when the game is over or it is kept already."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            if row.finished or self._listings.peek((row.id, row.phase)) is not None:
                return False
            game = self._game(tx, row)
        if game.mv.winner:
            return False
        listing = self._listings.kept((row.id, row.phase), lambda: LegalOrders(game.mv),
                                      fresh=lambda kept: kept.mv is game.mv)
        with self._limits():
            listing.prepare()
        return True

    def possible_kept(self, game_id: str, phase: str) -> bool:  # no database read
        return self._listings.peek((game_id, phase)) is not None

    def game_file(self, game_id: str, token: str | None) -> str:
        """The game file (host only), as adjudicated: the orders waiting for the next phase are
        private to their powers, the host's too, and are in the file once their phase is adjudicated."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            if self.role(tx, row, token).kind != HOST:
                raise Forbidden("only the host may download the game file")
            game = self._game(tx, row)
        return game_text(replace(game, pending={}))

    def snapshot(self, game_id: str, token: str | None) -> tuple[Game, Role, Sealed]:
        """The game, the role of the token and the private sets, for what draws the game."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token)
            return self._game(tx, row), role, self._sealed(row)

    # -- changes ----------------------------------------------------------------------------------------
    # No solver runs inside a write transaction: a change reads the game in a short read transaction,
    # works out what it makes of it (legality, an adjudication, an undo's replay) with no transaction
    # open, then writes in a short write transaction that first checks the game has not moved on.
    # While it was working, other changes may have been written: a change that depends on them is
    # worked out again (up to CHANGE_TRIES times), one that no longer applies is refused.

    @contextmanager
    def _limits(self) -> Iterator[None]:
        """The server's time and memory limits around solving (``fivedp serve --time-limit``,
        ``--memory-limit``)."""
        with time_limit(self.time_limit), memory_limit(self.memory_limit), \
                limit_remedies(SERVE_TIME_REMEDY, SERVE_MEMORY_REMEDY):
            yield

    def _read(self, game_id: str, token: str | None = None, *, roles: bool = True) -> tuple[GameRow, Role, Game, Sealed]:
        """The game as it is now, read in a short read transaction, and the token's role in it."""
        with self.db.transaction(write=False) as tx:
            row = self._row(tx, game_id, lock=False)
            role = self.role(tx, row, token) if roles else Role(SPECTATOR)
            return row, role, self._game(tx, row), self._sealed(row)

    def _waiting(self, row: GameRow, game: Game, phase: str | None, doing: str) -> None:
        """The change names the phase now waiting, and the game is not over; otherwise refused."""
        if phase is None:
            raise ServeError("phase: name the phase this change is for (the phase key a view of the game "
                             "carries, next.key)")
        if not isinstance(phase, str):
            raise ServeError("phase: give the phase key a view of the game carries (next.key)")
        if phase != row.phase:
            raise Stale(f"the game has moved on: it now waits for step {len(game.history) + 1} "
                        f"({waiting_for(game.mv)}); {doing}, so nothing was done: look at the game again",
                        row.phase)
        if game.mv.winner:
            raise Stale(f"the game is over: {game.mv.winner} has won")

    def _change(self, game_id: str, token: str | None, phase: str | None, doing: str, who: str, refusal: str,
                work: Callable[[Transaction, GameRow, Role, Game, Sealed], Any]) -> Any:
        """A change that solves nothing, in one write transaction holding the game's row: the
        token's role (``who`` may, others are refused with ``refusal``), the phase check, then ``work``."""
        with self.db.transaction(write=True) as tx:
            row = self._row(tx, game_id, lock=True)
            role = self.role(tx, row, token)
            if role.kind != who:
                raise Forbidden(refusal)
            game = self._game(tx, row)
            self._waiting(row, game, phase, doing)
            return work(tx, row, role, game, self._sealed(row))

    def _replace_game(self, game_id: str, decide: Callable[[GameRow, Game, Sealed], bool],
                      work: Callable[[Game, Sealed], tuple[Game, Sealed, Any]], moved: Callable[[], Any],
                      also: Callable[[Transaction, GameRow, Game], None] | None = None) -> Any:
        """A change of the game itself worked out from a snapshot: ``decide`` says whether it applies
        to the game read (and may refuse it); ``work`` returns the new game, its private sets and the
        answer, solved outside any transaction, within the server's limits. It is written only if the
        game and its private sets are still those it was worked out from; otherwise worked out again
        on what they became. ``moved()`` is the answer when they keep changing under it; ``also``
        writes what else goes with the change, in its transaction, from the game it was made on."""
        for _ in range(CHANGE_TRIES):
            row, _, game, sealed = self._read(game_id, roles=False)
            if not decide(row, game, sealed):
                return None
            with self._limits():
                new, kept, answer = work(game, sealed)
            with self.db.transaction(write=True) as tx:
                now = self._row(tx, game_id, lock=True)
                if (now.phase, now.sealed) != (row.phase, row.sealed):  # the phase key names the game
                    continue
                if also is not None:
                    also(tx, now, game)
                self._save(tx, now, new, kept)
                return answer
        return moved()

    def _save(self, tx: Transaction, row: GameRow, game: Game | None, sealed: Sealed) -> None:
        if game is None:
            tx.run("UPDATE fivedp_games SET sealed = ?, revision = revision + 1 WHERE id = ?",
                   (sealed_text(sealed), row.id))
            return
        tx.run("UPDATE fivedp_games SET phase = ?, sealed = ?, revision = revision + 1, phase_since = ?, "
               "finished = ? WHERE id = ?",
               (phase_key(game), sealed_text(sealed), self.clock(), int(bool(game.mv.winner)), row.id))
        tx.run("UPDATE fivedp_game_texts SET game = ? WHERE game_id = ?", (game_text(game), row.id))

    def submit(self, game_id: str, token: str | None, lines: list[str], *, phase: str | None = None,
               replace_all: bool = False, force: bool = False) -> dict:
        """A player's orders for the next phase, kept private until it is adjudicated: each line as
        ``game orders`` takes it (a line for a unit replaces that unit's earlier line; an illegal line
        does not replace a legal one unless ``force``; ``replace_all``: the new lines are the whole
        set). Submitting counts as having submitted, even with no line (the units hold). When every
        power with something to do has submitted, the answer says the phase is ``complete``: it is
        adjudicated next, outside this request (``adjudicate_complete``).

        The lines are checked on a snapshot; the set is written if the power's own set is still the
        one they were checked against (the other powers' sets may change meanwhile: they are kept)."""
        check_order_lines(lines)
        doing = "these orders were given for another step"
        for _ in range(CHANGE_TRIES):
            row, role, game, sealed = self._read(game_id, token)
            if role.kind != PLAYER:
                raise Forbidden("orders are given by players: send a player's token")
            self._waiting(row, game, phase, doing)
            with self._limits():
                new, given = seal(game, sealed, role.power, lines, keep=not replace_all, keep_empty=True, force=force,
                                  verdicts=self._verdicts_of(row))
            with self.db.transaction(write=True) as tx:
                now = self._row(tx, game_id, lock=True)
                self._waiting(now, self._game(tx, now), phase, doing)
                current = self._sealed(now)
                if current.orders.get(role.power) != sealed.orders.get(role.power):
                    continue  # its own set changed meanwhile (another page of the same player)
                saved = current.with_set(role.power, new.orders.get(role.power))
                self._save(tx, now, None, saved)
                break
        else:
            raise Stale("this power's orders kept changing while these were checked: look at the game again",
                        phase)
        doc = orders_document(replace(game, pending={role.power: list(given.lines)}), given.submission,
                              viewer=role.power)
        doc["submitted"] = sorted(saved.orders)
        # the phase is adjudicated outside this request (``adjudicate_complete``, which the server's
        # scheduler calls): the answer says only that it is complete
        doc["complete"] = self._all_in(row, game, saved)
        return doc

    def _verdicts_of(self, row: GameRow) -> "_Verdicts":
        """The verdicts kept for the game's phase (the game text changes only with the phase)."""
        return self._verdicts.kept((row.id, row.phase), _Verdicts)

    def _all_in(self, row: GameRow, game: Game, sealed: Sealed) -> bool:
        """Whether every power with something to do in the phase the game waits for has submitted.
        Who has something to do depends on the phase alone (a served game holds no open orders): it
        is kept per phase key."""
        if game.mv.winner:
            return False
        def due_now() -> frozenset[str]:
            with self._limits():
                return frozenset(d.power for d in duties(replace(game, pending={}))
                                 if d.kind != DutyKind.BUILD or d.options)

        due = self._due.kept((row.id, row.phase), due_now)
        return bool(due) and due <= set(sealed.orders)

    def check(self, game_id: str, token: str | None, lines: list[str]) -> dict:
        """The verdict on each line as if it were submitted (nothing is saved)."""
        check_order_lines(lines)
        row, role, game, sealed = self._read(game_id, token)
        if role.kind != PLAYER:
            raise Forbidden("orders are checked for a player: send a player's token")
        with self._limits():
            _, given = seal(game, sealed, role.power, lines, keep=True, keep_empty=True, verdicts=self._verdicts_of(row))
        doc = orders_document(replace(game, pending={}), given.submission, checked=True, viewer=role.power)
        doc["pending"] = {}
        return doc

    def withdraw(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """A player's orders taken back: the power has not submitted any more."""
        def work(tx, row, role, game, sealed):
            self._save(tx, row, None, sealed.with_set(role.power, None))
            return {"withdrawn": role.power}

        return self._change(game_id, token, phase, "this withdrawal was asked for another step", PLAYER,
                            "orders are withdrawn by their player: send a player's token", work)

    def adjudicate(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """The host adjudicates the phase now, with the orders submitted (the others hold)."""
        _, role, _, _ = self._read(game_id, token)
        if role.kind != HOST:
            raise Forbidden("only the host may adjudicate before everyone has submitted")

        def decide(row, game, sealed):
            self._waiting(row, game, phase, "this adjudication was asked for another step")
            return True

        def moved():
            raise Stale("the orders kept changing while the phase was adjudicated: nothing was done, try again",
                        phase)

        return self._replace_game(game_id, decide, self._adjudicated, moved)

    def _adjudicated(self, game: Game, sealed: Sealed) -> tuple[Game, Sealed, dict]:
        """The phase adjudicated with the private sets: the new game, the sets kept, the step document."""
        from ..engine.unsettled import unsettled

        def explain(exc: AdjudicationError, played: Game) -> Exception:
            return unsettled(exc, played.mv.options, played.pending, played.mv)

        new, kept, opened = open_and_adjudicate(replace(game, pending={}), sealed, unsettled=explain)
        doc = game_step_document(new, opened.report)
        doc["opened"] = list(opened.opened)
        return new, kept, doc

    def adjudicate_complete(self, game_id: str, phase: str) -> dict | None:
        """Adjudicates the phase ``phase`` when every power with something to do in it has submitted
        (checked again on the game as it is: a player may have withdrawn since); the step document, or
        None when it was not. Stale when the orders kept changing while it was worked out."""
        def decide(row, game, sealed):
            return row.phase == phase and self._all_in(row, game, sealed)

        def moved():
            raise Stale("the orders kept changing while the phase was adjudicated", phase)

        return self._replace_game(game_id, decide, self._adjudicated, moved)

    def undo(self, game_id: str, token: str | None, *, phase: str | None = None) -> dict:
        """The host takes back the last step; the orders of that step wait again, private."""
        _, role, _, _ = self._read(game_id, token)
        if role.kind != HOST:
            raise Forbidden("only the host may undo a step")

        def decide(row, game, sealed):
            self._waiting(row, game, phase, "this undo was asked for another step")
            return True

        def work(game, sealed):
            new, kept, back = take_back(replace(game, pending={}), sealed, start_of)
            # every order of a served game is private: those the undone step gives back are too
            restored = {p: tuple(v) for p, v in new.pending.items() if v}
            new = replace(new, pending={})
            kept = Sealed(phase_key(new), {**restored, **dict(kept.orders)}, kept.opened_phase, kept.opened)
            return new, kept, {"undone": back.step, "resealed": list(back.resealed), "waiting_for": waiting_for(new.mv)}

        def moved():
            raise Stale("the game kept changing while the step was taken back: nothing was done, try again", phase)

        return self._replace_game(game_id, decide, work, moved)

    def waiting(self) -> list[tuple[str, str]]:
        """The games in progress with private orders waiting, and the phase each waits for: those a
        server stopped between a phase's last submission and its adjudication may have left complete.
        Open tables are left to their own routes (``serve.oliveriver``), which adjudicate as they submit."""
        with self.db.transaction(write=False) as tx:
            rows = tx.rows("SELECT id, phase, sealed FROM fivedp_games WHERE finished = 0 AND host_hash <> ?",
                           (OPEN_TABLE,))
        return [(gid, phase) for gid, phase, sealed in rows
                if parse_sealed(sealed.encode("utf-8"), f"game {gid}", phase).orders]

    def due(self) -> list[str]:
        """The games whose phase is past its deadline."""
        now = self.clock()
        with self.db.transaction(write=False) as tx:
            rows = tx.rows("SELECT id FROM fivedp_games WHERE deadline IS NOT NULL AND finished = 0 "
                           "AND phase_since + deadline <= ?", (now,))
        return [r[0] for r in rows]

    def adjudicate_due(self, game_id: str) -> dict | None:
        """Adjudicates a game whose deadline has passed (checked again when written: another process
        may have done it)."""
        def decide(row, game, sealed):
            return (row.deadline is not None and not row.finished and not game.mv.winner
                    and row.phase_since + row.deadline <= self.clock())

        return self._replace_game(game_id, decide, self._adjudicated, lambda: None)


V = TypeVar("V")


class _Kept(Generic[V]):
    """The values last kept by key, at most ``size`` of them, the least recently used dropped first,
    shared by the server's threads (one lock). What is missing is made outside the lock, so that a
    slow making holds up no other key; when two threads make the same key at once, the first kept is
    the one both get."""

    def __init__(self, size: int):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise UsageError(f"_Kept: give a size of at least 1, not {size!r}")
        self.size = size
        self._values: OrderedDict[Any, V] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: Any) -> V | None:
        """The value kept for ``key``, or None: nothing is made, and nothing moves."""
        with self._lock:
            return self._values.get(key)

    def kept(self, key: Any, make: Callable[[], V], *, fresh: Callable[[V], bool] | None = None) -> V:
        """The value kept for ``key``, or ``make()`` kept (also when ``fresh`` says the kept one is not)."""
        with self._lock:
            value = self._values.get(key)
            if value is not None and (fresh is None or fresh(value)):
                self._values.move_to_end(key)
                return value
        made = make()
        with self._lock:
            value = self._values.get(key)
            if value is None or (fresh is not None and not fresh(value)):
                value = self._values[key] = made
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)
            return value


class _Verdicts(OrderedDict):
    """The rules' verdicts on the order sets given for one phase, the latest kept (``VERDICT_SETS``)."""

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while len(self) > VERDICT_SETS:
            self.popitem(last=False)


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
    return row, games._game(tx, row), games._sealed(row)


def open_table_submit(games: Games, tx: Transaction, row: GameRow, sealed: Sealed) -> None:
    """The private sets of an open table saved, in the caller's write transaction."""
    if not isinstance(games, Games) or not isinstance(tx, Transaction):
        raise UsageError("open_table_submit: give the Games and a transaction of their database")
    if row.host_hash != OPEN_TABLE:
        raise NotFound(f"no game {row.id[:40]!r}")
    games._save(tx, row, None, sealed)


def open_table_adjudicate(games: Games, game_id: str, phase: str, ready: Callable[[Game, Sealed], bool],
                          also: Callable[[Transaction, GameRow, Game], None] | None = None) -> dict | None:
    """An open table's phase ``phase`` adjudicated when ``ready`` says so of the game and its sets
    (as every change of a game, on a snapshot, written if nothing changed meanwhile); the step
    document, or None when it was not (yet) adjudicated. ``also``: what else is written with it."""
    if not isinstance(games, Games) or not callable(ready):
        raise UsageError("open_table_adjudicate: give the Games and what says the phase is ready")

    def decide(row, game, sealed):
        return row.host_hash == OPEN_TABLE and row.phase == phase and not game.mv.winner and ready(game, sealed)

    return games._replace_game(game_id, decide, games._adjudicated, lambda: None, also)
