"""The pages' own files: every script and style of the home page and the table is a file the server
serves (nothing inline, which a Content-Security-Policy of ``script-src 'self'; style-src 'self'``
would block), ``/static/`` serves those files by name and nothing else, and ``/favicon.ico`` is an
icon of our own. The pages at work in a browser, under such a policy: tests/serve/test_browser.py."""

from __future__ import annotations

import re
import struct

import pytest

from fivedp_asp.report.render_assets import CSS, SCRIPT
from tests.serve.conftest import new_table


def _inline(page: str) -> list[str]:
    """What a strict policy would refuse in a page: scripts without ``src``, style elements, style
    attributes, event-handler attributes, ``javascript:`` addresses."""
    found = [m.group(0) for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>", page)]
    found += re.findall(r"<style\b", page) + re.findall(r"\sstyle=", page)
    found += re.findall(r"\son[a-z]+=", page) + re.findall(r"javascript:", page, re.IGNORECASE)
    return found


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_pages_hold_no_inline_script_or_style_and_their_files_are_served(client):
    table = new_table(client)
    pages = {"/": client.get("/"), f"/play/{table.id}": client.get(f"/play/{table.id}"),
             "/static/picture.html": client.get("/static/picture.html")}
    for path, r in pages.items():
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
        assert _inline(r.text) == [], path
        for ref in re.findall(r'(?:src|href)="(/[^"]*)"', r.text):
            got = client.get(ref)
            assert got.status_code == 200 and got.content, (path, ref)
    # the view's script and style are the text a picture file holds inline, served as files
    assert client.get("/static/view.js").text == SCRIPT
    assert client.get("/static/view.css").text == CSS
    assert client.get("/static/table.js").headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("name", ["../app.py", "..%2Fapp.py", "store.py", "favicon.svg", "", "%2e%2e%2fpages.py",
                                  "table.js.bak", "TABLE.JS"])
def test_static_serves_its_files_by_name_and_nothing_else(client, name):
    r = client.get(f"/static/{name}")
    assert r.status_code == 404
    assert b"import" not in r.content


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_favicon_is_an_icon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    reserved, kind, count = struct.unpack("<HHH", r.content[:6])
    assert (reserved, kind) == (0, 1) and count >= 1
    sizes = []
    for i in range(count):
        width, _, _, _, _, _, size, offset = struct.unpack("<BBBBHHII", r.content[6 + 16 * i:22 + 16 * i])
        assert r.content[offset:offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + size <= len(r.content)
        sizes.append(width)
    assert 16 in sizes and 32 in sizes


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_picture_after_an_undo_and_another_move_draws_the_move_played(client):
    # the server keeps a game's drawn steps: a step taken back and played otherwise must be drawn anew
    from tests.serve.conftest import TWO_POWERS

    table = new_table(client, {"start": TWO_POWERS})
    table.join("France"), table.join("Germany")
    key = table.key()
    assert table.orders("Germany", phase=key).status_code == 200
    assert table.orders("France", "A Par - Pic", phase=key).json()["complete"]
    table.next_phase(key)
    assert "A a-Par@0 - a-Pic@0" in table.get("/picture").text
    assert table.post("/undo", {"phase": table.key()}, "host").status_code == 200
    key = table.key()
    assert table.orders("France", "A Par - Bur", phase=key, replace=True).json()["complete"]
    table.next_phase(key)
    drawn = table.get("/picture").text
    assert "A a-Par@0 - a-Bur@0" in drawn and "a-Pic@0" not in drawn


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_picture_of_the_recent_steps(client):
    from tests.serve.conftest import TWO_POWERS

    table = new_table(client, {"start": TWO_POWERS})
    table.join("France"), table.join("Germany")
    for france in ("A Par - Pic", "A Pic - Bel"):
        key = table.key()
        table.orders("Germany", phase=key)
        assert table.orders("France", france, phase=key).json()["complete"]
        table.next_phase(key)
    every = table.get("/picture").text
    assert 'data-played="1"' in every and 'data-played="2"' in every
    last = table.get("/picture", params={"recent": "1"}).text
    assert 'data-played="2"' in last and 'data-played="1"' not in last and "A a-Pic@1 - a-Bel@1" in last
    assert "A a-Par@0 - a-Pic@0" not in last
    now = table.get("/picture", params={"recent": "0"}).text
    assert "data-played" not in now and "a2" in now
    for bad in ("-1", "x", "1.5", "9999999"):
        r = table.get("/picture", params={"recent": bad})
        assert r.status_code == 400 and "recent" in r.json()["error"]
