"""Where a rule document holds expressions and names other rules: its kind schema marks every
string that holds an expression with ``"x-expression": "<role>"`` and every string that names
another rule with ``"x-rule-ref": true``; ``annotated_paths`` walks a document along its kind
schema to find them, so a new kind gets the expression and reference checks by annotating its
schema (``"x-binds": "<key>"`` on an object schema adds the name written at ``<key>`` for the
expressions inside it)."""
from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

from interpreter.documents import kind_schemas
from interpreter.documents.resources import schemas_dir
from interpreter.documents.schema_dispatch import dispatch_targets
from interpreter.ruleset.model import Rule

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


@cache
def schema_file(relative: str) -> dict[str, Any]:
    """A schema by its name under ``schemas/`` (a plugged-in kind's schema by the name it is known by)."""
    plugged = kind_schemas.read(relative)
    if plugged is not None:
        return plugged
    contents: dict[str, Any] = json.loads((schemas_dir() / relative).read_text(encoding="utf-8"))
    return contents


@cache
def kind_schema_file(kind: str) -> str | None:
    """The file under ``schemas/`` of the kind's schema, as ``rule.json`` dispatches to it, or the
    name of the schema of a kind plugged in from outside the package."""
    return dispatch_targets().get(kind) or kind_schemas.schema_for(kind)


@cache
def _resolve(ref: str, base: str) -> tuple[dict[str, Any], str]:
    """The schema a ``$ref`` in file ``base`` points to, and the file it is in."""
    # start-up: pathlib loads only when a schema's $ref is followed
    from pathlib import Path

    target, _, pointer = ref.partition("#")
    file = base if not target else str(Path(base).parent / target).replace("\\", "/")
    parts = [p for p in Path(file).parts if p != "."]
    while ".." in parts:
        i = parts.index("..")
        parts[i - 1:i + 1] = []
    file = "/".join(parts)
    node: Any = schema_file(file)
    for token in filter(None, pointer.split("/")):
        key = token.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, file


_REACHES: dict[tuple[int, str], bool] = {}


