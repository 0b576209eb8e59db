"""The validator class of mprules: draft 2020-12 with ``additionalProperties`` and
``unevaluatedProperties`` reporting one error per unknown key, each knowing the allowed names
(so a finding can point at the key and suggest the name that was meant)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema._utils import find_additional_properties, find_evaluated_property_keys_by_schema
from jsonschema.exceptions import ValidationError
from referencing.exceptions import Unresolvable


def _unknown_property(key: str, names: list[str]) -> ValidationError:
    error = ValidationError(f"unknown property {key!r}", path=(key,))
    error.mpr_known = names  # type: ignore[attr-defined]
    return error


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: dict
                           ) -> Iterator[ValidationError]:
    """``additionalProperties``, one error per unknown key (jsonschema gives one per object)."""
    if not validator.is_type(instance, "object"):
        return
    extras = list(find_additional_properties(instance, schema))
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
    names: list[str] | None = None
    for key in instance:
        if key in evaluated:
            continue
        if names is None:
            names = sorted(_property_names(validator, schema))
        if key in names:
            continue
        if allowed is False:
            yield _unknown_property(key, names)
        elif isinstance(allowed, dict):
            yield from validator.descend(instance[key], allowed, path=key)


def _property_names(validator: Any, schema: Any, depth: int = 0) -> set[str]:
    """Every property name ``schema`` declares, through ``$ref`` and the combinators."""
    if not isinstance(schema, dict) or depth > 12:
        return set()
    names = set(schema.get("properties", {}))
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, ()):
            names |= _property_names(validator, sub, depth + 1)
    for keyword in ("then", "else"):
        names |= _property_names(validator, schema.get(keyword), depth + 1)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        try:
            resolved = validator._resolver.lookup(ref)
        except Unresolvable:
            return names
        inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        names |= _property_names(inner, resolved.contents, depth + 1)
    return names


Validator = validators.extend(Draft202012Validator, {
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
})
