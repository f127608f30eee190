"""Games played turn by turn (docs/game-format.md): the game file, orders power by power, adjudication.

What is checked here:

- a multiversal game played through the Python API for several years (forks, a fork of a fork,
  retreats, adjustments with builds, disbands and civil disorder), saved and loaded after every
  step: the loaded game equals the saved one, and a game continued from the file gives exactly
  the results of the same game continued in memory;
- the same through the ``fivedp game`` command, whose game ends up equal to the API's;
- the atomic write: the game file survives a kill at any moment, as the state before or after;
- bad input: one message, exit status 2, never a traceback, and the game file left as it was;
- export: the exported scenario replays the game.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import yaml

from fivedp_asp.model.settings import Settings
from tests import forked
from fivedp_asp.files import games as game_module
from fivedp_asp.files.scenarios import find_scenarios, read_scenario, check_scenario
from fivedp_asp.errors import InputError
from fivedp_asp.files.integrity import reseal
from fivedp_asp.files.games import export_scenario, game_data, load_game, save_game
from fivedp_asp.game.play import adjudicate, submit
from fivedp_asp.game.state import Game, new_game
from fivedp_asp.model.multiverse import Multiverse, Record, make_board
from fivedp_asp.engine.step import StepReport, next_phase

ROOT = Path(__file__).resolve().parent.parent.parent
DOC = ROOT / "docs" / "game-format.md"


# -- helpers ------------------------------------------------------------------------------------


def opening(tmp_path: Path, options: dict | None = None) -> Multiverse:
    """The standard opening, through the public scenario loader (a scenario without ``start``)."""
    path = tmp_path / "opening-case.yaml"
    path.write_text(yaml.safe_dump({"id": "opening", "options": options or {}, "steps": []}), encoding="utf-8")
    return read_scenario(path).start


def order_key(r) -> tuple:
    """A recorded order as the rules see it (its text is not compared: the file holds the designated form)."""
    return (r.power, r.kind, r.unit, r.target, r.dest, r.via_convoy, r.unit_kind, r.problem)


def board_state(b) -> dict:
    record = None
    if b.record is not None:
        record = {
            "orders": sorted((order_key(r) for r in b.record.orders), key=repr),
            "incoming": list(b.record.incoming),
            "decisions": dict(b.record.decisions),
        }
    return {
        "key": b.key,
        "units": dict(b.units),
        "centers": dict(b.centers),
        "retreats": list(b.retreats),
        "adjustment_due": b.adjustment_due,
        "phase": b.phase,
        "record": record,
    }


def game_state(g: Game) -> dict:
    """Everything about a game that matters: the multiverse, the waiting orders, the history, the start."""
    mv = g.mv
    return {
        "map": mv.game_map.name,
        "options": mv.options,
        "players": tuple(mv.players),
        "eliminated": frozenset(mv.eliminated),
        "winner": mv.winner,
        "forks": dict(mv.forks),
        "board keys": sorted(mv.boards),
        "boards": {k: board_state(b) for k, b in mv.boards.items()},
        "heads": [b.key for b in mv.heads],
        "next phase": next_phase(mv),
        "pending": {p: list(v) for p, v in g.pending.items()},
        "history": list(g.history),
        "start": g.start,
    }


def assert_same_game(got: Game, want: Game, when: str) -> None:
    a, b = game_state(got), game_state(want)
    for key in b:
        if key == "boards":
            for k in sorted(set(a[key]) | set(b[key])):
                assert a[key].get(k) == b[key].get(k), f"{when}: board {k} differs"
        else:
            assert a[key] == b[key], f"{when}: {key} differs"


def report_state(r: StepReport) -> tuple:
    return (r.phase, [(o.power, o.text, o.result, o.reason, o.canonical) for o in r.outcomes],
            list(r.dislodged), list(r.disbanded), list(r.backups))


def fivedp(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """A command as a process of its own (forked: ``tests/forked.py``)."""
    return forked.fivedp(cwd, *args, input=input)


def assert_clean_error(p: subprocess.CompletedProcess, *fragments: str) -> str:
    """Exit status 2, one ``error: ...`` line on standard error, no traceback, nothing on standard output."""
    err = p.stderr
    assert p.returncode == 2, (p.returncode, p.stdout, err)
    assert "Traceback" not in err, err
    assert p.stdout == "", p.stdout
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


# -- the scripted game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sub:
    """One submission: ``fivedp game orders FILE [--power POWER] [--add] LINE...``."""

    power: str | None
    lines: tuple[str, ...]
    add: bool = False


@dataclass(frozen=True)
class Step:
    phase: str
    boards: tuple[str, ...]  # the heads that act in this step
    subs: tuple[Sub, ...]
    expect: dict  # order text -> result (a few, to check the game goes as intended)


def S(power, *lines, add=False) -> Sub:
    return Sub(power, lines, add)


GAME = (
    # 1. Spring 1901 on a0. Germany's first set is replaced by its second, then added to.
    Step("movement", ("a0",), (
        S("Germany", "A Mun - Ruh"),
        S("Germany", "A Mun - Boh", "F Kie - Den"),
        S("Germany", "A Ber - Kie", add=True),
        S(None, "A Ven - Tyr", "Italy: A Rom - Ven"),
        S(None, "F Tri - Alb", "A Bud - Ser", "A Vie H"),
        S("Russia", "A War - Ukr", "F Stp/sc - Bot"),
        S(None, "England: F Lon - Nth", "England: A Lvp - Yor", "England: F Edi - Nwg", "# a comment"),
    ), {"A Mun - Boh": "succeeds", "A Ber - Kie": "succeeds", "F Stp/sc - Bot": "succeeds"}),
    # 2. Fall 1901 on a1: Vienna dislodged; a convoy; Russia goes back to a0 -> timeline b from a0.
    Step("movement", ("a1",), (
        S("Germany", "A Boh - Vie", "F Den H", "A Kie - Hol"),
        S("Italy", "A Tyr S A Boh - Vie"),
        S("Austria", "A Vie H", "A Ser H", "F Alb - Gre"),
        S("Russia", "A Ukr - a-Gal@0"),
        S("England", "F Nth C A Yor - Nwy", "A Yor - Nwy via convoy"),
    ), {"A Boh - Vie": "succeeds", "A Vie H": "fails", "A Ukr - a-Gal@0": "succeeds",
        "A Yor - Nwy via convoy": "succeeds"}),
    # 3. The retreat on a2 (the power must be given: see test_retreat_order_power_is_the_retreating_units).
    Step("retreat", ("a2",), (S("Austria", "A Vie - Bud"),), {"A Vie - Bud": "succeeds"}),
    # 4. Winter 1901 on a2 (b1 waits): builds, a build whose power is read from the centre, a waive.
    Step("adjustment", ("a2",), (
        S("Germany", "Build A Ber", "Build F Kie"),
        S(None, "Build F Tri", "Build F Lon"),
        S("Russia", "Waive"),
    ), {"Build A Ber": "succeeds", "Build F Tri": "succeeds", "Build F Lon": "succeeds", "Waive": "succeeds"}),
    # 5. a2 (Spring 1902) and b1 (Fall 1901) together; a2 -> a1 forks timeline c from a1; a support across timelines.
    Step("movement", ("a2", "b1"), (
        S("Germany", "A Hol - a-Bel@1", "A b-Boh - b-Vie", "A Ber - Sil"),
        S("Italy", "A b-Tyr S A b-Boh - b-Vie", "A Tyr S A b-Tyr"),
        S("Russia", "A b-Gal S A b-Vie", "A b-Ukr - b-Rum"),
        S("Austria", "A b-Vie H"),
    ), {"A Hol - a-Bel@1": "succeeds", "A b-Boh - b-Vie": "fails", "A Tyr S A b-Tyr": "succeeds"}),
    # 6. The fork c2 inherits a1's dislodgement: a retreat on c2.
    Step("retreat", ("c2",), (S("Austria", "A c-Vie - c-Gal"),), {"A c-Vie - c-Gal": "succeeds"}),
    # 7. Adjustments on b2 and c2.
    Step("adjustment", ("b2", "c2"), (
        S("Germany", "Build A b-Ber", "Build F c-Kie", "Build A c-Mun"),
        S("Austria", "Build A b-Bud"),
    ), {"Build A b-Ber": "succeeds", "Build F c-Kie": "succeeds", "Build A b-Bud": "succeeds"}),
    # 8. Three heads; b2 -> b1 forks timeline d from b1: a fork of a fork. A support from c2 into a3.
    Step("movement", ("a3", "b2", "c2"), (
        S("Russia", "A b-Rum - b-Bud@1", "A Mos - War"),
        S("Germany", "A Sil - War", "A Vie S A Sil - War", "F Kie - Hol", "A c-Bel - c-Pic", "A b-Boh - b-Mun"),
        S("France", "A c-Par - c-Pic", "A Par - Bur"),
        S("Austria", "A Ser - Rum", "A c-Gal - c-Vie", "A c-Ser S A a-Ser - Rum"),
    ), {"A b-Rum - b-Bud@1": "succeeds", "A Sil - War": "fails", "A Vie S A Sil - War": "invalid",
        "A c-Ser S A a-Ser - Rum": "succeeds"}),
    # 9. Winter 1902 on a4, and d2.
    Step("adjustment", ("a4", "d2"), (S("Germany", "Build A Ber", "Build A Kie"),),
         {"Build A Ber": "succeeds", "Build A Kie": "succeeds"}),
    # 10. Four heads at three different turns.
    Step("movement", ("a4", "b3", "c3", "d2"), (
        S("Austria", "A Bud - Gal", "A Rum - Bud", "A d-Ser - d-Bud"),
        S("Russia", "A Mos - Ukr", "A d-Gal S A d-Rum - d-Bud"),
        S("Italy", "A c-Tyr - c-Mun", "A c-Ven S A c-Tyr - c-Mun"),
        S("Germany", "A c-Mun H"),
    ), {"A Bud - Gal": "succeeds", "A d-Ser - d-Bud": "fails", "A c-Tyr - c-Mun": "fails"}),
    # 11. Adjustments on b4, c4.
    Step("adjustment", ("b4", "c4"), (S("Germany", "Build A c-Ber"), S("Russia", "Build A b-War")),
         {"Build A c-Ber": "succeeds", "Build A b-War": "succeeds"}),
    # 12. Fall 1903 on a5: Vienna retaken, with a standoff in Munich; Vienna dislodged on d3 too.
    Step("movement", ("a5", "b4", "c4", "d3"), (
        S("Austria", "A Gal - Vie", "A Bud S A Gal - Vie"),
        S("Germany", "A Vie H", "A d-Boh - d-Vie", "A Ber - Mun"),
        S("France", "A Bur - Mun"),
        S("Italy", "A d-Tyr S A d-Boh - d-Vie"),
    ), {"A Gal - Vie": "succeeds", "A Vie H": "fails", "A Ber - Mun": "fails", "A d-Boh - d-Vie": "succeeds"}),
    # 13. Retreats on a6 and d4 at once.
    Step("retreat", ("a6", "d4"), (S("Germany", "A Vie - Boh"), S("Austria", "A d-Vie - d-Tri")),
         {"A Vie - Boh": "succeeds", "A d-Vie - d-Tri": "succeeds"}),
    # 14. Winter 1903: Germany disbands on a6 and builds on d4; Austria, short of centres on d4, gives no order.
    Step("adjustment", ("a6", "d4"), (S("Germany", "A Boh D", "Build A d-Mun"),),
         {"A Boh D": "succeeds", "Build A d-Mun": "succeeds"}),
    # 15. Spring 1904 on a6: a unit from head c5 moves into head a6.
    Step("movement", ("a6", "b5", "c5", "d4"), (
        S("Germany", "A Kie - Ruh", "A Ber - Pru", "A c-Ber - a-Ber@6"),
    ), {"A c-Ber - a-Ber@6": "succeeds", "A Ber - Pru": "succeeds"}),
)


def check_step_went_as_planned(index: int, plan: Step, g_before: Game, report: StepReport) -> None:
    where = f"step {index}"
    assert report.phase == plan.phase, where
    assert [b.name for b in g_before.mv.heads if b.phase == plan.phase] == list(plan.boards), where
    got = {o.text: o.result for o in report.outcomes}
    for text, result in plan.expect.items():
        assert got.get(text) == result, f"{where}: {text!r}: {got.get(text)}"


def play_in_memory(mv: Multiverse, steps=GAME) -> tuple[Game, list[StepReport]]:
    g, reports = new_game(mv), []
    for plan in steps:
        for sub in plan.subs:
            g = submit(g, sub.power, list(sub.lines), add=sub.add)
        g, report = adjudicate(g)
        reports.append(report)
    return g, reports


# -- 1. a long game through the API, saved and loaded after every step -----------------------------


@pytest.mark.slow
def test_api_game_saved_and_loaded_after_every_step(tmp_path):
    path = tmp_path / "game.yaml"
    mem = new_game(opening(tmp_path))  # the game played in memory only
    save_game(path, mem)
    assert_same_game(load_game(path), mem, "new game")
    seen = {"retreats": 0, "attacker_from": 0, "barred": 0, "adjustment_due": 0, "incoming": 0,
            "disbanded": 0, "civil disorder": 0}

    def through_the_file(op, when):
        """Loads the game, applies ``op``, saves it, and checks the file gives back what was saved."""
        disk = load_game(path)
        disk, result = op(disk)
        save_game(path, disk)
        loaded = load_game(path)
        assert_same_game(loaded, disk, when)
        assert game_data(loaded) == game_data(disk), when
        text = path.read_text(encoding="utf-8")
        save_game(path, loaded)  # writing the loaded game again changes nothing
        assert path.read_text(encoding="utf-8") == text, when
        for b in loaded.mv.boards.values():
            seen["retreats"] += bool(b.retreats)
            seen["attacker_from"] += any(r.attacker_from for r in b.retreats)
            seen["barred"] += any(r.barred for r in b.retreats)
            seen["adjustment_due"] += b.adjustment_due
            seen["incoming"] += bool(b.record and b.record.incoming)
        return loaded, result

    for i, plan in enumerate(GAME, 1):
        for j, sub in enumerate(plan.subs, 1):
            when = f"step {i}, submission {j}"
            mem = submit(mem, sub.power, list(sub.lines), add=sub.add)
            disk, _ = through_the_file(lambda g: (submit(g, sub.power, list(sub.lines), add=sub.add), None), when)
            assert_same_game(disk, mem, when)
            if i == 1 and j == 3:  # replaced, then added to
                assert disk.pending["Germany"] == ["A Mun - Boh", "F Kie - Den", "A Ber - Kie"]
        before = mem
        mem, mem_report = adjudicate(mem)
        disk, disk_report = through_the_file(adjudicate, f"step {i}")
        check_step_went_as_planned(i, plan, before, mem_report)
        assert report_state(disk_report) == report_state(mem_report), f"step {i}: results differ"
        assert_same_game(disk, mem, f"step {i}")
        assert disk.pending == {}
        assert disk.history[-1]["boards"] == list(plan.boards)
        seen["disbanded"] += bool(disk_report.disbanded)
        seen["civil disorder"] += any(k[0] == 3 and u.power == "Austria" for k, u in disk_report.disbanded)

    final = load_game(path)
    mv = final.mv
    # the game went where it was meant to go
    assert len(final.history) == len(GAME)
    assert [h["phase"] for h in final.history].count("retreat") == 3
    assert [h["phase"] for h in final.history].count("adjustment") == 5
    assert dict(mv.forks) == {1: (0, 0), 2: (0, 1), 3: (1, 1)}  # d forked from b1: a fork of a fork
    assert [b.name for b in mv.heads] == ["a7", "b6", "c6", "d5"]  # three game years and more on a
    assert all(seen.values()), seen
    # the file reads as documented (one YAML document): full designations in records, decisions
    # keyed by place; the latest boards at the top, fought boards and steps one line each below
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert data["version"] == 3
    assert data["forks"] == {"b": "a0", "c": "a1", "d": "b1"}
    assert sorted(data["latest"]) == ["a7", "b6", "c6", "d5"]
    assert "A a-Ukr@1 - a-Gal@0" in data["past"]["a1"]["record"]["orders"]["Russia"]
    assert "A a-Yor@1 - a-Nwy@1 via convoy" in data["past"]["a1"]["record"]["orders"]["England"]
    assert data["past"]["a1"]["record"]["decisions"]["moves a-Ukr@1"] is True
    assert "c-Ser@2" in data["past"]["a3"]["record"]["incoming"]
    assert "c-Ber@5" in data["past"]["a6"]["record"]["incoming"]
    whole = game_data(final)
    assert {**data["latest"], **data["past"]} == whole["boards"]
    assert data["history"] == whole["history"] and len(data["history"]) == len(GAME)
    past_lines = text[text.index("\npast:\n") + 7:text.index("\nhistory:\n")].splitlines()
    assert len(past_lines) == len(data["past"]) and all(re.fullmatch(r"  [a-z][0-9]+: \{.*\}", x) for x in past_lines)
    history_lines = text[text.index("\nhistory:\n") + 10:text.index("\nend: ")].splitlines()
    assert len(history_lines) == len(GAME) and all(x.startswith("- {") for x in history_lines)


def test_recorded_orders_keep_their_meaning(tmp_path):
    """Orders in a record are written fully designated, so reading them back needs no defaults."""
    g, _ = play_in_memory(opening(tmp_path), GAME[:5])
    path = tmp_path / "g.yaml"
    save_game(path, g)
    loaded = load_game(path)
    for key, board in g.mv.boards.items():
        if board.record is None:
            continue
        for r in loaded.mv.boards[key].record.orders:
            assert re.fullmatch(r".*\b[a-z]\d*-\w+(/\w+)?@\d+.*", r.text), r.text
        assert sorted(map(order_key, board.record.orders), key=repr) == \
            sorted(map(order_key, loaded.mv.boards[key].record.orders), key=repr)


@pytest.mark.slow
def test_elimination_and_victory_survive_the_file(tmp_path):
    scenario = tmp_path / "two.yaml"
    scenario.write_text(textwrap.dedent("""\
        id: TWO
        start:
          units:
            Germany: [A Burgundy, A Belgium, A Paris, A Brest]
            France: [A Picardy]
          centers:
            Germany: [Munich, Belgium]
        steps: []
        """), encoding="utf-8")
    path = tmp_path / "g.yaml"
    g = new_game(read_scenario(scenario).start)
    g = submit(g, None, ["A Bur - Pic", "A Bel S A Bur - Pic"])
    g, report = adjudicate(g)
    assert [u.power for _, u in report.disbanded] == ["France"]  # nowhere to retreat
    save_game(path, g)
    loaded = load_game(path)
    assert_same_game(loaded, g, "after the win")
    assert loaded.mv.players == ("France", "Germany")
    assert loaded.mv.eliminated == frozenset({"France"}) and loaded.mv.winner == "Germany"
    with pytest.raises(InputError, match="the game is over: Germany has won"):
        submit(loaded, "Germany", ["A Pic H"])
    with pytest.raises(InputError, match="the game is over"):
        adjudicate(loaded)
    p = fivedp(tmp_path, "game", "show", "g.yaml")
    assert p.returncode == 0 and "Germany has won." in p.stdout
    assert_clean_error(fivedp(tmp_path, "game", "orders", "g.yaml", "A Pic H"), "the game is over: Germany has won")


# -- 2. the same through the command line --------------------------------------------------------


@pytest.mark.slow
def test_cli_game(tmp_path):
    steps = GAME[:5]
    p = fivedp(tmp_path, "game", "new", "g.yaml")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "New game in g.yaml: a0 waiting for movement orders.\n"
    (tmp_path / "italy.txt").write_text("# Italy, Spring 1901\nA Ven - Tyr\n\nItaly: A Rom - Ven\n", encoding="utf-8")
    for i, plan in enumerate(steps, 1):
        for j, sub in enumerate(plan.subs):
            args = ["game", "orders", "g.yaml"]
            args += ["--power", sub.power] if sub.power else []
            args += ["--add"] if sub.add else []
            stdin = None
            if i == 1 and sub.lines == ("A Ven - Tyr", "Italy: A Rom - Ven"):
                args += ["--file", "italy.txt"]
            elif i == 2 and sub.power == "England":
                args += ["--file", "-"]
                stdin = "\n".join(sub.lines) + "\n"
            elif i == 3:
                args = ["game", "orders", "g.yaml", *sub.lines, "--power", "Austria"]  # lines before options
            else:
                args += list(sub.lines)
            p = fivedp(tmp_path, *args, input=stdin)
            assert p.returncode == 0, (args, p.stderr)
            assert "Traceback" not in p.stderr
            if i == 1 and j == 2:
                assert "Germany: 3 orders waiting" in p.stdout.splitlines()
        p = fivedp(tmp_path, "game", "adjudicate", "g.yaml")
        assert p.returncode == 0, p.stderr
        acted, first = p.stdout.splitlines()[:2]
        assert acted.startswith(f"Adjudicated step {i}: ")
        assert first.startswith(f"Step {i}: ") and all(f"{b} (" in first for b in plan.boards), first
        if i == 2:
            assert "  New timeline b: forked from a0\n" in p.stdout
            assert re.search(r"^  Dislodged: A Vie on a1 \(by A [A-Z][a-z][a-z]\)$", p.stdout, re.M)
        for text, result in plan.expect.items():
            assert re.search(rf"^    {re.escape(text)} +{result}", p.stdout, re.M), (text, p.stdout)
        assert p.stdout.splitlines()[-1].startswith("Next: ")

    # the game the command line played is the game the API plays with the same orders
    api, _ = play_in_memory(opening(tmp_path), steps)
    cli = load_game(tmp_path / "g.yaml")
    assert_same_game(cli, api, "after the command-line game")
    assert game_data(cli) == game_data(api)

    p = fivedp(tmp_path, "game", "show", "g.yaml")
    assert p.returncode == 0
    assert p.stdout.startswith("Timelines: 3, boards: 7, steps played: 5\nHeads:\n")
    assert "  a3 (Fall 1902)\n" in p.stdout and "  c2 (Spring 1902), waiting for retreat\n" in p.stdout
    assert p.stdout.rstrip().endswith("Next: retreat (step 6)")
    p = fivedp(tmp_path, "game", "show", "g.yaml", "b1")
    assert p.returncode == 0
    assert p.stdout.splitlines()[0] == "  b1 (Fall 1901)"
    assert "    Russia: A Gal, A Mos, A Ukr, F Bot, F Sev  [4 centres: Mos, Sev, Stp, War]" in p.stdout

    # waiting orders are shown; an empty line list is refused
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--power", "Austria", "A c-Vie - c-Gal")
    acted, rest = p.stdout.split("\n", 1)
    assert p.returncode == 0 and acted.startswith("Orders for step 6: retreat on c2 (phase 6-")
    assert rest == "Austria: A c-Vie - c-Gal: legal\nAustria: 1 order waiting\n  A c-Vie - c-Gal\n"
    p = fivedp(tmp_path, "game", "show", "g.yaml")
    assert "Next: retreat (step 6)\n  Austria: A c-Vie - c-Gal\n" in p.stdout
    assert_clean_error(fivedp(tmp_path, "game", "orders", "g.yaml"), "no orders given")


@pytest.mark.slow
def test_cli_new_with_options_and_from_a_scenario(tmp_path):
    p = fivedp(tmp_path, "game", "new", "g.yaml", "--option", "adjacency=any", "--option", "victory=majority")
    assert p.returncode == 0, p.stderr
    assert load_game(tmp_path / "g.yaml").mv.options.plain() == {"adjacency": "any", "victory": "majority"}
    assert_clean_error(fivedp(tmp_path, "game", "new", "h.yaml", "--option", "adjacency=weird"),
                       "option adjacency cannot be 'weird'")
    scenario = tmp_path / "c.yaml"
    scenario.write_text("id: C\nstart:\n  turn: 3\n  units:\n    Germany: [A Munich]\nsteps: []\n", encoding="utf-8")
    p = fivedp(tmp_path, "game", "new", "h.yaml", "--from", "c.yaml")
    assert p.returncode == 0 and p.stdout == "New game in h.yaml: a3 waiting for movement orders.\n"
    g = load_game(tmp_path / "h.yaml")
    assert list(g.mv.boards) == [(0, 3)] and g.start["turn"] == 3
    assert_clean_error(fivedp(tmp_path, "game", "new", "i.yaml", "--from", "c.yaml", "--option", "victory=unique"),
                       "--option cannot be combined with --from")


# -- 3. the atomic write ------------------------------------------------------------------------


def prepared_game(tmp_path: Path, steps: int = 4) -> Game:
    """A game a few steps in, with the next step's orders waiting."""
    g, _ = play_in_memory(opening(tmp_path), GAME[:steps])
    for sub in GAME[steps].subs:
        g = submit(g, sub.power, list(sub.lines), add=sub.add)
    return g


