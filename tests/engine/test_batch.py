"""Phases adjudicated together (fivedp_asp/engine/batch.py) give exactly the reports they give alone.

The expectations are the one-at-a-time reports themselves: batching is a way of asking the solver,
not a rule, so every scenario of ``cases/`` and every step of random classic and multiversal games
must come out the same, field by field, and a phase that fails must fail alone.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from fivedp_asp.engine.batch import MAX_BATCH, _owner, _unshift_all, step_many
from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.lab.compare.lockstep import opening
from fivedp_asp.game.random_orders import OrderGenerator
from fivedp_asp.errors import InputError, OrderError
from fivedp_asp.model.map import load_map
from fivedp_asp.solver.predicates import fact_lines, render
from fivedp_asp.solver.terms import ORDER_STRIDE, TIMELINE_STRIDE, Game, OrderId, OrderIds, Timeline
from fivedp_asp.engine.step import next_phase, step
from tests.engine.test_random_multiverse import _play
from tests.scenario_runs import SHARED, every_scenario, every_scenario_checked

ROOT = Path(__file__).resolve().parent.parent.parent
MAP = load_map("standard")


def _key(report):
    """Everything a report says, except clingo's timings."""
    return (report.phase, report.outcomes, report.dislodged, report.disbanded, report.backups, report.sustain,
            report.dislodgers, report.after)


def test_numbered_facts_keep_their_phases_apart():
    place = (1, 2, "bur")
    facts = [("board", (0, 3)), ("fork", Timeline(1), Timeline(0), 2), ("dissolved", Timeline(1)),
             ("order", OrderId(0), (0, 3, "par"), "france"), ("ordered_move", OrderId(0), place, "none", 0),
             ("ordered_path", OrderId(0), 1, "nth"), ("new", OrderIds(0, 4)), ("recorded", ("moves", place), "true"),
             ("head", Game(0), (0, 3)), ("player", Game(0), "france"), ("out", Game(0), "italy"),
             ("one_of_several_orders",)]
    t, i = 2 * TIMELINE_STRIDE, 2 * ORDER_STRIDE
    assert fact_lines(facts, 2) == [
        f"board(b({t},3)).", f"fork({t + 1},{t},2).", f"dissolved({t + 1}).", f"order({i},p(b({t},3),par),france).",
        f"ordered_move({i},p(b({t + 1},2),bur),none,0).", f"ordered_path({i},1,nth).", f"new({i}..{i + 4}).",
        f"recorded(moves(p(b({t + 1},2),bur)),true).", f"head(2,b({t},3)).", "player(2,france).", "out(2,italy).",
        "one_of_several_orders."]
    assert render(facts) == (
        "board(b(0,3)).\nfork(1,0,2).\ndissolved(1).\norder(0,p(b(0,3),par),france).\n"
        "ordered_move(0,p(b(1,2),bur),none,0).\nordered_path(0,1,nth).\nnew(0..4).\n"
        "recorded(moves(p(b(1,2),bur)),true).\n"
        "head(0,b(0,3)).\nplayer(0,france).\nout(0,italy).\none_of_several_orders.\n")


def test_a_board_beyond_the_limits_is_refused_whatever_its_phase_number():
    for phase in (0, 3):
        with pytest.raises(InputError, match="beyond the limits"):
            fact_lines([("board", (TIMELINE_STRIDE, 0))], phase)
    # the limits are those of the phase's own numbers, not of the numbers it is given in a joint program
    assert fact_lines([("board", (TIMELINE_STRIDE - 1, 0))], 3) == [f"board(b({4 * TIMELINE_STRIDE - 1},0))."]


def test_answers_get_their_own_numbers_back():
    # atoms as the joint program shows them: every timeline of a phase's boards and its order ids shifted,
    # across the whole range of timelines and phases (a timeline of four digits, one, zeros inside)
    rng = random.Random(5)
    for k in [1, 2, 9, 10, 11, 99, 100, 101, MAX_BATCH - 1] + [rng.randrange(1, MAX_BATCH) for _ in range(40)]:
        tls = [0, 1, 9, 10, 100, 1000, 1001, 9999, rng.randrange(10_000), rng.randrange(10_000)]
        own = []
        for a, b in zip(tls, reversed(tls)):
            own += [f"moves(p(b({a},3),par))", f"owner(dislodged(p(b({a},12),bur)),b({b},0))",
                    f"order_result({rng.randrange(ORDER_STRIDE)},succeeds)", f"reason(7,bounced,p(b({a},1),mun),s(hold,1,1))",
                    "winner(0,france)", f"fork(b({b},{a}))", 'illegal(3,"needs the option open_convoys")',
                    f"reaches(12,b({a},2))"]
        # the joint program numbers every board of phase k up by k * TIMELINE_STRIDE
        joint = [re.sub(r"\bb\((\d+),", lambda m: f"b({int(m[1]) + k * TIMELINE_STRIDE},", text) for text in own]
        for n, text in enumerate(joint):
            name = text[:text.find("(")]
            if name in ("order_result", "reason", "illegal", "reaches"):
                first = text.find(",")
                joint[n] = f"{name}({int(text[len(name) + 1:first]) + k * ORDER_STRIDE}{text[first:]}"
            elif name == "winner":
                joint[n] = f"winner({k},france)"
        assert all(_owner(text) == k for text in joint)
        assert _unshift_all(joint, k) == own, k
    assert _unshift_all(["scope(b(3,1))"], 0) == ["scope(b(3,1))"]


