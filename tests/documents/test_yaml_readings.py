"""One YAML reading in every channel: mprules reads YAML 1.2's core schema, as editors
(yaml-language-server, through the ``yaml`` package) and check-jsonschema (ruamel.yaml) do, and
warns (MPR325, at line:column, with the forms to write) wherever YAML 1.1 or check-jsonschema reads
a plain value differently.

``CORE`` is the table of forms with the value YAML 1.2's core schema gives each (spec 10.3.2; the
same values as the ``yaml`` package 2.9 that yaml-language-server uses). YAML 1.1 is PyYAML's safe
loader and check-jsonschema is its own loader, both called here, never restated; a channel must
read every form as ``CORE`` says, and warn exactly where one of them differs."""
from __future__ import annotations

import datetime
import io
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from check_jsonschema.parsers import yaml as cj_yaml

from rules_dsl.errors import MprError
from interpreter.campaign.characters import load_roster
from interpreter.checks.param_schema import parse_param_value
from interpreter.cli import campaign as campaign_cli
from interpreter.cli._expr import parse_vars
from interpreter.cli.run import read_input
from interpreter.documents import loader
from interpreter.documents.loader import load_text, reading_notes
from interpreter.documents.schema import validate_document
from interpreter.documents.yaml_readings import (UNREADABLE, check_jsonschema_value, dump, same,
                                                 yaml11_value)

CORE: list[tuple[str, Any]] = [
    # YAML 1.1's booleans are text in 1.2; 1.2's are the three spellings of true/false
    ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("Yes", "Yes"), ("NO", "NO"),
    ("On", "On"), ("y", "y"), ("n", "n"), ("true", True), ("True", True), ("TRUE", True),
    ("false", False), ("tRUE", "tRUE"),
    # null
    ("~", None), ("null", None), ("Null", None), ("NULL", None), ("nULL", "nULL"),
    # integers: decimal with leading zeros, 0o octal, 0x hexadecimal; nothing else
    ("014", 14), ("010", 10), ("08", 8), ("00", 0), ("-012", -12), ("+12", 12), ("0o14", 12),
    ("0o19", "0o19"), ("0x10", 16), ("0xff", 255), ("0X10", "0X10"), ("0b11", "0b11"),
    ("1_000", "1_000"), ("+0o14", "+0o14"), ("-0x10", "-0x10"), ("0x_10", "0x_10"),
    # sexagesimal is text
    ("1:30", "1:30"), ("10:30", "10:30"), ("190:20:30", "190:20:30"), ("1:30.5", "1:30.5"),
    ("06:00", "06:00"), ("-1:30", "-1:30"),
    # floats: a dot or an exponent, no sign needed in the exponent
    ("1.5", 1.5), ("1e3", 1000.0), ("1E3", 1000.0), ("1.e3", 1000.0), (".5", 0.5), ("5.", 5.0),
    ("+.5", 0.5), ("-.5e3", -500.0), ("1.5E-3", 0.0015), ("1_0.5", "1_0.5"), ("1e", "1e"),
    # dates stay text (mprules and check-jsonschema both keep them as text)
    ("2001-12-14", "2001-12-14"),
    # odd plain texts
    ("=", "="), ("e3", "e3"), ("0o", "0o"),
]
IDS = [form for form, _ in CORE]
_CJ_LOAD = cj_yaml.impl2loader(cj_yaml.construct_yaml_implementation(),
                               cj_yaml.construct_yaml_implementation(pure=True))


def check_jsonschema_reads(form: str) -> Any:
    """check-jsonschema's own reading of ``v: FORM`` (UNREADABLE when it refuses the file)."""
    try:
        return _CJ_LOAD(io.BytesIO(f"v: {form}\n".encode()))["v"]
    except cj_yaml.ParseError:
        return UNREADABLE


def yaml11_reads(form: str) -> Any:
    try:
        value = yaml.safe_load(f"v: {form}\n")["v"]
    except yaml.YAMLError:
        return UNREADABLE
    return value.isoformat() if isinstance(value, datetime.date) else value


def differs(form: str, value: Any) -> bool:
    return not same(yaml11_reads(form), value) or not same(check_jsonschema_reads(form), value)


@pytest.mark.parametrize("form, value", CORE, ids=IDS)
def test_the_models_of_the_other_readers_are_the_readers(form: str, value: Any) -> None:
    """yaml_readings' YAML 1.1 and check-jsonschema readings are what PyYAML and
    check-jsonschema return; where check-jsonschema reads unlike the core schema, it is one of the
    forms ruamel.yaml widens (``_``, ``0b``, a sign before 0x/0o, ``.5e3``) or refuses."""
    assert same(yaml11_value(form), yaml11_reads(form))
    assert same(check_jsonschema_value(form), check_jsonschema_reads(form))
    if not same(check_jsonschema_reads(form), value):
        assert form in ("0b11", "1_000", "+0o14", "-0x10", "0x_10", "1_0.5", "-.5e3", "=")


