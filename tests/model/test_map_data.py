"""Hold fivedp_asp/maps/standard.yaml against the reference facts of the standard map.

The YAML is loaded with pyyaml only. The reference facts are a copy kept with the tests
(tests/data/standard-map-facts.json); the self-consistency checks run with or without them.
"""

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

MAP_PATH = Path(__file__).parent / "../../fivedp_asp/maps/standard.yaml"
REF_PATH = Path(__file__).parent.parent / "data/standard-map-facts.json"

POWER_ORDER = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
TYPES = {"land", "coast", "sea", "impassable"}
RESERVED = {
    "a", "f", "army", "fleet", "s", "c", "h", "hold", "holds", "support", "supports",
    "convoy", "convoys", "via", "to", "build", "disband", "remove", "retreat", "waive",
}
UNIT_RE = re.compile(r"^(A|F) (.+?)(?:\((\w+)\))?$")


def fold(text):
    """Lookup key for a written name: case, dots, hyphens, underscores and spacing do not matter."""
    text = text.lower().replace(".", " ").replace("-", " ").replace("_", " ")
    return re.sub(r"\s+", " ", text).strip()


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def m():
    with open(MAP_PATH, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@pytest.fixture(scope="module")
def ref():
    if not REF_PATH.is_file():
        pytest.skip(f"reference facts not found at {REF_PATH}")
    with open(REF_PATH, encoding="utf-8") as fh:
        return json.load(fh)


# --------------------------------------------------------------------------- helpers

def aliases(entry):
    return entry.get("aliases") or []


def split_edge(s):
    a, sep, b = s.partition("-")
    assert sep and a and b and "-" not in b, f"malformed edge {s!r}"
    return a, b


def edge_set(edges):
    """Undirected edges as a set of frozensets."""
    return {frozenset(e) for e in edges}


def directed(edges):
    """Every undirected edge in both directions: location -> set of neighbours."""
    adj = defaultdict(set)
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    return adj


def loc_name(m, loc):
    pid, _, coast = loc.partition("/")
    prov = m["provinces"].get(pid)
    name = prov["name"] if prov else "?"
    if coast:
        name += f" ({m['coasts'].get(coast, {}).get('name', coast)})"
    return f"{loc} [{name}]"


def describe(m, edges):
    out = []
    for e in sorted(edges, key=lambda e: sorted(e)):
        a, b = sorted(e)
        out.append(f"{loc_name(m, a)} - {loc_name(m, b)}")
    return out


def name_index(m):
    """lower-cased id / name / alias -> province id."""
    idx = {}
    for pid, p in m["provinces"].items():
        for key in [pid, p["name"], *aliases(p)]:
            idx[fold(key)] = pid
    return idx


def map_edges(m, kind):
    return [split_edge(s) for s in m[kind]]


def compare_edges(m, mine, theirs, kind):
    mine_set, ref_set = edge_set(mine), edge_set(theirs)
    missing = ref_set - mine_set
    extra = mine_set - ref_set
    msg = []
    if missing:
        msg.append(f"{kind} edges missing from the map ({len(missing)}):\n  " + "\n  ".join(describe(m, missing)))
    if extra:
        msg.append(f"{kind} edges in the map but not in the reference ({len(extra)}):\n  " + "\n  ".join(describe(m, extra)))
    assert not msg, "\n".join(msg)
    # Both directions: every location has exactly the reference neighbours.
    a_mine, a_ref = directed(mine), directed(theirs)
    bad = []
    for loc in sorted(set(a_mine) | set(a_ref)):
        if a_mine.get(loc, set()) != a_ref.get(loc, set()):
            bad.append(f"{loc}: map {sorted(a_mine.get(loc, set()))} vs reference {sorted(a_ref.get(loc, set()))}")
        for n in a_mine.get(loc, set()):
            assert loc in a_mine[n], f"{kind} edge {loc}->{n} has no reverse"
    assert not bad, f"{kind} neighbour sets differ:\n  " + "\n  ".join(bad)


def parse_unit(m, idx, text):
    mo = UNIT_RE.match(text)
    assert mo, f"malformed starting unit {text!r}"
    utype, place, coast = mo.groups()
    pid = idx.get(fold(place))
    assert pid, f"unknown province in starting unit {text!r}"
    loc = f"{pid}/{coast.lower()}" if coast else pid
    return f"{utype.lower()} {loc}"


# --------------------------------------------------------------------------- structure (no reference needed)

def test_top_level(m):
    assert m["name"] == "standard"
    assert isinstance(m["title"], str) and m["title"]
    for key in ["powers", "coasts", "provinces", "army", "fleet", "start"]:
        assert key in m, key


def test_powers(m):
    assert list(m["powers"]) == POWER_ORDER
    for p, entry in m["powers"].items():
        assert isinstance(entry["adjective"], str) and entry["adjective"]
        assert all(isinstance(a, str) for a in aliases(entry)), p


def test_province_entries(m):
    coast_ids = set(m["coasts"])
    for pid, p in m["provinces"].items():
        assert re.fullmatch(r"[a-z]{3}", pid), pid
        assert isinstance(p["name"], str) and p["name"], pid
        assert p["type"] in TYPES, (pid, p["type"])
        assert set(p) <= {"name", "type", "center", "home", "capital", "coasts", "aliases"}, (pid, set(p))
        if "capital" in p:
            # a time centre of the sustain phase (docs/rules.md §6.8.3): a power's capital is one of its home centres
            assert p["capital"] is True and p.get("center") is True and "home" in p, pid
        if "center" in p:
            assert p["center"] is True, pid
        if "home" in p:
            assert p["home"] in m["powers"], pid
            assert p.get("center") is True, f"home centre {pid} is not a supply centre"
        if "coasts" in p:
            assert p["type"] == "coast", pid
            assert len(p["coasts"]) >= 2, pid
            assert set(p["coasts"]) <= coast_ids, pid


def test_edges_well_formed(m):
    provs = m["provinces"]
    for kind in ["army", "fleet"]:
        seen = Counter(frozenset(e) for e in map_edges(m, kind))
        dup = [sorted(e) for e, n in seen.items() if n > 1]
        assert not dup, f"{kind} edges listed more than once: {dup}"
        for a, b in map_edges(m, kind):
            assert a != b, f"{kind} self-loop {a}"
            for loc in (a, b):
                pid, _, coast = loc.partition("/")
                assert pid in provs, f"{kind} edge names unknown province {loc!r}"
                t = provs[pid]["type"]
                if kind == "army":
                    assert not coast, f"army edge uses a coast: {a}-{b}"
                    assert t in {"land", "coast"}, f"army edge touches {t} province {pid}"
                else:
                    assert t in {"sea", "coast"}, f"fleet edge touches {t} province {pid}"
                    if "coasts" in provs[pid]:
                        assert coast in provs[pid]["coasts"], f"fleet edge needs a coast of {pid}: {a}-{b}"
                    else:
                        assert not coast, f"fleet edge gives a coast to single-coast {pid}: {a}-{b}"


def test_aliases_are_strings_and_not_redundant(m):
    for pid, p in m["provinces"].items():
        for a in aliases(p):
            assert isinstance(a, str) and a == a.strip() and a, (pid, a)
            assert a.lower() not in {pid, p["name"].lower()}, f"{pid}: alias {a!r} repeats id or name"
        low = [a.lower() for a in aliases(p)]
        assert len(low) == len(set(low)), f"{pid}: duplicate alias"


def test_aliases_unique_across_provinces(m):
    owner = defaultdict(set)
    for pid, p in m["provinces"].items():
        for key in [pid, p["name"], *aliases(p)]:
            owner[fold(key)].add(pid)
    clashes = {k: sorted(v) for k, v in owner.items() if len(v) > 1}
    assert not clashes, f"names/aliases shared by several provinces: {clashes}"


def test_aliases_do_not_collide_with_reserved_words(m):
    powers = set()
    for p, entry in m["powers"].items():
        powers |= {fold(p), fold(entry["adjective"]), *(fold(a) for a in aliases(entry))}
    coast_words = set()
    for c, entry in m["coasts"].items():
        coast_words |= {fold(c), fold(entry["name"]), *(fold(a) for a in aliases(entry))}
    bad = []
    for pid, p in m["provinces"].items():
        for key in [pid, p["name"], *aliases(p)]:
            k = fold(key)
            if k in RESERVED:
                bad.append(f"{pid}: {key!r} is a reserved order word")
            if k in powers:
                bad.append(f"{pid}: {key!r} collides with a power name/adjective/alias")
            if k in coast_words:
                bad.append(f"{pid}: {key!r} collides with a coast designation")
    assert not bad, "\n".join(bad)


def test_start_units_resolve(m):
    idx = name_index(m)
    occupied = Counter()
    assert list(m["start"]) == POWER_ORDER
    for power, units in m["start"].items():
        for u in units:
            utype, loc = parse_unit(m, idx, u).split(" ")
            pid, _, coast = loc.partition("/")
            occupied[pid] += 1
            t = m["provinces"][pid]["type"]
            if utype == "a":
                assert t in {"land", "coast"} and not coast, u
            else:
                assert t in {"sea", "coast"}, u
                assert bool(coast) == ("coasts" in m["provinces"][pid]), u
    assert max(occupied.values()) == 1


# --------------------------------------------------------------------------- against the reference

def test_province_set_and_types(m, ref):
    mine = {pid: p["type"] for pid, p in m["provinces"].items()}
    missing = sorted(set(ref["provinces"]) - set(mine))
    extra = sorted(set(mine) - set(ref["provinces"]))
    assert not missing and not extra, f"missing {missing}, extra {extra}"
    wrong = {pid: (mine[pid], t) for pid, t in ref["provinces"].items() if mine[pid] != t}
    assert not wrong, f"types differ (map, reference): {wrong}"


def test_coasts(m, ref):
    mine = {pid: sorted(f"{pid}/{c}" for c in p["coasts"])
            for pid, p in m["provinces"].items() if "coasts" in p}
    theirs = {pid: sorted(cs) for pid, cs in ref["coasts"].items()}
    assert mine == theirs


def test_army_edges(m, ref):
    compare_edges(m, map_edges(m, "army"), [tuple(e) for e in ref["army_edges"]], "army")


def test_fleet_edges(m, ref):
    compare_edges(m, map_edges(m, "fleet"), [tuple(e) for e in ref["fleet_edges"]], "fleet")


def test_edge_counts(m, ref):
    assert len(m["army"]) == len(ref["army_edges"])
    assert len(m["fleet"]) == len(ref["fleet_edges"])


def test_supply_centres(m, ref):
    mine = {pid for pid, p in m["provinces"].items() if p.get("center")}
    theirs = set(ref["supply_centres"])
    assert mine == theirs, f"missing {sorted(theirs - mine)}, extra {sorted(mine - theirs)}"


def test_home_centres(m, ref):
    mine = defaultdict(set)
    for pid, p in m["provinces"].items():
        if "home" in p:
            mine[p["home"].upper()].add(pid)
    theirs = {pw.upper(): set(pvs) for pw, pvs in ref["homes"].items()}
    assert dict(mine) == theirs


def test_starting_units(m, ref):
    idx = name_index(m)
    mine = {pw.upper(): sorted(parse_unit(m, idx, u) for u in units) for pw, units in m["start"].items()}
    theirs = {pw.upper(): sorted(u.lower() for u in units) for pw, units in ref["start_units"].items()}
    assert mine == theirs