def only_temporary_files_besides(folder: Path, name: str) -> list[str]:
    """The other files in ``folder``: each must be a hidden ``.NAME.*.tmp`` that no loader takes for a game."""
    others = sorted(p.name for p in folder.iterdir() if p.name != name)
    for other in others:
        # a killed writer's temporary file, or the lock file the game commands share
        assert re.fullmatch(rf"\.{re.escape(name)}\.(.+\.tmp|lock)", other), others
    assert [p.name for p in find_scenarios([str(folder)])] == [name]
    assert sorted(p.name for p in folder.glob("*.yaml")) == [name]
    return others


@pytest.mark.slow
def test_kill_during_adjudicate_leaves_the_old_or_the_new_game(tmp_path):
    g = prepared_game(tmp_path)
    ref = tmp_path / "ref"
    ref.mkdir()
    save_game(ref / "g.yaml", g)
    before_text = (ref / "g.yaml").read_text(encoding="utf-8")
    started = time.monotonic()
    assert fivedp(ref, "game", "adjudicate", "g.yaml").returncode == 0
    duration = time.monotonic() - started
    after_text = (ref / "g.yaml").read_text(encoding="utf-8")
    before, after = game_data(g), game_data(load_game(ref / "g.yaml"))
    assert before != after and before_text != after_text

    work = tmp_path / "work"
    work.mkdir()
    game_file = work / "g.yaml"
    outcomes = {"before": 0, "after": 0}
    kills = 30
    for i in range(kills):
        game_file.write_text(before_text, encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "fivedp_asp.cli", "game", "adjudicate", "g.yaml"], cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(duration * 1.2 * i / (kills - 1))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        text = game_file.read_text(encoding="utf-8")
        assert text in (before_text, after_text), f"kill {i}: the game file is neither the old nor the new one"
        state = game_data(load_game(game_file))
        assert state in (before, after)
        outcomes["before" if state == before else "after"] += 1
        only_temporary_files_besides(work, "g.yaml")
    # how many kills landed before and after the rename depends on the machine; both are fine
    assert sum(outcomes.values()) == kills


