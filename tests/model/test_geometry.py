"""Maps from geometry: the seed's adjacency definitions, errors naming the territory, and the standard map
drawn as geometry against the reference facts (tests/data/standard-map-facts.json), pair for pair;
hostile geometry (far points, huge borders, bad ids, wrong shapes) refused with its line, in bounded
time, through the module and the CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fivedp_asp.model import geometry as geometry_module
from fivedp_asp import limits
from fivedp_asp.errors import InputError
from fivedp_asp.model.geometry import GeometryError, derive, parse_geometry
from fivedp_asp.yaml_lines import parse_yaml
from fivedp_asp.model.map import load_map, parse_map

DATA = Path(__file__).parent.parent / "data" / "standard-map-facts.json"


def pairs(edges):
    return {tuple(sorted(e)) for e in edges}


# -- the standard map -------------------------------------------------------------------------------


@pytest.mark.slow
def test_standard_geometry_matches_the_reference_facts_pair_for_pair():
    facts = json.loads(DATA.read_text(encoding="utf-8"))
    m = load_map(str(Path(__file__).parents[2] / "fivedp_asp/maps/standard-geometry.yaml"))
    assert pairs(m.army_edges) == pairs(facts["army_edges"])
    assert pairs(m.fleet_edges) == pairs(facts["fleet_edges"])
    assert len(pairs(m.army_edges)) == 111 and len(pairs(m.fleet_edges)) == 141
    types = {p.id: p.type for p in m.provinces.values()}
    assert types == facts["provinces"]
    for prov, coasts in facts["coasts"].items():
        assert sorted(m.locations(prov, "fleet")) == sorted(coasts)
    assert sorted(m.supply_centers) == sorted(facts["supply_centres"])


def test_standard_map_and_its_geometry_agree():
    m = load_map("standard")
    assert m.geometry is not None
    adj = derive(m.geometry)
    assert adj.army == m.army_edges and adj.fleet == m.fleet_edges
    assert len(m.geometry.territories) == len(m.provinces)


# -- the seed's definitions -------------------------------------------------------------------------


def small_map(territories: dict, provinces: dict | None = None, **extra) -> dict:
    provinces = provinces or {t: {"name": t.upper()} for t in territories}
    return {"name": "small", "powers": {"P": {}}, "provinces": provinces,
            "geometry": {"size": [10, 10], "territories": territories}, **extra}


def test_territories_sharing_two_consecutive_points_are_adjacent_one_point_is_not():
    # the seed's example: A and B share (1,0),(1,1); A and C share only (1,1)
    terr = {
        "a": {"region": "land", "border": [[0, 0], [1, 0], [1, 1], [0, 1]]},
        "b": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]},
        "c": {"region": "land", "border": [[1, 1], [2, 1], [2, 2], [1, 1]]},  # closed explicitly, as in the seed
    }
    m = parse_map(small_map(terr))
    assert pairs(m.army_edges) == {("a", "b"), ("b", "c")}
    assert ("a", "c") not in m.army_edges


def test_coasts_adjacent_when_they_share_an_endpoint():
    # the seed's example: A's coast ends where B(top) begins; B(bottom) shares no point with A's coast
    terr = {
        "a": {"region": "land", "border": [[0, 0], [1, 0], [2, 0], [2, 1], [0, 1]], "coast": [[0, 0], [1, 0], [2, 0]]},
        "b": {"region": "land", "border": [[2, 0], [3, 0], [3, 1], [2, 1]],
              "coasts": {"top": [[2, 0], [3, 0]], "bot": [[2, 1], [3, 1]]}},
        "n": {"region": "ocean", "border": [[0, 0], [0, -1], [3, -1], [3, 0], [2, 0], [1, 0]]},
        "s": {"region": "ocean", "border": [[0, 1], [2, 1], [3, 1], [3, 2], [0, 2]]},
    }
    provinces = {"a": {"name": "A"}, "b": {"name": "B"}, "n": {"name": "N"}, "s": {"name": "S"}}
    data = small_map(terr, provinces, coasts={"top": {"name": "top"}, "bot": {"name": "bottom"}})
    m = parse_map(data)
    assert ("a", "b/top") in m.fleet_edges
    assert ("a", "b/bot") not in m.fleet_edges
    # a territory is adjacent to a coast whose path shares two points with its border
    assert ("n", "a") in m.fleet_edges and ("n", "b/top") in m.fleet_edges
    assert ("s", "b/bot") in m.fleet_edges and ("s", "a") not in m.fleet_edges  # a has no coast on s
    assert ("a", "b") in m.army_edges and ("n", "s") not in m.fleet_edges
    assert m.provinces["b"].type == "coast" and m.provinces["n"].type == "sea"


# -- errors ------------------------------------------------------------------------------------------


SQUARE = {"region": "land", "border": [[0, 0], [1, 0], [1, 1], [0, 1]]}


def error_of(territories: dict, **extra) -> str:
    with pytest.raises(InputError) as info:
        parse_map(small_map(territories, **extra))
    return str(info.value)


def test_a_border_that_does_not_close_is_bad_input_naming_the_territory():
    message = error_of({"spa": {"region": "land", "border": [[0, 0], [1, 0], [0, 0]]}})
    assert "territory spa" in message and "closed polygon" in message
    message = error_of({"spa": {"region": "land", "border": [[0, 0], [2, 0], [1, 1], [2, 0], [2, 2]]}})
    assert "territory spa" in message and "twice" in message
    message = error_of({"spa": {"region": "land", "border": [[0, 0], [4, 4], [4, 0], [0, 2]]}})
    assert "territory spa" in message and "crosses itself" in message


def test_a_coast_off_its_border_is_bad_input_naming_the_territory():
    message = error_of({"bul": {**SQUARE, "coast": [[0, 0], [5, 5]]}})
    assert "territory bul" in message and "not on the territory's border" in message
    message = error_of({"bul": {**SQUARE, "coast": [[0, 0], [1, 1]]}})
    assert "territory bul" in message and "leaves the territory's border" in message


def test_points_shared_in_a_way_the_rules_cannot_read_are_bad_input():
    # b's corner (1,1) lies inside a's segment (1,0)-(1,2): adjacent or not cannot be read
    message = error_of({
        "a": {"region": "land", "border": [[0, 0], [1, 0], [1, 2], [0, 2]]},
        "b": {"region": "land", "border": [[1, 1], [2, 1], [2, 2], [1, 2]]},
    })
    assert "territory b" in message and "[1, 1]" in message
    # one segment on three borders
    message = error_of({
        "a": {"region": "land", "border": [[0, 0], [1, 0], [1, 1], [0, 1]]},
        "b": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]},
        "c": {"region": "land", "border": [[1, 0], [1, 1], [3, 3]]},
    })
    assert "territory a" in message and "only two territories" in message


def test_listed_adjacency_must_agree_with_the_geometry_naming_the_pairs():
    terr = {
        "a": SQUARE,
        "b": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]},
        "c": {"region": "land", "border": [[2, 0], [3, 0], [3, 1], [2, 1]]},
    }
    message = error_of(terr, army=["a-c", "b-c"], fleet=[])
    assert "army a-b is adjacent in the geometry but not listed" in message
    assert "army a-c is listed but the geometry does not make them adjacent" in message
    assert "b-c" not in message


def test_a_map_whose_geometry_file_disagrees_fails_when_loaded(tmp_path):
    standard = Path(__file__).parents[2] / "fivedp_asp/maps/standard.yaml"
    data = yaml.safe_load(standard.read_text(encoding="utf-8"))
    data["army"] = [e for e in data["army"] if e != "mun-tyr"] + ["mos-rum"]
    (tmp_path / "standard-geometry.yaml").write_text(
        (standard.parent / "standard-geometry.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "bent.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    m = load_map(str(path))
    with pytest.raises(InputError) as info:
        m.geometry
    assert "army mun-tyr is adjacent in the geometry but not listed" in str(info.value)
    assert "army mos-rum is listed" in str(info.value)


def test_geometry_alone_is_a_whole_map():
    m = parse_map(small_map({"a": SQUARE, "b": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]}}))
    assert m.geometry is not None and pairs(m.army_edges) == {("a", "b")}
    assert parse_geometry({"territories": {"a": SQUARE}}, "x").territories["a"].province_type == "land"


def test_a_canal_ends_on_its_territory_border():
    # k lies between two seas that touch it along its west and east sides; the canal crosses it
    terr = {
        "k": {"region": "land", "border": [[1, 0], [2, 0], [2, 2], [1, 2]],
              "coast": [[[1, 0], [1, 2]], [[2, 2], [2, 0]]], "canals": [[[1, 2], [2, 0]]]},
        "w": {"region": "ocean", "border": [[0, 0], [1, 0], [1, 2], [0, 2]]},
        "e": {"region": "ocean", "border": [[2, 0], [3, 0], [3, 2], [2, 2]]},
    }
    m = parse_map(small_map(terr))
    assert {("w", "k"), ("e", "k")} <= m.fleet_edges and ("w", "e") not in m.fleet_edges
    terr["k"]["canals"] = [[[1, 2], [5, 5]]]
    message = error_of(terr)
    assert "territory k" in message and "canal" in message


def test_a_scenario_on_a_bad_geometry_map_exits_2_naming_the_territory(tmp_path, capsys):
    from fivedp_asp.cli import main

    bad = small_map({"a": SQUARE, "b": {"region": "land", "border": [[1, 0], [2, 0]]}})
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    scenario = {"id": "X", "map": str(tmp_path / "bad.yaml"), "start": {"units": {"P": ["A A"]}}, "steps": []}
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    assert main(["adjudicate", str(tmp_path / "case.yaml")]) == 2
    err = capsys.readouterr().err
    assert "territory b" in err and "closed polygon" in err and "Traceback" not in err


# -- hostile input: bounds, shapes and ids ------------------------------------------------------------

def square(x0: int, y0: int, w: int, per_side: int) -> list[list[int]]:
    """A w x w square's border with ``per_side`` points on each side (w a multiple of per_side)."""
    step = w // per_side
    sides = [((1, 0), (x0, y0)), ((0, 1), (x0 + w, y0)), ((-1, 0), (x0 + w, y0 + w)), ((0, -1), (x0, y0 + w))]
    return [[sx + dx * step * i, sy + dy * step * i] for (dx, dy), (sx, sy) in sides for i in range(per_side)]


