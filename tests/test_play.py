"""Playing a game through the command line the way a new player does: every order typed is text the
program printed (a unit from `game show`'s To-do, an order from `game possible`), pasted back as it is.
Also: per-line legality when orders are submitted, the documented replacement rules, sealed orders,
undo, the per-power view and what `show BOARD` says about a board's later battles."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def fivedp(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, env=env, input=input,
                          capture_output=True, text=True, timeout=300)


def ok(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 0, (p.args, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    return p.stdout


def todo(text: str) -> list[str]:
    """The To-do lines of `game show`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("To do"))
    out = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        out.append(line.strip())
    return out


def possible(tmp: Path, unit: str) -> list[str]:
    """The orders `game possible --unit` prints for a unit, as printed."""
    text = ok(fivedp(tmp, "game", "possible", "g.yaml", "--unit", unit))
    return [line.strip() for line in text.splitlines() if line.startswith("    ")]


def timelines(tmp: Path) -> int:
    first = ok(fivedp(tmp, "game", "show", "g.yaml")).splitlines()[0]
    return int(re.match(r"Timelines: (\d+)", first)[1])


def board_of(order: str) -> tuple[str, int, str, int] | None:
    """(unit timeline, unit turn, destination timeline, destination turn) of a printed move."""
    m = re.fullmatch(r"[AF] ([a-z]+\d*)-[A-Za-z/]+@(\d+) - ([a-z]+\d*)-[A-Za-z/]+@(\d+)", order)
    return None if m is None else (m[1], int(m[2]), m[3], int(m[4]))


def choose_move(orders: list[str], forks_wanted: bool) -> str | None:
    """A move into the past (which may fork) while more timelines are wanted, else a move on the
    unit's own board; the first such order as printed."""
    moves = [(o, board_of(o)) for o in orders if board_of(o)]
    if forks_wanted:
        back = [o for o, b in moves if b[3] < b[1]]
        if back:
            return back[0]
    here = [o for o, b in moves if (b[2], b[3]) == (b[0], b[1])]
    return here[0] if here else None


def test_twelve_steps_of_a_three_timeline_game_from_printed_text(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    movers = ("Germany", "Austria", "Italy")
    for step in range(1, 13):
        shown = ok(fivedp(tmp, "game", "show", "g.yaml"))
        duties = todo(shown)
        lines: list[str] = []
        many = int(re.match(r"Timelines: (\d+)", shown)[1])
        for duty in duties:
            power = duty.split(" on ")[0]
            m = re.search(r": orders for (.*?)(?: \(|$)", duty)
            if m:
                units = m[1].split(", ")
                if power in movers:
                    # one move into the past a step at most, while fewer than three timelines exist
                    back = many < 3 and not any(board_of(x) and board_of(x)[3] < board_of(x)[1] for x in lines)
                    chosen = choose_move(possible(tmp, units[0]), back)
                    if chosen:
                        lines.append(chosen)
                if len(units) > 1:
                    lines.append(f"{units[1]} H")  # the hint's unit, typed back as printed
                continue
            m = re.search(r": (.*) must retreat to", duty)
            if m:
                lines.append(possible(tmp, m[1])[0])
                continue
            m = re.search(r"write e\.g\. (Build [AF] \S+)\)", duty)
            if m:
                lines.append(m[1])
                continue
            m = re.search(r"write e\.g\. (.*? Disband);", duty)
            if m:
                lines.append(m[1])
        if lines:
            out = ok(fivedp(tmp, "game", "orders", "g.yaml", *lines))
            verdicts = [line for line in out.splitlines() if line.endswith(": legal") or ": ILLEGAL" in line]
            assert len(verdicts) == len(lines) and all(v.endswith(": legal") for v in verdicts), (step, out)
        out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
        assert out.startswith(f"Step {step}: ")
        assert " invalid" not in out, (step, lines, out)
    assert timelines(tmp) == 3
    history = json.loads(ok(fivedp(tmp, "game", "history", "g.yaml", "--json")))
    assert len(history["steps"]) == 12
    assert all(r["result"] != "invalid" for s in history["steps"] for r in s["results"])
