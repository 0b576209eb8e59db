"""A yes/no test of a schema, compiled once into plain Python functions: whether a value passes
exactly where the validator of ``schema_keywords`` would report nothing.

``validate_instance`` asks it first: most documents pass, and for them this is the whole
validation. It never says yes where the validator would find something: a keyword it does not
compile is asked of the validator itself (for that subschema only), a key that
``unevaluatedProperties`` could take only through evaluation (not by a declared name) answers no,
and any exception answers no. A no only sends the value to the validator, which finds and words
the findings as before, so the findings, their codes and places never depend on this test."""
from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jsonschema._utils import equal, uniq
from referencing.exceptions import Unresolvable

from interpreter.documents.schema_keywords import pattern_matches, property_names

if TYPE_CHECKING:
    from referencing._core import Resolver

Check = Callable[[Any], bool]

def _is_integer(value: Any) -> bool:
    kind = type(value)
    if kind is int:  # the common cases first, without isinstance's walk
        return True
    if kind is float:
        return value.is_integer()
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    kind = type(value)
    if kind is int or kind is float:  # the common cases first: numbers.Number is an ABC, slow to ask
        return True
    return not isinstance(value, bool) and isinstance(value, numbers.Number)


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "integer": _is_integer, "number": _is_number,
    "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
}


class _Unsupported(Exception):
    """A keyword's value this compiler does not read: the validator answers for the subschema."""


class Compiler:
    """Compiles the schemas that ``validator`` (a validator of ``schema_keywords``) reaches."""

    def __init__(self, validator: Any) -> None:
        self.validator = validator
        self.known = frozenset(validator.VALIDATORS)
        self.done: dict[tuple[int, str], Check] = {}

    def compile_root(self) -> Check:
        return self.compile(self.validator.schema, self.validator._resolver, base=True)

    def compile(self, schema: Any, resolver: Resolver, *, base: bool = False) -> Check:
        """``schema`` as its validator reads it with ``resolver``; ``base``: reached as the root
        or through ``$ref`` (``resolver`` already stands in it). A subschema reached otherwise
        that sets its own ``$id`` is left to the validator of its parent, which knows how each
        keyword moves the base URI."""
        if schema is True:
            return _always
        if schema is False or not isinstance(schema, dict):
            return _never if schema is False else self._ask_validator(schema, resolver)
        if ("$id" in schema and not base) or "$schema" in schema:
            raise _Unsupported("$id")  # or another draft: the parent's validator reads it
        key = (id(schema), str(getattr(resolver, "_base_uri", "")))
        if key in self.done:
            return self.done[key]
        cell: list[Check] = []
        self.done[key] = lambda value: cell[0](value)  # a $ref back to a schema being compiled
        try:
            fused, done = _fused(self, schema, resolver)
            checks = [self._keyword(k, v, schema, resolver) for k, v in schema.items()
                      if k in self.known and k not in done]
            compiled = _all([c for c in [*fused, *checks] if c is not _always])
        except (_Unsupported, Unresolvable):
            compiled = self._ask_validator(schema, resolver)
        cell.append(compiled)
        self.done[key] = compiled
        return compiled

    def _ask_validator(self, schema: Any, resolver: Resolver) -> Check:
        return self.validator.evolve(schema=schema, _resolver=resolver).is_valid

    def _keyword(self, keyword: str, value: Any, schema: dict, resolver: Resolver) -> Check:
        build = _BUILDERS.get(keyword)
        if build is None:
            raise _Unsupported(keyword)
        return build(self, value, schema, resolver)

    def names(self, schema: dict, resolver: Resolver) -> frozenset[str]:
        return frozenset(property_names(self.validator.evolve(schema=schema, _resolver=resolver),
                                        schema))


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: bool(first(value)) and bool(second(value))
    if len(checks) == 3:
        first, second, third = checks
        return lambda value: bool(first(value)) and bool(second(value)) and bool(third(value))

    def check(value: Any) -> bool:
        for test in checks:
            if not test(value):
                return False
        return True
    return check


