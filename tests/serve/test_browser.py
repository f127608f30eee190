"""Players at the table in a real browser (Debian's chromium driven by Playwright), every page under a
strict Content-Security-Policy (``script-src 'self'; style-src 'self'; img-src 'self' data:``, added
to every response the browser gets, as a server in front may): each joins from the game's page, gives orders by clicking
(a unit, then one of its legal orders) and by typing, checks and submits; neither page ever shows
the other's orders; when both have submitted the phase is adjudicated and both pages show the new
step. The player's zoom and pan survive every new picture; builds are picked from the engine's list;
a player with nothing to do is told so; every step played can be opened. Screenshots of the pages are
left in the test's folder (``FIVEDP_SCREENSHOTS=DIR`` keeps copies). Playwright's own waiting is
done with selectors, never with a script of the test evaluated in the page (the policy forbids
``eval``)."""

from __future__ import annotations

import json
import os
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
STRICT = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
          "base-uri 'none'")


def _call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     method=method, headers=headers)
    return json.load(urllib.request.urlopen(request, timeout=60))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A server and a browser, shared by this module's tests (each plays its own game)."""
    tmp = tmp_path_factory.mktemp("table")
    with server(f"sqlite:///{tmp}/games.db", tmp) as base, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        try:
            yield base, browser
        finally:
            browser.close()


