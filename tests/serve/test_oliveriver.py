"""The routes of the community's client (``fivedp serve --oliveriver``), held without its code: every
answer is checked against shapes written here from that client's TypeScript types (field names,
types, the values of its enums), and short games are played through those routes alone: made,
joined, ordered, adjudicated, with a move into the past that forks a timeline, retreats and builds.
On SQLite, and on PostgreSQL where one is running (``conftest.db_url``)."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from fivedp_asp.model.map import load_map
from fivedp_asp.serve.oliveriver import check_client
from fivedp_asp.serve.oliveriver_world import (OrderRefused, board_key, location_of, major_board, region_id,
                                               winter_board)

from tests.serve.conftest import TWO_POWERS

from starlette.testclient import TestClient  # noqa: E402  (conftest skips without the serve extra)

from fivedp_asp.serve.app import make_app  # noqa: E402

# -- their types, as shapes ----------------------------------------------------------------------------

NATIONS = {"England", "Germany", "Russia", "Turkey", "Austria", "Italy", "France"}
PHASES = {"Spring", "Fall", "Winter"}
STATUSES = {"New", "Success", "Failure", "Invalid", "RetreatNew", "RetreatSuccess", "RetreatFailure", "RetreatInvalid"}
UNIT_TYPES = {"Army", "Fleet"}
# each order type's own fields beside $type, status, unit and location
ORDER_FIELDS = {"Hold": set(), "Move": {"destination"}, "Support": {"supportLocation", "destination"},
                "Convoy": {"convoyLocation", "destination"}, "Build": set(), "Disband": set()}
MAP = load_map("standard")
# their region ids: a sea in capitals (NTH), another province capitalised (Par), a coast after _ (Spa_N)
REGION = re.compile(r"^(?:[A-Z]{3}|[A-Z][a-z]{2}(?:_[NSEW])?)$")


def is_region(region: object, *, base: bool = False) -> bool:
    """A region id of their map, naming a province of the standard map as their convention writes it
    (``base``: a province, never one of its coasts, as centres are keyed)."""
    if not isinstance(region, str) or not REGION.match(region):
        return False
    prov, _, coast = region.partition("_")
    province = MAP.provinces.get(prov.lower())
    if province is None or prov.lower() == "swi" or (province.type == "sea") != prov.isupper():
        return False
    if coast:
        return not base and any(c[0] == coast.lower() for c in province.coasts)
    return True


def check_location(loc: object) -> dict:
    assert isinstance(loc, dict) and set(loc) == {"timeline", "year", "phase", "region"}, loc
    assert type(loc["timeline"]) is int and loc["timeline"] >= 1, loc
    assert type(loc["year"]) is int and loc["year"] >= 1901, loc
    assert loc["phase"] in PHASES and is_region(loc["region"]), loc
    return loc


def check_unit(unit: object) -> dict:
    assert isinstance(unit, dict) and set(unit) == {"owner", "type", "mustRetreat"}, unit
    assert unit["owner"] in NATIONS and unit["type"] in UNIT_TYPES and type(unit["mustRetreat"]) is bool, unit
    return unit


def check_order(order: object) -> dict:
    assert isinstance(order, dict) and order.get("$type") in ORDER_FIELDS, order
    assert set(order) == {"$type", "status", "unit", "location"} | ORDER_FIELDS[order["$type"]], order
    assert order["status"] in STATUSES, order
    check_unit(order["unit"])
    check_location(order["location"])
    for field in ORDER_FIELDS[order["$type"]]:
        check_location(order[field])
    return order


def check_board(board: object) -> dict:
    assert isinstance(board, dict), board
    assert set(board) == {"timeline", "year", "phase", "childTimelines", "centres", "units"}, set(board)
    assert type(board["timeline"]) is int and type(board["year"]) is int and board["phase"] in PHASES
    assert isinstance(board["childTimelines"], list) and all(type(t) is int for t in board["childTimelines"])
    assert isinstance(board["centres"], dict) and isinstance(board["units"], dict)
    for region, owner in board["centres"].items():
        assert is_region(region, base=True) and MAP.provinces[region.lower()].center and owner in NATIONS
    for region, unit in board["units"].items():
        assert is_region(region)
        check_unit(unit)
    return board


def check_world(world: object) -> dict:
    assert isinstance(world, dict) and set(world) == {"iteration", "boards", "orders", "winner"}, world
    assert type(world["iteration"]) is int and world["iteration"] >= 0
    assert world["winner"] is None or world["winner"] in NATIONS
    assert isinstance(world["boards"], list) and isinstance(world["orders"], list)
    keys = [(b["timeline"], b["year"], b["phase"]) for b in map(check_board, world["boards"])]
    assert len(keys) == len(set(keys)), "a board drawn twice"
    for order in world["orders"]:
        check_order(order)
    return world


def check_game(game: object) -> dict:
    assert isinstance(game, dict) and set(game) == {"id", "hasStrictAdjacencies", "player"}, game
    assert type(game["id"]) is int and type(game["hasStrictAdjacencies"]) is bool
    assert game["player"] is None or game["player"] in NATIONS
    return game


# -- a table of their client ---------------------------------------------------------------------------


def loc(t: int, year: int, phase: str, region: str) -> dict:
    return {"timeline": t, "year": year, "phase": phase, "region": region}


def unit(owner: str, kind: str = "Army", retreat: bool = False) -> dict:
    return {"owner": owner, "type": kind, "mustRetreat": retreat}


def move(owner: str, here: dict, there: dict, kind: str = "Army", status: str = "New") -> dict:
    return {"$type": "Move", "status": status, "unit": unit(owner, kind, status == "RetreatNew"), "location": here,
            "destination": there}


def support(owner: str, here: dict, of: dict, to: dict) -> dict:
    return {"$type": "Support", "status": "New", "unit": unit(owner), "location": here, "supportLocation": of,
            "destination": to}


def hold(owner: str, here: dict) -> dict:
    return {"$type": "Hold", "status": "New", "unit": unit(owner), "location": here}


def build(owner: str, here: dict, kind: str = "Army") -> dict:
    return {"$type": "Build", "status": "New", "unit": unit(owner, kind), "location": here}


class Their:
    """Their client's six requests, on one game."""

    def __init__(self, client: TestClient, number: int):
        self.client, self.number = client, number

    def world(self, player: str | None = None) -> dict:
        r = self.client.get(f"/game/{self.number}", params={"player": player} if player else {})
        assert r.status_code == 200, r.text
        return check_world(r.json())

    def orders(self, players: list[str], *orders: dict) -> dict:
        r = self.client.post(f"/game/{self.number}/orders", json={"players": players, "orders": list(orders)})
        assert r.status_code == 200, r.text
        return r.json()

    def iteration(self) -> int:
        r = self.client.get(f"/game/{self.number}/iteration")
        assert r.status_code == 200 and type(r.json()) is int, r.text
        return r.json()

    def submitted(self) -> list[str]:
        r = self.client.get(f"/game/{self.number}/players/submitted")
        assert r.status_code == 200 and all(p in NATIONS for p in r.json()), r.text
        return r.json()

    def join(self, player: str | None, sandbox: bool = False):
        return self.client.put(f"/game/{self.number}/players", json={"isSandbox": sandbox, "player": player})


