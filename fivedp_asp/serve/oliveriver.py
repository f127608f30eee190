"""The routes of the community's own client, served from this engine: ``fivedp serve --oliveriver``
(docs/server.md, "Their client").

That client (Oliveriver's 5D Diplomacy, a React application built with npm) talks to its server through
six routes: ``POST /game`` (a new game), ``PUT /game/{id}/players`` (join), ``GET /game/{id}`` (the
``World``), ``POST /game/{id}/orders``, ``GET /game/{id}/iteration`` and ``GET /game/{id}/players/submitted``.
Here they act on games of this engine, each adjudicated by it (``serve.oliveriver_world`` maps the
boards, places and orders both ways).

**Identity.** That client has no tokens: it names the player by power, in the query string and in
each submission. So a game made through these routes is an **open table**: whoever names a power
plays it, and sees that power's orders waiting (as on their own server). Such a game is marked in
the database (``store.OPEN_TABLE``): it has no host and no tokens, the native API shows it to
spectators only and says ``open_table: true`` (none of its secrecy is promised), and the native join
refuses it. These routes act on open tables only, found by their number: a game with tokens is no
game to them.

**Numbers.** Their client reads a game's id as a whole number (its join page takes digits only), so
each open table has a number of seven digits, chosen at random, beside its game id; both name it.

**When a phase is adjudicated.** As their server does: when every power still in the game (with
units or centres on a head) has submitted, also in retreat and adjustment phases (an empty
submission counts). A sandbox game is one person playing every power: each submission is every
power's.

Their client expects an error as plain text (it shows the response's body as a string), so these
routes answer every refusal as ``text/plain`` with its status: 400 bad input, 404 no such game, 409 a
power or game that cannot be joined so.
"""

from __future__ import annotations

import json
import logging
import secrets
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from ..errors import InputError, UsageError
from ..model.options import PRESET, preset as preset_named
from ..game.state import Game
from ..game.table import Sealed
from ..model.multiverse import ADJUSTMENT, MOVEMENT, Multiverse, Unit
from ..engine.step import next_phase
from .database import GameRow, Transaction, Unavailable
from .oliveriver_world import NATIONS, order_lines, order_sets, world
from .store import (OPEN_TABLE, Games, NotFound, ServeError, Stale, game_from_start, open_table,
                    open_table_adjudicate, open_table_submit)

