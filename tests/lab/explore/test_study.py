"""Option studies over random games (``fivedp explore --random-games``, study.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.cli import main
from fivedp_asp.lab.explore.exploration import asked_values
from fivedp_asp.model.notation import parse_order
from fivedp_asp.model.orders import Move, SupportHold
from fivedp_asp.lab.explore.study import Study, random_games, run_study, study_html
from fivedp_asp.model.settings import Settings

ROOT = Path(__file__).resolve().parent.parent.parent.parent
NO_CROSS = ROOT / "docs" / "examples" / "no_cross_timeline_support.lp"


@pytest.mark.slow
def test_random_games_are_seeded():
    a = [g.steps for g, _, _ in random_games(2, 7, 1)]
    b = [g.steps for g, _, _ in random_games(2, 7, 1)]
    c = [g.steps for g, _, _ in random_games(2, 8, 1)]
    assert a == b and a != c
    game, phases, _ = random_games(1, 7, 2)[0]
    assert len(game.steps) == len(phases) and phases[0] == "movement" and len(game.steps) >= 4


@pytest.mark.slow
def test_an_order_across_boards_takes_the_place_of_its_units_order_on_its_head():
    """A unit of a multiverse study's random game given an order across boards gives that order
    alone: with its head order as well, both would be illegal (DATC 4.D.3, conflicting orders), and
    the game would hardly ever leave its first timeline."""
    conflicts, timelines = 0, []
    for scenario, _, _ in random_games(4, 7, 5, multiverse=True):
        run = check_scenario(scenario)
        conflicts += sum(1 for r in run.reports for o in r.outcomes
                         if o.result == "invalid" and "conflicting" in (o.reason or ""))
        timelines.append(len(run.reports[-1].after.timelines))
    assert conflicts == 0 and sum(timelines) >= 3 * len(timelines), (conflicts, timelines)


@pytest.mark.slow
@pytest.mark.parametrize("multiverse, years", [(False, 3), (True, 2)])
def test_an_added_order_takes_the_place_of_its_units_own_order(multiverse, years):
    """The order a study adds for another value (``F a-Mao@5 C``) replaces whatever the unit was
    ordered (``F Mao - Gas``): the unit is compared, not the spelling, so no unit has two orders and
    none is invalid for conflicting orders under the value that allows the added one."""
    from dataclasses import replace

    other = Settings.of({"open_convoys": True, "jump_assists": True})
    games = random_games(3, 7, years, multiverse=multiverse, others=[other])
    added = [x for _, _, a in games for step in a for x in step]
    assert len(added) >= 8, added  # a classic game's fleets reach the seas they convoy from in year 3
    for scenario, _, per_step in games:
        for s, extra in zip(scenario.steps, per_step):
            lines = [(p, x) for p, ls in s.orders.items() for x in ls]
            assert extra <= set(lines)
            units = []
            for power, x in lines:
                try:
                    order = parse_order(x, scenario.start.game_map)
                except Exception:  # noqa: BLE001 - an illegal line the generator wrote on purpose
                    continue
                unit = getattr(order, "unit", None)
                if unit is not None:  # a classic game's lines name its one board, or none at all
                    w = unit.where  # (a power's order for another's unit is one of the illegal lines drawn)
                    units.append((power, w.province) if not multiverse else (power, w.timeline, w.turn, w.province))
            assert len(units) == len(set(units)), (sorted(units), extra)
        run = check_scenario(replace(scenario, start=replace(scenario.start, options=other)))
        conflicting = [o.text for r in run.reports for o in r.outcomes if "conflicting" in (o.reason or "")]
        assert conflicting == []


@pytest.mark.slow
def test_an_option_about_timelines_never_changes_a_classic_game():
    study = run_study(3, 2, 2, asked_values(["adjacency=family,any"], []))
    assert study.diverged == 0 and not study.by_kind and len(study.first) == 3
    # nothing tried it: the study says so rather than letting "0 games" pass for "no effect"
    assert study.given[1] == 0 and study.warnings() == [
        "adjacency=any was never exercised: in these 3 games no order was given whose result it changes at "
        "the same position; what it allows or forbids in orders was not tried, and any change of play comes "
        "from what it changes without them (a phase, a winner)"]


@pytest.mark.slow
def test_first_divergences_are_written_as_scenarios_that_show_them(tmp_path, capsys):
    status = main(["explore", "--random-games", "10", "--seed", "3", "--years", "4",
                   "--option", "datc_4e1=ignored,counts", "--out", str(tmp_path), "--html", str(tmp_path / "s.html")])
    out = capsys.readouterr().out
    assert status == 0
    diverged = int(re.search(r"games whose play changed: (\d+) of 10", out)[1])
    files = sorted(tmp_path.glob("*.yaml"))
    assert diverged >= 1 and len(files) == diverged
    for f in files:
        data = yaml.safe_load(f.read_text())
        first = int(re.search(r"step(\d+)\.yaml", f.name)[1])
        assert len(data["steps"]) == first
        # the last step holds what DATC 4.E.1 decides: a support to hold of a unit ordered an
        # impossible move (illegal under both readings; under `counts` it refuses hold support)
        scenario = read_scenario(f)
        run = check_scenario(scenario)
        last = run.reports[-1]
        invalid_moves = {parse_order(o.text, scenario.start.game_map).unit.where.province for o in last.outcomes
                         if o.result == "invalid" and isinstance(parse_order(o.text, scenario.start.game_map), Move)}
        supports = [parse_order(o.text, scenario.start.game_map) for o in last.outcomes
                    if isinstance(parse_order(o.text, scenario.start.game_map), SupportHold)]
        assert any(s.target.where.province in invalid_moves for s in supports), f.name
        # and it is the first step where the readings differ: explore finds the difference there
        status = main(["explore", str(f), "--option", "datc_4e1=counts", "--json"])
        doc = capsys.readouterr().out
        assert status == 0 and re.findall(r'"step": (\d+)', doc) == [str(first)]
    page = (tmp_path / "s.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page


def test_the_page_escapes_what_it_shows():
    study = Study(("x<y",), (("a&b",), ("<c>",)), 0, 1, 1, 1, lengths=[3], first=[2])
    study.by_kind["<b>move</b>"] = 1
    page = study_html(study)
    assert "<b>move</b>" not in page and "&lt;b&gt;move&lt;/b&gt;" in page and "x&lt;y" in page
    assert '<p class="warning"><b>Warning:</b> x&lt;y=&lt;c&gt; was never exercised' in page


@pytest.mark.slow
def test_a_rule_of_your_own_in_a_study(capsys):
    status = main(["explore", "--random-games", "2", "--seed", "1", "--years", "1",
                   "--rule", f"no_cross_timeline_support={NO_CROSS}"])
    out = capsys.readouterr().out
    assert status == 0 and "no_cross_timeline_support=true: changes play in 0 games" in out  # one timeline only
    status = main(["explore", "--random-games", "2", str(NO_CROSS), "--option", "datc_4e1=counts"])
    assert status == 2 and "give no PATH" in capsys.readouterr().err


@pytest.mark.slow
def test_a_multiverse_study_reaches_other_timelines_and_a_rule_about_them_shows(tmp_path, capsys):
    drawn = random_games(2, 1, 3, multiverse=True)
    lines = [x for g, _, _ in drawn for s in g.steps for ls in s.orders.values() for x in ls]
    # moves and supports into the past and other timelines
    assert sum(1 for x in lines if re.search(r"@\d+ - [a-z]+-\w+@\d+", x)) > 10
    assert any(re.search(r"@\d+ S ", x) for x in lines)
    status = main(["explore", "--random-games", "3", "--seed", "1", "--years", "3", "--multiverse",
                   "--rule", f"no_cross_timeline_support={NO_CROSS}", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "random multiverse games" in out
    changed = int(re.search(r"no_cross_timeline_support=true: changes play in (\d+) games", out)[1])
    assert changed >= 1 and changed == len(list(tmp_path.glob("*.yaml")))
    # only supports can change under a rule that only makes supports illegal
    assert re.search(r"by kind: support to (hold|move) \d+(, support to (hold|move) \d+)?$", out, re.M)


@pytest.mark.slow
def test_a_study_as_json_is_a_document_that_agrees_with_the_text(capsys):
    import json

    from fivedp_asp.report.jsonout import load_schema
    from tests.schema_check import errors

    argv = ["explore", "--random-games", "6", "--seed", "3", "--years", "1", "--option", "datc_4a3=rule_1982"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "games of 1 year," in text
    assert main(argv + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "study" and not errors(doc, load_schema())
    assert len(doc["per_game"]) == doc["games"] == 6
    assert doc["diverged"] == sum(g["first_divergence"] is not None for g in doc["per_game"])
    assert f"games whose play changed: {doc['diverged']} of 6" in text
    assert sum(p["played"] for p in doc["by_phase"]) == sum(g["steps"] for g in doc["per_game"])


def _position(seed: int, steps: int):
    """A multiverse position reached by a study's own random orders."""
    import random as _random

    from fivedp_asp.game.random_orders import OrderGenerator
    from fivedp_asp.engine.step import next_phase, step
    from fivedp_asp.game.random_play import study_orders as _orders
    from fivedp_asp.model.map import load_map
    from fivedp_asp.model.multiverse import opening

    m = load_map("standard")
    rng = _random.Random(seed)
    gen = OrderGenerator(m, rng)
    mv = opening(m)
    for _ in range(steps):
        mv = step(mv, _orders(mv, gen, rng, True), reasons=False).after
    while next_phase(mv) != "movement":
        mv = step(mv, {}, reasons=False).after
    return mv