@pytest.fixture
def their(db_url: str):
    with TestClient(make_app(db_url, deadline_check=None, oliveriver=True)) as c:
        yield c


def new_game(client: TestClient, **body) -> tuple[Their, dict]:
    r = client.post("/game", json={"isSandbox": False, "player": None, "hasStrictAdjacencies": False, **body})
    assert r.status_code == 200, r.text
    game = check_game(r.json())
    return Their(client, game["id"]), game


def board(world: dict, t: int, year: int, phase: str) -> dict | None:
    return next((b for b in world["boards"] if (b["timeline"], b["year"], b["phase"]) == (t, year, phase)), None)


def results(world: dict) -> list[tuple]:
    """Each order as (type, status, owner, where, to): where and to as 'T1 Spring 1901 Par'."""
    def at(x: dict | None) -> str | None:
        return None if x is None else f"T{x['timeline']} {x['phase']} {x['year']} {x['region']}"
    return [(o["$type"], o["status"], o["unit"]["owner"], at(o["location"]), at(o.get("destination")))
            for o in world["orders"]]


S1, F1, W1, S2, F2 = (1, 1901, "Spring"), (1, 1901, "Fall"), (1, 1901, "Winter"), (1, 1902, "Spring"), (1, 1902, "Fall")


# -- the mapping ---------------------------------------------------------------------------------------------


def test_every_place_of_the_map_is_one_of_their_regions_and_back():
    places = [p for p in MAP.provinces if p != "swi"]
    places += [f"{p}/{c}" for p, prov in MAP.provinces.items() for c in prov.coasts]
    regions = [region_id(MAP, p) for p in places]
    assert all(is_region(r) for r in regions) and len(set(regions)) == len(places) == 81
    assert [location_of(MAP, r) for r in regions] == places
    pairs = {"nth": "NTH", "lyo": "LYO", "nao": "NAO", "naf": "Naf", "par": "Par", "stp": "Stp", "spa/nc": "Spa_N",
             "stp/sc": "Stp_S", "bul/ec": "Bul_E", "bul/sc": "Bul_S"}
    assert {p: region_id(MAP, p) for p in pairs} == pairs
    assert region_id(MAP, "swi") is None  # impassable: their map has no region for it
    for bad in ("Swi", "Xyz", "Par_N", "Spa_W", "", 7):
        with pytest.raises(OrderRefused):
            location_of(MAP, bad)


