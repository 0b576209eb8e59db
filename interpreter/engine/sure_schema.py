"""Whether a value surely passes a JSON Schema (draft 2020-12), in plain Python, without jsonschema:
what a run asks of its input before the rule runs, where jsonschema (with referencing and attrs)
costs more than the whole command.

It reads the keywords that inputs are written with (``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``enum``, ``const``, the bounds, the lengths and counts,
``uniqueItems``, ``allOf``/``anyOf``/``oneOf``/``not``, ``if``/``then``/``else``,
``dependentRequired``, ``$ref`` to a place in the same schema such as ``#/$defs/shift``, and the
``$defs`` it points into) and the annotations. Each keyword gives yes, no or "cannot tell"; any other
keyword of the draft (a ``$ref`` elsewhere, ``$id``, ``pattern``, ``patternProperties``...), a keyword whose value the
meta-schema would refuse, or a value that is not plain JSON data gives "cannot tell"; a word
outside the draft is ignored, as the validator ignores it. Only a sure yes is
used: then the validator would find nothing, and the run skips it. Anything else goes to the
validator (``documents.schema.validate_instance``), which finds and words every finding as before,
so no finding depends on this test.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    Schema = dict[str, Any]

_MAX_DEPTH = 64
_MAX_PAIRS = 256  # items of a list compared pairwise for uniqueItems, at most
_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")
_ANNOTATIONS = {"description": str, "title": str, "$comment": str, "examples": list,
                "deprecated": bool, "readOnly": bool, "writeOnly": bool}


# The keywords of draft 2020-12 (and the older ones jsonschema still reads) not read here.
_UNREAD = frozenset({
    "$dynamicRef", "$id", "$schema", "$anchor", "$dynamicAnchor", "$vocabulary",
    "$recursiveRef", "$recursiveAnchor", "dependencies", "additionalItems",
    "pattern", "patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
    "prefixItems", "contains", "minContains", "maxContains", "dependentSchemas", "multipleOf",
    "format", "contentEncoding", "contentMediaType", "contentSchema"})


class _Malformed(Exception):
    """A keyword's value the meta-schema refuses: the validator reports the schema itself."""


# The schema a ``$ref`` of the one being read points into (a stack: a caller may nest checks).
_ROOTS: list[Any] = []


def surely_passes(schema: Any, value: Any) -> bool:
    """True only when ``value`` has no finding against ``schema``; False: ask the validator."""
    return verdict(schema, value) is True


def verdict(schema: Any, value: Any) -> bool | None:
    """True: no finding; False: surely a finding; None: only the validator can tell."""
    _ROOTS.append(schema)
    try:
        return _check(schema, value, 0)
    except (_Malformed, RecursionError, TypeError, ValueError):
        return None
    finally:
        _ROOTS.pop()


