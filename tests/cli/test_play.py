"""Playing a game through the command line the way a new player does: every order typed is text the
program printed (a unit from `game show`'s To-do, an order from `game possible`), pasted back as it is.
Also: per-line legality when orders are submitted, the documented replacement rules, sealed orders,
undo, the per-power view and what `show BOARD` says about a board's later battles."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fivedp_asp as fd
from fivedp_asp.cli import main
from fivedp_asp.report.jsonout import load_schema
from tests.schema_check import errors

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = load_schema()


def doc(p: subprocess.CompletedProcess, kind: str, status: int = 0) -> dict:
    assert p.returncode == status, (p.args, p.stdout, p.stderr)
    data = json.loads(p.stdout)
    assert data["format"] == 1 and data["kind"] == kind
    problems = errors(data, SCHEMA)
    assert not problems, problems[:5]
    return data


def fivedp(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """The command in this process: ``cli.main``, the program's own entry, in ``cwd`` with its standard
    streams captured (a process per call made the twelve-step game take minutes; one test below runs
    the program as a process all the same)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode("utf-8")), encoding="utf-8")
    here = os.getcwd()
    saved = sys.stdin
    os.chdir(cwd)
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = saved
        os.chdir(here)
    return subprocess.CompletedProcess(["fivedp", *args], code, out.getvalue(), err.getvalue())


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
    """The moves `game possible --unit --kind move` prints for a unit, as printed (``--all``: a unit's
    list may be long enough to be counted instead)."""
    text = ok(fivedp(tmp, "game", "possible", "g.yaml", "--unit", unit, "--kind", "move", "--all"))
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


@pytest.mark.slow
def test_twelve_steps_of_a_three_timeline_game_from_printed_text(tmp_path, program):
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
            m = re.search(r"must retreat to .* \(write e\.g\. (.*)\)$", duty)
            if m:
                lines.append(m[1])
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
        acted, report = out.split("\n", 1)
        assert acted.startswith(f"Adjudicated step {step}: ") and report.startswith(f"Step {step}: ")
        assert " invalid" not in out, (step, lines, out)
    assert timelines(tmp) == 3
    history = json.loads(ok(program(tmp, "game", "history", "g.yaml", "--json", env={"PYTHONPATH": str(ROOT)})))
    assert len(history["steps"]) == 12
    assert all(r["result"] != "invalid" for s in history["steps"] for r in s["results"])


# -- docs/game-format.md, "Replacing and adding" and the `orders` bullet, run as written ------------


def waiting(tmp: Path) -> dict:
    return doc(fivedp(tmp, "game", "show", "g.yaml", "--json"), "game")["pending"]