def test_boards_both_ways():
    # timelines from 0 here, from 1 there; even turns Spring, odd Fall; a Winter before each even turn
    assert major_board((0, 0)) == (1, 1901, "Spring") and major_board((2, 3)) == (3, 1902, "Fall")
    assert winter_board((1, 2)) == (2, 1901, "Winter") and winter_board((0, 4)) == (1, 1902, "Winter")
    for key in [(0, 0), (0, 1), (3, 7), (26, 10)]:
        assert board_key(*major_board(key)) == key
    assert board_key(2, 1901, "Winter") == (1, 2)


# -- a game through their routes alone ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_game_through_their_routes_alone(their):
    t, game = new_game(their, player="France", start=TWO_POWERS)
    assert game["player"] == "France" and game["hasStrictAdjacencies"] is False
    assert check_game(t.join("Germany").json())["player"] == "Germany"
    assert t.join(None).status_code == 409  # both powers of this game have joined: none is left at random
    assert check_game(t.join("France").json())["player"] == "France"  # coming back is joining again
    first = t.world("France")
    assert first["iteration"] == 0 and [(b["timeline"], b["year"], b["phase"]) for b in first["boards"]] == [S1]
    assert board(first, *S1)["units"]["Par"] == unit("France") and board(first, *S1)["centres"]["Kie"] == "Germany"
    assert board(first, *S1)["units"]["Kie"] == unit("Germany", "Fleet") and first["orders"] == []

    # Spring 1901: France submits first; only France sees its orders waiting
    r = t.orders(["France"], move("France", loc(*S1, "Par"), loc(*S1, "Bur")),
                 support("France", loc(*S1, "Mar"), loc(*S1, "Par"), loc(*S1, "Bur")),
                 move("France", loc(*S1, "Bre"), loc(*S1, "MAO"), "Fleet"))
    assert r["adjudicated"] is False and r["refused"] == []
    assert t.submitted() == ["France"] and t.iteration() == 0
    assert {o["status"] for o in t.world("France")["orders"]} == {"New"} and len(t.world("France")["orders"]) == 3
    assert t.world("Germany")["orders"] == [] and t.world()["orders"] == []
    r = t.orders(["Germany"], move("Germany", loc(*S1, "Mun"), loc(*S1, "Ruh")),
                 move("Germany", loc(*S1, "Kie"), loc(*S1, "Den"), "Fleet"),
                 move("Germany", loc(*S1, "Ber"), loc(*S1, "Mun")))
    assert r["adjudicated"] is True and t.iteration() == 1 and t.submitted() == []
    w = t.world("Germany")
    assert [(b["year"], b["phase"]) for b in w["boards"]] == [(1901, "Spring"), (1901, "Fall")]
    assert ("Move", "Success", "France", "T1 Spring 1901 Par", "T1 Spring 1901 Bur") in results(w)
    assert ("Support", "Success", "France", "T1 Spring 1901 Mar", "T1 Spring 1901 Bur") in results(w)
    assert set(board(w, *F1)["units"]) == {"Bur", "Mar", "MAO", "Ruh", "Mun", "Den"}

    # Fall 1901: Germany dislodges the French army in Burgundy (attack 2 against hold 1)
    t.orders(["France"], hold("France", loc(*F1, "Bur")), move("France", loc(*F1, "Mar"), loc(*F1, "Spa")),
             move("France", loc(*F1, "MAO"), loc(*F1, "Por"), "Fleet"))
    t.orders(["Germany"], move("Germany", loc(*F1, "Ruh"), loc(*F1, "Bur")),
             support("Germany", loc(*F1, "Mun"), loc(*F1, "Ruh"), loc(*F1, "Bur")),
             move("Germany", loc(*F1, "Den"), loc(*F1, "Swe"), "Fleet"))
    w = t.world("France")
    assert w["iteration"] == 2
    # the retreat waits: nothing the battle made is drawn yet; the army is marked on the battle's board
    assert [(b["year"], b["phase"]) for b in w["boards"]] == [(1901, "Spring"), (1901, "Fall")]
    assert board(w, *F1)["units"]["Bur"] == unit("France", retreat=True)
    assert ("Hold", "Failure", "France", "T1 Fall 1901 Bur", None) in results(w)
    assert ("Move", "Success", "Germany", "T1 Fall 1901 Ruh", "T1 Fall 1901 Bur") in results(w)

    # the retreat: every power still in the game submits (Germany, with nothing to do, an empty set)
    assert t.orders(["France"], move("France", loc(*F1, "Bur"), loc(*F1, "Par"), status="RetreatNew"))["taken"] == {
        "France": ["A a-Bur@2 - a-Par@2"]}
    assert t.world("France")["orders"][-1]["status"] == "RetreatNew"
    assert t.orders(["Germany"])["adjudicated"] is True
    w = t.world("France")
    assert ("Move", "RetreatSuccess", "France", "T1 Fall 1901 Bur", "T1 Fall 1901 Par") in results(w)
    assert board(w, *F1)["units"]["Bur"] == unit("France")  # no longer marked: the retreat is done
    # the adjustments wait: the board the Fall battle made is drawn as Winter 1901, with its centres settled
    assert board(w, *S2) is None and board(w, *W1)["units"]["Par"] == unit("France")
    assert board(w, *W1)["centres"]["Spa"] == "France" and board(w, *W1)["centres"]["Swe"] == "Germany"

    # Winter 1901: France builds two, Germany one; a movement order is not taken in this phase
    r = t.orders(["France"], build("France", loc(*W1, "Mar")), build("France", loc(*W1, "Bre"), "Fleet"),
                 move("France", loc(*F1, "Spa"), loc(*F1, "Gas")))
    assert [x["index"] for x in r["refused"]] == [2]
    assert "is a movement or retreat order, but the next phase is adjustment on a2" in r["refused"][0]["reason"]
    t.orders(["Germany"], build("Germany", loc(*W1, "Ber")))
    w = t.world("Germany")
    assert w["iteration"] == 4
    assert ("Build", "Success", "France", "T1 Winter 1901 Bre", None) in results(w)
    built = [o for o in w["orders"] if o["$type"] == "Build" and o["location"]["region"] == "Bre"]
    assert built[0]["unit"]["type"] == "Fleet"
    # Winter shows the units before the builds, Spring 1902 after them
    assert "Mar" not in board(w, *W1)["units"] and board(w, *S2)["units"]["Mar"] == unit("France")
    assert board(w, *S2)["units"]["Bre"] == unit("France", "Fleet") and board(w, *S2)["units"]["Ber"] == unit("Germany")

    # Spring 1902: Germany's army in Munich goes back to Ruhr in Fall 1901, empty since its battle
    t.orders(["Germany"], move("Germany", loc(*S2, "Mun"), loc(*F1, "Ruh")))
    t.orders(["France"], move("France", loc(*S2, "Par"), loc(*S2, "Gas")))
    w = t.world("France")
    assert w["iteration"] == 5
    assert ("Move", "Success", "Germany", "T1 Spring 1902 Mun", "T1 Fall 1901 Ruh") in results(w)
    # Fall 1901 fought again forks timeline 2, where the French army is dislodged again: its retreat
    # waits, so neither timeline 2 nor Fall 1902 is drawn yet, and the army is marked on Fall 1901
    assert {b["timeline"] for b in w["boards"]} == {1} and board(w, *F2) is None
    assert board(w, *F1)["childTimelines"] == [] and board(w, *F1)["units"]["Bur"] == unit("France", retreat=True)
    r = t.orders(["France"], move("France", loc(*F1, "Bur"), loc(*F1, "Gas"), status="RetreatNew"))
    assert r["taken"] == {"France": ["A b-Bur@2 - b-Gas@2"]}  # made on timeline 2's first board
    t.orders(["Germany"])
    w = t.world("Germany")
    assert w["iteration"] == 6
    assert board(w, *F1)["childTimelines"] == [2]
    assert [(b["timeline"], b["year"], b["phase"]) for b in w["boards"] if b["timeline"] == 2] == [(2, 1901, "Winter")]
    assert board(w, 2, 1901, "Winter")["units"]["Ruh"] == unit("Germany") and board(w, *F2) is not None
    assert ("Move", "RetreatSuccess", "France", "T1 Fall 1901 Bur", "T1 Fall 1901 Gas") in results(w)

    # timeline 2 adjusts while timeline 1 waits for Fall 1902: only the Winter board takes orders
    r = t.orders(["Germany"], move("Germany", loc(*F2, "Pic"), loc(*F2, "Par")))
    assert r["taken"] == {"Germany": []}
    assert "a-Pic@3 - a-Par@3' is a movement or retreat order, but the next phase is adjustment on b2" in \
        r["refused"][0]["reason"]
    t.orders(["France"], build("France", loc(2, 1901, "Winter", "Par")))
    w = t.world("France")
    assert w["iteration"] == 7 and board(w, 2, 1902, "Spring")["units"]["Par"] == unit("France")
    assert ("Build", "Success", "France", "T2 Winter 1901 Par", None) in results(w)
    assert not any(o["status"] == "New" for o in w["orders"])


