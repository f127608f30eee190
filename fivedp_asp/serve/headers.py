"""The security headers of every response of ``fivedp serve``: a Content-Security-Policy (with
``frame-ancestors 'none'``: no other site may frame a page, so none can dress it up to be clicked),
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``.

A page's policy allows the scripts and styles this server serves as files (``'self'``: the pages'
own, under ``/static/``) and exactly the page's own inline scripts and styles, each by its SHA-256
digest, worked out from the page as sent (the home page and the table have none; a picture of a game
opened alone holds its view's script and style inline), and fetches from this server only. The one
page that may be framed, by a page of this server only, is the frame the table draws its picture
in (``FRAMED``). Any other answer (JSON, text, a file) may run and load nothing. The built client of
``--oliveriver`` (under ``/client/``), whose build is not ours, may load its own files from this
server, and its styles inline.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections import OrderedDict
from typing import Any, Awaitable, Callable

NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
THEIR_CLIENT = ("default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                "frame-ancestors 'none'; base-uri 'self'; form-action 'self'")
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
_STYLE_ATTRIBUTE = re.compile(r'\sstyle="([^"]*)"')

Scope = dict
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


FRAMED = "/static/picture.html"  # the table's picture frame: framed by this server's pages only


def page_policy(html: str, framed: bool = False) -> str:
    """The policy of one HTML page: this server's script and style files, its inline scripts, style
    elements and style attributes allowed by digest, fetches from this server, nothing else;
    ``framed``: the page may be framed by a page of this server (else by none)."""
    scripts, styles = _SCRIPT.findall(html), _STYLE.findall(html)
    attributes = _STYLE_ATTRIBUTE.findall(html)
    script_src = " ".join(["'self'", *dict.fromkeys(_digest(s) for s in scripts)])
    style_src = " ".join(["'self'", *dict.fromkeys([_digest(s) for s in styles] + [_digest(a) for a in attributes])])
    if attributes:
        style_src += " 'unsafe-hashes'"
    ancestors = "'self'" if framed else "'none'"
    return (f"default-src 'none'; script-src {script_src}; style-src {style_src}; connect-src 'self'; "
            f"img-src 'self' data:; frame-src 'self'; frame-ancestors {ancestors}; base-uri 'none'; form-action 'self'")


class SecurityHeaders:
    """ASGI middleware: the headers above on every response, the policy of an HTML page worked out
    from its body (such a page is sent whole, in one piece). The policies of the last pages sent are
    kept by their body's digest: a game's picture, megabytes long, is sent again and again to its
    players as it is, and reading it for its scripts and styles took the event loop a tenth of a
    second each time."""

    KEPT = 32  # the policies kept, of as many pages

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]):
        self.app = app
        self._policies: OrderedDict[tuple[bytes, bool], str] = OrderedDict()

    def policy(self, body: bytes, framed: bool) -> str:
        """``page_policy`` of a page sent whole, kept by its digest."""
        key = (hashlib.sha256(body).digest(), framed)
        found = self._policies.get(key)
        if found is None:
            found = self._policies[key] = page_policy(body.decode("utf-8", errors="replace"), framed)
            while len(self._policies) > self.KEPT:
                self._policies.popitem(last=False)
        else:
            self._policies.move_to_end(key)
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        their_client = scope.get("path", "").startswith("/client")
        framed = scope.get("path", "") == FRAMED
        start: dict[str, Any] | None = None

        async def sending(message: dict) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-security-policy", b"x-content-type-options",
                                                b"referrer-policy", b"x-frame-options")]
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"x-frame-options", b"SAMEORIGIN" if framed else b"DENY")]
                message = {**message, "headers": headers}
                html = any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)
                if html and not their_client:
                    start = message  # held until the body is known
                    return
                policy = THEIR_CLIENT if their_client else NOTHING
                message["headers"] = headers + [(b"content-security-policy", policy.encode("ascii"))]
                await send(message)
                return
            if start is not None and message["type"] == "http.response.body":
                body = message.get("body", b"")
                if message.get("more_body", False):
                    # never happens for the pages here; such a page gets the strictest policy
                    policy = NOTHING
                else:
                    policy = self.policy(body, framed)
                first = {**start, "headers": start["headers"] + [(b"content-security-policy", policy.encode("ascii"))]}
                start = None
                await send(first)
            await send(message)

        await self.app(scope, receive, sending)