LOOP = """\
import sys
from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.game.play import adjudicate, submit
path = sys.argv[1]
for i in range(int(sys.argv[2])):
    g = load_game(path)
    g = submit(g, "Germany", ["A Mun - Tyr" if i % 2 == 0 else "A Tyr - Mun", "F Kie - Hol" if i % 2 == 0 else "F Hol - Kie"])
    save_game(path, g)
    g, _ = adjudicate(load_game(path))
    save_game(path, g)
"""


@pytest.mark.slow
def test_kill_during_a_loop_of_orders_and_adjudication(tmp_path):
    steps = 6
    path = tmp_path / "g.yaml"
    save_game(path, prepared_game(tmp_path, 2))
    start_text = path.read_text(encoding="utf-8")
    # every state the loop writes, in order (the same code, run here)
    states = [game_data(load_game(path))]
    g = load_game(path)
    for i in range(steps):
        g = submit(g, "Germany", ["A Mun - Tyr" if i % 2 == 0 else "A Tyr - Mun",
                                  "F Kie - Hol" if i % 2 == 0 else "F Hol - Kie"])
        states.append(game_data(g))
        save_game(path, g)
        g, _ = adjudicate(load_game(path))
        states.append(game_data(g))
        save_game(path, g)
    assert len({yaml.safe_dump(s) for s in states}) == len(states)
    script = tmp_path / "loop.py"
    script.write_text(LOOP, encoding="utf-8")
    path.write_text(start_text, encoding="utf-8")
    started = time.monotonic()
    subprocess.run([sys.executable, str(script), "g.yaml", str(steps)], cwd=tmp_path, check=True, timeout=120)
    duration = time.monotonic() - started
    assert game_data(load_game(path)) == states[-1]

    seen = set()
    kills = 15
    for i in range(kills):
        path.write_text(start_text, encoding="utf-8")
        proc = subprocess.Popen([sys.executable, str(script), "g.yaml", str(steps)], cwd=tmp_path)
        time.sleep(duration * i / (kills - 1))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        state = game_data(load_game(path))
        assert state in states, f"kill {i}: the game file holds no state the loop ever wrote"
        seen.add(states.index(state))
        others = [p.name for p in tmp_path.iterdir() if p.name.startswith(".g.yaml.")]
        assert all(name.endswith(".tmp") for name in others), others
    assert seen  # which states were caught depends on the machine