@pytest.mark.slow
def test_documented_replacement_rules(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - Ruh", "F Kie - Den"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Austria", "A Vie - Gal"))
    # a line for a unit with a waiting order replaces it and says so; the power's other orders stay
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - Boh"))
    assert "Replaced: Germany: A Mun - Ruh  by  A Mun - Boh" in out.splitlines()
    assert waiting(tmp) == {"Austria": ["A Vie - Gal"], "Germany": ["F Kie - Den", "A Mun - Boh"]}
    # --add changes nothing: the same as without it
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "--add", "A Ber - Sil"))
    assert waiting(tmp)["Germany"] == ["F Kie - Den", "A Mun - Boh", "A Ber - Sil"]
    # an illegal line does not replace a legal waiting order: reported, not taken, exit 1
    p = fivedp(tmp, "game", "orders", "g.yaml", "A Mun - War")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert ("Germany: A Mun - War: ILLEGAL (not adjacent): not taken, the legal A Mun - Boh stays "
            "(--force takes it)") in p.stdout.splitlines()
    assert waiting(tmp)["Germany"] == ["F Kie - Den", "A Ber - Sil", "A Mun - Boh"]
    # ... unless --force; an illegal line replacing nothing is taken and reported
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "--force", "A Mun - War"))
    assert "Replaced: Germany: A Mun - Boh  by  A Mun - War" in out
    assert "Germany: A Mun - War: ILLEGAL (not adjacent): taken, but the rules will ignore it" in out
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Italy", "A Ven - Mos"))
    assert "Italy: A Ven - Mos: ILLEGAL (not adjacent): taken, but the rules will ignore it" in out
    # --replace withdraws the waiting orders of the powers the command gives lines for, no others
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "--replace", "A Mun - Tyr"))
    assert [line for line in out.splitlines() if line.startswith("Withdrawn:")] == [
        "Withdrawn: Germany: F Kie - Den", "Withdrawn: Germany: A Ber - Sil", "Withdrawn: Germany: A Mun - War"]
    assert waiting(tmp) == {"Austria": ["A Vie - Gal"], "Germany": ["A Mun - Tyr"], "Italy": ["A Ven - Mos"]}
    # a line of another phase refuses the whole command: nothing is taken
    before = (tmp / "g.yaml").read_bytes()
    p = fivedp(tmp, "game", "orders", "g.yaml", "A Ber - Kie", "Build A Kie")
    assert p.returncode == 2 and "next phase is movement on a0" in p.stderr and "Traceback" not in p.stderr
    assert (tmp / "g.yaml").read_bytes() == before
    # a comment line submits nothing and leaves the waiting orders; no line at all is refused
    ok(fivedp(tmp, "game", "orders", "g.yaml", "# nothing"))
    assert (tmp / "g.yaml").read_bytes() == before
    p = fivedp(tmp, "game", "orders", "g.yaml")
    assert p.returncode == 2 and "no orders given" in p.stderr
    # JSON: the verdict per line, the refused ones apart
    data = doc(fivedp(tmp, "game", "orders", "g.yaml", "--json", "A Mun - Sil", "A Mun - Mos"), "orders", status=1)
    assert [(a["order"], a["legal"]) for a in data["accepted"]] == [("A Mun - Sil", True)]
    assert [(a["order"], a["legal"], a["reason"], a["kept"]) for a in data["refused"]] == [
        ("A Mun - Mos", False, "not adjacent", "A Mun - Sil")]


def test_api_check_flags_and_refuses_like_the_command_line():
    game = fd.submit_orders(fd.new_game(), ["A Mun - Ruh"], power="Germany").game
    # without check, as before: taken, not judged
    sub = fd.submit_orders(game, ["A Mun - Mos"], power="Germany")
    assert sub.game.pending["Germany"] == ["A Mun - Mos"] and sub.accepted[0].legal is None
    sub = fd.submit_orders(game, ["A Mun - Mos", "F Kie - Bur"], power="Germany", check=True)
    assert sub.game.pending["Germany"] == ["A Mun - Ruh", "F Kie - Bur"]
    assert [(a.text, a.legal, a.reason) for a in sub.accepted] == [("F Kie - Bur", False, "fleet to land")]
    assert [(a.text, a.kept) for a in sub.refused] == [("A Mun - Mos", "A Mun - Ruh")]
    sub = fd.submit_orders(game, ["A Mun - Mos"], power="Germany", check=True, force=True)
    assert sub.game.pending["Germany"] == ["A Mun - Mos"] and not sub.refused


# -- what the program prints can be typed back -------------------------------------------------------


