"""libyaml reads YAML exactly as the pure-Python loader does (``fivedp_asp.yaml_lines``).

``parse_yaml`` goes through libyaml when PyYAML has it (about ten times faster on long game files).
The two paths must give the same data with the same lines, and every guard must hold on the C path
by itself, before any fallback to the pure-Python loader.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from fivedp_asp import inputs, yaml_lines
from fivedp_asp.lab.bench.positions import synthetic_game
from fivedp_asp.files.games import save_game
from fivedp_asp.limits import MAX_DEPTH

pytestmark = pytest.mark.skipif(getattr(yaml, "CSafeLoader", None) is None, reason="PyYAML built without libyaml")

ROOT = Path(__file__).resolve().parent.parent.parent


def same(a, b, where="$"):
    """Equal values of equal types with equal lines, all the way down."""
    assert type(a) is type(b), where
    assert a == b, where
    assert yaml_lines.line_of(a) == yaml_lines.line_of(b), where
    if isinstance(a, list):
        assert a.lines == b.lines, where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        assert a.key_lines == b.key_lines and a.value_lines == b.value_lines, where
        for (k, x), (j, y) in zip(a.items(), b.items()):
            same(k, j, f"{where}.key")
            same(x, y, f"{where}.{k}")


def game_text(tmp_path: Path) -> str:
    path = tmp_path / "g.yaml"
    save_game(path, synthetic_game(3))
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["game", "fivedp_asp/maps/standard.yaml",
                                  "cases/multiverse/4.01-fork-by-move-into-empty-past.yaml",
                                  "tests/lab/compare/s7707-g052-F1910M.yaml"])
def test_c_and_python_paths_agree_on_data_and_lines(tmp_path, name):
    text = game_text(tmp_path) if name == "game" else (ROOT / name).read_text(encoding="utf-8")
    fast, slow = yaml_lines._parse_c(text, name), yaml_lines._parse_python(text, name)
    same(fast, slow)
    assert yaml_lines.line_of(fast) == 1 or isinstance(fast, dict)
    assert max(yaml_lines.value_line(fast, k) for k in fast) > 1


def test_alias_bomb_is_refused_on_the_c_path():
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    started = time.monotonic()
    with pytest.raises(inputs.LoadError) as exc:
        yaml_lines._parse_c("\n".join(levels) + "\nid: *a9\n", "bomb.yaml")
    assert exc.value.line == 2 and "aliases (*a0)" in exc.value.problem
    assert time.monotonic() - started < 1


@pytest.mark.slow
@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a: ", "}"), ("- ", "")])
def test_deep_nesting_is_refused_on_the_c_path(opener, closer):
    """The guard's contract is the message and its line, not which layer refuses first: libyaml's own
    scanner may stop a deep flow collection before the event screen sees it (PyYAML 6.0.4 does). Either
    way the C path never composes the text, and ``parse_yaml`` answers with the guard's message."""
    if opener == "- ":
        text = "steps:\n" + "".join("  " * i + "-\n" for i in range(1000)) + "  " * 1000 + "- 1\n"
    else:
        text = "id: x\nsteps: " + opener * 1000 + "1" + closer * 1000 + "\n"
    with pytest.raises((inputs.LoadError, yaml.YAMLError)):
        yaml_lines._parse_c(text, "deep.yaml")
    with pytest.raises(inputs.LoadError) as exc:
        yaml_lines.parse_yaml(text, "deep.yaml")
    assert f"nested more than {MAX_DEPTH} levels deep" in exc.value.problem
    assert exc.value.line == (2 if opener != "- " else MAX_DEPTH + 1)
    with pytest.raises(inputs.LoadError) as slow:
        yaml_lines._parse_python(text, "deep.yaml")
    assert str(slow.value) == str(exc.value)


def test_nesting_at_the_cap_is_read_on_the_c_path():
    text = "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH
    same(yaml_lines._parse_c(text, "x"), yaml_lines._parse_python(text, "x"))


@pytest.mark.parametrize("text, fragment", [("a: 1\na: 2\n", "duplicate key 'a' (first on line 1)"),
                                            ("a:\n  n: " + "9" * 40 + "\n", "number of 40 digits")])
def test_constructor_guards_hold_on_the_c_path(text, fragment):
    with pytest.raises(inputs.LoadError) as exc:
        yaml_lines._parse_c(text, "x")
    assert fragment in exc.value.problem
    with pytest.raises(inputs.LoadError) as slow:
        yaml_lines._parse_python(text, "x")
    assert str(slow.value) == str(exc.value)


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a: b: c\n", "- a\nb: 1\n", "a: 1\n---\nb: 2\n", "a: 'x\n"])
def test_syntax_errors_keep_the_pure_python_wording(text):
    with pytest.raises(yaml.MarkedYAMLError):
        yaml_lines._parse_c(text, "x")
    with pytest.raises(inputs.LoadError) as fast:
        yaml_lines.parse_yaml(text, "x")
    with pytest.raises(inputs.LoadError) as slow:
        yaml_lines._parse_python(text, "x")
    assert str(fast.value) == str(slow.value) and fast.value.line >= 1


def test_without_libyaml_the_pure_python_loader_reads(monkeypatch):
    monkeypatch.setattr(yaml_lines, "_CSafeLoader", None)
    monkeypatch.setattr(yaml_lines, "_parse_c", None)
    data = yaml_lines.parse_yaml("a:\n  - 1\n", "x")
    assert data == {"a": [1]} and data["a"].line == 2
