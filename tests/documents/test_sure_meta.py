"""sure_meta says a schema surely obeys the draft 2020-12 meta-schema only when jsonschema finds
nothing in it: on a table of schemas (good, bad and beyond what it reads), on every schema the
bundled rulesets write (inputs and parameter schemas), and on many generated ones."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from interpreter.documents.loader import load_file
from interpreter.documents.sure_meta import surely_a_schema

META = Draft202012Validator(Draft202012Validator.META_SCHEMA)
ROOT = Path(__file__).resolve().parents[2]

# (schema, what sure_meta says: True sure, False ask jsonschema)
CASES = [
    ({}, True), (True, True), (False, True),
    ({"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}}, "required": ["a"]}, True),
    ({"type": ["string", "null"], "enum": ["x", None]}, True),
    ({"items": {"type": "string"}, "minItems": 1, "uniqueItems": True}, True),
    ({"anyOf": [{"const": 1}, {"const": "a"}], "description": "d", "title": "t", "default": 1}, True),
    ({"x-enum-from": "params.list", "x-anything": {"type": 3}}, True),  # no vocabulary: allowed
    ({"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "number"}}}, True),
    ({"dependentRequired": {"a": ["b"]}, "multipleOf": 0.5, "if": {}, "then": {}, "else": False}, True),
    ({"type": "text"}, False), ({"type": []}, False), ({"type": ["string", "string"]}, False),
    ({"minimum": "1"}, False), ({"minLength": -1}, False), ({"minLength": True}, False),
    ({"minLength": 2.0}, False),  # jsonschema accepts it; sure_meta asks
    ({"required": "a"}, False), ({"required": ["a", "a"]}, False), ({"required": [1]}, False),
    ({"properties": []}, False), ({"properties": {"a": 3}}, False), ({"items": []}, False),
    ({"allOf": []}, False), ({"allOf": {}}, False), ({"anyOf": [3]}, False), ({"enum": "a"}, False),
    ({"multipleOf": 0}, False), ({"uniqueItems": "yes"}, False), ({"description": 3}, False),
    ({"$ref": 3}, False), ({"$id": "x"}, False), ({"$schema": "x"}, False), ({"dependencies": {}}, False),
    ({"not": {"not": {"not": {"type": "nothing"}}}}, False), ("object", False), (3, False), (None, False),
]


@pytest.mark.parametrize("schema, sure", CASES, ids=[str(c[0])[:60] for c in CASES])
def test_a_table_of_schemas(schema, sure):
    assert surely_a_schema(schema) is sure
    if sure:
        assert not list(META.iter_errors(schema))


def test_too_deep_is_asked():
    schema: dict = {}
    for _ in range(100):
        schema = {"items": schema}
    assert not surely_a_schema(schema) and not list(META.iter_errors(schema))


def _written_schemas():
    for path in sorted((ROOT / "rulesets").rglob("*.yaml")):
        for doc in load_file(str(path)):
            data = doc.data if isinstance(doc.data, dict) else {}
            stack = [data]
            while stack:
                node = stack.pop()
                if isinstance(node, dict):
                    for key in ("inputs", "schema", "param_schema"):
                        if isinstance(node.get(key), dict):
                            yield node[key]
                    stack.extend(node.values())
                elif isinstance(node, list):
                    stack.extend(node)


def test_every_schema_the_bundled_rulesets_write():
    found = list(_written_schemas())
    assert len(found) >= 20
    sure = [s for s in found if surely_a_schema(s)]
    assert len(sure) >= len(found) * 0.9  # what rulesets write is read here
    for schema in sure:
        assert not list(META.iter_errors(schema)), schema


VALUES = [0, 1, -1, 2.5, 0.0, "a", "", "string", "integer", True, False, None, [], ["a"], ["a", "a"],
          ["string", "null"], [1], {}, {"type": "string"}, {"a": {}}, {"a": ["b"]}, {"a": 1}, [{}], [{"type": 1}]]
KEYWORDS = ["type", "properties", "items", "required", "enum", "const", "minimum", "maxLength", "minItems",
            "allOf", "anyOf", "not", "if", "additionalProperties", "description", "title", "$ref", "$defs",
            "pattern", "format", "uniqueItems", "multipleOf", "dependentRequired", "prefixItems", "examples",
            "patternProperties", "contains", "x-note", "$comment", "readOnly", "propertyNames", "$id"]


def _generated(rng: random.Random, depth: int) -> dict:
    schema: dict = {}
    for _ in range(rng.randint(0, 3)):
        key = rng.choice(KEYWORDS)
        if depth < 3 and rng.random() < 0.3:
            sub = _generated(rng, depth + 1)
            schema[key] = {"x": sub} if rng.random() < 0.3 else [sub] if rng.random() < 0.3 else sub
        else:
            schema[key] = rng.choice(VALUES)
    return schema


def test_generated_schemas_agree_with_jsonschema():
    rng = random.Random(26)
    sure = 0
    for _ in range(3000):
        schema = _generated(rng, 0)
        if surely_a_schema(schema):
            sure += 1
            assert not list(META.iter_errors(schema)), schema
    assert sure >= 300