@pytest.mark.slow
def test_hints_name_units_on_their_boards_and_results_say_how_orders_were_read(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    duties = todo(ok(fivedp(tmp, "game", "show", "g.yaml")))
    assert "Germany on a0: orders for A Ber, A Mun, F Kie" in duties  # one timeline: plain
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - Tyr"))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    # a support written without boards: the result says which boards it was read as
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyr - a-Boh@0", "A Ber S A a-Mun@0 - Sil"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if line.strip().startswith("A Ber S A a-Mun@0 - Sil"))
    assert lines[i + 1].strip() == "read as A a-Ber@1 S a-Mun@0 - a-Sil@0"
    shown = ok(fivedp(tmp, "game", "show", "g.yaml"))
    # the army left a for b: a2 has Kiel's fleet and Berlin's army for three centres, Munich free
    assert "Germany on a2: may build 1 (free home centres: a-Mun; write e.g. Build A a-Mun)" in todo(shown)
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "Build A a-Mun"))
    assert "Germany: Build A a-Mun: legal" in out.splitlines()  # the hint says it all: no "read as"
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    duties = todo(ok(fivedp(tmp, "game", "show", "g.yaml")))
    german = [d for d in duties if d.startswith("Germany on b1")]
    assert german == ["Germany on b1: orders for A b-Ber, A b-Boh, A b-Tyr, F b-Kie"], duties
    # the hint's units, typed back as printed, are the units of b1 (plain 'A Ber' is a2's army)
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "A b-Ber H", "A b-Boh - Sil"))
    assert "Germany: A b-Ber H (read as A b-Ber@1 H): legal" not in out  # one board, timeline written
    assert "Germany: A b-Ber H: legal" in out and "Germany: A b-Boh - Sil (read as A b-Boh@1 - b-Sil@1): legal" in out


def test_retreat_hint_typed_back_on_a_fork(tmp_path):
    """MDATC 3.A.2: the support forks a0, and Austria's army must retreat on b1; the hint names it as
    an order names it there (plain 'A Tyr' would be a2's army, which stands)."""
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml", "--from", str(ROOT / "cases/mdatc/3.A.2.yaml")))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyrolia hold", "A Munich - Tyrolia"))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyrolia hold", "A Munich supports A a-Munich@0 - Tyrolia"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "      read as A a-Mun@1 S a-Mun@0 - a-Tyr@0" in out.splitlines()
    duties = todo(ok(fivedp(tmp, "game", "show", "g.yaml")))
    assert len(duties) == 1 and duties[0].startswith("Austria on b1: A b-Tyr must retreat to "), duties
    hint = re.search(r"\(write e\.g\. (.*)\)$", duties[0])[1]
    assert hint.startswith("A b-Tyr - ")
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", hint))
    dest = hint.split(" - ")[1]
    assert f"Austria: {hint} (read as A b-Tyr@1 - b-{dest}@1): legal" in out.splitlines()  # on b1, as it must
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert re.search(rf"^    {re.escape(hint)}  succeeds$", out, re.M), out


