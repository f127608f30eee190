"""The HTTP side of ``fivedp serve``: a Starlette application over ``serve.store``.

JSON over HTTP mirrors the library API (docs/server.md; ``GET /openapi.json``), tokens as
``Authorization: Bearer TOKEN``. Pages for the browser (``/``, ``/play/{id}``) carry a token in the
address's fragment (``#token=...``), which browsers never send to a server: no token reaches a
request line, so none reaches an access log. Every refusal is a JSON ``{"error": ...}`` with an HTTP
status (400 bad input, 401 no or a wrong token, 403 a role that may not, 404 no such game, 409 a
phase no longer waiting, 413 too large, 429 too many games made from one address, 503 the storage
failing); an unexpected failure is a 500 with a message that says so, never a traceback.

Whatever may solve (a view's duties, a check, a submission, an adjudication, an undo, the legal
orders, the picture) runs in a pool of ``solvers`` worker threads, never on the event loop, so that a
long adjudication holds up no other request; beyond that many the work waits its turn, and a game
solves one thing at a time, so that one game cannot take every worker. No request adjudicates: the
submission that completes a phase answers at once and hands the game to the scheduler
(``Scheduler``), which adjudicates it in a task of its own, as it does each game past its deadline
(every server process checks the deadlines every few seconds: the write decides which one
adjudicates). Every response carries the security headers
(``serve.headers``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from ..errors import InputError, UsageError
from ..files.games import game_from_bytes
from ..files.layout import JsonRefused, load_json
from ..limits import MAX_FILE_BYTES
from ..solver.apart import fork_by_a_server
from .database import Database, Unavailable
from .headers import SecurityHeaders
from .memory import LongLived
from .store import (GAMES_PER_MINUTE, SERVE_MEMORY_LIMIT, SERVE_TIME_LIMIT, SOLVERS, SPECTATOR, Games, ServeError, Stale,
                    game_from_start)

log = logging.getLogger("fivedp.serve")
T = TypeVar("T")
# the processor seconds a request's solving work took in the worker threads, said in its answer's
# Server-Timing header (``cpu;dur=MS``): what a request costs the server, apart from how busy the machine is
_SPENT: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("fivedp_spent", default=None)
DEADLINE_CHECK_SECONDS = 5.0
COMPLETE_TRIES = 5  # a complete phase worked out again while its orders keep changing, at most so many times
BACKOFF_DOUBLINGS = 6  # a due game that keeps failing is tried at most every 5 s x 2 ** 6 = 320 s
EVENTS_SECONDS = 600.0  # an /events stream ends after this long; the browser's EventSource opens another
HEARTBEAT_SECONDS = 15.0  # a comment line sent on a quiet /events stream, so that it is never idle


class TooLarge(ServeError):
    status = 413


class TooMany(ServeError):
    status = 429


class Solvers:
    """Where solving is done: at most ``count`` jobs at once in worker threads (the others wait their
    turn, holding no thread), and one job at a time per game, so that one game's slow rules never
    take every worker. A job ``alongside`` the game's others skips that turn (the checks of players'
    orders in a game without rules of its own: the legality rules alone, bounded by the game's size,
    which the players of a big game send at the same moment)."""

    def __init__(self, count: int, settle: Callable[[], None] | None = None):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise UsageError(f"solvers: give a whole number of at least 1, not {count!r}")
        if settle is not None and not callable(settle):
            raise UsageError(f"settle: give a function or None, not {settle!r}")
        self.count = count
        self.settle = settle  # called after each job (``serve.memory``: what the job left alive is kept apart)
        self._pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="fivedp-solver")
        self._games: dict[str, tuple[asyncio.Lock, int]] = {}

    async def run(self, game_id: str | None, work: Callable[[], T], *, alongside: bool = False) -> T:
        """``work()`` done by a worker when one is free and the game (None: no game yet) solves
        nothing else, or at once with what it solves (``alongside``)."""
        try:
            return await self._run(game_id, _counted(work), alongside)
        finally:
            if self.settle is not None:
                self.settle()

    async def _run(self, game_id: str | None, work: Callable[[], T], alongside: bool) -> T:
        if game_id is None or alongside:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, contextvars.copy_context().run, work)
        lock, users = self._games.get(game_id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._games[game_id] = (lock, users + 1)
        try:
            async with lock:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(self._pool, contextvars.copy_context().run, work)
        finally:
            lock, users = self._games[game_id]
            if users == 1:
                del self._games[game_id]
            else:
                self._games[game_id] = (lock, users - 1)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _counted(work: Callable[[], T]) -> Callable[[], T]:
    """``work`` that adds the processor time of its thread to the request's count (``_SPENT``)."""
    def counted() -> T:
        started = time.thread_time()
        try:
            return work()
        finally:
            spent = _SPENT.get()
            if spent is not None:
                spent[0] += time.thread_time() - started
    return counted


