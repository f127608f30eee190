"""Hostile input for the picture tests: a small map whose names are markup, and a scenario on it.

Every field a picture may print carries its own payload, each of which would run a script, add an
element or break out of an attribute if it reached the page unescaped. Province and coast ids are
refused at load unless they are plain words (a letter, then letters, digits or ``_``:
``MARKUP_IDS`` below are each refused), so they carry no payload here.
Order lines are read by the notation parser, which refuses markup; the orders reach the picture
through the names they use and through their reasons (``bounced off A <province>``). Timeline and
board names are made by the program (``b1``), and option values are checked against their choices,
so neither can carry markup."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import yaml

SCRIPT = "<script>document.title='PW'+'NED'</script>"
POWER_1 = f"Eng</title>{SCRIPT}<title>"  # the report's name: closes a <title> early
POWER_2 = "Fra\" onmouseover=\"document.title='PW'+'NED'\" x=\"'><img src=x onerror=document.title=2>"
PROVINCE_ID = "alpha"
PROVINCE_NAME = f"Alpha</text></svg>{SCRIPT}<svg><text>"
PROVINCE_NAME_2 = "Bee <style>*{display:none}</style>"
COAST_ID = "farc"
MARKUP_IDS = ("<img src=x onerror=document.title=3>", "a<b", 'x"y', "p,q", "c(d)", "Mun/x", "a-b", "a b")
"""Ids a map may not have: each is refused when the map is read (exit status 2)."""
COAST_NAME = "far <b class=pwncoastname>coast</b>"
SCENARIO_ID = f"X{SCRIPT}"
SCENARIO_TITLE = f"T</title>{SCRIPT}<title>'\"&amp;"
DESCRIPTION = f"D{SCRIPT}"
GAME_STEM = "g<img src=x onerror=document.title=5>"
"""A game file's name (the page of a game is titled by it). Game files are played on the standard map
here: a game file writes units by province id, which the hostile map's ids cannot be read back from."""

RENDERED = {
    "power name": POWER_1, "power name (attribute)": POWER_2,
    "province name": PROVINCE_NAME, "province name 2": PROVINCE_NAME_2, "scenario id": SCENARIO_ID, "scenario title": SCENARIO_TITLE,
}
"""The hostile texts a scenario's page shows, each of which must appear there literally, as text."""

OUR_TAGS = frozenset({
    "html", "head", "meta", "title", "style", "script", "body", "h1", "h2", "section", "div", "pre", "span",
    "button", "input", "label", "header", "aside", "svg", "defs", "marker", "path", "symbol", "polygon",
    "text", "g", "rect", "use", "circle", "line",
})
"""The elements our pictures are made of; an element of another kind in a page came from input."""

OUR_ATTRIBUTES = frozenset({
    "charset", "class", "content", "cx", "cy", "d", "fill", "height", "href", "http-equiv", "id", "lang",
    "marker-end", "markerheight", "markerwidth", "orient", "points", "r", "refx", "refy", "stroke",
    "stroke-dasharray", "stroke-width", "transform", "viewbox", "width", "x", "x1", "x2", "xmlns", "y", "y1",
    "y2", "type", "value", "min", "max", "checked", "hidden", "aria-label",
    "font-size", "font-weight", "font-family", "text-anchor", "opacity",
})
"""The attributes our elements have (besides ``data-*``); any other one came from input."""


def write_hostile(directory: Path) -> Path:
    """Writes the hostile map and a two-step scenario on it into ``directory``; returns the scenario."""
    eng, fra = POWER_1, POWER_2
    game_map = {
        "name": "hostile",
        "title": f"Hostile map {SCRIPT}",
        "powers": {eng: {}, fra: {}},
        "coasts": {COAST_ID: {"name": COAST_NAME, "aliases": ["one"]}, "near": {"aliases": ["two"]}},
        "provinces": {
            PROVINCE_ID: {"name": PROVINCE_NAME, "center": True, "home": eng, "aliases": ["aaa"]},
            "bbb": {"name": PROVINCE_NAME_2, "center": True, "home": fra},
            "ccc": {"name": "Cee", "center": True, "home": fra},
            "sss": {"name": f"Sea ]]>{SCRIPT}"},
        },
        "geometry": {
            "size": [600, 300],
            "territories": {
                PROVINCE_ID: {"region": "land", "border": [[0, 0], [200, 0], [200, 150], [0, 150]],
                              "coast": [[200, 150], [0, 150]]},
                "bbb": {"region": "land", "border": [[200, 0], [400, 0], [400, 150], [300, 150], [200, 150]],
                        "coasts": {COAST_ID: [[400, 150], [300, 150]], "near": [[300, 150], [200, 150]]}},
                "ccc": {"region": "land", "border": [[400, 0], [600, 0], [600, 150], [400, 150]],
                        "coast": [[600, 150], [400, 150]]},
                "sss": {"region": "ocean",
                        "border": [[0, 150], [200, 150], [300, 150], [400, 150], [600, 150], [600, 300], [0, 300]]},
            },
        },
    }
    map_file = directory / "hostile-map.yaml"
    map_file.write_text(yaml.safe_dump(game_map, allow_unicode=True), encoding="utf-8")
    scenario = {
        "id": SCENARIO_ID, "title": SCENARIO_TITLE, "description": DESCRIPTION, "map": str(map_file),
        "start": {"units": {eng: ["A aaa"], fra: ["F bbb/one", "A ccc"]}},
        "steps": [
            {"note": f"N{SCRIPT}", "orders": {eng: ["A aaa - bbb"], fra: ["F bbb/one hold", "A ccc hold"]}},
            {"orders": {eng: ["A aaa - a-bbb@0"], fra: ["F bbb/one - sss"]}},
        ],
    }
    scenario_file = directory / "hostile-case.yaml"
    scenario_file.write_text(yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return scenario_file


class Parts(HTMLParser):
    """A page taken apart: every element's tag and attributes, and all of its text (entities decoded)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.texts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.texts)


def injected(text: str) -> list[str]:
    """What in a page came from input as markup: elements and attributes of kinds we never write
    (``<img>``, ``onmouseover``, the ``x"`` of a quote that broke out of an attribute)."""
    found = []
    for tag, attrs in Parts(text).elements:
        if tag not in OUR_TAGS:
            found.append(f"element <{tag}>")
        found += [f"attribute {name} on <{tag}>" for name in attrs
                  if name not in OUR_ATTRIBUTES and not name.startswith("data-")]
    return found
