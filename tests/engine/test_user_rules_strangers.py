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
from fivedp_asp.model.options import UserRule
from fivedp_asp.model.settings import Settings
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
    options = Settings().with_rules((UserRule("mine", True, "mine.lp", text),), in_effect=True)
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_solver_caches_tell_two_texts_of_one_file_apart(tmp_path):
    # the same option, the same file name, two texts in one process: each run follows its own text
    path = rule_file(tmp_path, NO_CROSS.read_text(encoding="utf-8"))
    first = parse_specs([f"no_cross_timeline_support={path}"])
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), first))) == ("invalid", CROSSED)
    path.write_text(NO_CROSS.read_text(encoding="utf-8").replace(CROSSED, "not across"), encoding="utf-8")
    second = parse_specs([f"no_cross_timeline_support={path}"])
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), second))) == ("invalid", "not across")
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), first))) == ("invalid", CROSSED)


# -- 9: text clingo cannot read is refused, never a crash -----------------------------------------------


# (text, line, column, character named): each outside a string literal and a comment
UNREADABLE = [
    ("cut(S) :- supports(S,X,T), é.\n", 1, 28, r"'é' \(U\+00E9\)"),
    ("cut(S) :- supports(S,X,T),\n    € > 1.\n", 2, 5, r"'€' \(U\+20AC\)"),
    ("cut(S) :- supports(S,X,T).\n\ufeffcut(S) :- supports(S,X,T).\n", 2, 1, r"U\+FEFF"),
    ('cut(S) :- supports(S,X,T), S != "é\\t".\n', 1, 34, r"'é' \(U\+00E9\)"),  # "\t" is no escape clingo reads
]


@pytest.mark.slow
@pytest.mark.parametrize("text,line,column,shown", UNREADABLE)
def test_unreadable_character_on_the_command_line(tmp_path, program, text, line, column, shown):
    path = rule_file(tmp_path, text)
    done = program(tmp_path, "adjudicate", MV6, "--rule", f"mine={path}", timeout=120)
    assert done.returncode == 2, done.stderr
    _clean(done.stderr)
    assert re.search(re.escape(f"{path}:{line}:{column}:") + ".*" + shown, done.stderr), done.stderr


@pytest.mark.slow
def test_unreadable_character_in_a_scenario_and_with_two_jobs(tmp_path, program):
    rule_file(tmp_path, UNREADABLE[0][0])
    for name in ("a.yaml", "b.yaml"):
        scenario_with_rule_file(tmp_path, name=name)
    for jobs in ("1", "2"):
        done = program(tmp_path, "check", "a.yaml", "b.yaml", "-j", jobs, timeout=120)
        assert done.returncode == 2, done.stdout + done.stderr
        _clean(done.stdout + done.stderr)
        assert "BrokenProcessPool" not in done.stdout + done.stderr
        for name in ("a.yaml", "b.yaml"):
            assert re.search(rf"ERROR {name}:3: .*mine\.lp:1:28: .*'é' \(U\+00E9\)", done.stdout), done.stdout


@pytest.mark.slow
def test_unreadable_character_in_a_game_file(tmp_path, program):
    game = game_with_rule(tmp_path, UNREADABLE[1][0])
    done = program(tmp_path, "game", "show", game, timeout=120)
    assert done.returncode == 2, done.stderr
    _clean(done.stderr)
    assert re.search(r"mine\.lp:2:5: .*'€' \(U\+20AC\)", done.stderr), done.stderr