class Moves:
    """The games this process changed, told at once to the ``/events`` streams that follow them (a
    change made by another server process sharing the database is seen at the stream's next read of
    the revision, within a second). The streams of a game woken by one change share one read of its
    revision."""

    def __init__(self, read: Callable[[str], int]):
        self._read = read
        self._told = 0  # the changes told so far, in every game
        self._waiting: dict[str, asyncio.Event] = {}
        self._reading: dict[str, tuple[int, asyncio.Future]] = {}  # game -> changes told when its read began, the read

    def moved(self, game_id: str) -> None:
        self._told += 1
        event = self._waiting.pop(game_id, None)
        if event is not None:
            event.set()

    def next(self, game_id: str) -> tuple[asyncio.Event, int]:
        """Set by the game's next change in this process, and the changes told so far: taken before the
        revision is read, so that a change between the read and the wait is not missed."""
        return self._waiting.setdefault(game_id, asyncio.Event()), self._told

    async def revision(self, game_id: str, told: int) -> int:
        """The game's revision, read after the first ``told`` changes (each told once it is written): a
        read begun since is shared."""
        kept = self._reading.get(game_id)
        if kept is None or kept[0] < told:
            kept = self._reading[game_id] = (self._told, asyncio.ensure_future(run_in_threadpool(self._read, game_id)))
            kept[1].add_done_callback(lambda _, k=kept: self._reading.pop(game_id) if self._reading.get(game_id) is k
                                      else None)
        return await asyncio.shield(kept[1])


class Makers:
    """The games made from each address in the last minute, bounded (``per_minute``; 0: no bound).
    Kept in this process: behind a proxy every game comes from the proxy's address."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        if isinstance(per_minute, bool) or not isinstance(per_minute, int) or per_minute < 0:
            raise UsageError(f"games_per_minute: give a whole number, 0 for no bound, not {per_minute!r}")
        self.per_minute = per_minute
        self.clock = clock
        self._made: dict[str, deque[float]] = {}

    def check(self, request: Request) -> None:
        """Counts a game made by the request's address, or TooMany when it has made its share."""
        if not self.per_minute:
            return
        now = self.clock()
        address = request.client.host if request.client else "?"
        for known in [a for a, times in self._made.items() if not times or times[-1] <= now - 60]:
            del self._made[known]
        times = self._made.setdefault(address, deque())
        while times and times[0] <= now - 60:
            times.popleft()
        if len(times) >= self.per_minute:
            raise TooMany(f"{len(times)} games were made from this address in the last minute (the limit is "
                          f"{self.per_minute}): wait a minute")
        times.append(now)


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or len(token) > 200:
        raise ServeError("Authorization: write 'Bearer TOKEN'")
    return token.strip()


