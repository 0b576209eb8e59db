"""The compiled yes/no test of a schema (``schema_check``) answers as the validator does: it
passes every bundled document, and on thousands of broken variants of them (a value replaced,
a key removed or added) it says yes exactly when the validator finds nothing."""
from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from interpreter.documents import kind_schemas
from interpreter.documents import schema as schema_module
from interpreter.documents.loader import load_file
from interpreter.documents.resources import rulesets_dir
from interpreter.documents.schema import instance_validator, validator_for
from interpreter.documents.schema_check import compile_check
from interpreter.documents.schema_dispatch import direct_schema

FILES = sorted(rulesets_dir().rglob("*.yaml"))
REPLACEMENTS: list[Any] = [None, "x", "", 1, -3, 1.5, True, [], ["x"], {}, {"zz_unknown": 1}]
PER_DOCUMENT = 12  # broken variants checked per document, spread over all of it


def _schema_name(path: Path, data: Any) -> str:
    return "ruleset.json" if path.name == "ruleset.yaml" else direct_schema("rule.json", data)


def _paths(data: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from _paths(value, (*path, key))


def _at(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def _changed(data: Any, path: tuple, change: Any) -> Any:
    """``data`` with the value at ``path`` replaced (or removed: ``_REMOVE``, or given an unknown
    key: ``_ADD``), leaving ``data`` itself as it was."""
    if not path and change not in (_REMOVE, _ADD):
        return change
    changed = copy.deepcopy(data)
    if change is _ADD:
        target = _at(changed, path)
        if isinstance(target, dict):
            target["zz_unknown"] = 1
        return changed
    holder = _at(changed, path[:-1])
    if change is _REMOVE:
        del holder[path[-1]]
    else:
        holder[path[-1]] = change
    return changed


_REMOVE, _ADD = object(), object()


def _variants(data: Any, count: int) -> Iterator[Any]:
    """About ``count`` broken variants of ``data``, spread over it: a value replaced, a key
    removed, an unknown key added."""
    recipes = []
    for number, path in enumerate(_paths(data)):
        recipes += [(path, r) for r in REPLACEMENTS[number % 3::3]]
        if path and isinstance(path[-1], str):
            recipes.append((path, _REMOVE))
        if isinstance(_at(data, path), dict):
            recipes.append((path, _ADD))
    for path, change in recipes[::max(1, len(recipes) // count)]:
        yield _changed(data, path, change)


_COMPILED: dict[int, tuple[Any, Any]] = {}


def _agrees(validator: Any, data: Any) -> tuple[bool, bool]:
    if id(validator) not in _COMPILED:
        _COMPILED[id(validator)] = (validator, compile_check(validator))
    fast = _COMPILED[id(validator)][1](data)
    slow = not any(True for _ in validator.iter_errors(data))
    return fast, slow


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(rulesets_dir())))
def test_the_test_agrees_with_the_validator(path: Path) -> None:
    disagree = []
    for doc in load_file(path):
        fast, slow = _agrees(validator_for(_schema_name(path, doc.data)), doc.data)
        assert fast == slow
        assert fast or "plans" in path.parts  # a plan is not a rule: its findings are expected
        for variant in _variants(doc.data, PER_DOCUMENT):
            fast, slow = _agrees(validator_for(_schema_name(path, variant)), variant)
            if fast != slow:
                disagree.append((variant, fast, slow))
    assert disagree == []


@pytest.mark.parametrize("path", [p for p in FILES if p.name != "ruleset.yaml"][:8],
                         ids=lambda p: p.name)
def test_inputs_schemas_agree_on_the_examples(path: Path) -> None:
    for doc in load_file(path):
        inputs = doc.data.get("inputs") if isinstance(doc.data, dict) else None
        if not isinstance(inputs, dict):
            continue
        validator = instance_validator(inputs)
        for example in doc.data.get("examples") or []:
            given = example.get("input") if isinstance(example, dict) else None
            for variant in [given, *_variants(given, 30)] if isinstance(given, dict) else ():
                fast, slow = _agrees(validator, variant)
                assert fast == slow, variant


@pytest.mark.parametrize(("schema", "data", "valid"), [
    ({"$id": "https://elsewhere.invalid/x.json", "type": "string"}, 1, False),
    ({"properties": {"a": {"$id": "sub/", "type": "integer"}}}, {"a": "x"}, False),
    ({"unevaluatedProperties": False, "patternProperties": {"^x": {}}}, {"xa": 1}, True),
    ({"unevaluatedProperties": False, "properties": {"a": {}}}, {"b": 1}, False),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, False),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, 1, True),
    ({"enum": ["a", 1]}, True, False),
    ({"const": 1}, 1.0, True),
    ({"uniqueItems": True}, [1, True], True),
    ({"pattern": "^a$"}, "a\n", False),
    ({"$ref": "#/$defs/n", "$defs": {"n": {"type": "object",
                                          "properties": {"next": {"$ref": "#/$defs/n"}}}}},
     {"next": {"next": {"next": 1}}}, False),
    ({"format": "email"}, "not an email", True),
])
def test_edge_cases_answer_as_the_validator(schema: dict, data: Any, valid: bool) -> None:
    validator = instance_validator(schema)
    slow = not any(True for _ in validator.iter_errors(data))
    assert slow == valid
    assert compile_check(validator)(data) is (valid and "patternProperties" not in schema)


def test_another_draft_is_left_to_the_validator() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}
    assert compile_check(instance_validator(schema))("text") is False


def test_validate_instance_takes_the_fast_path_only_for_clean_data(monkeypatch) -> None:
    asked = []
    real = schema_module.validator_for
    monkeypatch.setattr(schema_module, "validator_for", lambda name: asked.append(name) or real(name))
    kind_schemas.key()
    manifest = {"id": "a", "version": "1.0.0", "title": {"en": "A"}}
    assert schema_module.validate_instance(manifest, "ruleset.json", None, None) == []
    assert asked == []
    found = schema_module.validate_instance({**manifest, "id": 1}, "ruleset.json", None, None)
    assert asked == ["ruleset.json"] and found
