"""The parameters of a ``Procedure`` rule against the types its solver declares in the kind schema
(``schemas/kinds/procedure.json#/$defs/params/<solver>``): checked on the effective values, after
every variant layer and ``--param``, so a wrong type or an out-of-range value is a finding at the
place that set it (``validate``), and refused before the solver runs (``run``)."""
from __future__ import annotations

from functools import cache
from typing import Any

from rules_dsl.errors import Diagnostic, Location, MprError, define

from ..resources import schemas_dir

BAD_PARAMS = define(
    "MPR862", "rule {rule}: a parameter does not fit solver {solver}: {detail_en}",
    "ルール {rule}: パラメータがソルバー {solver} の型に合いません: {detail_ja}")

SCHEMA = "kinds/procedure.json"


@cache
def _declared(solver: str) -> bool:
    import json

    schema = json.loads((schemas_dir() / SCHEMA).read_text(encoding="utf-8"))
    return solver in schema.get("$defs", {}).get("params", {})


def param_findings(rule: Any, solver: str, lang: str) -> list[Diagnostic]:
    """Every finding of the rule's effective parameters against its solver's parameter schema,
    located where each value is written (the document, a variant, or ``--param``)."""
    from ..schema import validate_instance

    if not _declared(solver):
        return []
    return validate_instance(rule.params, f"{SCHEMA}#/$defs/params/{solver}", rule.positions,
                             rule.file, lang, ("params",))


def check_params(rule: Any, solver: str, lang: str) -> None:
    """Raise MPR862 at the first wrong parameter (in both languages)."""
    findings = [d for d in param_findings(rule, solver, "en") if d.severity == "error"]
    if not findings:
        return
    first = findings[0]
    ja = next((d for d in param_findings(rule, solver, "ja") if d.path == first.path), first)
    raise MprError(BAD_PARAMS, Location(first.file or rule.file, first.line, first.column,
                                        first.path),
                   rule=rule.id, solver=solver, detail_en=first.message, detail_ja=ja.message)