@pytest.mark.slow
@pytest.mark.shares(SHARED)
def test_every_scenario_runs_the_same_in_lockstep():
    scenarios = every_scenario()
    assert len(scenarios) > 300
    together = every_scenario_checked()  # check_scenarios(scenarios), shared with other tests
    for scenario, run in zip(scenarios, together):
        alone = check_scenario(scenario)
        assert not isinstance(run, Exception), f"{scenario.path}: {run}"
        assert [_key(r) for r in run.reports] == [_key(r) for r in alone.reports], scenario.path
        assert run.problems == alone.problems, scenario.path


def _classic_phases(games: int, phases: int):
    out = []
    for g in range(games):
        rng = random.Random(f"fivedp-batch/{g}")
        gen = OrderGenerator(MAP, rng, 0.1)
        mv = opening(MAP)
        for _ in range(phases):
            orders = gen.orders(mv.heads[0], next_phase(mv))
            report = step(mv, orders)
            out.append((mv, orders, report))
            mv = report.after
    return out


@pytest.mark.slow
@pytest.mark.parametrize("what", ["classic", "multiverse", "options"])
def test_random_phases_give_the_same_reports_together(what):
    """Phases of random games, recorded one at a time, then adjudicated all together in one call."""
    if what == "classic":
        played = _classic_phases(6, 20)
    else:
        played = []
        for seed in (1, 2):
            if what == "multiverse":
                _play(f"fivedp-batch-multiverse/{seed}", steps=14, record=played)
            else:
                _play(f"fivedp-batch-options/{seed}", {"open_convoys": True, "jump_assists": True}, option_orders=True, steps=14, record=played)
    together = step_many([(mv, orders) for mv, orders, _ in played])
    assert len(together) == len(played)
    for n, ((mv, orders, alone), report) in enumerate(zip(played, together)):
        assert not isinstance(report, Exception), f"phase {n}: {report}"
        assert _key(report) == _key(alone), f"phase {n} ({alone.phase})"


def test_a_phase_with_bad_input_fails_alone():
    scenarios = [read_scenario(ROOT / "cases/datc/6.A.01.yaml"), read_scenario(ROOT / "cases/datc/6.C.03.yaml")]
    items = [(scenarios[0].start, {"England": ["F North Sea - Picardy"]}),
             (scenarios[1].start, {"Narnia": ["A Paris H"]}),
             (scenarios[1].start, {"England": ["F North Sea @@ Picardy"]}),
             (scenarios[1].start, scenarios[1].steps[0].orders)]
    reports = step_many(items)
    assert isinstance(reports[1], InputError) and "Narnia" in str(reports[1])
    assert isinstance(reports[2], OrderError)
    assert _key(reports[0]) == _key(step(*items[0]))
    assert _key(reports[3]) == _key(step(*items[3]))


def test_the_library_adjudicates_many_games_as_it_adjudicates_one():
    import fivedp_asp as fd

    opening_game = fd.new_game()
    moved = fd.submit_orders(opening_game, ["A Mun - Ruh", "F Kie - Den"], power="Germany").game
    scenario = fd.load_scenario(ROOT / "cases/datc/6.A.01.yaml")
    games = [opening_game, moved, fd.game_from_scenario(ROOT / "cases/datc/6.A.01.yaml")]
    many = fd.adjudicate_many(games)
    for game, result in zip(games, many):
        one_game, one_report = fd.adjudicate(game)
        many_game, many_report = result
        assert fd.to_json(many_game) == fd.to_json(one_game)
        assert _key(many_report) == _key(one_report)
    assert scenario.id == "DATC 6.A.1"
    runs = fd.run_scenarios([ROOT / "cases/datc/6.A.01.yaml", ROOT / "nowhere.yaml"])
    assert runs[0].passed and isinstance(runs[1], InputError) and "nowhere.yaml" in str(runs[1])