async def _body(request: Request) -> dict:
    """The request's JSON object, read through the same guards as every other input."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_FILE_BYTES:
        raise TooLarge(f"the request is too large ({int(size):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > MAX_FILE_BYTES:
            raise TooLarge(f"the request is too large (more than {MAX_FILE_BYTES:,} bytes)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = load_json(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ServeError("the request is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ServeError(f"the request is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    except JsonRefused as exc:
        raise ServeError(f"the request: {exc}") from None
    if not isinstance(data, dict):
        raise ServeError("the request must be a JSON object")
    return data


def _known(data: dict, *keys: str) -> dict:
    """The request's object, refused when it holds a field the route does not read: a misspelt field
    (``deadlin``) would otherwise be ignored without a word."""
    unknown = sorted(k for k in data if k not in keys)
    if unknown:
        raise ServeError(f"unknown field {unknown[0][:40]!r}: this request reads "
                         + (", ".join(keys) if keys else "no field"))
    return data


def _field(data: dict, key: str, kind: type | tuple[type, ...], what: str, default: Any = None) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
        raise ServeError(f"{key}: give {what}")
    return value


def _lines(data: dict) -> list[str]:
    lines = data.get("lines", [])
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        raise ServeError("lines: give the order lines as a list of strings")
    return [x for x in lines if x.strip() and not x.lstrip().startswith("#")]


def _answer(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """A route whose refusals become JSON errors with their status, and whose failures a 500."""
    async def route(request: Request) -> Response:
        spent = [0.0]
        _SPENT.set(spent)
        response = await answered(request)
        if spent[0]:
            response.headers["Server-Timing"] = f"cpu;dur={1000 * spent[0]:.1f}"
        return response

    async def answered(request: Request) -> Response:
        try:
            result = await handler(request)
        except (ServeError, Unavailable) as exc:
            body = {"error": str(exc)}
            phase = getattr(exc, "phase", None)
            if phase is not None:
                body["phase"] = phase
            return JSONResponse(body, status_code=exc.status)
        except InputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except Exception as exc:  # noqa: BLE001 - a defect: said as such, never as a traceback
            log.error("internal error in %s %s: %s: %s", request.method, request.url.path, type(exc).__name__,
                      str(exc)[:300])
            return JSONResponse({"error": f"internal error ({type(exc).__name__}): this is a defect of fivedp, "
                                          "please report it"}, status_code=500)
        return result if isinstance(result, Response) else JSONResponse(result)
    return route


def make_app(db: Database | str, *, deadline_check: float | None = DEADLINE_CHECK_SECONDS, oliveriver: bool = False,
             client: str | Path | None = None, cors: tuple[str, ...] = (), time_limit: float = SERVE_TIME_LIMIT,
             memory_limit: int = SERVE_MEMORY_LIMIT, solvers: int = SOLVERS,
             games_per_minute: int = GAMES_PER_MINUTE, preset: str | None = None, settle: bool = False) -> Starlette:
    """The server's application on this database (a URL or a ``Database``). ``deadline_check``:
    seconds between looks at the deadlines (None: never, for tests that drive them). ``oliveriver``:
    the routes of the community's client too (``serve.oliveriver``), with its built files served at
    ``/client/`` from ``client`` and CORS allowed to the origins of ``cors``. ``time_limit`` (seconds)
    and ``memory_limit`` (MiB) bound each solver program; ``solvers`` the solving done at once;
    ``games_per_minute`` the games one address may make in a minute (0: no bound). ``preset``: the rules
    new games play under the options they give (``--preset``; through their client's routes
    ``oliveriver`` when None). ``settle``: after each solving job, what is alive is kept out of the
    cycle collector's full collections (``serve.memory``; ``fivedp serve`` does, for its own process)."""
    # the solver threads work side by side: rules of your own are ground apart in children of a
    # server of forks, never forked from this process of threads (solver/apart.py)
    fork_by_a_server()
    if (client is not None or cors) and not oliveriver:
        raise UsageError("make_app: client and cors are for the routes of oliveriver=True")
    games = Games(db if isinstance(db, Database) else Database(db), time_limit=time_limit, memory_limit=memory_limit)
    kept = LongLived() if settle else None
    pool = Solvers(solvers, None if kept is None else kept.settle)
    moves = Moves(games.revision)
    scheduler = Scheduler(games, pool, deadline_check or DEADLINE_CHECK_SECONDS, moved=moves.moved)
    makers = Makers(games_per_minute)

    def game_id(request: Request) -> str:
        return request.path_params["game_id"]

    def changing(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Any]]:
        """A route that may change its game: the game's ``/events`` streams look once it has answered."""
        async def changed(request: Request) -> Any:
            try:
                return await handler(request)
            finally:
                moves.moved(game_id(request))
        return changed

    async def create(request: Request) -> dict:
        data = _known(await _body(request), "options", "start", "rules", "deadline", "file")
        makers.check(request)
        deadline = _field(data, "deadline", int, "the seconds each phase may take")
        file = _field(data, "file", str, "a game file's text")
        if file is not None:
            if any(k in data for k in ("options", "start", "rules")):
                raise ServeError("a game file holds its options and start: give file alone (and a deadline)")
            game = await pool.run(None, lambda: uploaded_game(file, games))
        else:
            options = _field(data, "options", dict, "the rule options as an object", {})
            start = _field(data, "start", dict, "a start position as a scenario writes it")
            rules = _field(data, "rules", dict, "rules of your own as an object NAME: {text: ...}")
            if preset is not None and "preset" not in options:
                options = {"preset": preset, **options}
            game = await pool.run(None, lambda: game_from_start(options, start, rules))
        gid, token = await run_in_threadpool(games.create, game, deadline=deadline)
        return {"id": gid, "host_token": token, "play": f"/play/{gid}#token={token}", "join": f"/play/{gid}"}

    async def join(request: Request) -> dict:
        data = _known(await _body(request), "power")
        power = _field(data, "power", str, "a power's name")
        if power is None:
            raise ServeError("power: name the power to play")
        found, token = await run_in_threadpool(games.join, game_id(request), power)
        return {"power": found, "token": token, "play": f"/play/{game_id(request)}#token={token}"}

    preparing: set[str] = set()  # the games whose legal orders are being worked out ahead of the questions
    tasks: set[asyncio.Task] = set()  # those tasks, held until they end

    async def prepare_possible(gid: str) -> None:
        try:
            await pool.run(gid, lambda: games.prepare_possible(gid), alongside=True)
        except Exception as exc:  # noqa: BLE001 - only a head start: the first question works it out again
            log.info("game %s: legal orders not prepared ahead: %s", gid, type(exc).__name__)
        finally:
            preparing.discard(gid)

    async def view(request: Request) -> dict:
        token, gid = _token(request), game_id(request)
        doc = await pool.run(gid, lambda: games.view(gid, token))
        # a player (or the host) looking at a phase will ask for legal orders next: what those
        # questions share is worked out now, beside this answer, rather than inside the first one
        # (once per phase: the listing is kept before it is worked out, so that a phase whose rules of
        # its own grind until the time limit is not set grinding again by every look)
        server = doc["server"]
        if server["role"] != SPECTATOR and not server["finished"] and gid not in preparing \
                and not games.possible_kept(server["id"], doc["next"]["key"]):
            preparing.add(gid)
            tasks.add(task := asyncio.create_task(prepare_possible(gid)))
            task.add_done_callback(tasks.discard)
        return doc

    async def orders(request: Request) -> dict:
        data = _known(await _body(request), "lines", "phase", "replace", "force")
        token, lines = _token(request), _lines(data)
        phase = _field(data, "phase", str, "the phase key of the view")
        replace_all = _field(data, "replace", bool, "true or false", False)
        force = _field(data, "force", bool, "true or false", False)
        doc = await pool.run(game_id(request), lambda: games.submit(game_id(request), token, lines, phase=phase,
                                                                    replace_all=replace_all, force=force),
                             alongside=games.rules_free(game_id(request)))
        if doc["complete"]:
            scheduler.complete(game_id(request), phase)
        return doc

    async def check(request: Request) -> dict:
        data = _known(await _body(request), "lines")
        token, lines = _token(request), _lines(data)
        return await pool.run(game_id(request), lambda: games.check(game_id(request), token, lines),
                              alongside=games.rules_free(game_id(request)))

    async def withdraw(request: Request) -> dict:
        _known(dict(request.query_params), "phase")
        token = _token(request)
        return await run_in_threadpool(lambda: games.withdraw(game_id(request), token,
                                                              phase=request.query_params.get("phase")))

    async def adjudicate(request: Request) -> dict:
        data = _known(await _body(request), "phase")
        token, phase = _token(request), _field(data, "phase", str, "the phase key of the view")
        return await pool.run(game_id(request), lambda: games.adjudicate(game_id(request), token, phase=phase))

    async def undo(request: Request) -> dict:
        data = _known(await _body(request), "phase")
        token, phase = _token(request), _field(data, "phase", str, "the phase key of the view")
        return await pool.run(game_id(request), lambda: games.undo(game_id(request), token, phase=phase))

    async def history(request: Request) -> dict:
        return await run_in_threadpool(games.history, game_id(request), _token(request))

    async def possible(request: Request) -> dict:
        q = request.query_params
        _known(dict(q), "unit", "kind", "to")
        kinds, token = q.getlist("kind") or None, _token(request)
        return await pool.run(game_id(request), lambda: games.possible(game_id(request), token,
                                                                       unit=q.get("unit") or None, kind=kinds,
                                                                       to=q.get("to") or None))

    async def game_file(request: Request) -> Response:
        text = await run_in_threadpool(games.game_file, game_id(request), _token(request))
        return PlainTextResponse(text, media_type="application/yaml",
                                 headers={"Content-Disposition": f'attachment; filename="game-{game_id(request)}.yaml"'})

    async def picture(request: Request) -> Response:
        from .pages import picture_html

        token = _token(request)
        _known(dict(request.query_params), "recent")
        recent = request.query_params.get("recent")
        if recent is not None and not (recent.isdigit() and len(recent) <= 6):
            raise ServeError("recent: give how many of the last steps played to show, a whole number")

        def draw() -> str:
            with games._limits():  # the steps are replayed to be drawn: solving, within the limits
                return picture_html(games, game_id(request), token, None if recent is None else int(recent))

        html = await pool.run(game_id(request), draw)
        return HTMLResponse(html)

    async def revision(request: Request) -> dict:
        return {"revision": await run_in_threadpool(games.revision, game_id(request))}

    async def events(request: Request) -> Response:
        """Server-sent events: the game's revision whenever it changes (no secret in it), so that an
        open page fetches its view again."""
        gid = game_id(request)
        await run_in_threadpool(games.revision, gid)  # a game that does not exist is a 404 at once

        async def stream():
            last, began = None, time.monotonic()
            said = began  # when the stream last sent a line
            while not await request.is_disconnected() and time.monotonic() - began < EVENTS_SECONDS:
                moved, told = moves.next(gid)
                try:
                    now = await moves.revision(gid, told)
                except Unavailable:
                    now = last  # the page keeps what it has until the database answers again
                if now != last:
                    last, said = now, time.monotonic()
                    yield f"data: {now}\n\n"
                elif time.monotonic() - said >= HEARTBEAT_SECONDS:
                    said = time.monotonic()
                    yield ": still here\n\n"
                # a change by this process is told at once; one by another process sharing the
                # database at the next read, a second later
                try:
                    await asyncio.wait_for(moved.wait(), 1.0)
                except asyncio.TimeoutError:
                    pass

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def openapi(request: Request) -> dict:
        from .openapi import document

        return document()

    async def home(request: Request) -> Response:
        from .pages import home_page

        return HTMLResponse(home_page())

    async def play(request: Request) -> Response:
        from .pages import play_page

        return HTMLResponse(play_page(game_id(request)))

    routes = [
        Route("/", _answer(home), methods=["GET"]),
        Route("/play/{game_id}", _answer(play), methods=["GET"]),
        Route("/openapi.json", _answer(openapi), methods=["GET"]),
        Route("/api/games", _answer(create), methods=["POST"]),
        Route("/api/games/{game_id}", _answer(view), methods=["GET"]),
        Route("/api/games/{game_id}/players", _answer(changing(join)), methods=["POST"]),
        Route("/api/games/{game_id}/orders", _answer(changing(orders)), methods=["POST"]),
        Route("/api/games/{game_id}/orders", _answer(changing(withdraw)), methods=["DELETE"]),
        Route("/api/games/{game_id}/orders/check", _answer(check), methods=["POST"]),
        Route("/api/games/{game_id}/adjudicate", _answer(changing(adjudicate)), methods=["POST"]),
        Route("/api/games/{game_id}/undo", _answer(changing(undo)), methods=["POST"]),
        Route("/api/games/{game_id}/history", _answer(history), methods=["GET"]),
        Route("/api/games/{game_id}/possible", _answer(possible), methods=["GET"]),
        Route("/api/games/{game_id}/picture", _answer(picture), methods=["GET"]),
        Route("/api/games/{game_id}/file", _answer(game_file), methods=["GET"]),
        Route("/api/games/{game_id}/revision", _answer(revision), methods=["GET"]),
        Route("/api/games/{game_id}/events", _answer(events), methods=["GET"]),
    ]
    from .pages import asset_routes

    routes += asset_routes()  # the pages' scripts, styles and icon
    if oliveriver:
        from .oliveriver import routes as their_routes

        routes += their_routes(games, _body, client=None if client is None else Path(client), cors=tuple(cors),
                               solve=pool.run, made=makers.check, preset=preset)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        task = asyncio.create_task(scheduler.watch()) if deadline_check else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
            scheduler.close()
            for task in list(tasks):
                task.cancel()
            pool.close()
            games.db.close_idle()
            if kept is not None:
                kept.close()

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(SecurityHeaders)])
    app.state.games = games
    app.state.solvers = pool
    app.state.scheduler = scheduler
    app.state.moves = moves  # what tells the /events streams of a change at once
    return app


