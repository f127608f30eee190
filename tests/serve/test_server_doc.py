"""The curl session of docs/server.md, run as written (each command through bash and the real curl)
against a server started for the test; the values a reader keeps by hand (the game's id, the
tokens, the phase key) are read from the answers as the text says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve.live import server

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    """The session's commands, continuation lines joined."""
    session = DOC.split("### A session with curl", 1)[1]
    out = []
    for block in re.findall(r"```sh\n(.*?)```", session, re.S):
        out += [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed (.ci/run installs it)")
def test_the_curl_session_runs_as_written(tmp_path):
    cmds = commands()
    assert len(cmds) == 15
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    outputs = []
    with server(f"sqlite:///{tmp_path}/games.db", tmp_path) as base:
        env["SERVER"] = base
        for cmd in cmds:
            p = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, (cmd, p.stdout, p.stderr)
            outputs.append(p.stdout)
            data = None
            try:
                data = json.loads(p.stdout)
            except ValueError:
                pass
            if cmd.startswith("curl -s -X POST $SERVER/api/games -H"):
                env["GAME"], env["HOST"] = data["id"], data["host_token"]
            elif '{"power": "France"}' in cmd:
                env["FRANCE"] = data["token"]
            elif '{"power": "Germany"}' in cmd:
                env["GERMANY"] = data["token"]
            elif cmd == 'curl -s $SERVER/api/games/$GAME -H "Authorization: Bearer $FRANCE"':
                env["PHASE"] = data["next"]["key"]
    (create, join_f, join_g, view_f, check, submit_f, view_g, possible, submit_g, wait, stale, history, picture,
     file, verify) = outputs
    assert json.loads(check)["accepted"][0]["reason"] == "not adjacent"
    assert [a["legal"] for a in json.loads(submit_f)["accepted"]] == [True, True]
    seen = json.loads(view_g)
    assert seen["submitted"] == ["France"] and "A Par - Bur" not in view_g
    assert json.loads(possible)["orders"]
    assert json.loads(submit_g)["complete"] is True and wait == ""
    step = json.loads(history)["steps"][0]
    results = {o["order"]: (o["result"], o.get("reason")) for o in step["results"]}
    assert results["A Par - Bur"] == ("succeeds", "attack 2 against 1") and results["A Mun - Bur"][0] == "fails"
    assert stale.endswith(" 409") and "the game has moved on" in stale
    assert len(json.loads(history)["steps"]) == 1
    assert (tmp_path / "picture.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert verify.startswith("game.yaml: 1 step replayed")