def geometry_error(text: str, path: str = "g.yaml") -> GeometryError:
    """The error of a geometry written as YAML text, read as a map file's geometry is (with lines)."""
    with pytest.raises(GeometryError) as info:
        parse_geometry(parse_yaml(text, path), path)
    assert isinstance(info.value, InputError)
    return info.value


def test_a_point_far_outside_the_map_is_refused_at_its_line_without_allocating():
    text = ("size: [10, 10]\nterritories:\n  a:\n    region: land\n"
            "    border: [[0, 0], [1, 0],\n      [1000000000000000, 1], [0, 1]]\n")
    start = time.perf_counter()
    err = geometry_error(text)
    assert time.perf_counter() - start < 1
    assert err.line == 6 and "territory a" in err.problem and "1,000,000" in err.problem
    assert "1000000000000000" not in str(err)  # quoted as a short prefix only


def test_coordinates_at_the_bound_are_accepted_one_beyond_is_not():
    big = limits.MAX_GEOMETRY_COORD
    ok = {"territories": {"a": {"region": "land", "border": [[-big, -big], [big, -big], [big, big]]}}}
    assert parse_geometry(ok, "x").territories["a"].border[2] == (big, big)
    bad = {"territories": {"a": {"region": "land", "border": [[-big, -big], [big + 1, -big], [big, big]]}}}
    with pytest.raises(GeometryError, match="beyond 1,000,000"):
        parse_geometry(bad, "x")