# -- a schema's keywords for one type checked in one function (each value is looked at once) ---

_OBJECT = ("properties", "required", "additionalProperties")
MAX_ANSWERS = 256  # the answers a property's test keeps (texts and integers), each
_TEXT = ("minLength", "maxLength", "pattern")


def _fused(c: Compiler, schema: dict, resolver: Resolver) -> tuple[list[Check], frozenset[str]]:
    """The checks of a schema's object keywords (``properties``, ``required`` and
    ``additionalProperties`` when no ``patternProperties`` shares the extra keys) and of its text
    keywords under ``type: string``, each group as one function that reads the value once, and
    the keywords they cover (the others are compiled one by one)."""
    checks: list[Check] = []
    done: set[str] = set()
    kind = schema.get("type")
    if "properties" in schema and isinstance(schema["properties"], dict):
        group = [k for k in _OBJECT if k in schema and (k != "additionalProperties"
                                                         or "patternProperties" not in schema)]
        needs = schema.get("dependentRequired")
        if isinstance(needs, dict) and all(isinstance(v, list) for v in needs.values()):
            group.append("dependentRequired")
        checks.append(_object_check(c, schema, resolver, kind == "object", group))
        done.update(group)
        if kind == "object":
            done.add("type")
    elif kind == "string" and any(k in schema for k in _TEXT):
        checks.append(_text_check(schema))
        done.update(k for k in _TEXT if k in schema)
        done.add("type")
    return checks, frozenset(done)


def _object_check(c: Compiler, schema: dict, resolver: Resolver, typed: bool, group: list[str]) -> Check:
    """``properties`` (with ``required``, ``additionalProperties`` and ``dependentRequired``
    when in ``group``): a mapping's keys once each; ``typed``: ``type: object`` too (else any
    other value passes)."""
    # each property's test, and its answers for the texts and integers it was asked about (a
    # test is a function of the value alone: a table's rows repeat a few conditions and values)
    tests: dict[str, tuple[Check, dict[Any, bool]]] = {
        name: (c.compile(sub, resolver), {}) for name, sub in schema["properties"].items()}
    required = list(schema["required"]) if "required" in group else []
    needs = [(name, list(others)) for name, others in schema["dependentRequired"].items()] \
        if "dependentRequired" in group else []
    extra: Check | None = None
    if "additionalProperties" in group:
        allowed = schema["additionalProperties"]
        extra = _never if allowed is False else \
            c.compile(allowed, resolver) if isinstance(allowed, dict) else None
    get = tests.get

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return not typed
        for key, item in value.items():
            found = get(key)
            if found is None:
                if extra is not None and not extra(item):
                    return False
                continue
            test, answers = found
            kind = type(item)
            if kind is str or kind is int:  # exactly: True and 1.0 are equal to 1 as keys
                passes = answers.get(item)
                if passes is None:
                    passes = bool(test(item))
                    if len(answers) < MAX_ANSWERS:
                        answers[item] = passes
                if not passes:
                    return False
            elif not test(item):
                return False
        for name in required:
            if name not in value:
                return False
        return _dependents_present(value, needs)
    return check


def _text_check(schema: dict) -> Check:
    """``type: string`` with its ``minLength``, ``maxLength`` and ``pattern``."""
    low, high, pattern = schema.get("minLength"), schema.get("maxLength"), schema.get("pattern")

    def check(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        if low is not None and len(value) < low:
            return False
        if high is not None and len(value) > high:
            return False
        return pattern is None or pattern_matches(pattern, value)
    return check


Builder = Callable[[Compiler, Any, dict, "Resolver"], Check]


def _type(c: Compiler, types: Any, schema: dict, resolver: Resolver) -> Check:
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, list) or any(n not in _TYPES for n in names):
        raise _Unsupported("type")
    tests = [_TYPES[n] for n in names]
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _properties(c: Compiler, properties: dict, schema: dict, resolver: Resolver) -> Check:
    checks = [(name, c.compile(sub, resolver)) for name, sub in properties.items()]

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name, test in checks:
            if name in value and not test(value[name]):
                return False
        return True
    return check


