"""Parameter schemas: every parameter of a rule, and every ruleset-wide parameter group, has a
JSON Schema, and the effective values (after every variant layer, the caller's parameter overrides
and a campaign's switches) are checked against it, each finding located at the value.

Where a rule parameter's schema comes from, in order: the document's ``param_schema`` (name ->
schema), the kind schema's ``params`` properties, else the type of the document's own value (a
parameter whose default is ``1`` takes numbers, ``[鋼, 堅木]`` a list of texts). Ruleset-wide
``parameters`` groups are declared by the manifests' ``parameter_schema`` (group -> schema; a
later layer's schema of a group replaces the earlier one); a group or a name nobody declares is a
finding, with the nearest declared name. ``check_params`` is the one entry point.
"""
from __future__ import annotations

import json
import math
import re
from functools import cache

from rules_dsl.frozen import Frozen, replace
from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic, did_you_mean

from interpreter.checks.annotations import _resolve, kind_schema_file, schema_file
from interpreter.documents.schema_dispatch import BASE
from interpreter.documents.typing_mistakes import fullwidth_number
from interpreter.ruleset.layers import CALLER_LAYER
from interpreter.ruleset.model import Rule, Ruleset

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


UNKNOWN_SCHEMA_NAME = define(
    "MPR421", "param_schema of rule {rule} declares {name!r}, which is not one of its parameters{hint}",
    "ルール {rule} の param_schema が宣言する {name!r} はパラメータにありません{hint}")
UNKNOWN_DOC_NAME = define(
    "MPR422", "param_docs of rule {rule} describes {name!r}, which is not one of its parameters{hint}",
    "ルール {rule} の param_docs が説明する {name!r} はパラメータにありません{hint}")
NOT_FINITE = define(
    "MPR423", "{value} is not a finite number", "{value} は有限の数ではありません")
BAD_SCHEMA = define(
    "MPR424", "the schema of parameter {name} is not a valid JSON Schema: {detail}",
    "パラメータ {name} のスキーマが JSON Schema として正しくありません: {detail}")
EMPTY_PARAM = define(
    "MPR426", "{name}= gives no value: write a YAML value after =",
    "{name}= に値がありません。= の後に YAML の値を書いてください")
READ_AS_NUMBER = define(
    "MPR243", "{text} is written in full-width characters: read as the number {fixed} "
    "(half-width digits are surer)",
    "全角の {text} を数の {fixed} として読みました（数は半角で書くと確実です）", severity="warning")



class Written(Frozen):
    """A parameter value read from YAML text, with the written text of each scalar that YAML read
    as a number, a boolean or null (so a wrong type can say "write it in quotes")."""

    __slots__ = ("value", "texts")
    _factories = {"texts": dict}
    _uncompared = frozenset({"texts"})
    value: Any
    texts: dict


def parse_param_value(raw: str, name: str, given_as: str = CALLER_LAYER) -> Written:
    """The value of a caller's parameter ``NAME=RAW`` (the layer ``given_as``) read by the project's safe YAML loader (no aliases
    bombs, no tags, no timestamps); a YAML 1.1 trap (``1:30``, ``017``, ``0x10``) is an error."""
    # start-up: kept_yaml loads only when a parameter value is given on the command line (PyYAML
    # only for a value it has not kept)
    from interpreter.documents.kept_yaml import load_text

    docs = load_text(raw, f"{given_as} {name}")
    if not docs:
        raise MprError(EMPTY_PARAM, Location(path=f"{given_as} {name}"), name=name)
    doc = docs[0]
    if doc.readings:  # values other YAML readers read differently, to be shown
        # start-up: interpreter.documents.loader is loaded already when a document has readings
        from interpreter.documents.loader import heed

        heed(doc)
    return Written(doc.data, dict(doc.texts))


# --- the schemas --------------------------------------------------------------------------------

_SCALAR_SCHEMAS = {kind: json.dumps({"type": name}, sort_keys=True) for kind, name in (
    (bool, "boolean"), (int, "number"), (float, "number"), (str, "string"))}


