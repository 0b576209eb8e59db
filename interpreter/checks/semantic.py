"""Semantic checks of a loaded ruleset, after the schema: each check is a generator of diagnostics
with the signature ``(rule, ruleset, lang)``, and ``check_ruleset`` collects them all.

Where expressions are: a kind schema marks every string that holds an expression with the
annotation ``"x-expression": "<role>"`` (e.g. ``condition``, ``value``, ``roll``) and every string
that names another rule with ``"x-rule-ref": true``; ``annotated_paths`` walks a document along
its kind schema to find them, so a new kind gets these checks by annotating its schema
(``"x-binds": "<key>"`` on an object schema adds the name written at ``<key>`` for the expressions
inside it). Expressions see the run input's top-level names (the ``inputs`` schema's properties)
and ``params``; the name checks themselves are in ``expression_names``.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic, did_you_mean

from interpreter.engine import registry as kinds
from interpreter.engine.runner import UNKNOWN_KIND
from interpreter.engine.names import NOT_IN_ENUM, check_names, compiled, unknown_roots
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.documents.resources import schemas_dir

UNKNOWN_REFERENCE = define(
    "MPR354", "rule {rule} refers to rule {target!r}, which is not in the ruleset{hint}",
    "ルール {rule} が参照するルール {target!r} はルールセットにありません{hint}")
BUNDLED_SOURCE_CODE = define(
    "MPR420", "rule {rule} of the bundled ruleset has source {source!r}: write the rule it encodes, R0 to R21 or Rc",
    "同梱ルールセットのルール {rule} の source が {source!r} です。対応するルールの番号（R0〜R21 または Rc）を書いてください")
BUNDLED_SOURCE = re.compile(r"^(R([0-9]|1[0-9]|2[01])|Rc)$")
KIND_CHECK_FAILED = define(
    "MPR356", "the checks of kind {kind} could not run on rule {rule}: {detail}",
    "ルール {rule} に種別 {kind} の検査を実行できませんでした: {detail}")

Check = Callable[[Rule, Ruleset, str], Iterator[Diagnostic]]


# --- where expressions and references are -----------------------------------------------------

@cache
def _schema_file(relative: str) -> dict[str, Any]:
    return json.loads((schemas_dir() / relative).read_text(encoding="utf-8"))


@cache
def kind_schema_file(kind: str) -> str | None:
    """The file under ``schemas/`` of the kind schema whose ``kind`` is ``const: kind``."""
    for path in sorted((schemas_dir() / "kinds").glob("*.json")):
        schema = _schema_file(f"kinds/{path.name}")
        if (schema.get("properties") or {}).get("kind", {}).get("const") == kind:
            return f"kinds/{path.name}"
    return None


@cache
def _resolve(ref: str, base: str) -> tuple[dict[str, Any], str]:
    """The schema a ``$ref`` in file ``base`` points to, and the file it is in."""
    target, _, pointer = ref.partition("#")
    file = base if not target else str(Path(base).parent / target).replace("\\", "/")
    parts = [p for p in Path(file).parts if p != "."]
    while ".." in parts:
        i = parts.index("..")
        parts[i - 1:i + 1] = []
    file = "/".join(parts)
    node: Any = _schema_file(file)
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
    if depth > 40 or not isinstance(schema, dict) or not _reaches(schema, base, keyword):
        return
    binds = schema.get("x-binds")
    if binds and isinstance(instance, dict) and isinstance(instance.get(binds), str):
        bound = bound | {instance[binds]}
    if isinstance(schema.get("x-bound-names"), list):
        bound = bound | frozenset(map(str, schema["x-bound-names"]))
    if "$ref" in schema:
        target, file = _resolve(schema["$ref"], base)
        yield from annotated_paths(instance, target, file, keyword, path, bound, depth + 1)
    for sub in schema.get("allOf", ()):
        yield from annotated_paths(instance, sub, base, keyword, path, bound, depth + 1)
    for sub in [*schema.get("oneOf", ()), *schema.get("anyOf", ())]:
        if isinstance(sub, dict) and _type_fits(instance, sub.get("type")):
            yield from annotated_paths(instance, sub, base, keyword, path, bound, depth + 1)
    if keyword in schema and isinstance(instance, str):
        yield path, schema[keyword], bound
    if isinstance(instance, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, value in instance.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from annotated_paths(value, sub, base, keyword, path + (key,), bound,
                                           depth + 1)
    elif isinstance(instance, list):
        prefix = schema.get("prefixItems") or []
        items = schema.get("items")
        for index, value in enumerate(instance):
            sub = prefix[index] if index < len(prefix) else items
            if isinstance(sub, dict):
                yield from annotated_paths(value, sub, base, keyword, path + (index,), bound,
                                           depth + 1)


def _type_fits(instance: Any, type_: Any) -> bool:
    if type_ is None:
        return True
    types = type_ if isinstance(type_, list) else [type_]
    checks = {"string": lambda v: isinstance(v, str), "integer": lambda v: isinstance(v, int)
              and not isinstance(v, bool), "object": lambda v: isinstance(v, dict),
              "array": lambda v: isinstance(v, list), "boolean": lambda v: isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "null": lambda v: v is None}
    return any(checks.get(t, lambda v: False)(instance) for t in types)


def _annotated(rule: Rule, keyword: str) -> list[tuple[tuple, Any, frozenset[str]]]:
    file = kind_schema_file(rule.kind)
    if file is None:
        return []
    return list(annotated_paths(rule.doc, _schema_file(file), file, keyword))


# --- the checks --------------------------------------------------------------------------------

def input_names(rule: Rule) -> set[str]:
    """The root names an expression of ``rule`` may use."""
    props = (rule.doc.get("inputs") or {}).get("properties") or {}
    return set(props) | {"params"}


def _expressions(rule: Rule) -> Iterator[tuple[tuple, frozenset[str]]]:
    """Paths of the rule's expressions (parameters: their effective values) and their bound names."""
    for path, _role, bound in _annotated(rule, "x-expression"):
        if path[0] == "params" and not isinstance(rule.params.get(path[1]), str):
            continue
        yield path, bound