def _required(c: Compiler, required: list, schema: dict, resolver: Resolver) -> Check:
    names = list(required)
    return lambda value: not isinstance(value, dict) or all(n in value for n in names)


def _extras(schema: dict) -> Callable[[dict], list[str]]:
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return lambda value: [key for key in value if key not in named
                          and not any(pattern_matches(p, key) for p in patterns)]


def _additional(c: Compiler, allowed: Any, schema: dict, resolver: Resolver) -> Check:
    extras = _extras(schema)
    if allowed is False:
        return lambda value: not isinstance(value, dict) or not extras(value)
    if not isinstance(allowed, dict):
        return _always
    test = c.compile(allowed, resolver)
    return lambda value: not isinstance(value, dict) or all(test(value[k]) for k in extras(value))


def _pattern_properties(c: Compiler, patterns: dict, schema: dict, resolver: Resolver) -> Check:
    checks = [(pattern, c.compile(sub, resolver)) for pattern, sub in patterns.items()]
    return lambda value: not isinstance(value, dict) or all(
        test(item) for pattern, test in checks for key, item in value.items()
        if pattern_matches(pattern, key))


def _unevaluated(c: Compiler, allowed: Any, schema: dict, resolver: Resolver) -> Check:
    if allowed is not False and not isinstance(allowed, dict):
        return _always  # the validator refuses no key then
    names = c.names(schema, resolver)
    return lambda value: not isinstance(value, dict) or all(key in names for key in value)


def _property_names(c: Compiler, sub: Any, schema: dict, resolver: Resolver) -> Check:
    test = c.compile(sub, resolver)
    return lambda value: not isinstance(value, dict) or all(test(key) for key in value)


def _items(c: Compiler, items: Any, schema: dict, resolver: Resolver) -> Check:
    prefix = len(schema.get("prefixItems", []))
    test = c.compile(items, resolver)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        for item in value[prefix:] if prefix else value:
            if not test(item):
                return False
        return True
    return check


def _prefix_items(c: Compiler, prefix: list, schema: dict, resolver: Resolver) -> Check:
    tests = [c.compile(sub, resolver) for sub in prefix]
    return lambda value: not isinstance(value, list) or all(
        test(item) for test, item in zip(tests, value))


def _const(c: Compiler, const: Any, schema: dict, resolver: Resolver) -> Check:
    return lambda value: equal(value, const)


def _enum(c: Compiler, enum: Any, schema: dict, resolver: Resolver) -> Check:
    if not isinstance(enum, list):
        raise _Unsupported("enum")
    if all(type(e) is str for e in enum):
        allowed = frozenset(enum)  # a text equals only a text
        return lambda value: value in allowed if type(value) is str else \
            any(equal(e, value) for e in enum)
    return lambda value: any(equal(e, value) for e in enum)


def _length(low: bool) -> Builder:
    def build(c: Compiler, bound: int, schema: dict, resolver: Resolver) -> Check:
        if low:
            return lambda value: not isinstance(value, str) or len(value) >= bound
        return lambda value: not isinstance(value, str) or len(value) <= bound
    return build


def _count(kind: type[list] | type[dict], low: bool) -> Builder:
    def build(c: Compiler, bound: int, schema: dict, resolver: Resolver) -> Check:
        if low:
            return lambda value: not isinstance(value, kind) or len(value) >= bound
        return lambda value: not isinstance(value, kind) or len(value) <= bound
    return build


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, b: v >= b, "maximum": lambda v, b: v <= b,
    "exclusiveMinimum": lambda v, b: v > b, "exclusiveMaximum": lambda v, b: v < b,
}


def _bound(keyword: str) -> Builder:
    passes = _COMPARE[keyword]

    def build(c: Compiler, bound: Any, schema: dict, resolver: Resolver) -> Check:
        return lambda value: not _is_number(value) or passes(value, bound)
    return build


