"""Allowed values written once: a schema inside a rule's ``inputs`` may say
``x-enum-from: <expression of params>`` (e.g. ``params.materials_0 + params.materials_1``) instead
of listing an ``enum``; the list the expression gives, with the effective parameters, is the enum.
So a variant that adds a value to a parameter list makes the input accept it, in one edit.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic

from interpreter.documents.plain import plain_copy
from interpreter.ruleset.model import Rule

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

KEYWORD = "x-enum-from"
_CACHE = ("__inputs_with_enums__",)

NOT_A_LIST = define(
    "MPR429", "x-enum-from of rule {rule} gives {value}, not a list of values",
    "ルール {rule} の x-enum-from の値が {value} で、値のリストではありません")
NOT_PARAMS = define(
    "MPR433", "x-enum-from of rule {rule} reads {name!r}: it may only read the parameters (params.NAME)",
    "ルール {rule} の x-enum-from が {name!r} を読んでいます。読めるのはパラメータ（params.名前）だけです")


def _places(schema: Any, path: tuple) -> Iterator[tuple[tuple, dict]]:
    """Every subschema (with its path in the document) that carries ``x-enum-from``."""
    if isinstance(schema, dict):
        if isinstance(schema.get(KEYWORD), str):
            yield path, schema
        for key, value in schema.items():
            if key not in ("enum", "const", "default", "examples"):
                yield from _places(value, (*path, key))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _places(value, (*path, index))


def _values(rule: Rule, path: tuple) -> list[Any]:
    expression = rule.expression(*path, KEYWORD)
    value = expression.evaluate({"params": rule.params}, None)
    if not isinstance(value, list) or any(isinstance(v, (list, dict)) for v in value):
        raise MprError(NOT_A_LIST, rule.loc(*path, KEYWORD), rule=rule.id, value=repr(value))
    return list(dict.fromkeys(value))


def resolved_inputs(rule: Rule) -> Any:
    """The rule's ``inputs`` schema with each ``x-enum-from`` replaced by the ``enum`` it gives
    (with the effective parameters); the document's own schema when it has none."""
    schema = rule.doc.get("inputs")
    places = list(_places(schema, ("inputs",)))
    if not places:
        return schema
    cached = rule._compiled.get(_CACHE)
    if cached is not None:
        return cached
    resolved = plain_copy(schema)
    for path, _ in places:
        node: Any = resolved
        for key in path[1:]:
            node = node[key]
        node["enum"] = _values(rule, path)
        del node[KEYWORD]
    rule._compiled[_CACHE] = resolved
    return resolved


def check_enum_from(rule: Rule, lang: str = "en") -> Iterator[Diagnostic]:
    """Each ``x-enum-from`` compiles, reads only ``params`` and gives a list."""
    for path, _ in _places(rule.doc.get("inputs"), ("inputs",)):
        try:
            expression = rule.expression(*path, KEYWORD)
        except MprError as error:
            yield error.diagnostic(lang)
            continue
        others = sorted(expression.names - {"params"})
        for name in others:
            yield diagnostic(NOT_PARAMS, rule.loc(*path, KEYWORD), lang, rule=rule.id, name=name)
        if others:
            continue
        try:
            _values(rule, path)
        except MprError as error:
            yield error.at(rule.loc(*path, KEYWORD)).diagnostic(lang)