@pytest.mark.slow
def test_show_board_says_whether_it_was_fought_again(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - Tyr"))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    # a move into the past that bounces off Vienna's army: a0 is fought again, nothing forks
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyr - a-Vie@0"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "New timeline" not in out
    assert "  Fought again: a0 (because of A a-Tyr@1 - a-Vie@0)" in out.splitlines()
    assert ("  Fought again at step 2, no fork (because of A a-Tyr@1 - a-Vie@0)"
            in ok(fivedp(tmp, "game", "show", "g.yaml", "a0")).splitlines())
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyr - a-Boh@1"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "New timeline b: forked from a1" in out
    a1 = ok(fivedp(tmp, "game", "show", "g.yaml", "a1")).splitlines()
    assert "  Forked into b at step 3 (because of A a-Tyr@2 - a-Boh@1)" in a1
    assert not [line for line in a1 if line.startswith("  Fought again")]
    assert "  Not fought again after its own battle." not in a1
    board = ok(fivedp(tmp, "game", "show", "g.yaml", "a2")).splitlines()
    assert "  Not fought again after its own battle." in board


def test_civil_disorder_disbands_say_why_and_one_centre_is_singular(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml", "--from", str(ROOT / "cases/datc/6.J.03.yaml")))
    shown = ok(fivedp(tmp, "game", "show", "g.yaml"))
    assert "    Russia: A Lvn, A Pru  [1 centre: Stp]" in shown.splitlines()
    assert ("Russia on a2: must disband 1 of A Lvn, A Pru (write e.g. A Lvn Disband; without orders, civil "
            "disorder chooses)") in todo(shown)
    # only the powers with something on the board are listed
    assert not any(line.startswith("    Germany") for line in shown.splitlines())
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    # DATC 6.J.3: the army farther from St Petersburg, Prussia's, goes
    assert ("  Disbanded: A Pru on a2 (civil disorder: too few disbands ordered, removed by rule (off a centre, "
            "farthest from home, fleets first))") in out.splitlines()
    data = json.loads(ok(fivedp(tmp, "game", "history", "g.yaml", "--json")))
    assert data["steps"][0]["results"] == []
    ok(fivedp(tmp, "game", "undo", "g.yaml"))
    data = doc(fivedp(tmp, "game", "adjudicate", "g.yaml", "--json"), "step")
    assert [(d["unit"], d["reason"]) for d in data["step"]["disbanded"]] == [
        ("A Pru", "civil disorder: too few disbands ordered, removed by rule (off a centre, farthest from home, "
                  "fleets first)")]
    ok(fivedp(tmp, "game", "undo", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Lvn Disband"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "  Disbanded: A Lvn on a2 (disband ordered)" in out.splitlines()


def test_board_units_are_keyed_by_printed_names():
    game = fd.new_game()
    units = fd.board_units(game, "a0")
    assert units["Stp"].location == "stp/sc" and units["Mun"].power == "Germany"
    assert set(units) == {k.capitalize() for k in fd.board(game, "a0").units}  # the same units
    with pytest.raises(fd.InputError, match="no board 'a9'"):
        fd.board_units(game, "a9")


# -- a game master's tools ---------------------------------------------------------------------------


def test_sealed_orders_are_shown_to_nobody_until_adjudicated(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Germany", "--sealed", "A Mun - Tyr", "F Kie - Den"))
    assert "Germany: A Mun - Tyr: legal" in out and "Germany: 2 orders sealed for step 1" in out
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Austria", "--sealed", "A Vie - Tyr"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Italy", "A Ven - Pie"))  # open orders
    assert (tmp / "g.yaml.sealed").stat().st_mode & 0o077 == 0
    assert "Tyr" not in (tmp / "g.yaml").read_text(encoding="utf-8")  # not in the game file
    shown = ok(fivedp(tmp, "game", "show", "g.yaml"))
    assert "  Austria: orders sealed (1 line)" in shown.splitlines()
    assert "  Germany: orders sealed (2 lines)" in shown.splitlines()
    assert "Tyr" not in shown and "  Italy: A Ven - Pie" in shown.splitlines()
    mine = ok(fivedp(tmp, "game", "show", "g.yaml", "--power", "Germany"))
    assert "  Germany (sealed): A Mun - Tyr; F Kie - Den" in mine.splitlines()
    assert "A Vie - Tyr" not in mine and "A Ven - Pie" not in mine
    # of the others, a power sees only who has submitted: not what, nor how much
    assert "  Austria: submitted" in mine.splitlines() and "  Italy: submitted" in mine.splitlines()
    assert "sealed (1 line)" not in mine
    assert [d for d in todo(mine)] == ["Germany on a0: orders for A Ber, A Mun, F Kie (sealed orders given)"]
    data = doc(fivedp(tmp, "game", "show", "g.yaml", "--json", "--power", "Austria"), "game")
    assert data["sealed"] == {"Austria": 1} and data["own_sealed"] == ["A Vie - Tyr"]
    assert data["submitted"] == ["Austria", "Germany", "Italy"]
    assert data["pending"] == {} and {d["power"] for d in data["next"]["due"]} == {"Austria"}
    master = doc(fivedp(tmp, "game", "show", "g.yaml", "--json"), "game")
    assert master["sealed"] == {"Austria": 1, "Germany": 2} and "own_sealed" not in master
    assert master["pending"] == {"Italy": ["A Ven - Pie"]}
    # a new sealed set replaces the power's earlier one
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Germany", "--sealed", "A Mun - Tyr", "F Kie - Hol"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert out.splitlines()[1] == "Sealed orders opened: Austria, Germany"
    assert "A Vie - Tyr  fails (bounced with A Mun" in out and "F Kie - Hol  succeeds" in out
    assert "F Kie - Den" not in out and "A Ven - Pie  succeeds" in out
    assert "sealed" not in ok(fivedp(tmp, "game", "show", "g.yaml"))  # opened: nothing sealed for step 2
    # a sealed set needs its power; it is one power's
    p = fivedp(tmp, "game", "orders", "g.yaml", "--sealed", "A Tyr - Boh")
    assert p.returncode == 2 and "--sealed needs --power" in p.stderr
    p = fivedp(tmp, "game", "orders", "g.yaml", "--power", "Germany", "--sealed", "Austria: A Tyr - Boh")
    assert p.returncode == 2 and "one power's orders" in p.stderr


def test_sealed_set_for_a_step_already_played_is_ignored(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--power", "Germany", "--sealed", "A Mun - Tyr"))
    stale = (tmp / "g.yaml.sealed").read_text(encoding="utf-8")
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    (tmp / "g.yaml.sealed").write_text(stale, encoding="utf-8")  # as an interrupted adjudication leaves it
    assert "sealed" not in ok(fivedp(tmp, "game", "show", "g.yaml"))
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "Sealed orders opened" not in out and "A Mun - Tyr" not in out


@pytest.mark.slow
def test_undo_takes_back_the_last_step_and_keeps_it_in_the_log(tmp_path):
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml"))
    p = fivedp(tmp, "game", "undo", "g.yaml")
    assert p.returncode == 2 and "nothing to undo" in p.stderr
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - Tyr"))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    after_one = json.loads(ok(fivedp(tmp, "game", "show", "g.yaml", "--json")))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Tyr - a-Boh@0"))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "Build A a-Kie"))
    p = fivedp(tmp, "game", "undo", "g.yaml")
    assert p.returncode == 2 and "orders for the next phase are waiting (Germany)" in p.stderr
    ok(fivedp(tmp, "game", "orders", "g.yaml", "--replace", "--power", "Germany", "# none"))
    game = fd.load_game(tmp / "g.yaml")
    assert game.pending  # '# none' withdraws nothing (documented)
    recorded = game.history[-1]
    fd.save_game(fd.Game(game.mv, {}, game.history, game.start), tmp / "g.yaml")
    out = ok(fivedp(tmp, "game", "undo", "g.yaml"))
    acted, undone = out.split("\n", 1)
    assert acted.startswith("Undone while the game waited for step 3: adjustment on a2 (phase 3-")
    assert undone.startswith("Undone step 2: movement on a1; its 1 order wait again; the step is kept in ")
    now = json.loads(ok(fivedp(tmp, "game", "show", "g.yaml", "--json")))
    assert now["pending"] == {"Germany": ["A Tyr - a-Boh@0"]}
    same = ("heads", "timelines", "boards", "steps", "eliminated", "winner")
    assert {k: now[k] for k in same} == {k: after_one[k] for k in same}
    log = [json.loads(line) for line in (tmp / "g.yaml.undone").read_text(encoding="utf-8").splitlines()]
    assert len(log) == 1 and log[0]["step"] == 2 and log[0]["entry"] == recorded
    # adjudicated again, the game is where it was; a second undo appends to the log
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert fd.load_game(tmp / "g.yaml").history[-1] == recorded
    ok(fivedp(tmp, "game", "undo", "g.yaml"))
    assert len((tmp / "g.yaml.undone").read_text(encoding="utf-8").splitlines()) == 2


