"""The validator class of mprules: draft 2020-12 with ``additionalProperties`` and
``unevaluatedProperties`` reporting one error per unknown key, each knowing the allowed names
(so a finding can point at the key and suggest the name that was meant), and ``pattern`` and
``patternProperties`` read as ECMA-262 regular expressions, as JSON Schema defines them, where
Python's ``re`` differs: ``$`` is the end of the text only, never before a final newline."""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema._utils import find_evaluated_property_keys_by_schema
from jsonschema.exceptions import ValidationError
from referencing.exceptions import Unresolvable


def ecma_pattern(pattern: str) -> str:
    """An ECMA-262 ``pattern`` (no flags) for Python's ``re``: each ``$`` outside a character
    class becomes ``\\Z``, since Python's ``$`` also matches before a newline that ends the text
    (``"abc\\n"`` would pass ``^abc$``)."""
    out: list[str] = []
    i, in_class, class_start = 0, False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = not (char == "]" and i > class_start)  # "[]...]": the first ] is literal
        elif char == "[":
            in_class = True
            class_start = i + 1 + (pattern[i + 1:i + 2] == "^")
        elif char == "$":
            char = r"\Z"
        out.append(char)
        i += 1
    return "".join(out)


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_pattern(pattern))


def pattern_matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the JSON Schema ``pattern`` anywhere (ECMA-262 semantics)."""
    return _compiled(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not pattern_matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict, instance: Any, schema: dict
                        ) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if pattern_matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: dict, schema: dict) -> list[str]:
    """The keys of ``instance`` that neither ``properties`` nor ``patternProperties`` take."""
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [key for key in instance
            if key not in named and not any(pattern_matches(p, key) for p in patterns)]


def _unknown_property(key: str, names: list[str]) -> ValidationError:
    error = ValidationError(f"unknown property {key!r}", path=(key,))
    error.mpr_known = names  # type: ignore[attr-defined]
    return error


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: dict
                           ) -> Iterator[ValidationError]:
    """``additionalProperties``, one error per unknown key (jsonschema gives one per object)."""
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if allowed is False:
        names = sorted(schema.get("properties", {}))
        for extra in extras:
            yield _unknown_property(extra, names)
    elif isinstance(allowed, dict):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)


def _unevaluated_properties(validator: Any, allowed: Any, instance: Any, schema: dict
                            ) -> Iterator[ValidationError]:
    """``unevaluatedProperties``, one error per unknown key, knowing the allowed names.

    A key declared anywhere in the schema counts as known even when the subschema declaring it
    failed: that failure is reported where it happened, not as a flood of unknown keys."""
    if not validator.is_type(instance, "object"):
        return
    evaluated = find_evaluated_property_keys_by_schema(validator, instance, schema)
    evaluated = [k for k in evaluated if not _only_by_python_dollar(validator, k, schema)]
    names: list[str] | None = None
    for key in instance:
        if key in evaluated:
            continue
        if names is None:
            names = sorted(property_names(validator, schema))
        if key in names:
            continue
        if allowed is False:
            yield _unknown_property(key, names)
        elif isinstance(allowed, dict):
            yield from validator.descend(instance[key], allowed, path=key)


def property_names(validator: Any, schema: Any) -> set[str]:
    """Every property name ``schema`` declares, through ``$ref`` and the combinators."""
    return {name for sub in _subschemas(validator, schema) for name in sub.get("properties", {})}


def _only_by_python_dollar(validator: Any, key: str, schema: dict) -> bool:
    """Whether ``key``, counted as evaluated by jsonschema (which reads patterns with Python's
    ``$``), is taken by no name, no ``additionalProperties`` and no pattern read as ECMA-262."""
    if not key.endswith("\n"):
        return False  # without a final newline, both readings of $ agree
    for sub in _subschemas(validator, schema):
        if key in sub.get("properties", {}) or "additionalProperties" in sub or \
                any(pattern_matches(p, key) for p in sub.get("patternProperties", {})):
            return False
    return True


def _subschemas(validator: Any, schema: Any, depth: int = 0) -> Iterator[dict]:
    """``schema`` and the schemas it reaches through ``$ref`` and the combinators."""
    if not isinstance(schema, dict) or depth > 12:
        return
    yield schema
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, ()):
            yield from _subschemas(validator, sub, depth + 1)
    for keyword in ("then", "else"):
        yield from _subschemas(validator, schema.get(keyword), depth + 1)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        try:
            resolved = validator._resolver.lookup(ref)
        except Unresolvable:
            return
        inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        yield from _subschemas(inner, resolved.contents, depth + 1)


Validator = validators.extend(Draft202012Validator, {
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
})
