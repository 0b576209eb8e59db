"""Schemas: the broken corpus located exactly, the bundled documents clean, dispatch by kind,
messages in both languages, and no network or outside file ever reached through $ref."""
from __future__ import annotations

import json
import shutil
import socket
import urllib.request
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from interpreter.documents import schema as schema_module
from interpreter.documents.loader import load_file, load_text
from interpreter.documents.resources import rulesets_dir, schemas_dir
from interpreter.documents.schema import (dispatch_schema, validate_document, validate_instance,
                                validator_for, write_dispatch)
from rules_dsl.errors import MESSAGES, MprError

BROKEN = Path(__file__).parents[1] / "broken"
EXPECTED = yaml.safe_load((BROKEN / "expected.yaml").read_text(encoding="utf-8"))
SCHEMA_CASES = sorted(k for k in EXPECTED if k.startswith("schema/"))


def schema_for(path: Path) -> str:
    return "ruleset.json" if path.name.startswith("ruleset") else "rule.json"



def findings_of(path: Path, lang: str = "en") -> list:
    return [f for doc in load_file(path) for f in validate_document(doc, schema_for(path), lang)]


@pytest.mark.parametrize("name", SCHEMA_CASES)
def test_broken_schema_corpus(name: str) -> None:
    expected = EXPECTED[name]
    found = findings_of(BROKEN / name)
    assert [(f.code, f.line, f.column) for f in found] == [
        (expected["code"], expected["line"], expected["column"])]
    assert found[0].file == str(BROKEN / name)
    (japanese,) = findings_of(BROKEN / name, "ja")
    assert japanese.code == found[0].code and japanese.message != found[0].message


@pytest.mark.parametrize("name, words", [
    ("schema/unknown_kind.yaml", ["SumTabel", "did you mean 'SumTable'", "RollTable"]),
    ("schema/unknown_field_typo.yaml", ["exmaples", "did you mean 'examples'"]),
    ("schema/zero_width_key.yaml", ["did you mean 'optional'", "U+200B"]),
    ("schema/fullwidth_key.yaml", ["did you mean 'text'"]),
    ("schema/title_yaml11_no.yaml", ["YAML 1.1 reads it as false", "'no' in quotes"]),
    ("schema/example_name_sexagesimal.yaml", ["'1:30' in quotes", "90"]),
    ("schema/example_name_octal.yaml", ["'010'", " 10,"]),
    ("schema/bad_source.yaml", ["140 characters", "120"]),
    ("schema/example_without_expect.yaml", ["'expect'", "'expect_error'"]),
    ("schema/example_dice_and_seed.yaml", ["'dice'", "'seed'"]),
    ("schema/inputs_file_ref.yaml", ["file:///etc/passwd", "never fetched"]),
    ("schema/ruleset_unknown_field.yaml", ["did you mean 'extends'"]),
    ("schema/params_sexagesimal.yaml", ["10:30", "630", "'10:30' in quotes"]),
])
def test_messages_name_the_mistake(name: str, words: list[str]) -> None:
    (finding,) = findings_of(BROKEN / name)
    for word in words:
        assert word in finding.message


def _bundled() -> list[Path]:
    """The manifests and rule files (every *.yaml beside a ruleset.yaml) of the bundled rulesets."""
    return sorted(path for manifest in rulesets_dir().rglob("ruleset.yaml")
                  for path in manifest.parent.glob("*.yaml"))