@pytest.mark.slow
def test_a_sandbox_is_one_person_playing_every_power(their):
    t, game = new_game(their)
    assert game["player"] in NATIONS  # a normal game names a power at random when none is asked for
    r = their.post("/game", json={"isSandbox": True, "player": None, "hasStrictAdjacencies": True})
    sandbox = Their(their, check_game(r.json())["id"])
    assert r.json()["player"] is None and r.json()["hasStrictAdjacencies"] is True
    assert check_game(sandbox.join(None, sandbox=True).json())["player"] is None
    assert sandbox.join("France").status_code == 400 and t.join(None, sandbox=True).status_code == 400
    everyone = sorted(NATIONS)
    r = sandbox.orders(["England", "Germany"], move("France", loc(*S1, "Par"), loc(*S1, "Bur")),
                       move("England", loc(*S1, "Lon"), loc(*S1, "NTH"), "Fleet"))
    # France is not among the powers submitting: its order is refused
    assert r["refused"][0]["index"] == 0 and "France" in r["refused"][0]["reason"] and not r["adjudicated"]
    assert [o["unit"]["owner"] for o in sandbox.world()["orders"]] == ["England"]  # every waiting order shown
    r = sandbox.orders(everyone, move("France", loc(*S1, "Par"), loc(*S1, "Bur")),
                       move("Germany", loc(*S1, "Mun"), loc(*S1, "Bur")),
                       move("England", loc(*S1, "Lon"), loc(*S1, "NTH"), "Fleet"))
    assert r["adjudicated"] is True
    w = sandbox.world()
    assert ("Move", "Failure", "France", "T1 Spring 1901 Par", "T1 Spring 1901 Bur") in results(w)
    assert ("Move", "Failure", "Germany", "T1 Spring 1901 Mun", "T1 Spring 1901 Bur") in results(w)
    assert board(w, *F1)["units"]["NTH"] == unit("England", "Fleet")
    assert board(w, *F1)["units"]["Stp_S"] == unit("Russia", "Fleet")  # a fleet on a coast, keyed by it


