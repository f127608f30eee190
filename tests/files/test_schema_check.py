"""tests/schema_check.py, the small validator the schemas of fivedp_asp/schema/ are checked with: the
keywords scenario.schema.json brought in (if/then/else, not, maximum, minProperties, propertyNames)
and JSON's equality in enum and const, each tried on values it must accept and values it must refuse,
so that a test validating a scenario against the schema checks something."""

from __future__ import annotations

import pytest

from tests.schema_check import errors


def _ok(value, schema) -> bool:
    return not errors(value, schema)


def test_if_then_else_applies_the_branch_the_condition_chooses():
    schema = {"type": "object", "if": {"required": ["boards"]},
              "then": {"required": ["boards"], "properties": {"turn": {"type": "null"}}},
              "else": {"properties": {"turn": {"type": "integer"}}}}
    assert _ok({"turn": 3}, schema)
    assert not _ok({"turn": "3"}, schema)  # else: turn is a whole number
    assert _ok({"boards": {}, "turn": None}, schema)
    assert not _ok({"boards": {}, "turn": 3}, schema)  # then: turn must be null here
    only_then = {"if": {"const": 1}, "then": {"const": 1}}
    assert _ok(2, only_then) and _ok(1, only_then)  # no else: nothing more is asked


def test_not_refuses_what_its_schema_accepts():
    schema = {"type": "object", "not": {"required": ["orders", "phase"]}}
    assert _ok({"orders": {}}, schema) and _ok({"phase": "retreat"}, schema)
    assert not _ok({"orders": {}, "phase": "retreat"}, schema)


def test_maximum_and_minimum_bound_numbers_only():
    schema = {"type": "integer", "minimum": 0, "maximum": 10}
    assert _ok(0, schema) and _ok(10, schema)
    assert not _ok(11, schema) and not _ok(-1, schema)
    assert _ok("11", {"maximum": 10})  # not a number: the bound says nothing of it


def test_min_properties_counts_keys():
    schema = {"type": "object", "minProperties": 1}
    assert _ok({"a0": {}}, schema)
    assert not _ok({}, schema)


def test_property_names_holds_every_key():
    schema = {"type": "object", "propertyNames": {"pattern": "^[a-z][0-9]+$", "not": {"enum": ["a0"]}}}
    assert _ok({"b1": 1, "c2": 2}, schema)
    assert not _ok({"b1": 1, "B1": 2}, schema)
    assert not _ok({"a0": 1}, schema)
    assert any("(a key)" in e for e in errors({"xx": 1}, schema))


@pytest.mark.parametrize("value, allowed", [
    (True, [1, 0]), (1, [True]), (0, [False]), ("true", [True]), (1.0, [True]), ([1], [[True]]),
    ({"a": 1}, [{"a": True}]),
])
def test_enum_and_const_compare_as_json_does(value, allowed):
    """YAML's ``true`` is no ``1``: an option that takes a boolean refuses a number, as the loader does."""
    assert not _ok(value, {"enum": allowed})
    assert not _ok(value, {"const": allowed[0]})


def test_enum_and_const_accept_equal_values():
    assert _ok(True, {"enum": [False, True]}) and _ok("family", {"enum": ["family", "any"]})
    assert _ok(1, {"const": 1.0}) and _ok({"a": [True]}, {"const": {"a": [True]}})


def test_a_keyword_the_validator_does_not_know_is_an_error():
    assert errors({}, {"dependentRequired": {"a": ["b"]}})
    assert errors("x", {"minLength": 2})
