"""Static checks of the names inside one rule expression against the rule's declarations: root
names (inputs and ``params``), ``params.NAME``, fields of inputs (``item.qualty``) and string
literals compared with an input whose schema lists its values (``item.quality == '傑作'``)."""
from __future__ import annotations

from collections.abc import Iterator

from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic, did_you_mean

from interpreter.ruleset.model import Path_, Rule

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from rules_dsl import ast
    from typing import Any

    from rules_dsl.expression import Expression

UNKNOWN_NAME = define(
    "MPR351", "{name!r} is neither an input of rule {rule} nor 'params'{hint}",
    "{name!r} はルール {rule} の入力でも 'params' でもありません{hint}")
UNKNOWN_PARAM_NAME = define(
    "MPR352", "rule {rule} has no parameter {name!r}{hint}",
    "ルール {rule} にパラメータ {name!r} はありません{hint}")
UNKNOWN_FIELD = define(
    "MPR353", "{path} has no field {name!r} in the inputs of rule {rule}{hint}",
    "ルール {rule} の入力 {path} にフィールド {name!r} はありません{hint}")
NOT_IN_ENUM = define(
    "MPR355", "{path} is never {value!r}: the inputs of rule {rule} allow only {allowed}{hint}",
    "{path} が {value!r} になることはありません（ルール {rule} の入力で許される値: {allowed}）{hint}")


def _at(rule: Rule, path: Path_, span: ast.Span | None) -> Location:
    origin = rule.loc(*path)
    if span is None or origin.line is None:
        return origin
    return origin.shifted(span.line - 1, span.column)


def _name_span(node: ast.Attribute | ast.Name) -> ast.Span:
    """Where the field name of ``target.name`` is written (the end of the node's span)."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    span = node.span
    line = span.last_line
    return ast.Span(line, span.end_column - len(node.name), span.end_column)



def _root_schema(rule: Rule, name: str) -> Any:
    # start-up: interpreter.ruleset.enum_from loads only when _root_schema() runs
    from interpreter.ruleset.enum_from import resolved_inputs

    try:
        inputs = resolved_inputs(rule)
    except MprError:
        inputs = rule.doc.get("inputs")  # check_enum_from reports it
    return ((inputs or {}).get("properties") or {}).get(name)


def _path_of(node: ast.Node) -> list[ast.Name | ast.Attribute] | None:
    """``item.parts.price`` as its chain [Name, Attribute, Attribute], or None."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    chain: list[ast.Name | ast.Attribute] = []
    while isinstance(node, ast.Attribute):
        chain.append(node)
        node = node.target
    if not isinstance(node, ast.Name):
        return None
    chain.append(node)
    return list(reversed(chain))


def _field_schema(schema: Any, name: str) -> tuple[Any, bool]:
    """The schema of field ``name`` (projected through arrays) and whether it is declared."""
    while isinstance(schema, dict) and schema.get("type") == "array" or \
            isinstance(schema, dict) and "items" in schema and "properties" not in schema:
        schema = schema.get("items")
    if not isinstance(schema, dict):
        return None, True
    props = schema.get("properties")
    if props is None:
        return None, True
    return props.get(name), name in props


def _unprojected(schema: Any) -> Any:
    while isinstance(schema, dict) and schema.get("type") == "array":
        schema = schema.get("items")
    return schema


def _enum(schema: Any) -> list[Any] | None:
    schema = _unprojected(schema)
    if isinstance(schema, dict):
        if isinstance(schema.get("enum"), list):
            return [v for v in schema["enum"] if v is not None]
        for key in ("anyOf", "oneOf"):
            for sub in schema.get(key, ()):
                values = _enum(sub)
                if values is not None:
                    return values
    return None


def compiled(rule: Rule, path: Path_) -> Expression:
    """The compiled expression at ``path`` of ``rule``; under ``params`` the effective value
    (perhaps a variant's or the command line's), else the document's text."""
    if not path or path[0] != "params":
        return rule.expression(*path)
    key = ("__param__",) + tuple(path)
    expression = rule._compiled.get(key)
    if expression is None:
        # start-up: rules_dsl loads only when compiled() runs
        from rules_dsl import compile_expression

        value: Any = rule.params
        for part in path[1:]:
            value = value[part]
        expression = compile_expression(str(value), origin=rule.loc(*path))
        rule._compiled[key] = expression
    return expression