def _kind(value: Any) -> str | None:
    """The JSON kind of a value of plain data; None for anything else (a date, bytes...)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    kind = type(value)
    if kind is int or kind is float:
        return "number"
    if kind is str:
        return "string"
    if kind is list:
        return "array"
    if kind is dict:
        return "object"
    return None


def _is_type(value: Any, name: str) -> bool | None:
    kind = _kind(value)
    if kind is None:
        return None
    if name == "integer":
        return kind == "number" and (type(value) is int or float(value).is_integer())
    return kind == name


def _both(results: Any) -> bool | None:
    """Every part passes: no if one fails (surely), else cannot tell if one cannot tell."""
    unsure = False
    for result in results:
        if result is False:
            return False
        if result is None:
            unsure = True
    return None if unsure else True


def equal(a: Any, b: Any) -> bool | None:
    """JSON equality (true is not 1, 1 is 1.0), or None for values that are not plain data."""
    ka, kb = _kind(a), _kind(b)
    if ka is None or kb is None:
        return None
    if ka != kb:
        return False
    if ka == "array":
        if len(a) != len(b):
            return False
        return _both(equal(x, y) for x, y in zip(a, b))
    if ka == "object":
        if set(a) != set(b):
            return False
        return _both(equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _schema(value: Any) -> Any:
    if value is True or value is False or isinstance(value, dict):
        return value
    raise _Malformed(value)


def _schemas(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise _Malformed(value)
    return [_schema(v) for v in value]


def _whole(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise _Malformed(value)
    return value


def _number(value: Any) -> int | float:
    if _kind(value) != "number":
        raise _Malformed(value)
    number: int | float = value
    return number


def _check(schema: Any, value: Any, depth: int) -> bool | None:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        raise _Malformed(schema)
    results = [_keyword(key, arg, schema, value, depth + 1) for key, arg in schema.items()]
    return _both(results)


def _keyword(key: str, arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if key in _ANNOTATIONS:
        if not isinstance(arg, _ANNOTATIONS[key]):
            raise _Malformed(arg)
        return True
    if key == "default" or (isinstance(key, str) and key.startswith("x-")):
        return True
    rule = _KEYWORDS.get(key)
    if rule is None:  # $ref, pattern, format and the rest of draft 2020-12: the validator knows
        return None if key in _UNREAD else True  # a word outside the draft: ignored, as jsonschema does
    found: bool | None = rule(arg, schema, value, depth)
    return found


def _type(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    names = [arg] if isinstance(arg, str) else arg
    if not isinstance(names, list) or not names or any(n not in _TYPES for n in names) \
            or len(set(names)) != len(names):
        raise _Malformed(arg)
    found = [_is_type(value, n) for n in names]
    if True in found:
        return True
    return None if None in found else False


def _properties(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if not isinstance(arg, dict):
        raise _Malformed(arg)
    subs = {k: _schema(v) for k, v in arg.items()}
    if type(value) is not dict:
        return True if _kind(value) is not None else None
    return _both(_check(sub, value[k], depth) for k, sub in subs.items() if k in value)


def _required(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if not isinstance(arg, list) or any(type(n) is not str for n in arg) or len(set(arg)) != len(arg):
        raise _Malformed(arg)
    if type(value) is not dict:
        return True if _kind(value) is not None else None
    return all(n in value for n in arg)


def _additional(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    sub = _schema(arg)
    if "patternProperties" in schema:
        return None
    if type(value) is not dict:
        return True if _kind(value) is not None else None
    named = schema.get("properties") or {}
    return _both(_check(sub, v, depth) for k, v in value.items() if k not in named)


def _items(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    sub = _schema(arg)
    if "prefixItems" in schema:
        return None
    if type(value) is not list:
        return True if _kind(value) is not None else None
    return _both(_check(sub, v, depth) for v in value)


def _enum(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if not isinstance(arg, list):
        raise _Malformed(arg)
    found = [equal(value, option) for option in arg]
    if True in found:
        return True
    return None if None in found else False


def _const(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    return equal(value, arg)


def _bound(test: Any) -> Any:
    def rule(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
        limit = _number(arg)
        kind = _kind(value)
        if kind is None:
            return None
        return kind != "number" or bool(test(value, limit))
    return rule


def _size(of: str, low: bool) -> Any:
    def rule(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
        limit = _whole(arg)
        kind = _kind(value)
        if kind is None:
            return None
        if kind != of:
            return True
        return len(value) >= limit if low else len(value) <= limit
    return rule


def _unique(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if type(arg) is not bool:
        raise _Malformed(arg)
    if not arg or type(value) is not list:
        return True if _kind(value) is not None else None
    if len(value) > _MAX_PAIRS:  # pairs grow as the square: the validator sorts instead
        return None
    unsure = False
    for i, x in enumerate(value):
        for y in value[i + 1:]:
            same = equal(x, y)
            if same is True:
                return False
            unsure = unsure or same is None
    return None if unsure else True


def _all_of(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    return _both([_check(sub, value, depth) for sub in _schemas(arg)])


def _any_of(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    found = [_check(sub, value, depth) for sub in _schemas(arg)]
    if True in found:
        return True
    return None if None in found else False


def _one_of(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    found = [_check(sub, value, depth) for sub in _schemas(arg)]
    if None in found:
        return None
    return found.count(True) == 1


def _not(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    found = _check(_schema(arg), value, depth)
    return None if found is None else not found


def _if(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    condition = _check(_schema(arg), value, depth)
    then, otherwise = _schema(schema.get("then", True)), _schema(schema.get("else", True))
    if condition is None:
        return None
    return _check(then if condition else otherwise, value, depth)


def _branch(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    _schema(arg)
    return True  # then/else: read by ``if`` (and ignored without it)


def _dependent_required(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    if not isinstance(arg, dict):
        raise _Malformed(arg)
    for names in arg.values():
        _required(names, schema, {}, depth)
    if type(value) is not dict:
        return True if _kind(value) is not None else None
    return all(all(n in value for n in names) for key, names in arg.items() if key in value)


def _ref(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    """``$ref`` to a place in the same schema (``#``, ``#/$defs/NAME``, any JSON pointer from the
    root); a reference elsewhere (a file, an anchor, under an ``$id``) is the validator's."""
    if type(arg) is not str:
        raise _Malformed(arg)
    root = _ROOTS[-1] if _ROOTS else None
    if not arg.startswith("#") or (arg != "#" and not arg.startswith("#/")) or "%" in arg \
            or (isinstance(root, dict) and "$id" in root):
        return None
    target: Any = root
    for part in arg[2:].split("/") if arg != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return None  # nowhere: the validator says so
    return _check(_schema(target), value, depth)


def _defs(arg: Any, schema: Schema, value: Any, depth: int) -> bool | None:
    """``$defs``: schemas for ``$ref`` to point at, no assertion of their own."""
    if not isinstance(arg, dict):
        raise _Malformed(arg)
    for sub in arg.values():
        _schema(sub)
    return True


_KEYWORDS = {
    "$ref": _ref, "$defs": _defs, "definitions": _defs,
    "type": _type, "properties": _properties, "required": _required,
    "additionalProperties": _additional, "items": _items, "enum": _enum, "const": _const,
    "minimum": _bound(lambda v, limit: v >= limit), "maximum": _bound(lambda v, limit: v <= limit),
    "exclusiveMinimum": _bound(lambda v, limit: v > limit),
    "exclusiveMaximum": _bound(lambda v, limit: v < limit),
    "minLength": _size("string", True), "maxLength": _size("string", False),
    "minItems": _size("array", True), "maxItems": _size("array", False),
    "minProperties": _size("object", True), "maxProperties": _size("object", False),
    "uniqueItems": _unique, "allOf": _all_of, "anyOf": _any_of, "oneOf": _one_of, "not": _not,
    "if": _if, "then": _branch, "else": _branch, "dependentRequired": _dependent_required,
}