def _unique(c: Compiler, unique: Any, schema: dict, resolver: Resolver) -> Check:
    if not unique:
        return _always
    return lambda value: not isinstance(value, list) or uniq(value)


def _pattern(c: Compiler, pattern: str, schema: dict, resolver: Resolver) -> Check:
    return lambda value: not isinstance(value, str) or pattern_matches(pattern, value)


def _all_of(c: Compiler, subs: list, schema: dict, resolver: Resolver) -> Check:
    return _all([c.compile(sub, resolver) for sub in subs])


def _any_of(c: Compiler, subs: list, schema: dict, resolver: Resolver) -> Check:
    tests = [c.compile(sub, resolver) for sub in subs]
    return lambda value: any(test(value) for test in tests)


def _one_of(c: Compiler, subs: list, schema: dict, resolver: Resolver) -> Check:
    tests = [c.compile(sub, resolver) for sub in subs]
    if len(tests) == 2:  # every test is run, as below
        first, second = tests
        return lambda value: bool(first(value)) is not bool(second(value))
    return lambda value: sum(1 for test in tests if test(value)) == 1


def _not(c: Compiler, sub: Any, schema: dict, resolver: Resolver) -> Check:
    test = c.compile(sub, resolver)
    return lambda value: not test(value)


def _if(c: Compiler, sub: Any, schema: dict, resolver: Resolver) -> Check:
    condition = c.compile(sub, resolver)
    then = c.compile(schema["then"], resolver) if "then" in schema else _always
    otherwise = c.compile(schema["else"], resolver) if "else" in schema else _always
    return lambda value: then(value) if condition(value) else otherwise(value)


def _dependents_present(value: dict, needs: Any) -> bool:
    """``dependentRequired``: every name ``needs`` (pairs of a name and the names it needs) lists
    beside a name ``value`` has is there too."""
    for name, others in needs:
        if name in value:
            for other in others:
                if other not in value:
                    return False
    return True


def _dependent_required(c: Compiler, needs: dict, schema: dict, resolver: Resolver) -> Check:
    pairs = list(needs.items())
    return lambda value: not isinstance(value, dict) or _dependents_present(value, pairs)


def _dependent_schemas(c: Compiler, subs: dict, schema: dict, resolver: Resolver) -> Check:
    tests = [(name, c.compile(sub, resolver)) for name, sub in subs.items()]
    return lambda value: not isinstance(value, dict) or all(
        test(value) for name, test in tests if name in value)


def _ref(c: Compiler, ref: str, schema: dict, resolver: Resolver) -> Check:
    resolved = resolver.lookup(ref)  # Unresolvable: the validator answers (and reports it)
    return c.compile(resolved.contents, resolved.resolver, base=True)


_BUILDERS: dict[str, Builder] = {
    "type": _type, "properties": _properties, "required": _required,
    "additionalProperties": _additional, "patternProperties": _pattern_properties,
    "unevaluatedProperties": _unevaluated, "propertyNames": _property_names,
    "items": _items, "prefixItems": _prefix_items, "const": _const, "enum": _enum,
    "minLength": _length(True), "maxLength": _length(False),
    "minItems": _count(list, True), "maxItems": _count(list, False),
    "minProperties": _count(dict, True), "maxProperties": _count(dict, False),
    **{keyword: _bound(keyword) for keyword in _COMPARE}, "uniqueItems": _unique,
    "pattern": _pattern, "allOf": _all_of, "anyOf": _any_of, "oneOf": _one_of, "not": _not,
    "if": _if, "dependentRequired": _dependent_required, "dependentSchemas": _dependent_schemas,
    "$ref": _ref,
}


def compile_check(validator: Any) -> Check:
    """The yes/no test of ``validator``'s schema; a value it passes has no finding. Any error
    while testing counts as a no."""
    try:
        test = Compiler(validator).compile_root()
    except Exception:  # the schema itself is broken: the validator reports how
        return _never

    def check(value: Any) -> bool:
        try:
            return test(value)
        except Exception:  # a RecursionError, an unresolvable $ref: let the validator word it
            return False
    return check