def test_a_hold_support_of_a_unit_that_travelled_fails_as_on_one_board(tmp_path):
    """docs/rules.md §3.3 and §6.4 (cases/multiverse/4.44): a unit on a past board does what its
    board's record says. Munich's army moved from a1 back to a-Tyrolia@0; a support to hold it on a1
    matches nothing and fails, as a support to hold of a unit that moves does on one board."""
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml", "--from",
              str(ROOT / "cases/multiverse/4.44-hold-support-of-a-traveller-fails.yaml")))
    ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    ok(fivedp(tmp, "game", "orders", "g.yaml", "A Mun - a-Tyr@0"))
    assert "New timeline b: forked from a0" in ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "A a-Ber@2 S A a-Mun@1", "A b-Mun - b-Kie", "A b-Ber S A b-Mun"))
    assert out.count(": legal\n") == 3
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "A a-Ber@2 S A a-Mun@1  fails (not matching: A a-Mun@1 moved into a board already past, " \
           "outside this battle)" in out
    assert "A b-Ber S A b-Mun      fails (not matching: A Mun moves elsewhere)" in out
    assert "New timeline" not in out


def test_a_refused_jump_says_which_rule_refused_it(tmp_path):
    """docs/rules.md §2.1, §6.3 (cases/multiverse/4.33: b forks from a0, c from b1; heads a4, b3, c2
    under adjacency: family). A move to a board that is not adjacent is a jump, invalid without the
    option jump_assists; the reason says why the boards are not adjacent: c and a (grandparent) are not
    adjacent timelines, which adjacency: any would allow; b3 to b1 is two turns back, which only a jump
    could go; c2 to a0 is both."""
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml", "--from",
              str(ROOT / "cases/multiverse/4.33-grandparent-not-adjacent-under-family.yaml")))
    for lines in ([], ["A Boh - a-Sil@0"], [], ["A b-Sil - b-Gal@1"]):
        if lines:
            ok(fivedp(tmp, "game", "orders", "g.yaml", *lines))
        ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    p = fivedp(tmp, "game", "orders", "g.yaml", "--check", "A c-Gal - a-Gal@2", "A b-Boh - b-Boh@1",
               "A c-Sil - a-Sil@0")
    assert p.returncode == 1, p.stderr
    assert p.stdout.splitlines()[1:] == [
        "  Germany: A c-Gal - a-Gal@2 (read as A c-Gal@2 - a-Gal@2): timelines c and a are not adjacent under "
        "adjacency: family; adjacency: any allows the move, as does a jump with the option jump_assists",
        "  Germany: A b-Boh - b-Boh@1 (read as A b-Boh@3 - b-Boh@1): too far in time: a jump needs the option "
        "jump_assists",
        "  Germany: A c-Sil - a-Sil@0 (read as A c-Sil@2 - a-Sil@0): too far in time, and across timelines c and a, "
        "not adjacent under adjacency: family; a jump needs the option jump_assists"]


