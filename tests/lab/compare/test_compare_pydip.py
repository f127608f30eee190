"""``fivedp compare --reference pydip`` and triangulation with two references (skipped without pydip)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fivedp_asp.cli import main
from fivedp_asp.model.geography import Geography
from fivedp_asp.lab.compare.reference import get_reference
from fivedp_asp.lab.compare.scenarios import compare_scenario
from fivedp_asp.model.map import load_map

ROOT = Path(__file__).resolve().parent.parent.parent.parent
DATC = ROOT / "cases" / "datc"
GM = load_map("standard")


@pytest.fixture(scope="module")
def pydip():
    pytest.importorskip("pydip")
    return get_reference("pydip", GM)


def test_every_place_maps_both_ways_and_fleet_steps_agree_with_our_map(pydip):
    geo = Geography(GM)
    assert set(pydip.land) == set(GM.provinces) - {"swi"}  # pydip has no Switzerland (impassable)
    # pydip's coast territories are ours, checked by where a fleet there can go: pydip's adjacency of
    # each coast (and sea), read back in our locations, is our map's fleet steps
    for loc, name in {**pydip.coast, **{p: n for p, n in pydip.land.items() if geo.is_sea(p)}}.items():
        theirs = {pydip.ours[t] for t in pydip.pmap.adjacency[name] if t in pydip.ours
                  and (t.endswith(" Coast") or not GM.provinces[pydip.ours[t]].coasts)}
        assert theirs == set(geo.steps("fleet", loc)), loc
    assert pydip.coast["bul/ec"] == "Bulgaria North Coast" and pydip.coast["stp/sc"] == "St. Petersburg South Coast"


def _datc(pydip, name):
    return compare_scenario(DATC / name, pydip).steps[0].run.verdict


def test_datc_measured_deviations(pydip):
    # DATC 6.A.1 (a move to a non-adjacent province is illegal): both agree
    assert _datc(pydip, "6.A.01.yaml").agree
    # 6.J.3: pydip removes alphabetically (Livonia before Prussia); our engine by distance (DATC 4.D.8)
    assert _datc(pydip, "6.J.03.yaml").excused_by == ("4.D.8",)
    # 6.D.32: an army ordered to move with no convoy ordered counts as moving to pydip (DATC 4.E.1)
    assert _datc(pydip, "6.D.32.yaml").excused_by == ("4.E.1",)
    # 6.F.16 (Pandin's paradox) pydip gets wrong, and nothing emulates it: a real disagreement
    assert _datc(pydip, "6.F.16.yaml").real


@pytest.mark.slow
def test_compare_datc_with_pydip_reports_exactly_the_documented_unemulated_cases(pydip, capsys):
    status = main(["compare", "--reference", "pydip", str(DATC)])
    out = capsys.readouterr().out
    assert status == 1
    real = re.search(r"real disagreements: \d+ \((.*)\)", out)[1]
    found = sorted(re.findall(r"DATC (6\.\w\.\d+) step", real))
    doc = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    listed = re.search(r"<!-- pydip-real -->(.*?)<!-- /pydip-real -->", doc, re.S)[1]
    assert found == sorted(re.findall(r"6\.\w\.\d+", listed))
    excused = set(re.findall(r"^    (\d\.\w\.\d+) +\d+", out, re.M))
    assert excused == {"4.B.4", "4.D.8", "4.E.1", "6.A.5", "6.D.15", "6.D.31"}


def test_triangulation_names_the_side_and_the_deviation(pydip, capsys):
    status = main(["compare", "--reference", "diplomacy", "--reference", "pydip",
                   str(DATC / "6.G.08.yaml"), str(DATC / "6.J.03.yaml"), str(DATC / "6.A.01.yaml")])
    out = capsys.readouterr().out
    if "diplomacy" not in out:
        pytest.skip("the diplomacy package is not installed")
    assert status == 0
    # 6.G.8: the diplomacy package takes the land route when the convoy is disrupted; pydip does not
    assert re.search(r"SPLIT DATC 6\.G\.8 step 1 \(S1901M\): fivedp agrees with pydip", out)
    assert "diplomacy 1.1.2 deviates, known: 6.G.8" in out
    # 6.J.3: both remove other units than the DATC's rule, each by its own known deviation
    assert re.search(r"SPLIT DATC 6\.J\.3 .*each by a known deviation", out)
    assert "all agree: 1" in out


def test_random_games_with_pydip_run_and_classify_every_difference(pydip, capsys, tmp_path):
    status = main(["compare", "--reference", "pydip", "--games", "2", "--years", "3", "--seed", "5",
                   "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status in (0, 1)
    phases = int(re.search(r"phases compared: (\d+)", out)[1])
    agree = int(re.search(r"agreements: (\d+)", out)[1])
    excused = int(re.search(r"excused differences: (\d+) phases", out)[1])
    real = int(re.search(r"real disagreements: (\d+)", out)[1])
    assert phases > 10 and agree + excused + real >= phases - real
    # every real disagreement is written as a scenario
    assert len(list(tmp_path.glob("*.yaml"))) == len(re.findall(r"^    \S+\.yaml  \[", out, re.M))


@pytest.mark.slow
def test_triangulation_over_random_games(pydip, capsys):
    pytest.importorskip("diplomacy")
    status = main(["compare", "--triangulate", "--games", "2", "--years", "3", "--seed", "1"])
    out = capsys.readouterr().out
    phases = int(re.search(r"(\d+) phases compared by all", out)[1])
    agree = int(re.search(r"all agree: (\d+)", out)[1])
    splits = re.findall(r"^SPLIT game \d phase \d+ \(\w+\): (.*)$", out, re.M)
    assert phases > 10 and agree + len(splits) == phases
    assert status == (1 if "REAL" in out else 0)