def test_convoys_supports_to_hold_and_coasts_both_ways(their):
    r = their.post("/game", json={"isSandbox": True, "player": None, "hasStrictAdjacencies": False})
    t = Their(their, r.json()["id"])
    everyone = sorted(NATIONS)
    t.orders(everyone, move("England", loc(*S1, "Lon"), loc(*S1, "NTH"), "Fleet"),
             move("England", loc(*S1, "Lvp"), loc(*S1, "Yor")))
    r = t.orders(everyone, {"$type": "Convoy", "status": "New", "unit": unit("England", "Fleet"),
                            "location": loc(*F1, "NTH"), "convoyLocation": loc(*F1, "Yor"),
                            "destination": loc(*F1, "Nwy")},
                 move("England", loc(*F1, "Yor"), loc(*F1, "Nwy")),
                 move("Russia", loc(*F1, "Stp_S"), loc(*F1, "BOT"), "Fleet"),
                 support("Germany", loc(*F1, "Mun"), loc(*F1, "Ber"), loc(*F1, "Ber")))
    assert r["taken"]["England"] == ["F a-Nth@1 C A a-Yor@1 - a-Nwy@1", "A a-Yor@1 - a-Nwy@1"]
    assert r["taken"]["Russia"] == ["F a-Stp/sc@1 - a-Bot@1"] and r["taken"]["Germany"] == ["A a-Mun@1 S a-Ber@1"]
    w = t.world()
    assert ("Convoy", "Success", "England", "T1 Fall 1901 NTH", "T1 Fall 1901 Nwy") in results(w)
    assert ("Move", "Success", "England", "T1 Fall 1901 Yor", "T1 Fall 1901 Nwy") in results(w)
    assert ("Move", "Success", "Russia", "T1 Fall 1901 Stp_S", "T1 Fall 1901 BOT") in results(w)
    convoy = next(o for o in w["orders"] if o["$type"] == "Convoy")
    assert convoy["convoyLocation"] == loc(*F1, "Yor")
    held = next(o for o in w["orders"] if o["$type"] == "Support")
    assert held["status"] == "Success" and held["supportLocation"] == held["destination"] == loc(*F1, "Ber")
    winter = board(w, *W1)
    assert winter["units"]["Nwy"] == unit("England") and winter["units"]["BOT"] == unit("Russia", "Fleet")
    assert winter["centres"]["Nwy"] == "England"