@pytest.mark.parametrize("path", _bundled(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bundled_documents_are_clean(path: Path) -> None:
    assert [f"{f.line}:{f.column} {f.code} {f.message}" for f in findings_of(path)] == []


def test_dispatch_is_up_to_date_and_names_every_kind() -> None:
    assert schema_module.main(["--check"]) == 0
    generated = json.loads((schemas_dir() / "rule.json").read_text(encoding="utf-8"))
    kinds = {json.loads(p.read_text(encoding="utf-8"))["properties"]["kind"]["const"]
             for p in (schemas_dir() / "kinds").glob("*.json")}
    assert set(generated["properties"]["kind"]["enum"]) == kinds
    assert len(generated["else"]["allOf"]) == len(kinds) + 1


def test_write_dispatch_regenerates_from_kind_schemas(tmp_path: Path) -> None:
    root = tmp_path / "schemas"
    (root / "kinds").mkdir(parents=True)
    shutil.copy(schemas_dir() / "common.json", root)
    (root / "kinds" / "tally.json").write_text(json.dumps({
        "$id": "kinds/tally.json", "allOf": [{"$ref": "../common.json#/$defs/document"}],
        "properties": {"kind": {"const": "Tally"}, "count": {"type": "integer"}},
        "unevaluatedProperties": False}), encoding="utf-8")
    target = write_dispatch(root)
    rule = json.loads(target.read_text(encoding="utf-8"))
    assert rule["properties"]["kind"]["enum"] == ["Tally"]
    assert rule["else"]["allOf"][0]["then"] == {"$ref": "kinds/tally.json"}
    (root / "kinds" / "broken.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="properties.kind.const"):
        dispatch_schema(root)


def test_values_yaml11_reads_differently_are_warnings_and_a_wrong_type_stays_an_error() -> None:
    text = ("id: a.b\nkind: SumTable\nsource: R9\ntitle: {en: x}\nrows: []\n"
            "params: {at: 10:30, code: 010, n: 10, t: 06:00, yes: on}\n"
            "examples: [{name: 1:30, expect: 1}, {name: 012, expect: 1}]\n")
    (doc,) = load_text(text, "w.yaml")
    assert [(f.line, f.column, f.code, f.severity) for f in validate_document(doc)] == [
        (6, 14, "MPR325", "warning"), (6, 27, "MPR325", "warning"), (6, 54, "MPR325", "warning"),
        (7, 19, "MPR325", "warning"), (7, 44, "MPR301", "error")]  # 06:00 is text in YAML 1.1 too


def test_a_kind_branch_reports_only_its_own_errors() -> None:
    text = ("id: a.b\nkind: SumTable\nsource: R9\ntitle: {en: A}\nrows: 3\n")
    (doc,) = load_text(text, "k.yaml")
    assert [(f.code, f.line, f.column, f.path) for f in validate_document(doc)] == [
        ("MPR300", 5, 7, "rows")]


def test_one_finding_per_place_all_places_at_once_sorted() -> None:
    text = ("id: A\nkind: SumTable\nsource: R99\ntitle: {en: 5}\nrows: []\nextra: 1\n"
            "examples:\n  - {name: x, expect: 1, dice: [0]}\n")
    (doc,) = load_text(text, "s.yaml")
    found = validate_document(doc)
    assert [(f.line, f.column, f.code) for f in found] == [
        (1, 5, "MPR306"), (4, 13, "MPR301"), (6, 1, "MPR303"),
        (8, 33, "MPR307")]


def test_unknown_kind_still_gets_the_common_checks() -> None:
    (doc,) = load_text("id: a.b\nkind: Nonsense\nsource: R9\ntitle: 3\n", "u.yaml")
    assert [(f.code, f.line) for f in validate_document(doc)] == [("MPR312", 2), ("MPR300", 4)]


def test_validate_instance_locates_inside_a_prefix_and_quotes_yaml11_texts() -> None:
    (doc,) = load_text("run:\n  input:\n    clock: 10:30\n    n: two\n", "in.yaml")
    schema = {"type": "object", "properties": {"clock": {"type": "string"},
                                               "n": {"type": "integer"}},
              "additionalProperties": False}
    found = validate_instance(doc.data["run"]["input"], schema, doc.positions, doc.file,
                              path_prefix=("run", "input"), texts=doc.texts)
    assert [(f.code, f.line, f.column, f.path) for f in found] == [("MPR300", 4, 8, "run.input.n")]
    assert doc.data["run"]["input"]["clock"] == "10:30"  # YAML 1.2: text, as the schema wants


def test_validate_instance_without_positions() -> None:
    found = validate_instance({"a": 1}, {"type": "object", "required": ["b"]}, None, None)
    assert [(f.code, f.line, f.path) for f in found] == [("MPR302", None, None)]
    assert validate_instance({"b": 1}, {"type": "object", "required": ["b"]}, None, None) == []


@pytest.mark.parametrize("ref", [
    "https://example.com/schema.json", "http://127.0.0.1:9/x.json", "file:///etc/passwd",
    "../../etc/passwd", "rule.json", "https://mprules.invalid/schemas/nothing.json"])
def test_refs_outside_the_local_schemas_are_findings_never_fetched(ref: str, monkeypatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("network or file access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    found = validate_instance({"x": 1}, {"type": "object", "properties": {"x": {"$ref": ref}}},
                              None, "i.yaml")
    assert [f.code for f in found] == ["MPR315"]


def test_local_refs_resolve_through_the_registry() -> None:
    schema = {"$ref": "https://mprules.invalid/schemas/common.json#/$defs/id"}
    assert validate_instance("a.b", schema, None, None) == []
    assert [f.code for f in validate_instance("A", schema, None, None)] == ["MPR306"]


def test_refs_inside_an_inputs_schema_resolve_locally() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}},
              "$defs": {"n": {"type": "integer"}}}
    assert validate_instance({"a": 1}, schema, None, None) == []
    assert [f.code for f in validate_instance({"a": "x"}, schema, None, None)] == ["MPR300"]


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"x": {"type": 5}}},
    {"properties": {"x": {"pattern": "("}}},
    {"$ref": "#"},
    {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
], ids=["bad-type", "bad-pattern", "ref-to-itself", "ref-loop"])
def test_an_invalid_schema_is_a_finding(schema: dict) -> None:
    found = validate_instance({"x": "y"}, schema, None, "f")
    assert [f.code for f in found] == ["MPR320"]


