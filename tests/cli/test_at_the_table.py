"""At the table: what each player sees, run as the players run the commands, read as they read them.

A command given with ``--power P`` is P's: it shows P's own orders and, of the others, only who has
submitted. A command without ``--power`` is the game master's: every open order, and of sealed sets
only their size. Sealed and open orders of one power: which wins is said when they meet, and the
sealed ones stay sealed through an undo."""

from __future__ import annotations

import json

from tests.cli.test_play import doc, fivedp, ok, todo


def test_a_player_sees_the_others_only_as_submitted(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "Austria", "A Vie - Gal", "F Tri - Adr"))
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "A Par - Bur"))
    assert out.splitlines()[0].startswith("Orders for step 1: movement on a0 (phase 1-")
    assert out.splitlines()[1:] == ["France: A Par - Bur: legal", "Austria: submitted", "France: 1 order waiting",
                                "  A Par - Bur"]
    shown = ok(fivedp(tmp_path, "game", "show", "g.yaml", "--power", "France"))
    assert "Gal" not in shown and "Adr" not in shown
    assert shown.splitlines()[-3:] == ["Next: movement (step 1)", "  Austria: submitted", "  France: A Par - Bur"]
    data = doc(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "England", "F Lon - Eng", "--json"), "orders")
    assert data["pending"] == {"England": ["F Lon - Eng"]} and data["submitted"] == ["Austria", "England", "France"]
    assert "Gal" not in json.dumps(data) and "Bur" not in json.dumps(data)
    data = doc(fivedp(tmp_path, "game", "show", "g.yaml", "--power", "Turkey", "--json"), "game")
    assert data["pending"] == {} and data["submitted"] == ["Austria", "England", "France"]
    # the game master (no --power) sees every open order
    master = ok(fivedp(tmp_path, "game", "show", "g.yaml"))
    assert "  Austria: A Vie - Gal; F Tri - Adr" in master.splitlines() and "  France: A Par - Bur" in master.splitlines()
    master = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Ber - Kie"))
    assert "  A Vie - Gal" in master.splitlines() and "Germany: 1 order waiting" in master.splitlines()


def test_sealed_and_open_orders_of_one_power_say_which_wins(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "A Par - Pic"))
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "--sealed", "A Par - Bur"))
    assert "Note: at adjudication this sealed set replaces France's 1 open order waiting: A Par - Pic" in out
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "F Bre - Mao"))
    assert out.splitlines()[2].startswith("Note: France has sealed orders for this step: at adjudication they "
                                          "replace its open orders")
    assert "France: 1 order sealed" in out.splitlines() and "  (at adjudication France's sealed set replaces its " \
                                                            "open orders)" in out.splitlines()
    assert [d for d in todo(ok(fivedp(tmp_path, "game", "show", "g.yaml", "--power", "France")))] == [
        "France on a0: orders for A Mar, A Par, F Bre (2 given; without an order A Mar hold) (sealed orders given)"]
    out = ok(fivedp(tmp_path, "game", "adjudicate", "g.yaml"))
    assert out.splitlines()[1:3] == ["Sealed orders opened: France",
                                    "  France's open orders were set aside for its sealed set: A Par - Pic; F Bre - Mao"]
    assert "A Par - Bur  succeeds" in out and "Pic" not in out.split("\n", 3)[3]


def test_sealed_orders_stay_sealed_through_an_undo(tmp_path):
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "--sealed", "A Par - Bur"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "Austria", "A Vie - Gal"))
    ok(fivedp(tmp_path, "game", "adjudicate", "g.yaml"))
    out = ok(fivedp(tmp_path, "game", "undo", "g.yaml"))
    assert "Sealed again: France (their sets wait, sealed, as they were given)" in out.splitlines()
    master = ok(fivedp(tmp_path, "game", "show", "g.yaml"))
    assert "Bur" not in master.split("Next:")[1]
    assert master.splitlines()[-2:] == ["  Austria: A Vie - Gal", "  France: orders sealed (1 line)"]
    assert "A Par - Bur" not in ok(fivedp(tmp_path, "game", "show", "g.yaml", "--power", "Austria"))
    assert "  France (sealed): A Par - Bur" in ok(fivedp(tmp_path, "game", "show", "g.yaml", "--power", "France"))
    # played again, the set is opened again
    out = ok(fivedp(tmp_path, "game", "adjudicate", "g.yaml"))
    assert out.startswith("Adjudicated step 1: movement on a0 (phase 1-") and "A Par - Bur  succeeds" in out
    assert out.splitlines()[1] == "Sealed orders opened: France"


def test_wording_a_player_reads(tmp_path):
    """Builds with no free home centre, one order in the history, orders checked given and waiting."""
    (tmp_path / "start.yaml").write_text("""\
id: builds
title: more centres than units, every home centre occupied
start:
  turn: 1
  units:
    Germany: [A Berlin, A Kiel, A Munich]
    France: [A Paris]
  centers:
    Germany: [Berlin, Kiel, Munich, Holland]
    France: [Paris, Brest]
steps: []
""", encoding="utf-8")
    ok(fivedp(tmp_path, "game", "new", "g.yaml", "--from", "start.yaml"))
    ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Par - Bur"))
    ok(fivedp(tmp_path, "game", "adjudicate", "g.yaml"))
    assert todo(ok(fivedp(tmp_path, "game", "show", "g.yaml"))) == [
        "France on a2: may build 1 (free home centres: Bre, Par; write e.g. Build A Bre)",
        "Germany on a2: may build 1, but no home centre it owns is free (each holds a unit): nothing to build"]
    assert ok(fivedp(tmp_path, "game", "history", "g.yaml")).splitlines() == [
        "Step 1: movement on a1: 1 order (1 succeeds)"]
