"""Maps from geometry: the seed's adjacency definitions, errors naming the territory, and the standard map
drawn as geometry against the reference facts (tests/data/standard-map-facts.json), pair for pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fivedp_asp.errors import InputError
from fivedp_asp.geometry import derive, parse_geometry
from fivedp_asp.map import load_map, parse_map

DATA = Path(__file__).parent / "data" / "standard-map-facts.json"


def pairs(edges):
    return {tuple(sorted(e)) for e in edges}


# -- the standard map -------------------------------------------------------------------------------


def test_standard_geometry_matches_the_reference_facts_pair_for_pair():
    facts = json.loads(DATA.read_text(encoding="utf-8"))
    m = load_map(str(Path(__file__).parents[1] / "fivedp_asp/maps/standard-geometry.yaml"))
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
    standard = Path(__file__).parents[1] / "fivedp_asp/maps/standard.yaml"
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
    case = {"id": "X", "map": str(tmp_path / "bad.yaml"), "start": {"units": {"P": ["A A"]}}, "steps": []}
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(case), encoding="utf-8")
    assert main(["adjudicate", str(tmp_path / "case.yaml")]) == 2
    err = capsys.readouterr().err
    assert "territory b" in err and "closed polygon" in err and "Traceback" not in err