def test_a_missing_size_is_the_far_corner_of_the_drawing_and_a_bad_size_is_refused():
    g = parse_geometry({"territories": {"a": {"region": "land", "border": [[0, 0], [30, 0], [30, 20]], "at": [40, 5]}}}, "x")
    assert g.size == (40, 20)
    for size, line in (("[0, 10]", 1), ("[10, -5]", 1), ("[10]", 1), ("ten", 1)):
        err = geometry_error(f"size: {size}\nterritories:\n  a: {{region: land, border: [[0, 0], [1, 0], [1, 1]]}}\n")
        assert err.line == line and "size" in err.problem


def test_a_scenario_on_a_geometry_map_without_size_is_drawn(tmp_path, capsys):
    from fivedp_asp.cli import main

    data = small_map({"a": SQUARE, "b": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]}})
    del data["geometry"]["size"]
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    scenario = {"id": "X", "map": str(tmp_path / "m.yaml"), "start": {"units": {"P": ["A a"]}}, "steps": []}
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    assert main(["render", str(tmp_path / "case.yaml"), "-o", str(tmp_path / "out.html")]) == 0
    assert 'viewBox="0 0 2 1"' in (tmp_path / "out.html").read_text(encoding="utf-8")


def test_coasts_written_as_a_list_are_refused_at_their_line():
    err = geometry_error("territories:\n  a:\n    region: land\n    border: [[0, 0], [1, 0], [1, 1]]\n"
                         "    coasts: [[[0, 0], [1, 0]]]\n")
    assert err.line == 5 and "territory a" in err.problem and "'coasts' must map coast names" in err.problem


