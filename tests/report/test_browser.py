"""The picture as a user sees it: a real headless browser (Debian's chromium) opens the page of MDATC
3.A.2, reports no script error, and its screenshot shows the map: land and sea, and one frame for each
board of the step shown (4 in step 2). Views of 8, 64 and 300 boards open, run their script and draw
each board once; hostile names never run as script. Skipped, saying why, where no browser is
installed."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from fivedp_asp.report.render import render_file

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser")
BROWSER = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)

pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no headless browser: install Debian's chromium (apt-get install chromium) to run it")

FRAME = (0x4A, 0x4A, 0x4A)  # .frame stroke
ACTING = (0xE6, 0x7E, 0x22)  # .board.acting .frame stroke
SEA = (0xBC, 0xD9, 0xF0)
LAND = (0xF1, 0xEA, 0xD8)


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit, non-interlaced PNG, with the standard library only."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(b for i, b in enumerate(r) if i % bpp < 3) if bpp == 4 else r for r in rows]


def pixel(rows, x, y):
    r = rows[y]
    return tuple(r[3 * x:3 * x + 3])


def count_frames(width, height, rows, colour) -> int:
    """Boards in the picture: top-left outer corners of a frame's colour with long edges going right
    and down (the legend's small sample is too short to count)."""
    needle = bytes(colour)
    found = 0
    for y in range(1, height - 80):
        row = rows[y]
        start = row.find(needle)
        while start != -1:
            if start % 3 == 0:
                x = start // 3
                if (x > 0 and pixel(rows, x - 1, y) != colour and pixel(rows, x, y - 1) != colour
                        and row[3 * x:3 * (x + 100)] == needle * 100
                        and all(pixel(rows, x, y + d) == colour for d in range(80))):
                    found += 1
            start = row.find(needle, start + 1)
    return found


@pytest.mark.slow
def test_the_page_opens_in_a_browser_and_shows_every_board(tmp_path):
    page = tmp_path / "3.A.2.html"
    page.write_text(render_file(str(ROOT / "cases/mdatc/3.A.2.yaml")), encoding="utf-8")
    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--hide-scrollbars", "--force-device-scale-factor=1",
               "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1600,1000",
               page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, "script errors: " + "\n".join(console)
    assert shot.is_file()
    width, height, rows = read_png(shot)
    assert (width, height) == (1600, 1000)
    counts = {}
    for y in range(0, height, 2):
        row = rows[y]
        for x in range(0, width, 2):
            c = row[3 * x:3 * x + 3]
            counts[c] = counts.get(c, 0) + 1
    sampled = sum(counts.values())
    assert counts.get(bytes(SEA), 0) > sampled * 0.05, "no sea to be seen: the map is not drawn"
    assert counts.get(bytes(LAND), 0) > sampled * 0.05, "no land to be seen: the map is not drawn"
    assert len(counts) > 50, "the screenshot is nearly blank"
    # the view opens on the last step: a0, a1 (acting), a2 and b1
    assert count_frames(width, height, rows, ACTING) == 1
    assert count_frames(width, height, rows, FRAME) == 3


def run_browser(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess:
    """The browser on one page, in a profile of its own, with nothing fetched from the network."""
    profile = tmp_path / f"profile-{page.stem}"
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--hide-scrollbars", "--force-device-scale-factor=1",
               "--enable-logging=stderr", "--v=0", *args, page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.mark.slow
def test_no_name_from_input_runs_as_script_in_the_browser(tmp_path):
    """Hostile names in every field a scenario's page shows: the page as written, and the same page
    without its Content-Security-Policy (so that the escaping alone is tested), open without any
    injected script running (each would change the document's title) or element appearing, and every
    name is shown literally."""
    import html as htmllib
    import re

    from tests.hostile import RENDERED, Parts, injected, write_hostile

    scenario = write_hostile(tmp_path)
    written = render_file(str(scenario))
    csp = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')
    assert len(csp.findall(written)) == 1
    for name, text in (("as-written", written), ("no-csp", csp.sub("", written))):
        page = tmp_path / f"{name}.html"
        page.write_text(text, encoding="utf-8")
        dom = run_browser(tmp_path, page, "--dump-dom").stdout
        title = htmllib.unescape(re.search(r"<title>(.*?)</title>", dom, re.S)[1])
        assert title == f"{RENDERED['scenario id']}: {RENDERED['scenario title']}", f"{name}: a script ran"
        assert "PWNED" not in dom
        assert injected(dom) == [], name
        shown = Parts(dom).text
        for field, value in RENDERED.items():
            assert value in shown, f"{name}: the {field} is not shown literally"


@pytest.mark.slow
def test_views_of_8_64_and_300_boards_open_and_draw_each_board_once(tmp_path):
    """Each view opens in the browser with its script allowed by the page's policy (no error, and the
    script has run: it marks the view ready), the DOM holds one drawn group per board, the screenshot
    shows the map and the acting boards, and the file grows by about the same number of bytes per
    board from 64 to 300 boards (three steps each, the boards drawn once)."""
    import re
    import time

    from tests.views import SIZES, synthetic_frames

    sizes = {}
    for wanted, (heads, history) in SIZES.items():
        frames = synthetic_frames(heads, history)
        boards = len(frames[0].mv.boards)
        page = tmp_path / f"view-{wanted}.html"
        page.write_text(render_page(f"{wanted} boards", frames), encoding="utf-8")
        sizes[wanted] = (page.stat().st_size, boards)
        shot = tmp_path / f"view-{wanted}.png"
        started = time.perf_counter()
        done = run_browser(tmp_path, page, f"--screenshot={shot}", "--window-size=1600,1000")
        opened = time.perf_counter() - started
        problems = [line for line in done.stderr.splitlines()
                    if "CONSOLE" in line or "Uncaught" in line or "Refused" in line]
        assert not problems, "\n".join(problems)
        assert opened < 120, f"{wanted} boards took {opened:.0f}s to open"
        width, height, rows = read_png(shot)
        counts = {}
        for y in range(0, height, 3):
            for x in range(0, width, 3):
                c = rows[y][3 * x:3 * x + 3]
                counts[c] = counts.get(c, 0) + 1
        assert counts.get(bytes(SEA), 0) > 1000 and counts.get(bytes(LAND), 0) > 1000, f"{wanted}: no map to be seen"
        assert counts.get(bytes(ACTING), 0) > 50, f"{wanted}: the acting boards are not in view"
        dom = run_browser(tmp_path, page, "--dump-dom").stdout
        assert 'data-ready="1"' in dom, f"{wanted}: the view's script did not run"
        drawn = re.findall(r'<g class="board[^"]*" data-board="([^"]+)"', dom)
        assert len(drawn) == boards and len(set(drawn)) == boards
    (_, _), (mid, mid_boards), (large, large_boards) = sizes[8], sizes[64], sizes[300]
    per_board = (large - mid) / (large_boards - mid_boards)
    assert 0.6 < per_board / (mid / mid_boards) < 1.4, sizes
    assert large < 3_000_000, sizes


def render_page(title, frames):
    from fivedp_asp.report.render import page

    return page(title, frames)


DRIVE = """(function(){
function shown(){return Array.prototype.filter.call(document.querySelectorAll('g.board'),function(g){
 return !g.classList.contains('off');}).map(function(g){return g.getAttribute('data-board');}).sort().join(' ');}
function steps(){return Array.prototype.filter.call(document.querySelectorAll('g.steporders'),function(g){
 return !g.classList.contains('off');}).map(function(g){return g.getAttribute('data-step');}).join(' ');}
var out={}, svg=document.getElementById('view');
out.start=shown();out.startSteps=steps();
for(var i=0;i<3;i++)document.getElementById('prev').click();
out.step3=shown();out.step3Steps=steps();out.label=document.getElementById('stepno').textContent;
out.text=Array.prototype.filter.call(document.querySelectorAll('.steptext'),function(d){return !d.hidden;}).map(function(d){
 return d.querySelector('h2').textContent;}).join('|');
var box=document.querySelector('input[data-tl="1"]');box.checked=false;box.dispatchEvent(new Event('change'));
out.noB=shown();box.checked=true;box.dispatchEvent(new Event('change'));
var order=document.querySelector('g.steporders:not(.off) g.order path');
order.dispatchEvent(new MouseEvent('mouseover',{bubbles:true}));
out.info=document.getElementById('info').textContent;out.orderTitle=order.parentNode.querySelector('title').textContent;
var unit=document.querySelector('g.board:not(.off) circle.unit');unit.dispatchEvent(new MouseEvent('mouseover',{bubbles:true}));
out.unitInfo=document.getElementById('info').textContent;out.unitTitle=unit.querySelector('title').textContent;
var frame=document.querySelector('g.board[data-board="c2"]:not(.off) rect.frame'),r=frame.getBoundingClientRect();
var at={bubbles:true,clientX:r.left+r.width/2,clientY:r.top+r.height/2};
frame.dispatchEvent(new PointerEvent('pointerdown',at));frame.dispatchEvent(new PointerEvent('pointerup',at));
out.viewBox=svg.getAttribute('viewBox');out.frame=[frame.getAttribute('x'),frame.getAttribute('y'),frame.getAttribute('width')].join(' ');
document.getElementById('fit').click();out.fit=svg.getAttribute('viewBox');
document.body.setAttribute('data-test',JSON.stringify(out));})();"""


@pytest.mark.slow
def test_the_view_switches_steps_filters_timelines_shows_details_and_opens_a_board(tmp_path):
    """The view driven in the browser by a script of the test's (added to the page with its hash in
    the policy): three steps back from the last, the boards and orders of step 3 show; timeline b
    hidden and shown again; hovering an order, or a unit, shows its title; clicking a board zooms to it; Fit
    shows everything again."""
    import base64
    import hashlib
    import html as htmllib
    import json
    import re

    from fivedp_asp.report.render import scenario_frames

    path = ROOT / "cases/multiverse/4.06-seed004-example-1-dislodged-past-supporter.yaml"
    _, frames = scenario_frames(str(path))
    assert len(frames) == 6
    text = render_file(str(path))
    digest = base64.b64encode(hashlib.sha256(DRIVE.encode()).digest()).decode()
    text = text.replace("script-src ", f"script-src &#x27;sha256-{digest}&#x27; ", 1)
    text = text.replace("</body>", f"<script>{DRIVE}</script></body>")
    page = tmp_path / "drive.html"
    page.write_text(text, encoding="utf-8")
    dom = run_browser(tmp_path, page, "--dump-dom", "--window-size=1600,1000").stdout
    found = re.search(r'<body data-test="([^"]*)"', dom)
    assert found, "the test's script did not run"
    out = json.loads(htmllib.unescape(found[1]))
    names = lambda frame: " ".join(sorted(b.name for b in frame.mv.boards.values()))  # noqa: E731
    assert out["start"] == names(frames[5]) and out["startSteps"] == "5"
    assert out["step3"] == names(frames[2]) and out["step3Steps"] == "2" and out["label"] == "step 3 / 6"
    assert out["text"] == frames[2].title
    assert out["noB"] == " ".join(n for n in names(frames[2]).split() if not n.startswith("b"))
    assert out["info"] == out["orderTitle"] and " — " in out["info"]
    assert out["unitInfo"] == out["unitTitle"] and ": A " in out["unitInfo"], "hovering a unit shows its title"
    x, y, w = (float(v) for v in out["frame"].split())
    vx, vy, vw, _ = (float(v) for v in out["viewBox"].split())
    assert vx <= x < x + w <= vx + vw and vw < 1.5 * w, "the board clicked fills the view"
    assert out["fit"] == view_box(text)


def view_box(text: str) -> str:
    import re

    return re.search(r'class="multiverse view" id="view" viewBox="([^"]*)"', text)[1]