def uploaded_game(text: str, games: Games):
    """A game file uploaded to start a served game: read as any game file, naming only a map shipped
    with fivedp (never a file of the server's), and replayed against its record."""
    from ..files.verify import verify_game
    from ..model.map import shipped_maps_only

    with shipped_maps_only(), games._limits():
        game, _ = game_from_bytes(text.encode("utf-8"), "the uploaded game file")
        report = verify_game(game)
    if not report.honest:
        raise ServeError(report.summary("the uploaded game file"))
    return game


class Scheduler:
    """The adjudications done outside any request, each game's in a task of its own on the solver pool:
    a phase every power has submitted for (``complete``, handed over by the submission that completed
    it, which answers at once), and the phases past their deadline (``watch``, every ``every``
    seconds). One game has one such task at a time; a phase completed while its game's task runs is
    looked at again when that task ends. A due game whose adjudication failed (a step past the time
    limit, say) would fail again on the same game and hold a worker each time: it is tried again as
    soon as it changes (its revision), otherwise after twice as long as the last time (``every`` ×
    2, 4, … 2 ** BACKOFF_DOUBLINGS)."""

    def __init__(self, games: Games, solvers: Solvers, every: float = DEADLINE_CHECK_SECONDS,
                 moved: Callable[[str], None] = lambda game_id: None):
        self.games, self.solvers, self.every, self.moved = games, solvers, every, moved
        self._running: dict[str, asyncio.Task] = {}
        self._again: dict[str, str] = {}  # game -> the phase completed while its task was running
        self._failed: dict[str, tuple[int, int, float]] = {}  # due game -> revision when tried, failures, next try

    def adjudicating(self) -> tuple[str, ...]:
        """The games whose adjudication is under way or waiting for a worker."""
        return tuple(sorted(self._running))

    def complete(self, gid: str, phase: str) -> None:
        """The game's phase ``phase`` has every submission it waits for: adjudicated now, in a task
        of its own (from the event loop)."""
        if gid in self._running:
            self._again[gid] = phase
            return
        self._running[gid] = asyncio.create_task(self._complete(gid, phase))

    async def _complete(self, gid: str, phase: str) -> None:
        try:
            for attempt in range(COMPLETE_TRIES):
                try:
                    await self.solvers.run(gid, lambda: self.games.adjudicate_complete(gid, phase))
                    break
                except Stale:  # the orders kept changing while it was worked out: once more, a moment later
                    await asyncio.sleep(0.05 * 2 ** attempt)
            else:
                log.error("game %s: its orders kept changing while its complete phase was adjudicated; "
                          "left to its next submission, its deadline or its host", gid)
        except asyncio.CancelledError:
            self._again.pop(gid, None)
            raise
        except Exception as exc:  # noqa: BLE001 - the failure is logged without input; the host's adjudicate says it
            log.error("complete phase of game %s: %s: %s", gid, type(exc).__name__, str(exc)[:300])
        finally:
            self._ended(gid)

    def _ended(self, gid: str) -> None:
        self._running.pop(gid, None)
        self.moved(gid)  # adjudicated, or not: the game's streams look
        again = self._again.pop(gid, None)
        if again is not None:
            self.complete(gid, again)

    async def _due(self, gid: str, revision: int) -> None:
        try:
            await self.solvers.run(gid, lambda: self.games.adjudicate_due(gid))
            self._failed.pop(gid, None)
        except asyncio.CancelledError:
            self._again.pop(gid, None)
            raise
        except Exception as exc:  # noqa: BLE001 - the failure is logged without input; tried again later
            log.error("deadline of game %s: %s: %s", gid, type(exc).__name__, str(exc)[:300])
            times = self._failed[gid][1] + 1 if gid in self._failed else 1
            self._failed[gid] = (revision, times, asyncio.get_running_loop().time()
                                 + self.every * 2 ** min(times, BACKOFF_DOUBLINGS))
        finally:
            self._ended(gid)

    async def watch(self) -> None:
        """Every ``every`` seconds, the games past their deadline adjudicated, each in a task of its own.
        First, every game with private orders waiting is looked at once: a server stopped between a
        phase's last submission and its adjudication left it complete, and nothing else would hand it over."""
        loop = asyncio.get_running_loop()
        failed = self._failed
        try:
            for gid, phase in await run_in_threadpool(self.games.waiting):
                self.complete(gid, phase)
        except Exception as exc:  # noqa: BLE001 - the deadlines are watched all the same; logged without input
            log.error("the look at the games waiting failed: %s: %s", type(exc).__name__, str(exc)[:300])
        while True:
            await asyncio.sleep(self.every)
            try:
                due = await run_in_threadpool(self.games.due)
                waiting = [gid for gid in due if gid not in self._running]
                now = await run_in_threadpool(lambda: {gid: self.games.revision(gid) for gid in waiting})
            except Exception as exc:  # noqa: BLE001 - the loop goes on; the failure is logged without input
                log.error("deadline check failed: %s: %s", type(exc).__name__, str(exc)[:300])
                continue
            for gid in [g for g in failed if g not in due]:
                del failed[gid]
            for gid, revision in now.items():
                if gid in self._running:
                    continue
                if gid in failed and failed[gid][0] == revision and loop.time() < failed[gid][2]:
                    continue  # failed on this very game not long ago
                if gid in failed and failed[gid][0] != revision:
                    del failed[gid]  # it changed: tried afresh
                self._running[gid] = asyncio.create_task(self._due(gid, revision))

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()


async def _deadlines(games: Games, every: float, solvers: Solvers | None = None) -> None:
    """The games whose phase is past its deadline adjudicated every ``every`` seconds (``Scheduler.watch``)."""
    own = solvers is None
    scheduler = Scheduler(games, solvers or Solvers(SOLVERS), every)
    try:
        await scheduler.watch()
    finally:
        scheduler.close()
        if own:
            scheduler.solvers.close()
