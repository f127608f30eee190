"""Pictures: the view's SVG is valid XML and draws every unit, owned supply centre and order exactly
once; each board once per state it was shown in, whatever the number of steps; arrows between boards
never cross a third board; one board alone; a game file; every scenario in cases/ draws; a 64-board
multiverse is quick; every name from the input is escaped."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from fivedp_asp.files.scenarios import find_scenarios
from fivedp_asp.cli import main
from fivedp_asp.report.render import DrawnOrder, Frame, frame_svg, page, render_file, scenario_frames

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
SVG = "{http://www.w3.org/2000/svg}"


def view_of(html: str) -> ET.Element:
    """The page's view (its one inline <svg> of the multiverse), parsed on its own as XML (the page is
    HTML, its picture is XML)."""
    (found,) = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse view".*?</svg>(?=<aside>)', html, re.S)
    return ET.fromstring(found)


def shown_at(root: ET.Element, step: int) -> Counter:
    """The boards the view shows at a step (counted from 0): their versions whose steps include it."""
    return Counter(el.get("data-board") for el in root.iter() if el.get("data-board") and el.get("data-from")
                   and int(el.get("data-from")) <= step <= int(el.get("data-to")))


def step_orders(root: ET.Element, step: int) -> list[ET.Element]:
    (group,) = [el for el in root.iter() if el.get("class", "").startswith("steporders") and el.get("data-step") == str(step)]
    return [el for el in group if el.get("data-order") is not None]


def attrs(root: ET.Element, name: str) -> Counter:
    """Each value of the attribute ``name`` with the number of shapes it is on; a list of values (the
    centres a power owns on a board, one shape) counts each."""
    return Counter(v for el in root.iter() if el.get(name) is not None for v in el.get(name).split())


def test_every_unit_centre_and_order_is_drawn_exactly_once():
    _, frames = scenario_frames(str(CASES / "mdatc/3.A.2.yaml"))
    assert len(frames) == 2
    for frame in frames:
        root = ET.fromstring(frame_svg(frame))
        units = attrs(root, "data-unit")
        want = Counter(f"{b.name}:{p}" for b in frame.mv.boards.values() for p in b.units)
        want.update(f"{b.name}:{r.unit.province}:dislodged" for b in frame.mv.boards.values() for r in b.retreats)
        assert units == want
        centres = attrs(root, "data-sc")  # owned centres on each board; the neutral discs are in the map, once
        assert centres == Counter(f"{b.name}:{p}" for b in frame.mv.boards.values() for p in b.centers)
        assert sum(1 for el in root.iter() if el.get("class") == "sc0") == len(frame.mv.game_map.supply_centers)
        assert attrs(root, "data-order") == Counter(str(i) for i in range(len(frame.orders)))
        assert attrs(root, "data-board") == Counter(b.name for b in frame.mv.boards.values())
    # step 2: the support reaches from a1 to a0, A Tyrolia is dislodged on b1, timeline b forked from a0
    root = ET.fromstring(frame_svg(frames[1]))
    orders = {el.get("data-order"): el for el in root.iter() if el.get("data-order")}
    kinds = sorted(el.get("class") for el in orders.values())
    assert kinds == ["order hold succeeds", "order support_move succeeds"]
    support = next(el for el in orders.values() if "support_move" in el.get("class"))
    assert " Q" in support.find(f"{SVG}path").get("d")  # a bow between boards
    forks = [el for el in root.iter() if (el.get("class") or "").startswith("forkline")]
    assert len(forks) == 1 and "forked from a0" in forks[0].find(f"{SVG}title").text
    dislodged = next(el for el in root.iter() if el.get("data-unit") == "b1:tyr:dislodged")
    title = dislodged.find(f"{SVG}title").text
    assert "may retreat to" in title and "Mun" not in title.split("may retreat to")[1]  # the attacker came from Munich


def test_failed_moves_are_marked():
    _, frames = scenario_frames(str(CASES / "mdatc/3.A.2.yaml"))
    root = ET.fromstring(frame_svg(frames[0]))
    failed = [el for el in root.iter() if el.get("class") == "order move fails"]
    assert len(failed) == 1
    assert any(el.get("class") == "failmark" for el in failed[0].iter())


def test_the_page_is_self_contained_and_allows_only_its_own_script():
    import base64
    import hashlib

    html = render_file(str(CASES / "mdatc/3.A.2.yaml"))
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert html.lower().count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    (csp,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert f"script-src &#x27;sha256-{digest}&#x27;;" in csp and "default-src &#x27;none&#x27;" in csp
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "document.write" not in script
    assert not re.search(r"(?:href|src)=\"(?!#)", html)  # nothing fetched: only references inside the page
    assert "url(" not in html.replace("url(#", "")
    root = view_of(html)
    assert root.get("data-steps") == "2" and root.get("data-start") == "1"  # the last step shown first
    assert "Dislodged: A Tyr on a0" in html  # the text results beside the picture


def test_one_board_alone_as_svg(tmp_path):
    out = tmp_path / "b1.svg"
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "--board", "b1", "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    assert attrs(root, "data-board") == Counter(["b1"])
    assert attrs(root, "data-unit") == Counter(["b1:tyr", "b1:tyr:dislodged"])


def test_bad_board_and_bad_output_are_bad_input(tmp_path, capsys):
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "--board", "z9", "-o", str(tmp_path / "x.svg")]) == 2
    assert "no board 'z9'" in capsys.readouterr().err
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "-o", str(tmp_path / "x.svg")]) == 2
    assert main(["render", str(tmp_path / "missing.yaml")]) == 2


def test_game_show_html(tmp_path):
    from fivedp_asp.files.games import load_game
    from fivedp_asp.report.frames import _recorded_frame

    game = tmp_path / "g.yaml"
    assert main(["game", "new", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - Tyr", "A Vie - Tyr", "F Lon - Nth"]) == 0
    assert main(["game", "adjudicate", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - a-Boh@0"]) == 0  # waiting: shown as text
    out = tmp_path / "g.html"
    assert main(["game", "show", str(game), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    root = view_of(html)
    assert root.get("data-steps") == "2"  # the step played, then "Now"
    assert shown_at(root, 0) == Counter(["a0", "a1"]) == shown_at(root, 1)
    assert attrs(root, "data-board") == Counter(["a0", "a1"])  # each drawn once: they did not change
    # step 1 replayed: the two moves on Tyrolia bounced, London went to the North Sea
    classes = sorted(el.get("class") for el in step_orders(root, 0))
    assert classes.count("order move fails") == 2 and classes.count("order move succeeds") == 1
    assert not step_orders(root, 1)
    assert "A Mun - Tyr" in html and "A Mun - a-Boh@0" in html
    # a game that cannot be replayed is drawn from its boards' records
    frame = _recorded_frame(load_game(game).mv, 1)
    root = ET.fromstring(frame_svg(frame))
    classes = sorted(el.get("class") for el in root.iter() if el.get("data-order"))
    assert classes.count("order move fails") == 2 and classes.count("order move succeeds") == 1


@pytest.mark.parametrize("path", sorted(find_scenarios([str(CASES)])), ids=lambda p: str(p.relative_to(CASES)))
def test_every_scenario_draws(path):
    """Each step alone, and the page of them all as ``render_file`` draws a scenario (its frames, then
    the page; the frames are made once here: making them adjudicates the scenario)."""
    title, frames = scenario_frames(str(path))
    for frame in frames:
        root = ET.fromstring(frame_svg(frame))
        assert sum(attrs(root, "data-order").values()) == len(frame.orders)
        assert max(attrs(root, "data-unit").values(), default=1) == 1
        assert sum(attrs(root, "data-unit").values()) == sum(len(b.units) + len(b.retreats) for b in frame.mv.boards.values())
    root = view_of(page(title, frames))
    for i, frame in enumerate(frames):
        assert shown_at(root, i) == Counter(b.name for b in frame.mv.boards.values())
        assert len(step_orders(root, i)) == len(frame.orders)


def test_a_300_board_view_holds_one_shape_a_unit_and_one_a_power_for_its_centres():
    """What a browser must lay out grows with units, not with the shapes that draw them: each unit is
    one element holding its own title (no group around it), the centres a power owns on a board are
    one shape, and the map is one symbol every board places; so the boards of a 300-board view hold
    at most a few elements each beside two (a shape and its title) a unit."""
    from tests.views import SIZES, synthetic_frames

    frames = synthetic_frames(*SIZES[300], steps=1)
    mv = frames[0].mv
    root = view_of(page("300 boards", frames))
    (boards,) = [el for el in root.iter() if el.get("class") == "boards"]
    units = [el for el in boards.iter() if el.get("data-unit")]
    assert len(units) == sum(len(b.units) for b in mv.boards.values()) > 5000
    for unit in units:
        assert unit.tag in (f"{SVG}circle", f"{SVG}polygon"), unit.tag
        ((title,),) = [list(unit)]
        assert title.tag == f"{SVG}title" and title.text.endswith(f" on {unit.get('data-unit').split(':')[0]}")
    for board in boards:
        owners = {o for o in mv.find_board(board.get("data-board")).centers.values()}
        centres = [el for el in board.iter() if (el.get("class") or "").startswith("sc ")]
        assert len(centres) == len(owners), board.get("data-board")
    assert sum(1 for el in root.iter() if el.tag == f"{SVG}symbol") == 1
    per_board = (sum(1 for _ in boards.iter()) - 1 - 2 * len(units)) / len(mv.boards)
    assert per_board <= 8 + max(len(set(b.centers.values())) for b in mv.boards.values()), per_board


@pytest.mark.slow
def test_a_64_board_multiverse_draws_in_under_a_second():
    from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse
    from fivedp_asp.engine.step import read_orders

    mv = synthetic_multiverse(8, 58)
    assert len(mv.boards) >= 64
    lines, _ = step_orders(mv, 20, 1)
    orders = tuple(DrawnOrder(r, "succeeds") for _, r in read_orders(mv, lines))
    mv.game_map.geometry  # the map's drawing is read once per process, not per picture
    started = time.perf_counter()
    html = page("64 boards", [Frame("Step", mv, orders, acting=frozenset(b.key for b in mv.heads))])
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, f"{elapsed:.2f}s"
    root = view_of(html)
    assert len(attrs(root, "data-board")) == len(mv.boards)
    assert sum(attrs(root, "data-order").values()) == len(orders)
    assert html.count('<use href="#map"') == len(mv.boards)  # the map itself is drawn once


def test_one_step_of_a_scenario(tmp_path):
    out = tmp_path / "s.html"
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "--step", "2", "-o", str(out)]) == 0
    root = view_of(out.read_text(encoding="utf-8"))
    assert root.get("data-start") == "1"  # the view opens on step 2; every step is there
    assert shown_at(root, 1) == Counter(["a0", "a1", "a2", "b1"]) and shown_at(root, 0) == Counter(["a0", "a1"])
    hidden = {el.get("data-board") for el in root.iter() if el.get("data-board") and "off" in el.get("class").split()}
    assert hidden == set()  # as drawn, before any script runs, step 2 is what shows
    assert all("off" in el.get("class").split() for el in root.iter() if el.get("data-step") == "0")
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "--step", "3", "-o", str(out)]) == 2


# -- input is escaped in every picture ---------------------------------------------------------------


def _svg_injected(root: ET.Element) -> list[str]:
    """Elements of a standalone SVG that are not SVG, or carry an event handler: markup from input."""
    found = []
    for el in root.iter():
        if not el.tag.startswith(SVG):
            found.append(f"element {el.tag}")
        found += [f"attribute {name} on {el.tag}" for name in el.attrib if name.startswith("on") or "\"" in name]
    return found


def test_every_name_from_input_is_escaped_in_the_page_and_the_board(tmp_path):
    from tests.hostile import RENDERED, Parts, injected, write_hostile

    scenario = write_hostile(tmp_path)
    html = render_file(str(scenario))
    assert injected(html) == []
    text = Parts(html).text
    for field, value in RENDERED.items():
        assert value in text, f"the {field} is not shown as text"
    (csp,) = [a["content"] for t, a in Parts(html).elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "unsafe-inline" not in csp
    # one board as its own page, and as SVG read by an XML parser
    board_page = render_file(str(scenario), board="a1")
    assert injected(board_page) == []
    assert all(value in Parts(board_page).text for value in RENDERED.values())
    svg = render_file(str(scenario), board="a1", svg_only=True)
    root = ET.fromstring(svg.split("\n", 1)[1])
    assert _svg_injected(root) == []
    svg_text = "".join(root.itertext())
    assert all(value in svg_text for key, value in RENDERED.items() if not key.startswith("scenario"))


def test_order_text_result_and_reason_are_escaped():
    """The notation parser refuses markup in order lines; the picture escapes them anyway (an API caller
    builds its own frames)."""
    from dataclasses import replace

    from tests.hostile import POWER_2, SCRIPT

    _, frames = scenario_frames(str(CASES / "mdatc/3.A.2.yaml"))
    frame = frames[1]
    hostile = tuple(DrawnOrder(replace(d.order, text=f"{SCRIPT}{d.order.text}", power=POWER_2), f"x\" onclick=\"{SCRIPT}",
                               f"<b>{SCRIPT}</b>") for d in frame.orders)
    root = ET.fromstring(frame_svg(replace(frame, orders=hostile, title=SCRIPT, text=(SCRIPT,))))
    assert _svg_injected(root) == []
    titles = [el.find(f"{SVG}title").text for el in root.iter() if el.get("data-order")]
    assert len(titles) == len(hostile) and all(SCRIPT in t and POWER_2 in t and f"<b>{SCRIPT}</b>" in t for t in titles)
    html = page(f"<i>{SCRIPT}</i>", [replace(frame, orders=hostile, title=SCRIPT, text=(SCRIPT,))])
    from tests.hostile import injected

    assert injected(html) == []


def test_a_game_file_name_is_escaped(tmp_path):
    from tests.hostile import GAME_STEM, Parts, injected

    game = tmp_path / f"{GAME_STEM}.yaml"
    assert main(["game", "new", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - Tyr"]) == 0
    assert main(["game", "adjudicate", str(game)]) == 0
    out = tmp_path / "g.html"
    assert main(["game", "show", str(game), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert injected(html) == []
    assert f"Game {GAME_STEM}" in Parts(html).text


# -- the view: boards drawn once, steps a view over them, arrows in the gutters -----------------------


def test_more_steps_over_the_same_boards_do_not_draw_them_again():
    from dataclasses import replace

    from tests.views import synthetic_frames

    (frame,) = synthetic_frames(8, 58, steps=1)
    bare = replace(frame, orders=())
    one, twelve = page("t", [bare]), page("t", [bare] * 12)
    assert len(twelve) - len(one) < 11 * 300, "a step without orders adds only its text and an empty group"
    root = view_of(twelve)
    assert attrs(root, "data-board") == Counter(b.name for b in frame.mv.boards.values())
    assert all(el.get("data-from") == "0" and el.get("data-to") == "11" for el in root.iter() if el.get("data-board"))
    # orders are drawn once, in their own step's group
    with_orders = view_of(page("t", [frame, bare, frame]))
    assert len(step_orders(with_orders, 0)) == len(frame.orders) == len(step_orders(with_orders, 2))
    assert not step_orders(with_orders, 1)


def test_a_board_is_drawn_once_for_each_state_it_was_shown_in():
    _, frames = scenario_frames(str(CASES / "multiverse/4.06-seed004-example-1-dislodged-past-supporter.yaml"))
    root = ET.fromstring(view_svg_of(frames))
    versions: dict[str, list[tuple[int, int]]] = {}
    for el in root.iter():
        if el.get("data-board"):
            versions.setdefault(el.get("data-board"), []).append((int(el.get("data-from")), int(el.get("data-to"))))
    for name, runs in versions.items():
        steps = [i for run in sorted(runs) for i in range(run[0], run[1] + 1)]
        assert steps == sorted(set(steps)), f"{name}: two states shown at one step"
        want = [i for i, f in enumerate(frames) if f.mv.find_board(name) is not None]
        assert steps == want, name
    # b2 waited for a retreat after step 3 and no longer after step 4: two states; a0 never changed
    assert len(versions["b2"]) == 2 and versions["a0"] == [(0, len(frames) - 1)]


def view_svg_of(frames):
    from fivedp_asp.report.render import view_svg

    return view_svg(frames)


def test_arrows_between_boards_never_cross_a_third_board():
    """Random pairs of points on boards of a 299-board grid with holes (timelines start late): every
    leg of the routed arrow runs inside its own two boards or in the gutters."""
    import random

    from fivedp_asp.lab.bench.positions import synthetic_multiverse
    from fivedp_asp.report.drawing import _route, grid_layout

    mv = synthetic_multiverse(12, 290)
    layout = grid_layout(mv.boards, mv.game_map.geometry)
    w, h = layout.board_size
    rects = {k: (x, y, x + w, y + h) for k, (x, y) in layout.origin.items()}
    rng = random.Random(7)
    keys = sorted(rects)
    crossings = []
    for lane in range(2000):
        a_board, b_board = rng.choice(keys), rng.choice(keys)
        a = layout.point(a_board, (rng.uniform(0, 1200), rng.uniform(0, 960)))
        b = layout.point(b_board, (rng.uniform(0, 1200), rng.uniform(0, 960)))
        points = _route(layout, a, a_board, b, b_board, lane)
        assert points[0] == a and points[-1] == b
        for p, q in zip(points, points[1:]):
            if a_board != b_board:
                assert p[0] == q[0] or p[1] == q[1], "legs between boards are straight along a gutter"
            x0, x1, y0, y1 = min(p[0], q[0]), max(p[0], q[0]), min(p[1], q[1]), max(p[1], q[1])
            for key, (rx0, ry0, rx1, ry1) in rects.items():
                if key in (a_board, b_board):
                    continue
                if x0 < rx1 and x1 > rx0 and y0 < ry1 and y1 > ry0:
                    crossings.append((a_board, b_board, key))
    assert crossings == []


@pytest.mark.slow
def test_a_random_game_replays_as_its_scenario_and_draws(tmp_path):
    """``game.random_play.random_game`` (the material of the large pictures) writes a scenario that replays to
    the multiverse it played, and the same seed gives the same game."""
    import yaml

    from fivedp_asp.game.random_play import random_game

    scenario, mv = random_game(3, 8, (4, 8), empty_share=0.9)
    assert random_game(3, 8, (4, 8), empty_share=0.9)[0] == scenario
    file = tmp_path / "random.yaml"
    file.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    _, frames = scenario_frames(str(file))
    assert len(frames) == len(scenario["steps"]) == 8
    assert {k: (b.units, b.centers) for k, b in frames[-1].mv.boards.items()} == \
        {k: (b.units, b.centers) for k, b in mv.boards.items()}
    assert len(mv.timelines) > 1  # moves into the past forked
    root = view_of(page(scenario["id"], frames))
    assert shown_at(root, 7) == Counter(b.name for b in mv.boards.values())


@pytest.mark.parametrize("index", range(8))
def test_a_map_whose_ids_are_not_plain_words_is_refused(tmp_path, capsys, index):
    """Province and coast ids are parts of locations, solver terms and picture attributes: an id that is
    not a plain word (markup, quotes, commas, brackets, the notation's / and -) is bad input."""
    import yaml
    from tests.hostile import MARKUP_IDS, write_hostile

    scenario = write_hostile(tmp_path)
    map_path = tmp_path / "hostile-map.yaml"
    data = yaml.safe_load(map_path.read_text(encoding="utf-8"))
    bad = MARKUP_IDS[index]
    if index % 2:
        data["coasts"][bad] = {"name": "odd"}
    else:
        data["provinces"][bad] = {"name": "odd", "type": "land"}
    map_path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["render", str(scenario), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert ("is not an id" in err or "is longer than" in err) and "hostile-map.yaml:" in err
    assert not (tmp_path / "x.html").exists()


def test_a_games_later_steps_drawn_from_its_first_steps_kept_are_the_steps_replayed_whole():
    # a server keeps the frames of the steps played and replays only the new ones: the frames must be
    # those a whole replay draws, whichever number of first steps was kept
    from fivedp_asp.game.random_play import random_game_until
    from fivedp_asp.report.frames import game_steps

    game = random_game_until(2, seed=3, history=True)
    whole = game_steps(game, "g")
    assert len(whole) == len(game.history) >= 3 and [f.step for f in whole] == list(range(1, len(whole) + 1))
    for kept in (1, 2, len(whole) - 1, len(whole)):
        assert game_steps(game, "g", known=whole[:kept]) == whole
    # frames kept of another game's first steps do not pass for this one's: its recorded results differ
    other = random_game_until(2, seed=4, history=True)
    drawn = game_steps(game, "g", known=game_steps(other, "o")[:1])
    assert [f.step for f in drawn] == [f.step for f in whole] and drawn[-1].mv == whole[-1].mv
