"""The phase key through the API: a step undone and played otherwise is another phase, so neither the
server's cache of parsed games nor a submission for the undone branch can bring that branch back."""

from __future__ import annotations

from fivedp_asp.files.games import game_from_bytes
from fivedp_asp.files.verify import verify_game

from tests.serve.conftest import TWO_POWERS, new_table


def _unit(view: dict, power: str) -> list[str]:
    """Where ``power``'s units stand on the head of timeline a, as the view draws them."""
    head = max((b for b in view["heads"] if b["timeline"] == "a"), key=lambda b: b["turn"])
    return sorted(head["units"].get(power, []))


def _step(t, lines: list[str] | None) -> dict:
    """France gives ``lines`` (None: nobody orders), then the host adjudicates."""
    key = t.key()
    if lines is not None:
        assert t.orders("France", *lines, phase=key).status_code == 200
    r = t.post("/adjudicate", {"phase": key}, "host")
    assert r.status_code == 200, r.text
    return r.json()


def _undo(t) -> None:
    r = t.post("/undo", {"phase": t.key()}, "host")
    assert r.status_code == 200, r.text


def test_an_undone_branch_never_comes_back(client):
    """France plays A Par - Pic, then a step where nobody orders; the host undoes both; France plays
    A Par - Bur, then again a step where nobody orders. The two branches end on steps that look the
    same (nobody ordered, on the same board), but the game is France's army in Burgundy: in the view,
    the history, the host's file and after the next adjudication."""
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    t.join("Germany")
    _step(t, ["A Par - Pic"])
    _step(t, None)
    picardy = t.key()
    assert "A Pic" in _unit(t.view(), "France")
    # the history is kept per phase (every player reads it whenever the revision moves): read here, it
    # must not be what is shown once the branch is undone, nor after the other branch is played
    assert t.get("/history").json()["steps"][0]["orders"]["France"] == ["A Par - Pic"]
    _undo(t)
    _undo(t)
    assert t.view()["next"]["step"] == 1
    assert t.get("/history").json()["steps"] == []
    # the undone step's orders wait again, sealed: France replaces them
    _step(t, ["A Par - Bur"])
    _step(t, None)
    burgundy = t.key()
    assert burgundy != picardy and burgundy.split("-")[0] == picardy.split("-")[0] == "3"
    for who in (None, "France", "Germany", "host"):
        view = t.view(who)
        assert view["next"]["key"] == burgundy
        assert "A Bur" in _unit(view, "France") and "A Pic" not in _unit(view, "France"), who
    assert t.get("/history").json()["steps"][0]["orders"]["France"] == ["A Par - Bur"]
    # a submission for the undone branch's phase is stale, and changes nothing
    r = t.orders("France", "A Pic - Bel", phase=picardy)
    assert r.status_code == 409 and r.json()["phase"] == burgundy
    assert t.view("France")["pending"] == {}
    # the next step is played on Burgundy, and the host's file holds that game, honest
    step = _step(t, ["A Bur - Ruh"])
    assert {(o["text"], o["result"]) for o in step["step"]["orders"]} == {("A Bur - Ruh", "succeeds")}
    text = t.get("/file", "host").text
    game, _ = game_from_bytes(text.encode("utf-8"), "served")
    assert [h["orders"].get("France") for h in game.history] == [["A Par - Bur"], None, ["A Bur - Ruh"]]
    assert verify_game(game).honest
    assert "A Ruh" in _unit(t.view(), "France")


def test_the_picture_follows_the_branch_played(client):
    """The picture's frames are kept per phase: the undone branch's frames are not drawn for the
    branch played since."""
    t = new_table(client, {"start": TWO_POWERS})
    t.join("France")
    _step(t, ["A Par - Pic"])
    _step(t, None)
    assert "A Par - Pic" in t.get("/picture", "host").text
    _undo(t)
    _undo(t)
    _step(t, ["A Par - Bur"])
    _step(t, None)
    page = t.get("/picture", "host").text
    assert "A Par - Bur" in page and "A Par - Pic" not in page
