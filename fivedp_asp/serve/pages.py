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
origin (``sandbox``), to which the page hands the picture's bytes and never the token.
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

_STEPS: OrderedDict[str, tuple[tuple[str, ...], list]] = OrderedDict()  # game → its steps' digests, their frames
_PAGES: OrderedDict[tuple, str] = OrderedDict()  # (game, steps' digests, viewer's power, its orders) → the page
_DRAWING: dict[str, threading.Lock] = {}  # one drawing of a game at a time: the others wait for it
_LOCK = threading.Lock()
REPLAYED_STEPS = 60  # up to this many steps a picture replays every step; past it, boards as recorded
TABLE_STEPS = 10  # the steps played the table's picture shows (the steps list beside it holds them all)
KEPT_GAMES, KEPT_PAGE_CHARS = 16, 64_000_000  # the games whose steps are kept; the pages' size kept


def _digests(history) -> tuple[str, ...]:
    """One digest per step played, of everything the history records of it: two games share their
    first n digests only when they played the same first n steps."""
    import hashlib
    import json

    return tuple(hashlib.sha256(json.dumps(h, sort_keys=True, default=str).encode("utf-8")).hexdigest()
                 for h in history)


def picture_html(games: "Games", game_id: str, token: str | None, recent: int | None = None) -> str:
    """The game drawn as ``fivedp game show --html`` draws it, with the orders the token's holder may
    see: a player its own waiting orders, the host and spectators none. The steps played are drawn
    once and kept per game: a new step replays that step alone, from the multiverse the steps kept
    end in; a step taken back keeps the frames before it; past ``REPLAYED_STEPS`` steps they are the
    boards as recorded. The page itself is kept per viewer's orders until the game moves on, so that
    the players who open it after the first get it at once, and while one request draws a game the
    others wait for that drawing instead of drawing it again. ``recent``: only the last that many
    steps played are shown (the table asks for ``TABLE_STEPS``: a big game's every step is too much
    for a browser to draw quickly), the game as it stands always."""
    from dataclasses import replace

    from ..report.render import game_pictures, game_steps, page

    game, role, sealed = games.snapshot(game_id, token)
    title = f"Game {game_id}"
    digests = _digests(game.history)
    own = {role.power: list(sealed.orders[role.power])} if role.power in sealed.orders else {}
    if recent is not None and (isinstance(recent, bool) or not isinstance(recent, int) or recent < 0):
        raise ValueError(f"picture_html: recent must be a count of steps, not {recent!r}")
    key = (game_id, digests, role.power, tuple(own.get(role.power, ())), recent)
    with _LOCK:
        drawing = _DRAWING.setdefault(game_id, threading.Lock())
    with drawing:
        with _LOCK:
            found = _PAGES.get(key)
            kept = _STEPS.get(game_id)
        if found is not None:
            return found
        known = None
        if kept is not None:
            # the longest run of first steps the kept frames share with the game
            same = 0
            for old, new in zip(kept[0], digests):
                if old != new:
                    break
                same += 1
            known = kept[1][:same] if len(kept[1]) == len(kept[0]) else None
        if known is not None and len(known) == len(digests):
            steps = known
        else:
            steps = game_steps(game, title, REPLAYED_STEPS, known=known or None)
        shown = steps if recent is None else steps[len(steps) - recent:] if recent else []
        html_page = page(title, game_pictures(replace(game, pending=own), title, shown))
        with _LOCK:
            _STEPS[game_id] = (digests, steps)
            _STEPS.move_to_end(game_id)
            for old in [k for k in _PAGES if k[0] == game_id and k[1] != digests]:
                del _PAGES[old]  # a page of a position the game has left
            _PAGES[key] = html_page
            while len(_STEPS) > KEPT_GAMES:
                gone, _ = _STEPS.popitem(last=False)
                _DRAWING.pop(gone, None)
            while len(_PAGES) > 1 and sum(len(v) for v in _PAGES.values()) > KEPT_PAGE_CHARS:
                _PAGES.popitem(last=False)
        return html_page


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
<title>fivedp game {game}</title><link rel="stylesheet" href="/static/table.css"></head><body data-game="{game}" data-recent="{recent}">
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
    return _PLAY.format(game=html.escape(game_id, quote=True), recent=TABLE_STEPS)


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
