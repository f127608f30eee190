"""``fivedp compare``: the reference adapter, the random order generator, lockstep games, classification."""

import random
from pathlib import Path

import pytest

from fivedp_asp.files.scenarios import read_scenario, check_scenario
from fivedp_asp.cli import main
from fivedp_asp.model.geography import Geography
from fivedp_asp.lab.compare.judge import PhaseResult, parse_given, play_phase
from fivedp_asp.lab.compare.lockstep import opening, play_game
from fivedp_asp.lab.compare.minimize import Repro, shrink, write_scenario
from fivedp_asp.game.random_orders import OrderGenerator
from fivedp_asp.lab.compare.reference import Position, ReferenceAdjudicator, get_reference
from fivedp_asp.errors import InputError
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import ADJUSTMENT, MOVEMENT, RETREAT, Retreat, Unit, make_board
from fivedp_asp.model.notation import parse_order
from fivedp_asp.engine.step import next_phase, step
from fivedp_asp.lab.compare.judge import ours_phase, single_board

DATC = Path(__file__).parent.parent.parent.parent / "cases" / "datc"
GM = load_map("standard")
GEO = Geography(GM)


def board(units, centers=None, turn=0, **kw):
    us = []
    for power, texts in units.items():
        for text in texts:
            kind, loc = text.split()
            us.append(Unit("army" if kind == "A" else "fleet", power, loc))
    return make_board(0, turn, us, centers or {}, **kw)


@pytest.fixture(scope="module")
def diplomacy():
    pytest.importorskip("diplomacy")
    return get_reference("diplomacy", GM)


def adjudicate(ref, b, orders):
    given = parse_given(orders, GM)
    ref.load(Position.of(b, GM, GEO))
    return given, ref.adjudicate(given)


# -- the diplomacy adapter -------------------------------------------------------------------------


def test_adapter_movement_results(diplomacy):
    b = opening(GM).heads[0]
    given, res = adjudicate(diplomacy, b, {
        "France": ["A Par - Bur", "A Mar S A Par - Bur", "F Bre - Mao"],
        "Germany": ["A Mun - Bur", "A Ber - Mun"],
        "Italy": ["A Ven - Mun"],  # not adjacent: refused
    })
    assert dict(zip((g.text for g in given), res.results)) == {
        "A Par - Bur": "succeeds", "A Mar S A Par - Bur": "succeeds", "F Bre - Mao": "succeeds",
        "A Mun - Bur": "fails", "A Ber - Mun": "fails", "A Ven - Mun": "invalid",
    }
    assert res.after.phase == MOVEMENT and res.after.turn == 1
    assert Unit("army", "France", "bur") in res.after.units
    assert not res.dislodged


def test_adapter_support_naming_another_coast_is_void(diplomacy):
    # the reference voids a support whose coast differs from the move's (DATC 6.B.9): it fails
    b = board({"England": ["F mao"], "France": ["A gas", "A mar"]})
    given, res = adjudicate(diplomacy, b, {
        "France": ["A Gas S F Mao - Spa/sc", "A Mar - Spa"],
        "England": ["F Mao - Spa/nc"],
    })
    assert dict(zip((g.text for g in given), res.results)) == {
        "A Gas S F Mao - Spa/sc": "fails", "A Mar - Spa": "fails", "F Mao - Spa/nc": "fails",
    }


def test_adapter_cut_support_and_dislodgement(diplomacy):
    b = board({"Germany": ["A mun", "A ber"], "Austria": ["A boh", "A tyr"], "Russia": ["A sil"]})
    given, res = adjudicate(diplomacy, b, {
        "Austria": ["A Boh - Mun", "A Tyr S A Boh - Mun"],
        "Germany": ["A Mun H", "A Ber S A Mun"],
        "Russia": ["A Sil - Ber"],
    })
    got = dict(zip((g.text for g in given), res.results))
    assert got["A Ber S A Mun"] == "fails"  # cut by Silesia
    assert got["A Boh - Mun"] == "succeeds" and got["A Mun H"] == "fails"
    assert res.dislodged == {Unit("army", "Germany", "mun")}
    assert res.after.phase == RETREAT
    assert res.after.retreats[Unit("army", "Germany", "mun")] == {"bur", "kie", "ruh"}


