"""The compiled yes/no test of a schema keeps each property's answers for the texts and integers
it was asked about (a long table repeats a few conditions and values): asked again and again,
in any order, past the number of answers it keeps, it answers as the validator does, and a
value equal to a kept one but of another type (True, 1.0 for 1) is judged by itself."""
from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from interpreter.documents.schema_check import MAX_ANSWERS, compile_check

MANY = [f"r{i}" for i in range(MAX_ANSWERS + 20)] + ["R1", "r1", "1r", "r0"]

CASES: list[tuple[str, dict, list[Any]]] = [
    ("integer, then its look-alikes", {"type": "integer"},
     [1, True, 1.0, 1.5, "1", 1, False, 0, 0.0, True]),
    ("const 1 against True and 1.0", {"const": 1}, [1, True, 1.0, 1, True, 2]),
    ("const True against 1", {"const": True}, [True, 1, True, 1.0, False]),
    ("enum of texts", {"enum": ["a", "b"]}, ["a", "c", "a", "b", "c", 1]),
    ("pattern past the kept answers", {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
     MANY + MANY[::-1]),
    ("one of an integer or a text", {"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]},
     [1, "", "x", 1, "", True, "x", 2.0]),
    ("minimum", {"type": "integer", "minimum": 3}, [1, 5, 3, 1, 5, 2]),
]


@pytest.mark.parametrize("name,schema,values", CASES, ids=[c[0] for c in CASES])
def test_kept_answers_are_the_validators(name: str, schema: dict, values: list[Any]) -> None:
    whole = {"type": "object", "properties": {"v": schema, "w": {"type": "string"}},
             "additionalProperties": False}
    validator = Draft202012Validator(whole)
    check = compile_check(validator)
    for value in values:
        for document in ({"v": value}, {"w": "x", "v": value}):
            assert check(document) is validator.is_valid(document), (name, document)


ROW = {"type": "object", "properties": {"each": {"type": "string"}, "as": {"type": "string"},
                                        "when": {"type": "string"}},
       "required": ["when"], "additionalProperties": False,
       "dependentRequired": {"each": ["as"], "as": ["each"]}}
OBJECTS: list[tuple[str, dict, list[Any]]] = [
    ("dependentRequired with properties, in one test", ROW,
     [{"when": "x"}, {"when": "x", "each": "l"}, {"when": "x", "each": "l", "as": "e"},
      {"when": "x", "as": "e"}, {"each": "l", "as": "e"}, {"when": "x", "other": 1}, [], "x"]),
    ("dependentRequired without type object", {**{k: v for k, v in ROW.items() if k != "type"}},
     [{"when": "x", "as": "e"}, {"when": "x", "each": "l", "as": "e"}, 3, None]),
    ("dependentRequired naming a number", {"properties": {"a": {}}, "dependentRequired": {"a": [1]}},
     [{"a": 1}, {"b": 1}]),
]


@pytest.mark.parametrize("name,schema,values", OBJECTS, ids=[c[0] for c in OBJECTS])
def test_object_keywords_in_one_test(name: str, schema: dict, values: list[Any]) -> None:
    validator = Draft202012Validator(schema)
    check = compile_check(validator)
    for value in values * 2:
        assert check(value) is validator.is_valid(value), (name, value)
