"""``schemas/rule.json``, generated: it dispatches a rule document on ``kind`` to the schema
``kinds/<module>.json`` that names that kind in ``properties.kind.const``; the command
``python3 -m interpreter.documents.schema --write-dispatch | --check`` keeps it current.

Validation takes the same branch without evaluating the others: ``direct_schema`` sends a rule
document of a known kind straight to its kind's schema."""
from __future__ import annotations

import os
from functools import cache

from rules_dsl import cachefile
from interpreter.documents.resources import data_dir_text

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

BASE = "https://mprules.invalid/schemas/"


def dispatch_schema(root: Path) -> dict[str, Any]:
    """``rule.json``: dispatch on ``kind`` to ``kinds/<module>.json`` (each names its kind in
    ``properties.kind.const``); an unknown kind lists the known ones and still gets the
    common checks."""
    import json  # start-up: only when rule.json is made again

    kinds: dict[str, str] = {}
    for path in sorted((root / "kinds").glob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        try:
            name = contents["properties"]["kind"]["const"]
        except (KeyError, TypeError):
            raise ValueError(f"{path}: properties.kind.const is missing") from None
        if name in kinds:
            raise ValueError(f"{path}: kind {name} is also in {kinds[name]}")
        kinds[name] = f"kinds/{path.name}"
    branches: list[dict[str, Any]] = [
        {"if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
         "then": {"$ref": ref}} for name, ref in sorted(kinds.items())]
    branches.append({"if": {"properties": {"kind": {"enum": sorted(kinds)}}, "required": ["kind"]},
                     "else": {"$ref": "common.json#/$defs/document"}})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "mprules rule document",
        "description": "ルール文書。`kind` の種類ごとのスキーマ（kinds/*.json）で検査します。",
        "markdownDescription": "ルール文書。`kind` の種類ごとのスキーマ（kinds/*.json）で検査します。"
                               " / A rule document, checked by the schema of its `kind`. Generated"
                               " by `python3 -m interpreter.documents.schema --write-dispatch` from"
                               " schemas/kinds/*.json: do not edit by hand.",
        "type": "object",
        "properties": {"kind": {
            "type": "string", "enum": sorted(kinds),
            "description": "ルールの種類（仕組み）。種類ごとに書ける項目が決まります。",
            "markdownDescription": "ルールの種類（仕組み）。種類ごとに書ける項目が決まります"
                                   "（docs/guide.md）。 / The rule's kind (its mechanism): it "
                                   "decides which fields the document has."}},
        # A document based_on another, or an abstract base, is a part of a document: its own
        # fields are typed here, the whole is checked by its kind's schema once merged.
        "if": {"anyOf": [{"required": ["based_on"]},
                         {"properties": {"abstract": {"const": True}}, "required": ["abstract"]}]},
        "then": {"$ref": "common.json#/$defs/partial_document"},
        "else": {"required": ["kind"], "allOf": branches},
    }


def write_rule_json(root: Path) -> Path:
    """Write ``root/rule.json``; returns its path."""
    import json  # start-up: only when rule.json is written

    target = root / "rule.json"
    target.write_text(json.dumps(dispatch_schema(root), indent=2, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    return target


@cache
def dispatch_targets() -> dict[str, str]:
    """Each kind's own schema as the installed ``rule.json`` dispatches to it
    (``{kind: "kinds/<module>.json"}``)."""
    file = os.path.join(data_dir_text("schemas"), "rule.json")
    found: dict[str, str] = dict(cachefile.derived(file, "dispatch", lambda: _targets(file)))
    return found


def _targets(file: str) -> dict[str, str]:
    """``dispatch_targets`` read from the file (kept by ``cachefile.derived``: no json next time)."""
    # start-up: json loads only when rule.json is read (it changes only with mprules itself)
    import json

    with open(file, encoding="utf-8") as handle:
        rule = json.load(handle)
    kinds = {}
    for branch in rule.get("else", rule).get("allOf", ()):
        name = branch.get("if", {}).get("properties", {}).get("kind", {}).get("const")
        target = branch.get("then", {}).get("$ref")
        if isinstance(name, str) and isinstance(target, str):
            kinds[name] = target
    return kinds


def direct_schema(schema: str, data: Any) -> str:
    """The schema to validate ``data`` against: a rule document of a known kind goes straight to
    its kind's schema (the branch ``rule.json`` takes, with the same findings); anything else
    (another schema, no kind, an unknown kind) keeps ``schema``."""
    if schema != "rule.json" or not isinstance(data, dict) or not isinstance(data.get("kind"), str) \
            or "based_on" in data or data.get("abstract") is True:
        return schema
    return dispatch_targets().get(data["kind"], schema)