@pytest.mark.parametrize("bad", [",", "(", '"', "\\", "/", "-", " ", ")", "@", ":", "é"])
def test_an_id_with_a_character_outside_letters_digits_and_underscore_is_refused(bad):
    tid = f"a{bad}b"
    text = yaml.safe_dump({"territories": {tid: {"region": "land", "border": [[0, 0], [1, 0], [1, 1]]}}},
                          allow_unicode=True)
    err = geometry_error(text)
    assert err.line == 2 and f"the character {bad!r} is not allowed" in err.problem
    text = yaml.safe_dump({"territories": {"a": {"region": "land", "border": [[0, 0], [1, 0], [1, 1]],
                                                 "coasts": {tid: [[0, 0], [1, 0]]}}}}, allow_unicode=True)
    err = geometry_error(text)
    assert "coast name" in err.problem and f"the character {bad!r} is not allowed" in err.problem


def test_ids_that_are_not_text_or_too_long_or_start_with_a_digit_are_refused():
    assert "its first character" in geometry_error("territories:\n  1a: {region: land, border: [[0, 0], [1, 0], [1, 1]]}\n").problem
    assert "write it as text" in geometry_error("territories:\n  12: {region: land, border: [[0, 0], [1, 0], [1, 1]]}\n").problem
    assert "write it as text" in geometry_error("territories:\n  yes: {region: land, border: [[0, 0], [1, 0], [1, 1]]}\n").problem
    long_id = "a" * 500
    err = geometry_error(f"territories:\n  {long_id}: {{region: land, border: [[0, 0], [1, 0], [1, 1]]}}\n")
    assert "longer than 32 characters" in err.problem and len(str(err)) < 200


def test_ids_with_underscores_and_digits_work_through_the_solver():
    terr = {"north_1": {"region": "land", "border": [[0, 0], [1, 0], [1, 1], [0, 1]]},
            "South_2": {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]}}
    assert pairs(parse_map(small_map(terr, {"north_1": {"name": "N"}, "South_2": {"name": "S"}})).army_edges) == {
        ("north_1", "south_2")}


def test_territory_ids_equal_ignoring_case_are_refused():
    err = geometry_error("territories:\n  eng: {region: land, border: [[0, 0], [1, 0], [1, 1]]}\n"
                         "  Eng: {region: land, border: [[1, 0], [2, 0], [2, 1]]}\n")
    assert err.line == 3 and "'eng' and 'Eng' name the same province" in err.problem
    err = geometry_error("territories:\n  a:\n    region: land\n    border: [[0, 0], [1, 0], [1, 1]]\n"
                         "    coasts: {nc: [[0, 0], [1, 0]], NC: [[1, 0], [1, 1]]}\n")
    assert "'nc' and 'NC' name the same coast" in err.problem


def test_province_ids_equal_ignoring_case_are_refused(tmp_path):
    data = small_map({"eng": SQUARE}, {"eng": {"name": "English Channel"}, "Eng": {"name": "England"}})
    with pytest.raises(InputError, match="'eng' and 'Eng' name the same province"):
        parse_map(data)


def test_a_coast_name_keeps_its_case_in_the_derived_adjacency():
    terr = {
        "a": {"region": "land", "border": [[0, 0], [1, 0], [2, 0], [2, 1], [0, 1]], "coasts": {"NC": [[0, 0], [1, 0], [2, 0]]}},
        "n": {"region": "ocean", "border": [[0, 0], [0, -1], [3, -1], [3, 0], [2, 0], [1, 0]]},
    }
    m = parse_map(small_map(terr, coasts={"NC": {"name": "north"}}))
    assert pairs(m.fleet_edges) == {("a/NC", "n")}