def test_a_line_with_the_wrong_unit_type_says_which_unit_was_judged(tmp_path):
    """DATC 4.C.2: the type written is ignored and the unit standing there is judged; the reason says
    which it is, so that 'fleet to land' is not read as being about an army."""
    ok(fivedp(tmp_path, "game", "new", "g.yaml"))
    out = ok(fivedp(tmp_path, "game", "orders", "g.yaml", "A Kie - Ruh", "F Par - Eng", "F Bre - Pic"))
    assert out.splitlines()[1:4] == [
        "Germany: A Kie - Ruh: ILLEGAL (fleet to land: the unit in Kiel is a fleet, not an army): taken, but the "
        "rules will ignore it",
        "France: F Par - Eng: ILLEGAL (army to sea: the unit in Paris is an army, not a fleet): taken, but the rules "
        "will ignore it",
        "France: F Bre - Pic: legal"]


def test_a_build_beyond_those_allowed_is_flagged_when_given(tmp_path):
    """DATC 6.I.1's position (cases/datc/6.I.01): Germany may build one. The second build is legal
    but fails (4.D.4: the first legal builds are used); an adjustment depends on its own power's
    orders only, so that is certain when it is given, and it is said then, with the builds allowed."""
    tmp = tmp_path
    ok(fivedp(tmp, "game", "new", "g.yaml", "--from", str(ROOT / "cases/datc/6.I.01.yaml")))
    out = ok(fivedp(tmp, "game", "orders", "g.yaml", "Build A Kiel", "Build A Munich"))
    assert out.splitlines()[1:3] == [
        "Germany: Build A Kiel: legal",
        "Germany: Build A Munich: WILL FAIL (no builds left: 1 allowed on this board): taken, but it cannot succeed"]
    p = fivedp(tmp, "game", "orders", "g.yaml", "--check")
    assert p.returncode == 1 and p.stdout.splitlines() == [
        "Checked 2 orders for the adjustment (2 waiting): 1 legal but certain to fail:",
        "  Germany: Build A Munich: fails: no builds left: 1 allowed on this board"]
    data = doc(fivedp(tmp, "game", "orders", "g.yaml", "--json", "Build A Munich"), "orders")
    assert data["accepted"][0]["fails"] is True and data["accepted"][0]["legal"] is True
    data = doc(fivedp(tmp, "game", "orders", "g.yaml", "--check", "--json"), "orders", status=1)
    assert [(x["text"], x["result"]) for x in data["illegal"]] == [("Build A Munich", "fails")]
    out = ok(fivedp(tmp, "game", "adjudicate", "g.yaml"))
    assert "Build A Munich  fails (no builds left: 1 allowed on this board)" in out


