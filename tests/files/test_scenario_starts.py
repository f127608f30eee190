"""A start of several boards (docs/case-format.md, "A start of several boards"): the records derived
from the results written are the records play writes; bad starts are refused with file, line and
problem, never a traceback; a game begun from such a start is recorded, replayed, undone and exported.
The scenarios of ``cases/multiverse/starts/`` check what such starts give when played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fivedp_asp.engine.resolve import resolved_text
from fivedp_asp.files.games import load_game
from fivedp_asp.files.scenarios import ScenarioError, check_scenario, read_scenario
from fivedp_asp.game.state import new_game, position_data
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import board_name, unit_text
from fivedp_asp.model.notation import timeline_name
from fivedp_asp.report.jsonout import load_schema

from tests.schema_check import errors as schema_errors

ROOT = Path(__file__).resolve().parent.parent.parent
STARTS = ROOT / "cases" / "multiverse" / "starts"
MAP = load_map("standard")


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:  # scenarios are read with YAML aliases refused
        return True


def _write(tmp_path: Path, start: dict, steps: list | None = None) -> Path:
    path = tmp_path / "start.yaml"
    path.write_text(yaml.dump({"id": "start", "start": start, "steps": steps or []}, Dumper=_Dumper,
                              sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _start_of(game) -> dict:
    """A played game's multiverse written as a start of several boards: each past board's orders with
    the results its step gave them (from the game's history), each head's units, centres and phase."""
    mv = game.mv
    results: dict[str, str] = {}
    for entry in game.history:
        if entry.get("phase") == "movement":
            for r in entry.get("results", ()):
                results[r.get("qualified") or r["order"]] = r["result"]
    boards = {}
    for key in sorted(mv.boards):
        b = mv.boards[key]
        units, centers = position_data(mv.game_map, b)
        data: dict = {"units": units, "centers": centers}
        if b.record is not None:
            orders: dict = {}
            for r in b.record.orders:
                text = resolved_text(r, mv.game_map)
                orders.setdefault(r.power, {})[text] = results[text]
            data["orders"] = orders
        elif b.retreats:
            data["phase"] = "retreat"
            dislodged: dict = {}
            for r in b.retreats:
                item = {"unit": unit_text(r.unit, mv.game_map)}
                if r.attacker_from:
                    item["attacker_from"] = r.attacker_from
                dislodged.setdefault(r.unit.power, []).append(item)
            data["dislodged"] = dislodged
        elif b.adjustment_due:
            data["phase"] = "adjustment"
        boards[board_name(*key)] = data
    return {"boards": boards, "forks": {timeline_name(t): board_name(*p) for t, p in sorted(mv.forks.items())}}


@pytest.mark.parametrize("seed", [1, 2])
def test_the_records_derived_from_results_are_those_play_writes(tmp_path, seed):
    from tests.files.test_verify import random_game

    game = random_game(f"fivedp-starts/{seed}", {}, steps=6)
    assert len(game.mv.timelines) > 1, "the game should have forked"
    _same_records(read_scenario(_write(tmp_path, _start_of(game))).start, game)
    # a game begun from a multiverse of several boards records every board as its start: the same records
    _same_records(read_scenario(_write(tmp_path, new_game(game.mv).start)).start, game)


def _same_records(mv, game) -> None:
    assert set(mv.boards) == set(game.mv.boards) and dict(mv.forks) == dict(game.mv.forks)
    fought = 0
    for key, played in game.mv.boards.items():
        got = mv.boards[key]
        assert dict(got.units) == dict(played.units), board_name(*key)
        if played.record is None:
            assert got.record is None
            continue
        fought += 1
        assert {resolved_text(r, MAP) for r in got.record.orders} == \
            {resolved_text(r, MAP) for r in played.record.orders}, board_name(*key)
        assert got.record.incoming == played.record.incoming, board_name(*key)
        assert dict(got.record.decisions) == dict(played.record.decisions), board_name(*key)
    assert fought >= 6


# -- bad starts --------------------------------------------------------------------------------------

A0 = {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Munich Hold": "succeeds"}}}
A1 = {"units": {"Germany": ["A Munich"]}}


@pytest.mark.parametrize("start, line, problem", [
    ({"units": {"Germany": ["A Kiel"]}, "boards": {"a0": A1}}, "units:",
     "start.units cannot be given beside start.boards: with 'boards' every board is written under it, the first "
     "one too (its units there), so that no unit stands on two boards at once"),
    ({"boards": {"a0": A0, "a1": {"units": {"Germany": ["A b-Munich@1"]}}}}, "- A b-Munich@1",
     "unit 'A b-Munich@1' is listed under board a1 but names another board: a unit stands on the one board it "
     "is listed under"),
    ({"boards": {"a0": A0, "a1": A1, "b1": A1}, "forks": {"b": "a5"}}, "b: a5",
     "start.forks: timeline b forks from a5, which is no board of start.boards"),
    ({"boards": {"a0": A0, "a1": A1, "b1": A1}, "forks": {"b": "a1"}}, "b: a1",
     "start.forks: timeline b forks from a1, the head of timeline a: a timeline forks from a past board, fought "
     "again (docs/rules.md §6.5)"),
    ({"boards": {"a0": A0, "a1": A1, "b2": A1}, "forks": {"b": "a0"}}, "b: a0",
     "start.forks: timeline b forks from a0, so its first board is b1, but start.boards begins it at b2"),
    ({"boards": {"a0": A0, "a1": A1, "b1": A1}}, "b1:",
     "timeline b forks from no board: say which in start.forks ({b: a0})"),
    ({"boards": {"a0": A0, "a1": A1, "c1": A1}, "forks": {"c": "a0"}}, "c1:",
     "board c1: timeline c has boards but timeline b has none: timelines are lettered in the order they were "
     "made (a, b, c, …)"),
    ({"boards": {"a0": A0, "a2": A1}}, "a2:",
     "timeline a has boards a0 to a2 but no a1: a timeline's boards follow each other turn by turn"),
    ({"boards": {"a0": {**A0, "phase": "retreat"}, "a1": A1}}, "phase: retreat",
     "board a0 is a past board (timeline a's head is a1): only a head waits for a phase"),
    ({"boards": {"a0": A0, "a1": {**A1, "orders": {"Germany": {"A Munich Hold": "succeeds"}}}}}, "orders:",
     "board a1 is timeline a's head: orders are recorded on past boards only (a head's orders are given in a step)"),
    ({"boards": {"a0": {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Munich Hold": "fails"}}},
                 "a1": A1}}, "A Munich Hold: fails",
     "board a0: the recorded hold 'A Munich Hold' fails, but the recorded moves into Munich do not dislodge it: "
     "a hold fails exactly when its unit is dislodged"),
    ({"boards": {"a0": {"units": {"Germany": ["A Munich", "A Bohemia"], "Austria": ["A Vienna"]},
                        "orders": {"Germany": {"A Munich - Tyrolia": "succeeds"},
                                   "Austria": {"A Vienna - Tyrolia": "succeeds"}}}, "a1": A1}},
     "A Vienna - Tyrolia: succeeds",
     "board a0: the recorded moves 'A Munich - Tyrolia' and 'A Vienna - Tyrolia' both succeed: one unit at most "
     "arrives in a province"),
    ({"boards": {"a0": {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Kiel - Ruhr": "fails"}}},
                 "a1": A1}}, "A Kiel - Ruhr: fails",
     "board a0: recorded order 'A Kiel - Ruhr': Germany has no unit in Kiel there"),
    ({"boards": {"a0": {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Munich - Ruhr": "invalid"}}},
                 "a1": A1}}, "A Munich - Ruhr: invalid",
     "board a0: recorded order 'A Munich - Ruhr': its result must be succeeds or fails (an order that was "
     "invalid is not recorded: leave it out)"),
    ({"boards": {"a0": {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Munich - c-Ruhr@0": "fails"}}},
                 "a1": A1}}, "A Munich - c-Ruhr@0: fails",
     "board a0: recorded order 'A Munich - c-Ruhr@0' names board c0, which is no board of start.boards"),
    ({"boards": {"a0": A0, "a1": {"phase": "adjustment", **A1}}}, "phase: adjustment",
     "board a1 cannot wait for adjustments: they come after a Fall battle, before a Spring board's movement (an "
     "even turn from 2)"),
    ({"boards": {"a0": A0, "a1": {"centers": {}}}}, "a1:",
     "board a1 needs 'units' (write '{}' for a board without units)"),
])
def test_a_bad_start_is_refused_with_its_line(tmp_path, cli, start, line, problem):
    path = _write(tmp_path, start)
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert err.value.problem == problem
    lines = path.read_text(encoding="utf-8").splitlines()
    assert err.value.line, problem
    assert lines[err.value.line - 1].strip().startswith(line), (lines[err.value.line - 1], line)
    for command in (("check",), ("adjudicate",), ("game", "new", str(tmp_path / "g.yaml"), "--from")):
        status, out, err_text = cli(*command, path)
        assert status == 2 and f"{path}:{err.value.line}: {problem}" in out + err_text, (command, out, err_text)
        assert "Traceback" not in err_text + out
    assert not (tmp_path / "g.yaml").exists()


def test_the_single_board_start_reads_as_before(tmp_path):
    single = _write(tmp_path, {"turn": 3, "units": {"Germany": ["A Munich"]}, "centers": {"Germany": ["Munich"]}})
    mv = read_scenario(single).start
    assert list(mv.boards) == [(0, 3)] and not mv.forks
    path = tmp_path / "forks.yaml"
    path.write_text("id: x\nstart:\n  units: {}\n  forks: {b: a0}\nsteps: []\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert (err.value.line, err.value.problem) == (4, "start.forks needs start.boards: the boards the timelines "
                                                      "forked from")


# -- expectations on boards and on recorded orders judged again -----------------------------------------


def test_no_boards_and_rejudged_fail_when_the_position_says_otherwise(tmp_path):
    text = (STARTS / "01-support-into-a-recorded-bounce.yaml").read_text(encoding="utf-8")
    text = text.replace("no_boards: [c1, b2, a3]", "no_boards: [c1, b1]")
    text = text.replace("A a-Vienna@0 - a-Tyrolia@0: fails", "A a-Vienna@0 - a-Tyrolia@0: succeeds\n"
                                                             "        A a-Bohemia@0 Hold: succeeds")
    path = tmp_path / "changed.yaml"
    path.write_text(text, encoding="utf-8")
    run = check_scenario(read_scenario(path))
    assert set(run.problems) == {
        "step 1 (movement): no_boards: board b1 exists",
        "step 1 (movement): rejudged: 'A a-Vienna@0 - a-Tyrolia@0' expected succeeds, got fails",
        "step 1 (movement): rejudged: 'A a-Bohemia@0 Hold' (A a-Boh@0 H) is no recorded order judged again in this "
        "step (judged again: 'A a-Mun@0 - a-Tyr@0', 'A a-Vie@0 - a-Tyr@0')",
    }


# -- a game begun from several boards ------------------------------------------------------------------


def test_a_game_from_several_boards_is_recorded_replayed_undone_and_exported(tmp_path, cli):
    case = STARTS / "02-unreachable-fleet-on-a-fork.yaml"
    game_file = tmp_path / "g.yaml"
    status, out, err = cli("game", "new", game_file, "--from", case)
    assert status == 0, err
    assert out.startswith(f"New game in {game_file}: a1, b1 waiting for movement orders.")
    game = load_game(game_file)
    assert game.start == yaml.safe_load(case.read_text(encoding="utf-8"))["start"]
    schema = load_schema()
    status, out, err = cli("game", "show", game_file, "--json")
    shown = json.loads(out)
    assert not schema_errors(shown, schema)
    assert [t["forked_from"] for t in shown["timelines"]] == [None, "a0"]
    scenario = read_scenario(case)
    for power, lines in scenario.steps[0].orders.items():
        assert cli("game", "orders", game_file, "--power", power, *lines)[0] == 0
    assert cli("game", "adjudicate", game_file)[0] == 0
    status, out, err = cli("game", "verify", game_file, "--json")
    assert status == 0 and not schema_errors(json.loads(out), schema), out + err
    exported = tmp_path / "exported.yaml"
    assert cli("game", "export", game_file, "-o", exported)[0] == 0
    again = read_scenario(exported)
    assert again.start_document == game.start and check_scenario(again).passed
    status, out, err = cli("game", "undo", game_file)
    assert status == 0, err
    undone = load_game(game_file)
    assert not undone.history and set(undone.mv.boards) == set(scenario.start.boards)
    assert cli("game", "verify", game_file)[0] == 0


def test_every_start_scenario_adjudicates_to_json_the_schema_accepts(cli):
    schema = load_schema()
    paths = sorted(STARTS.glob("*.yaml"))
    assert len(paths) >= 4
    for path in paths:
        status, out, err = cli("adjudicate", "--json", path)
        assert status == 0, err
        data = json.loads(out)
        assert data["passed"] is True and not schema_errors(data, schema), path