@pytest.mark.slow
def test_strict_adjacencies_is_the_option_strict_adjacency(their):
    everyone = sorted(NATIONS)
    verdicts = {}
    numbers = []
    for strict in (True, False):
        r = their.post("/game", json={"isSandbox": True, "player": None, "hasStrictAdjacencies": strict})
        t = Their(their, r.json()["id"])
        numbers.append(r.json()["id"])
        t.orders(everyone, move("France", loc(*S1, "Par"), loc(*S1, "Bur")))
        # from Fall 1901 into Spring 1901: to a neighbouring province, and to the province left
        t.orders(everyone, move("France", loc(*F1, "Bur"), loc(*S1, "Pic")),
                 move("France", loc(*F1, "Mar"), loc(*S1, "Mar")))
        verdicts[strict] = {o["location"]["region"]: o["status"] for o in t.world()["orders"]
                            if o["location"]["phase"] == "Fall"}
    assert verdicts[True]["Bur"] == "Invalid" and verdicts[False]["Bur"] == "Success"
    assert verdicts[True]["Mar"] == verdicts[False]["Mar"] != "Invalid"
    assert [_their_game(their, n).mv.options.chosen("strict_adjacency") for n in numbers] == [True, False]


def _game_text(client, gid: str):
    """The game of this id as the server's database holds it."""
    from fivedp_asp.files.games import game_from_bytes

    with client.app.state.games.db.transaction(write=False) as tx:
        (text,), = tx.rows("SELECT game FROM fivedp_game_texts WHERE game_id = ?", (gid,))
    return game_from_bytes(text if isinstance(text, bytes) else str(text).encode(), "the game")[0]


def _their_game(client, number: int):
    """The game of the open table with this number."""
    with client.app.state.games.db.transaction(write=False) as tx:
        (gid,), = tx.rows("SELECT game_id FROM fivedp_oliveriver_games WHERE number = ?", (number,))
    return _game_text(client, str(gid))


def _made(client, **body) -> int:
    r = client.post("/game", json={"isSandbox": True, "player": None, **body})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_their_games_play_the_preset_oliveriver_unless_told_otherwise(their, db_url):
    assert _their_game(their, _made(their)).mv.options.plain() == {
        "adjacency": "distance", "diagonals": False, "support_results": "follow", "cut_supports_fork": True,
        "victory": "unique", "winner": "most_centres"}
    # the request's options override the preset, and may name another preset
    seeds = _made(their, options={"preset": "seeds", "winner": "most_centres"})
    assert _their_game(their, seeds).mv.options.plain() == {"winner": "most_centres"}
    r = their.post("/game", json={"isSandbox": True, "player": None, "options": {"strict_adjacency": True}})
    assert r.status_code == 400 and "hasStrictAdjacencies" in r.text
    r = their.post("/game", json={"isSandbox": True, "player": None, "options": {"preset": "nope"}})
    assert r.status_code == 400 and "unknown preset 'nope'" in r.text
    # the host's preset (fivedp serve --oliveriver --preset seeds), for their routes and the native API
    with TestClient(make_app(db_url, deadline_check=None, oliveriver=True, preset="seeds")) as host:
        assert _their_game(host, _made(host)).mv.options.plain() == {}
        gid = host.post("/api/games", json={"options": {"diagonals": False}}).json()["id"]
        assert _game_text(host, gid).mv.options.plain() == {"diagonals": False}
    with TestClient(make_app(db_url, deadline_check=None, preset="oliveriver")) as host:
        gid = host.post("/api/games", json={"options": {"diagonals": True}}).json()["id"]
        options = _game_text(host, gid).mv.options
        assert options.chosen("diagonals") is True and options.chosen("adjacency") == "distance"
    with pytest.raises(Exception, match="unknown preset"):
        make_app(db_url, deadline_check=None, oliveriver=True, preset="nope")


def test_a_game_won_takes_no_more_orders(their):
    start = {"turn": 0, "units": {"France": ["A Burgundy", "A Bohemia"], "Germany": ["A Munich"]},
             "centers": {"France": ["Paris", "Marseilles"]}}
    # elimination, not the preset's victory by centres: the game is won as soon as Germany is out
    t, _ = new_game(their, player="France", start=start, options={"victory": "elimination"})
    t.orders(["France"], move("France", loc(*S1, "Bur"), loc(*S1, "Mun")),
             support("France", loc(*S1, "Boh"), loc(*S1, "Bur"), loc(*S1, "Mun")))
    t.orders(["Germany"])
    assert board(t.world(), *S1)["units"]["Mun"]["mustRetreat"] is True
    t.orders(["Germany"], {"$type": "Disband", "status": "RetreatNew", "unit": unit("Germany", retreat=True),
                           "location": loc(*S1, "Mun")})
    t.orders(["France"])
    w = t.world("France")
    assert w["winner"] == "France"  # Germany is eliminated, the last power left wins
    assert ("Disband", "RetreatSuccess", "Germany", "T1 Spring 1901 Mun", None) in results(w)
    r = t.orders(["France"], move("France", loc(*F1, "Mun"), loc(*F1, "Boh")))
    assert "France has won" in r["ignored"] and t.iteration() == w["iteration"]


