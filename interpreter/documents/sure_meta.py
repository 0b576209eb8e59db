"""Whether a JSON Schema surely obeys the draft 2020-12 meta-schema, in plain Python: what the
checks of a document's ``inputs`` and of rule parameters ask of every schema a ruleset writes,
where jsonschema's meta-validation (``$dynamicRef`` resolved at every level) costs more than
validating the document itself.

It reads the keywords schemas are written with: the applicators (``properties``, ``items``,
``allOf``...), the validation keywords (``type``, ``enum``, ``required``, the bounds, lengths and
counts...), the annotations and ``$ref``/``$comment``/``$defs``. A keyword whose value the
meta-schema would refuse, a number that is not plainly one (``2.0`` for a count), any other
keyword of the draft's vocabularies (``$id``, ``$schema``, ``$anchor``, ``$dynamicRef``,
``dependencies``...) or a schema nested deeper than ``_MAX_DEPTH`` gives "cannot tell"; a word of
no vocabulary is allowed, as the meta-schema allows it. Only a sure yes is used: then
jsonschema would find nothing and is not asked; anything else goes to jsonschema, which finds
and words every problem as before, so no finding depends on this test.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_MAX_DEPTH = 64
_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_SCHEMA = frozenset({"items", "contains", "additionalProperties", "propertyNames", "if", "then", "else",
                     "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema"})
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})  # non-empty arrays of schemas
_SCHEMA_MAP = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
_COUNT = frozenset({"maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains",
                    "maxProperties", "minProperties"})
_NUMBER = frozenset({"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
_TEXT = frozenset({"title", "description", "$comment", "$ref", "pattern", "format", "contentEncoding",
                   "contentMediaType"})
_FLAG = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
_ARRAY = frozenset({"enum", "examples"})
_ANY = frozenset({"const", "default"})
# every other keyword the meta-schema (or the older drafts jsonschema still reads) constrains
_UNREAD = frozenset({"$id", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
                     "$recursiveRef", "$recursiveAnchor", "definitions", "dependencies", "additionalItems"})
# Every keyword of the draft (and of the older drafts jsonschema still reads), by what its value
# holds: one schema, a list of schemas, a mapping of names to schemas (validate's MPR060 walks these).
SUBSCHEMA, SUBSCHEMA_LIST = _SCHEMA | {"additionalItems"}, _SCHEMA_LIST
SUBSCHEMA_MAP = _SCHEMA_MAP | {"definitions"}
KEYWORDS = (_SCHEMA | _SCHEMA_LIST | _SCHEMA_MAP | _COUNT | _NUMBER | _TEXT | _FLAG | _ARRAY | _ANY | _UNREAD
            | {"type", "required", "dependentRequired", "multipleOf"})


def surely_a_schema(schema: Any) -> bool:
    """True only when the draft 2020-12 meta-schema finds nothing in ``schema`` (plain JSON data);
    False: ask jsonschema."""
    return _schema(schema, 0)


def _schema(node: Any, depth: int) -> bool:
    if node is True or node is False:
        return True
    if type(node) is not dict or depth > _MAX_DEPTH:
        return False
    return all(_keyword(key, value, depth + 1) for key, value in node.items())


def _keyword(key: str, value: Any, depth: int) -> bool:
    if key in _SCHEMA:
        return _schema(value, depth)
    if key in _SCHEMA_LIST:
        return type(value) is list and bool(value) and all(_schema(v, depth) for v in value)
    if key in _SCHEMA_MAP:
        return type(value) is dict and all(_schema(v, depth) for v in value.values())
    if key in _COUNT:
        return type(value) is int and value >= 0
    if key in _NUMBER:
        return type(value) in (int, float)
    if key in _TEXT:
        return type(value) is str
    if key in _FLAG:
        return type(value) is bool
    if key in _ARRAY:
        return type(value) is list
    if key == "type":
        return _types(value)
    if key == "required":
        return _names(value)
    if key == "dependentRequired":
        return type(value) is dict and all(_names(v) for v in value.values())
    if key == "multipleOf":
        return type(value) in (int, float) and value > 0
    return key in _ANY or key not in _UNREAD


def _types(value: Any) -> bool:
    if type(value) is str:
        return value in _TYPES
    return type(value) is list and bool(value) and all(type(v) is str and v in _TYPES for v in value) \
        and len(set(value)) == len(value)


def _names(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value) and len(set(value)) == len(value)
