"""Checks a run's input against the rule's declared ``inputs`` schema before the rule runs:
every problem found at once, the first located, all of them in one ``MprError``."""
from __future__ import annotations


from rules_dsl.errors import Location, MprError, define

from interpreter.engine import registry
from interpreter.engine.sure_schema import surely_passes, verdict
from interpreter.ruleset.model import Path_, Positions, Rule

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

INVALID_INPUT = define(
    "MPR500", "input of rule {rule}: {first}{rest}",
    "ルール {rule} の入力: {first}{rest}")
NOT_A_MAPPING = define(
    "MPR501", "the input of rule {rule} must be a mapping of names to values, got {got}",
    "ルール {rule} の入力は名前と値の対応（マッピング）でなければなりません（{got} が与えられました）")
NO_INPUTS = define(
    "MPR502", "rule {rule} takes no input, but {names} given",
    "ルール {rule} は入力を取りませんが、{names} が与えられました")


def check_inputs(rule: Rule, inputs: Any, positions: Positions | None = None,
                 file: str | None = None, lang: str = "en", texts: dict[Path_, str] | None = None) -> None:
    """Raise one ``MprError`` (MPR500-519) if ``inputs`` does not match ``rule``'s ``inputs`` schema.

    ``texts`` (a ``Document``'s written scalars) lets a YAML 1.1 trap (``no``, ``1:30``, ``010``
    read as a boolean or a number) be reported with "write it in quotes"."""
    where = Location(file, 1 if file else None, 1 if file else None, "input")
    if not isinstance(inputs, dict):
        raise MprError(NOT_A_MAPPING, where, rule=rule.id, got=type(inputs).__name__)
    # start-up: interpreter.ruleset.enum_from loads only when check_inputs() runs
    from interpreter.ruleset.enum_from import resolved_inputs

    schema = with_kind_inputs(rule, resolved_inputs(rule))
    if not isinstance(schema, dict):
        if inputs:
            raise MprError(NO_INPUTS, where, rule=rule.id, names=", ".join(map(str, inputs)))
        return
    if surely_passes(schema, inputs):  # no finding: the validator (jsonschema) need not load
        return
    # start-up: interpreter.documents.schema (jsonschema) loads only for an input it must word
    from interpreter.documents.schema import validate_instance

    findings = [d for d in validate_instance(inputs, schema, positions or {}, file, lang,
                                                   texts=texts)
                if d.severity == "error"]
    if not findings:
        return
    first = findings[0]
    rest = "".join(f"\n  {_where(d)}{d.message}" for d in findings[1:])
    error = MprError(INVALID_INPUT, Location(first.file or file, first.line, first.column, first.path),
                     rule=rule.id, first=first.message, rest=rest)
    error.diagnostics = findings  # type: ignore[attr-defined]
    raise error


def accepts(rule: Rule, inputs: Any) -> bool:
    """Whether ``check_inputs`` passes ``inputs``, without wording why not: a yes or a sure no
    of ``engine.sure_schema`` needs no validator (jsonschema)."""
    try:
        if isinstance(inputs, dict):
            # start-up: interpreter.ruleset.enum_from loads only when accepts() runs
            from interpreter.ruleset.enum_from import resolved_inputs

            schema = with_kind_inputs(rule, resolved_inputs(rule))  # as check_inputs reads it
            if isinstance(schema, dict):
                sure = verdict(schema, inputs)
                if sure is not None:
                    return sure
        check_inputs(rule, inputs)
    except MprError:
        return False
    return True


def with_kind_inputs(rule: Rule, schema: Any) -> Any:
    """``schema`` with the inputs the rule's kind always takes (``Kind.inputs``) added as
    properties; the document's own definition of a name wins. No such inputs: ``schema`` itself."""
    kind = registry.get(rule.kind)
    own = kind.inputs if kind is not None else None
    if not own:
        return schema
    if schema is None:
        return {"type": "object", "properties": dict(own), "additionalProperties": False}
    if not isinstance(schema, dict) or not isinstance(schema.get("properties", {}), dict):
        return schema
    return {**schema, "properties": {**own, **schema.get("properties", {})}}


def _where(d: Any) -> str:
    loc = str(Location(d.file, d.line, d.column, d.path))
    return f"{loc}: " if loc else ""