def _page(browser, errors: list[str]):
    """A page of its own context (its own player), every response under the strict policy (kept
    beside any policy the server sends: a browser enforces both), its console errors collected."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})

    def strict(route):
        response = route.fetch()
        sent = response.headers.get("content-security-policy")
        route.fulfill(response=response, headers={**response.headers,
                                                  "content-security-policy": f"{sent}, {STRICT}" if sent else STRICT})

    # the event stream never ends, so it cannot be fetched whole: it carries no markup or script
    context.route(lambda url: not url.endswith("/events"), strict)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page


def _join(page, base: str, game: str, power: str) -> None:
    page.goto(f"{base}/play/{game}")
    page.wait_for_selector("#join:not([hidden]) #power option", state="attached")
    page.select_option("#power", power)
    with page.expect_navigation():
        page.click("#joinbtn")
    page.wait_for_selector(f"#role:text-is('You play {power}')")


def _view_box(page) -> str:
    return page.frame_locator("#picture").locator("svg#view[data-ready]").get_attribute("viewBox")


def _shots() -> Path | None:
    return Path(os.environ["FIVEDP_SCREENSHOTS"]) if os.environ.get("FIVEDP_SCREENSHOTS") else None


def test_two_players_play_a_phase_in_the_browser(table, tmp_path):
    base, browser = table
    shots = _shots() or tmp_path
    errors: list[str] = []
    game = _call(base, "POST", "/api/games", {"start": TWO_POWERS})["id"]
    france, germany = _page(browser, errors), _page(browser, errors)
    _join(france, base, game, "France")
    _join(germany, base, game, "Germany")
    assert "#token=" in france.url and "#token=" in germany.url
    # France zooms into the picture: the view it chose must survive every picture drawn after
    picture = france.frame_locator("#picture").locator("svg#view[data-ready]")
    picture.wait_for(timeout=60_000)
    fitted = _view_box(france)
    # the map is one image placed on each board, not a symbol cloned into each
    assert france.frame_locator("#picture").locator("svg#view image").count() >= 1
    assert france.frame_locator("#picture").locator("svg#view use").count() == 0
    # the details of a unit, shown on hover in the panel beside the picture: its title kept in the frame
    unit = france.frame_locator("#picture").locator("svg#view .unit[data-unit='a0:par']")
    assert unit.locator("title").text_content() == "France: A Par on a0"
    unit.dispatch_event("mouseover")
    assert france.frame_locator("#picture").locator("#info").text_content() == "France: A Par on a0"
    assert france.frame_locator("#picture").locator("svg#view g.board title").count() >= 1
    picture.hover()
    france.mouse.wheel(0, -400)
    france.mouse.wheel(0, -400)
    zoomed = _view_box(france)
    assert zoomed != fitted
    # lines typed, then a unit clicked and one of its legal orders picked: it replaces that unit's line
    france.fill("#orders", "A Par H\nA Mar H")
    france.click("#units button:text-is('A Par')")
    france.click("#possible li:text-is('A a-Par@0 - a-Bur@0')")
    assert _eventually(lambda: france.input_value("#orders") == "A Mar H\nA a-Par@0 - a-Bur@0")
    france.click("#possible li:text-is('A a-Par@0 H')")
    assert _eventually(lambda: france.input_value("#orders") == "A Mar H\nA a-Par@0 H")
    france.click("#possible li:text-is('A a-Par@0 - a-Bur@0')")
    assert _eventually(lambda: france.input_value("#orders") == "A Mar H\nA a-Par@0 - a-Bur@0")
    france.fill("#orders", france.input_value("#orders") + "\nA Mar S A Par - Bur\nF Bre - Lon")
    france.click("#check")
    france.wait_for_selector("#verdicts li.illegal")
    verdicts = france.inner_text("#verdicts")
    assert "A a-Par@0 - a-Bur@0" in verdicts and "F Bre - Lon (read as F a-Bre@0 - a-Lon@0): ILLEGAL (not adjacent)" in verdicts
    france.fill("#orders", "A a-Par@0 - a-Bur@0\nA Mar S A Par - Bur")
    france.click("#submit")
    # the verdict beside the button, in the window as the player sees it
    france.wait_for_selector("#verdict:text-is('Submitted.')")
    said, button = france.locator("#verdict").bounding_box(), france.locator("#submit").bounding_box()
    assert said["y"] + said["height"] <= 900 and abs(said["y"] - button["y"]) < button["height"]
    # the picture drawn again with France's own orders waiting, at the zoom France chose
    france.frame_locator("#picture").locator("text=A a-Par@0 - a-Bur@0").first.wait_for(state="attached")
    assert _view_box(france) == zoomed
    # Germany's page learns that France submitted, and nothing of what
    germany.wait_for_selector("#submitted:has-text('France')")
    germany.screenshot(path=str(shots / "germany-before.png"))
    seen = germany.content() + germany.frame_locator("#picture").locator("body").inner_text()
    assert "A Mar S A Par - Bur" not in seen and "a-Bur@0" not in seen
    # the check that Germany's typing asks for (700 ms after the last key) is answered only after the
    # step is adjudicated: what it says then of the lines is not shown, their phase being over
    held: list = []
    germany.route("**/orders/check", lambda route: held.append(route))
    germany.fill("#orders", "A Mun - Bur")
    for _ in range(100):  # the page's events are handled while Playwright waits, never while Python sleeps
        if held:
            break
        germany.wait_for_timeout(50)
    assert held
    germany.click("#submit")
    germany.wait_for_selector("#verdict:text-is('Everyone has submitted: the step was adjudicated.')")
    for page in (france, germany):
        page.wait_for_selector("#phase:text-matches('^Step 2')")
        page.wait_for_selector("#steps details[open] summary:text-is('Step 1: movement on a0')")
    last = france.inner_text("#steps")
    assert "A a-Par@0 - a-Bur@0  succeeds" in last and "A a-Mun@0 - a-Bur@0  fails" in last
    assert "A a-Par@0 - a-Bur@0  succeeds" in germany.inner_text("#steps")
    for route in held:
        route.continue_()
    germany.unroute("**/orders/check")
    germany.wait_for_timeout(500)
    for page in (france, germany):  # the picture drawn again, with the step's boards
        page.frame_locator("#picture").locator("text=a1 · Fall 1901").first.wait_for(timeout=60_000)
        assert not page.inner_text("#possible") and not page.inner_text("#verdicts")
    assert _view_box(france) == zoomed  # the adjudicated step kept France's zoom too
    # France's "Submitted." was for the phase that is over; Germany's verdict says the step was played
    assert france.inner_text("#verdict") == ""
    assert germany.inner_text("#verdict") == "Everyone has submitted: the step was adjudicated."
    france.screenshot(path=str(shots / "france-after.png"))
    germany.screenshot(path=str(shots / "germany-after.png"))
    assert errors == []


def test_builds_nothing_to_do_and_the_steps_played(table, tmp_path):
    base, browser = table
    shots = _shots() or tmp_path
    errors: list[str] = []
    made = _call(base, "POST", "/api/games", {"start": TWO_POWERS})
    game = made["id"]
    tokens = {p: _call(base, "POST", f"/api/games/{game}/players", {"power": p})["token"] for p in ("France", "Germany")}

    def play(france: list[str]) -> None:
        key = _call(base, "GET", f"/api/games/{game}")["next"]["key"]
        _call(base, "POST", f"/api/games/{game}/orders", {"lines": france, "phase": key}, tokens["France"])
        assert _call(base, "POST", f"/api/games/{game}/orders", {"lines": [], "phase": key}, tokens["Germany"])["complete"]
        # the server adjudicates the complete phase after answering: the game moves on within a minute
        assert _eventually(lambda: _call(base, "GET", f"/api/games/{game}")["next"]["key"] != key, 60.0)

    play(["A Par - Bur"])
    play(["A Bur - Bel"])  # France takes Belgium: one build on a2, in Paris; Germany has nothing to do
    germany = _page(browser, errors)
    germany.goto(f"{base}/play/{game}#token={tokens['Germany']}")
    germany.wait_for_selector("#nothing:text-matches('^Nothing to do this phase')")
    assert germany.locator("#units button").count() == 0
    germany.screenshot(path=str(shots / "germany-nothing-to-do.png"))
    france = _page(browser, errors)
    france.goto(f"{base}/play/{game}#token={tokens['France']}")
    france.click("#units button:text-is('Builds on a2')")
    france.wait_for_selector("#possible li:text-is('Waive')")
    assert france.inner_text("#possible").split("\n") == ["Build A a-Par@2", "Waive"]
    assert france.locator("#nothing").is_hidden()
    france.click("#possible li:text-is('Build A a-Par@2')")
    assert _eventually(lambda: france.input_value("#orders") == "Build A a-Par@2")
    france.screenshot(path=str(shots / "france-builds.png"))
    france.click("#submit")
    france.wait_for_selector("#verdict:text-is('Everyone has submitted: the step was adjudicated.')")
    # the steps played, newest first and open; an earlier one opened, and shown on the map
    france.wait_for_selector("#steps details[open] summary:text-is('Step 3: adjustment on a2')")
    first = france.locator("#steps details", has=france.locator("summary:text-is('Step 1: movement on a0')"))
    assert not first.get_attribute("open") and first.locator("pre").is_hidden()
    first.locator("summary").click()
    assert "France: A a-Par@0 - a-Bur@0  succeeds" in first.locator("pre").inner_text()
    first.locator("button:text-is('Show on the map')").click()
    france.frame_locator("#picture").locator("#stepno:text-matches('^step 1 /')").wait_for()
    france.screenshot(path=str(shots / "france-steps.png"))
    icon = france.request.get(f"{base}/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"] == "image/x-icon" and icon.body()[:4] == b"\0\0\1\0"
    assert errors == []


def test_the_host_is_told_its_link_is_the_hosts_and_given_the_link_to_share(table):
    base, browser = table
    errors: list[str] = []
    made = _call(base, "POST", "/api/games", {"start": TWO_POWERS})
    host = _page(browser, errors)
    host.goto(base + made["play"])
    sync_api.expect(host.locator("#role")).to_have_text("You are the host")
    sync_api.expect(host.locator("#share")).to_be_visible()
    sync_api.expect(host.locator("#share")).to_contain_text("This link is the host's")
    assert host.input_value("#joinlink") == f"{base}/play/{made['id']}"
    assert host.input_value("#mylink") == base + made["play"]
    player = _page(browser, errors)
    _join(player, base, made["id"], "France")
    sync_api.expect(player.locator("#mylink")).to_be_visible()
    assert player.locator("#share").is_hidden() and "#token=" in player.input_value("#mylink")
    assert errors == []


def _eventually(check, seconds: float = 10.0) -> bool:
    """Whether ``check()`` comes true within ``seconds`` (a picked order goes into the orders after a
    Check of the lines already there)."""
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()