def inferred_schema(value: Any) -> dict[str, Any]:
    """The schema a parameter without a declared one gets: the type of its default value."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, (int, float)):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        # a scalar's schema text by its type, written once (a list of many values, #26)
        types = {_SCALAR_SCHEMAS.get(type(v)) or json.dumps(inferred_schema(v), sort_keys=True)
                 for v in value if v is not None}
        return {"type": "array", **({"items": json.loads(types.pop())} if len(types) == 1 else {})}
    if isinstance(value, dict):
        return {"type": "object"}
    return {}


@cache
def _kind_params_options(kind: str) -> tuple[tuple[dict[str, Any] | None, str | None], ...]:
    """Where a kind schema declares ``params``: ``(condition, uri)`` pairs, the condition being
    the ``if`` a document must meet for that branch (``None``: always), in the schema's order."""
    file = kind_schema_file(kind)
    if file is None:
        return ()
    schema = schema_file(file)
    options: list[tuple[dict[str, Any] | None, str | None]] = []
    if isinstance((schema.get("properties") or {}).get("params"), dict):
        options.append((None, f"{BASE}{file}#/properties/params"))
    for index, part in enumerate(schema.get("allOf") or []):
        if not isinstance(part, dict) or "if" not in part:
            continue
        for branch, condition in (("then", part["if"]), ("else", {"not": part["if"]})):
            params = ((part.get(branch) or {}).get("properties") or {}).get("params")
            if isinstance(params, dict):
                options.append((condition, f"{BASE}{file}#/allOf/{index}/{branch}/properties/params"))
    return tuple(options)


def _declared(uri: str) -> frozenset[str]:
    file, _, pointer = uri[len(_base()):].partition("#")
    node: Any = _resolve(f"#{pointer}", file)[0]
    if isinstance(node, dict) and "$ref" in node:
        node = _resolve(node["$ref"], file)[0]
    return frozenset((node.get("properties") or {})) if isinstance(node, dict) else frozenset()


def _base() -> str:
    return BASE


