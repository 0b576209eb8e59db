"""JSON Schema (draft 2020-12) validation of documents, with every error mapped back to
file:line:column in Japanese or English. Schemas come from the local ``schemas/`` directory only:
a ``$ref`` to anything else is a finding, never fetched."""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from rules_dsl.errors import Diagnostic, Location, MprError, diagnostic
from interpreter.documents import kind_schemas
from interpreter.documents import schema_messages as msg
from interpreter.documents.loader import KEY, Document, locate, reading_notes
from interpreter.documents.regex_safety import BACKTRACKING, backtracking_risk
from interpreter.documents.resources import schemas_dir
from interpreter.documents.schema_dispatch import BASE, direct_schema, dispatch_schema, write_rule_json
from interpreter.documents.schema_dispatch import dispatch_targets
from interpreter.documents.schema_check import Check, compile_check
from interpreter.documents.schema_keywords import Validator as _Validator
from interpreter.documents.sure_meta import surely_a_schema
from interpreter.documents.typing_mistakes import FULLWIDTH_NUMBER, fullwidth_number

__all__ = ["BASE", "dispatch_schema", "instance_validator", "main", "passes", "validate_document",
           "validate_instance", "validator_for", "write_dispatch"]

Path_ = tuple[str | int, ...]


def _registry() -> Registry:
    return _registry_with(kind_schemas.key())