log = logging.getLogger("fivedp.serve")

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS fivedp_oliveriver_games (
        number INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL UNIQUE REFERENCES fivedp_games(id),
        sandbox INTEGER NOT NULL,
        strict INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS fivedp_oliveriver_winters (
        game_id TEXT NOT NULL REFERENCES fivedp_games(id),
        board TEXT NOT NULL,
        units TEXT NOT NULL,
        PRIMARY KEY (game_id, board)
    )""",
)
FIRST_NUMBER, NUMBERS = 1_000_000, 9_000_000

# hasStrictAdjacencies: the option strict_adjacency (docs/rules.md §6.8.4); their games play the preset
# oliveriver unless the host names another (fivedp serve --preset) or the request's options do
STRICT_OPTION = "strict_adjacency"
DEFAULT_PRESET = "oliveriver"
# options their client cannot play: it has no order to vote with
REFUSED_OPTIONS = {"sustain": "their client has no sustain orders to vote with"}
CREATE_KEYS = ("isSandbox", "player", "hasStrictAdjacencies", "options", "rules", "start")


def in_game(mv: Multiverse) -> set[str]:
    """The powers still in the game: not eliminated, with a unit, a retreating unit or a centre on a
    head (their server's "living players", who must all submit)."""
    found: set[str] = set()
    for b in mv.heads:
        found |= {u.power for u in b.units.values()} | set(b.centers.values()) | {r.unit.power for r in b.retreats}
    return {p for p in mv.players if p in found and p not in mv.eliminated}


def _nation(value: object, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in NATIONS:
        raise ServeError(f"{what}: give one of {', '.join(NATIONS)} (or null)")
    return value


def _flag(data: Mapping, key: str, default: bool = False) -> bool:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ServeError(f"{key}: give true or false")
    return value


def _units_text(units: Iterable[Unit]) -> str:
    return json.dumps([[u.kind, u.power, u.location] for u in sorted(units, key=lambda u: u.location)])


def _units_of(text: str) -> tuple[Unit, ...]:
    return tuple(Unit(str(k), str(p), str(loc)) for k, p, loc in json.loads(text))


class OpenTables:
    """The open tables on the server's database, as the routes of their client reach them."""

    def __init__(self, games: Games, preset: str = DEFAULT_PRESET):
        if not isinstance(games, Games):
            raise UsageError(f"OpenTables needs the server's Games, not {type(games).__name__}")
        preset_named(preset)  # an unknown name is refused when the server starts
        self.games = games
        self.preset = preset
        with games.db.transaction(write=True) as tx:
            for statement in SCHEMA:
                tx.run(statement)

    # -- finding ----------------------------------------------------------------------------------------

    def _table(self, tx: Transaction, number: object) -> tuple[str, bool, bool]:
        """The game id, sandbox and strict flags of the open table with this number."""
        text = str(number)
        if not text.isascii() or not text.isdigit() or len(text) > 9:
            raise NotFound(f"No game with ID {text[:20]} found")
        found = tx.rows("SELECT game_id, sandbox, strict FROM fivedp_oliveriver_games WHERE number = ?", (int(text),))
        if not found:
            raise NotFound(f"No game with ID {int(text)} found")
        gid, sandbox, strict = found[0]
        return str(gid), bool(sandbox), bool(strict)

    def _open(self, tx: Transaction, number: object, *, lock: bool) -> tuple[str, bool, bool, GameRow, Game, Sealed]:
        """The open table with this number: its game id, flags, row, game and private sets. A number
        that leads to a game with tokens leads nowhere, and is told so as any other."""
        gid, sandbox, strict = self._table(tx, number)
        try:
            row, game, sealed = open_table(self.games, tx, gid, lock=lock)
        except NotFound:
            raise NotFound(f"No game with ID {int(str(number))} found") from None
        return gid, sandbox, strict, row, game, sealed

    def _winters(self, tx: Transaction, gid: str) -> dict[str, tuple[Unit, ...]]:
        return {str(b): _units_of(u) for b, u in
                tx.rows("SELECT board, units FROM fivedp_oliveriver_winters WHERE game_id = ?", (gid,))}

    @staticmethod
    def _joined(tx: Transaction, gid: str) -> set[str]:
        return {str(p) for (p,) in tx.rows("SELECT power FROM fivedp_players WHERE game_id = ?", (gid,))}

    def _sit(self, tx: Transaction, gid: str, power: str) -> None:
        """``power`` joined (once: an open table has no tokens, so joining again is coming back)."""
        if power in self._joined(tx, gid):
            return
        tx.run("INSERT INTO fivedp_players (game_id, power, token_hash, joined) VALUES (?, ?, ?, ?)",
               (gid, power, OPEN_TABLE, self.games.clock()))
        tx.run("UPDATE fivedp_games SET revision = revision + 1 WHERE id = ?", (gid,))

    # -- their routes -----------------------------------------------------------------------------------

    def create(self, data: Mapping[str, Any]) -> dict:
        """``POST /game``: a new open table on the standard opening (or the ``start`` given), with this
        engine's rule ``options`` over the server's preset (``oliveriver`` unless the host named another,
        or the options name their own ``preset``) and ``rules`` of your own; ``hasStrictAdjacencies``
        sets the option ``strict_adjacency``. Returns their ``Game``: the number, the flag, the power chosen (at
        random when none is named; none in a sandbox)."""
        unknown = sorted(k for k in data if k not in CREATE_KEYS)
        if unknown:
            raise ServeError(f"unknown field {unknown[0][:40]!r} (known: {', '.join(CREATE_KEYS)})")
        sandbox = _flag(data, "isSandbox")
        strict = _flag(data, "hasStrictAdjacencies")
        player = _nation(data.get("player"), "player")
        if sandbox and player is not None:
            raise ServeError("Sandbox must be created with no player specified")
        options = data.get("options") or {}
        rules = data.get("rules") or {}
        start = data.get("start")
        if not isinstance(options, dict) or not isinstance(rules, dict) or not isinstance(start, (dict, type(None))):
            raise ServeError("options, rules and start: give each as an object, as POST /api/games takes them")
        for name, why in REFUSED_OPTIONS.items():
            if options.get(name) not in (None, False):
                raise ServeError(f"options: {name} cannot be played through this client ({why})")
        if STRICT_OPTION in options:
            raise ServeError(f"options: {STRICT_OPTION} is what hasStrictAdjacencies sets: give the flag instead")
        options = {PRESET: self.preset, **options, **({STRICT_OPTION: True} if strict else {})}
        game = game_from_start(options, start, rules)
        root = game.mv.boards[min(game.mv.boards)]
        if root.phase != MOVEMENT:
            raise ServeError("start: their client begins a game with a movement phase: give no retreats or adjustments")
        if player is not None and player not in game.mv.players:
            raise ServeError(f"player: {player} does not play in this game (players: {', '.join(game.mv.players)})")
        if not sandbox and player is None:
            player = secrets.choice(sorted(game.mv.players))
        gid, _ = self.games.create(game)  # the host's token is dropped: an open table has no host
        for _ in range(20):
            number = FIRST_NUMBER + secrets.randbelow(NUMBERS)
            with self.games.db.transaction(write=True) as tx:
                if tx.rows("SELECT number FROM fivedp_oliveriver_games WHERE number = ?", (number,)):
                    continue
                tx.run("UPDATE fivedp_games SET host_hash = ? WHERE id = ?", (OPEN_TABLE, gid))
                tx.run("INSERT INTO fivedp_oliveriver_games (number, game_id, sandbox, strict) VALUES (?, ?, ?, ?)",
                       (number, gid, int(sandbox), int(strict)))
                if player is not None:
                    self._sit(tx, gid, player)
                return {"id": number, "hasStrictAdjacencies": strict, "player": player}
        raise ServeError("could not find a free game number; try again")

    def join(self, number: object, data: Mapping[str, Any]) -> dict:
        """``PUT /game/{id}/players``: a player for a power (named, or one nobody has joined, at random)
        or, in a sandbox, the sandbox again."""
        sandbox = _flag(data, "isSandbox")
        player = _nation(data.get("player"), "player")
        with self.games.db.transaction(write=True) as tx:
            gid, is_sandbox, strict, row, game, _ = self._open(tx, number, lock=True)
            if is_sandbox != sandbox:
                raise ServeError("Can't join sandbox game when requesting to join normal game" if is_sandbox
                                 else "Can't join non-sandbox when requesting to join sandbox game")
            if sandbox:
                return {"id": int(number), "hasStrictAdjacencies": strict, "player": None}
            if player is None:
                free = sorted(set(in_game(game.mv)) - self._joined(tx, gid))
                if not free:
                    raise Stale("every power of this game has joined: name the power you play to come back to it")
                player = secrets.choice(free)
            elif player not in game.mv.players:
                raise ServeError(f"{player} does not play in this game (players: {', '.join(game.mv.players)})")
            self._sit(tx, gid, player)
            return {"id": int(number), "hasStrictAdjacencies": strict, "player": player}

    def world(self, number: object, player: str | None) -> dict:
        """``GET /game/{id}?player=``: the ``World`` as that power's player sees it (its own orders
        waiting, and of the others none); in a sandbox, every waiting order."""
        with self.games.db.transaction(write=False) as tx:
            gid, sandbox, _, row, game, sealed = self._open(tx, number, lock=False)
            winters = self._winters(tx, gid)
        viewers = sealed.orders if sandbox else [player] if player else []
        return world(game, sealed, viewers, winters)

    def iteration(self, number: object) -> int:
        """``GET /game/{id}/iteration``: the steps adjudicated so far (their client fetches the world
        again when it changes)."""
        with self.games.db.transaction(write=False) as tx:
            game = self._open(tx, number, lock=False)[4]
            return len(game.history)

    def submitted(self, number: object) -> list[str]:
        """``GET /game/{id}/players/submitted``: the powers that have submitted for the phase waiting."""
        with self.games.db.transaction(write=False) as tx:
            sealed = self._open(tx, number, lock=False)[5]
            return sorted(sealed.orders)

    def submit(self, number: object, data: Mapping[str, Any]) -> dict:
        """``POST /game/{id}/orders``: each named power's orders for the phase waiting, replacing what it
        submitted before; when every power still in the game has submitted, the phase is adjudicated.
        Orders another phase takes, or for a power not named, are not taken: the answer lists them
        with why (their client reads nothing of it)."""
        players = data.get("players")
        orders = data.get("orders", [])
        if not isinstance(players, list) or not players:
            raise ServeError("No players specified")
        named = [_nation(p, "players") for p in players]
        if None in named:
            raise ServeError(f"players: give one of {', '.join(NATIONS)} for each")
        if not isinstance(orders, list):
            raise ServeError("orders: give a list of orders")
        with self.games.db.transaction(write=False) as tx:
            gid, sandbox, _, row, game, sealed = self._open(tx, number, lock=False)
        if game.mv.winner:
            return {"iteration": len(game.history), "adjudicated": False, "taken": {}, "refused": [],
                    "ignored": f"the game is over: {game.mv.winner} has won"}
        powers = sorted({p for p in named if p in game.mv.players})
        if not powers:
            raise ServeError(f"none of {', '.join(str(p) for p in named)} plays in this game "
                             f"(players: {', '.join(game.mv.players)})")
        # worked out on a snapshot, with no transaction open; written if the game still waits for that
        # phase (their routes name no phase: a submission is for the phase waiting when it is read)
        with self.games._limits():
            given, refused = order_lines(game, orders, powers)
            sets = order_sets(game, given, powers)
        with self.games.db.transaction(write=True) as tx:
            gid, sandbox, _, now, _, sealed = self._open(tx, number, lock=True)
            if now.phase != row.phase:
                raise Stale("the game moved on while these orders were read: submit them again")
            for power in powers:
                sealed = sealed.with_set(power, sets[power])
            open_table_submit(self.games, tx, now, sealed)

        def ready(game: Game, sealed: Sealed) -> bool:
            return in_game(game.mv) <= set(sealed.orders)

        def winters(tx: Transaction, row: GameRow, game: Game) -> None:
            if next_phase(game.mv) == ADJUSTMENT:
                # the units before the adjustments, for the Winter boards drawn afterwards
                for b in game.mv.heads:
                    if b.phase == ADJUSTMENT:
                        tx.run("INSERT INTO fivedp_oliveriver_winters (game_id, board, units) VALUES (?, ?, ?)",
                               (gid, b.name, _units_text(b.units.values())))

        step = open_table_adjudicate(self.games, gid, row.phase, ready, winters) if ready(game, sealed) else None
        return {"iteration": len(game.history) + (1 if step else 0), "adjudicated": step is not None,
                "submitted": [] if step else sorted(sealed.orders),
                "taken": {p: list(v) for p, v in sets.items()}, "refused": refused}


# -- HTTP --------------------------------------------------------------------------------------------


def _plain(handler: Callable[[Request], Awaitable[Any]],
           cors: Sequence[str]) -> Callable[[Request], Awaitable[Response]]:
    """A route of their client: JSON answers, refusals as plain text with their status (their client
    shows the body of an error as text), CORS headers for the origins allowed."""
    async def route(request: Request) -> Response:
        try:
            response: Response = JSONResponse(await handler(request))
        except (ServeError, Unavailable) as exc:
            response = PlainTextResponse(str(exc), status_code=exc.status)
        except InputError as exc:
            response = PlainTextResponse(str(exc), status_code=400)
        except Exception as exc:  # noqa: BLE001 - a defect: said as such, never as a traceback
            log.error("internal error in %s %s: %s: %s", request.method, request.url.path, type(exc).__name__,
                      str(exc)[:300])
            response = PlainTextResponse(f"internal error ({type(exc).__name__}): this is a defect of fivedp, "
                                         "please report it", status_code=500)
        return _with_cors(request, response, cors)
    return route


def _with_cors(request: Request, response: Response, cors: Sequence[str]) -> Response:
    origin = request.headers.get("origin")
    if origin and ("*" in cors or origin in cors):
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
    return response


def _preflight(cors: Sequence[str]) -> Callable[[Request], Awaitable[Response]]:
    async def route(request: Request) -> Response:
        response = Response(status_code=204)
        if _with_cors(request, response, cors).headers.get("Access-Control-Allow-Origin"):
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, PUT"
            response.headers["Access-Control-Allow-Headers"] = "Content-Type"
            response.headers["Access-Control-Max-Age"] = "600"
        return response
    return route


def check_client(folder: Path) -> Path:
    """The folder of their client as built to be served at ``/client/``: it must hold ``index.html``,
    and a build made for another address (``/assets/...``) is refused with how to build it."""
    folder = Path(folder)
    index = folder / "index.html"
    if not folder.is_dir() or not index.is_file():
        raise InputError(f"--client {str(folder)[:200]}: give the folder their client was built into (dist/, "
                         "with index.html)")
    text = index.read_text(encoding="utf-8", errors="replace")
    if 'src="/assets/' in text or 'href="/assets/' in text:
        raise InputError(f"--client {str(folder)[:200]}: this build loads its scripts from /assets/, not "
                         "/client/assets/: build it with npx vite build --base=/client/")
    return folder


def routes(games: Games, body: Callable[[Request], Awaitable[dict]], *, client: Path | None = None,
           cors: Sequence[str] = (), solve: Callable[[str | None, Callable[[], Any]], Awaitable[Any]] | None = None,
           made: Callable[[Request], None] | None = None, preset: str | None = None) -> list[BaseRoute]:
    """The six routes of their client (and OPTIONS for CORS), and their built client at ``/client/``.
    ``body`` reads a request's JSON object through the server's guards (``app``'s); ``solve(key,
    work)`` does work that may solve where the server does it (``app.Solvers.run``; by default a
    worker thread); ``made(request)`` counts a game made by the request's address, or refuses it.
    The games made through them play ``preset`` (by default ``oliveriver``) under the options they give."""
    if not callable(body):
        raise UsageError("routes: give the function that reads a request's JSON body")
    tables = OpenTables(games, preset or DEFAULT_PRESET)
    cors = tuple(cors)

    async def in_thread(key: str | None, work: Callable[[], Any]) -> Any:
        return await run_in_threadpool(work)

    solver = solve or in_thread

    async def create(request: Request) -> dict:
        data = await body(request)
        if made is not None:
            made(request)
        return await solver(None, lambda: tables.create(data))

    async def join(request: Request) -> dict:
        data = await body(request)
        return await run_in_threadpool(tables.join, request.path_params["number"], data)

    async def get_world(request: Request) -> dict:
        player = request.query_params.get("player") or None
        return await run_in_threadpool(tables.world, request.path_params["number"], _nation(player, "player"))

    async def orders(request: Request) -> dict:
        data = await body(request)
        number = request.path_params["number"]
        return await solver(f"open-table {str(number)[:20]}", lambda: tables.submit(number, data))

    async def iteration(request: Request) -> int:
        return await run_in_threadpool(tables.iteration, request.path_params["number"])

    async def submitted(request: Request) -> list:
        return await run_in_threadpool(tables.submitted, request.path_params["number"])

    out: list[BaseRoute] = [
        Route("/game", _plain(create, cors), methods=["POST"]),
        Route("/game/{number}", _plain(get_world, cors), methods=["GET"]),
        Route("/game/{number}/players", _plain(join, cors), methods=["PUT"]),
        Route("/game/{number}/orders", _plain(orders, cors), methods=["POST"]),
        Route("/game/{number}/iteration", _plain(iteration, cors), methods=["GET"]),
        Route("/game/{number}/players/submitted", _plain(submitted, cors), methods=["GET"]),
    ]
    if cors:
        for path in ("/game", "/game/{number}/players", "/game/{number}/orders"):
            out.append(Route(path, _preflight(cors), methods=["OPTIONS"]))
    if client is not None:
        from starlette.staticfiles import StaticFiles

        async def to_client(request: Request) -> Response:
            return RedirectResponse("/client/")

        out += [Route("/client", to_client, methods=["GET"]),
                Mount("/client", app=StaticFiles(directory=str(check_client(client)), html=True), name="client")]
    return out
