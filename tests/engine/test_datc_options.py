"""The DATC chapter 4 readings registered as options (fivedp_asp/model/options.py, docs/rules.md §8): each value
has its logic file (or is read from the written lines), each one is exercised by a scenario of
cases/datc-options/, the defaults give the DATC's results, and the options combine freely on the DATC
corpus, each case changed only where one of the readings alone changes it."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from fivedp_asp.files.scenarios import check_scenarios, find_scenarios, read_scenario
from fivedp_asp.model.options import REGISTRY
from fivedp_asp.solver.driver import asp_dir
from fivedp_asp.model.settings import Settings

ROOT = Path(__file__).resolve().parent.parent.parent
DATC_OPTIONS = [o for o in REGISTRY.values() if o.name.startswith("datc_")]
SCENARIOS = sorted(find_scenarios([str(ROOT / "cases" / "datc-options")]))


def _settings() -> list[dict]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")).get("options", {}) for p in SCENARIOS]


def test_every_chapter_4_issue_the_task_names_is_an_option():
    for issue in ("4a1", "4a2", "4a3", "4a4", "4a5", "4a6", "4a7", "4b2", "4b3", "4b4", "4b5", "4b6", "4c1",
                  "4c2", "4c3", "4c4", "4c5", "4c6", "4d3", "4d4", "4d5", "4d6", "4d7", "4d8", "4d9", "4e1", "4e3"):
        assert f"datc_{issue}" in REGISTRY


def test_every_value_file_exists_and_every_datc_file_is_a_value():
    named = {v.file for o in DATC_OPTIONS for v in o.values if v.file}
    for file in named:
        assert (asp_dir() / "options" / file).is_file(), file
    on_disk = {p.name for p in (asp_dir() / "options").glob("datc_*.lp")}
    assert on_disk == named


def test_defaults_load_no_file():
    """The default reading is the core encodings' behaviour: choosing it loads nothing (docs/rules.md §1)."""
    for o in DATC_OPTIONS:
        assert o.value(o.default).file is None, o.name


@pytest.mark.slow
def test_every_value_other_than_the_default_is_exercised_by_a_scenario():
    used = {(k, v) for s in _settings() for k, v in s.items()}
    missing = [f"{o.name}: {v.value}" for o in DATC_OPTIONS for v in o.values
               if v.value != o.default and (o.name, v.value) not in used]
    assert not missing, "values without a scenario in cases/datc-options: " + ", ".join(missing)


@pytest.mark.slow
def test_every_scenario_quotes_the_datc_or_says_it_is_hand_worked():
    for path in SCENARIOS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        text = data["description"]
        assert "DATC" in text and ('"' in text or "Hand-worked" in text), path.name
        assert ("hand-worked" in data["id"]) == ("Hand-worked" in text), path.name


def _with(scenario, options: dict):
    return replace(scenario, start=replace(scenario.start, options=Settings.of(options)))


DATC_CORPUS = sorted(find_scenarios([str(ROOT / "cases" / "datc")]))


@pytest.mark.slow
def test_the_defaults_written_out_give_the_datc_results():
    """Every reading set to its default by name is the DATC's preferred reading: every case of chapter
    6 gets the results its text states."""
    defaults = {o.name: o.default for o in DATC_OPTIONS}
    runs = check_scenarios([_with(read_scenario(p), defaults) for p in DATC_CORPUS])
    failed = [(r.scenario.id, r.problems) for r in runs if isinstance(r, Exception) or not r.passed]
    assert len(runs) >= 160 and not failed, failed


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_combinations_change_only_what_one_of_their_readings_changes(seed):
    """Any combination of readings adjudicates every DATC case, and the readings combine without
    meddling: a case whose results differ from the DATC's under the combination differs under at least
    one of the combination's readings set alone (its issue concerns that case), and every other case
    gets exactly the DATC's results."""
    rng = random.Random(seed)
    options = {o.name: rng.choice(o.values).value for o in DATC_OPTIONS}
    changed = {name: value for name, value in options.items() if value != REGISTRY[name].default}
    assert len(changed) >= 5, changed
    scenarios = [read_scenario(p) for p in DATC_CORPUS]
    runs = check_scenarios([_with(s, options) for s in scenarios])
    assert not [r for r in runs if isinstance(r, Exception)]
    differing = [s for s, r in zip(scenarios, runs) if not r.passed]
    assert differing, "no reading of the combination changed any case: the options were not loaded"
    alone = {name: check_scenarios([_with(s, {name: value}) for s in differing]) for name, value in changed.items()}
    unexplained = [s.id for n, s in enumerate(differing) if all(alone[name][n].passed for name in changed)]
    assert not unexplained, f"{unexplained} differ only under the combination {changed}"