def test_orders_another_phase_or_power_takes_are_refused_each_with_why(their):
    t, _ = new_game(their, player="France", start=TWO_POWERS)
    r = t.orders(["France"], build("France", loc(*W1, "Par")),
                 move("France", loc(*S1, "Par"), loc(1, 1901, "Winter", "Bur")),
                 move("Germany", loc(*S1, "Mun"), loc(*S1, "Ruh")),
                 {"$type": "Move", "status": "New", "unit": unit("France"), "location": loc(*S1, "Par"),
                  "destination": None},
                 {"$type": "Retreat", "unit": unit("France"), "location": loc(*S1, "Par")},
                 move("France", loc(*S1, "Par"), loc(*S1, "Swi")),
                 move("France", loc(*S1, "Mar"), loc(*S1, "Pie")))
    reasons = {x["index"]: x["reason"] for x in r["refused"]}
    assert sorted(reasons) == [0, 1, 2, 3, 4, 5]
    assert "adjustment order" in reasons[0] and "Winter board takes builds and disbands only" in reasons[1]
    assert "Germany's unit" in reasons[2] and "needs its destination" in reasons[3]
    assert "$type" in reasons[4] and "no region" in reasons[5]
    assert r["taken"] == {"France": ["A a-Mar@0 - a-Pie@0"]}


def test_refusals_are_plain_text_with_their_status(their):
    t, _ = new_game(their, player="France", start=TWO_POWERS)
    cases = [
        (their.get("/game/1234"), 404, "No game with ID 1234 found"),
        (their.get("/game/abc/iteration"), 404, "No game with ID abc found"),
        (their.get(f"/game/{t.number}", params={"player": "Atlantis"}), 400, "player: give one of"),
        (their.post("/game", json={"isSandbox": True, "player": "France"}), 400,
         "Sandbox must be created with no player specified"),
        (their.post("/game", json={"isSandbox": False, "players": "France"}), 400, "unknown field 'players'"),
        (their.post("/game", json={"options": {"sustain": True}}), 400, "sustain cannot be played"),
        (their.post("/game", json={"options": {"adjacency": "sideways"}}), 400, "adjacency"),
        (their.post("/game", json={"player": "Italy", "start": TWO_POWERS}), 400, "Italy does not play"),
        (their.post("/game", json={"hasStrictAdjacencies": "yes"}), 400, "hasStrictAdjacencies: give true or false"),
        (t.join("Italy"), 400, "Italy does not play in this game"),
        (t.join(None, sandbox=True), 400, "Can't join non-sandbox"),
        (their.post(f"/game/{t.number}/orders", json={"players": [], "orders": []}), 400, "No players specified"),
        (their.post(f"/game/{t.number}/orders", json={"players": ["France"], "orders": {}}), 400,
         "orders: give a list"),
        (their.post(f"/game/{t.number}/orders", json={"players": ["Italy"]}), 400, "none of Italy plays"),
        (their.post(f"/game/{t.number}/orders", json={"players": ["France", None]}), 400, "players: give one of"),
        (their.post(f"/game/{t.number}/orders", content=b"{not json"), 400, "not valid JSON"),
    ]
    for r, status, text in cases:
        assert r.status_code == status, (r.status_code, r.text)
        assert r.headers["content-type"].startswith("text/plain") and text in r.text, r.text


def test_open_tables_and_the_native_api_keep_apart(their):
    t, _ = new_game(their, player="France", start=TWO_POWERS)
    games = their.app.state.games
    with games.db.transaction(write=False) as tx:
        gid = tx.rows("SELECT game_id FROM fivedp_oliveriver_games WHERE number = ?", (t.number,))[0][0]
    view = their.get(f"/api/games/{gid}").json()
    assert view["server"]["open_table"] is True and view["server"]["role"] == "spectator"
    assert view["server"]["players"] == ["France"]
    r = their.post(f"/api/games/{gid}/players", json={"power": "Germany"})
    assert r.status_code == 403 and "open table" in r.json()["error"]
    assert their.post(f"/api/games/{gid}/orders", json={"lines": ["A Par - Bur"]}).status_code == 403
    # a game of the native API (it has tokens) is no game to their routes, whatever number leads to it
    native = their.post("/api/games", json={"start": TWO_POWERS}).json()
    assert their.get("/api/games/" + native["id"]).json()["server"]["open_table"] is False
    number = 1 + secrets.randbelow(999_999)  # below every number a game is given; the database may be shared
    with games.db.transaction(write=True) as tx:
        tx.run("INSERT INTO fivedp_oliveriver_games (number, game_id, sandbox, strict) VALUES (?, ?, ?, ?)",
               (number, native["id"], 0, 0))
    try:
        for r in (their.get(f"/game/{number}"), their.get(f"/game/{number}/iteration"),
                  their.post(f"/game/{number}/orders", json={"players": ["France"], "orders": []})):
            assert r.status_code == 404 and r.text == f"No game with ID {number} found", r.text
    finally:
        with games.db.transaction(write=True) as tx:
            tx.run("DELETE FROM fivedp_oliveriver_games WHERE number = ?", (number,))