def test_unknown_keys_and_wrong_shapes_are_refused_at_their_line():
    base = "territories:\n  a:\n    region: land\n    border: [[0, 0], [1, 0], [1, 1]]\n"
    assert geometry_error(base + "    borders: []\n").line == 5
    assert "region must be one of" in geometry_error(base.replace("land", "lava")).problem
    assert "not a point" in geometry_error(base.replace("[1, 1]", "[1, 1, 1]")).problem
    assert "not a point" in geometry_error(base.replace("[1, 1]", "{x: 1}")).problem
    assert "a path is a list" in geometry_error(base + "    coast: [[[0, 0]]]\n").problem
    assert "unknown key" in geometry_error("size: [5, 5]\nborder: 3\n" + base).problem
    assert "must be a mapping with 'territories'" in geometry_error("territories: [a, b]\n").problem


@pytest.mark.parametrize("limit, value, text, expect", [
    ("MAX_TERRITORIES", 2, "territories:\n" + "".join(
        f"  t{i}: {{region: land, border: [[{i}, 0], [{i + 1}, 0], [{i + 1}, 1]]}}\n" for i in range(3)),
     "3 territories (the limit is 2)"),
    ("MAX_BORDER_POINTS", 3, "territories:\n  a: {region: land, border: [[0, 0], [1, 0], [1, 1], [0, 1], [0, 2]]}\n",
     "the border has 5 points (the limit is 3)"),
    ("MAX_BORDER_POINTS", 3, "territories:\n  a: {region: land, border: [[0, 0], [1, 0], [1, 1], [0, 1]]}\n",
     "the border has 4 points (the limit is 3)"),
    ("MAX_BORDER_POINTS", 3, "territories:\n  a: {region: land, border: [[0, 0], [1, 0], [1, 1], [0, 0]]}\n"
     "  b: {region: land, border: [[1, 0], [2, 0], [2, 1], [1, 0], [1, 1]]}\n", "territory b: the border has 5"),
    ("MAX_GEOMETRY_POINTS", 6, "territories:\n" + "".join(
        f"  t{i}: {{region: land, border: [[{i}, 0], [{i + 1}, 0], [{i + 1}, 1]]}}\n" for i in range(3)),
     "more than 6 points"),
    ("MAX_ID_CHARS", 3, "territories:\n  abcd: {region: land, border: [[0, 0], [1, 0], [1, 1]]}\n",
     "longer than 3 characters"),
])
def test_each_geometry_limit_is_enforced_with_its_message(monkeypatch, limit, value, text, expect):
    monkeypatch.setattr(geometry_module, limit, value)
    assert expect in geometry_error(text).problem


def test_a_border_too_dense_to_check_within_the_test_budget_is_refused(monkeypatch):
    # a comb: many long teeth side by side in one coarse cell need many segment tests
    teeth = 200
    border = [[0, 0]] + [pt for i in range(teeth) for pt in ([2 * i + 1, 0], [2 * i + 1, 1000], [2 * i + 2, 1000], [2 * i + 2, 0])]
    border += [[2 * teeth + 1, 0], [2 * teeth + 1, -5], [0, -5]]
    terr = {"territories": {"c": {"region": "land", "border": border}}}
    assert parse_geometry(terr, "x").territories["c"]  # a valid polygon, checked within the default budget
    monkeypatch.setattr(geometry_module, "MAX_GEOMETRY_TESTS", 1000)
    with pytest.raises(GeometryError, match="too dense to check"):
        parse_geometry(terr, "x")


# -- near-linear work ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_border_of_40000_points_is_checked_with_a_linear_number_of_segment_tests(monkeypatch):
    # the budget is 10 tests per point: a pairwise check (or a grid too coarse) would exhaust it
    monkeypatch.setattr(geometry_module, "MAX_GEOMETRY_TESTS", 400_000)
    # a shares a side with b point for point; c, drawn coarsely, lies apart (segments of two scales)
    terr = {"a": {"region": "land", "border": square(0, 0, 40_000, 10_000)},
            "b": {"region": "ocean", "border": square(40_000, 0, 40_000, 10_000)},
            "c": {"region": "ocean", "border": square(100_000, 0, 40_000, 100)}}
    g = parse_geometry({"territories": terr}, "x")
    assert len(g.territories["a"].border) == 40_000
    geometry_module._check_shared(g, "x")  # every point of both against the other's segments, same budget


