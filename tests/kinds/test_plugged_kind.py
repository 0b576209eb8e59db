"""A kind living outside the package, found through the entry-point group ``mprules.kinds``: its
module, its schema and a ``*.dist-info/entry_points.txt`` on ``PYTHONPATH``; ``mprules validate``
checks its documents against its own schema and ``mprules run`` runs it. Run in a subprocess, so
the registry of this test process never sees the kind."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

KIND_MODULE = '''\
"""Kind ``Scaled``: the value of the expression ``formula`` times the parameter ``factor``."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rules_dsl.errors import Diagnostic, define, diagnostic

from interpreter.engine.registry import Kind
from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset

ZERO = define("MPX001", "rule {rule}: the factor is 0", "ルール {rule}: 係数が 0 です", severity="warning")


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> Any:
    base = ctx.evaluate(rule, ("formula",), {**inputs, "params": rule.params})
    return base * ctx.param(rule, "factor")


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    if rule.params.get("factor") == 0:
        yield diagnostic(ZERO, rule.loc("params", "factor"), lang, rule=rule.id)


KIND = Kind("Scaled", run, check=check, schema=Path(__file__).with_name("scaled_kind.json"))
'''

KIND_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "scaled_kind.json",
    "title": "Scaled",
    "type": "object",
    "allOf": [{"$ref": "../common.json#/$defs/document"}],
    "properties": {
        "kind": {"const": "Scaled"},
        "formula": {"type": "string", "x-expression": "value"},
        "params": {"type": "object", "properties": {"factor": {"type": "integer"}},
                   "required": ["factor"], "additionalProperties": False},
    },
    "required": ["formula", "params"],
    "unevaluatedProperties": False,
}

RULES = """\
id: t.scaled
kind: Scaled
source: Rc
title: {{en: scaled, ja: 倍率}}
inputs:
  type: object
  properties: {{n: {{type: integer}}}}
  required: [n]
formula: {formula}
params: {{factor: {factor}}}
"""


def _plugin(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "scaled_kind.py").write_text(KIND_MODULE, encoding="utf-8")
    (site / "scaled_kind.json").write_text(json.dumps(KIND_SCHEMA), encoding="utf-8")
    info = site / "scaled_kind-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: scaled-kind\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[mprules.kinds]\nscaled = scaled_kind:KIND\n", encoding="utf-8")
    return site


def _ruleset(tmp_path: Path, formula: str = "'n + 1'", factor: object = 3) -> Path:
    root = tmp_path / "rules"
    root.mkdir(exist_ok=True)
    (root / "ruleset.yaml").write_text('id: t\nversion: "1.0.0"\ntitle: {en: t}\n', encoding="utf-8")
    (root / "rules.yaml").write_text(RULES.format(formula=formula, factor=factor), encoding="utf-8")
    return root


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "input.yaml"
    path.write_text("n: 4\n", encoding="utf-8")
    return path


def _mprules(site: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
           "MPRULES_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "interpreter", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return _plugin(tmp_path)


def test_a_plugged_in_kind_validates_and_runs(site: Path, tmp_path: Path) -> None:
    rules = _ruleset(tmp_path)
    checked = _mprules(site, tmp_path, "validate", str(rules))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    done = _mprules(site, tmp_path, "run", "t.scaled", "--ruleset", str(rules),
                    "--input", str(_input(tmp_path)), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["value"] == 15
    assert "t.scaled.factor" in done.stdout  # the parameter went through ctx.param: traced


@pytest.mark.parametrize("formula, factor, code", [
    ("'n + 1'", "'three'", "MPR300"),  # the kind's schema: factor must be an integer
    ("'n +'", 3, "MPR1"),            # x-expression in the kind's schema: the formula is checked
    ("'m + 1'", 3, "MPR351"),        # ... and its names against the inputs
    ("'n + 1'", 0, "MPX001"),        # the kind's own check
])
def test_the_plugged_in_kinds_schema_and_check_apply(site: Path, tmp_path: Path, formula: str,
                                                     factor: object, code: str) -> None:
    rules = _ruleset(tmp_path, formula, factor)
    checked = _mprules(site, tmp_path, "validate", str(rules), "--format", "json")
    assert code in checked.stdout, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stderr


def test_an_extra_field_is_refused_by_the_kinds_schema(site: Path, tmp_path: Path) -> None:
    rules = _ruleset(tmp_path)
    path = rules / "rules.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "colour: blue\n", encoding="utf-8")
    checked = _mprules(site, tmp_path, "validate", str(rules))
    assert checked.returncode != 0 and "colour" in checked.stdout + checked.stderr


def test_without_the_entry_point_the_kind_is_unknown(site: Path, tmp_path: Path) -> None:
    rules = _ruleset(tmp_path)
    checked = _mprules(tmp_path / "nowhere", tmp_path, "validate", str(rules))
    assert checked.returncode != 0 and "Scaled" in checked.stdout + checked.stderr
    assert "Traceback" not in checked.stderr


def test_an_entry_point_that_is_not_a_kind_is_an_error_not_a_traceback(site: Path, tmp_path: Path) -> None:
    points = site / "scaled_kind-1.0.dist-info" / "entry_points.txt"
    points.write_text("[mprules.kinds]\nscaled = scaled_kind:run\n", encoding="utf-8")
    done = _mprules(site, tmp_path, "run", "t.scaled", "--ruleset", str(_ruleset(tmp_path)),
                    "--input", str(_input(tmp_path)))
    assert done.returncode != 0 and "MPR575" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


# (what is done to the plugin after a validate that kept its result, the code the next validate finds)
EDITS = [
    ("its check edited", lambda site: (site / "scaled_kind.py").write_text(
        KIND_MODULE.replace('== 0:', '== 3:'), encoding="utf-8"), "MPX001"),
    ("its schema edited", lambda site: (site / "scaled_kind.json").write_text(json.dumps(
        {**KIND_SCHEMA, "properties": {**KIND_SCHEMA["properties"], "params": {"type": "object", "properties": {
            "factor": {"type": "string"}}}}}), encoding="utf-8"), "MPR301"),
    ("the plugin removed", lambda site: (site / "scaled_kind-1.0.dist-info" / "entry_points.txt").unlink()
     or (site / "scaled_kind.py").unlink(), "Scaled"),
]


@pytest.mark.parametrize("name,edit,code", EDITS, ids=[e[0] for e in EDITS])
def test_the_caches_see_the_plugin_change(site: Path, tmp_path: Path, name: str, edit, code: str) -> None:
    rules = _ruleset(tmp_path)
    for _ in range(2):  # the second is warm: taken from the cache
        checked = _mprules(site, tmp_path, "validate", str(rules), "--format", "json")
        assert checked.returncode == 0 and code not in checked.stdout, checked.stdout + checked.stderr
    edit(site)
    checked = _mprules(site, tmp_path, "validate", str(rules), "--format", "json")
    assert code in checked.stdout + checked.stderr, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stderr