def test_unknown_schema_name_is_an_error() -> None:
    with pytest.raises(MprError) as caught:
        validator_for("nothing.json")
    assert caught.value.code == "MPR322"
    assert validator_for("kinds/sum_table.json") is validator_for("kinds/sum_table.json")


def test_every_schema_code_has_both_languages() -> None:
    codes = [c for c in MESSAGES if "MPR300" <= c <= "MPR349"]
    assert len(codes) >= 20
    for code in codes:
        assert MESSAGES[code].en and MESSAGES[code].ja and MESSAGES[code].en != MESSAGES[code].ja


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(
        ["SumTable", "RollTable", "R9", "a.b", "", "x", "MPR501"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "kind", "source", "title", "ja", "en", "rows", "examples",
                         "name", "expect", "dice", "seed", "inputs", "type", "params", "x"]),
        inner, max_size=5),
    max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(JSONISH)
def test_any_data_gives_findings_never_an_exception(data) -> None:
    for finding in validate_instance(data, "rule.json", {(): ("f", 1, 1)}, "f"):
        assert finding.code.startswith("MPR3") and finding.line == 1


def _patterns(node, found: set) -> set:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str) and "x-expected" not in node:
            found.add(node["pattern"])
        for value in node.values():
            _patterns(value, found)
    elif isinstance(node, list):
        for value in node:
            _patterns(value, found)
    return found


def test_every_pattern_of_the_schemas_is_said_in_words() -> None:
    from interpreter.documents.schema_messages import PATTERN_WORDS

    found: set = set()
    for path in schemas_dir().rglob("*.json"):
        _patterns(json.loads(path.read_text(encoding="utf-8")), found)
    assert found and found <= set(PATTERN_WORDS)


@pytest.mark.parametrize("pattern", ["^MPR[0-9]{3}$", "^[a-z][a-z0-9_]*$", "^[^\\s.]+$"])
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_pattern_finding_says_what_is_wanted_not_the_regex(pattern: str, lang: str) -> None:
    (found,) = validate_instance({"v": "Bad Value."}, {"properties": {"v": {"pattern": pattern}}},
                                 None, "x.yaml", lang)
    assert found.code == "MPR306" and pattern not in found.message and "^" not in found.message
