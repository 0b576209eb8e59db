"""``schemas/rule.json``, generated: it dispatches a rule document on ``kind`` to the schema
``kinds/<module>.json`` that names that kind in ``properties.kind.const``; the command
``python3 -m interpreter.documents.schema --write-dispatch | --check`` keeps it current."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BASE = "https://mprules.invalid/schemas/"


def dispatch_schema(root: Path) -> dict[str, Any]:
    """``rule.json``: dispatch on ``kind`` to ``kinds/<module>.json`` (each names its kind in
    ``properties.kind.const``); an unknown kind lists the known ones and still gets the
    common checks."""
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
        "required": ["kind"],
        "allOf": branches,
    }


def write_rule_json(root: Path) -> Path:
    """Write ``root/rule.json``; returns its path."""
    target = root / "rule.json"
    target.write_text(json.dumps(dispatch_schema(root), indent=2, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    return target