@pytest.mark.slow
def test_orders_beyond_the_own_options_are_legal_only_under_the_others():
    import random as _random
    from dataclasses import replace
    from fivedp_asp.engine.step import step
    from fivedp_asp.lab.explore.study import beyond_orders
    from fivedp_asp.model.settings import Settings

    mv = _position(2, 9)
    assert len(mv.timelines) >= 2
    assert beyond_orders(mv, _random.Random(1), [Settings()], True, 5) == []  # nothing beyond what the own options allow
    for other, kind in ((Settings.of({"open_convoys": True}), r" C$"), (Settings.of({"jump_assists": True}), r" J "),
                        (Settings.of({"adjacency": "any"}), r" - |")):
        drawn = beyond_orders(mv, _random.Random(3), [other], True, 30)
        assert drawn and any(re.search(kind, line) for _, line in drawn), (other, drawn)
        orders: dict[str, list[str]] = {}
        for power, line in drawn:
            orders.setdefault(power, []).append(line)
        results = {(o.power, o.text): o.result for o in step(mv, orders, reasons=False).outcomes}
        allowed = {(o.power, o.text): o.result
                   for o in step(replace(mv, options=other), orders, reasons=False).outcomes}
        beyond = [x for x in drawn if re.search(kind, x[1])]
        assert all(results[x] == "invalid" for x in beyond), results
        assert all(allowed[x] != "invalid" for x in drawn), allowed