def test_cors_for_the_origins_given(tmp_path):
    origin = "http://localhost:5173"
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, oliveriver=True,
                             cors=(origin,))) as c:
        r = c.options("/game", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
        assert r.status_code == 204 and r.headers["access-control-allow-origin"] == origin
        assert "PUT" in r.headers["access-control-allow-methods"]
        assert "content-type" in r.headers["access-control-allow-headers"].lower()
        r = c.post("/game", json={}, headers={"Origin": origin})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == origin
        r = c.get("/game/1", headers={"Origin": origin})
        assert r.status_code == 404 and r.headers["access-control-allow-origin"] == origin
        elsewhere = c.post("/game", json={}, headers={"Origin": "http://elsewhere"})
        assert "access-control-allow-origin" not in elsewhere.headers
    with TestClient(make_app(f"sqlite:///{tmp_path}/h.db", deadline_check=None, oliveriver=True)) as c:
        assert "access-control-allow-origin" not in c.post("/game", json={}, headers={"Origin": origin}).headers
        assert c.options("/game", headers={"Origin": origin}).status_code == 405
    with TestClient(make_app(f"sqlite:///{tmp_path}/i.db", deadline_check=None)) as c:
        assert c.post("/game", json={}).status_code == 404  # without oliveriver, no such routes


def test_their_built_client_served_at_client(tmp_path):
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text('<script type="module" src="/client/assets/index.js"></script>')
    (dist / "assets" / "index.js").write_text("console.log(1)")
    with TestClient(make_app(f"sqlite:///{tmp_path}/g.db", deadline_check=None, oliveriver=True, client=dist)) as c:
        assert "/client/assets/index.js" in c.get("/client/").text
        assert c.get("/client/assets/index.js").text == "console.log(1)"
        r = c.get("/client", follow_redirects=False)
        assert r.status_code in (302, 307) and r.headers["location"].endswith("/client/")
    (dist / "index.html").write_text('<script type="module" src="/assets/index.js"></script>')
    with pytest.raises(Exception, match="build it with npx vite build --base=/client/"):
        check_client(dist)
    with pytest.raises(Exception, match="with index.html"):
        check_client(tmp_path / "nowhere")


@pytest.mark.slow
def test_the_command_line_refuses_client_without_oliveriver(tmp_path):
    r = subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "serve", "--client", str(tmp_path)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and "give --oliveriver too" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "fivedp_asp.cli", "serve", "--oliveriver", "--client",
                        str(tmp_path / "dist")], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and "with index.html" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_the_request_of_docs_server_md_runs_as_written(tmp_path):
    """The curl request of docs/server.md's "Their client", run as written (bash and the real curl)
    against a server started with --oliveriver; then Germany joins and the world is theirs."""
    import json
    import os
    import shutil
    import urllib.request

    from tests.serve.live import server

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed (.ci/run installs it)")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "server.md").read_text(encoding="utf-8")
    section = doc.split("## Their client", 1)[1].split("\n## The API", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    commands = [c.strip() for b in blocks for c in b.replace("\\\n", " ").splitlines() if c.strip().startswith("curl")]
    assert len(commands) == 1
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path, args=("--oliveriver",)) as base:
        env["SERVER"] = base
        p = subprocess.run(["bash", "-c", commands[0]], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr
        game = check_game(json.loads(p.stdout))
        assert game["player"] == "France" and game["hasStrictAdjacencies"] is False
        n = game["id"]
        joined = urllib.request.Request(f"{base}/game/{n}/players", method="PUT",
                                        headers={"Content-Type": "application/json"},
                                        data=json.dumps({"isSandbox": False, "player": "Germany"}).encode())
        assert check_game(json.load(urllib.request.urlopen(joined, timeout=60)))["player"] == "Germany"
        w = check_world(json.load(urllib.request.urlopen(f"{base}/game/{n}?player=Germany", timeout=60)))
        assert {u["owner"] for u in board(w, *S1)["units"].values()} == {"France", "Germany"}
