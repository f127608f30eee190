"""A game's settings as one value (fivedp_asp/model/settings.py): checked when built, immutable,
hashable, equal by what they set, and the mapping outputs print."""

from __future__ import annotations

import pickle
import tempfile
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
import yaml

from fivedp_asp.engine.step import step
from fivedp_asp.engine.userrules import from_arguments, parse_specs, validated
from fivedp_asp.errors import InputError, RuleError
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import Multiverse, opening
from fivedp_asp.model.options import RULES, UserRule
from fivedp_asp.model.settings import Settings, parse_setting
from fivedp_asp.solver.encodings import is_rule_text

ROOT = Path(__file__).resolve().parents[2]
NO_CROSS = ROOT / "docs" / "examples" / "no_cross_timeline_support.lp"
MAP = load_map("standard")


def _rule() -> UserRule:
    return parse_specs([f"no_cross_timeline_support={NO_CROSS}"])[0]


def test_settings_are_checked_against_the_registry_when_built():
    with pytest.raises(InputError, match="unknown option 'nothing'"):
        Settings.of({"nothing": True})
    with pytest.raises(InputError, match="option adjacency cannot be 'weird': one of family, any"):
        Settings.of({"adjacency": "weird"})
    with pytest.raises(InputError, match="a boolean, unquoted"):
        Settings.of({"sustain": "true"})
    with pytest.raises(InputError, match="given twice"):
        Settings((("adjacency", "any"), ("adjacency", "family")))
    # a rule's own option is known only to settings that carry the rule
    with pytest.raises(InputError, match="unknown option"):
        Settings.of({"no_cross_timeline_support": True})
    assert Settings.of({"no_cross_timeline_support": True}, [_rule()]).chosen("no_cross_timeline_support") is True


def test_a_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        Settings.of([("adjacency", "any")])
    with pytest.raises(TypeError):
        Settings((("adjacency", 1),))
    with pytest.raises(TypeError):
        Settings((), ("mine.lp",))
    with pytest.raises(TypeError, match="rules"):
        Settings.of({RULES: {"mine": "mine.lp"}})
    with pytest.raises(TypeError):
        UserRule("mine", True, Path("mine.lp"), "cut(I) :- order(I,_,_).")
    with pytest.raises(TypeError, match="Multiverse: options must be a Settings"):
        replace(opening(MAP), options=MappingProxyType({"adjacency": "any"}))
    with pytest.raises(TypeError, match="opening"):
        opening(MAP, {"adjacency": "any"})


def test_rules_that_cannot_join_the_registry_are_refused():
    rule = _rule()
    with pytest.raises(RuleError, match="given twice"):
        Settings((), (rule, rule))
    with pytest.raises(RuleError, match="already has that value"):
        Settings((), (UserRule("adjacency", "any", "mine.lp", rule.text),))
    with pytest.raises(RuleError, match="new option"):
        Settings((), (UserRule("mine", "some", "mine.lp", rule.text),))


def test_settings_are_equal_by_what_they_set_and_hashable():
    a = Settings.of({"adjacency": "any", "sustain": True})
    b = Settings.of({"sustain": True, "adjacency": "any"})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Settings.of({"adjacency": "any"})
    assert Settings.of({"sustain": True}) != Settings.of({"sustain": False})
    assert Settings() == Settings.of({}) and Settings() != Settings((), (_rule(),))
    cache = {a: "cached"}
    assert cache[b] == "cached"
    # the order given is kept for the documents that print it
    assert list(a.plain()) == ["adjacency", "sustain"] and list(b.plain()) == ["sustain", "adjacency"]
    with pytest.raises(AttributeError):
        a.values = ()  # type: ignore[misc]


def test_chosen_given_and_defaults():
    s = Settings.of({"adjacency": "family", "victory": "unique"})
    assert s.chosen("victory") == "unique" and s.chosen("sustain") is False
    assert s.given("victory") == "unique" and s.given("sustain") is None
    assert s.at_default("adjacency") and s.at_default("sustain") and not s.at_default("victory")
    with pytest.raises(InputError, match="unknown option 'nothing'"):
        s.chosen("nothing")


