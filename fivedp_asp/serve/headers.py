"""The security headers of every response of ``fivedp serve``: a Content-Security-Policy (with
``frame-ancestors 'none'``: no other site may frame a page, so none can dress it up to be clicked),
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``.

A page's policy allows exactly its own inline scripts and styles, each by its SHA-256 digest,
worked out from the page as sent, and fetches from this server only. The table draws the picture in a
frame from ``srcdoc``, which lives under the table's policy: the table's policy also allows the
picture's script and style (``report.render_assets``), and nothing else. Any other answer (JSON,
text, a file) may run and load nothing. The built client of ``--oliveriver`` (under ``/client/``),
whose build is not ours, may load its own files from this server, and its styles inline.
"""

from __future__ import annotations

import base64
import hashlib
import re
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


def _picture_sources() -> tuple[list[str], list[str]]:
    from ..report.render_assets import CSS, SCRIPT

    return [SCRIPT], [CSS]


def page_policy(html: str) -> str:
    """The policy of one HTML page: its inline scripts, style elements and style attributes allowed
    by digest (and the picture's, which a table draws in a ``srcdoc`` frame), fetches from this
    server, nothing else."""
    scripts, styles = _picture_sources()
    scripts = scripts + _SCRIPT.findall(html)
    styles = styles + _STYLE.findall(html)
    attributes = _STYLE_ATTRIBUTE.findall(html)
    script_src = " ".join(dict.fromkeys(_digest(s) for s in scripts))
    style_src = " ".join(dict.fromkeys([_digest(s) for s in styles] + [_digest(a) for a in attributes]))
    if attributes:
        style_src += " 'unsafe-hashes'"
    return (f"default-src 'none'; script-src {script_src}; style-src {style_src}; connect-src 'self'; "
            "img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


class SecurityHeaders:
    """ASGI middleware: the headers above on every response, the policy of an HTML page worked out
    from its body (such a page is sent whole, in one piece)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        their_client = scope.get("path", "").startswith("/client")
        start: dict[str, Any] | None = None

        async def sending(message: dict) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-security-policy", b"x-content-type-options",
                                                b"referrer-policy", b"x-frame-options")]
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"x-frame-options", b"DENY")]
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
                    policy = page_policy(body.decode("utf-8", errors="replace"))
                first = {**start, "headers": start["headers"] + [(b"content-security-policy", policy.encode("ascii"))]}
                start = None
                await send(first)
            await send(message)

        await self.app(scope, receive, sending)
