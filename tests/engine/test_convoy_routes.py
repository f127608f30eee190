"""Which convoying fleets lie on a route (docs/rules.md §3.3, §6.3 and §6.8.1), against a
brute-force search written here independently of the logic programs.

A route is a chain of convoying fleets that visits no sea twice, from a sea next to the army's
province to a sea next to the destination. The scenarios in cases/ show a few shapes (a dead end off
a route, a loop); here random sets of open-convoying fleets on the standard map, with two armies
moving by convoy, are adjudicated together, and every fleet's result is compared with an
enumeration of all simple chains: an open convoy succeeds exactly when its fleet lies on a route of
some army, and an army arrives exactly when it has a route (nothing else stands in the way).
"""

from __future__ import annotations

import pytest

import random
from pathlib import Path

import yaml

from fivedp_asp.files.scenarios import read_scenario, check_scenarios
from fivedp_asp.model.map import load_map

POSITIONS = 60


def _geography():
    """Seas, coastal provinces, sea-to-sea adjacency and which seas touch each coastal province, read
    from the map's fleet edges."""
    game_map = load_map("standard")
    seas = set(game_map.sea_provinces)
    coasts = sorted(p.id for p in game_map.provinces.values() if p.type == "coast")
    adj: dict[str, set[str]] = {s: set() for s in seas}
    touching: dict[str, set[str]] = {c: set() for c in coasts}
    for a, b in game_map.edges("fleet"):
        pa, pb = game_map.province_of(a), game_map.province_of(b)
        if pa in seas and pb in seas:
            adj[pa].add(pb)
            adj[pb].add(pa)
        elif pa in seas and pb in touching:
            touching[pb].add(pa)
        elif pb in seas and pa in touching:
            touching[pa].add(pb)
    return game_map, sorted(seas), coasts, adj, touching


def _on_routes(fleets: set[str], origin: str, dest: str, adj, touching) -> set[str]:
    """Every fleet on some simple chain of fleets from a sea next to ``origin`` to one next to ``dest``."""
    found: set[str] = set()

    def extend(chain: list[str]) -> None:
        last = chain[-1]
        if last in touching[dest]:
            found.update(chain)
        for nxt in adj[last]:
            if nxt in fleets and nxt not in chain:
                chain.append(nxt)
                extend(chain)
                chain.pop()

    for first in touching[origin] & fleets:
        extend([first])
    return found


def _position(rng: random.Random, seas, coasts):
    fleets = set(rng.sample(seas, rng.randint(6, 14)))
    origin1, dest1, origin2, dest2 = rng.sample(coasts, 4)
    return fleets, [(origin1, dest1), (origin2, dest2)]


@pytest.mark.slow
def test_open_convoys_succeed_exactly_on_routes(tmp_path: Path):
    game_map, seas, coasts, adj, touching = _geography()
    name = {p: game_map.provinces[p].name for p in game_map.provinces}
    rng = random.Random(19)
    positions, scenarios = [], []
    for n in range(POSITIONS):
        fleets, armies = _position(rng, seas, coasts)
        scenario = {
            "id": f"routes {n}",
            "options": {"open_convoys": True},
            "start": {"units": {"England": [f"F {name[s]}" for s in sorted(fleets)],
                                "France": [f"A {name[o]}" for o, _ in armies]}},
            "steps": [{"orders": {"England": [f"F {name[s]} C" for s in sorted(fleets)],
                                  "France": [f"A {name[o]} - {name[d]} via convoy" for o, d in armies]}}],
        }
        path = tmp_path / f"routes-{n}.yaml"
        path.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
        positions.append((fleets, armies))
        scenarios.append(read_scenario(path))
    dead_ends = 0
    for (fleets, armies), run in zip(positions, check_scenarios(scenarios)):
        assert not isinstance(run, Exception), run
        results = {o.text: o.result for o in run.reports[0].outcomes}
        on_route = set()
        for origin, dest in armies:
            routes = _on_routes(fleets, origin, dest, adj, touching)
            on_route |= routes
            move = results[f"A {name[origin]} - {name[dest]} via convoy"]
            assert move == ("succeeds" if routes else "invalid"), (run.scenario.id, origin, dest, move)
        for sea in fleets:
            want = "succeeds" if sea in on_route else "fails"
            assert results[f"F {name[sea]} C"] == want, (run.scenario.id, sea, sorted(fleets), armies)
        # fleets reached from both ends of a route, but on none: the shape that needs more than reachability
        for origin, dest in armies:
            if _on_routes(fleets, origin, dest, adj, touching):
                both = _reached(fleets, touching[origin], adj) & _reached(fleets, touching[dest], adj)
                dead_ends += len(both - on_route)
    assert dead_ends >= 5, "the positions should include fleets on dead ends off a route"


def _reached(fleets: set[str], start: set[str], adj) -> set[str]:
    """The fleets reached from the fleets in ``start`` through adjacent fleets."""
    seen = set(start & fleets)
    todo = list(seen)
    while todo:
        for nxt in adj[todo.pop()]:
            if nxt in fleets and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