def test_adapter_multi_route_convoy(diplomacy):
    """DATC 6.F.19: both fleets carry the army, though the package dropped one route on the way."""
    scenario = read_scenario(DATC / "6.F.19.yaml")
    given, res = adjudicate(diplomacy, scenario.start.heads[0], scenario.steps[0].orders)
    expected = scenario.steps[0].expect["results"]
    assert {g.text: r for g, r in zip(given, res.results)} == dict(expected)


def test_adapter_retreats(diplomacy):
    b = board({"Germany": ["A kie"], "France": ["A ruh"]}, turn=1,
              retreats=(Retreat(Unit("army", "Germany", "mun"), "boh", frozenset({"sil"})),))
    given, res = adjudicate(diplomacy, b, {"Germany": ["A Mun - Sil", "A Mun - Bur"]})
    # Silesia saw a standoff: refused; then Burgundy is a legal retreat
    assert res.results == ("invalid", "succeeds")
    assert Unit("army", "Germany", "bur") in res.after.units


def test_adapter_adjustments(diplomacy):
    b = board({"Russia": ["A war"], "Germany": ["A kie", "A ber", "F hel"]}, turn=2,
              centers={"war": "Russia", "mos": "Russia", "stp": "Russia", "kie": "Germany", "ber": "Germany"},
              adjustment_due=True)
    given, res = adjudicate(diplomacy, b, {
        "Russia": ["Build F Stp/nc", "Build A Mos", "Build A War"],  # Warsaw is occupied
        "Germany": [],
    })
    assert res.results == ("succeeds", "succeeds", "invalid")
    assert res.after.phase == MOVEMENT and res.after.turn == 2
    # Germany removed one unit in civil disorder
    assert len([u for u in res.after.units if u.power == "Germany"]) == 2


