"""Mistakes in a scenario that are caught when it is loaded (docs/case-format.md): bad input, exit
status 2 naming the file and line, rather than a scenario that runs and passes or fails."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from fivedp_asp.files.scenarios import ScenarioError, read_scenario
from fivedp_asp.cli import main
from fivedp_asp.errors import InputError


def _cli(*argv: str) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, err.getvalue() + out.getvalue()


def _scenario(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("item", ["-", "- null", "- ~"])
def test_a_null_step_is_refused_on_its_line(tmp_path, item):
    path = _scenario(tmp_path, f"id: x\nsteps:\n  - orders: {{}}\n  {item}\n")
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert isinstance(err.value, InputError)
    assert (err.value.line, err.value.problem) == (
        4, "step 2 is empty (null): write `- {}` for a step in which nobody orders anything")
    for command in ("check", "adjudicate"):
        code, text = _cli(command, str(path))
        assert code == 2 and f"{path}:4: step 2 is empty (null)" in text and "Traceback" not in text


def test_a_null_step_list_item_in_flow_style_is_refused(tmp_path):
    path = _scenario(tmp_path, "id: x\nsteps: [null]\n")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:2: step 1 is empty (null)" in text


def test_an_empty_mapping_is_still_a_step_without_orders(tmp_path):
    scenario = read_scenario(_scenario(tmp_path, "id: x\nsteps:\n  - {}\n  - orders: {}\n"))
    assert [s.orders for s in scenario.steps] == [{}, {}]


def test_expected_centres_must_be_supply_centres(tmp_path):
    path = _scenario(tmp_path, "id: x\nsteps:\n  - orders: {}\n  - orders: {}\n    expect:\n      centers:\n"
                           "        a2:\n          Germany: [Munich, Kiel, Berlin,\n            Bohemia]\n")
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert (err.value.line, err.value.problem) == (9, "expect.centers of a2: Bohemia is not a supply centre")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:9: expect.centers of a2: Bohemia is not a supply centre" in text


@pytest.mark.parametrize("entry, problem", [
    ("Germany: [Munich, Atlantis]", "unknown province 'Atlantis'"),
    ("Prussia: [Munich]", "unknown power 'Prussia'"),
])
def test_expected_centres_name_provinces_and_powers_of_the_map(tmp_path, entry, problem):
    path = _scenario(tmp_path, f"id: x\nsteps:\n  - orders: {{}}\n    expect:\n      centers:\n        a1: {{{entry}}}\n")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:6: {problem}" in text


def test_expected_centres_that_are_supply_centres_are_checked_when_run(tmp_path):
    """A right centre list passes, a wrong owner fails the scenario (exit 1): only the map is checked on load."""
    base = "id: x\nsteps:\n  - orders: {}\n  - orders: {}\n    expect:\n      centers:\n        a2:\n"
    good = _scenario(tmp_path, base + "          Germany: [Munich, Kiel, Berlin]\n          Austria: [Vienna, Budapest, "
                                  "Trieste]\n          England: [London, Edinburgh, Liverpool]\n          France: "
                                  "[Paris, Brest, Marseilles]\n          Italy: [Rome, Naples, Venice]\n          "
                                  "Russia: [Moscow, Warsaw, St Petersburg, Sevastopol]\n          Turkey: [Ankara, "
                                  "Constantinople, Smyrna]\n")
    assert _cli("check", str(good))[0] == 0
    wrong = _scenario(tmp_path, base + "          Germany: [Munich, Kiel, Berlin, Holland]\n")
    assert _cli("check", str(wrong))[0] == 1


# -- a key written without a value (docs/case-format.md, "Empty values") ----------------------------------


@pytest.mark.parametrize("text, line", [
    ("id: cut\nsteps:\n  - orders:\n", 3),
    ("id: cut\nsteps:\n  - orders:", 3),                    # no line end either
])
def test_a_scenario_cut_after_orders_is_refused(tmp_path, text, line):
    """Before: a file ending ``steps: - orders:`` passed ``fivedp check`` as a step in which nobody
    ordered anything."""
    path = _scenario(tmp_path, text)
    for command in ("check", "adjudicate"):
        code, out = _cli(command, str(path))
        assert code == 2 and "Traceback" not in out, out
        assert (f"{path}:{line}: step 1: 'orders' has no value: write the orders, or 'orders: {{}}' for a step in "
                "which nobody orders anything") in out, out


def test_a_scenario_cut_in_its_second_step_names_that_step(tmp_path):
    path = _scenario(tmp_path, "id: cut\nsteps:\n  - orders: {Germany: [A Mun - Tyr]}\n  - note: Fall 1901\n    orders:\n")
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert err.value.line == 5 and err.value.problem.startswith("step 2: 'orders' has no value")
    code, out = _cli("check", str(path))
    assert code == 2 and f"{path}:5: step 2: 'orders' has no value" in out


@pytest.mark.parametrize("text, line, problem", [
    ("id: x\nsteps:\n  - expect:\n", 3, "step 1: 'expect' has no value: write what to expect, or leave 'expect' out"),
    ("id: x\nsteps:\n  - note:\n", 3, "step 1: 'note' has no value: write the note, or leave it out"),
    ("id: x\nsteps:\n  - orders:\n      Germany:\n", 4,
     "step 1: 'orders.Germany' has no value: write its orders, or '[]' for none"),
    ("id: x\nsteps:\n  - orders:\n      Germany:\n        - A Mun - Tyr\n        -\n", 6,
     "step 1: 'orders.Germany' item 2 is empty: write it, or take its '-' away"),
    ("id: x\nsteps:\n  - orders: {}\n    expect:\n      results:\n", 5,
     "step 1: 'expect.results' has no value: write '{}' for an empty mapping or '[]' for an empty list, or leave "
     "the key out"),
    ("id: x\nsteps:\n  - orders: {}\n    expect:\n      dislodged:\n", 5, "step 1: 'expect.dislodged' has no value"),
    ("id: x\nsteps:\n  - orders: {}\n    expect:\n      winner:\n", 5,
     "step 1: 'expect.winner' has no value: write 'none' for no winner"),
    ("id: x\nsteps:\n  - orders: {}\n    expect:\n      boards: {a1: }\n", 5, "step 1: 'expect.boards.a1' has no value"),
    ("id: x\nsteps:\n  - orders: {}\n    expect:\n      boards:\n        a1:\n          Germany:\n", 7,
     "step 1: 'expect.boards.a1.Germany' has no value"),
    ("id: x\nstart:\n  units:\nsteps: []\n", 3,
     "'start.units' has no value: write '{}' for a board without units, or leave it out for the map's opening "
     "position"),
    ("id: x\nstart:\n  units:\n    Germany:\nsteps: []\n", 4, "'start.units.Germany' has no value"),
    ("id: x\nstart:\n  centers:\nsteps: []\n", 3, "'start.centers' has no value"),
    ("id: x\nsteps: []\nstart:\n", 3, "'start' has no value"),
    ("id: x\nsteps: []\noptions:\n", 3, "'options' has no value"),
    ("id: x\ntitle:\nsteps: []\n", 2, "'title' has no value"),
])
def test_a_key_without_a_value_is_refused_on_its_line(tmp_path, text, line, problem):
    """An empty value is written out ({}, [], none); a key with none is how a file cut short or an
    unfinished edit reads, and would otherwise weaken a step or an expectation without a word."""
    path = _scenario(tmp_path, text)
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert err.value.line == line and err.value.problem.startswith(problem), (err.value.line, err.value.problem)
    code, out = _cli("check", str(path))
    assert code == 2 and f"{path}:{line}: {problem}" in out, out


@pytest.mark.parametrize("text", [
    "id: x\nsteps: []\n",                                               # no steps: only the start is checked
    "id: x\nsteps:\n  - {}\n  - orders: {}\n    expect: {}\n",
    "id: x\nsteps:\n  - orders: {Germany: []}\n    expect: {dislodged: [], winner: none, boards: {a1: {Germany: []}}}\n",
    "id: x\nstart:\n  units: {}\n  centers: {}\nsteps: []\n",
    "id: x\nstart:\n  turn: 1\n  phase: retreat\n  units: {Austria: [A Tri]}\n  dislodged:\n"
    "    Germany: [{unit: A Mun, attacker_from: Tyrolia}, A Ber]\nsteps: []\n",
])
def test_empty_values_written_out_are_still_read(tmp_path, text):
    read_scenario(_scenario(tmp_path, text))
