"""fivedp_asp/schema/scenario.schema.json, the JSON Schema of scenario files (docs/case-format.md), for
editors and outside tools: the shipped file is what tools/make_scenario_schema.py generates from the
code; every scenario of cases/ and of the docs validates; its closed sets agree with what the loader
accepts, value by value; and of a set of bad scenarios it refuses those it can, while the loader, which
stays the authority, refuses them all with the file, the line and what is wrong."""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest
import yaml

from fivedp_asp.errors import NotationError
from fivedp_asp.files.scenarios import read_scenario
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import board_name_readings
from fivedp_asp.model.notation import parse_timeline
from fivedp_asp.model.options import PRESETS, REGISTRY
from fivedp_asp.model.settings import problem
from fivedp_asp.yaml_lines import load_yaml, plain

from tests.schema_check import errors

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA_FILE = ROOT / "fivedp_asp" / "schema" / "scenario.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
MAP = load_map("standard")


def _schema_errors(document) -> list[str]:
    return errors(document, SCHEMA)


def _def(name: str) -> dict:
    """A definition of the schema, with the schema's definitions beside it (for its references)."""
    return {**SCHEMA["$defs"][name], "$defs": SCHEMA["$defs"]}


def test_the_shipped_schema_is_what_the_code_generates():
    spec = importlib.util.spec_from_file_location("make_scenario_schema", ROOT / "tools" / "make_scenario_schema.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert SCHEMA_FILE.read_text(encoding="utf-8") == tool.text(), \
        "fivedp_asp/schema/scenario.schema.json is stale: run python tools/make_scenario_schema.py"
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_schema_is_shipped_in_the_package():
    """The wheel takes the package folder whole (pyproject.toml: no file left out), and the schema is
    a resource of the package, as fivedp.schema.json is, found where an installed copy has it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["fivedp_asp"]
    assert not {"exclude", "only-include", "include"} & set(wheel)
    shipped = resources.files("fivedp_asp") / "schema" / "scenario.schema.json"
    assert json.loads(shipped.read_text(encoding="utf-8")) == SCHEMA


def _scenario_files() -> list[Path]:
    return sorted(p for p in (ROOT / "cases").rglob("*") if p.suffix in (".yaml", ".yml"))


def test_every_scenario_of_cases_validates():
    files = _scenario_files()
    assert len(files) > 350
    several = 0
    for path in files:
        document = plain(load_yaml(path, "scenario"))  # as the loader reads it: YAML 1.1, its guards
        assert _schema_errors(document) == [], path
        several += "boards" in (document.get("start") or {})
    assert several >= 4, "the corpus has starts of several boards"


def _yaml_blocks(doc: str, after: str = "") -> list[str]:
    """The YAML blocks of a document, those after the heading ``after`` when it is given."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    text = text.split(after, 1)[1] if after else text
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def test_the_example_scenarios_of_the_docs_validate(tmp_path):
    complete = yaml.safe_load(_yaml_blocks("case-format.md", "## Complete example")[0])
    compared = yaml.safe_load(_yaml_blocks("compare.md")[0])
    start = yaml.safe_load(_yaml_blocks("case-format.md", "## A start of several boards")[0])["start"]
    options = yaml.safe_load(_yaml_blocks("case-format.md", "### Rules of your own")[0])["options"]
    boards = {"id": "boards", "start": start, "steps": []}
    rules = {"id": "rules", "options": options, "steps": []}
    for document in (complete, compared, boards, rules):
        assert _schema_errors(document) == [], document["id"]
    # the example start is a start the loader takes too
    path = tmp_path / "boards.yaml"
    path.write_text(yaml.safe_dump(boards), encoding="utf-8")
    assert len(read_scenario(path).start.boards) == 3


# -- the closed sets agree with the loader, value by value --------------------------------------------


def _options_ok(options: dict) -> bool:
    return not _schema_errors({"id": "o", "options": options, "steps": []})


def test_every_option_takes_exactly_the_values_the_loader_takes():
    # a list, not a set: in a set 1 is True and 0 is False, and the numbers would never be tried
    values = [v.value for o in REGISTRY.values() for v in o.values]
    candidates = [x for i, x in enumerate(values) if not any(x == y and type(x) is type(y) for y in values[:i])]
    candidates += [1, 0, 1.0, "true", "false", None, "nonsense", "Family", [True], {"value": True}]
    checked = 0
    for name in REGISTRY:
        for value in candidates:
            loader_ok = problem(name, value) is None
            assert _options_ok({name: value}) == loader_ok, (name, value, loader_ok)
            checked += loader_ok
    assert checked == sum(len(o.values) for o in REGISTRY.values())
    assert problem("diagonal", False) is not None and not _options_ok({"diagonal": False})


def test_a_preset_is_one_the_registry_names():
    for name in (*PRESETS, "nonsense", "Seeds", True):
        assert _options_ok({"preset": name}) == (problem("preset", name) is None), name


def test_with_rules_of_your_own_options_are_open_to_what_rules_add():
    """A rule may add a value to an option acting in movement, or a boolean option: the schema cannot
    know which, so it takes any such name; other options keep their values."""
    rules = {"rules": {"adjacency": "parent_child:rule.lp"}}
    assert _options_ok({**rules, "adjacency": "parent_child", "my_rule": False})
    assert not _options_ok({**rules, "datc_4c1": "sometimes"})  # acts in order reading: no rule adds to it
    assert not _options_ok({**rules, "my_rule": "on"})  # an option a rule adds is on or off
    assert not _options_ok({"rules": {"preset": "x.lp"}})
    assert not _options_ok({"rules": {"mine": {"value": True}}})  # neither file nor text


POWER_TEXTS = ("Germany", "germany", "GERMANY", "German", "ger", "Ger.", " ger ", "Austria-Hungary", "austria_hungary",
               "AUSTRIA  HUNGARY", "Great Britain", "great-britain", "Britain", "Turkey", "tur\u212aey", "Ottoman",
               "ITALIAN", "\u0131taly", "Germ", "Atlantis", "a.us", "Austriahungary", "germanyy", "", "-", "Eng land")


@pytest.mark.parametrize("text", POWER_TEXTS)
def test_a_power_of_the_standard_map_is_what_the_map_finds(text):
    assert (not errors(text, _def("power_standard"))) == (MAP.power(text) is not None)


def test_powers_are_held_everywhere_a_scenario_names_one_on_a_shipped_map_only():
    start = {"units": {"Atlantis": ["A Munich"]}}
    assert _schema_errors({"id": "p", "start": start, "steps": []})
    assert _schema_errors({"id": "p", "map": "standard", "steps": [{"orders": {"Atlantis": []}}]})
    assert _schema_errors({"id": "p", "steps": [{"expect": {"centers": {"a1": {"Atlantis": []}}}}]})
    assert _schema_errors({"id": "p", "steps": [{"expect": {"winner": "Atlantis"}}]})
    assert not _schema_errors({"id": "p", "steps": [{"expect": {"winner": "NONE"}}]})
    boards = {"boards": {"a0": {"units": {}, "orders": {"Atlantis": {}}}}}
    assert _schema_errors({"id": "p", "start": boards, "steps": []})
    assert not _schema_errors({"id": "p", "map": "mine.yaml", "start": start, "steps": []})


TIMELINE_TEXTS = ("a", "B", "z", "z9", "a12", "alfa", "Alpha", "bravoprime", "BRAVOPRIME", "charlie12", "juliet",
                  "juliett", "\u212ailo", "alfatwentieth", " a ", "ab", "a-", "1", "", "prime", "x y",
                  "alfaprimeprime", "a1b", "\u017fierra", "\u0131ndia", "\u212a", "b\u0661")


@pytest.mark.parametrize("text", TIMELINE_TEXTS)
def test_a_timeline_is_what_the_notation_reads(text):
    try:
        parse_timeline(text)
        loader_ok = True
    except (NotationError, ValueError):
        loader_ok = False
    assert (not errors(text, _def("timeline"))) == loader_ok


BOARD_TEXTS = ("a0", "b10", "b1@0", "bravo3", "bravoprime0", "Alfa2", " a1 ", "a 1", "a @0", "a@ 0", "a", "0",
               "a-1", "@1", "a1@", "ab1", "b1@0@1", "alfa@3", "z99")


@pytest.mark.parametrize("text", BOARD_TEXTS)
def test_a_board_name_is_what_the_multiverse_reads(text):
    assert (not errors(text, _def("board_name"))) == bool(board_name_readings(text))


# -- bad scenarios: what the schema refuses, and the loader refusing them all --------------------------

class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:  # the loader refuses YAML aliases
        return True


A0 = {"units": {"Germany": ["A Munich"]}, "orders": {"Germany": {"A Munich Hold": "succeeds"}}}
A1 = {"units": {"Germany": ["A Munich"]}}
RULE = str(ROOT / "docs" / "examples" / "adjacency_parent_child.lp")


def _doc(start=None, steps=None, **top) -> dict:
    document = {"id": "bad", **top}
    if start is not None:
        document["start"] = start
    document["steps"] = steps if steps is not None else []
    return document


BAD = [
    # name, the scenario, whether the schema refuses it, what the loader says (a part of its message)
    ("units beside boards: a unit on two boards at once",
     _doc({"units": {"Germany": ["A Kiel"]}, "boards": {"a0": A1}}), True,
     "start.units cannot be given beside start.boards"),
    ("a unit designated onto another board: on two boards at once",
     _doc({"boards": {"a0": A0, "a1": {"units": {"Germany": ["A b-Munich@1"]}}}}), False,
     "unit 'A b-Munich@1' is listed under board a1 but names another board"),
    ("a fork from a board that does not exist",
     _doc({"boards": {"a0": A0, "a1": A1, "b1": A1}, "forks": {"b": "a5"}}), False,
     "start.forks: timeline b forks from a5, which is no board of start.boards"),
    ("a past board after its timeline's head (orders recorded on the latest board)",
     _doc({"boards": {"a0": {"units": {"Germany": ["A Munich"]}}, "a1": A0}}), False,
     "board a1 is timeline a's head: orders are recorded on past boards only"),
    ("a phase on a past board",
     _doc({"boards": {"a0": {**A0, "phase": "retreat"}, "a1": A1}}), True,
     "board a0 is a past board (timeline a's head is a1): only a head waits for a phase"),
    ("a phase on a board that recorded orders, written without dislodged units",
     _doc({"boards": {"a0": {**A0, "phase": "movement"}, "a1": A1}}), True,
     "board a0 is a past board (timeline a's head is a1): only a head waits for a phase"),
    ("a head waiting for retreats with none to retreat",
     _doc({"boards": {"a0": A0, "a1": {**A1, "phase": "retreat"}}}), True,
     "board a1: phase retreat needs the units that retreat (dislodged)"),
    ("no board in boards", _doc({"boards": {}}), True, "start.boards names no board"),
    ("a board name that is none", _doc({"boards": {"x": A1}}), True, "board name 'x' must be a timeline and a turn"),
    ("an unknown key at the top", {**_doc(), "expcet": {}}, True, "unknown key 'expcet'"),
    ("an unknown key in a step", _doc(steps=[{"order": {}}]), True, "unknown key 'order' in a step"),
    ("an unknown key in expect", _doc(steps=[{"expect": {"result": {}}}]), True, "unknown key 'result' in expect"),
    ("an unknown key in a board", _doc({"boards": {"a0": {**A1, "owner": {}}}}), True,
     "unknown key 'owner' in board a0"),
    ("a turn that is text", _doc({"turn": "two"}), True, "start.turn must be a whole number from 0 to"),
    ("a turn beyond the last", _doc({"turn": 10**6}), True, "start.turn must be a whole number from 0 to"),
    ("steps as a mapping", {"id": "bad", "steps": {"orders": {}}}, True, "steps must be a list"),
    ("orders of a power as one line", _doc(steps=[{"orders": {"Germany": "A Munich - Ruhr"}}]), True,
     "must be a list"),
    ("a key without a value", _doc(steps=[{"orders": None}]), True, "step 1: 'orders' has no value"),
    ("a result word that is none", _doc(steps=[{"orders": {"Germany": ["A Munich - Ruhr"]},
                                                 "expect": {"results": {"A Munich - Ruhr": "wins"}}}]), True,
     "result of 'A Munich - Ruhr' must be one of succeeds, fails, invalid"),
    ("a reason kind that is none", _doc(steps=[{"orders": {"Germany": ["A Munich - Ruhr"]},
                                                 "expect": {"reasons": {"A Munich - Ruhr": "tired"}}}]), True,
     "unknown kind 'tired'"),
    ("an unknown power", _doc({"units": {"Atlantis": ["A Munich"]}}), True, "unknown power 'Atlantis'"),
    ("a recorded result that is none", _doc({"boards": {"a0": {"units": {"Germany": ["A Munich"]},
                                                               "orders": {"Germany": {"A Munich Hold": "invalid"}}},
                                                        "a1": A1}}), True,
     "its result must be succeeds or fails"),
    ("dislodged units without the retreat phase", _doc({"dislodged": {"Austria": ["A Serbia"]}}), True,
     "start.dislodged needs start.phase: retreat"),
    ("an unknown option value", _doc(options={"adjacency": "nearest"}), True,
     "option adjacency cannot be 'nearest': one of family, any, distance"),
    ("a boolean option given as text", _doc(options={"sustain": "true"}), True,
     "option sustain cannot be 'true': one of false, true (a boolean, unquoted)"),
    ("a boolean option given as a number", _doc(options={"sustain": 1}), True, "option sustain cannot be 1"),
    ("an unknown option", _doc(options={"diagonal": False}), True, "unknown option 'diagonal'"),
    ("an unknown preset", _doc(options={"preset": "classic"}), True, "unknown preset 'classic'"),
    ("a value no rule of the scenario adds", _doc(options={"rules": {"adjacency": f"parent_child:{RULE}"},
                                                           "adjacency": "nearest"}), False,
     "option adjacency cannot be 'nearest'"),
    ("an expected board that is no board name", _doc(steps=[{"expect": {"boards": {"zz": {}}}}]), True,
     "board name 'zz' must be a timeline and a turn"),
    ("an expected phase that is none", _doc(steps=[{"expect": {"phase": "winter"}}]), True,
     "expect.phase must be one of movement, retreat, adjustment, sustain"),
]


@pytest.mark.parametrize("name, document, refused, message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_scenario_is_refused_by_the_loader_and_by_the_schema_where_it_can(tmp_path, cli, name, document,
                                                                                 refused, message):
    assert bool(_schema_errors(document)) == refused, _schema_errors(document)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.dump(document, Dumper=_Dumper, sort_keys=False), encoding="utf-8")
    status, out, err = cli("check", path)
    assert status == 2, (out, err)
    found = re.search(rf"ERROR {re.escape(str(path))}(?::(\d+))?: (.*)", out + err)
    assert found and message in found[2], (message, out, err)
    assert found[1] or message == "steps must be a list"  # a line, but where the format says there is none
    assert "Traceback" not in out + err


def test_starts_written_from_played_games_validate():
    """A played multiverse written out as a start of several boards (past boards with their recorded
    orders and results, heads waiting for retreats or adjustments), and as a game records its start,
    is a start the schema takes, as the loader does."""
    from fivedp_asp.game.state import new_game
    from tests.files.test_scenario_starts import _start_of
    from tests.files.test_verify import random_game

    game = random_game("fivedp-starts/1", {}, steps=6)
    assert len(game.mv.timelines) > 1
    for start in (_start_of(game), new_game(game.mv).start):
        assert _schema_errors({"id": "played", "start": start, "steps": []}) == []
        assert any("orders" in board for board in start["boards"].values())