def test_missing_package_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kw):
        if name == "diplomacy" or name.startswith("diplomacy."):
            raise ImportError(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(InputError, match=r"fivedp-asp\[reference\]"):
        get_reference("diplomacy", GM)


def test_unknown_reference():
    with pytest.raises(InputError, match="unknown reference"):
        get_reference("nonesuch", GM)


# -- the random order generator ---------------------------------------------------------------------


def test_generator_is_deterministic_and_parses():
    b = opening(GM).heads[0]
    a = OrderGenerator(GM, random.Random(7)).orders(b, MOVEMENT)
    c = OrderGenerator(GM, random.Random(7)).orders(b, MOVEMENT)
    assert a == c
    assert OrderGenerator(GM, random.Random(8)).orders(b, MOVEMENT) != a
    for lines in a.values():
        for line in lines:
            parse_order(line, GM)
    assert sum(len(v) for v in a.values()) >= 22  # every unit has an order


@pytest.mark.slow
def test_generator_orders_are_mostly_legal():
    rng = random.Random(3)
    gen = OrderGenerator(GM, rng, illegal_share=0.05)
    mv = opening(GM)
    counts = {"invalid": 0, "all": 0, "kinds": set()}
    for _ in range(14):
        phase = next_phase(mv)
        counts["kinds"].add(phase)
        report = step(mv, gen.orders(mv.heads[0], phase))
        for o in report.outcomes:
            counts["all"] += 1
            counts["invalid"] += o.result == "invalid"
        mv = report.after
    share = counts["invalid"] / counts["all"]
    assert 0 < share < 0.15, share
    assert counts["kinds"] >= {MOVEMENT, ADJUSTMENT}


def test_generator_plans_convoys():
    b = board({"England": ["A lon", "F nth", "F eng"]})
    texts = set()
    for seed in range(30):
        for lines in OrderGenerator(GM, random.Random(seed)).orders(b, MOVEMENT).values():
            texts.update(lines)
    assert any(" C A Lon - " in t for t in texts)
    assert any(t.startswith("A Lon - ") and t.split(" - ")[1].split()[0] not in ("Wal", "Yor") for t in texts)


# -- classification and lockstep ---------------------------------------------------------------------


@pytest.mark.parametrize("case_id, cases", [("6.B.09", {"6.B.9"}), ("6.G.08", {"6.G.8"}),
                                            ("6.J.03", {"6.J.11"}), ("6.F.21", {"6.F.21"})])
def test_documented_deviations_are_excused(diplomacy, case_id, cases):
    scenario = read_scenario(DATC / f"{case_id}.yaml")
    mv = scenario.start
    run = play_phase(mv, parse_given(scenario.steps[0].orders, GM), diplomacy, GEO, load=True)
    assert run.verdict.differences
    assert set(run.verdict.excused_by) == cases


class Contrary(ReferenceAdjudicator):
    """Our own engine, except that every successful move into Burgundy is reported as failing."""

    name = "contrary"

    def load(self, position):
        self.board = make_board(0, position.turn, position.units, position.centers,
                                adjustment_due=position.phase == ADJUSTMENT)

    def adjudicate(self, orders):
        mv = single_board(GM, self.board)
        report, res = ours_phase(mv, list(orders), GEO)
        flipped = tuple("fails" if g.text.endswith("- Bur") and r == "succeeds" else r
                        for g, r in zip(orders, res.results))
        self.board = report.after.heads[0]
        return PhaseResult(flipped, res.dislodged, res.after, res.notes)


@pytest.mark.slow
def test_real_disagreement_is_shrunk_and_written(tmp_path):
    b = opening(GM).heads[0]
    given = parse_given({"France": ["A Par - Bur", "A Mar S A Par - Bur", "F Bre - Mao"],
                         "Germany": ["A Mun - Ruh", "F Kie - Den"], "Italy": ["A Ven - Tyr"]}, GM)
    ref = Contrary()
    run = play_phase(single_board(GM, b), given, ref, GEO, load=True)
    assert run.verdict.real
    small = shrink(Repro(b, given), ref, GEO, focus=frozenset(run.verdict.differences))
    assert [g.text for g in small.given] == ["A Par - Bur"]
    assert {u.location for u in small.board.units.values()} == {"par"}
    path = tmp_path / "x.yaml"
    runs, problems = write_scenario(path, small, ref, GEO, scenario_id="t", origin="a test")
    assert not problems
    text = path.read_text()
    assert "A Par - Bur: fivedp succeeds; contrary fails" in text
    assert check_scenario(read_scenario(path)).passed


def test_tiny_lockstep_game(diplomacy, tmp_path):
    tally = play_game(1, 1, diplomacy, GM, years=2, out=tmp_path)
    assert tally.phases[MOVEMENT] == 4 and tally.phases[ADJUSTMENT] >= 1
    assert tally.agree + sum(tally.excused.values()) == tally.compared
    assert not tally.findings


def test_cli_compare(diplomacy, tmp_path, capsys):
    assert main(["compare", "--reference", "diplomacy", str(DATC / "6.A.01.yaml"), str(DATC / "6.B.09.yaml")]) == 0
    out = capsys.readouterr().out
    assert "DIFF DATC 6.B.9 step 1 (S1901M) [excused: 6.B.9]" in out
    assert "real disagreements: 0" in out
    assert main(["compare", "--games", "1", "--years", "1", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "game 1/1:" in captured.err and "phases compared:" in captured.out
    assert main(["compare", "--games", "1", str(DATC)]) == 2
    assert main(["compare"]) == 2
    assert main(["compare", "--reference", "nonesuch", "--games", "1"]) == 2


# -- each reference's deviations are its own ---------------------------------------------------------


def test_deviations_come_from_the_reference_alone(diplomacy):
    """The judge excuses by the reference's own list only: the same adapter declaring no deviation
    has the 6.B.9 difference its list excuses reported as real, and the excuse names the entry the
    reference gives for the case."""
    scenario = read_scenario(DATC / "6.B.09.yaml")
    given = parse_given(scenario.steps[0].orders, GM)

    class Undeclared(type(diplomacy)):
        emulators = ()
        deviations = {}
        found_by_compare = frozenset()

    run = play_phase(scenario.start, given, Undeclared(GM), GEO, load=True)
    assert run.verdict.real and not run.verdict.excused_by

    class Renamed(type(diplomacy)):
        deviations = {**diplomacy.deviations, "6.B.9": "the coast of a support is read as the move's"}

    run = play_phase(scenario.start, given, Renamed(GM), GEO, load=True)
    assert run.verdict.excused_by == ("6.B.9",)
    assert run.verdict.explanation == "the coast of a support is read as the move's"


def test_comparison_modules_import_one_way():
    """No circle among the comparison's modules, imports inside functions included: the judge imports
    no reference's deviations or adapter, a deviation module no adapter, the registry no adapter."""
    import ast

    import fivedp_asp.lab.compare

    folder = Path(fivedp_asp.lab.compare.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
        graph[path.stem] = deps
    assert "diplomacy_deviations" in graph and "pydip_deviations" in graph
    assert not {d for d in graph["judge"] if d.endswith(("_deviations", "_ref"))}
    assert not {d for d in graph["reference"] if d.endswith(("_deviations", "_ref"))}
    for name in ("diplomacy_deviations", "pydip_deviations"):
        assert not {d for d in graph[name] if d.endswith("_ref")}, name

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join(path + (name,))
        for dep in graph.get(name, ()):
            visit(dep, path + (name,))

    for name in graph:
        visit(name, ())


# -- one geography -------------------------------------------------------------------------------------


def test_a_unit_reaches_a_province_when_it_steps_into_some_coast_of_it():
    """``Geography.can_reach`` (the map's step provinces) against the neighbours themselves."""
    for (kind, location), steps in GM.neighbours.items():
        for province in GM.provinces:
            assert GEO.can_reach(kind, location, province) == any(loc.split("/")[0] == province for loc in steps)
    assert GEO.can_reach("fleet", "mao", "spa") and not GEO.can_reach("army", "mun", "spa")
    assert not GEO.can_reach("army", "nowhere", "mun")


def test_map_convoy_geography():
    """The seas next to a coast, a sea's shore and chains of seas, as the map answers them for both the
    comparison and the engine's candidate orders."""
    assert GM.seas_next_to("spa") == {"mao", "wes", "lyo"}  # both coasts
    assert GM.seas_next_to("bul") == {"aeg", "bla"}
    assert GM.seas_next_to("mun") == frozenset() and GM.seas_next_to("nth") == frozenset()
    assert GM.adjacent_seas("nth") == {"eng", "hel", "nwg", "ska"}
    assert GM.shore(["nth"]) == {"bel", "den", "edi", "hol", "lon", "nwy", "yor"}
    assert GM.shore(["ska", "hel"]) == {"den", "nwy", "swe", "kie", "hol"}
    assert GM.sea_region({"nth"}, {"eng", "mao", "bal", "ska"}) == {"nth", "eng", "mao", "ska"}
    assert GM.sea_region({"nth"}, ()) == {"nth"}
    assert GEO.seas_reached(["nth", "eng", "mao", "bal"], "lon") == {"nth", "eng", "mao"}
    assert GEO.seas_reached(["mao", "bal"], "lon") == set()  # no fleet next to London
    assert GEO.steps("fleet", "spa/nc") == ("gas", "mao", "por")
    assert GEO.convoy_routes("lon", ["nth", "eng"])["nwy"] == ("nth",)


def test_cli_compare_cites_the_rule_choice_it_excuses(diplomacy, capsys):
    """Our reading of 4.B.4 differs from the reference's on purpose; the summary says where the rule is."""
    assert main(["compare", "--reference", "diplomacy", str(DATC / "6.B.07.yaml")]) == 0
    out = capsys.readouterr().out
    assert "DIFF DATC 6.B.7 step 1 (S1901M) [excused: 4.B.4]" in out
    assert ("    4.B.4       1  our rule choice: a support omitting an ambiguous coast is illegal "
            "(docs/rules.md §1; DATC 6.B.7, 6.B.15)\n") in out


# -- multiverse scenarios are not compared ---------------------------------------------------------


def test_multiverse_scenarios_are_skipped_and_counted(diplomacy, capsys):
    root = Path(__file__).parent.parent.parent.parent / "cases"
    code = main(["compare", "--reference", "diplomacy", str(root / "mdatc" / "3.A.2.yaml"),
                 str(root / "multiverse" / "4.37-implicit-main-timeline-off.yaml"), str(DATC / "6.A.01.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert "skip MDATC 3.A.2: a multiverse scenario (step 2: order" in out
    assert "skip MV 37: a multiverse scenario (option implicit_main_timeline is false" in out
    assert "3 scenarios (2 skipped: multiverse or not classic)" in out
    assert "real disagreements: 0" in out


def test_only_multiverse_scenarios_is_refused(diplomacy, capsys):
    code = main(["compare", "--reference", "diplomacy", str(Path(__file__).parent.parent.parent.parent / "cases" / "multiverse")])
    captured = capsys.readouterr()
    assert code == 2
    assert "nothing to compare" in captured.err
    assert "real disagreements: 0" in captured.out