@pytest.mark.slow
def test_a_border_of_40000_points_derives_its_adjacency_in_seconds():
    # land a with a coast of 10,001 points along sea b to its right, and land c above it sharing a
    # side of 10,000 points
    a = square(0, 0, 40_000, 10_000)
    terr = {"a": {"region": "land", "border": a, "coast": a[10_000:20_001]},
            "b": {"region": "ocean", "border": square(40_000, 0, 40_000, 10_000)},
            "c": {"region": "land", "border": square(0, 40_000, 40_000, 10_000)}}
    start = time.perf_counter()
    adj = derive(parse_geometry({"territories": terr}, "x"))
    elapsed = time.perf_counter() - start
    assert pairs(adj.army) == {("a", "c")} and pairs(adj.fleet) == {("a", "b")}
    # 2 to 8 s; a join scanning every point of a border, or counting a coast's shared points once per
    # shared point, takes minutes
    assert elapsed < 30, f"{elapsed:.1f}s"


# -- the checks against an independent, pairwise reading -------------------------------------------------


def naive_crossing(points: list[tuple[int, int]]) -> bool:
    """Any two non-neighbouring segments of the ring sharing a point, tested pair by pair with exact
    fractions (independent of the module's orientation test)."""
    from fractions import Fraction

    n = len(points)
    segs = [(points[i], points[(i + 1) % n]) for i in range(n)]

    def on(p, a, b):
        return ((b[0] - a[0]) * (p[1] - a[1]) == (b[1] - a[1]) * (p[0] - a[0])
                and min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))

    def meet(s, t):
        (a, b), (c, d) = s, t
        if any(on(p, *t) for p in s) or any(on(p, *s) for p in t):
            return True
        den = (b[0] - a[0]) * (d[1] - c[1]) - (b[1] - a[1]) * (d[0] - c[0])
        if den == 0:
            return False
        u = Fraction((c[0] - a[0]) * (d[1] - c[1]) - (c[1] - a[1]) * (d[0] - c[0]), den)
        v = Fraction((c[0] - a[0]) * (b[1] - a[1]) - (c[1] - a[1]) * (b[0] - a[0]), den)
        return 0 <= u <= 1 and 0 <= v <= 1

    return any(meet(segs[i], segs[j]) for i in range(n) for j in range(i + 2, n) if not (i == 0 and j == n - 1))


coordinate = st.one_of(st.integers(-6, 6), st.integers(-40, 40), st.sampled_from([-1000, 0, 1000, 2 ** 19]))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(coordinate, coordinate), min_size=3, max_size=12, unique=True))
def test_self_crossing_agrees_with_a_pairwise_check(points):
    border = [list(p) for p in points]
    area2 = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))
    try:
        parse_geometry({"territories": {"t": {"region": "land", "border": border}}}, "x")
        refused = None
    except GeometryError as exc:
        refused = str(exc)
    if area2 == 0:
        assert refused and "no area" in refused
    else:
        assert (refused is not None and "crosses itself" in refused) == naive_crossing(points), refused


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-8, 8), st.integers(-8, 8)), min_size=3, max_size=8, unique=True),
       st.integers(-8, 8), st.integers(-8, 8))
def test_points_on_another_border_agree_with_a_pairwise_check(points, dx, dy):
    # a triangle or polygon, and the same shape shifted: a point of one inside a segment of the other
    # without being its end is bad input, found the same way pair by pair
    first = [tuple(p) for p in points]
    second = [(x + dx, y + dy) for x, y in first]
    geos = []
    for border in (first, second):
        try:
            geos.append(parse_geometry({"territories": {"t": {"region": "land", "border": [list(p) for p in border]}}}, "x"))
        except GeometryError:
            return  # not a polygon: the shape alone is refused
    g = geometry_module.Geometry((10, 10), {"a": geometry_module.Territory("a", "land", tuple(first), {}),
                                            "b": geometry_module.Territory("b", "land", tuple(second), {})})

    def inside(r, p, q):
        return (r not in (p, q) and (q[0] - p[0]) * (r[1] - p[1]) == (q[1] - p[1]) * (r[0] - p[0])
                and min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1]))

    segs = {(min(p, q), max(p, q)) for ring in (first, second) for p, q in zip(ring, ring[1:] + ring[:1])}
    owners = {}
    for ring, name in ((first, "a"), (second, "b")):
        for p, q in zip(ring, ring[1:] + ring[:1]):
            owners.setdefault((min(p, q), max(p, q)), set()).add(name)
    expected = any(inside(r, p, q) for r in set(first) | set(second) for p, q in segs)
    try:
        geometry_module._check_shared(g, "x")
        found = False
    except GeometryError as exc:
        found = "lies on the border" in str(exc)
        if not found:
            assert "only two territories" in str(exc)
            return
    assert found == expected


