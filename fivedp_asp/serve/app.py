"""The HTTP side of ``fivedp serve``: a Starlette application over ``serve.store``.

JSON over HTTP mirrors the library API (docs/server.md; ``GET /openapi.json``), tokens as
``Authorization: Bearer TOKEN``. Pages for the browser (``/``, ``/play/{id}``) carry a token in the
address's fragment (``#token=...``), which browsers never send to a server: no token reaches a
request line, so none reaches an access log. Every refusal is a JSON ``{"error": ...}`` with an HTTP
status (400 bad input, 401 no or a wrong token, 403 a role that may not, 404 no such game, 409 a
phase no longer waiting, 413 too large); an unexpected failure is a 500 with a message that says so,
never a traceback.

Solving runs in worker threads, so that a long adjudication does not hold up other games' requests;
a task checks the deadlines every few seconds (every server process does: the transaction decides
which one adjudicates).
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from ..errors import InputError, UsageError
from ..files.games import game_from_bytes
from ..files.layout import JsonRefused, load_json
from ..limits import MAX_FILE_BYTES
from .database import Database
from .store import Games, ServeError, game_from_start

log = logging.getLogger("fivedp.serve")
DEADLINE_CHECK_SECONDS = 5.0


class TooLarge(ServeError):
    status = 413


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
        try:
            result = await handler(request)
        except ServeError as exc:
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
             client: str | Path | None = None, cors: tuple[str, ...] = ()) -> Starlette:
    """The server's application on this database (a URL or a ``Database``). ``deadline_check``:
    seconds between looks at the deadlines (None: never, for tests that drive them). ``oliveriver``:
    the routes of the community's client too (``serve.oliveriver``), with its built files served at
    ``/client/`` from ``client`` and CORS allowed to the origins of ``cors``."""
    if (client is not None or cors) and not oliveriver:
        raise UsageError("make_app: client and cors are for the routes of oliveriver=True")
    games = Games(db if isinstance(db, Database) else Database(db))

    def game_id(request: Request) -> str:
        return request.path_params["game_id"]

    async def create(request: Request) -> dict:
        data = await _body(request)
        deadline = _field(data, "deadline", int, "the seconds each phase may take")
        file = _field(data, "file", str, "a game file's text")
        if file is not None:
            if any(k in data for k in ("options", "start", "rules")):
                raise ServeError("a game file holds its options and start: give file alone (and a deadline)")
            game, _ = await run_in_threadpool(game_from_bytes, file.encode("utf-8"), "the uploaded game file")
            from ..files.verify import verify_game

            report = await run_in_threadpool(verify_game, game)
            if not report.honest:
                raise ServeError(report.summary("the uploaded game file"))
        else:
            options = _field(data, "options", dict, "the rule options as an object", {})
            start = _field(data, "start", dict, "a start position as a scenario writes it")
            rules = _field(data, "rules", dict, "rules of your own as an object NAME: {text: ...}")
            game = await run_in_threadpool(game_from_start, options, start, rules)
        gid, token = await run_in_threadpool(games.create, game, deadline=deadline)
        return {"id": gid, "host_token": token, "play": f"/play/{gid}#token={token}", "join": f"/play/{gid}"}

    async def join(request: Request) -> dict:
        data = await _body(request)
        power = _field(data, "power", str, "a power's name")
        if power is None:
            raise ServeError("power: name the power to play")
        found, token = await run_in_threadpool(games.join, game_id(request), power)
        return {"power": found, "token": token, "play": f"/play/{game_id(request)}#token={token}"}

    async def view(request: Request) -> dict:
        return await run_in_threadpool(games.view, game_id(request), _token(request))

    async def orders(request: Request) -> dict:
        data = await _body(request)
        return await run_in_threadpool(
            lambda: games.submit(game_id(request), _token(request), _lines(data),
                                 phase=_field(data, "phase", str, "the phase key of the view"),
                                 replace_all=_field(data, "replace", bool, "true or false", False),
                                 force=_field(data, "force", bool, "true or false", False)))

    async def check(request: Request) -> dict:
        data = await _body(request)
        return await run_in_threadpool(games.check, game_id(request), _token(request), _lines(data))

    async def withdraw(request: Request) -> dict:
        return await run_in_threadpool(lambda: games.withdraw(game_id(request), _token(request),
                                                              phase=request.query_params.get("phase")))

    async def adjudicate(request: Request) -> dict:
        data = await _body(request)
        return await run_in_threadpool(lambda: games.adjudicate(
            game_id(request), _token(request), phase=_field(data, "phase", str, "the phase key of the view")))

    async def undo(request: Request) -> dict:
        data = await _body(request)
        return await run_in_threadpool(lambda: games.undo(
            game_id(request), _token(request), phase=_field(data, "phase", str, "the phase key of the view")))

    async def history(request: Request) -> dict:
        return await run_in_threadpool(games.history, game_id(request), _token(request))

    async def possible(request: Request) -> dict:
        q = request.query_params
        kinds = q.getlist("kind") or None
        return await run_in_threadpool(lambda: games.possible(game_id(request), _token(request),
                                                              unit=q.get("unit") or None, kind=kinds,
                                                              to=q.get("to") or None))

    async def game_file(request: Request) -> Response:
        text = await run_in_threadpool(games.game_file, game_id(request), _token(request))
        return PlainTextResponse(text, media_type="application/yaml",
                                 headers={"Content-Disposition": f'attachment; filename="game-{game_id(request)}.yaml"'})

    async def picture(request: Request) -> Response:
        from .pages import picture_html

        html = await run_in_threadpool(picture_html, games, game_id(request), _token(request))
        return HTMLResponse(html)

    async def revision(request: Request) -> dict:
        return {"revision": await run_in_threadpool(games.revision, game_id(request))}

    async def events(request: Request) -> Response:
        """Server-sent events: the game's revision whenever it changes (no secret in it), so that an
        open page fetches its view again."""
        gid = game_id(request)
        first = await run_in_threadpool(games.revision, gid)

        async def stream():
            last = None
            while not await request.is_disconnected():
                now = await run_in_threadpool(games.revision, gid)
                if now != last:
                    last = now
                    yield f"data: {now}\n\n"
                await asyncio.sleep(1.0)

        del first
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
        Route("/api/games/{game_id}/players", _answer(join), methods=["POST"]),
        Route("/api/games/{game_id}/orders", _answer(orders), methods=["POST"]),
        Route("/api/games/{game_id}/orders", _answer(withdraw), methods=["DELETE"]),
        Route("/api/games/{game_id}/orders/check", _answer(check), methods=["POST"]),
        Route("/api/games/{game_id}/adjudicate", _answer(adjudicate), methods=["POST"]),
        Route("/api/games/{game_id}/undo", _answer(undo), methods=["POST"]),
        Route("/api/games/{game_id}/history", _answer(history), methods=["GET"]),
        Route("/api/games/{game_id}/possible", _answer(possible), methods=["GET"]),
        Route("/api/games/{game_id}/picture", _answer(picture), methods=["GET"]),
        Route("/api/games/{game_id}/file", _answer(game_file), methods=["GET"]),
        Route("/api/games/{game_id}/revision", _answer(revision), methods=["GET"]),
        Route("/api/games/{game_id}/events", _answer(events), methods=["GET"]),
    ]
    if oliveriver:
        from .oliveriver import routes as their_routes

        routes += their_routes(games, _body, client=None if client is None else Path(client), cors=tuple(cors))

    @asynccontextmanager
    async def lifespan(app: Starlette):
        task = asyncio.create_task(_deadlines(games, deadline_check)) if deadline_check else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.games = games
    return app


async def _deadlines(games: Games, every: float) -> None:
    """Adjudicates the games whose phase is past its deadline, every ``every`` seconds."""
    while True:
        await asyncio.sleep(every)
        try:
            for gid in await run_in_threadpool(games.due):
                await run_in_threadpool(games.adjudicate_due, gid)
        except Exception as exc:  # noqa: BLE001 - the loop goes on; the failure is logged without input
            log.error("deadline check failed: %s: %s", type(exc).__name__, str(exc)[:300])