def test_with_values_and_with_rules_make_new_settings():
    s = Settings.of({"adjacency": "any", "sustain": True})
    t = s.with_values({"adjacency": "family", "victory": "majority"})
    assert list(t.plain().items()) == [("adjacency", "family"), ("sustain", True), ("victory", "majority")]
    assert s.plain() == {"adjacency": "any", "sustain": True}  # unchanged
    with pytest.raises(InputError):
        s.with_values({"adjacency": "weird"})
    rule = _rule()
    carried = s.with_rules((rule,), in_effect=False)
    assert carried.rules == (rule,) and carried.chosen("no_cross_timeline_support") is False
    on = s.with_rules((rule,), in_effect=True)
    assert on.chosen("no_cross_timeline_support") is True and on.in_effect(rule)
    # a rule for the same option value replaces the one carried
    again = on.with_rules((replace(rule, source="other.lp"),), in_effect=True)
    assert [r.source for r in again.rules] == ["other.lp"]


def test_the_rule_is_handed_to_the_solver_as_its_text():
    on = Settings().with_rules((_rule(),), in_effect=True)
    mine = [f for f in on.files("movement") if is_rule_text(f)]
    assert [f.text for f in mine] == [NO_CROSS.read_text(encoding="utf-8")]
    assert all(f.startswith("options/") for f in on.files("movement") if not is_rule_text(f))
    assert not any(is_rule_text(f) for f in Settings().with_rules((_rule(),), in_effect=False).files("movement"))
    with pytest.raises(ValueError):
        on.files("legality")


def test_a_step_under_a_rule_of_your_own_writes_no_file(tmp_path, monkeypatch):
    """The rule's text goes to clingo as text: nothing lands in the temporary folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))
    mv = opening(MAP, Settings().with_rules((_rule(),), in_effect=True))
    report = step(mv, {"Germany": ["A Mun - Tyr"]})
    assert report.outcomes and list(folder.iterdir()) == []


def test_the_document_is_plain_yaml_and_reads_back_to_equal_settings(tmp_path):
    on = Settings.of({"adjacency": "any"}).with_rules((_rule(),), in_effect=True)
    doc = on.document()
    assert list(doc) == ["adjacency", "no_cross_timeline_support", RULES]
    assert doc[RULES]["no_cross_timeline_support"] == {"file": str(NO_CROSS), "text": NO_CROSS.read_text()}
    assert validated(yaml.safe_load(yaml.safe_dump(doc))) == on
    assert Settings().document() == {} and Settings.of({"sustain": True}).document() == {"sustain": True}


def test_settings_travel_to_worker_processes():
    on = Settings.of({"victory": "majority"}).with_rules((_rule(),), in_effect=True)
    back = pickle.loads(pickle.dumps(on))
    assert back == on and back.registry["no_cross_timeline_support"].values[1].file is not None


def test_settings_from_command_line_arguments():
    s = from_arguments(["adjacency=any", "no_cross_timeline_support=false"],
                       [f"no_cross_timeline_support={NO_CROSS}"])
    assert s.plain() == {"no_cross_timeline_support": False, "adjacency": "any"} and len(s.rules) == 1
    assert from_arguments([], [f"no_cross_timeline_support={NO_CROSS}"]).chosen("no_cross_timeline_support") is True
    with pytest.raises(InputError, match="write NAME=VALUE"):
        from_arguments(["adjacency"], [])
    with pytest.raises(TypeError):
        from_arguments("adjacency=any", [])
    assert parse_setting("sustain=TRUE") == ("sustain", True)
    with pytest.raises(TypeError):
        parse_setting("sustain=true", {"rules": ()})  # type: ignore[arg-type]


def test_a_multiverse_keeps_its_settings():
    s = Settings.of({"open_convoys": True})
    mv = opening(MAP, s)
    assert isinstance(mv, Multiverse) and mv.options is s and opening(MAP).options == Settings()
