"""Bad input never crashes, hangs or acts on the wrong board (docs/limits.md).

Hand-written cases for each kind of bad input, then property-based tests (hypothesis): mutated order
text through the notation and a step, random YAML documents through the scenario loader, random
corruptions of a game file through the game commands. Each asserts exit 2 (an ``InputError``) or a
clean result: never a traceback, never a changed game file after a failed command, never an order
acting on a board it does not name.

The examples are bounded for CI (the whole file runs in well under 30 s). A longer run:

    FIVEDP_FUZZ_EXAMPLES=2000 pytest tests/base/test_bad_input.py
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fivedp_asp.files.scenarios import read_scenario
from fivedp_asp.cli import main
from fivedp_asp.errors import InputError, NotationError
from fivedp_asp.files.games import load_game, save_game
from fivedp_asp.game.state import new_game
from fivedp_asp.limits import MAX_DEPTH, MAX_TURN
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening
from fivedp_asp.model.notation import parse_order
from fivedp_asp.engine.step import step

SCALE = int(os.environ.get("FIVEDP_FUZZ_EXAMPLES", "0"))
GM = load_map("standard")
MV = opening(GM)


def examples(n: int) -> settings:
    return settings(max_examples=SCALE or n, deadline=None, derandomize=not SCALE,
                    suppress_health_check=list(HealthCheck))


def run(*argv: str) -> tuple[int, str]:
    """The command's exit status and its messages (standard error, then standard output); a traceback
    fails the test by escaping."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, err.getvalue() + out.getvalue()


