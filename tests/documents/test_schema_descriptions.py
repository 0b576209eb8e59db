"""Every field a GM writes, in every schema under ``schemas/``, explains itself in Japanese first:
a Japanese ``description`` (what an editor shows on hover) and a ``markdownDescription`` that reads
"Japanese / English". The walk covers each schema's top level, every ``properties`` entry (also in
``then``/``else`` branches, ``items`` and ``$defs``) and every ``$defs`` entry; conditions (``if``,
``not``) and values (``const``, ``enum``, ``default``) are not fields."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = sorted((ROOT / "schemas").rglob("*.json"))
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
NOT_FIELDS = frozenset({"if", "not", "const", "enum", "default", "examples", "x-expected"})
SCHEMA_WORDS = frozenset({"type", "$ref", "properties", "oneOf", "anyOf", "allOf", "enum", "const",
                          "items", "description", "additionalProperties", "pattern"})


def gm_fields(node: object, path: str = "") -> Iterator[tuple[str, object]]:
    """Each schema a GM writes a value for, with its path: properties and ``$defs`` entries (a
    ``$defs`` entry with no schema keyword is a group of definitions, and its members count)."""
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            yield f"{path}/properties/{name}", sub
        for name, sub in (node.get("$defs") or {}).items():
            if isinstance(sub, dict) and not SCHEMA_WORDS & sub.keys():
                for member, schema in sub.items():
                    yield f"{path}/$defs/{name}/{member}", schema
            else:
                yield f"{path}/$defs/{name}", sub
        for key, sub in node.items():
            if key not in NOT_FIELDS and not key.startswith("x-"):
                yield from gm_fields(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from gm_fields(sub, f"{path}/{i}")


def problem(field: object) -> str | None:
    """Why a field's descriptions fall short, or None."""
    if not isinstance(field, dict):
        return "no description"
    description = field.get("description", "")
    markdown = field.get("markdownDescription", "")
    if not JAPANESE.search(description):
        return "no Japanese description"
    japanese, _, english = markdown.partition(" / ")
    if not JAPANESE.search(japanese):
        return "markdownDescription does not start in Japanese"
    if not LATIN_WORD.search(english):
        return "markdownDescription has no English after ' / '"
    return None


def missing(schema: dict) -> list[tuple[str, str]]:
    found = [("(top)", problem(schema))] if "title" in schema else []
    found += [(path, problem(field)) for path, field in gm_fields(schema)]
    return [(path, why) for path, why in found if why]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: str(p.relative_to(ROOT / "schemas")))
def test_every_field_a_gm_writes_is_described_in_japanese_then_english(path: Path) -> None:
    assert missing(json.loads(path.read_text(encoding="utf-8"))) == []


def test_the_kind_schemas_are_all_walked() -> None:
    names = {p.relative_to(ROOT / "schemas").as_posix() for p in SCHEMAS}
    assert {"common.json", "ruleset.json", "rule.json", "kinds/sum_table.json",
            "kinds/procedure.json"} <= names and len(names) >= 15


GOOD = {"description": "回数。", "markdownDescription": "回数。 / Uses."}
CASES = [  # (schema, the paths the walk must report)
    ({"title": "t", **GOOD, "properties": {"a": GOOD}}, []),
    ({"title": "t", **GOOD, "properties": {"a": {"type": "integer"}}}, ["/properties/a"]),
    ({"title": "t", **GOOD, "properties": {"a": {"description": "Uses.", "markdownDescription": "回数。 / Uses."}}},
     ["/properties/a"]),
    ({"title": "t", **GOOD, "properties": {"a": {"description": "回数。", "markdownDescription": "回数。"}}},
     ["/properties/a"]),
    ({"title": "t", **GOOD, "properties": {"a": {"description": "回数。", "markdownDescription": "Uses. / 回数。"}}},
     ["/properties/a"]),
    ({"title": "t", **GOOD, "properties": {"a": True}}, ["/properties/a"]),
    ({"title": "t", "properties": {}}, ["(top)"]),
    ({"title": "t", **GOOD, "$defs": {"row": {"type": "object"}}}, ["/$defs/row"]),
    ({"title": "t", **GOOD, "$defs": {"group": {"one": {"type": "object", **GOOD}, "two": {"type": "string"}}}},
     ["/$defs/group/two"]),
    ({"title": "t", **GOOD, "$defs": {"row": {**GOOD, "properties": {"id": {"type": "string"}}}}},
     ["/$defs/row/properties/id"]),
    ({"title": "t", **GOOD, "allOf": [{"if": {"properties": {"k": {"const": 1}}},
                                        "then": {"properties": {"p": {"type": "object"}}}}]},
     ["/allOf/0/then/properties/p"]),
    ({"title": "t", **GOOD, "properties": {"a": {**GOOD, "items": {"properties": {"b": {}}}}}},
     ["/properties/a/items/properties/b"]),
]


@pytest.mark.parametrize(("schema", "reported"), CASES)
def test_the_walk_reports_each_undescribed_field(schema: dict, reported: list[str]) -> None:
    assert [path for path, _ in missing(schema)] == reported
