"""A game played through the command line only, as two players would: Germany and Austria (the other
powers give no orders, so their units hold). Ten steps, three timelines. Every expectation below was
worked out by hand from the rules (docs/rules.md, DATC) before the engine ran:

1. movement a0 (Spring 1901): A Mun - Boh, A Ber - Sil, F Kie - Den; A Vie - Gal, A Bud - Ser,
   F Tri - Alb: all into empty provinces, all succeed.
2. movement a1: A Boh - Mun, F Den H, A Sil - a-Pru@0 (back to Spring 1901, Prussia empty there: it
   succeeds and a0's battle changes, so timeline b forks from a0); F Alb - Gre, A Ser H, A Gal - Rum.
   a2 settles: Germany 4 centres (Ber Kie Mun Den), 2 units -> 2 builds in Ber, Kie; Austria 6
   centres (Vie Bud Tri Ser Gre Rum), 3 units -> 3 builds in Vie, Bud, Tri.
3. adjustments on a2.
4. movement a2 + b1: A Mun - a-Tyr@1 (Tyrolia empty on a1: succeeds, timeline c forks from a1); on b1
   A Sil - Gal supported by A Boh dislodges Austria's A Gal (2 against 1).
5. retreat on b2: A b-Gal may go to Bud, Rum, Ukr or Vie (Boh and War are occupied, Sil is where the
   attack came from); it retreats to Vie.
6. adjustments on b2 (Austria 4 centres, 3 units: 1 build, Bud or Tri free) and c2 (Germany 4 centres
   Ber Kie Mun Den, 3 units A Mun F Den A Tyr: 1 build; Austria 6 centres, 3 units: 3 builds).
7. movement a3, b2, c2: A Ber - Mun succeeds; A b-Gal - b-War fails (Russia holds, 1 against 1);
   A c-Tyr - c-Vie fails (1 against 1) and cuts A c-Vie's support across timelines of A Vie - Boh on
   a3, which succeeds anyway (Bohemia empty); A Bud - Gal and A Rum - Gal bounce.
8. adjustments on a4: Germany 4 centres, 3 units (F Den, A Mun, F Kie): 1 build in Ber.
9. movement a4, b3, c3: A Ber - Sil succeeds; A Mun H holds against A Boh - Mun (1 against 1).
10. adjustments on c4: Austria has 6 centres and 4 units on timeline c: 2 builds (Bud, Tri).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fivedp_asp import from_json, load_game, to_json
from fivedp_asp.report.jsonout import load_schema

from tests import forked
from tests.schema_check import errors

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = load_schema()


def env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def fivedp(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """A command as a process of its own (forked, ``tests/forked.py``: this checkout's code)."""
    return forked.fivedp(cwd, *args, input=input, timeout=300)


def ok(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 0, (p.args, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    return p.stdout


def doc(p: subprocess.CompletedProcess, kind: str) -> dict:
    data = json.loads(ok(p))
    assert data["format"] == 1 and data["kind"] == kind
    problems = errors(data, SCHEMA)
    assert not problems, problems[:5]
    return data


# step: phase, heads, {power: lines}, {qualified order: result}
GAME = [
    ("movement", ["a0"], {
        "Germany": ["A Mun - Boh", "A Ber - Sil", "F Kie - Den"],
        "Austria": ["A Vie - Gal", "A Bud - Ser", "F Tri - Alb"]},
     {"A a-Mun@0 - a-Boh@0": "succeeds", "A a-Ber@0 - a-Sil@0": "succeeds", "F a-Kie@0 - a-Den@0": "succeeds",
      "A a-Vie@0 - a-Gal@0": "succeeds", "A a-Bud@0 - a-Ser@0": "succeeds", "F a-Tri@0 - a-Alb@0": "succeeds"}),
    ("movement", ["a1"], {
        "Germany": ["A Boh - Mun", "F Den H", "A Sil - a-Pru@0"],
        "Austria": ["F Alb - Gre", "A Ser H", "A Gal - Rum"]},
     {"A a-Boh@1 - a-Mun@1": "succeeds", "A a-Sil@1 - a-Pru@0": "succeeds", "F a-Alb@1 - a-Gre@1": "succeeds",
      "A a-Gal@1 - a-Rum@1": "succeeds"}),
    ("adjustment", ["a2"], {
        "Germany": ["Build A Ber", "Build F Kie"],
        "Austria": ["Build A Vie", "Build A Bud", "Build F Tri"]},
     {"Build A a-Ber@2": "succeeds", "Build F a-Kie@2": "succeeds", "Build A a-Vie@2": "succeeds",
      "Build A a-Bud@2": "succeeds", "Build F a-Tri@2": "succeeds"}),
    ("movement", ["a2", "b1"], {
        "Germany": ["A Mun - a-Tyr@1", "A b-Sil - b-Gal", "A b-Boh S A b-Sil - b-Gal"],
        "Austria": ["A b-Gal H"]},
     {"A a-Mun@2 - a-Tyr@1": "succeeds", "A b-Sil@1 - b-Gal@1": "succeeds",
      "A b-Boh@1 S b-Sil@1 - b-Gal@1": "succeeds", "A b-Gal@1 H": "fails"}),
    ("retreat", ["b2"], {"Austria": ["A b-Gal - b-Vie"]}, {"A b-Gal@2 - b-Vie@2": "succeeds"}),
    ("adjustment", ["b2", "c2"], {
        "Germany": ["Build A c-Ber"],
        "Austria": ["Build A b-Bud", "Build A c-Vie"]},
     {"Build A c-Ber@2": "succeeds", "Build A b-Bud@2": "succeeds", "Build A c-Vie@2": "succeeds"}),
    ("movement", ["a3", "b2", "c2"], {
        "Germany": ["A Ber - Mun", "A b-Gal - b-War", "A c-Tyr - c-Vie"],
        "Austria": ["A Vie - Boh", "A c-Vie S A a-Vie@3 - a-Boh@3", "A Bud - Gal", "A Rum - Gal"]},
     {"A a-Ber@3 - a-Mun@3": "succeeds", "A b-Gal@2 - b-War@2": "fails", "A c-Tyr@2 - c-Vie@2": "fails",
      "A a-Vie@3 - a-Boh@3": "succeeds", "A c-Vie@2 S a-Vie@3 - a-Boh@3": "fails",
      "A a-Bud@3 - a-Gal@3": "fails", "A a-Rum@3 - a-Gal@3": "fails"}),
    ("adjustment", ["a4"], {"Germany": ["Build A Ber"]}, {"Build A a-Ber@4": "succeeds"}),
    ("movement", ["a4", "b3", "c3"], {
        "Germany": ["A Ber - Sil", "A Mun H"],
        "Austria": ["A Boh - Mun"]},
     {"A a-Ber@4 - a-Sil@4": "succeeds", "A a-Mun@4 H": "succeeds", "A a-Boh@4 - a-Mun@4": "fails"}),
    ("adjustment", ["c4"], {"Austria": ["Build A c-Bud", "Build F c-Tri"]},
     {"Build A c-Bud@4": "succeeds", "Build F c-Tri@4": "succeeds"}),
]


def history_len(path: Path) -> int:
    return len(yaml.safe_load(path.read_text(encoding="utf-8"))["history"])


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Plays the whole game through the command line; returns the folder and what was seen on the way."""
    tmp = tmp_path_factory.mktemp("guide")
    seen: dict = {}
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    for i, (phase, heads, orders, expect) in enumerate(GAME, 1):
        show = doc(fivedp(tmp, "game", "show", "g.yaml", "--json"), "game")
        assert show["next"]["phase"] == phase and show["next"]["heads"] == heads, (i, show["next"])
        seen[f"show {i}"] = show
        seen[f"show text {i}"] = ok(fivedp(tmp, "game", "show", "g.yaml"))
        given = 0
        for power, lines in orders.items():
            sub = doc(fivedp(tmp, "game", "orders", "g.yaml", "--power", power, "--json", *lines), "orders")
            assert [a["order"] for a in sub["accepted"]] == lines
            assert all(a["replaces"] is None for a in sub["accepted"])
            given += len(lines)
        step = doc(fivedp(tmp, "game", "adjudicate", "g.yaml", "--json"), "step")["step"]
        seen[f"step {i}"] = step
        assert step["index"] == i and step["phase"] == phase and step["heads"] == heads
        # no order lost: every line given has exactly one result
        assert sorted(o["text"] for o in step["orders"]) == sorted(x for v in orders.values() for x in v)
        assert len(step["orders"]) == given
        got = {o["qualified"]: o["result"] for o in step["orders"]}
        for order, result in expect.items():
            assert got.get(order) == result, (i, order, got)
        for o in step["orders"]:
            # the unit's board is never dropped, and a failed order always carries a reason field
            assert o["board"] and o["qualified"], o
            assert "reason" in o, o
            if o["result"] == "invalid":
                assert o["reason"], o
    return tmp, seen


@pytest.mark.slow
def test_the_game_goes_as_worked_out_by_hand(played):
    tmp, seen = played
    assert [t["timeline"] for t in seen["show 10"]["timelines"]] == ["a", "b", "c"]
    assert seen["step 2"]["new_timelines"] == [{"timeline": "b", "forked_from": "a0"}]
    assert seen["step 4"]["new_timelines"] == [{"timeline": "c", "forked_from": "a1"}]
    assert seen["step 4"]["dislodged"] == [{"board": "b1", "power": "Austria", "unit": "A Gal", "by": "A b-Sil@1"}]
    game = load_game(tmp / "g.yaml")
    assert [b.name for b in game.mv.heads] == ["a5", "b4", "c4"]
    assert sorted(u.province for u in game.mv.boards[(2, 4)].units.values() if u.power == "Austria") == \
        ["bud", "gre", "rum", "ser", "tri", "vie"]


@pytest.mark.slow
def test_show_says_what_each_power_must_do(played):
    _, seen = played
    due = {(d["power"], d["board"], d["kind"]): d for d in seen["show 3"]["next"]["due"]}
    # two timelines: the free centres are written as a build names them (a-Ber), so they can be typed back
    assert due[("Germany", "a2", "build")]["count"] == 2 and due[("Germany", "a2", "build")]["options"] == ["a-Ber", "a-Kie"]
    assert due[("Austria", "a2", "build")]["count"] == 3
    assert sorted(due[("Austria", "a2", "build")]["options"]) == ["a-Bud", "a-Tri", "a-Vie"]
    retreat = [d for d in seen["show 5"]["next"]["due"] if d["kind"] == "retreat"]
    assert retreat == [{"power": "Austria", "board": "b2", "kind": "retreat", "units": ["A b-Gal"], "ordered": [],
                        "count": 1, "options": ["Bud", "Rum", "Ukr", "Vie"]}]
    text = seen["show text 5"]
    assert "  Austria on b2: A b-Gal must retreat to Bud, Rum, Ukr, Vie or disband" in text
    assert "Forks: b from a0; c from a1" in text
    assert "Options: all at their defaults" in text
    due6 = {(d["power"], d["board"]): d["count"] for d in seen["show 6"]["next"]["due"]}
    assert due6 == {("Austria", "b2"): 1, ("Germany", "c2"): 1, ("Austria", "c2"): 3}
    # the heads list only the powers present
    heads = {h["name"]: h for h in seen["show 10"]["heads"]}
    assert "Austria" in heads["c4"]["powers"] and "Germany" in heads["c4"]["powers"]
    movement = [d for d in seen["show 1"]["next"]["due"] if d["power"] == "Germany"]
    assert movement == [{"power": "Germany", "board": "a0", "kind": "orders", "units": ["A Ber", "A Mun", "F Kie"],
                         "ordered": [], "count": 3, "options": []}]


@pytest.mark.slow
def test_history_and_past_boards(played):
    tmp, _ = played
    text = ok(fivedp(tmp, "game", "history", "g.yaml"))
    lines = text.splitlines()
    assert len(lines) == 10 and lines[0].startswith("Step 1: movement on a0: 6 orders")
    assert "timeline b forked from a0" in lines[1] and "timeline c forked from a1" in lines[3]
    hist = doc(fivedp(tmp, "game", "history", "g.yaml", "--json"), "history")
    assert [s["phase"] for s in hist["steps"]] == [g[0] for g in GAME]
    past = doc(fivedp(tmp, "game", "show", "g.yaml", "a1", "--json"), "board")
    assert past["head"] is False
    assert {(o["qualified"], o["result"]) for o in past["orders"]} >= {("A a-Sil@1 - a-Pru@0", "succeeds"),
                                                                      ("A a-Gal@1 - a-Rum@1", "succeeds")}
    text = ok(fivedp(tmp, "game", "show", "g.yaml", "a1"))
    # the move reached another board: the page says how it was read
    assert re.search(r"^    Germany: A Sil - a-Pru@0 \(read as A a-Sil@1 - a-Pru@0\)  succeeds$", text, re.M), text


@pytest.mark.slow
def test_json_round_trip_of_the_played_game(played):
    tmp, _ = played
    game = load_game(tmp / "g.yaml")
    text = to_json(game)
    again = from_json(text)
    assert to_json(again) == text
    from fivedp_asp.files.games import game_data
    assert game_data(again) == game_data(game)


# -- orders: phases, replacements, checks ---------------------------------------------------------


@pytest.mark.slow
def test_orders_refused_for_another_phase_and_replacements_said(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    before = (tmp_path / "g.yaml").read_text(encoding="utf-8")
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "Germany", "A Mun - Ruh", "Build A Ber")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "next phase is movement on a0" in p.stderr and "'Build A Ber'" in p.stderr
    assert (tmp_path / "g.yaml").read_text(encoding="utf-8") == before  # nothing taken
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun - Ruh", "F Kie - Den"))
    first, out = out.split("\n", 1)
    assert first.startswith("Orders for step 1: movement on a0 (phase 1-"), first
    assert out == ("Germany: A Mun - Ruh: legal\nGermany: F Kie - Den: legal\n"
                   "Germany: 2 orders waiting\n  A Mun - Ruh\n  F Kie - Den\n")
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun - Boh"))
    first, out = out.split("\n", 1)
    assert first.startswith("Orders for step 1: movement on a0 (phase 1-"), first
    assert out == ("Germany: A Mun - Boh: legal\nReplaced: Germany: A Mun - Ruh  by  A Mun - Boh\n"
                   "Germany: 2 orders waiting\n  F Kie - Den\n  A Mun - Boh\n")
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--replace", "A Ber - Kie"))
    first, out = out.split("\n", 1)
    assert first.startswith("Orders for step 1: movement on a0 (phase 1-"), first
    assert out.startswith("Germany: A Ber - Kie: legal\nWithdrawn: Germany: F Kie - Den\nWithdrawn: Germany: A Mun - Boh\n")
    assert out.endswith("Germany: 1 order waiting\n  A Ber - Kie\n")


@pytest.mark.slow
def test_orders_check_reports_illegal_orders_and_saves_nothing(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun - Boh"))
    before = (tmp_path / "g.yaml").read_text(encoding="utf-8")
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--check", "A Ber - Mos", "F Kie - Bur")
    assert p.returncode == 1, p.stderr
    assert "Checked 3 orders for the movement (2 given here, 1 waiting): 2 illegal" in p.stdout
    assert "Germany: A Ber - Mos: not adjacent" in p.stdout
    assert "Germany: F Kie - Bur: fleet to land" in p.stdout
    assert (tmp_path / "g.yaml").read_text(encoding="utf-8") == before
    data = doc(fivedp(tmp_path, "game", "orders", "g.yaml", "--check", "--json"), "orders")
    assert data["illegal"] == [] and data["saved"] is False
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--check")
    assert p.returncode == 0 and "Checked 1 order for the movement (1 waiting): all legal" in p.stdout
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--check", "--replace", "--power", "Germany", "A Mun - Tyr")
    assert p.returncode == 0 and "Checked 1 order for the movement (1 given here): all legal" in p.stdout


# -- legal orders -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_possible_orders_at_the_opening(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    data = doc(fivedp(tmp_path, "game", "possible", "g.yaml", "--power", "Germany", "--unit", "F Kie", "--json"),
               "possible")
    # worked out from the map: Kiel's fleet may hold, move to Bal Ber Den Hel Hol, support Berlin
    # holding, and support Munich into Berlin (the only other German or foreign unit that can reach a
    # province Kiel's fleet reaches)
    assert sorted(o["order"] for o in data["orders"]) == sorted([
        "F a-Kie@0 H", "F a-Kie@0 - a-Bal@0", "F a-Kie@0 - a-Ber@0", "F a-Kie@0 - a-Den@0", "F a-Kie@0 - a-Hel@0",
        "F a-Kie@0 - a-Hol@0", "F a-Kie@0 S a-Ber@0", "F a-Kie@0 S a-Mun@0 - a-Ber@0"])
    assert {o["board"] for o in data["orders"]} == {"a0"}
    out = ok(fivedp(tmp_path, "game", "possible", "g.yaml", "--power", "England", "--unit", "F Lon"))
    assert "    F a-Lon@0 - a-Nth@0\n" in out and "    F a-Lon@0 S a-Edi@0 - a-Nth@0\n" in out


def replayed(steps: int):
    """The game of GAME after ``steps`` steps, played in memory through the API."""
    import fivedp_asp as fd

    game = fd.new_game()
    for _, _, orders, _ in GAME[:steps]:
        for power, lines in orders.items():
            game = fd.submit_orders(game, lines, power=power).game
        game, _ = fd.adjudicate(game)
    return game


def test_possible_orders_across_time():
    from fivedp_asp import legal_orders

    game = replayed(3)  # a2 (Spring 1902) and b1 (Fall 1901) are to move
    orders = {p.order for p in legal_orders(game, power="Germany", unit="A Mun")}
    assert "A a-Mun@2 - a-Tyr@1" in orders  # back in time to Fall 1901
    assert "A a-Mun@2 - a-Tyr@2" in orders
    assert "A a-Mun@2 - a-Mun@1" in orders  # the same province one turn back
    assert "A a-Mun@2 S a-Ber@2 - a-Sil@2" in orders
    assert "A a-Mun@2 - b-Mun@1" in orders  # to the timeline forked from a0 (a's child), a turn back
    assert not any("@3" in o for o in orders)  # no board at turn 3 exists yet
    assert not any(o.endswith("- a-Bal@2") for o in orders)  # an army never to sea
    b_orders = {p.order for p in legal_orders(game, power="Germany", unit="A b-Boh")}
    assert "A b-Boh@1 S b-Sil@1 - b-Gal@1" in b_orders
    assert "A b-Boh@1 - a-Boh@2" in b_orders  # across timelines to the parent's head
    assert {p.power for p in legal_orders(game, unit="A b-Gal")} == {"Austria"}


def test_possible_retreats_come_from_the_retreat_program():
    from fivedp_asp import legal_orders

    game = replayed(4)
    assert {p.order for p in legal_orders(game, power="Austria")} == {
        "A b-Gal@2 - b-Bud@2", "A b-Gal@2 - b-Rum@2", "A b-Gal@2 - b-Ukr@2", "A b-Gal@2 - b-Vie@2", "A b-Gal@2 D"}
    assert legal_orders(game, power="Germany") == ()


def test_possible_adjustments():
    from fivedp_asp import legal_orders

    game = replayed(2)  # adjustments on a2: Germany builds in Ber or Kie, both coastal
    orders = {p.order for p in legal_orders(game, power="Germany")}
    assert orders == {"Build A a-Ber@2", "Build F a-Ber@2", "Build A a-Kie@2", "Build F a-Kie@2", "Waive"}


# -- pipes ------------------------------------------------------------------------------------------


def piped_to_head(cwd: Path, *args: str) -> tuple[int, str]:
    """Runs ``fivedp ARGS | head -1`` in a shell; the exit status of fivedp and what head printed."""
    command = " ".join([sys.executable, "-m", "fivedp_asp.cli", *args]) + ' | head -1; exit "${PIPESTATUS[0]}"'
    p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=300, env=env())
    assert "Traceback" not in p.stderr and "Broken pipe" not in p.stderr, p.stderr
    return p.returncode, p.stdout


def closed_at_once(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """Runs fivedp with a standard output whose reader has already gone (every write fails)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=300, env=env())
    finally:
        os.close(write)


@pytest.mark.slow
def test_adjudicate_into_a_closed_pipe(tmp_path):
    status, first = piped_to_head(tmp_path, "adjudicate", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"))
    assert status == 0 and first.startswith("MDATC 3.A.2")
    p = closed_at_once(tmp_path, "adjudicate", "--json", str(ROOT / "cases" / "mdatc" / "3.A.2.yaml"))
    assert p.returncode == 0 and "Traceback" not in p.stderr and p.stderr == ""
    # a failing check keeps its exit status when nobody reads its output
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: X\nstart:\n  units:\n    Germany: [A Munich]\nsteps:\n  - orders:\n      Germany: [A Mun - Boh]\n"
                   "    expect:\n      results:\n        A Mun - Boh: fails\n", encoding="utf-8")
    p = closed_at_once(tmp_path, "check", str(bad))
    assert p.returncode == 1 and p.stderr == ""


@pytest.mark.slow
def test_game_adjudicate_into_a_closed_pipe_saves_once(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun - Boh", "A Vie - Gal"))
    status, first = piped_to_head(tmp_path, "game", "adjudicate", "g.yaml")
    assert status == 0 and first.startswith("Adjudicated step 1: movement on a0 (phase 1-")
    assert history_len(tmp_path / "g.yaml") == 1
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Boh - Mun"))
    p = closed_at_once(tmp_path, "game", "adjudicate", "g.yaml")
    assert p.returncode == 0 and p.stderr == ""
    assert history_len(tmp_path / "g.yaml") == 2
    p = closed_at_once(tmp_path, "game", "orders", "g.yaml", "A Mun - Ruh")
    assert p.returncode == 0
    assert load_game(tmp_path / "g.yaml").pending == {"Germany": ["A Mun - Ruh"]}
