"""Rules of your own from someone else: what a rule's text cannot do to the machine that runs it.

A rule of your own may come from a stranger (a game file, a scenario, a server's user). These tests
hold the guarantees of docs/rules-of-your-own.md ("Rules from strangers"): no file is written for a
rule and none is read in its place; text clingo cannot read is refused with its line, column and
character, never by a crash; a rule that grounds without end stops at the time or memory limit; a
rule file is read like every other input, and ``#include`` is refused before clingo sees the text.

The paths that used to crash or hang the interpreter run as a program of their own (the ``program``
fixture, with a timeout), so that a regression fails the test instead of the test run.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import pytest

import fivedp_asp as fd
from fivedp_asp.engine import userrules
from fivedp_asp.engine.options import UserRule, with_rules
from fivedp_asp.engine.userrules import parse_spec, parse_specs, scenario_with_rules
from fivedp_asp import errors
from fivedp_asp.errors import InputError, RuleError, TimeLimitError
from fivedp_asp.files.games import save_game
from fivedp_asp.files.scenarios import check_scenario, read_scenario
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening
from fivedp_asp.solver import driver

ROOT = Path(__file__).resolve().parent.parent.parent
NO_CROSS = ROOT / "docs" / "examples" / "no_cross_timeline_support.lp"
MV6 = ROOT / "cases" / "multiverse" / "4.06-seed004-example-1-dislodged-past-supporter.yaml"
SUPPORT = "A a-Bohemia supports A b-Bohemia - Tyrolia"
CROSSED = "supports may not cross timelines"


def rule_file(folder: Path, text: str, name: str = "mine.lp") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def game_with_rule(folder: Path, text: str, name: str = "g.yaml") -> Path:
    """A game file whose options carry a rule of your own with this text, written as fivedp writes a
    game file (sealed), but without the rule's check: what a stranger's game file can hold."""
    options = with_rules({}, (UserRule("mine", True, "mine.lp", text),), in_effect=True)
    path = folder / name
    save_game(path, new_game(opening(load_map("standard"), options)))
    return path


def scenario_with_rule_file(folder: Path, rule: str = "mine.lp", name: str = "s.yaml") -> Path:
    path = folder / name
    path.write_text(f"id: {name}\noptions:\n  rules:\n    mine: {rule}\nsteps: []\n", encoding="utf-8")
    return path


def _support(run) -> tuple[str, str]:
    outcome = next(o for o in run.reports[2].outcomes if o.text == SUPPORT)
    return outcome.result, outcome.reason


def _clean(err: str) -> None:
    assert "Traceback" not in err and "PANIC" not in err and "internal error" not in err, err


# -- 8: no rule file is written, and none is read in its place ----------------------------------------


PLANTED = 'bad(I,"planted") :- order(I,U,Pw).\n'


def _old_cache(folder: Path, text: str) -> Path:
    """Where rules of your own used to be written, and read back from if they were there already."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return folder / f"fivedp-rules-{uid}" / f"{hashlib.sha256(text.encode('utf-8')).hexdigest()[:24]}.lp"


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_no_file_is_written_for_a_rule_and_a_planted_one_changes_nothing(tmp_path, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    text = NO_CROSS.read_text(encoding="utf-8")
    planted = _old_cache(temp, text)
    planted.parent.mkdir()
    planted.write_text(PLANTED, encoding="utf-8")
    before = _tree(temp)
    rules = parse_specs([f"no_cross_timeline_support={NO_CROSS}"])
    run = check_scenario(scenario_with_rules(read_scenario(MV6), rules))
    assert _support(run) == ("invalid", CROSSED)
    assert not any(o.reason == "planted" for r in run.reports for o in r.outcomes)
    assert _tree(temp) == before  # nothing written beside the planted file


def test_no_file_is_written_from_the_command_line(tmp_path, program):
    temp = tmp_path / "temp"
    temp.mkdir()
    text = NO_CROSS.read_text(encoding="utf-8")
    planted = _old_cache(temp, text)
    planted.parent.mkdir()
    planted.write_text(PLANTED, encoding="utf-8")
    before = _tree(temp)
    done = program(tmp_path, "adjudicate", MV6, "--rule", f"no_cross_timeline_support={NO_CROSS}",
                   env={"TMPDIR": str(temp)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(re.escape(SUPPORT) + r" +invalid \(" + CROSSED, done.stdout)
    assert "planted" not in done.stdout
    assert _tree(temp) == before


def test_the_solver_caches_tell_two_texts_of_one_file_apart(tmp_path):
    # the same option, the same file name, two texts in one process: each run follows its own text
    path = rule_file(tmp_path, NO_CROSS.read_text(encoding="utf-8"))
    first = parse_specs([f"no_cross_timeline_support={path}"])
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), first))) == ("invalid", CROSSED)
    path.write_text(NO_CROSS.read_text(encoding="utf-8").replace(CROSSED, "not across"), encoding="utf-8")
    second = parse_specs([f"no_cross_timeline_support={path}"])
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), second))) == ("invalid", "not across")
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), first))) == ("invalid", CROSSED)