KILL_AT = """\
import os, signal, sys
from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.game.play import adjudicate
point = sys.argv[2]
real_write, real_replace = os.write, os.replace

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def write_half_then_die(fd, data):
    real_write(fd, bytes(data[: len(data) // 2]))
    die()

if point == "mid-write":
    os.write = write_half_then_die
elif point == "before-rename":
    os.fsync = lambda fd: die()  # the first fsync: the temporary file is written, not yet renamed
elif point == "after-rename":
    def replace_then_die(a, b):
        real_replace(a, b)
        die()
    os.replace = replace_then_die
g, _ = adjudicate(load_game(sys.argv[1]))
save_game(sys.argv[1], g)
"""


@pytest.mark.parametrize("point, survivor", [("mid-write", "before"), ("before-rename", "before"),
                                             ("after-rename", "after")])
@pytest.mark.slow
def test_kill_at_each_moment_of_the_write(tmp_path, point, survivor):
    g = prepared_game(tmp_path)
    path = tmp_path / "g.yaml"
    save_game(path, g)
    states = {"before": game_data(g), "after": game_data(adjudicate(g)[0])}
    script = tmp_path / "kill_at.py"
    script.write_text(KILL_AT, encoding="utf-8")
    p = subprocess.run([sys.executable, str(script), "g.yaml", point], cwd=tmp_path, capture_output=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr
    script.unlink()
    (tmp_path / "opening-case.yaml").unlink()
    assert game_data(load_game(path)) == states[survivor]
    others = only_temporary_files_besides(tmp_path, "g.yaml")
    assert len(others) == (0 if point == "after-rename" else 1)  # a kill leaves its temporary file behind


@pytest.mark.slow
@pytest.mark.parametrize("args", [["game", "new", "nodir/g.yaml"], ["game", "export", "g.yaml", "-o", "nodir/c.yaml"]])
def test_a_file_that_cannot_be_written_is_a_message(tmp_path, args):
    save_game(tmp_path / "g.yaml", new_game(opening(tmp_path)))
    assert_clean_error(fivedp(tmp_path, *args), "nodir")


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_write_keeps_the_old_game_and_cleans_up(tmp_path, monkeypatch, failing):
    g = prepared_game(tmp_path)
    path = tmp_path / "g.yaml"
    save_game(path, g)
    old_text = path.read_text(encoding="utf-8")
    new, _ = adjudicate(g)

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if failing == "write":
        real_write = os.write

        def write_half_then_fail(fd, data):
            real_write(fd, bytes(data[: len(data) // 2]))
            fail()

        monkeypatch.setattr(game_module.os, "write", write_half_then_fail)
    else:
        monkeypatch.setattr(game_module.os, failing, fail)
    with pytest.raises(OSError):
        save_game(path, new)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == old_text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml", "opening-case.yaml"]  # no temporary file left


# -- 4. bad input ---------------------------------------------------------------------------------


def format_2_text(game: Game) -> str:
    """The game as fivedp wrote it in format 2: one block-YAML document, every board under ``boards``."""
    from fivedp_asp.files.integrity import seal

    data = {**game_data(game), "version": 2}
    return seal("# fivedp game file (docs/game-format.md)\n"
                + yaml.dump(data, Dumper=game_module._Dumper, sort_keys=False, allow_unicode=True))


@pytest.fixture(scope="module")
def two_steps(tmp_path_factory) -> Game:
    """The game after its first two steps, played once for the module: a game is a value, which no
    test changes (each writes it into a file of its own, ``game_file``)."""
    g, _ = play_in_memory(opening(tmp_path_factory.mktemp("two-steps")), GAME[:2])
    return g


@pytest.fixture
def game_file(tmp_path, two_steps) -> Path:
    path = tmp_path / "g.yaml"
    save_game(path, two_steps)
    return path


@pytest.fixture(params=[3, 2])
def any_game_file(request, game_file) -> Path:
    """The game file in the format written now (3) and in format 2, which is still read."""
    if request.param == 2:
        game_file.write_text(format_2_text(load_game(game_file)), encoding="utf-8")
    return game_file


def damage(path: Path, text: str, sealed: bool = True) -> Path:
    """The text written as a hand edit with a recomputed checksum, so that what refuses it is the
    check of its content, not the checksum."""
    damaged = path.with_name("damaged.yaml")
    damaged.write_text(reseal(text) if sealed else text, encoding="utf-8")
    return damaged


def _damages(text: str) -> dict[str, tuple[str, str]]:
    """Damage to a game file's text (format 2 or 3): what it is, the damaged text, the message fragment."""
    v3 = "\nversion: 3\n" in text
    if v3:
        boards_at, start_at = text.index("\nlatest:\n"), text.index("\nchecked:")
        no_boards, bad_name = "missing 'latest'", ("\n  a1: {", "\n  zz: {")
        bad_order, bad_place = ('"A a-Mun@0 - a-Boh@0"', '"A a-Mun@0 -"'), ('"moves a-Mun@0": true', '"moves Narnia": true')
    else:
        boards_at, start_at = text.index("\nboards:\n"), text.index("\nstart:\n")
        no_boards, bad_name = "no boards", ("\n  a1:\n", "\n  zz:\n")
        bad_order, bad_place = ("- A a-Mun@0 - a-Boh@0", "- A a-Mun@0 -"), ("moves a-Mun@0: true", "moves Narnia: true")
    key = "latest" if v3 else "boards"
    version = "version: 3\n" if v3 else "version: 2\n"

    def on_a_board(old: str, new: str) -> str:
        return text[:boards_at] + text[boards_at:].replace(old, new, 1)

    return {
        # cut short as a disk or a copy would: the checksum line is gone
        "truncated inside a mapping": (text[: text.index("options: {") + len("options: {")], "its last line is not its checksum"),
        "truncated inside a unit": (text[: text.index("- A Mun\n") + len("- A M")], "its last line is not its checksum"),
        # cut short and sealed again by hand: the content itself says so
        "truncated and resealed inside a mapping": (text[: text.index("options: {") + len("options: {")], "not valid YAML (line 6)"),
        "truncated and resealed inside a unit": (text[: text.index("- A Mun\n") + len("- A M")], "it ends early"),
        "a unit in no province": (on_a_board("- A Mos\n", "- A Narnia\n"), "bad unit 'A Narnia': unknown province 'Narnia'"),
        "a unit without a type": (on_a_board("- A Mos\n", "- Mos\n"), "unit 'Mos' has no type"),
        "no boards": (text[:boards_at] + text[start_at:], no_boards),
        "empty boards": (text[:boards_at] + f"\n{key}: {{}}" + text[start_at:],
                         "forks: timeline b has no board" if v3 else "no boards"),
        "boards not a mapping": (text[:boards_at] + f"\n{key}: [a0, a1]" + text[start_at:], "content of the wrong shape"),
        "a bad board name": (text.replace(*bad_name, 1), "bad board name 'zz'"),
        "a bad recorded order": (text.replace(*bad_order, 1), "board a0: bad recorded order 'A a-Mun@0 -'"),
        "a bad decision place": (text.replace(*bad_place, 1), "bad place 'Narnia'"),
        "no version": (text.replace(version, "", 1), "no version"),
        "a damaged retreat": (text.replace("    - power: Austria\n      unit: A Vie", "    - unit: A Vie", 1),
                              "content of the wrong shape (missing 'power')"),
    }


@pytest.mark.slow
def test_damaged_game_files(any_game_file):
    game_file = any_game_file
    folder, text = game_file.parent, game_file.read_text(encoding="utf-8")
    every_command = (["show"], ["orders", "--power", "Germany", "A Mun H"], ["adjudicate"], ["export"])
    for n, (what, (damaged_text, fragment)) in enumerate(_damages(text).items()):
        assert damaged_text != text, what
        path = damage(game_file, damaged_text, sealed=n >= 2)
        damaged_text = path.read_text(encoding="utf-8")
        with pytest.raises(InputError, match=re.escape(fragment)):
            load_game(path)
        for command in every_command if n < 2 else every_command[:1]:
            p = fivedp(folder, "game", command[0], "damaged.yaml", *command[1:])
            assert_clean_error(p, "error: damaged.yaml: damaged game file: ", fragment)
            assert path.read_text(encoding="utf-8") == damaged_text, (what, command)  # nothing written


def test_every_truncation_is_a_game_or_a_message(game_file):
    """Cut anywhere, the file either loads or gives a message; it never raises anything else."""
    text = game_file.read_text(encoding="utf-8")
    cut = game_file.with_name("cut.yaml")
    for n in range(0, len(text), max(1, len(text) // 150)):
        cut.write_text(text[:n], encoding="utf-8")
        try:
            load_game(cut)
        except InputError:
            pass


def test_a_file_cut_after_map_names_the_file(game_file):
    text = game_file.read_text(encoding="utf-8")
    cut = damage(game_file, text[: text.index("map:") + len("map:")] + "\n")
    with pytest.raises(InputError, match=re.escape(f"{cut}: damaged game file")):
        load_game(cut)


def test_a_truncated_game_file_is_never_taken_for_a_game(game_file):
    text = game_file.read_text(encoding="utf-8")
    whole = game_data(load_game(game_file))
    cut = game_file.with_name("cut.yaml")
    for n in [i + 1 for i, c in enumerate(text) if c == "\n"][:-1]:
        cut.write_text(text[:n], encoding="utf-8")
        try:
            assert game_data(load_game(cut)) == whole, f"cut after line {text[:n].count(chr(10))} loads as another game"
        except InputError:
            pass


@pytest.mark.parametrize("old, new", [("- A Mos\n", "- F Mos\n"), ("- F Sev\n", "- A Bla\n"),
                                      ("- A Con\n", "- A Smy\n"), ("\n      Germany:\n", "\n      Atlantis:\n"),
                                      ("- Mun\n", "- Narnia\n")])
def test_a_board_with_an_impossible_unit_is_damaged(any_game_file, old, new):
    """Damage to a board written in block YAML: the first board (format 2), a latest board (format 3)."""
    text = any_game_file.read_text(encoding="utf-8")
    boards_at = text.index("\nboards:\n") if "\nboards:\n" in text else text.index("\nlatest:\n")
    edited = text[:boards_at] + text[boards_at:].replace(old, new, 1)
    assert edited != text
    path = damage(any_game_file, edited)
    with pytest.raises(InputError, match="damaged game file"):
        load_game(path)


@pytest.mark.parametrize("old, new", [('"A Mun"', '"F Mun"'), ('"F Stp/sc"', '"F Stp"'), ('"A Mun"', '"A Ber"'),
                                      ('"Germany": ["A', '"Atlantis": ["A'), ('"Mun"', '"Narnia"')])
def test_a_past_board_with_an_impossible_unit_is_damaged(game_file, old, new):
    """The same damage on a fought board's line of the ``past`` section (format 3)."""
    text = game_file.read_text(encoding="utf-8")
    past_at = text.index("\npast:\n")
    edited = text[:past_at] + text[past_at:].replace(old, new, 1)
    assert edited != text
    path = damage(game_file, edited)
    with pytest.raises(InputError, match="damaged game file"):
        load_game(path)


@pytest.mark.slow
def test_files_that_are_not_games(game_file):
    folder, text = game_file.parent, game_file.read_text(encoding="utf-8")
    damage(game_file, text.replace("version: 3\n", "version: 99\n", 1))
    err = assert_clean_error(fivedp(folder, "game", "show", "damaged.yaml"))
    assert err == ("error: damaged.yaml: written by a newer version of fivedp (game format 99); "
                   "this one reads format 3: upgrade fivedp\n")
    assert "newer version" in err
    damage(game_file, text.replace("format: fivedp-game", "format: something-else", 1))
    assert_clean_error(fivedp(folder, "game", "show", "damaged.yaml"), "damaged.yaml: not a fivedp game file")
    (folder / "case.yaml").write_text("id: X\nsteps: []\n", encoding="utf-8")
    assert_clean_error(fivedp(folder, "game", "adjudicate", "case.yaml"), "case.yaml: not a fivedp game file")
    assert_clean_error(fivedp(folder, "game", "show", "missing.yaml"), "missing.yaml: cannot read the game file")
    assert not (folder / "missing.yaml").exists()


@pytest.mark.slow
def test_bad_orders(game_file):
    folder, text = game_file.parent, game_file.read_text(encoding="utf-8")

    def refused(*args, fragments):
        err = assert_clean_error(fivedp(folder, "game", "orders", "g.yaml", *args), *fragments)
        assert game_file.read_text(encoding="utf-8") == text, args  # nothing waits, nothing written
        return err

    refused("--power", "Atlantis", "A Mun - Tyr", fragments=["unknown power 'Atlantis'"])
    refused("Atlantis: A Mun - Tyr", fragments=["order 'Atlantis: A Mun - Tyr'"])
    err = refused("A Mun -> Narnia", fragments=["order 'A Mun -> Narnia': unknown province 'Narnia' (column 10)"])
    assert err == "error: order 'A Mun -> Narnia': unknown province 'Narnia' (column 10)\n"
    refused("Germany: A Mun - Tyr", "Germany: F Kie Hold Hold",
            fragments=["order 'F Kie Hold Hold'", "(column "])
    refused("Waive", fragments=["order 'Waive': say which power waives (--power)"])
    refused("A Kie - Ruh", fragments=["order 'A Kie - Ruh': no unit there to tell whose order it is (use --power)"])
    refused("A Mun@9 - Tyr", fragments=["order 'A Mun@9 - Tyr': there is no board a9"])
    # a good line before a bad one is not kept either
    refused("A Par - Bur", "A Par -> Narnia", fragments=["'A Par -> Narnia'"])
    (folder / "orders.txt").write_text("A Par - Bur\nA Par -> Narnia\n", encoding="utf-8")
    refused("--file", "orders.txt", fragments=["'A Par -> Narnia'"])


@pytest.mark.slow
def test_orders_from_a_missing_file(game_file):
    assert_clean_error(fivedp(game_file.parent, "game", "orders", "g.yaml", "--file", "nowhere.txt"), "nowhere.txt")


@pytest.mark.slow
def test_an_unknown_power_is_named(game_file):
    for args in (["--power", "Atlantis", "A Mun - Tyr"], ["Atlantis: A Mun - Tyr"]):
        err = fivedp(game_file.parent, "game", "orders", "g.yaml", *args).stderr
        assert "unknown power 'Atlantis'" in err, err


@pytest.mark.slow
def test_an_order_on_a_missing_timeline(game_file):
    err = fivedp(game_file.parent, "game", "orders", "g.yaml", "A c-Mun - Tyr").stderr
    assert "None" not in err and "no timeline c" in err, err


@pytest.mark.slow
def test_new_refuses_to_replace_a_game(game_file):
    folder, text = game_file.parent, game_file.read_text(encoding="utf-8")
    assert_clean_error(fivedp(folder, "game", "new", "g.yaml"),
                       "g.yaml: a game file is already there (use --force to replace it)")
    assert game_file.read_text(encoding="utf-8") == text
    p = fivedp(folder, "game", "new", "g.yaml", "--force")
    assert p.returncode == 0, p.stderr
    assert load_game(game_file).history == ()


@pytest.mark.slow
def test_show_a_board_that_does_not_exist(game_file):
    err = assert_clean_error(fivedp(game_file.parent, "game", "show", "g.yaml", "z9"))
    assert err == "error: no board 'z9' (boards: a0, a1, a2, b1)\n"
    assert_clean_error(fivedp(game_file.parent, "game", "show", "g.yaml", "b7"), "no board 'b7'")


@pytest.mark.slow
def test_export_refuses_to_replace_a_file(game_file):
    folder = game_file.parent
    (folder / "case.yaml").write_text("keep me\n", encoding="utf-8")
    assert_clean_error(fivedp(folder, "game", "export", "g.yaml", "-o", "case.yaml"),
                       "case.yaml: already exists (use --force to replace it)")
    assert (folder / "case.yaml").read_text(encoding="utf-8") == "keep me\n"
    assert fivedp(folder, "game", "export", "g.yaml", "-o", "case.yaml", "--force").returncode == 0
    read_scenario(folder / "case.yaml")


# -- 5. export --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_export_replays_the_game(tmp_path):
    g, reports = play_in_memory(opening(tmp_path))
    save_game(tmp_path / "g.yaml", g)
    p = fivedp(tmp_path, "game", "export", "g.yaml", "-o", "case.yaml")
    assert p.returncode == 0 and p.stdout == "Wrote case.yaml\n", p.stderr
    scenario = read_scenario(tmp_path / "case.yaml")
    assert scenario.id == "game g" and len(scenario.steps) == len(GAME)
    run = check_scenario(scenario)
    assert run.passed, run.problems
    # the replay is the game: the same results, and the same multiverse at the end
    for i, (replayed, played) in enumerate(zip(run.reports, reports), 1):
        assert report_state(replayed) == report_state(played), f"step {i}"
    assert_same_game(replace(g, mv=run.reports[-1].after), g, "replayed")
    p = fivedp(tmp_path, "check", "case.yaml")
    assert p.returncode == 0 and p.stdout == "1 passed, 0 failed\n", p.stdout + p.stderr
    # to standard output, with an id
    p = fivedp(tmp_path, "game", "export", "g.yaml", "--id", "MY GAME")
    assert p.returncode == 0
    data = yaml.safe_load(p.stdout)
    assert data == export_scenario(load_game(tmp_path / "g.yaml"), "MY GAME")
    assert data["id"] == "MY GAME" and "phase" not in data["start"]


@pytest.mark.slow
def test_export_of_a_new_game_has_no_steps(tmp_path):
    save_game(tmp_path / "g.yaml", new_game(opening(tmp_path, {"adjacency": "any"})))
    data = yaml.safe_load(fivedp(tmp_path, "game", "export", "g.yaml").stdout)
    assert data["steps"] == [] and data["options"] == {"adjacency": "any"}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert check_scenario(read_scenario(tmp_path / "c.yaml")).passed


def test_export_with_the_same_line_from_two_powers(tmp_path):
    g = new_game(opening(tmp_path))
    g = submit(g, "Austria", ["A Mun - Tyr"])
    g = submit(g, "Germany", ["A Mun - Tyr"])
    g, _ = adjudicate(g)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(export_scenario(g, "X")), encoding="utf-8")
    run = check_scenario(read_scenario(tmp_path / "c.yaml"))
    assert run.passed, run.problems


def test_export_of_a_game_started_in_a_retreat_phase(tmp_path):
    scenario = tmp_path / "r.yaml"
    scenario.write_text(textwrap.dedent("""\
        id: R
        start:
          turn: 1
          phase: retreat
          units:
            Germany: [A Tyrolia, A Bohemia]
            Austria: [A Trieste]
          dislodged:
            Austria: [{unit: A Vienna, attacker_from: Tyrolia}]
        steps: []
        """), encoding="utf-8")
    g = new_game(read_scenario(scenario).start)
    g, report = adjudicate(submit(g, "Austria", ["A Vie - Gal"]))
    assert report.outcomes[0].result == "succeeds"
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(export_scenario(g, "X")), encoding="utf-8")
    run = check_scenario(read_scenario(tmp_path / "c.yaml"))
    assert run.passed, run.problems


@pytest.mark.slow
def test_new_game_from_a_scenario_with_options(tmp_path):
    (tmp_path / "c.yaml").write_text("id: C\noptions: {adjacency: any}\nsteps: []\n", encoding="utf-8")
    p = fivedp(tmp_path, "game", "new", "g.yaml", "--from", "c.yaml")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert load_game(tmp_path / "g.yaml").mv.options == Settings.of({"adjacency": "any"})


# -- known defects of the file itself ---------------------------------------------------------------


def test_boards_of_timelines_past_z(tmp_path):
    # a consistent multiverse (the loader refuses any other): a0-a2 fought, a3 and 27 timelines
    # forked from a2, the last of them b1 (timeline 27), whose board 3 is written b1@3
    mv = opening(tmp_path)
    root = mv.boards[(0, 0)]
    fought = [replace(make_board(0, n, root.units.values(), root.centers), record=Record()) for n in range(3)]
    heads = [make_board(t, 3, root.units.values(), root.centers) for t in range(28)]
    mv = mv.with_boards(fought + heads, {t: (0, 2) for t in range(1, 28)})
    g = replace(new_game(mv), mv=mv, start={})
    save_game(tmp_path / "g.yaml", g)
    assert "\n  b1@3:\n" in (tmp_path / "g.yaml").read_text(encoding="utf-8")
    assert sorted(load_game(tmp_path / "g.yaml").mv.boards) == sorted(mv.boards)


def test_saving_keeps_the_usual_file_mode(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("", encoding="utf-8")
    path.chmod(0o644)
    save_game(path, new_game(opening(tmp_path)))
    assert path.stat().st_mode & 0o777 == 0o644


def test_retreat_order_power_is_the_retreating_units(tmp_path):
    g, _ = play_in_memory(opening(tmp_path), GAME[:12])
    g = submit(g, None, ["A Vie - Boh"])
    assert list(g.pending) == ["Germany"]


# -- the document ------------------------------------------------------------------------------------


def test_the_document_names_every_key(tmp_path):
    doc = DOC.read_text(encoding="utf-8")
    g, _ = play_in_memory(opening(tmp_path), GAME[:3])
    data = game_data(g)
    for key in data:
        assert f"`{key}`" in doc, key
    for key in ("units", "centers", "retreats", "adjustment_due", "record", "orders", "incoming", "decisions",
                "attacker_from", "barred", "phase", "boards", "results", "power", "order", "result", "reason"):
        assert f"`{key}`" in doc, key