# -- through the CLI --------------------------------------------------------------------------------------


BAD_MAPS = {
    "far point": ("a", {"region": "land", "border": [[0, 0], [1, 0], [10 ** 15, 1], [0, 1]]}, "beyond 1,000,000"),
    "coasts as a list": ("a", {**SQUARE, "coasts": [[[0, 0], [1, 0]]]}, "'coasts' must map coast names"),
    "comma in an id": ("a,b", SQUARE, "the character ','"),
    "backslash in an id": ("a\\b", SQUARE, "the character '\\\\'"),
    "slash in an id": ("a/b", SQUARE, "the character '/'"),
    "case": ("A", {"region": "land", "border": [[1, 0], [2, 0], [2, 1], [1, 1]]}, "name the same province (ids are compared ignoring case)"),
}


@pytest.mark.parametrize("name", sorted(BAD_MAPS))
@pytest.mark.parametrize("command", ["adjudicate", "render"])
def test_bad_geometry_maps_exit_2_with_one_error_line_naming_file_and_line(tmp_path, capsys, name, command):
    from fivedp_asp.cli import main

    tid, terr, expect = BAD_MAPS[name]
    territories = {"a": SQUARE, tid: terr} if tid != "a" else {"a": terr}
    provinces = {t: {"name": "X" + t} for t in territories}
    text = yaml.safe_dump(json.loads(json.dumps(small_map(territories, provinces))))  # no YAML aliases
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    scenario = {"id": "X", "map": str(tmp_path / "bad.yaml"), "start": {"units": {"P": []}}, "steps": []}
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    args = [command, str(tmp_path / "case.yaml")] + (["-o", str(tmp_path / "o.html")] if command == "render" else [])
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:") and "Traceback" not in err
    assert expect in err
    line = err.split(str(tmp_path / "bad.yaml") + ":")[1].split(":")[0]
    assert line.isdigit() and int(line) > 1


def test_a_bad_geometry_file_beside_its_map_exits_2_when_drawn(tmp_path, capsys):
    from fivedp_asp.cli import main

    m = {"name": "sep", "powers": {"P": {}}, "provinces": {"a": {"name": "A", "type": "land"}, "b": {"name": "B", "type": "land"}},
         "army": ["a-b"], "fleet": [], "geometry": "sep-geometry.yaml"}
    (tmp_path / "sep.yaml").write_text(yaml.safe_dump(m), encoding="utf-8")
    g = "geometry:\n  territories:\n    a: {region: land, border: [[0, 0], [1, 0], [1, 1], [0, 1]]}\n" \
        "    b:\n      region: land\n      border: [[1, 0], [2, 0], [2, 1], [1, 1]]\n      coasts: [[[1, 0], [2, 0]]]\n"
    (tmp_path / "sep-geometry.yaml").write_text(g, encoding="utf-8")
    scenario = {"id": "X", "map": str(tmp_path / "sep.yaml"), "start": {"units": {"P": ["A a"]}}, "steps": []}
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    assert main(["render", str(tmp_path / "case.yaml"), "-o", str(tmp_path / "o.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {tmp_path / 'sep-geometry.yaml'}:7: territory b: 'coasts' must map coast names to their "
                   "paths ({nc: [[[x, y], ...]]}); a territory with one unnamed coast writes 'coast:' instead")


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(-10 ** 7, 10 ** 7) | st.text(max_size=6),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=12),
       st.sampled_from(["border", "coast", "coasts", "canals", "at", "region", "size", "territory", "territories"]))
def test_any_value_in_any_place_of_a_geometry_is_read_or_refused_as_input(value, place):
    terr = {"region": "land", "border": [[0, 0], [2, 0], [2, 2], [0, 2]], "coast": [[0, 0], [2, 0]]}
    data: dict = {"size": [5, 5], "territories": {"a": terr}}
    if place == "size":
        data["size"] = value
    elif place == "territory":
        data["territories"]["a"] = value
    elif place == "territories":
        data["territories"] = value
    else:
        terr[place] = value
    try:
        g = parse_geometry(data, "x")
        derive(g, "x")
    except InputError as exc:
        assert len(str(exc)) < 400
