"""Two players at the table in a real browser (Debian's chromium driven by Playwright): each joins from
the game's page, gives orders by clicking (a unit, then one of its legal orders) and by typing, checks
and submits; neither page ever shows the other's orders; when both have submitted the phase is
adjudicated and both pages show the new step. Screenshots of both pages are left in the test's
folder (``FIVEDP_SCREENSHOTS=DIR`` keeps copies)."""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.request
from pathlib import Path

import pytest

from tests.serve.conftest import TWO_POWERS
from tests.serve.live import server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the browser extra) is not installed")
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (.ci/run installs it)"),
              pytest.mark.slow]


def _post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=30))


def _join(page, base: str, game: str, power: str) -> None:
    page.goto(f"{base}/play/{game}")
    page.wait_for_selector("#join:not([hidden]) #power option", state="attached")
    page.select_option("#power", power)
    with page.expect_navigation():
        page.click("#joinbtn")
    sync_api.expect(page.locator("#role")).to_have_text(f"You play {power}")


def test_two_players_play_a_phase_in_the_browser(tmp_path):
    shots = Path(os.environ.get("FIVEDP_SCREENSHOTS", tmp_path))
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path) as base, sync_api.sync_playwright() as pw:
        game = _post(base, "/api/games", {"start": TWO_POWERS})["id"]
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        try:
            france = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            germany = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            # the pages run under the server's Content-Security-Policy (the waits below read the page
            # through selectors: a script the test evaluated would itself be refused by it)
            refused: list[str] = []
            for page in (france, germany):
                page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
            _join(france, base, game, "France")
            _join(germany, base, game, "Germany")
            assert "#token=" in france.url and "#token=" in germany.url
            # France: a unit clicked, one of its legal orders picked, a line typed, checked, submitted
            france.click("#units button:text-is('A Par')")
            france.click("#possible li:text-is('A a-Par@0 - a-Bur@0')")
            france.fill("#orders", france.input_value("#orders") + "\nA Mar S A Par - Bur\nF Bre - Lon")
            france.click("#check")
            france.wait_for_selector("#verdicts li.illegal")
            verdicts = france.inner_text("#verdicts")
            assert "A a-Par@0 - a-Bur@0" in verdicts and "F Bre - Lon (read as F a-Bre@0 - a-Lon@0): ILLEGAL (not adjacent)" in verdicts
            france.fill("#orders", "A a-Par@0 - a-Bur@0\nA Mar S A Par - Bur")
            france.click("#submit")
            sync_api.expect(france.locator("#message")).to_have_text("Submitted.")
            # Germany's page learns that France submitted, and nothing of what
            sync_api.expect(germany.locator("#submitted")).to_contain_text("France")
            germany.screenshot(path=str(shots / "germany-before.png"))
            seen = germany.content() + germany.frame_locator("#picture").locator("body").inner_text()
            assert "A Mar S A Par - Bur" not in seen and "a-Bur@0" not in seen
            germany.fill("#orders", "A Mun - Bur")
            germany.click("#submit")
            for page in (france, germany):
                sync_api.expect(page.locator("#phase")).to_have_text(re.compile("^Step 2"), timeout=60_000)
                sync_api.expect(page.locator("#last")).to_contain_text("Step 1", timeout=60_000)
            last = france.inner_text("#last")
            assert "A a-Par@0 - a-Bur@0  succeeds" in last and "A a-Mun@0 - a-Bur@0  fails" in last
            assert "A a-Par@0 - a-Bur@0  succeeds" in germany.inner_text("#last")
            for page in (france, germany):  # the picture drawn again, with the step's boards
                page.frame_locator("#picture").locator("text=a1 · Fall 1901").first.wait_for(timeout=60_000)
                assert not page.inner_text("#possible") and not page.inner_text("#verdicts")
            assert not refused, refused[:3]
            france.screenshot(path=str(shots / "france-after.png"))
            germany.screenshot(path=str(shots / "germany-after.png"))
        finally:
            browser.close()


def test_the_host_is_told_its_link_is_the_hosts_and_given_the_link_to_share(tmp_path):
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path) as base, sync_api.sync_playwright() as pw:
        made = _post(base, "/api/games", {"start": TWO_POWERS})
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            host = browser.new_context().new_page()
            host.goto(base + made["play"])
            sync_api.expect(host.locator("#role")).to_have_text("You are the host")
            sync_api.expect(host.locator("#share")).to_be_visible()
            sync_api.expect(host.locator("#share")).to_contain_text("This link is the host's")
            assert host.input_value("#joinlink") == f"{base}/play/{made['id']}"
            assert host.input_value("#mylink") == base + made["play"]
            player = browser.new_context().new_page()
            _join(player, base, made["id"], "France")
            sync_api.expect(player.locator("#mylink")).to_be_visible()
            assert player.locator("#share").is_hidden() and "#token=" in player.input_value("#mylink")
        finally:
            browser.close()
