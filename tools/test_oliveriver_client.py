"""The community's client itself, in Chromium, against ``fivedp serve --oliveriver --client DIR``: two
players (France and Germany, in two browsers) join a game of their two powers and play it by
clicking, phase after phase: a dislodgement and its retreat, builds, a move into the past that forks
a timeline, the retreat in the new timeline, that timeline's Winter while the first one waits, and
both timelines moving. Their client is not part of fivedp, so this session is not in the test suite
(``tests/serve/test_oliveriver.py`` holds their routes to shapes written from their types without
their code): run it from the repository's top folder, with their client built as docs/server.md
("Their client") says (``npx vite build --base=/client/``), as
``FIVEDP_OLIVERIVER_CLIENT=DIR python -m pytest tools/test_oliveriver_client.py``;
``FIVEDP_SCREENSHOTS=DIR`` keeps the screenshots."""

from __future__ import annotations

import json
import os
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

from tests.serve.conftest import TWO_POWERS
from tests.serve.live import server

CLIENT = os.environ.get("FIVEDP_OLIVERIVER_CLIENT")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the browser extra) is not installed")
pytestmark = [pytest.mark.skipif(not CLIENT, reason="FIVEDP_OLIVERIVER_CLIENT names no built client of theirs"),
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (.ci/run installs it)"),
              pytest.mark.slow]


def _call(base: str, path: str, body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=60))


class Player:
    """One browser page of their client, driven as a player drives it."""

    def __init__(self, browser, base: str, number: int, power: str):
        self.page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{base}/client/")
        self.page.click("text=Join Game")
        self.page.fill("input[placeholder='Game ID']", str(number))
        self.page.locator("select").nth(1).select_option(power)
        self.page.click("button:has(p:text-is('Join'))")
        self.page.wait_for_selector("button:has(p:text-is('Submit'))", timeout=30_000)
        self.page.wait_for_timeout(1500)

    def show(self, board: str) -> None:
        """Drags the view until the board is in the middle of the screen: their client draws the
        regions of a board only while it is on screen."""
        for _ in range(4):
            box = self.page.locator(f"#map-{board}").bounding_box()
            dx, dy = 800 - (box["x"] + box["width"] / 2), 450 - (box["y"] + box["height"] / 2)
            if abs(dx) < 60 and abs(dy) < 60:
                return
            self.page.mouse.move(800, 450)
            self.page.mouse.down()
            for i in range(1, 11):
                self.page.mouse.move(800 + dx * i / 10, 450 + dy * i / 10)
            self.page.mouse.up()
            self.page.wait_for_timeout(600)

    def click(self, where: str) -> None:
        """A region of a board, ``'1 1901 Spring Par'`` as their client names it."""
        t, year, phase, region = where.split()
        selector = f'div[title="{region}"]:has(> div[id="{where}"]) > svg'
        if self.page.locator(selector).count() == 0:
            self.show(f"{t}-{year}-{phase}")
            self.page.wait_for_selector(selector, state="attached", timeout=10_000)
        self.page.dispatch_event(selector, "click")
        self.page.wait_for_timeout(150)

    def mode(self, name: str) -> None:
        self.page.click(f"button:has(p:text-is('{name}'))")

    def build(self, where: str, fleet: bool = False) -> None:
        self.click(where)
        self.page.locator(f'div[id="{where}"] button').nth(1 if fleet else 0).click()

    def submit(self) -> None:
        self.page.click("button:has(p:text-is('Submit'))")