def _kind_params(kind: str, doc: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
    """The URIs of the ``params`` schemas of a kind that apply to ``doc`` and the names they declare."""
    uris: list[str] = []
    declared: frozenset[str] = frozenset()
    for condition, uri in _kind_params_options(kind):
        # start-up: jsonschema loads only when a kind's parameters depend on the document
        from jsonschema import Draft202012Validator

        if condition is not None and not Draft202012Validator(condition).is_valid(doc):
            continue
        if uri is not None:
            uris.append(uri)
            declared |= _declared(uri)
    return uris, declared


def own_schemas(rule: Rule) -> dict[str, Any]:
    schemas = rule.doc.get("param_schema")
    return schemas if isinstance(schemas, dict) else {}


def rule_params_schema(rule: Rule) -> dict[str, Any]:
    """The schema of ``rule``'s ``params`` object (see the module's docstring)."""
    uris, declared = _kind_params(rule.kind, rule.doc)
    own = own_schemas(rule)
    defaults = written_params if isinstance(written_params := rule.doc.get("params"), dict) else {}
    properties: dict[str, Any] = {}
    for name in rule.params:
        if isinstance(own.get(name), dict):
            properties[name] = own[name]
        elif name not in declared:
            properties[name] = inferred_schema(defaults.get(name, rule.params[name]))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if uris:
        schema["allOf"] = [{"$ref": uri} for uri in uris]
    return schema


def parameters_schema(ruleset: Ruleset) -> dict[str, Any]:
    """The schema of the ruleset-wide ``parameters``: each declared group, closed unless it says
    otherwise, and no undeclared group."""
    groups = {}
    for group, schema in ruleset.parameter_schema.items():
        if isinstance(schema, dict) and "properties" in schema and "additionalProperties" not in schema:
            schema = {**schema, "additionalProperties": False}
        groups[group] = schema
    return {"type": "object", "properties": groups, "additionalProperties": False}


# --- the checks ---------------------------------------------------------------------------------

def _meta(schema: Any, name: str, loc: Location, lang: str) -> list[Diagnostic]:
    try:
        text = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not JSON: asked each time
        detail = _meta_problem(schema)
    else:
        detail = _meta_problem_of(text, schema)
    return [] if detail is None else [diagnostic(BAD_SCHEMA, loc, lang, name=name, detail=detail)]


_META: dict[str, str | None] = {}  # a schema's JSON text -> its problem: each schema checked once


def _meta_problem_of(text: str, schema: Any) -> str | None:
    if text not in _META:
        _META[text] = _meta_problem(schema)
    return _META[text]


def _meta_problem(schema: Any) -> str | None:
    """What the draft 2020-12 meta-schema finds wrong in ``schema``, or None."""
    # start-up: jsonschema loads only when a parameter schema is checked
    from jsonschema import Draft202012Validator

    try:
        Draft202012Validator.check_schema(schema)
    except Exception as error:  # SchemaError and the errors a malformed schema raises inside it
        return str(getattr(error, "message", None) or str(error))
    return None


def _non_finite(value: Any, path: tuple, loc_of: Any, lang: str) -> list[Diagnostic]:
    if isinstance(value, float) and not math.isfinite(value):
        return [diagnostic(NOT_FINITE, loc_of(path), lang, value=value)]
    if isinstance(value, dict):
        return [d for k, v in value.items() for d in _non_finite(v, (*path, k), loc_of, lang)]
    if isinstance(value, list):  # only what can hold a float is looked into (a path made for it)
        return [d for i, v in enumerate(value) if isinstance(v, (float, dict, list))
                for d in _non_finite(v, (*path, i), loc_of, lang)]
    return []


def _caller(finding: Diagnostic, rule: Rule) -> Diagnostic:
    """A finding in a value the caller gave names the caller's layer and the parameter, not a file."""
    parts = (finding.path or "").split(".")
    name = parts[1] if len(parts) > 1 and parts[0] == "params" else ""
    if finding.file is None or finding.file != rule.param_layers.get(name):
        return finding
    return replace(finding, file=None, line=None, column=None,
                   path=f"{finding.file} {rule.id}.{name}".rstrip("."))


def check_rule_params(rule: Rule, lang: str = "en") -> list[Diagnostic]:
    """The effective parameters of ``rule`` and its examples' ``params`` against its schema;
    ``param_schema`` and ``param_docs`` name only parameters the rule has."""
    # start-up: the schema validators (and PyYAML) load only when parameters are checked
    from interpreter.documents.schema import validate_instance

    findings: list[Diagnostic] = []
    for name, schema in own_schemas(rule).items():
        if name not in rule.params:
            findings.append(diagnostic(UNKNOWN_SCHEMA_NAME, _key_loc(rule, ("param_schema", name)),
                                       lang, rule=rule.id, name=name,
                                       hint=did_you_mean(name, rule.params)))
        findings.extend(_meta(schema, f"{rule.id}.{name}", rule.loc("param_schema", name), lang))
    docs = rule.doc.get("param_docs")
    for name in docs if isinstance(docs, dict) else ():
        if name not in rule.params:
            findings.append(diagnostic(UNKNOWN_DOC_NAME, _key_loc(rule, ("param_docs", name)),
                                       lang, rule=rule.id, name=name,
                                       hint=did_you_mean(name, rule.params)))
    if any(f.code == BAD_SCHEMA for f in findings):
        return findings
    schema = rule_params_schema(rule)
    found = validate_instance(rule.params, schema, rule.positions, rule.file, lang, ("params",),
                              texts=rule.texts)
    found += _non_finite(rule.params, ("params",), lambda p: rule.loc(*p), lang)
    findings.extend(_caller(f, rule) for f in found)
    for index, example in enumerate(rule.doc.get("examples") or []):
        given = example.get("params") if isinstance(example, dict) else None
        if not isinstance(given, dict) or not given:
            continue
        prefix = ("examples", index, "params")
        merged = {**rule.params, **given}
        for finding in validate_instance(merged, schema, rule.positions, rule.file, lang, prefix,
                                         texts=rule.texts):
            parts = (finding.path or "").split(".")
            if len(parts) > 3 and parts[3] in given:
                findings.append(finding)
    return findings


def _key_loc(rule: Rule, path: tuple) -> Location:
    # start-up: the loader brings PyYAML, which only a finding's location needs here
    from interpreter.documents.loader import KEY

    pos = rule.positions.get((*path, KEY))
    if pos is None:
        return rule.loc(*path)
    return Location(pos[0], pos[1], pos[2], ".".join(map(str, path)))


def check_ruleset_parameters(ruleset: Ruleset, lang: str = "en") -> list[Diagnostic]:
    """The ruleset-wide ``parameters`` against the groups the manifests declare."""
    # start-up: the schema validators (and PyYAML) load only when parameters are checked
    from interpreter.documents.schema import validate_instance

    findings: list[Diagnostic] = []
    positions = ruleset.parameter_positions
    for group, schema in ruleset.parameter_schema.items():
        loc = _located(positions, ("parameter_schema", group))
        findings.extend(_meta(schema, f"parameters.{group}", loc, lang))
    if findings or not ruleset.parameter_schema:  # nothing declared: a ruleset of its own
        return findings
    findings.extend(validate_instance(ruleset.parameters, parameters_schema(ruleset), positions,
                                      None, lang, ("parameters",), texts=ruleset.parameter_texts))
    findings.extend(_non_finite(ruleset.parameters, ("parameters",),
                                lambda p: _located(positions, p), lang))
    return findings


def _located(positions: dict, path: tuple) -> Location:
    # start-up: the loader brings PyYAML, which only a finding's location needs here
    from interpreter.documents.loader import locate

    return locate(positions, path, None)


def check_params(ruleset: Ruleset, lang: str = "en", *,
                 skip: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every parameter finding of ``ruleset`` as it stands (variants layered, the caller's
    parameter overrides applied): rule parameters, examples' parameters, ruleset-wide parameters. A
    number written in full-width characters where a number is wanted is read as that number
    first (a warning each)."""
    findings = [diagnostic(READ_AS_NUMBER, _located(ruleset.parameter_positions, path), lang,
                           text=text, fixed=fixed)
                for path, text, fixed in read_fullwidth_numbers(
                    ruleset.parameters, parameters_schema(ruleset), ("parameters",))]
    findings += check_ruleset_parameters(ruleset, lang)
    for rule in ruleset.rules.values():
        if rule.id not in skip:
            findings.extend(_caller(diagnostic(READ_AS_NUMBER, rule.loc(*path), lang, text=text,
                                               fixed=fixed), rule)
                            for path, text, fixed in read_fullwidth_numbers(
                                rule.params, rule_params_schema(rule), ("params",)))
            findings.extend(check_rule_params(rule, lang))
    return findings


def read_fullwidth_numbers(data: Any, schema: dict[str, Any], prefix: tuple
                           ) -> list[tuple[tuple, str, int | float]]:
    """Each text of full-width digits and signs (``１２``, ``－３``) in ``data`` where ``schema``
    wants a number and not a text, replaced in place by that number: ``(path, text, number)``.
    A text that is no number stays, and the schema's check reports it."""
    # start-up: the schema validators (and PyYAML) load only when parameters are checked
    from interpreter.documents.schema import instance_validator, passes
    from jsonschema.exceptions import SchemaError, UnknownType  # start-up: as above
    from referencing.exceptions import Unresolvable  # start-up: as above

    if not isinstance(data, dict) or not data or passes(data, schema):
        return []
    found: dict[tuple, tuple[str, int | float]] = {}
    try:
        errors = list(instance_validator(schema).iter_errors(data))
    except (SchemaError, UnknownType, Unresolvable, re.error, RecursionError):
        return []  # a schema that is not JSON Schema: its own finding (MPR424) says so
    while errors:
        error = errors.pop()
        errors.extend(error.context or [])
        expected = error.validator_value if error.validator == "type" else ()
        expected = {expected} if isinstance(expected, str) else set(expected)
        fixed = fullwidth_number(error.instance) if isinstance(error.instance, str) else None
        if fixed is not None and expected & {"integer", "number"} and "string" not in expected:
            number = float(fixed) if "." in fixed else int(fixed)
            found[tuple(error.absolute_path)] = (error.instance, number)
    for path, (_, number) in found.items():
        _put(data, path, number)
    return [((*prefix, *path), text, number) for path, (text, number) in sorted(
        found.items(), key=lambda item: tuple(map(str, item[0])))]


def caller_notes(ruleset: Ruleset, overrides: dict[str, dict[str, Any]], lang: str = "en",
                 given_as: str = CALLER_LAYER) -> list[Diagnostic]:
    """The warnings a command shows for the parameters its caller gave: each full-width number
    that was read as a number (``a.b.n=１２`` -> 12)."""
    notes = []
    for rule_id, params in overrides.items():
        try:
            rule: Rule | None = ruleset.rule(rule_id)  # that rule alone (the others stay in the cache)
        except MprError:
            rule = None
        for name, written in params.items():
            text = getattr(written, "value", written)
            fixed = fullwidth_number(text) if isinstance(text, str) else None
            value = rule.params.get(name) if rule is not None else None
            if fixed is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
                notes.append(diagnostic(READ_AS_NUMBER, Location(path=f"{given_as} {rule_id}.{name}"),
                                        lang, text=text, fixed=value))
    return notes


def _put(data: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value
