"""engine.sure_schema: a yes only where the validator finds nothing, for a table of schemas and
values (and any value hypothesis makes); every bundled rule's inputs are read by it."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.documents.schema import validate_instance
from interpreter.engine.sure_schema import surely_passes

ITEM = {"type": "object", "properties": {
    "materials": {"type": "array", "items": {"enum": ["鋼", "堅木"]}, "minItems": 1, "uniqueItems": True},
    "quality": {"enum": ["粗悪", "標準"]}, "price": {"type": "integer", "minimum": 0, "exclusiveMaximum": 100},
    "note": {"type": ["string", "null"], "maxLength": 3, "default": None, "description": "a note"},
    "flag": {"const": True}, "ratio": {"type": "number", "maximum": 1.5}},
    "required": ["materials"], "additionalProperties": False, "x-note": "ignored"}
SCHEMAS = [
    ITEM,
    {"type": "object", "properties": {"a": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}},
    {"anyOf": [{"type": "integer", "minimum": 3}, {"type": "null"}]},
    {"not": {"type": "string"}},
    {"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}},
    {"type": "object", "dependentRequired": {"a": ["b"]}, "minProperties": 1, "maxProperties": 2},
    {"allOf": [{"type": "array", "maxItems": 2}, {"items": {"type": "boolean"}}]},
    {"type": "string", "pattern": "^a"},  # not read: never a yes
    {"$ref": "#/$defs/x", "$defs": {"x": {"type": "integer"}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}, "b": {"$ref": "#/definitions/b"}},
     "$defs": {"a": {"oneOf": [{"const": 1}, {"type": "string"}]}}, "definitions": {"b": {"type": "null"}}},
    {"type": "object", "properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "integer", "minimum": 2}}},
    {"type": "object", "properties": {"a": {"$ref": "#"}}, "maxProperties": 1},  # recursive
    {"properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {}},  # nowhere: never a yes
    {"properties": {"a": {"$ref": "other.json#/x"}}},  # another file: never a yes
    {"$id": "https://example.com/s", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
    {"type": "integer", "minimum": "3"},  # malformed: the validator words the schema
    {"type": "object", "additionalProperties": {"type": "integer"}, "patternProperties": {"^x": {}}},
    {"enum": [1, [1, 2], {"a": None}]},
    {"type": "object", "properties": {"when": {"type": "string"}}},
]
VALUES = [
    {"materials": ["鋼"]}, {"materials": ["鋼", "鋼"]}, {"materials": []}, {"materials": ["鋼"], "x": 1},
    {"materials": ["堅木"], "quality": "標準", "price": 99, "note": None, "flag": True, "ratio": 1.5},
    {"materials": ["鋼"], "price": 100}, {"materials": ["鋼"], "price": 3.0}, {"materials": ["鋼"], "price": True},
    {"materials": ["鋼"], "flag": 1}, {"materials": ["鋼"], "note": "long"}, {"materials": ["鋼"], "ratio": 2},
    {"a": 1}, {"a": "x"}, {"a": 1.5}, {"a": 1, "b": 2}, {"b": 1}, {}, 3, 2, None, "a", "b", 1.0, True,
    [True, False], [True, 1], [1, 2], {"a": None}, {"x": 1, "y": "z"}, {"when": "today"},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_yes_only_where_the_validator_finds_nothing(schema):
    yes = 0
    for value in VALUES:
        if surely_passes(schema, value):
            yes += 1
            assert validate_instance(value, schema, {}, None) == [], (schema, value)
    text = repr(schema)
    if "pattern" in schema or "$id" in schema or schema.get("minimum") == "3":
        assert yes == 0
    elif "missing" in text or "other.json" in text:  # a reference it cannot follow: never a yes
        assert not any(surely_passes(schema, v) for v in VALUES if isinstance(v, dict) and "a" in v)
    elif "$ref" in text:
        assert yes > 0  # a reference into the same schema is read


def test_it_says_yes_to_the_values_that_pass():
    assert surely_passes(ITEM, VALUES[0]) and surely_passes(ITEM, VALUES[4])
    assert not surely_passes(ITEM, VALUES[1]) and not surely_passes(ITEM, {"materials": ["鋼"], "price": True})


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 200) | st.floats(-2, 200, allow_nan=False)
                    | st.sampled_from(["鋼", "堅木", "標準", "a", "long"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["materials", "quality", "price", "note", "flag", "ratio", "a", "b"]),
                        inner, max_size=4), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SCHEMAS), JSON)
def test_any_value(schema, value):
    if surely_passes(schema, value):
        assert validate_instance(value, schema, {}, None) == []


def test_every_bundled_input_schema_is_read():
    from interpreter.checks.loading import load_ruleset
    from interpreter.ruleset.enum_from import resolved_inputs

    ruleset = load_ruleset(None)
    read = [rule.id for rule in ruleset.rules.values()
            if isinstance(resolved_inputs(rule), dict) and surely_passes(resolved_inputs(rule), {}) is False
            and _decided(resolved_inputs(rule))]
    assert read  # the schemas GMs write are decided without jsonschema (a missing field: a sure no)


def _decided(schema) -> bool:
    from interpreter.engine import sure_schema

    try:
        return sure_schema._check(schema, {}, 0) is not None
    except sure_schema._Malformed:
        return False


@pytest.mark.parametrize("schema, value, expected", [
    ({"type": "integer", "at most 2 count)": None}, 3, True),  # not a keyword: ignored
    ({"type": "integer", "multipleOf": 2}, 4, None), ({"type": "integer", "format": "x"}, 4, None),
    ({"type": "integer"}, "3", False), ({"required": ["a"]}, {}, False), ({"minimum": "1"}, 3, None),
    ({"enum": ["a"]}, "b", False), ({"type": "string"}, b"a", None),
])
def test_verdicts(schema, value, expected):
    from interpreter.engine.sure_schema import verdict

    assert verdict(schema, value) is expected
    if expected is not None:
        assert (validate_instance(value, schema, {}, None) == []) is expected


def test_every_bundled_example_input_is_decided_as_the_validator_decides():
    """The inputs of every bundled rule's examples: a sure yes only where jsonschema finds nothing,
    and every one decided without jsonschema (a warm run loads no jsonschema for them)."""
    from interpreter.checks.loading import load_ruleset
    from interpreter.engine.sure_schema import verdict
    from interpreter.ruleset.enum_from import resolved_inputs

    ruleset = load_ruleset(None)
    undecided = []
    for rule in ruleset.rules.values():
        schema = resolved_inputs(rule)
        if not isinstance(schema, dict):
            continue
        for example in rule.doc.get("examples") or []:
            given = example.get("input") if isinstance(example, dict) else None
            if not isinstance(given, dict):
                continue
            found = verdict(schema, given)
            if found is None:
                undecided.append((rule.id, example.get("name")))
            elif found:
                assert validate_instance(given, schema, {}, None) == [], (rule.id, example.get("name"))
    assert undecided == []