@pytest.mark.slow
def test_unreadable_character_through_the_api(tmp_path, program):
    path = rule_file(tmp_path, UNREADABLE[0][0])
    script = ("import fivedp_asp as fd, sys\n"
              "for rules in ({'mine': sys.argv[1]}, {'mine': {'file': 'given.lp', 'text': sys.argv[2]}}):\n"
              "    try:\n"
              "        fd.new_game(fd.settings({'rules': rules}))\n"
              "    except fd.InputError as exc:\n"
              "        print('refused:', exc)\n")
    import subprocess

    done = subprocess.run([sys.executable, "-c", script, str(path), UNREADABLE[2][0]], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _clean(done.stderr)
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    assert re.search(re.escape(f"{path}:1:28:") + r".*'é' \(U\+00E9\)", lines[0])
    assert re.search(r"given\.lp:2:1:.*U\+FEFF", lines[1])


READABLE = ("% a comment: é €\n%* a block comment: ü *%\n"
            + NO_CROSS.read_text(encoding="utf-8").replace(CROSSED, "appui refusé"))


@pytest.mark.slow
def test_non_ascii_in_strings_and_comments_is_read(tmp_path):
    rules = parse_specs([f"no_cross_timeline_support={rule_file(tmp_path, READABLE)}"])
    assert rules[0].text == READABLE
    assert _support(check_scenario(scenario_with_rules(read_scenario(MV6), rules))) == ("invalid", "appui refusé")


@pytest.mark.slow
def test_a_bom_at_the_very_start_is_dropped(tmp_path, program):
    path = rule_file(tmp_path, "\ufeff" + READABLE)
    done = program(tmp_path, "adjudicate", MV6, "--rule", f"no_cross_timeline_support={path}", timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(re.escape(SUPPORT) + r" +invalid \(appui refusé\)", done.stdout), done.stdout
    # text given whole (a game file's record, the API) is read the same way
    script = ("import sys\n"
              "from fivedp_asp.engine.userrules import rules_from_mapping\n"
              "rule, = rules_from_mapping({'no_cross_timeline_support': {'file': 'x.lp', 'text': sys.argv[1]}})\n"
              "print(rule.text == sys.argv[1][1:])\n")
    import subprocess

    done = subprocess.run([sys.executable, "-c", script, "\ufeff" + READABLE], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr


def test_a_nul_character_is_refused(tmp_path):
    # clingo would read the text up to it and silently drop the rest
    path = rule_file(tmp_path, "cut(S) :- supports(S,X,T).\x00 cut(S) :- supports(X,S,T).\n")
    with pytest.raises(RuleError, match=r"mine\.lp:1:27: .*NUL"):
        parse_spec(f"mine={path}")


# -- 10: a rule that grounds without end stops at the limits ------------------------------------------


# grounding these alone, on no facts, never ends (or ends after many seconds and gigabytes)
ENDLESS_ALONE = {
    "chain": "p(X+1) :- p(X).\np(0).\ncut(S) :- supports(S,X,T), p(1).\n",
    "square": "q(X,Y) :- X=1..4000, Y=1..4000.\ncut(S) :- supports(S,X,T), q(1,1).\n",
}
# these ground at once alone, and without end on a step's facts
ENDLESS_IN_A_STEP = {
    "chain": "p(0) :- head(B).\np(X+1) :- p(X).\ncut(S) :- supports(S,X,T), p(1).\n",
    "square": "q(X,Y) :- head(B), X=1..4000, Y=1..4000.\ncut(S) :- supports(S,X,T), q(1,1).\n",
}


@pytest.fixture
def quick_alone(monkeypatch):
    """The time a rule grounded alone may take, made short (the fast tests of each path)."""
    monkeypatch.setattr(userrules, "ALONE_SECONDS", 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(ENDLESS_IN_A_STEP))
def test_endless_grounding_in_a_step_stops_at_the_time_limit(tmp_path, cli, kind):
    path = rule_file(tmp_path, ENDLESS_IN_A_STEP[kind])
    t0 = time.monotonic()
    status, _, err = cli("adjudicate", MV6, "--rule", f"mine={path}", "--time-limit", "1")
    assert status == 2, err
    assert time.monotonic() - t0 < 20
    assert "time limit of 1 s" in err and "mine.lp" in err, err
    assert re.search(r"\d+ boards? in play, \d+ orders?", err), err


@pytest.mark.slow
def test_endless_grounding_in_a_step_stops_at_the_memory_limit(tmp_path, cli):
    path = rule_file(tmp_path, ENDLESS_IN_A_STEP["square"])
    t0 = time.monotonic()
    status, _, err = cli("adjudicate", MV6, "--rule", f"mine={path}", "--memory-limit", "64", "--time-limit", "60")
    assert status == 2, err
    assert time.monotonic() - t0 < 30
    assert "memory limit of 64 MiB" in err and "mine.lp" in err, err
    assert re.search(r"\d+ boards? in play, \d+ orders?", err), err


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(ENDLESS_ALONE))
def test_endless_grounding_alone_is_refused_by_the_contract(tmp_path, cli, kind, quick_alone):
    path = rule_file(tmp_path, ENDLESS_ALONE[kind])
    for argv in (("adjudicate", MV6, "--rule", f"mine={path}", "--time-limit", "5"),
                 ("options", "--rule", f"mine={path}")):
        t0 = time.monotonic()
        status, _, err = cli(*argv)
        assert status == 2, err
        assert time.monotonic() - t0 < 20
        assert f"{path}: " in err and "alone, on no facts" in err and "time limit of 1 s" in err, err


@pytest.mark.slow
def test_endless_grounding_alone_at_the_memory_limit(tmp_path, cli, monkeypatch):
    # the memory limit, not the time limit, stops it: grounding alone is given time enough to fill 64 MiB
    # on a busy machine (at the default of 3 s, a loaded run reached the time limit first)
    monkeypatch.setattr(userrules, "ALONE_SECONDS", 60.0)
    path = rule_file(tmp_path, ENDLESS_ALONE["chain"])
    status, _, err = cli("adjudicate", MV6, "--rule", f"mine={path}", "--memory-limit", "64")
    assert status == 2, err
    assert f"{path}: " in err and "alone, on no facts" in err and "memory limit of 64 MiB" in err, err


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(ENDLESS_ALONE))
def test_a_game_file_with_endless_grounding_is_refused(tmp_path, cli, kind, quick_alone):
    game = game_with_rule(tmp_path, ENDLESS_ALONE[kind])
    t0 = time.monotonic()
    status, _, err = cli("game", "show", game)
    assert status == 2, err
    assert time.monotonic() - t0 < 20
    assert "mine.lp: " in err and "alone, on no facts" in err, err


@pytest.mark.slow
def test_endless_grounding_through_the_api(tmp_path, quick_alone):
    path = rule_file(tmp_path, ENDLESS_ALONE["chain"])
    with pytest.raises(RuleError, match="alone, on no facts"):
        fd.new_game(fd.settings({"rules": {"mine": str(path)}}))
    game = fd.new_game(fd.settings({"rules": {"mine": {"file": "step.lp", "text": ENDLESS_IN_A_STEP["chain"]}}}))
    game = fd.submit_orders(game, ["A Vienna - Galicia"], power="Austria").game
    t0 = time.monotonic()
    with pytest.raises(TimeLimitError, match=r"time limit of 1 s.*step\.lp"):
        fd.adjudicate(game, time_limit=1)
    assert time.monotonic() - t0 < 20
    with driver.memory_limit(64), pytest.raises(errors.MemoryLimitError, match=r"memory limit of 64 MiB"):
        fd.adjudicate(fd.new_game(fd.settings({"rules": {"mine": {"file": "sq.lp", "text": ENDLESS_IN_A_STEP["square"]}}})))


@pytest.mark.parametrize("value", ["0", "-3", "lots", "1.5"])
def test_a_memory_limit_that_is_not_a_positive_whole_number_is_refused(capsys, value):
    from fivedp_asp.cli.commands import main

    with pytest.raises(SystemExit) as stop:
        main(["adjudicate", str(MV6), "--memory-limit", value])
    assert stop.value.code == 2
    assert "--memory-limit" in capsys.readouterr().err
    with pytest.raises(InputError, match="MiB"):
        with driver.memory_limit(-1):
            pass


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(ENDLESS_ALONE))
def test_endless_grounding_ends_in_bounded_time_with_the_default_limits(tmp_path, program, kind):
    # as a user meets it: no limit lowered but a --time-limit of 2 s given (each step grinds until
    # it), each command a program of its own
    alone = rule_file(tmp_path, ENDLESS_ALONE[kind], "alone.lp")
    step = rule_file(tmp_path, ENDLESS_IN_A_STEP[kind], "step.lp")
    game = game_with_rule(tmp_path, ENDLESS_ALONE[kind])
    for argv in (("adjudicate", MV6, "--rule", f"mine={alone}", "--time-limit", "2"),
                 ("adjudicate", MV6, "--rule", f"mine={step}", "--time-limit", "2"),
                 ("options", "--rule", f"mine={alone}"),
                 ("game", "show", game)):
        t0 = time.monotonic()
        done = program(tmp_path, *argv, timeout=60)
        assert done.returncode == 2, (argv, done.stderr)
        assert time.monotonic() - t0 < 30, argv
        _clean(done.stderr)
        assert "limit of" in done.stderr, done.stderr
    # the API, from a program of its own: a new game, then a step with time_limit=2
    import subprocess

    script = ("import sys, fivedp_asp as fd\n"
              "for rules, limit in (({'mine': sys.argv[1]}, None), ({'mine': sys.argv[2]}, 2)):\n"
              "    try:\n"
              "        game = fd.new_game(fd.settings({'rules': rules}))\n"
              "        fd.adjudicate(game, time_limit=limit)\n"
              "    except fd.InputError as exc:\n"
              "        print(type(exc).__name__, exc)\n")
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script, str(alone), str(step)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert time.monotonic() - t0 < 60
    _clean(done.stderr)
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("RuleError") and "alone, on no facts" in lines[0], done.stdout
    assert lines[1].startswith("TimeLimitError") and "time limit of 2 s" in lines[1], done.stdout


