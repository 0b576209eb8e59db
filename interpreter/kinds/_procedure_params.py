"""The parameters of a ``Procedure`` rule against the types its solver declares in the kind schema
(``schemas/kinds/procedure.json#/$defs/params/<solver>``): checked on the effective values, after
every variant layer and ``--param``, so a wrong type or an out-of-range value is a finding at the
place that set it; a ruleset with such a finding is not loaded, so a solver never sees it."""
from __future__ import annotations

from functools import cache

from rules_dsl.errors import Diagnostic

from interpreter.ruleset.model import Rule
from interpreter.documents.resources import schemas_dir

SCHEMA = "kinds/procedure.json"


@cache
def _declared(solver: str) -> bool:
    # start-up: json loads only when a procedure's parameters are checked (validation)
    import json

    schema = json.loads((schemas_dir() / SCHEMA).read_text(encoding="utf-8"))
    return solver in schema.get("$defs", {}).get("params", {})


def param_findings(rule: Rule, solver: str, lang: str) -> list[Diagnostic]:
    """Every finding of the rule's effective parameters against its solver's parameter schema,
    located where each value is written (the document, a variant, or ``--param``)."""
    # start-up: interpreter.documents.schema loads only when param_findings() runs
    from interpreter.documents.schema import validate_instance

    if not _declared(solver):
        return []
    return validate_instance(rule.params, f"{SCHEMA}#/$defs/params/{solver}", rule.positions,
                             rule.file, lang, ("params",))