@pytest.mark.parametrize("form, value", CORE, ids=IDS)
def test_a_rule_document_reads_the_core_schema_and_warns_where_readers_differ(
        form: str, value: Any) -> None:
    text = ("id: a.b\nkind: SumTable\nsource: R9\ntitle: {en: x}\nrows: []\n"
            f"params:\n  v: {form}\n")
    (doc,) = load_text(text, "rule.yaml")
    assert same(doc.data["params"]["v"], value)
    warnings = [(f.line, f.column, f.code) for f in validate_document(doc)
                if f.severity == "warning"]
    assert warnings == ([(7, 6, "MPR325")] if differs(form, value) else [])


@pytest.mark.parametrize("form, value", CORE, ids=IDS)
def test_every_data_channel_reads_alike_and_warns_alike(form: str, value: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    loader.heard()
    warned = differs(form, value)
    file = tmp_path / "in.yaml"
    file.write_text(f"v: {form}\n", encoding="utf-8")
    readings: dict[str, Any] = {}
    notes: dict[str, list] = {}

    def channel(name: str, read: Any) -> None:
        try:
            readings[name] = read()
        except MprError as error:
            readings[name] = error.code
        notes[name] = [(n.file, n.line, n.column, n.code) for n in loader.heard()]

    channel("run --input FILE", lambda: read_input(str(file))[0]["v"])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(f"v: {form}\n".encode())))
    channel("run --input -", lambda: read_input("-")[0]["v"])
    channel("--var", lambda: parse_vars([f"v={form}"])["v"])
    channel("--param", lambda: parse_param_value(form, "a.b.v", "--param").value)
    args = SimpleNamespace(adopt=[], no_adopt=[], param=[f"a.b.v={form}"])
    channel("campaign --param", lambda: campaign_cli._switches(args)[1]["a.b"]["v"])
    chars = tmp_path / "chars.yaml"
    chars.write_text(f"characters:\n  - {{id: rin, name: {form}}}\n", encoding="utf-8")
    channel("characters", lambda: load_roster(str(chars)).characters[0].data["name"])

    expected_note = {
        "run --input FILE": [(str(file), 1, 4, "MPR325")],
        "run --input -": [("<stdin>", 1, 4, "MPR325")],
        "--var": [("--var v", 1, 1, "MPR325")],
        "--param": [("--param a.b.v", 1, 1, "MPR325")],
        "campaign --param": [("--param", 1, 1, "MPR325")],
        "characters": [(str(chars), 2, 21, "MPR325")],
    }
    for name, got in readings.items():
        if name == "characters" and not isinstance(value, str):
            assert got == "MPR640", name  # a name must be text: refused, located
        elif name == "--param" and value is None:
            assert got == "MPR426", name  # a null parameter value is refused: "write a value"
        elif name == "--var" and isinstance(value, float):
            assert float(got) == value and not isinstance(got, float), name  # exact: a Fraction
        else:
            assert same(got, value), (name, got)
        assert notes[name] == (expected_note[name] if warned else []), name


@pytest.mark.parametrize("form, value", CORE, ids=IDS)
def test_what_mprules_writes_reads_back_alike_everywhere(form: str, value: Any) -> None:
    """Exports and ``run``'s text output: a text that looks like a number is quoted for every
    reader, and the suggested plain form of a warning reads alike everywhere."""
    for data in ({"v": form}, {"v": value}):
        text = dump(data, allow_unicode=True, sort_keys=False, default_flow_style=None)
        (doc,) = load_text(text)
        assert same(doc.data["v"], data["v"]) and doc.readings == ()
        assert same(yaml.safe_load(text)["v"], data["v"])
        assert same(_CJ_LOAD(io.BytesIO(text.encode()))["v"], data["v"])
    (doc,) = load_text(f"v: {form}\n")
    for _, reading in doc.readings:
        if reading.plain:
            assert not differs(reading.plain, load_text(f"v: {reading.plain}\n")[0].data["v"])


@pytest.mark.parametrize("lang, words", [
    ("en", ["014 is read as 14", "YAML 1.1 reads it as 12", "'014' in quotes", "14 for the number"]),
    ("ja", ["014 は 14 と読まれます", "YAML 1.1 では 12", "引用符で囲んで '014'", "数値なら 14"]),
])
def test_the_warning_says_both_readings_and_what_to_write(lang: str, words: list[str]) -> None:
    (note,) = reading_notes(load_text("roll: [1, 014]\n", "r.yaml")[0], lang)
    assert (note.line, note.column, note.severity) == (1, 11, "warning")
    for word in words:
        assert word in note.message


@pytest.mark.parametrize("text", ["%YAML 1.1\n---\nv: yes\n", "%YAML 1.3\n---\nv: 1\n",
                                  "%YAML 2.0\n---\nv: 1\n"])
def test_a_yaml_version_other_than_1_2_is_refused(text: str) -> None:
    with pytest.raises(MprError) as caught:
        load_text(text, "old.yaml")
    assert caught.value.code == "MPR326" and caught.value.loc.line == 1
    assert text.split()[1] in caught.value.message("en")
    assert load_text("%YAML 1.2\n---\nv: yes\n")[0].data == {"v": "yes"}


def test_infinite_and_nan_stay_refused() -> None:
    for form in (".inf", "-.Inf", ".NaN", "1e999"):
        with pytest.raises(MprError) as caught:
            load_text(f"v: {form}\n")
        assert caught.value.code == "MPR216"
    assert math.isinf(check_jsonschema_value(".inf"))