@cache
def _registry_with(plugged: tuple[tuple[str, str], ...]) -> Registry:
    """Every ``*.json`` under schemas/, by its ``$id`` (a relative ``$id`` is relative to BASE),
    and the schema of every kind plugged in from outside the package, beside the package's kinds
    (``interpreter.documents.kind_schemas``)."""
    root = schemas_dir()
    resources: list[tuple[str, Resource]] = []
    for path in sorted(root.rglob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        uri = BASE + path.relative_to(root).as_posix()
        if isinstance(contents, dict):
            declared = urljoin(BASE, contents.get("$id") or uri)
            # Without $schema, subschemas keep this module's validator class (its keywords).
            contents = {**{k: v for k, v in contents.items() if k != "$schema"}, "$id": declared}
            if declared != uri:
                resources.append((declared, DRAFT202012.create_resource(contents)))
        resources.append((uri, Resource.from_contents(contents, default_specification=DRAFT202012)))
    for kind, _file in plugged:
        uri = BASE + kind_schemas.resource_name(kind)
        contents = kind_schemas.read(kind_schemas.resource_name(kind)) or {}
        contents = {**{k: v for k, v in contents.items() if k != "$schema"}, "$id": uri}
        resources.append((uri, Resource.from_contents(contents, default_specification=DRAFT202012)))
    return Registry().with_resources(resources).crawl()


def validator_for(name: str) -> Any:
    """A validator of the local schema ``name`` (``rule.json``, ``kinds/sum_table.json``,
    ``common.json#/$defs/example``), resolving ``$ref`` through the local registry only."""
    return _validator_for(name, kind_schemas.key())


@cache
def _validator_for(name: str, plugged: tuple[tuple[str, str], ...]) -> Any:
    uri = urljoin(BASE, name)
    if urldefrag(uri).url not in _registry():
        raise MprError(msg.UNKNOWN_SCHEMA, Location(path=name), name=name)
    return _Validator({"$ref": uri}, registry=_registry())


@cache
def _passes(name: str, plugged: tuple[tuple[str, str], ...]) -> Check:
    """The yes/no test of the local schema ``name`` (``schema_check``): a document it passes
    has no finding, and the validator need not look for any."""
    try:
        return compile_check(_validator_for(name, plugged))
    except MprError:
        return _never


@lru_cache(maxsize=256)
def _passes_built(schema_json: str, plugged: tuple[tuple[str, str], ...]) -> tuple[Any, Check]:
    """The yes/no test of a schema built in code (a rule's ``inputs``), by its JSON text, with
    the schema read back from that text: the test stands for a schema only when they are equal."""
    schema = json.loads(schema_json)
    return schema, compile_check(_Validator(schema, registry=_registry()))


def _never(value: Any) -> bool:
    return False


def passes(data: Any, schema: dict) -> bool:
    """Whether ``data`` surely has no finding against ``schema`` (a schema built in code, as
    ``instance_validator`` takes); False only means the validator must look."""
    return _passes_text(data, schema, json.dumps(schema, sort_keys=True, default=str))


def _passes_text(data: Any, schema: dict, text: str) -> bool:
    read_back, test = _passes_built(text, kind_schemas.key())
    return bool(read_back == schema and test(data))


def instance_validator(schema: dict) -> Any:
    """A validator of ``schema`` (a schema built in code) that resolves ``$ref`` to the local
    schemas, as ``validate_instance`` uses; the caller reads its raw errors."""
    return _Validator(schema, registry=_registry())


@cache
def _meta_validator() -> Any:
    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def validate_document(doc: Document, schema: str = "rule.json", lang: str = "en"
                      ) -> list[Diagnostic]:
    """Every schema finding of ``doc``, located in its file and sorted."""
    findings = validate_instance(doc.data, schema, doc.positions, doc.file, lang,
                                 texts=doc.texts)
    if isinstance(doc.data, dict) and isinstance(doc.data.get("inputs"), dict):
        findings.extend(_check_inputs(doc.data["inputs"], doc, lang))
    quoted = frozenset((f.line, f.column) for f in findings if f.code == msg.QUOTE)  # says it
    findings.extend(reading_notes(doc, lang, quoted))
    findings.sort(key=_order)
    return findings


def validate_instance(data: Any, schema: dict | str, positions: dict | None, file: str | None,
                      lang: str = "en", path_prefix: Path_ = (), *,
                      texts: dict | None = None) -> list[Diagnostic]:
    """Every finding of ``data`` against ``schema`` (a local schema name, or a schema such as a
    rule's ``inputs``); ``data`` sits at ``path_prefix`` of ``positions``; sorted by line. A rule
    document of a kind plugged in from outside the package goes to that kind's own schema."""
    kind = data.get("kind") if schema == "rule.json" and isinstance(data, dict) else None
    if isinstance(kind, str) and kind not in dispatch_targets():
        schema = kind_schemas.schema_for(kind) or schema
    # (a folded rule's positions are read in place: an emptiness test would make them a dict)
    where = _Where({} if positions is None else positions, file, lang, tuple(path_prefix),
                   {} if texts is None else texts, schema if isinstance(schema, str) else None)
    if isinstance(schema, str):
        name = direct_schema(schema, data)
        if _passes(name, kind_schemas.key())(data):
            return []
        validator = validator_for(name)
    else:
        text = json.dumps(schema, sort_keys=True, default=str)
        problems = _meta_problems(text)
        if problems:
            return [where.finding(msg.BAD_INPUTS, (), detail=problems[0][1])]
        if _passes_text(data, schema, text):
            return []
        validator = _Validator(schema, registry=_registry())
    findings: dict[tuple, Diagnostic] = {}
    try:
        for error in validator.iter_errors(data):
            for path, found in _diagnose(error, where):
                findings.setdefault((path, found.code, found.message), found)
    except Unresolvable as exc:
        found = where.finding(msg.UNRESOLVABLE, (), ref=str(getattr(exc, "ref", exc)))
        findings[((), found.code, found.message)] = found
    except (SchemaError, re.error, RecursionError) as exc:
        detail = (getattr(exc, "message", None) or
                  ("$ref loops back on itself" if isinstance(exc, RecursionError)
                   else f"invalid regular expression: {exc}"))
        found = where.finding(msg.BAD_INPUTS, (), detail=detail)
        findings[((), found.code, found.message)] = found
    return _one_per_location(findings)


def _one_per_location(findings: dict[tuple, Diagnostic]) -> list[Diagnostic]:
    """A wrong type hides the other findings at its place: they follow from it."""
    typed = {path for (path, code, _) in findings if code in (msg.TYPE, msg.QUOTE)}
    kept = [d for (path, code, _), d in findings.items()
            if path not in typed or code in (msg.TYPE, msg.QUOTE)]
    return sorted(kept, key=_order)


def _order(d: Diagnostic) -> tuple:
    return (d.file or "", d.line or 0, d.column or 0, d.code, d.message)


class _Where:
    """Turns instance paths into located, rendered findings."""

    def __init__(self, positions: dict, file: str | None, lang: str, prefix: Path_,
                 texts: dict, schema_name: str | None) -> None:
        self.positions, self.file, self.lang = positions, file, lang
        self.prefix, self.texts, self.schema_name = prefix, texts, schema_name

    def finding(self, code: str, path: Path_, *, key: bool = False, **args: Any) -> Diagnostic:
        full = (*self.prefix, *path)
        loc = locate(self.positions, full, self.file)
        if key and (*full, KEY) in self.positions:
            pos = self.positions[(*full, KEY)]
            loc = Location(pos[0], pos[1], pos[2], loc.path)
        return diagnostic(code, loc, self.lang, **args)

    def text(self, path: Path_) -> str | None:
        return self.texts.get((*self.prefix, *path))


def _diagnose(error: ValidationError, where: _Where) -> Iterator[tuple[Path_, Diagnostic]]:
    path: Path_ = tuple(error.absolute_path)
    if "propertyNames" in error.relative_schema_path and isinstance(_instance(error), str):
        key = _instance(error)
        yield (*path, key), where.finding(msg.BAD_KEY, (*path, key), key=True, key_name=key,
                                          detail=msg.describe(error, where.lang))
        return
    keyword = _keyword(error)
    if keyword in ("anyOf", "oneOf"):
        yield from _alternatives(error, where, path)
        return
    handler = _HANDLERS.get(keyword, _generic)
    for found_path, code, args, on_key in handler(error, where, path):
        yield found_path, where.finding(code, found_path, key=on_key, **args)


def _keyword(error: ValidationError) -> str:
    """The keyword that failed (``type``, ``anyOf``, ...). The stubs of jsonschema type the
    fields of an error as possibly unset; an error that ``iter_errors`` reports has them all."""
    return str(error.validator)


def _schema_value(error: ValidationError) -> Any:
    """The value of the failing keyword in the schema: JSON of any shape."""
    return error.validator_value


def _instance(error: ValidationError) -> Any:
    """The part of the document that failed: JSON of any shape."""
    return error.instance


def _alternatives(error: ValidationError, where: _Where, path: Path_
                  ) -> Iterator[tuple[Path_, Diagnostic]]:
    """anyOf/oneOf: report the branch the value was evidently meant for, not every branch."""
    branches: dict[str | int, list[ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    options = _schema_value(error)
    required_only = all(isinstance(o, dict) and set(o) == {"required"} for o in options)
    if required_only and isinstance(_instance(error), dict):
        names = [n for o in options for n in o["required"]]
        present = [n for n in names if n in _instance(error)]
        code = msg.EXCLUSIVE if present else msg.ONE_OF_REQUIRED
        first = present[1] if len(present) > 1 else None
        at = (*path, first) if first else path
        yield at, where.finding(code, at, key=bool(first), names=msg.names(names))
        return
    if not error.context:
        yield path, where.finding(msg.AMBIGUOUS, path)
        return
    meant = [errs for errs in branches.values()
             if not any(e.validator in ("type", "const", "enum") and
                        tuple(e.absolute_path) == path for e in errs)]
    if len(meant) == 1:
        for sub in meant[0]:
            yield from _diagnose(sub, where)
        return
    if not meant:
        types = [o.get("type") for o in options if isinstance(o, dict)]
        if all(types):
            flat = [t for t in types for t in (t if isinstance(t, list) else [t])]
            yield from _diagnose_type(error, where, path, flat)
            return
    best = best_match(error.context)
    yield from _diagnose(best, where)


def _diagnose_type(error: ValidationError, where: _Where, path: Path_, expected: list
                   ) -> Iterator[tuple[Path_, Diagnostic]]:
    for found_path, code, args, on_key in _type(error, where, path, expected):
        yield found_path, where.finding(code, found_path, key=on_key, **args)


Handled = Iterator[tuple[Path_, str, dict[str, Any], bool]]


def _type(error: ValidationError, where: _Where, path: Path_, expected: Any = None) -> Handled:
    expected = expected if expected is not None else _schema_value(error)
    expected = [expected] if isinstance(expected, str) else list(expected)
    text = where.text(path)
    if "string" in expected and text is not None and text != "":
        yield path, msg.QUOTE, msg.quote_args(text, _instance(error), where.lang), False
        return
    fixed = fullwidth_number(_instance(error)) if isinstance(_instance(error), str) else None
    if fixed is not None and ({"integer", "number"} & set(expected)):
        yield path, FULLWIDTH_NUMBER, {"text": _instance(error), "fixed": fixed}, False
        return
    yield path, msg.TYPE, {"expected": msg.type_names(expected, where.lang),
                           "found": msg.type_of(_instance(error), where.lang)}, False


def _const_or_enum(error: ValidationError, where: _Where, path: Path_) -> Handled:
    allowed = [_schema_value(error)] if _keyword(error) == "const" else _schema_value(error)
    text = where.text(path)
    if text and any(isinstance(a, str) for a in allowed) and not isinstance(_instance(error), str):
        yield path, msg.QUOTE, msg.quote_args(text, _instance(error), where.lang), False
        return
    if (path == ("kind",) and where.schema_name == "rule.json"
            and list(error.absolute_schema_path) == ["properties", "kind", "enum"]):
        yield path, msg.UNKNOWN_KIND, {"kind": msg.value(_instance(error)),
                                       "kinds": ", ".join(map(str, allowed)),
                                       "hint": msg.did_you_mean(_instance(error), allowed,
                                                                where.lang)}, False
        return
    code = msg.CONST if _keyword(error) == "const" else msg.ENUM
    yield path, code, {"value": msg.value(_instance(error)),
                       "allowed": ", ".join(msg.value(a) for a in allowed),
                       "hint": msg.did_you_mean(_instance(error), allowed, where.lang)}, False


def _required(error: ValidationError, where: _Where, path: Path_) -> Handled:
    for name in _schema_value(error):
        if isinstance(_instance(error), dict) and name not in _instance(error):
            yield path, msg.REQUIRED, {"name": name}, False


def _unknown(error: ValidationError, where: _Where, path: Path_) -> Handled:
    known = getattr(error, "mpr_known", None)
    if known is None:
        yield from _generic(error, where, path)
        return
    key = str(path[-1])  # the unknown property's name
    yield path, msg.UNKNOWN_PROPERTY, {"name": key, "hint": msg.did_you_mean(key, known, where.lang)
                                       + msg.invisible(key, where.lang)}, True


def _pattern(error: ValidationError, where: _Where, path: Path_) -> Handled:
    yield path, msg.PATTERN, {"value": msg.value(_instance(error)),
                              "expected": msg.expected(error.schema, where.lang)}, False


def _bound(error: ValidationError, where: _Where, path: Path_) -> Handled:
    code, op, measure = msg.BOUNDS[_keyword(error)]
    yield path, code, {"op": op, "limit": _schema_value(error),
                       "value": msg.value(measure(_instance(error)))}, False


def _unique(error: ValidationError, where: _Where, path: Path_) -> Handled:
    seen: list[Any] = []
    for index, item in enumerate(_instance(error)):
        if item in seen:
            yield (*path, index), msg.UNIQUE, {"value": msg.value(item)}, False
            return
        seen.append(item)
    yield from _generic(error, where, path)


def _not(error: ValidationError, where: _Where, path: Path_) -> Handled:
    schema_path = list(error.absolute_schema_path)
    forbidden = _schema_value(error)
    if (isinstance(forbidden, dict) and set(forbidden) == {"required"} and len(schema_path) >= 3
            and schema_path[-3] == "dependentSchemas"):
        second = forbidden["required"][0]
        yield (*path, second), msg.EXCLUSIVE, {
            "names": msg.names([schema_path[-2], *forbidden["required"]])}, True
        return
    yield path, msg.NOT_ALLOWED, {"value": msg.value(_instance(error))}, False


def _dependent_required(error: ValidationError, where: _Where, path: Path_) -> Handled:
    for name, needed in _schema_value(error).items():
        if isinstance(_instance(error), dict) and name in _instance(error):
            for other in needed:
                if other not in _instance(error):
                    yield path, msg.DEPENDENT, {"name": name, "needed": other}, False


def _generic(error: ValidationError, where: _Where, path: Path_) -> Handled:
    if _keyword(error) is None:
        yield path, msg.NOT_ALLOWED, {"value": msg.value(_instance(error))}, False
        return
    yield path, msg.GENERIC, {"detail": error.message}, False


_HANDLERS = {
    "type": _type, "const": _const_or_enum, "enum": _const_or_enum, "required": _required,
    "additionalProperties": _unknown, "unevaluatedProperties": _unknown, "pattern": _pattern,
    **{keyword: _bound for keyword in msg.BOUNDS}, "uniqueItems": _unique, "not": _not,
    "dependentRequired": _dependent_required, "multipleOf": _generic,
}


def _check_inputs(inputs: dict, doc: Document, lang: str) -> Iterator[Diagnostic]:
    """A document's ``inputs`` is itself a JSON Schema: valid, and with no outside ``$ref``."""
    where = _Where(doc.positions, doc.file, lang, ("inputs",), doc.texts, None)
    for path, detail in _meta_problems(json.dumps(inputs, sort_keys=True, default=str)):
        yield where.finding(msg.BAD_INPUTS, path, detail=detail)
    stack: list[tuple[Path_, Any]] = [((), inputs)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for keyword in ("$ref", "$dynamicRef"):
                ref = node.get(keyword)
                if isinstance(ref, str) and not ref.startswith("#"):
                    yield where.finding(msg.UNRESOLVABLE, (*path, keyword), ref=ref)
            pattern = node.get("pattern")
            if isinstance(pattern, str) and _bad_pattern(pattern):
                yield where.finding(msg.BAD_INPUTS, (*path, "pattern"),
                                    detail=f"invalid regular expression: {_bad_pattern(pattern)}")
            patterns = [((*path, "pattern"), pattern)] + [
                ((*path, "patternProperties", key), key) for key in node.get("patternProperties") or ()]
            for at, text in patterns:
                risk = isinstance(text, str) and not _bad_pattern(text) and backtracking_risk(text)
                if risk:
                    yield where.finding(BACKTRACKING, at, pattern=risk["pattern"], why=risk["why"],
                                        why_ja=risk["why_ja"])
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))


def _bad_pattern(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    return None


@lru_cache(maxsize=1024)
def _meta_problems(inputs_json: str) -> tuple[tuple[Path_, str], ...]:
    """Where the JSON Schema ``inputs_json`` breaks the draft 2020-12 meta-schema (memoized:
    meta-validation costs more than validating the document itself)."""
    schema = json.loads(inputs_json)
    if surely_a_schema(schema):  # plain Python says yes: jsonschema would find nothing
        return ()
    problems = []
    for error in _meta_validator().iter_errors(schema):
        detail = best_match(error.context) if error.context else error
        problems.append((tuple(error.absolute_path), detail.message))
    return tuple(problems)


def write_dispatch(root: Path | None = None) -> Path:
    """Regenerate ``schemas/rule.json`` from ``schemas/kinds/*.json``; returns its path."""
    target = write_rule_json(root or schemas_dir())
    dispatch_targets.cache_clear()
    _registry_with.cache_clear()
    _validator_for.cache_clear()
    _passes.cache_clear()
    _passes_built.cache_clear()
    return target


def main(argv: list[str] | None = None) -> int:
    """``python3 -m interpreter.documents.schema [--write-dispatch | --check]``."""
    parser = argparse.ArgumentParser(prog="python3 -m interpreter.documents.schema",
                                     description="Maintain the generated schemas.")
    parser.add_argument("--write-dispatch", action="store_true",
                        help="regenerate schemas/rule.json from schemas/kinds/*.json")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when schemas/rule.json is not up to date")
    args = parser.parse_args(argv)
    try:
        wanted = dispatch_schema(schemas_dir())
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.write_dispatch:
        print(write_dispatch())
        return 0
    if args.check:
        target = schemas_dir() / "rule.json"
        current = json.loads(target.read_text(encoding="utf-8")) if target.exists() else None
        if current != wanted:
            print(f"{target} is out of date: run python3 -m interpreter.documents.schema --write-dispatch",
                  file=sys.stderr)
            return 1
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