def scenario_file(tmp_path: Path, text: str | bytes, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def refused(path: Path, *fragments: str, line: int | None = None) -> str:
    code, err = run("check", str(path))
    assert code == 2, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in err, (f, err)
    if line is not None:
        assert f"{path}:{line}:" in err, err
    return err


# -- scenario files -----------------------------------------------------------------------------------


def test_alias_bomb_is_refused_at_once(tmp_path):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = scenario_file(tmp_path, "\n".join(levels) + "\nid: *a9\nsteps: []\n")
    started = time.monotonic()
    refused(path, "aliases", line=2)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_refused(tmp_path, opener, closer):
    path = scenario_file(tmp_path, "id: x\nsteps: " + opener * 1000 + "1" + closer * 1000 + "\n")
    refused(path, f"nested more than {MAX_DEPTH} levels", line=2)


@pytest.mark.parametrize("data, line", [(b"id: x\nsteps: []\ntitle: \xff\xfe\n", 3), (b"\x00\x01\x02binary", 1),
                                        ("id: x\nsteps: []\ntitle: \ud800\n".encode("utf-8", "surrogatepass"), 3)])
def test_text_that_is_not_utf8_is_refused_with_its_line(tmp_path, data, line):
    refused(scenario_file(tmp_path, data), line=line)


def test_huge_numbers_are_refused_with_their_line(tmp_path):
    refused(scenario_file(tmp_path, "id: x\nstart:\n  turn: " + "9" * 5000 + "\nsteps: []\n"), "too large", line=3)
    refused(scenario_file(tmp_path, f"id: x\nstart:\n  turn: {MAX_TURN + 1}\nsteps: []\n"), "start.turn", line=3)


def test_wrong_types_name_key_and_line(tmp_path):
    refused(scenario_file(tmp_path, "id: x\nstart:\n  phase: 5\nsteps: []\n"),
            "start.phase must be one of movement, retreat, adjustment", line=3)
    refused(scenario_file(tmp_path, "id: [a, b]\nsteps: []\n"), "id must be text", line=1)
    refused(scenario_file(tmp_path, "id: {a: 1}\nsteps: []\n"), "id must be text", line=1)
    refused(scenario_file(tmp_path, "id: x\nsteps:\n  - orders: {Germany: 3}\n"), "'orders of Germany' must be a list", line=3)


@pytest.mark.parametrize("text, line", [("id: x\nsteps: [\n", 3), ("id: x\nsteps: []\n]\n", 3), ("id: x\nste", 2),
                                        ("id: x\nid: y\nsteps: []\n", 2)])
def test_yaml_syntax_errors_are_refused_with_their_line(tmp_path, text, line):
    refused(scenario_file(tmp_path, text), line=line)


# -- map files --------------------------------------------------------------------------------------


STANDARD = yaml.safe_load((Path(__file__).parent.parent.parent / "fivedp_asp" / "maps" / "standard.yaml").read_text(encoding="utf-8"))


def _provinces_a_list(d):
    d["provinces"] = list(d["provinces"])


def _power_an_integer(d):
    d["powers"]["Austria"] = 5


def _coasts_an_integer(d):
    d["coasts"] = 3


def _province_coasts_an_integer(d):
    d["provinces"]["spa"]["coasts"] = 3


@pytest.mark.parametrize("damage, message", [
    (_provinces_a_list, "provinces must be a mapping"), (_power_an_integer, "powers.Austria must be a mapping"),
    (_coasts_an_integer, "coasts must be a mapping"), (_province_coasts_an_integer, "provinces.spa.coasts must be a list"),
])
def test_map_sections_of_the_wrong_type(tmp_path, damage, message):
    data = yaml.safe_load(yaml.safe_dump(STANDARD))
    damage(data)
    map_path = scenario_file(tmp_path, yaml.safe_dump(data), "m.yaml")
    err = refused(scenario_file(tmp_path, f"id: x\nmap: {map_path.name}\nsteps: []\n"), message)
    assert "m.yaml:" in err, err


# -- phantom boards -----------------------------------------------------------------------------------


@pytest.mark.parametrize("line", ["A a-Mun@4294967296 - Tyr", "A a-Mun@18446744073709551616 - Tyr",
                                  "A Tyr - a-Boh@" + "9" * 5000, "A a4294967296-Mun@0 - Tyr",
                                  f"A a-Mun@{MAX_TURN + 1} - Tyr", "A p385-Mun@0 H"])
def test_huge_boards_never_reach_the_solver(line):
    with pytest.raises(InputError):
        step(MV, {"Germany": [line]})


def test_an_order_on_a_board_that_does_not_exist_is_invalid():
    report = step(MV, {"Germany": ["A a-Mun@3 - Tyr", "A a-Mun@0 H"]})
    results = {o.text: o.result for o in report.outcomes}
    assert results["A a-Mun@3 - Tyr"] == "invalid"
    assert any(u.province == "mun" for u in report.after.heads[0].units.values())


# -- property-based -----------------------------------------------------------------------------------

VALID = ["A Mun - Tyr", "A a-Mun@0 - a-Tyr@0", "F Kie - Den", "A Vie S A Mun - Tyr", "F Lon C A Yor - Bel",
         "A Yor - Bel via convoy", "A Army alfa:Munich:Spring 1901 - Bohemia", "F Spa(nc) - Por",
         "F Tri H", "A Ber - Sil", "A a-Par@0 - a-Bur@0"]
NASTY = ["@4294967296", "@-1", "@99999999999999999999", "9" * 60, "\x00", "\ud800", "@", ":", "-", "(", ")",
         "a4294967296-", "zz-", " via convoy", " S ", " C ", "\n", "é", "𝔸", "\t", "@10001", "@10000"]


@st.composite
def mutated_order(draw):
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "nasty"]))
        piece = draw(st.sampled_from(NASTY)) if kind == "nasty" else draw(st.text(max_size=4))
        if kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 4)):]
        elif kind == "replace":
            text = text[:pos] + piece + text[pos + len(piece):]
        else:
            text = text[:pos] + piece + text[pos:]
    return text


@pytest.mark.slow
@examples(150)
@given(st.lists(mutated_order(), min_size=1, max_size=3))
def test_mutated_orders_never_crash_or_act_on_an_unnamed_board(lines):
    for line in lines:
        try:
            parse_order(line, GM)
        except NotationError as exc:
            assert 0 <= exc.position <= max(len(line), 40)
    try:
        report = step(MV, {"Germany": lines})
    except InputError:
        return
    for outcome in report.outcomes:
        order = parse_order(outcome.text, GM)
        where = getattr(order, "unit", None)
        where = where.where if where is not None else None
        if where is not None and where.turn is not None:
            board = (where.timeline or 0, where.turn)
            if board not in MV.boards:
                assert outcome.result == "invalid", (outcome.text, outcome.result)


yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
yaml_values = st.recursive(yaml_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(
        ["id", "title", "steps", "start", "turn", "phase", "units", "orders", "expect", "results", "Germany",
         "map", "options", "centers", "dislodged", "adjacency", "boards", "a1", "x"]), inner, max_size=4)),
    max_leaves=12)


@pytest.mark.slow
@examples(120)
@given(yaml_values)
def test_random_yaml_structures_load_or_are_refused_with_a_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("y") / "c.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    try:
        read_scenario(path)
    except InputError as exc:
        assert re.match(rf"{re.escape(str(path))}:\d+: ", str(exc)), exc


@examples(120)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_random_bytes_load_or_are_refused_with_a_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("b") / "c.yaml"
    path.write_bytes(data)
    try:
        read_scenario(path)
    except InputError as exc:
        assert re.match(rf"{re.escape(str(path))}:\d+: ", str(exc)), exc


@pytest.fixture(scope="module")
def game_text(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("g") / "g.yaml"
    save_game(path, new_game(MV))
    return path.read_text(encoding="utf-8")


@st.composite
def corruption(draw, text):
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["drop", "dup", "edit", "truncate", "nasty"]))
        if kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif kind == "edit":
            line = lines[i]
            pos = draw(st.integers(0, len(line)))
            lines[i] = line[:pos] + draw(st.text(max_size=3)) + line[pos:]
        else:
            line = lines[i]
            pos = draw(st.integers(0, len(line)))
            lines[i] = line[:pos] + draw(st.sampled_from(NASTY + ["*a", "&a ", "[", "{", ": ", "- "])) + line[pos:]
        if not lines:
            break
    return "".join(lines)


@pytest.mark.slow
@examples(60)
@given(st.data())
def test_corrupted_game_files_are_refused_and_left_alone(tmp_path_factory, game_text, data):
    damaged = data.draw(corruption(game_text))
    path = tmp_path_factory.mktemp("c") / "g.yaml"
    # sealed again, as `fivedp game accept` would after a hand edit: the checks of the content are
    # what must refuse it (unsealed, the checksum refuses every such file: tests/files/test_game_integrity.py)
    body = re.sub(rb"checksum: [^\n]*\n?\Z", b"", damaged.encode("utf-8", "surrogatepass"))
    body += b"" if body.endswith(b"\n") or not body else b"\n"
    path.write_bytes(body + b"checksum: sha256:" + hashlib.sha256(body).hexdigest().encode() + b"\n")
    try:
        load_game(path)
        loads = True
    except InputError:
        loads = False
    before = path.read_bytes()
    code, err = run("game", "orders", str(path), "--power", "Germany", "A Mun - Tyr")
    assert code in (0, 2), err
    if code == 2:
        assert not loads or "order" in err, err
        assert path.read_bytes() == before
    code, err = run("game", "show", str(path))
    assert code in (0, 2), err


# -- limits of a step ----------------------------------------------------------------------------------


def test_a_step_beyond_the_order_limit_stops_before_solving():
    started = time.monotonic()
    with pytest.raises(InputError, match="orders \\(the limit is 16,384\\)"):
        step(MV, {"Germany": ["A Mun H"] * 16_385})
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("name, message", [("MAX_HEADS", "boards in play"), ("MAX_UNITS", "units on the boards in play"),
                                           ("MAX_TIMELINES", "timelines"), ("MAX_BOARDS", "boards")])
def test_each_step_limit_is_checked(monkeypatch, name, message):
    import fivedp_asp.engine.step as step_module

    monkeypatch.setattr(step_module, name, 0)
    with pytest.raises(InputError, match=f"beyond the limits of fivedp: .*{message} \\(the limit is 0\\)"):
        step(MV, {"Germany": ["A Mun H"]})


def test_a_timeline_at_the_last_turn_stops_at_the_limit(tmp_path):
    path = scenario_file(tmp_path, f"id: x\nstart:\n  turn: {MAX_TURN}\n  units: {{Germany: [A Munich]}}\n"
                               "steps:\n  - orders: {Germany: [A Munich hold]}\n")
    code, err = run("check", str(path))
    assert code == 2 and "beyond the limits" in err, err