def check_expressions(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every expression parses and passes the static checker; its names resolve."""
    for path, bound in _expressions(rule):
        allowed = input_names(rule) | bound
        try:
            expression = compiled(rule, path)
        except MprError as error:
            yield error.at(rule.loc(*path)).diagnostic(lang)
            continue
        if expression.names - allowed:
            yield from unknown_roots(rule, path, expression, allowed, lang)
        yield from check_names(rule, path, expression, lang)


def check_example_params(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """An example's parameter overrides that are expressions (``params: {roll: 2d6+1}``) parse
    and pass the static checker, located where the example writes them."""
    from rules_dsl import compile_expression

    file = kind_schema_file(rule.kind)
    if file is None:
        return
    for index, example in enumerate(rule.doc.get("examples") or []):
        overrides = example.get("params") if isinstance(example, dict) else None
        if not isinstance(overrides, dict) or not overrides:
            continue
        probe = dict(rule.doc, params={**(rule.doc.get("params") or {}), **overrides})
        for path, _role, _bound in annotated_paths(probe, _schema_file(file), file, "x-expression"):
            if path[:1] != ("params",) or path[1] not in overrides or len(path) != 2:
                continue
            text = overrides[path[1]]
            if not isinstance(text, str):
                continue
            try:
                compile_expression(text, origin=rule.loc("examples", index, "params", path[1]))
            except MprError as error:
                yield error.diagnostic(lang)


def check_references(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every string a kind schema marks ``x-rule-ref`` names a rule of the ruleset."""
    for path, _, _ in _annotated(rule, "x-rule-ref"):
        target = rule.get(*path)
        if target not in ruleset.rules:
            yield diagnostic(UNKNOWN_REFERENCE, rule.loc(*path), lang, rule=rule.id,
                             target=target, hint=did_you_mean(target, ruleset.rules))


def check_kind(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """The kind exists; then the kind's own checks."""
    kind = kinds.get(rule.kind)
    if kind is None:
        yield diagnostic(UNKNOWN_KIND, rule.loc("kind"), lang, kind=rule.kind,
                         hint=did_you_mean(rule.kind, kinds.registry()))
        return
    if kind.check is None:
        return
    try:
        yield from kind.check(rule, ruleset, lang)
    except MprError as error:
        yield error.at(rule.loc()).diagnostic(lang)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        yield diagnostic(KIND_CHECK_FAILED, rule.loc(), lang, kind=rule.kind, rule=rule.id,
                         detail=f"{type(error).__name__}: {error}")


def check_source(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """``source:`` is any short label, except in the bundled ruleset's own files, which name the
    rule they encode by its number (R0-R21, Rc)."""
    from interpreter.documents.resources import bundled_ruleset

    source = rule.doc.get("source")
    if not isinstance(source, str) or rule.file is None or BUNDLED_SOURCE.match(source):
        return
    try:
        inside = Path(rule.file).resolve().parent == bundled_ruleset().resolve()
    except OSError:
        return
    if inside:
        yield diagnostic(BUNDLED_SOURCE_CODE, rule.loc("source"), lang, rule=rule.id, source=source)


def check_texts(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Texts (title, text, labels) that interpolate parameters compile; stale texts are warned."""
    from interpreter.ruleset.texts import check_texts as texts

    yield from texts(rule, ruleset, lang)


def check_enums(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every ``x-enum-from`` of the rule's inputs gives a list from the parameters."""
    from interpreter.ruleset.enum_from import check_enum_from

    yield from check_enum_from(rule, lang)


CHECKS: tuple[Check, ...] = (check_expressions, check_example_params, check_references,
                             check_source, check_texts, check_enums, check_kind)


def check_ruleset(ruleset: Ruleset, lang: str = "en", *,
                  skip: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every semantic finding of ``ruleset``; rules in ``skip`` (schema errors) are left out."""
    from interpreter.checks.rule_graph import check_cycles
    from interpreter.ruleset.wiring import check_wiring

    findings: list[Diagnostic] = [*check_cycles(ruleset, lang), *check_wiring(ruleset, lang)]
    for rule in ruleset.rules.values():
        if rule.id in skip:
            continue
        expression_errors = False
        for check in CHECKS:
            if check is check_kind and expression_errors:
                continue  # a kind's checks need its expressions to compile
            for finding in check(rule, ruleset, lang):
                findings.append(finding)
                expression_errors |= (check is check_expressions and finding.severity == "error"
                                      and finding.code != NOT_IN_ENUM)  # names resolve: kinds can run
    return findings