def test_every_change_names_the_step_and_phase_it_acted_on(tmp_path):
    """Orders (open and sealed), adjudicate and undo each say which step and phase they acted on, with
    the phase's key; orders given after an undo say they landed on the restored step, replacing its
    order; ``--step KEY`` of a phase taken back and played otherwise is refused."""
    from fivedp_asp.files.games import load_game
    from fivedp_asp.game.state import phase_key

    assert fivedp(tmp_path, "game", "new", "g.yaml").returncode == 0
    spring = phase_key(load_game(tmp_path / "g.yaml"))
    out = fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun S A Ber").stdout
    assert out.splitlines()[0] == f"Orders for step 1: movement on a0 (phase {spring})"
    out = fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "France", "--sealed", "A Par - Bur").stdout
    assert out.splitlines()[0] == f"Sealed orders for step 1: movement on a0 (phase {spring})"
    step = doc(fivedp(tmp_path, "game", "adjudicate", "g.yaml", "--step", spring, "--json"), "step")
    assert step["acted_on"] == {"step": 1, "waiting_for": "movement on a0", "key": spring}
    fall = phase_key(load_game(tmp_path / "g.yaml"))
    out = fivedp(tmp_path, "game", "undo", "g.yaml").stdout
    assert out.splitlines()[0] == f"Undone while the game waited for step 2: movement on a1 (phase {fall})"
    # a script that read Fall and gives its order without --step lands on the restored Spring, and is told so
    given = doc(fivedp(tmp_path, "game", "orders", "g.yaml", "A Mun - Tyr", "--json"), "orders")
    assert given["acted_on"] == {"step": 1, "waiting_for": "movement on a0", "key": spring}
    assert given["accepted"][0]["replaces"] == "A Mun S A Ber"
    # with the key it read, it is refused; Spring played otherwise since has another key for Fall
    out = fivedp(tmp_path, "game", "adjudicate", "g.yaml")
    assert out.stdout.splitlines()[0] == f"Adjudicated step 1: movement on a0 (phase {spring})"
    refused = fivedp(tmp_path, "game", "orders", "g.yaml", "--step", fall, "A Tyr - Boh")
    assert refused.returncode == 2 and "has been taken back and played again" in refused.stderr
    assert load_game(tmp_path / "g.yaml").pending == {}
