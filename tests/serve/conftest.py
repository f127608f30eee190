"""Fixtures of the server's tests: the application on a fresh SQLite database, and on PostgreSQL when
``FIVEDP_TEST_POSTGRES`` names a server (``.ci/run`` starts one; elsewhere those tests are skipped,
and say so)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="httpx (the test extra) is not installed")

from starlette.testclient import TestClient  # noqa: E402

from fivedp_asp.serve.app import make_app  # noqa: E402



def postgres() -> str | None:
    """The PostgreSQL server of the tests, read when asked: under ``pytest -n`` the worker's own
    database, which tests/conftest.py names once the worker has started."""
    return os.environ.get("FIVEDP_TEST_POSTGRES")


def databases(tmp_path: Path) -> list:
    return [f"sqlite:///{tmp_path}/games.db"]


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path: Path) -> str:
    """A database for the test: a new SQLite file, or the PostgreSQL server of ``FIVEDP_TEST_POSTGRES``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/games.db"
    if not postgres():
        pytest.skip("no PostgreSQL server: set FIVEDP_TEST_POSTGRES=postgresql://... (.ci/run does)")
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    return postgres()


@pytest.fixture
def client(db_url: str):
    with TestClient(make_app(db_url, deadline_check=None)) as c:
        yield c


class Table:
    """A game on the server with its host and players, as the test's clients see them."""

    def __init__(self, client, game_id: str, host: str):
        self.client, self.id, self.host = client, game_id, host
        self.tokens: dict[str, str] = {}

    def join(self, power: str) -> str:
        r = self.client.post(f"/api/games/{self.id}/players", json={"power": power})
        assert r.status_code == 200, r.text
        self.tokens[power] = r.json()["token"]
        return self.tokens[power]

    def auth(self, who: str | None) -> dict:
        token = self.host if who == "host" else self.tokens.get(who) if who else None
        return {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str = "", who: str | None = None, **kw):
        return self.client.get(f"/api/games/{self.id}{path}", headers=self.auth(who), **kw)

    def post(self, path: str, body: dict | None = None, who: str | None = None):
        return self.client.post(f"/api/games/{self.id}{path}", json=body or {}, headers=self.auth(who))

    def view(self, who: str | None = None) -> dict:
        r = self.get("", who)
        assert r.status_code == 200, r.text
        return r.json()

    def key(self) -> str:
        return self.view()["next"]["key"]

    def orders(self, who: str, *lines: str, **body):
        """A submission, for the phase waiting now unless ``phase`` is given."""
        return self.post("/orders", {"lines": list(lines), "phase": body.pop("phase", None) or self.key(), **body}, who)

    def adjudicate(self, who: str | None = "host", phase: str | None = None):
        return self.post("/adjudicate", {"phase": phase or self.key()}, who)

    def undo(self, who: str | None = "host", phase: str | None = None):
        return self.post("/undo", {"phase": phase or self.key()}, who)

    def next_phase(self, key: str, timeout: float = 120.0) -> dict:
        """The view once the game no longer waits for the phase ``key``. A submission that completes a
        phase answers before it is adjudicated (the server's scheduler does that, in a task of its own):
        its players learn of the new phase from the revision, as this does, within ``timeout`` seconds."""
        began, seen = time.monotonic(), None
        while time.monotonic() - began < timeout:
            revision = self.get("/revision").json()["revision"]
            if revision != seen:
                seen, view = revision, self.view()
                if view["next"]["key"] != key:
                    return view
            time.sleep(0.02)
        raise AssertionError(f"the phase {key} was not adjudicated within {timeout:.0f} s")

    def last_step(self) -> dict:
        """The last step played, as the history gives it."""
        return self.get("/history").json()["steps"][-1]

    def withdraw(self, who: str, phase: str | None = None):
        return self.client.delete(f"/api/games/{self.id}/orders", params={"phase": phase or self.key()},
                                  headers=self.auth(who))


TWO_POWERS = {"turn": 0, "units": {"France": ["A Paris", "A Marseilles", "F Brest"],
                                   "Germany": ["A Munich", "A Berlin", "F Kiel"]},
              "centers": {"France": ["Paris", "Marseilles", "Brest"], "Germany": ["Munich", "Berlin", "Kiel"]}}


def new_table(client, body: dict | None = None) -> Table:
    r = client.post("/api/games", json=body if body is not None else {})
    assert r.status_code == 200, r.text
    data = r.json()
    return Table(client, data["id"], data["host_token"])
