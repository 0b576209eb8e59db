"""A number typed in full-width characters (``１２``, ``－３``, ``１.５``) for a parameter whose
type, declared or inferred from its default, is a number is read as that number, with a warning
(MPR243) at the value; a text that is no number, or a parameter that takes texts, is left as
written (and a wrong type stays the schema's error). The same for a variant's overrides, for
``--param`` and for ruleset-wide parameters."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.checks.param_schema import parse_param_value
from interpreter.checks.loading import collect
from ruleset_support import manifest, write

RULE = """\
id: t.sum
kind: SumTable
source: House
title: {en: t}
params:
  bonus: 1
  name: abc
  counts: [1, 2]
  floor: 0
param_schema:
  floor: {type: integer, minimum: 0}
rows:
  - {id: one, when: 'true', value: 1}
"""
BASE = "parameter_schema:\n  g: {type: object, properties: {n: {type: integer}}}\nparameters:\n  g: {n: 1}\n"

# (parameter, the YAML written for it, the value it takes, the codes found: warnings and errors)
CASES = [
    ("bonus", "１２", 12, ["MPR243"]),
    ("bonus", "－３", -3, ["MPR243"]),
    ("bonus", "＋７", 7, ["MPR243"]),
    ("bonus", "１.５", 1.5, ["MPR243"]),
    ("bonus", "１２ｄ", "１２ｄ", ["MPR300"]),
    ("bonus", "ａｂｃ", "ａｂｃ", ["MPR300"]),
    ("bonus", "'12'", "12", ["MPR300"]),
    ("name", "１２", "１２", []),
    ("counts", "[１, 2]", [1, 2], ["MPR243"]),
    ("floor", "３", 3, ["MPR243"]),
    ("floor", "－３", -3, ["MPR243", "MPR307"]),
]


def _ruleset(tmp_path: Path, overrides: str = "", parameters: str = "") -> Path:
    base = write(tmp_path / "base", {"ruleset.yaml": manifest("base", BASE), "rules.yaml": RULE})
    return write(tmp_path / "variant", {"ruleset.yaml": manifest(
        "variant", f"extends: {base}\n{parameters}{overrides}")})


@pytest.mark.parametrize("name, written, value, codes", CASES)
def test_a_variant_override(tmp_path: Path, name: str, written: str, value, codes: list[str]) -> None:
    root = _ruleset(tmp_path, f"overrides:\n  t.sum:\n    params:\n      {name}: {written}\n")
    ruleset, findings = collect(root, "ja")
    assert ruleset is not None and ruleset.rules["t.sum"].params[name] == value
    found = [d for d in findings if d.code in ("MPR243", "MPR300", "MPR301", "MPR307")]
    assert [d.code for d in found] == codes
    assert all(d.file.endswith("ruleset.yaml") and d.line == 8 for d in found)
    if codes[:1] == ["MPR243"]:
        assert found[0].severity == "warning" and f"{value if name != 'counts' else 1} として読みました" in found[0].message


@pytest.mark.parametrize("name, written, value, codes", CASES)
def test_a_param_on_the_command_line(tmp_path: Path, name: str, written: str, value, codes: list[str]) -> None:
    root = _ruleset(tmp_path)
    overrides = {"t.sum": {name: parse_param_value(written, f"t.sum.{name}", "--param")}}
    ruleset, findings = collect(root, "en", param_overrides=overrides, given_as="--param")
    assert ruleset is not None and ruleset.rules["t.sum"].params[name] == value
    found = [d for d in findings if d.code in ("MPR243", "MPR300", "MPR301", "MPR307")]
    assert [d.code for d in found] == codes
    assert all(d.path == f"--param t.sum.{name}" and d.file is None for d in found)


@pytest.mark.parametrize("written, value, codes", [("３", 3, ["MPR243"]), ("ｘ", "ｘ", ["MPR300"])])
def test_a_ruleset_wide_parameter(tmp_path: Path, written: str, value, codes: list[str]) -> None:
    root = _ruleset(tmp_path, parameters=f"parameters:\n  g: {{n: {written}}}\n")
    ruleset, findings = collect(root, "en")
    assert ruleset is not None and ruleset.parameters["g"]["n"] == value
    assert [d.code for d in findings if d.code in ("MPR243", "MPR300")] == codes


def test_run_says_how_it_read_a_param(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _ruleset(tmp_path)
    assert main(["--lang", "ja", "run", "t.sum", "--ruleset", str(root), "--param", "t.sum.floor=１２",
                 "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert "--param t.sum.floor: MPR243 全角の １２ を数の 12 として読みました" in err
