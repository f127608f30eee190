"""Pictures of a game with several timelines: tests/files/test_game.py's ``GAME`` (forks, a fork of a
fork, supports and moves across boards, retreats, builds and disbands), played here and saved.

What is checked:

- one board drawn alone shows every order that acted on it, from whatever board and step: its own
  orders, and supports and moves into it from other boards, each marked with the board it came from;
- every line of a board drawn alone stays inside its view box (orders to and from other boards, a convoy
  across boards too, end beside it, at the other board's place, named);
- a board drawn alone reads without CSS: every shape carries its own fill and stroke, every text its
  own fill and size, and a renderer given the SVG without its ``<style>`` draws sea and land in
  their colours (where ``rsvg-convert`` or ImageMagick is installed);
- the page's side panel gives each disbanded unit's board and why it went, and names the board of
  every unit an order line leaves unqualified (as ``fivedp game`` prints it: ``read as ...``);
- the step label counts what the slider shows: ``step 1 / 14`` ... ``step 14 / 14``, then the boards as
  they stand with the waiting orders; ``--step N`` opens step N as labelled.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fivedp_asp.cli import main
from fivedp_asp.files.games import save_game
from fivedp_asp.game.play import submit
from fivedp_asp.report import render
from tests.files.test_game import GAME, opening, play_in_memory
from tests.report.test_browser import read_png

SVG = "{http://www.w3.org/2000/svg}"
SEA = (0xBC, 0xD9, 0xF0)
LAND = (0xF1, 0xEA, 0xD8)


@pytest.fixture(scope="module")
def game_file(tmp_path_factory) -> Path:
    """The game played for 14 steps (timelines a to d), with the orders of its step 15 waiting."""
    folder = tmp_path_factory.mktemp("game")
    game, _ = play_in_memory(opening(folder), GAME[:14])
    for sub in GAME[14].subs:
        game = submit(game, sub.power, list(sub.lines), add=sub.add)
    path = folder / "g.yaml"
    save_game(path, game)
    return path


@pytest.fixture(scope="module")
def replayed(game_file):
    """The game's title and frames (``render.game_frames``), replayed once for the tests that draw many boards."""
    return render.game_frames(str(game_file))


def board_svg_of(game_file, replayed, board: str, monkeypatch, step: int | None = None) -> ET.Element:
    """One board drawn alone as SVG (``fivedp render g.yaml --board B -o B.svg``), from frames replayed once."""
    monkeypatch.setattr(render, "game_frames", lambda path: replayed)
    text = render.render_file(str(game_file), board=board, svg_only=True, step=step)
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n')
    return ET.fromstring(text.split("\n", 1)[1])


def orders_drawn(root: ET.Element) -> dict[str, ET.Element]:
    """The orders of a picture by their text as written (each order's title: ``Power: text — result``)."""
    out = {}
    for el in root.iter():
        if el.get("data-order") is not None:
            title = el.find(f"{SVG}title").text
            text = title.split(": ", 1)[1].split(" — ", 1)[0]
            assert text not in out, f"{text} drawn twice"
            out[text] = el
    return out


def own_text(el: ET.Element) -> str:
    """The text an element shows in the picture (its labels, not its hover title)."""
    return " ".join(t.text or "" for t in el.iter(f"{SVG}text"))


# -- 1. one board alone: every order that acted on it -------------------------------------------------


