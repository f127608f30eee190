"""Power names (docs/limits.md, "Power names").

A map's power names are free text, markup included (tests/hostile.py draws such names), but each is
one line of text, and no two of them (nor their aliases) are the same name ignoring case, dots,
hyphens, underscores and spacing: that is how orders and scenarios look a power up, and the solver
spells a power in lower case (``solver/terms.py``). Before, a map naming ``Austria`` and ``austria``
had them merged in the solver (a move between the two "would dislodge its own unit"), and a backslash
or a line break in a name ended in exit status 3.

Every name a map may have must then work end to end: the standard map with its powers renamed to the
strangest allowed names plays every scenario of cases/ (renamed alike) exactly as the standard map
does, and a game on it is played through the command line.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from fivedp_asp.cli import main
from fivedp_asp.errors import InputError
from fivedp_asp.files.scenarios import check_scenarios, find_scenarios, read_scenario
from fivedp_asp.yaml_lines import plain
from fivedp_asp.model.map import load_map, parse_map
from fivedp_asp.solver import terms

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "fivedp_asp" / "maps"
STANDARD = load_map("standard")

STRANGE = {
    "Austria": "Back\\slash",                    # a backslash, which a solver string escapes
    "England": "Eng</title><script>document.title='PW'+'NED'</script><title>",   # markup
    "France": 'Quote"d Power',                    # a double quote ...
    "Germany": "Quoted Power",                    # ... once dropped: both were spelled "quoted power"
    "Italy": "Not",                               # a keyword of the solver's language, in lower case
    "Russia": "Österreich-Ungarn",                # not ASCII
    "Turkey": 'Tur\\"key\\',                      # a backslash before a quote, and at the end
}
STRANGE_POWERS = {name: {} for name in STRANGE.values()}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def standard_data() -> dict:
    return plain(yaml.safe_load((MAPS / "standard.yaml").read_text(encoding="utf-8")))


def renamed_map(folder: Path, names: dict[str, str]) -> Path:
    """The standard map (and its drawing) with its powers renamed."""
    data = standard_data()
    data["name"] = "renamed"
    data["powers"] = {names.get(p, p): d for p, d in data["powers"].items()}
    for prov in data["provinces"].values():
        if prov.get("home"):
            prov["home"] = names.get(prov["home"], prov["home"])
    data["start"] = {names.get(p, p): units for p, units in data["start"].items()}
    shutil.copy(MAPS / "standard-geometry.yaml", folder / "standard-geometry.yaml")
    path = folder / "renamed.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _power(name: Any, names: dict[str, str]) -> Any:
    found = STANDARD.power(str(name))
    return names[found] if found in names else name


def _by_power(value: Any, names: dict[str, str]) -> Any:
    return {_power(k, names): v for k, v in value.items()} if isinstance(value, dict) else value


def renamed_scenario(scenario: dict, map_file: Path, names: dict[str, str]) -> dict:
    """A scenario with every power it names renamed, on the renamed map."""
    scenario = dict(scenario, map=str(map_file))
    start = dict(scenario.get("start") or {})
    for key in ("units", "centers", "dislodged"):
        if key in start:
            start[key] = _by_power(start[key], names)
    if "boards" in start:  # a start of several boards: each board's powers, its recorded orders' too
        start["boards"] = {board: {k: _by_power(v, names) if k in ("units", "centers", "dislodged", "orders") else v
                                   for k, v in (data or {}).items()}
                           for board, data in start["boards"].items()}
    scenario["start"] = start
    steps = []
    for step in scenario["steps"]:
        step = dict(step)
        if "orders" in step:
            step["orders"] = _by_power(step["orders"], names)
        expect = dict(step.get("expect") or {})
        for key in ("boards", "retreats", "centers"):
            if key in expect:
                expect[key] = {board: _by_power(powers, names) for board, powers in (expect[key] or {}).items()}
        if expect.get("winner") not in (None, "none"):
            expect["winner"] = _power(expect["winner"], names)
        if "expect" in step:
            step["expect"] = expect
        steps.append(step)
    scenario["steps"] = steps
    return scenario


# -- refused at load ------------------------------------------------------------------------------------


def map_with_powers(folder: Path, powers: dict, home: dict[str, str] | None = None) -> Path:
    data = {"name": "tiny", "powers": powers,
            "provinces": {"vie": {"name": "Vienna", "type": "land", "center": True},
                          "tyr": {"name": "Tyrolia", "type": "land"},
                          "mun": {"name": "Munich", "type": "land", "center": True}},
            "army": ["vie-tyr", "tyr-mun", "vie-mun"], "fleet": []}
    for prov, power in (home or {}).items():
        data["provinces"][prov]["home"] = power
    path = folder / "map.yaml"
    # every character not ASCII escaped: YAML reads a raw U+0085 or U+2028 inside quotes as a line break
    path.write_text(yaml.safe_dump(data, allow_unicode=False, sort_keys=False), encoding="utf-8")
    return path


def scenario_on(folder: Path, map_file: Path, units: dict, orders: dict) -> Path:
    path = folder / "case.yaml"
    path.write_text(yaml.safe_dump({"id": "powers", "map": str(map_file), "start": {"units": units},
                                    "steps": [{"orders": orders}]}, allow_unicode=True, sort_keys=False),
                    encoding="utf-8")
    return path


def test_two_powers_equal_ignoring_case_are_refused(tmp_path):
    """Before: the two were one power in the solver; A Mun - Tyr 'fails (would dislodge its own unit A Tyr)'."""
    map_file = map_with_powers(tmp_path, {"Austria": {}, "austria": {}}, {"vie": "Austria", "mun": "austria"})
    scenario = scenario_on(tmp_path, map_file, {"Austria": ["A Tyr"], "austria": ["A Mun", "A Vie"]},
                   {"austria": ["A Mun - Tyr", "A Vie S A Mun - Tyr"]})
    for argv in (["adjudicate", str(scenario)], ["check", str(scenario)], ["game", "new", str(tmp_path / "g.yaml"),
                                                                    "--from", str(scenario)]):
        code, out, err = run(*argv)
        text = out + err
        assert code == 2 and "Traceback" not in text, (argv, text)
        assert (f"{map_file}:4: power names 'Austria' and 'austria' name the same power (power names are "
                "compared ignoring case, dots, hyphens, underscores and spacing)") in text, text
    assert not (tmp_path / "g.yaml").exists()


@pytest.mark.parametrize("powers, problem", [
    ({"Aus-tria": {}, "aus tria": {}}, "power names 'Aus-tria' and 'aus tria' name the same power"),
    ({"Austria": {}, "England": {"aliases": ["AUSTRIA"]}},
     "the alias 'AUSTRIA' of England names another power, Austria"),
    ({"Austria": {"adjective": "Imperial"}, "England": {"aliases": ["imperial"]}},
     "the alias 'imperial' of England names another power, Austria"),
])
def test_names_and_aliases_that_name_another_power_are_refused(tmp_path, powers, problem):
    with pytest.raises(InputError) as info:
        load_map(str(map_with_powers(tmp_path, powers)))
    assert problem in str(info.value)


@pytest.mark.parametrize("name, shown", [
    ("Aus\ntria", "U+000A"), ("Aus\0tria", "U+0000"), ("Aus\ttria", "U+0009"), ("Aus\x7ftria", "U+007F"),
    ("Aus\x85tria", "U+0085"), ("Aus\u2028tria", "U+2028"), ("Aus\x1btria", "U+001B"),
])
def test_a_power_name_with_a_control_or_line_breaking_character_is_refused(tmp_path, name, shown):
    """Before: a line break in a power name reached the solver and ended in exit status 3."""
    map_file = map_with_powers(tmp_path, {name: {}, "England": {}}, {"vie": name})
    scenario = scenario_on(tmp_path, map_file, {name: ["A Tyr"]}, {name: ["A Tyr - Mun"]})
    code, out, err = run("adjudicate", str(scenario))
    assert code == 2 and "Traceback" not in err, (code, out, err)
    assert f"{map_file}:3: power name {name!r} holds the character {shown}" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name, problem", [
    ("Aus: tria", "holds ':', which ends a power's name in an order line"),
    ("#1", "begins with '#', which makes an order line written with it a comment"),
    ("a", "is a unit's kind in orders (A, Army, F, Fleet)"),
    ("FLEET", "is a unit's kind in orders (A, Army, F, Fleet)"),
])
def test_a_power_name_that_an_order_line_cannot_carry_is_refused(tmp_path, name, problem):
    """``Power: order`` lines (``game orders``, order files) split at the first colon and take a line
    beginning with # for a comment: such a name could not give orders there. A power named A would be
    read as the nationality of ``A Vienna`` (before: "say whether it is an army (A) or a fleet (F)")."""
    with pytest.raises(InputError) as info:
        load_map(str(map_with_powers(tmp_path, {"England": {}, name: {}})))
    assert f":4: power name {name!r} {problem}" in str(info.value)


@pytest.mark.parametrize("name", ["", " ", "-", "._"])
def test_a_power_name_without_a_letter_or_digit_is_refused(tmp_path, name):
    with pytest.raises(InputError) as info:
        load_map(str(map_with_powers(tmp_path, {name: {}, "England": {}})))
    assert f"power name {name!r} names nothing: a power name holds a letter or a digit" in str(info.value)


def test_the_shipped_map_and_the_hostile_names_load():
    """The checks refuse nothing a real map writes, nor the markup names the picture tests draw."""
    from tests.hostile import POWER_1, POWER_2

    assert len(STANDARD.powers) == 7
    data = standard_data()
    data["powers"] = {POWER_1: {}, POWER_2: {}, **STRANGE_POWERS}
    for prov in data["provinces"].values():
        prov.pop("home", None)
    data.pop("start")
    data.pop("geometry")
    assert set(parse_map(data, "x.yaml").powers) == {POWER_1, POWER_2, *STRANGE_POWERS}


# -- spelled for the solver ---------------------------------------------------------------------------


def test_each_allowed_name_is_its_own_solver_term():
    """``terms.const`` spells a name as clingo does (clingo's own spelling of the symbol), so that no
    two names a map may hold are one term and each is read back as itself."""
    import clingo

    spelled = {name: terms.const(name) for name in STRANGE.values()}
    assert len(set(spelled.values())) == len(spelled)
    for name, term in spelled.items():
        symbol = clingo.parse_term(term)
        assert str(symbol) == term
        assert terms.name_of(symbol) == name.lower()
    assert terms.const("not") == '"not"' and terms.const("austria") == "austria"


def test_a_province_and_a_power_named_like_a_keyword_of_the_solver(tmp_path):
    """``not`` is a keyword of the solver's language: spelled as a constant, as a province id or as a
    power, the solver could not read the program (exit status 3); it is spelled as a string."""
    data = {"name": "tiny", "powers": {"Not": {}, "Yes": {}},
            "provinces": {"not": {"name": "Notland", "type": "land", "center": True, "home": "Not"},
                          "tyr": {"name": "Tyrolia", "type": "land"},
                          "mun": {"name": "Munich", "type": "land", "center": True, "home": "Yes"}},
            "army": ["not-tyr", "tyr-mun", "not-mun"], "fleet": []}
    (tmp_path / "map.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    scenario = tmp_path / "case.yaml"
    scenario.write_text(yaml.safe_dump({
        "id": "not", "map": str(tmp_path / "map.yaml"), "start": {"units": {"Not": ["A Notland"], "Yes": ["A Mun"]}},
        "steps": [{"orders": {"Not": ["A Notland - Tyr"], "Yes": ["A Mun - Notland"]},
                   "expect": {"results": {"A Notland - Tyr": "succeeds", "A Mun - Notland": "succeeds"}}},
                  {"orders": {}}, {"orders": {},
                                   "expect": {"centers": {"a2": {"Yes": ["Munich", "Notland"]}}}}]}), encoding="utf-8")
    code, out, err = run("check", str(scenario))
    assert code == 0, out + err


# -- played end to end ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("renamed")
    map_file = renamed_map(folder, STRANGE)
    cases = folder / "cases"
    # libyaml where PyYAML has it: the same data read and the same text written as the pure-Python
    # loader and dumper, for 400 files in a sixth of the time
    loader, dumper = getattr(yaml, "CSafeLoader", yaml.SafeLoader), getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    for path in find_scenarios([str(ROOT / "cases")]):
        scenario = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        target = cases / path.relative_to(ROOT / "cases")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.dump(renamed_scenario(scenario, map_file, STRANGE), Dumper=dumper, allow_unicode=True,
                                    sort_keys=False), encoding="utf-8")
    return map_file, cases


@pytest.mark.slow
@pytest.mark.shares("renamed scenarios")
def test_every_scenario_plays_alike_with_the_strangest_power_names(renamed):
    """Every scenario of cases/ (movement, retreats, adjustments, forks, the sustain phase, elimination,
    a winner), its powers renamed, passes on the renamed map as it does on the standard map."""
    map_file, cases = renamed
    loaded = [read_scenario(p) for p in find_scenarios([str(cases)])]
    assert len(loaded) > 300 and {c.start.game_map.source for c in loaded} == {str(map_file.resolve())}
    runs = check_scenarios(loaded)
    errors = [f"{c.id}: {r}" for c, r in zip(loaded, runs) if isinstance(r, Exception)]
    failed = [f"{c.id}: {r.problems}" for c, r in zip(loaded, runs) if not isinstance(r, Exception) and not r.passed]
    assert not errors and not failed, (errors[:3], failed[:3])


def _powers_reported(doc: dict, names: dict[str, str]) -> list:
    """Per step: the winner, the powers eliminated and the owner of every sustain fraction, renamed."""
    out = []
    for step in doc["steps"]:
        centres = (step.get("sustain") or {}).get("centres", {})
        out.append((names.get(step["winner"], step["winner"]), sorted(names.get(p, p) for p in step["eliminated"]),
                    sorted((c, f["timeline"], names.get(f["power"], f["power"]))
                           for c, v in centres.items() for f in v["fractions"])))
    return out


@pytest.mark.parametrize("scenario", ["options/sustain/06-victory-without-dissolved.yaml",
                                  "options/sustain/02-contested-centres.yaml",
                                  "multiverse/4.39-elimination-across-timelines.yaml"])
@pytest.mark.slow
@pytest.mark.shares("renamed scenarios")
def test_the_renamed_powers_are_reported_by_their_names(renamed, scenario):
    """Who was eliminated, who won, whose fractions a sustain vote counted: read back from the solver
    as the map names them (before, as the solver's lower-case spelling, or not at all: exit 3)."""
    import json

    _, cases = renamed
    code, out, err = run("adjudicate", "--json", str(ROOT / "cases" / scenario))
    assert code == 0, err
    want = _powers_reported(json.loads(out), STRANGE)
    assert any(w or e or f for w, e, f in want)  # the scenario reports a winner, an elimination or fractions
    code, out, err = run("adjudicate", "--json", str(cases / scenario))
    assert code == 0, err
    assert _powers_reported(json.loads(out), {}) == want


def test_a_game_on_the_renamed_map_is_played_from_the_command_line(renamed, tmp_path):
    map_file, cases = renamed
    game = tmp_path / "g.yaml"
    scenario = cases / "rules" / "elimination-waits-for-retreat.yaml"
    assert run("game", "new", str(game), "--from", str(scenario))[0] == 0
    germany, france = STRANGE["Germany"], STRANGE["France"]
    code, out, err = run("game", "orders", str(game), "--power", germany, "A Bur - Pic", "A Bel S A Bur - Pic")
    assert code == 0, err
    code, out, err = run("game", "adjudicate", str(game))
    assert code == 0, err
    assert "A Pic" in out and "dislodged" in out.lower()
    code, out, err = run("game", "show", str(game))
    assert code == 0 and france in out, (out, err)
    code, out, err = run("game", "orders", str(game), f"{france}: A Pic - Par")  # the name written in the line
    assert code == 0, err
    assert run("game", "adjudicate", str(game))[0] == 0
    assert run("game", "verify", str(game))[0] == 0
    code, out, err = run("game", "show", str(game), "--json")
    assert code == 0 and germany in out and france.replace('"', '\\"') in out
