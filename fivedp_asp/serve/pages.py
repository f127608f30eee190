"""The pages of ``fivedp serve`` for a browser: the home page (start a game, open one), the table
(``/play/{id}``: the multiverse drawn, the orders given with a verdict per line, the To-do, who has
submitted, the deadline, the steps played with their results) and the picture of a game as one
viewer may see it.

Every script, style and the icon a page needs is served by fivedp itself from ``static/``
(``/static/NAME``, ``/favicon.ico``), never from elsewhere, so a table works on a network without the
internet; no page holds an inline script or style, so they run under a Content-Security-Policy of
``script-src 'self'; style-src 'self'``. The token stays in the address's fragment (``#token=...``)
and goes to the server only in an ``Authorization`` header. Text from the server is put into the
page as text (``textContent``), never as markup; the picture is drawn in a frame without the page's
origin (``sandbox``), to which the page posts the picture's text and never the token.
"""

from __future__ import annotations

import html
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.responses import Response
from starlette.routing import Route

if TYPE_CHECKING:
    from .store import Games

_FRAMES: OrderedDict[tuple[str, int], list] = OrderedDict()
_FRAMES_LOCK = threading.Lock()
REPLAYED_STEPS = 60  # up to this many steps a picture replays every step; past it, boards as recorded


def picture_html(games: "Games", game_id: str, token: str | None) -> str:
    """The game drawn as ``fivedp game show --html`` draws it, with the orders the token's holder may
    see: a player its own waiting orders, the host and spectators none. The steps played are drawn
    once per step and kept (replaying a game costs a step's adjudication per step); past
    ``REPLAYED_STEPS`` steps they are the boards as recorded."""
    from dataclasses import replace

    from ..report.render import game_pictures, game_steps, page

    game, role, sealed = games.snapshot(game_id, token)
    title = f"Game {game_id}"
    key = (game_id, len(game.history), hash(str(game.history[-1])) if game.history else 0)
    with _FRAMES_LOCK:
        steps = _FRAMES.get(key)
    if steps is None:
        steps = game_steps(game, title, REPLAYED_STEPS)
        with _FRAMES_LOCK:
            _FRAMES[key] = steps
            while len(_FRAMES) > 16:
                _FRAMES.popitem(last=False)
    own = {role.power: list(sealed.orders[role.power])} if role.power in sealed.orders else {}
    return page(title, game_pictures(replace(game, pending=own), title, steps))


_HOME = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>fivedp: 5D Diplomacy tables</title><link rel="stylesheet" href="/static/table.css"></head><body>
<header><h1>fivedp: 5D Diplomacy with Multiversal Time Travel</h1></header>
<main class="home">
<section><h2>Start a game</h2>
<form id="new">
<p><label>adjacency <select name="adjacency"><option>family</option><option>any</option></select></label>
<label>victory <select name="victory"><option>elimination</option><option>majority</option><option>unique</option></select></label>
<label><input type="checkbox" name="sustain"> sustain phase</label></p>
<p><label>deadline per phase, in minutes (empty: none) <input name="deadline" type="number" min="1" class="minutes"></label></p>
<p><button type="submit">Start</button></p></form>
<p id="made" class="muted">You become the host: you get the host's link. Players join from the game's page.</p></section>
<section><h2>Start from a game file</h2><input type="file" id="file" accept=".yaml,.yml">
<button type="button" id="upload">Upload</button></section>
<section><h2>Open a game</h2><form id="open"><input name="id" placeholder="game id" required>
<button type="submit">Open</button></form></section>
</main>
<script src="/static/home.js"></script></body></html>"""

_PLAY = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>fivedp game {game}</title><link rel="stylesheet" href="/static/table.css"></head><body data-game="{game}">
<header><h1>Game {game}</h1><span class="role" id="role"></span><span id="phase"></span>
<span class="deadline" id="deadline"></span></header>
<main><iframe id="picture" title="the multiverse" sandbox="allow-scripts" src="/static/picture.html"></iframe>
<aside>
<section id="join" hidden><h2>Join this game</h2><p>Play as <select id="power"></select>
<button type="button" id="joinbtn">Join</button></p>
<p class="muted">Keep the link the page moves to: it is your only way back in as that power.</p></section>
<section id="link" hidden><h2>Your link</h2><p class="muted" id="linkwhat">Bookmark it; anyone with it plays as you.</p>
<input id="mylink" class="link" readonly>
<div id="share" hidden><p>This link is the host's: keep it to yourself. Whoever opens it is the host, and may
adjudicate, undo and download the game. Give the players the game's own link instead; each chooses a power there:</p>
<input id="joinlink" class="link" readonly></div></section>
<section id="todo"><h2>To do</h2><p id="nothing" class="nothing" hidden></p><ul id="duties"></ul>
<div class="units" id="units"></div>
<p id="hint" class="muted" hidden>Click a unit (or a board's builds) for the orders the rules accept, then an order to put it
in your orders: it replaces that unit's earlier line.</p>
<ul class="possible" id="possible"></ul></section>
<section id="ordersbox" hidden><h2>Your orders</h2>
<textarea id="orders" spellcheck="false" aria-label="your orders, one per line"></textarea>
<div class="actions"><button type="button" id="check">Check</button><button type="button" id="submit">Submit</button>
<button type="button" id="withdraw">Withdraw</button><span id="verdict" role="status"></span></div>
<ul id="verdicts"></ul></section>
<section><h2>Submitted</h2><p id="submitted" class="muted"></p></section>
<section id="hostbox" hidden><h2>Host</h2>
<button type="button" id="adjudicate">Adjudicate now</button><button type="button" id="undo">Undo last step</button>
<button type="button" id="download">Download the game file</button><p id="players" class="muted"></p></section>
<section><h2>Steps played</h2><div id="steps"><p class="muted">none yet</p></div></section>
<p id="message" class="error" role="status"></p>
</aside></main>
<script src="/static/table.js"></script></body></html>"""

STATIC = Path(__file__).parent / "static"
# the files served under /static/, by name: nothing else under that address is ever read
_FILES = {"table.css": "text/css", "home.js": "text/javascript", "table.js": "text/javascript",
          "picture.html": "text/html", "picture.js": "text/javascript"}


def home_page() -> str:
    return _HOME


def play_page(game_id: str) -> str:
    return _PLAY.format(game=html.escape(game_id, quote=True))


def asset(name: str) -> tuple[bytes, str] | None:
    """A file of the pages by its name under ``/static/`` and its media type, or None: the files of
    ``static/`` listed in ``_FILES``, and the multiverse view's own script and style
    (``report.render_assets``: the same text a picture file holds inline)."""
    from ..report.render_assets import CSS, SCRIPT

    if name == "view.js":
        return SCRIPT.encode("utf-8"), "text/javascript"
    if name == "view.css":
        return CSS.encode("utf-8"), "text/css"
    kind = _FILES.get(name)
    if kind is None:
        return None
    return (STATIC / name).read_bytes(), kind


def asset_routes() -> list[Route]:
    """``/static/{name}`` and ``/favicon.ico``; any other name is a 404."""
    async def static(request) -> Response:
        found = asset(request.path_params["name"])
        if found is None:
            return Response("no such file", status_code=404, media_type="text/plain")
        body, kind = found
        return Response(body, media_type=kind, headers={"Cache-Control": "no-cache"})

    async def favicon(request) -> Response:
        return Response((STATIC / "favicon.ico").read_bytes(), media_type="image/x-icon",
                        headers={"Cache-Control": "max-age=86400"})

    return [Route("/static/{name}", static, methods=["GET"]), Route("/favicon.ico", favicon, methods=["GET"])]