def test_two_players_play_their_client_against_this_engine(tmp_path):
    shots = Path(os.environ.get("FIVEDP_SCREENSHOTS", tmp_path))
    args = ("--oliveriver", "--client", str(Path(CLIENT).resolve()))
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=args) as base, sync_api.sync_playwright() as pw:
        game = _call(base, "/game", {"isSandbox": False, "player": "France", "hasStrictAdjacencies": False,
                                     "start": TWO_POWERS})
        n = game["id"]
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        try:
            fr, ge = Player(browser, base, n, "France"), Player(browser, base, n, "Germany")

            def played(k: int) -> dict:
                """Waits for step ``k`` and for both pages to fetch the world again."""
                for _ in range(120):
                    if _call(base, f"/game/{n}/iteration") == k:
                        break
                    time.sleep(0.5)
                for p in (fr, ge):
                    p.page.wait_for_timeout(4500)
                return _call(base, f"/game/{n}?player=France")

            def statuses(world: dict) -> set[tuple]:
                return {(o["$type"], o["status"], o["location"]["region"], (o.get("destination") or {}).get("region"))
                        for o in world["orders"]}

            fr.click("1 1901 Spring Par"), fr.click("1 1901 Spring Bur")
            fr.mode("Support")
            fr.click("1 1901 Spring Mar"), fr.click("1 1901 Spring Par"), fr.click("1 1901 Spring Bur")
            fr.mode("Move"), fr.click("1 1901 Spring Bre"), fr.click("1 1901 Spring MAO")
            fr.submit()
            for a, b in (("Mun", "Ruh"), ("Kie", "Den"), ("Ber", "Mun")):
                ge.click(f"1 1901 Spring {a}"), ge.click(f"1 1901 Spring {b}")
            ge.submit()
            w = played(1)
            assert {("Move", "Success", "Par", "Bur"), ("Support", "Success", "Mar", "Bur")} <= statuses(w)

            fr.mode("Hold"), fr.click("1 1901 Fall Bur")
            fr.mode("Move"), fr.click("1 1901 Fall Mar"), fr.click("1 1901 Fall Spa")
            fr.click("1 1901 Fall MAO"), fr.click("1 1901 Fall Por")
            fr.submit()
            ge.click("1 1901 Fall Ruh"), ge.click("1 1901 Fall Bur")
            ge.mode("Support"), ge.click("1 1901 Fall Mun"), ge.click("1 1901 Fall Ruh"), ge.click("1 1901 Fall Bur")
            ge.mode("Move"), ge.click("1 1901 Fall Den"), ge.click("1 1901 Fall Swe")
            ge.submit()
            w = played(2)
            assert w["boards"][-1]["units"]["Bur"]["mustRetreat"] is True
            fr.show("1-1901-Fall")
            fr.page.screenshot(path=str(shots / "oliveriver-retreat.png"))

            fr.click("1 1901 Fall Bur"), fr.click("1 1901 Fall Par")  # the retreat, given on Fall 1901
            fr.submit(), ge.submit()
            w = played(3)
            assert ("Move", "RetreatSuccess", "Bur", "Par") in statuses(w)

            fr.build("1 1901 Winter Mar"), fr.build("1 1901 Winter Bre", fleet=True)
            fr.submit()
            ge.build("1 1901 Winter Ber")
            ge.submit()
            w = played(4)
            assert {("Build", "Success", "Mar", None), ("Build", "Success", "Bre", None)} <= statuses(w)

            ge.click("1 1902 Spring Mun"), ge.click("1 1901 Fall Ruh")  # into the past
            ge.submit()
            fr.click("1 1902 Spring Par"), fr.click("1 1902 Spring Gas")
            fr.submit()
            w = played(5)
            assert ("Move", "Success", "Mun", "Ruh") in statuses(w)
            fr.click("1 1901 Fall Bur"), fr.click("1 1901 Fall Gas")  # dislodged again in timeline 2
            fr.submit(), ge.submit()
            w = played(6)
            assert [b["childTimelines"] for b in w["boards"] if (b["year"], b["phase"]) == (1901, "Fall")] == [[2]]

            fr.build("2 1901 Winter Par"), fr.build("2 1901 Winter Mar")
            fr.submit(), ge.submit()
            w = played(7)
            fr.click("1 1902 Fall Gas"), fr.click("1 1902 Fall Bur")
            fr.click("2 1902 Spring Par"), fr.click("2 1902 Spring Pic")
            fr.submit()
            ge.click("1 1902 Fall Pic"), ge.click("1 1902 Fall Par")
            ge.click("2 1902 Spring Bur"), ge.click("2 1902 Spring Mar")
            ge.submit()
            w = played(8)
            assert {("Move", "Success", "Par", "Pic"), ("Move", "Failure", "Bur", "Mar")} <= statuses(w)
            assert {b["timeline"] for b in w["boards"]} == {1, 2}
            fr.page.screenshot(path=str(shots / "oliveriver-fork.png"))
            assert fr.errors == [] and ge.errors == []
        finally:
            browser.close()