def _subschemas(schema: dict[str, Any], base: str) -> Iterator[tuple[Any, str]]:
    if "$ref" in schema:
        yield _resolve(schema["$ref"], base)
    for key in ("allOf", "oneOf", "anyOf", "prefixItems"):
        for sub in schema.get(key, ()):
            yield sub, base
    for key in ("properties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            yield sub, base
    for key in ("items", "additionalProperties"):
        yield schema.get(key), base


def _reaches(schema: dict[str, Any], base: str, keyword: str,
             walking: set[int] | None = None) -> bool:
    """Whether ``keyword`` appears in ``schema`` or in a schema it leads to. Memoised by node
    (the schema files are loaded once); a "no" found while inside a cycle of ``$ref``s is not
    remembered, since the rest of the cycle may still say "yes"."""
    key = (id(schema), keyword)
    known = _REACHES.get(key)
    if known is not None:
        return known
    walking = set() if walking is None else walking
    if id(schema) in walking:
        walking.add(-1)  # marks that a cycle was met
        return False
    walking.add(id(schema))
    found = keyword in schema or any(isinstance(sub, dict) and _reaches(sub, file, keyword, walking)
                                     for sub, file in _subschemas(schema, base))
    walking.discard(id(schema))
    if found or -1 not in walking:
        _REACHES[key] = found
    return found


def annotated_paths(instance: Any, schema: dict[str, Any], base: str, keyword: str,
                    path: tuple = (), bound: frozenset[str] = frozenset(),
                    depth: int = 0) -> Iterator[tuple[tuple, Any, frozenset[str]]]:
    """``(path, annotation, bound)`` for every string of ``instance`` whose schema carries
    ``keyword``; ``bound`` holds the names bound around it (``"x-binds": "<key>"`` on an object
    schema: the string at ``<key>`` names a variable for the expressions inside that object)."""
    found: list = []
    _annotated_into(found, instance, schema, base, keyword, path, bound, depth)
    return iter(flat(found))


class Alike:
    """Items of one list (``items``, at ``path``) that find the same annotated paths, being of
    one shape: the items at ``indexes``, each with ``known`` (path inside the item, annotation,
    bound names). A table of many rows is one of these, not a path per row."""

    __slots__ = ("path", "items", "indexes", "known")

    def __init__(self, path: tuple, items: list, known: list) -> None:
        self.path, self.items, self.known = path, items, known
        self.indexes: list[int] = []

    def flat(self) -> list[tuple[tuple, Any, frozenset[str]]]:
        path, known = self.path, self.known
        return [(path + (index,) + inner, note, names) for index in self.indexes
                for inner, note, names in known]


def flat(found: list) -> list[tuple[tuple, Any, frozenset[str]]]:
    """``(path, annotation, bound)`` in order, from what ``_annotated_into`` found (``Alike``
    groups among them)."""
    if not any(type(entry) is Alike for entry in found):
        return found
    out: list[tuple[tuple, Any, frozenset[str]]] = []
    for entry in found:
        if type(entry) is Alike:
            out.extend(entry.flat())
        else:
            out.append(entry)
    return out


def _annotated_into(found: list, instance: Any, schema: Any, base: str, keyword: str,
                    path: tuple, bound: frozenset[str], depth: int) -> None:
    """``annotated_paths`` appending to ``found`` (in the same order; the items of a list that
    are of one shape as an ``Alike``), without a chain of generators: a table of 100,000 rows is
    walked in one pass."""
    if depth > 40 or not isinstance(schema, dict) or not _reaches(schema, base, keyword):
        return
    binds = schema.get("x-binds")
    if binds and isinstance(instance, dict) and isinstance(instance.get(binds), str):
        bound = bound | {instance[binds]}
    if isinstance(schema.get("x-bound-names"), list):
        bound = bound | frozenset(map(str, schema["x-bound-names"]))
    if "$ref" in schema:
        target, file = _resolve(schema["$ref"], base)
        _annotated_into(found, instance, target, file, keyword, path, bound, depth + 1)
    for sub in schema.get("allOf", ()):
        _annotated_into(found, instance, sub, base, keyword, path, bound, depth + 1)
    for sub in [*schema.get("oneOf", ()), *schema.get("anyOf", ())]:
        if isinstance(sub, dict) and _type_fits(instance, sub.get("type")):
            _annotated_into(found, instance, sub, base, keyword, path, bound, depth + 1)
    if keyword in schema and isinstance(instance, str):
        found.append((path, schema[keyword], bound))
    if isinstance(instance, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, value in instance.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                _annotated_into(found, value, sub, base, keyword, path + (key,), bound, depth + 1)
    elif isinstance(instance, list):
        prefix = schema.get("prefixItems") or []
        items = schema.get("items")
        # Items of one shape (the same keys, values of the same types, none a list or mapping,
        # no key an x-binds reads) find the same paths: walked once.
        alike: dict[tuple, list] | None = None
        binding: frozenset = frozenset()
        if isinstance(items, dict):
            alike = {}
            binding = _binding_keys(items, base)
        if alike is not None and not prefix:  # every item by ``items``: a shape seen is not judged again
            group: Alike | None = None  # the items of one shape in a row, as one entry
            for index, value in enumerate(instance):
                known = None
                if type(value) is dict:
                    kinds = (tuple(value), tuple(map(type, value.values())))
                    known = alike.get(kinds)
                    if known is None:
                        known = _UNSHAPED
                        if _SCALARS.issuperset(kinds[1]) and binding.isdisjoint(value):
                            known = []
                            _annotated_into(known, value, items, base, keyword, (), bound, depth + 1)
                        alike[kinds] = known
                if known is None or known is _UNSHAPED:
                    group = None
                    _annotated_into(found, value, items, base, keyword, path + (index,), bound,
                                    depth + 1)
                elif known:
                    if group is None or group.known is not known:
                        group = Alike(path, instance, known)
                        found.append(group)
                    group.indexes.append(index)
            return
        for index, value in enumerate(instance):
            sub = prefix[index] if index < len(prefix) else items
            if not isinstance(sub, dict):
                continue
            shape = _shape(value, binding) if alike is not None and sub is items else None
            if shape is None:
                _annotated_into(found, value, sub, base, keyword, path + (index,), bound,
                                depth + 1)
                continue
            known = alike.get(shape)  # type: ignore[union-attr]
            if known is None:
                known = []
                _annotated_into(known, value, sub, base, keyword, (), bound, depth + 1)
                alike[shape] = known  # type: ignore[index]
            here = path + (index,)
            found.extend([(here + inner, note, names) for inner, note, names in known])


_SCALARS = frozenset((str, int, float, bool, type(None)))
_UNSHAPED: list = []  # a shape whose items are walked each (a list or mapping inside, a bound key)


def _shape(value: Any, binding: frozenset) -> tuple | None:
    """The keys of a mapping and the types of its values, when none is a list or a mapping
    and no key is one of ``binding``."""
    if type(value) is not dict:
        return None
    types = tuple(map(type, value.values()))
    if _SCALARS.issuperset(types) and binding.isdisjoint(value):
        return (tuple(value), types)
    return None


_BINDING: dict[int, frozenset] = {}


def _binding_keys(schema: dict[str, Any], base: str) -> frozenset:
    """Every key an ``x-binds`` of ``schema`` or of a schema it leads to reads (memoised by node,
    as ``_reaches``)."""
    known = _BINDING.get(id(schema))
    if known is not None:
        return known
    names: set = set()
    seen: set[int] = set()
    todo: list[tuple[Any, str]] = [(schema, base)]
    while todo:
        node, file = todo.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.get("x-binds"), str):
            names.add(node["x-binds"])
        todo.extend(_subschemas(node, file))
    found = _BINDING[id(schema)] = frozenset(names)
    return found


_TYPE_CHECKS: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None}


def _never(value: Any) -> bool:
    return False


def _type_fits(instance: Any, type_: Any) -> bool:
    if type_ is None:
        return True
    if type(type_) is str:
        return bool(_TYPE_CHECKS.get(type_, _never)(instance))
    types = type_ if isinstance(type_, list) else [type_]
    return any(_TYPE_CHECKS.get(t, _never)(instance) for t in types)


def annotated(rule: Rule, keyword: str) -> list[tuple[tuple, Any, frozenset[str]]]:
    return flat(annotated_groups(rule, keyword))


def annotated_groups(rule: Rule, keyword: str) -> list:
    """``annotated``, the items of a list that are of one shape as an ``Alike``."""
    file = kind_schema_file(rule.kind)
    if file is None:
        return []
    found: list = []
    _annotated_into(found, rule.doc, schema_file(file), file, keyword, (), frozenset(), 0)
    return found
