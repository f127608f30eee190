"""Mistakes in a scenario that are caught when it is loaded (docs/case-format.md): bad input, exit
status 2 naming the file and line, rather than a case that runs and passes or fails."""

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


def _case(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("item", ["-", "- null", "- ~"])
def test_a_null_step_is_refused_on_its_line(tmp_path, item):
    path = _case(tmp_path, f"id: x\nsteps:\n  - orders: {{}}\n  {item}\n")
    with pytest.raises(ScenarioError) as err:
        read_scenario(path)
    assert isinstance(err.value, InputError)
    assert (err.value.line, err.value.problem) == (
        4, "step 2 is empty (null): write `- {}` for a step in which nobody orders anything")
    for command in ("check", "adjudicate"):
        code, text = _cli(command, str(path))
        assert code == 2 and f"{path}:4: step 2 is empty (null)" in text and "Traceback" not in text


def test_a_null_step_list_item_in_flow_style_is_refused(tmp_path):
    path = _case(tmp_path, "id: x\nsteps: [null]\n")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:2: step 1 is empty (null)" in text


def test_an_empty_mapping_is_still_a_step_without_orders(tmp_path):
    case = read_scenario(_case(tmp_path, "id: x\nsteps:\n  - {}\n  - orders: {}\n"))
    assert [s.orders for s in case.steps] == [{}, {}]


def test_expected_centres_must_be_supply_centres(tmp_path):
    path = _case(tmp_path, "id: x\nsteps:\n  - orders: {}\n  - orders: {}\n    expect:\n      centers:\n"
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
    path = _case(tmp_path, f"id: x\nsteps:\n  - orders: {{}}\n    expect:\n      centers:\n        a1: {{{entry}}}\n")
    code, text = _cli("check", str(path))
    assert code == 2 and f"{path}:6: {problem}" in text


def test_expected_centres_that_are_supply_centres_are_checked_when_run(tmp_path):
    """A right centre list passes, a wrong owner fails the case (exit 1): only the map is checked on load."""
    base = "id: x\nsteps:\n  - orders: {}\n  - orders: {}\n    expect:\n      centers:\n        a2:\n"
    good = _case(tmp_path, base + "          Germany: [Munich, Kiel, Berlin]\n          Austria: [Vienna, Budapest, "
                                  "Trieste]\n          England: [London, Edinburgh, Liverpool]\n          France: "
                                  "[Paris, Brest, Marseilles]\n          Italy: [Rome, Naples, Venice]\n          "
                                  "Russia: [Moscow, Warsaw, St Petersburg, Sevastopol]\n          Turkey: [Ankara, "
                                  "Constantinople, Smyrna]\n")
    assert _cli("check", str(good))[0] == 0
    wrong = _case(tmp_path, base + "          Germany: [Munich, Kiel, Berlin, Holland]\n")
    assert _cli("check", str(wrong))[0] == 1