def test_check_reports_the_same_with_worker_processes(tmp_path, capsys):
    """`fivedp check -j 2`: the same outcomes, in the same order, as one process; a failing scenario, a bad
    file and passing scenarios in one folder."""
    import json
    import shutil

    from fivedp_asp import cli

    for name in ("6.A.01", "6.C.03", "6.F.24", "6.G.11"):
        shutil.copy(ROOT / f"cases/datc/{name}.yaml", tmp_path / f"{name}.yaml")
    wrong = (ROOT / "cases/datc/6.A.01.yaml").read_text(encoding="utf-8").replace("invalid", "succeeds", 1)
    assert wrong != (ROOT / "cases/datc/6.A.01.yaml").read_text(encoding="utf-8")
    (tmp_path / "6.A.01-wrong.yaml").write_text(wrong, encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("id: x\nsteps: [\n", encoding="utf-8")
    outputs = []
    for jobs in ("1", "2"):
        status = cli.main(["check", str(tmp_path), "--json", "-j", jobs])
        outputs.append((status, json.loads(capsys.readouterr().out)))
    assert outputs[0] == outputs[1]
    status, document = outputs[0]
    assert status == 2
    by_path = {Path(c["path"]).name: c for c in document["cases"]}
    assert by_path["broken.yaml"]["error"]["kind"] == "input"
    assert not by_path["6.A.01-wrong.yaml"]["passed"] and by_path["6.A.01-wrong.yaml"]["problems"]
    assert all(by_path[f"{n}.yaml"]["passed"] for n in ("6.A.01", "6.C.03", "6.F.24", "6.G.11"))


@pytest.mark.slow
def test_phases_waiting_together_share_one_program(monkeypatch):
    """The point of batching: twenty classic phases of one kind ask the solver once per program they
    need (the phase's own, the retreat options after a movement, the victory check), not once each."""
    from fivedp_asp.engine import batch

    played = [p for p in _classic_phases(4, 12) if p[2].phase == "movement"][:20]
    assert len(played) == 20
    calls: list[tuple[str, ...]] = []
    solve = batch.solve_decisions

    def counted(programs, *args, **kwargs):
        calls.append(programs)
        return solve(programs, *args, **kwargs)

    monkeypatch.setattr(batch, "solve_decisions", counted)
    reports = step_many([(mv, orders) for mv, orders, _ in played])
    assert [_key(r) for r in reports] == [_key(alone) for _, _, alone in played]
    alone_again = sum(1 for r in reports if r.backups)  # phases a backup rule settled are solved again alone
    assert len(calls) <= 3 + alone_again, calls


@pytest.mark.slow
def test_waives_choose_among_their_own_phase_boards_together():
    """A waive goes to its power's first board with builds: in a joint program, a board of its own phase
    (``waive_on/2``), never of a phase numbered before it. Adjustment phases of random classic and
    multiversal games, each power waiving once or twice, adjudicated alone and all together."""
    played = [(mv, orders) for mv, orders, report in _classic_phases(4, 20) if report.phase == "adjustment"]
    record: list = []
    for seed in (1, 2):
        _play(f"fivedp-batch-multiverse/{seed}", steps=14, record=record)
    played += [(mv, orders) for mv, orders, report in record if report.phase == "adjustment"]
    waiving = []
    for n, (mv, orders) in enumerate(played):
        powers = sorted({b.centers[p] for b in mv.heads for p in b.centers} | set(orders))
        waiving.append((mv, {p: list(orders.get(p, [])) + ["Waive"] * (1 + (n + k) % 2)
                             for k, p in enumerate(powers)}))
    assert len(waiving) >= 6 and any(len(mv.heads) > 1 for mv, _ in waiving)
    together = step_many(waiving)
    for n, ((mv, orders), report) in enumerate(zip(waiving, together)):
        assert not isinstance(report, Exception), f"phase {n}: {report}"
        assert _key(report) == _key(step(mv, orders)), f"phase {n}"
    assert any(o.result == "succeeds" and o.text.lower().startswith("waive")
               for r in together for o in r.outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("copies", [3, 20])
def test_open_phases_are_settled_alone_however_many(copies, monkeypatch):
    """Circular movement (DATC 6.C.1) has two models. A few such phases in one program are found by
    the atoms that hold in some models only; many would take one model read whole for each, so then
    the backup rules settle the joint program, as one phase alone is settled. Either way each open
    phase is answered again alone, and every report is the one it has alone."""
    from fivedp_asp.solver import backup, calls

    scenario = read_scenario(ROOT / "cases" / "datc" / "6.C.01.yaml")
    plain = read_scenario(ROOT / "cases" / "datc" / "6.A.11.yaml")  # a bounce: one model
    items = [(scenario.start, scenario.steps[0].orders)] * copies + [(plain.start, plain.steps[0].orders)]
    alone = [step(mv, orders) for mv, orders in items]
    runs: list[int] = []
    settle = backup._Driver.run

    def counted(self, found=None):
        runs.append(self.parts.orders)
        return settle(self, found)

    monkeypatch.setattr(backup._Driver, "run", counted)
    together = step_many(items)
    assert [_key(r) for r in together] == [_key(r) for r in alone]
    assert all(r.backups for r in together[:copies]) and not together[-1].backups
    # the joint program (more orders than one phase's three) is settled only when too many phases are open in it
    settled_jointly = [n for n in runs if n > 3]
    assert len(runs) - len(settled_jointly) == copies
    assert len(settled_jointly) == (1 if copies > calls._CONSEQUENCE_MODELS else 0)