@pytest.mark.slow
def test_one_board_alone_draws_the_orders_from_other_boards_that_acted_on_it(game_file, tmp_path):
    """a3 fought step 8 with a support from c2 into it (``A c-Ser S A a-Ser - Rum``); b1 fought step 5,
    with a support from a2 into it, and was attacked from b2 in step 8 (which forked timeline d)."""
    out = tmp_path / "a3.svg"
    assert main(["render", str(game_file), "--board", "a3", "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    drawn = orders_drawn(root)
    # step 8's orders given on a3 (written without a board: the head a3), and the support from c2
    assert set(drawn) == {"A Ser - Rum", "A Sil - War", "A Vie S A Sil - War", "F Kie - Hol", "A Par - Bur",
                          "A Mos - War", "A c-Ser S A a-Ser - Rum"}
    frame = root.find(f".//{SVG}rect[@class='frame']")
    left, right = float(frame.get("x")), float(frame.get("x")) + float(frame.get("width"))
    support = drawn["A c-Ser S A a-Ser - Rum"]
    assert own_text(support) == "c2 Ser", "the support from c2 is not labelled with its board"
    start = [float(v) for v in re.findall(r"-?[\d.]+", support.find(f"{SVG}path").get("d"))[:2]]
    assert not left < start[0] < right, "the support from c2 does not come from beside the board"
    for text in drawn.keys() - {"A c-Ser S A a-Ser - Rum"}:
        assert "c2" not in own_text(drawn[text]), text

    out = tmp_path / "b1.svg"
    assert main(["render", str(game_file), "--board", "b1", "-o", str(out)]) == 0
    drawn = orders_drawn(ET.parse(out).getroot())
    assert set(drawn) == {"A b-Boh - b-Vie", "A b-Tyr S A b-Boh - b-Vie", "A b-Gal S A b-Vie", "A b-Ukr - b-Rum",
                          "A b-Vie H", "A Tyr S A b-Tyr", "A b-Rum - b-Bud@1"}
    assert own_text(drawn["A Tyr S A b-Tyr"]) == "a2 Tyr" and own_text(drawn["A b-Rum - b-Bud@1"]) == "b2 Rum"


def test_one_board_alone_after_a_step_draws_only_the_orders_until_then(game_file, replayed, monkeypatch):
    """``--step 5``: b1 as it stood after step 5, with step 5's orders; the attack of step 8 not yet."""
    drawn = orders_drawn(board_svg_of(game_file, replayed, "b1", monkeypatch, step=5))
    assert "A b-Rum - b-Bud@1" not in drawn and "A Tyr S A b-Tyr" in drawn and "A b-Vie H" in drawn


# -- 2. every line inside the view box ----------------------------------------------------------------


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


def _path_points(d: str) -> list[tuple[float, float]]:
    """The points a path's data reaches: the corners and control points of M, L and Q (absolute), and
    for a relative arc (``a``, as centres are drawn) its end and the corners of its circle's box."""
    out: list[tuple[float, float]] = []
    x = y = 0.0
    for command, args in re.findall(r"([MLQa])([^MLQa]*)", d):
        values = _numbers(args)
        if command == "a":
            for rx, ry, _, _, _, dx, dy in zip(*[iter(values)] * 7):
                cx, cy = x + dx / 2, y + dy / 2  # a half circle: its centre halfway along
                out += [(cx - rx, cy - ry), (cx + rx, cy + ry)]
                x, y = x + dx, y + dy
                out.append((x, y))
        else:
            out += list(zip(values[::2], values[1::2]))
            x, y = out[-1]
    return out


def drawn_points(root: ET.Element) -> list[tuple[str, float, float]]:
    """Every point a shape of the picture reaches (path corners and control points, line ends, the
    boxes of circles, rectangles and texts' anchors), in the view box's coordinates: the groups'
    ``translate(x,y) scale(k)`` applied. Markers' and the map symbol's own coordinates are left out."""
    out = []

    def walk(el, ox, oy, k):
        tag = el.tag.replace(SVG, "")
        if tag in ("defs", "marker", "symbol", "title"):
            return
        t = el.get("transform")
        if t:
            move = re.search(r"translate\(([-\d.]+),([-\d.]+)\)", t)
            scale = re.search(r"scale\(([-\d.]+)\)", t)
            dx, dy = (float(move[1]), float(move[2])) if move else (0.0, 0.0)
            ox, oy, k = ox + dx * k, oy + dy * k, k * (float(scale[1]) if scale else 1.0)

        def at(x, y):
            out.append((tag, ox + x * k, oy + y * k))

        if tag == "path":
            for x, y in _path_points(el.get("d")):
                at(x, y)
        elif tag == "line":
            at(float(el.get("x1")), float(el.get("y1")))
            at(float(el.get("x2")), float(el.get("y2")))
        elif tag == "circle":
            x, y, r = float(el.get("cx")), float(el.get("cy")), float(el.get("r"))
            at(x - r, y - r)
            at(x + r, y + r)
        elif tag == "polygon":
            values = _numbers(el.get("points"))
            for x, y in zip(values[::2], values[1::2]):
                at(x, y)
        elif tag in ("rect", "use"):
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            at(x, y)
            at(x + float(el.get("width")), y + float(el.get("height")))
        elif tag == "text":
            at(float(el.get("x")), float(el.get("y")))
        for child in el:
            walk(child, ox, oy, k)

    walk(root, 0.0, 0.0, 1.0)
    return out


def test_every_line_of_a_board_alone_stays_inside_its_view_box(game_file, replayed, monkeypatch):
    """Every board of the game, each after the step it last acted in and as the game stands."""
    boards = sorted(b.name for b in replayed[1][-1].mv.boards.values())
    outside = []
    for name in boards:
        root = board_svg_of(game_file, replayed, name, monkeypatch)
        x0, y0, w, h = _numbers(root.get("viewBox"))
        assert (w, h) == (float(root.get("width")), float(root.get("height"))), name
        for tag, x, y in drawn_points(root):
            if not (x0 <= x <= x0 + w and y0 <= y <= y0 + h):
                outside.append(f"{name}: {tag} at ({x:.0f}, {y:.0f}) outside {x0:.0f} {y0:.0f} {w:.0f} {h:.0f}")
    assert outside == [], "\n".join(outside)


def test_a_convoy_across_boards_stays_inside_both_boards_drawn_alone(replayed):
    """A fleet on a1 convoying an army of b1 (a convoy the rules refuse; the picture draws what was
    ordered): on a1 alone the line ends beside the board at b1's Yorkshire and Norway, on b1 alone it
    comes from beside the board at a1's North Sea; inside the view box both times, each end named."""
    from fivedp_asp.engine.step import read_orders

    mv = replayed[1][-1].mv
    ((_, convoy),) = read_orders(mv, {"England": ["F a-Nth@1 C A b-Yor@1 - b-Nwy@1"]})
    frame = render.Frame("convoy", mv, (render.DrawnOrder(convoy, "invalid"),))
    for board, names in (((0, 1), "b1 Yor b1 Nwy"), ((1, 1), "a1 Nth")):
        root = ET.fromstring(render.board_svg(frame, board))
        (drawn,) = orders_drawn(root).values()
        assert drawn.find(f"{SVG}path") is not None and own_text(drawn) == names
        x0, y0, w, h = _numbers(root.get("viewBox"))
        assert all(x0 <= x <= x0 + w and y0 <= y <= y0 + h for _, x, y in drawn_points(root)), board


# -- 3. readable without CSS ----------------------------------------------------------------------------


SHAPES = ("circle", "ellipse", "line", "path", "polygon", "polyline", "rect")


def unpainted(root: ET.Element) -> list[str]:
    """Shapes without their own fill and stroke, texts without their own fill and size: what a renderer
    that reads no CSS draws black (or not at all)."""
    found = []
    for el in root.iter():
        tag = el.tag.replace(SVG, "")
        if tag in SHAPES and not (el.get("fill") and el.get("stroke")):
            found.append(f"<{tag} class={el.get('class')!r}>")
        if tag == "text" and not (el.get("fill") and el.get("font-size")):
            found.append(f"<text class={el.get('class')!r}>")
        if tag == "use":
            found.append("<use> (a renderer may not follow it)")
    return found


def converter() -> list[str] | None:
    """A command that turns SVG on standard input into PNG on standard output: rsvg-convert, or ImageMagick's."""
    if shutil.which("rsvg-convert"):
        return ["rsvg-convert", "--format=png", "--background-color=white"]
    for name in ("magick", "convert"):
        path = shutil.which(name)
        if path:
            version = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=60).stdout
            if "ImageMagick" in version:
                return [path, "-background", "white", "svg:-", "-flatten", "png:-"]
    return None


@pytest.mark.slow
def test_a_board_alone_reads_without_css(game_file, replayed, monkeypatch, tmp_path):
    for name in ("a3", "b1", "c2"):
        root = board_svg_of(game_file, replayed, name, monkeypatch)
        assert unpainted(root) == [], name
    command = converter()
    if command is None:
        pytest.skip("neither rsvg-convert nor ImageMagick is installed: the SVG was checked, not drawn")
    svg = render.render_file(str(game_file), board="a3", svg_only=True)
    assert svg.count("<style>") == 1
    bare = re.sub(r"<style>.*?</style>", "", svg, flags=re.S)  # what a renderer without CSS sees
    png = tmp_path / "a3.png"
    done = subprocess.run(command, input=bare.encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    png.write_bytes(done.stdout)
    width, height, rows = read_png(png)
    counts: dict[bytes, int] = {}
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            c = rows[y][3 * x:3 * x + 3]
            counts[c] = counts.get(c, 0) + 1
    sampled = sum(counts.values())
    assert counts.get(bytes(SEA), 0) > sampled * 0.1, "the sea is not drawn in its colour"
    assert counts.get(bytes(LAND), 0) > sampled * 0.1, "the land is not drawn in its colour"
    assert counts.get(bytes(3), 0) < sampled * 0.1, "the picture is mostly black"
    # nothing touches the picture's left or right side: the label "c2 Ser" beside the board fits in
    white = b"\xff\xff\xff"
    assert all(rows[y][3 * x:3 * x + 3] == white for y in range(height) for x in (0, 1, width - 2, width - 1))


# -- 4 and 5. the side panel -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def game_page(game_file, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("page") / "g.html"
    assert main(["game", "show", str(game_file), "--html", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def step_texts(page: str) -> dict[int, str]:
    """The side panel's text of each step (from 0), as shown (entities decoded)."""
    import html

    return {int(n): html.unescape(body) for n, body in
            re.findall(r'<div class="steptext" data-step="(\d+)"[^>]*>(.*?)</div>', page, re.S)}


def test_the_side_panel_gives_each_disbanded_units_board_and_reason(game_page):
    """Step 14: Germany disbands A Boh on a6; Austria, short of centres on d4, loses F Alb by rule."""
    text = step_texts(game_page)[13]
    assert "Disbanded: A Boh on a6 (disband ordered), F Alb on d4 (civil disorder:" in text


def test_the_side_panel_names_the_board_of_every_unit(game_page, replayed):
    """Step 8 acted on a3, b2 and c2: ``A Ser - Rum`` is a3's, and the panel says so; every order's
    details (its title, shown in the panel on hover) name its unit's board; the waiting build too."""
    texts = step_texts(game_page)
    step8 = texts[7]
    assert "A Ser - Rum" in step8 and "read as A a-Ser@3 - a-Rum@3" in step8
    assert "read as A c-Ser@2 S a-Ser@3 - a-Rum@3" in step8
    # from step 3 on (timeline b forked in step 2), every order line that leaves its unit's timeline
    # out is followed by the order as read, fully designated (``c-Gal`` is the head of c in the step)
    for n, text in texts.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            found = re.match(r"    ((?:Build )?[AF] \S+.*?)\s{2,}(succeeds|fails|invalid)", line)
            if n >= 2 and found and "-" not in found[1].split(" ")[-1 if found[1].startswith("Build") else 1]:
                assert i + 1 < len(lines) and lines[i + 1].startswith("      read as "), (n, line)
                assert re.match(r"      read as (?:Build )?[AF] [a-z]+-[A-Z][a-z]+(/[a-z]+)?@\d+", lines[i + 1]), (n, lines[i + 1])
    now = texts[len(texts) - 1]
    assert "Germany: A Kie - Ruh (read as A a-Kie@6 - a-Ruh@6); A Ber - Pru (read as A a-Ber@6 - a-Pru@6); " \
        "A c-Ber - a-Ber@6 (read as A c-Ber@5 - a-Ber@6)" in now
    # the details of every order drawn: its unit with its board
    (view,) = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse view".*?</svg>(?=<aside>)', game_page, re.S)
    root = ET.fromstring(view)
    titles = [el.find(f"{SVG}title").text for el in root.iter() if el.get("data-order") is not None]
    assert len(titles) == sum(len(f.orders) for f in replayed[1])
    unqualified = [t for t in titles if not re.search(r"\b[AF] [a-z]+-[A-Z][a-z]+(/[a-z]+)?@\d+", t)
                   and not t.split(": ", 1)[1].startswith("Waive")]
    assert unqualified == []
    assert any(t.startswith("Austria: A Ser - Rum — succeeds") and "read as A a-Ser@3 - a-Rum@3" in t for t in titles)


# -- 6. the step label -------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_step_label_counts_the_steps_and_names_the_last_position(game_page, game_file, tmp_path, capsys):
    """14 steps played: the slider's 15 positions are labelled ``step 1 / 14`` to ``step 14 / 14`` and,
    last, the boards as they stand with the waiting orders; the label as drawn is the last one's."""
    labels = dict(re.findall(r'<div class="steptext" data-step="(\d+)" data-label="([^"]*)"', game_page))
    assert len(labels) == 15
    assert [labels[str(i)] for i in range(14)] == [f"step {i} / 14" for i in range(1, 15)]
    assert labels["14"] == "now: as it stands, orders waiting"
    assert '<span id="stepno">now: as it stands, orders waiting</span>' in game_page
    assert 'max="14"' in game_page
    # --step N opens the step labelled N; there is no step 15 yet
    out = tmp_path / "s.html"
    assert main(["render", str(game_file), "--step", "14", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'data-start="13"' in page and '<span id="stepno">step 14 / 14</span>' in page
    capsys.readouterr()
    assert main(["render", str(game_file), "--step", "15", "-o", str(tmp_path / "t.html")]) == 2
    assert "no step 15 (steps 1 to 14; without --step: the game as it stands)" in capsys.readouterr().err
    assert not (tmp_path / "t.html").exists()


def test_a_view_drawn_after_another_of_the_same_steps_is_drawn_as_if_alone(game_file):
    """Each player's view of a served game shares the steps played with the others' (``serve.pages``)
    and differs in its own waiting orders: the boards one view drew are kept and used by the next,
    which must come out exactly as if it had been drawn alone: of every step or of the last few, at
several steps shown first."""
    from dataclasses import replace

    from fivedp_asp.files.games import load_game
    from fivedp_asp.report.frames import game_pictures, game_steps

    waiting = {p: list(v) for p, v in load_game(game_file).pending.items() if v}
    assert waiting, "the game's step 15 has orders waiting"
    views = [{}, waiting]  # a spectator's, and the view of the power whose orders wait
    for before, view in (views, views[::-1]):
        game = load_game(game_file)
        shared = game_steps(game, "g")
        # the first steps drawn as the game stood then (fewer boards: the steps a served game keeps
        # are drawn again once it has moved on), then the game as it stands in another's view
        render.page("g", shared[:len(shared) // 2])
        render.page("g", game_pictures(replace(game, pending=before), "g", shared))
        # every step, then the last few only (as the table asks): fewer boards, laid out otherwise
        for recent in (None, 3):
            for start in (None, 0):
                shown = shared if recent is None else shared[-recent:]
                after = render.page("g", game_pictures(replace(game, pending=view), "g", shown), start=start)
                fresh = load_game(game_file)
                steps = game_steps(fresh, "g")
                alone = render.page("g", game_pictures(replace(fresh, pending=view), "g",
                                                       steps if recent is None else steps[-recent:]), start=start)
                assert after == alone, (recent, start)
