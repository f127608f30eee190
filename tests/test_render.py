"""Pictures: the SVG of every step is valid XML and draws every unit, supply centre and order exactly
once; one board alone; a game file; every scenario in cases/ draws; a 64-board multiverse is quick."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from fivedp_asp.cases import find_cases
from fivedp_asp.cli import main
from fivedp_asp.render import DrawnOrder, Frame, frame_svg, page, render_file, scenario_frames

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
SVG = "{http://www.w3.org/2000/svg}"


def svgs_of(html: str) -> list[ET.Element]:
    """Each inline <svg> of a page, parsed on its own as XML (the page is HTML, its pictures are XML)."""
    found = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="multiverse.*?</svg>(?=</div>)', html, re.S)
    return [ET.fromstring(s) for s in found]


def attrs(root: ET.Element, name: str) -> Counter:
    return Counter(el.get(name) for el in root.iter() if el.get(name) is not None)


def test_every_unit_centre_and_order_is_drawn_exactly_once():
    _, frames = scenario_frames(str(CASES / "mdatc/3.A.2.yaml"))
    assert len(frames) == 2
    for frame in frames:
        root = ET.fromstring(frame_svg(frame))
        units = attrs(root, "data-unit")
        want = Counter(f"{b.name}:{p}" for b in frame.mv.boards.values() for p in b.units)
        want.update(f"{b.name}:{r.unit.province}:dislodged" for b in frame.mv.boards.values() for r in b.retreats)
        assert units == want
        centres = attrs(root, "data-sc")
        assert centres == Counter(f"{b.name}:{p}" for b in frame.mv.boards.values() for p in frame.mv.game_map.supply_centers)
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


def test_the_page_is_self_contained():
    html = render_file(str(CASES / "mdatc/3.A.2.yaml"))
    assert "<script" not in html.lower()
    assert not re.search(r"(?:href|src)=\"(?!#)", html)  # nothing fetched: only references inside the page
    assert "url(" not in html.replace("url(#", "")
    assert len(svgs_of(html)) == 2
    assert "Dislodged: A Tyr on a0" in html  # the text results below the pictures


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
    from fivedp_asp.game import load_game
    from fivedp_asp.render import _recorded_frame

    game = tmp_path / "g.yaml"
    assert main(["game", "new", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - Tyr", "A Vie - Tyr", "F Lon - Nth"]) == 0
    assert main(["game", "adjudicate", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - a-Boh@0"]) == 0  # waiting: shown as text
    out = tmp_path / "g.html"
    assert main(["game", "show", str(game), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    step, now = svgs_of(html)
    assert attrs(step, "data-board") == Counter(["a0", "a1"]) == attrs(now, "data-board")
    # step 1 replayed: the two moves on Tyrolia bounced, London went to the North Sea
    classes = sorted(el.get("class") for el in step.iter() if el.get("data-order"))
    assert classes.count("order move fails") == 2 and classes.count("order move succeeds") == 1
    assert not attrs(now, "data-order")
    assert "A Mun - Tyr" in html and "A Mun - a-Boh@0" in html
    # a game that cannot be replayed is drawn from its boards' records
    frame = _recorded_frame(load_game(game).mv, 1)
    root = ET.fromstring(frame_svg(frame))
    classes = sorted(el.get("class") for el in root.iter() if el.get("data-order"))
    assert classes.count("order move fails") == 2 and classes.count("order move succeeds") == 1


@pytest.mark.parametrize("path", sorted(find_cases([str(CASES)])), ids=lambda p: str(p.relative_to(CASES)))
def test_every_case_draws(path):
    _, frames = scenario_frames(str(path))
    for frame in frames:
        root = ET.fromstring(frame_svg(frame))
        assert sum(attrs(root, "data-order").values()) == len(frame.orders)
        assert max(attrs(root, "data-unit").values(), default=1) == 1
        assert sum(attrs(root, "data-unit").values()) == sum(len(b.units) + len(b.retreats) for b in frame.mv.boards.values())
    assert render_file(str(path)).count('<svg xmlns="http://www.w3.org/2000/svg" class="multiverse"') == len(frames)


def test_a_64_board_multiverse_draws_in_under_a_second():
    from fivedp_asp.bench import step_orders, synthetic_multiverse
    from fivedp_asp.step import read_orders

    mv = synthetic_multiverse(8, 58)
    assert len(mv.boards) >= 64
    lines, _ = step_orders(mv, 20, 1)
    orders = tuple(DrawnOrder(r, "succeeds") for _, r in read_orders(mv, lines))
    mv.game_map.geometry  # the map's drawing is read once per process, not per picture
    started = time.perf_counter()
    html = page("64 boards", [Frame("Step", mv, orders, acting=frozenset(b.key for b in mv.heads))])
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, f"{elapsed:.2f}s"
    (root,) = svgs_of(html)
    assert len(attrs(root, "data-board")) == len(mv.boards)
    assert sum(attrs(root, "data-order").values()) == len(orders)
    assert html.count('<use href="#map"') == len(mv.boards)  # the map itself is drawn once


def test_one_step_of_a_scenario(tmp_path):
    out = tmp_path / "s.html"
    assert main(["render", str(CASES / "mdatc/3.A.2.yaml"), "--step", "2", "-o", str(out)]) == 0
    (root,) = svgs_of(out.read_text(encoding="utf-8"))
    assert attrs(root, "data-board") == Counter(["a0", "a1", "a2", "b1"])
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
    from hostile import RENDERED, Parts, injected, write_hostile

    case = write_hostile(tmp_path)
    html = render_file(str(case))
    assert injected(html) == []
    text = Parts(html).text
    for field, value in RENDERED.items():
        assert value in text, f"the {field} is not shown as text"
    (csp,) = [a["content"] for t, a in Parts(html).elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'none'" in csp
    # one board as its own page, and as SVG read by an XML parser
    board_page = render_file(str(case), board="a1")
    assert injected(board_page) == []
    assert all(value in Parts(board_page).text for value in RENDERED.values())
    svg = render_file(str(case), board="a1", svg_only=True)
    root = ET.fromstring(svg.split("\n", 1)[1])
    assert _svg_injected(root) == []
    svg_text = "".join(root.itertext())
    assert all(value in svg_text for key, value in RENDERED.items() if not key.startswith("scenario"))


def test_order_text_result_and_reason_are_escaped():
    """The notation parser refuses markup in order lines; the picture escapes them anyway (an API caller
    builds its own frames)."""
    from dataclasses import replace

    from hostile import POWER_2, SCRIPT

    _, frames = scenario_frames(str(CASES / "mdatc/3.A.2.yaml"))
    frame = frames[1]
    hostile = tuple(DrawnOrder(replace(d.order, text=f"{SCRIPT}{d.order.text}", power=POWER_2), f"x\" onclick=\"{SCRIPT}",
                               f"<b>{SCRIPT}</b>") for d in frame.orders)
    root = ET.fromstring(frame_svg(replace(frame, orders=hostile, title=SCRIPT, text=(SCRIPT,))))
    assert _svg_injected(root) == []
    titles = [el.find(f"{SVG}title").text for el in root.iter() if el.get("data-order")]
    assert len(titles) == len(hostile) and all(SCRIPT in t and POWER_2 in t and f"<b>{SCRIPT}</b>" in t for t in titles)
    html = page(f"<i>{SCRIPT}</i>", [replace(frame, orders=hostile, title=SCRIPT, text=(SCRIPT,))])
    from hostile import injected

    assert injected(html) == []


def test_a_game_file_name_is_escaped(tmp_path):
    from hostile import GAME_STEM, Parts, injected

    game = tmp_path / f"{GAME_STEM}.yaml"
    assert main(["game", "new", str(game)]) == 0
    assert main(["game", "orders", str(game), "A Mun - Tyr"]) == 0
    assert main(["game", "adjudicate", str(game)]) == 0
    out = tmp_path / "g.html"
    assert main(["game", "show", str(game), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert injected(html) == []
    assert f"Game {GAME_STEM}" in Parts(html).text
