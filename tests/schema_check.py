"""A validator for the part of JSON Schema (2020-12) that fivedp_asp/schema/fivedp.schema.json uses.

Keywords: type, const, enum, pattern, minimum, properties, required, additionalProperties, items,
$ref (local, ``#/$defs/...``), oneOf, anyOf, allOf. Any other keyword in the schema is an error, so
the schema cannot silently rely on something this validator does not check.
"""

from __future__ import annotations

import re
from typing import Any

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum", "pattern", "minimum", "properties",
         "required", "additionalProperties", "items", "$ref", "oneOf", "anyOf", "allOf", "$defs"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


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
    if "const" in schema and not (value == schema["const"] and type(value) is type(schema["const"])):
        out.append(f"{path}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        out.append(f"{path}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                out.append(f"{path}: missing {key!r}")
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