@pytest.mark.slow
def test_a_classic_study_draws_only_orders_on_the_board_of_the_game():
    import random as _random

    from fivedp_asp.engine.step import step
    from fivedp_asp.lab.explore.study import beyond_orders
    from fivedp_asp.model.map import load_map
    from fivedp_asp.model.multiverse import opening

    m = load_map("standard")
    mv = opening(m)
    mv = step(mv, {"England": ["F Lon - Nth", "F Edi - Nwg"], "France": ["F Bre - Mao"]}, reasons=False).after
    drawn = beyond_orders(mv, _random.Random(4), [Settings.of({"open_convoys": True, "jump_assists": True})], False, 40)
    assert drawn and all("@0" not in line for _, line in drawn), drawn
    assert {line for _, line in drawn if line.endswith(" C")} <= {"F a-Nth@1 C", "F a-Nwg@1 C", "F a-Mao@1 C"}


@pytest.mark.slow
@pytest.mark.parametrize("option, games, years, seed", [("open_convoys", 4, 3, 7), ("jump_assists", 4, 3, 7),
                                                       ("adjacency", 4, 3, 7), ("sustain", 4, 3, 7),
                                                       ("victory", 3, 5, 3)])
def test_a_multiverse_study_sees_every_seed_option(option, games, years, seed, capsys):
    """Drawn from what any compared value allows, random multiverse games show the effect of each of
    the seed's options, also those that allow more orders than the default, in play and not only in
    the added orders' own results (docs/explore.md has the counts over more games). The victory
    condition changes only games in which a power is eliminated, about one in ten: its seed is one
    whose three games of five years hold such an elimination."""
    status = main(["explore", "--random-games", str(games), "--years", str(years), "--seed", str(seed), "--multiverse",
                   "--all-values", option])
    out = capsys.readouterr().out
    changed = [int(n) for n in re.findall(r": changes play in (\d+) games?", out)]
    assert status == 0 and changed and min(changed) >= 1, out


def _exploration(*steps):
    from fivedp_asp.lab.explore.exploration import Exploration, StepDiff

    return Exploration("g", "g", "<g>", ("open_convoys",), ((False,), (True,)), 0,
                       tuple(StepDiff(n, ("movement", "movement"), tuple(rows)) for n, rows in steps))


def test_the_added_orders_own_results_are_not_play():
    """A game where only the orders a study added differ (invalid under one value, valid under the
    other) is counted apart from play: by construction every game with an addition differs so."""
    from fivedp_asp.lab.explore.exploration import Row
    from fivedp_asp.lab.explore.study import effects

    convoy = Row("order", (("invalid", "open convoys are off"), ("succeeds", None)), power="France", order="F a-Mao@5 C")
    added = [frozenset(), frozenset({("France", "F a-Mao@5 C")})]
    only = effects(_exploration((2, [convoy])), added)[1]
    assert only.play is None and only.added_differ and (only.given, only.succeeded) == (1, 1)
    # the same order, not added (the generator's own): its result is play
    assert effects(_exploration((2, [convoy])), [frozenset(), frozenset()])[1].play == 2
    # a unit that stands elsewhere is play, even beside an added order
    units = Row("units", ((("A Gas",)), (("A Spa",))), board="a-Spa@5", power="France")
    later = Row("order", (("fails", None), ("invalid", "no such unit")), power="France", order="A a-Gas@6 - a-Bur@6")
    found = effects(_exploration((2, [convoy, units]), (3, [later])), added + [frozenset()])[1]
    assert found.play == 2 and found.added_differ
    # orders are counted as given while both columns stand at the same position, not after
    assert (found.given, found.succeeded) == (1, 1)