# -- 11: a rule file is read as every input is; #include is refused before clingo reads the text -------


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_a_fifo_as_a_rule_file_is_refused_at_once(tmp_path, program):
    fifo = tmp_path / "fifo.lp"
    os.mkfifo(fifo)
    done = program(tmp_path, "adjudicate", MV6, "--rule", f"mine={fifo}", timeout=60)
    assert done.returncode == 2, done.stderr
    assert "FIFO" in done.stderr and str(fifo) in done.stderr
    _clean(done.stderr)


def _crash_file(folder: Path) -> Path:
    """A file that clingo would crash on, had it opened it (a character it cannot read)."""
    return rule_file(folder, "cut(S) :- supports(S,X,T), é.\n", "crash.lp")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_include_in_a_game_file_is_refused_before_the_file_is_opened(tmp_path, program):
    fifo = tmp_path / "fifo.lp"
    os.mkfifo(fifo)
    for included in (fifo, _crash_file(tmp_path)):
        game = game_with_rule(tmp_path, f'cut(S) :- supports(S,X,T).\n#include "{included}".\n')
        done = program(tmp_path, "game", "show", game, timeout=60)
        assert done.returncode == 2, done.stderr
        _clean(done.stderr)
        assert re.search(r"mine\.lp:2:1: #include is not allowed", done.stderr), done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_include_in_a_scenario_rule_is_refused_before_the_file_is_opened(tmp_path, program):
    fifo = tmp_path / "fifo.lp"
    os.mkfifo(fifo)
    for included in (fifo, _crash_file(tmp_path)):
        rule_file(tmp_path, f'cut(S) :- supports(S,X,T).\n  #include "{included.name}".\n')
        scenario_with_rule_file(tmp_path)
        done = program(tmp_path, "check", "s.yaml", timeout=60)
        assert done.returncode == 2, done.stdout + done.stderr
        _clean(done.stdout + done.stderr)
        assert re.search(r"ERROR s\.yaml:3: .*mine\.lp:2:3: #include is not allowed", done.stdout), done.stdout


def test_what_may_open_a_file_or_run_code_is_refused_before_parsing_and_comments_are_not(tmp_path):
    refused = ['#include <incmode>.\ncut(S) :- supports(S,X,T).\n',
               'cut(S) :- supports(S,X,T).\n#script (python)\nimport os\n#end.\n',
               '#theory t { x { + : 1, unary }; &a/0 : x, head }.\ncut(S) :- supports(S,X,T).\n']
    for text in refused:
        path = rule_file(tmp_path, text)
        with pytest.raises(RuleError, match=r"mine\.lp:\d+:1: #(include|script|theory) is not allowed"):
            parse_spec(f"mine={path}")
    # in a comment or a string, the same words are text
    fine = ('% #include "x.lp".\n%* #script (python) *%\n'
            'cut(S) :- supports(S,X,T), S != "#include".\n')
    assert parse_spec(f"mine={rule_file(tmp_path, fine)}").text == fine

