"""A validator for the part of JSON Schema (2020-12) that the schemas of fivedp_asp/schema/ use
(fivedp.schema.json, the output documents; scenario.schema.json, the scenario files).

Keywords: type, const, enum, pattern, minimum, maximum, properties, required, additionalProperties,
propertyNames, minProperties, items, $ref (local, ``#/$defs/...``), oneOf, anyOf, allOf, not, if/then/else.
Any other keyword in the schema is an error, so the schema cannot silently rely on something this
validator does not check. Values compare as JSON compares them: ``true`` is not ``1`` (in ``enum`` as
in ``const``). tests/files/test_schema_check.py tries each keyword.
"""

from __future__ import annotations

import re
from typing import Any

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum", "pattern", "minimum", "maximum",
         "properties", "required", "additionalProperties", "propertyNames", "minProperties", "items", "$ref",
         "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values: a boolean is no number, and containers compare item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b and isinstance(a, (int, float)) == isinstance(b, (int, float))


def errors(value: Any, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, each with the JSON path where it happens."""
    root = root if root is not None else schema
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: schema uses keywords this validator does not know: {sorted(unknown)}"]
    out: list[str] = []
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/"), ref
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        out += errors(value, target, root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return out + [f"{path}: {value!r:.60} is not of type {types}"]
    if "const" in schema and not same(value, schema["const"]):
        out.append(f"{path}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and not any(same(value, x) for x in schema["enum"]):
        out.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        out.append(f"{path}: {value} is below {schema['minimum']}")
    if "maximum" in schema and TYPES["number"](value) and value > schema["maximum"]:
        out.append(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                out.append(f"{path}: missing {key!r}")
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            out.append(f"{path}: fewer than {schema['minProperties']} keys")
        if "propertyNames" in schema:
            for key in value:
                out += [f"{problem} (a key)" for problem in errors(key, schema["propertyNames"], root, f"{path}.{key}")]
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: unexpected key {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(item, schema["additionalProperties"], root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += errors(item, schema["items"], root, f"{path}[{i}]")
    if "not" in schema and not errors(value, schema["not"], root, path):
        out.append(f"{path}: matches what 'not' excludes")
    if "if" in schema:
        branch = schema.get("then") if not errors(value, schema["if"], root, path) else schema.get("else")
        if branch is not None:
            out += errors(value, branch, root, path)
    for sub in schema.get("allOf", ()):
        out += errors(value, sub, root, path)
    if "anyOf" in schema and not any(not errors(value, sub, root, path) for sub in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if "oneOf" in schema:
        matching = [sub for sub in schema["oneOf"] if not errors(value, sub, root, path)]
        if len(matching) != 1:
            detail = "" if matching else ": " + "; ".join(
                min((errors(value, sub, root, path) for sub in schema["oneOf"]), key=len)[:3])
            out.append(f"{path}: matches {len(matching)} of oneOf{detail}")
    return out