def params_used(expression: Expression) -> list[str]:
    """The names ``NAME`` of every ``params.NAME`` in an expression, in order of appearance (its
    ``fields``, kept with its code: no parsing for an expression compiled by an earlier command)."""
    return list(dict.fromkeys(name for root, name in expression.fields if root == "params"))


def check_names(rule: Rule, path: Path_, expression: Expression, lang: str) -> Iterator[Diagnostic]:
    """Findings about ``params.NAME``, input fields and enum literals in one expression."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    tree = expression.ast
    schemas: dict[int, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.target, ast.Name) \
                and node.target.name == "params":
            if node.name not in rule.params:
                yield diagnostic(UNKNOWN_PARAM_NAME, _at(rule, path, _name_span(node)), lang,
                                 rule=rule.id, name=node.name, hint=did_you_mean(node.name, rule.params))
        chain = _path_of(node) if isinstance(node, ast.Attribute) else None
        if chain and id(node) not in schemas and chain[0].name != "params":
            schema = _root_schema(rule, chain[0].name)
            text = chain[0].name
            for link in chain[1:]:
                if schema is None:
                    break
                sub, declared = _field_schema(schema, link.name)
                if not declared:
                    closed = _unprojected(schema).get("additionalProperties") is False
                    yield diagnostic(UNKNOWN_FIELD, _at(rule, path, _name_span(link)), lang,
                                     severity=None if closed else "warning", path=text,
                                     name=link.name, rule=rule.id,
                                     hint=did_you_mean(link.name, _unprojected(schema)["properties"]))
                    schema = None
                    break
                schema = sub
                text += "." + link.name
                schemas[id(link)] = (text, schema)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            yield from _enum_literals(rule, path, node, lang, schemas)


def _schema_of(node: ast.Node, rule: Rule, schemas: dict[int, Any]) -> tuple[str, Any] | None:
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    if isinstance(node, ast.Name) and node.name != "params":
        schema = _root_schema(rule, node.name)
        return (node.name, schema) if schema is not None else None
    return schemas.get(id(node))


def _enum_literals(rule: Rule, path: Path_, node: ast.Compare, lang: str,
                   schemas: dict[int, Any]) -> Iterator[Diagnostic]:
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    for op, left, right in zip(node.ops, node.operands, node.operands[1:]):
        pairs = []
        if op in ("==", "!="):
            pairs = [(left, right), (right, left)]
        elif op in ("in", "not in"):
            pairs = [(left, right), (right, left)]
        for literal, other in pairs:
            literals = [literal] if isinstance(literal, ast.String) else \
                list(literal.items) if isinstance(literal, ast.ListLiteral) else []
            known = _schema_of(other, rule, schemas)
            if not literals or known is None:
                continue
            allowed = _enum(known[1])
            if allowed is None:
                continue
            for item in literals:
                if isinstance(item, ast.String) and item.value not in allowed:
                    yield diagnostic(NOT_IN_ENUM, _at(rule, path, item.span), lang, path=known[0],
                                     value=item.value, rule=rule.id,
                                     allowed=", ".join(map(str, allowed)),
                                     hint=did_you_mean(item.value, allowed, cutoff=0.5))


def unknown_roots(rule: Rule, path: Path_, expression: Expression, allowed: set[str],
                  lang: str) -> Iterator[Diagnostic]:
    """Root names that are neither inputs nor ``params``, located at the name."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only when a tree is checked

    seen: set[str] = set()
    for node in ast.walk(expression.ast):
        if isinstance(node, ast.Name) and node.name not in allowed and node.name not in seen:
            seen.add(node.name)
            yield diagnostic(UNKNOWN_NAME, _at(rule, path, node.span), lang, name=node.name,
                             rule=rule.id, hint=did_you_mean(node.name, allowed))
