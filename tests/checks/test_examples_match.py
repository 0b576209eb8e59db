"""``mprules test`` as a GM reads it: failures and one summary line (``-v`` for every example),
paths relative to where the GM stands (bundled files as ``(bundled) ...``); examples that match
part of a value (``match: subset``) and Japanese expectations compared with the Japanese rendering."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.checks.examples import matches
from interpreter.documents.resources import rulesets_dir
from ruleset_support import manifest, write

TABLE = """\
id: t.events
kind: RollTable
source: R16
title: {ja: 出来事表, en: Events}
inputs: {type: object, properties: {roll: {type: integer}}, additionalProperties: false}
params: {roll: 2d6}
rows:
  - {roll: [2, 6], id: quiet, text: {ja: 静かな日, en: A quiet day}}
  - {roll: [7, 12], id: loud, text: {ja: 騒がしい日, en: A loud day}, value: [1, 2, 3]}
examples:
"""
EXAMPLES = {
    "subset of a mapping": ("    input: {roll: 8}\n    match: subset\n    expect: {id: loud}\n", True),
    "subset of a list": ("    input: {roll: 8}\n    match: subset\n    expect: {value: [1, 2]}\n", True),
    "subset with a wrong field": ("    input: {roll: 8}\n    match: subset\n    expect: {id: quiet}\n", False),
    "exact needs every field": ("    input: {roll: 8}\n    expect: {id: loud}\n", False),
    "a Japanese message": ("    input: {roll: 20}\n    match: subset\n"
                           "    expect: {error: MPR514, message: 出目 20 は表 t.events の範囲（2〜12）の外です}\n", True),
    "an English message": ("    input: {roll: 20}\n    match: subset\n"
                           "    expect: {error: MPR514, message: roll 20 is outside table t.events (2 to 12)}\n", True),
    "a wrong Japanese message": ("    input: {roll: 20}\n    match: subset\n"
                                 "    expect: {error: MPR514, message: 出目が変です}\n", False),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_matching(capsys, tmp_path, name: str) -> None:
    body, passes = EXAMPLES[name]
    root = write(tmp_path, {"ruleset.yaml": manifest("t"),
                            "t.yaml": TABLE + f"  - name: {name}\n" + body})
    code = main(["--lang", "en", "test", str(root), "--format", "json"])
    out = capsys.readouterr().out
    assert code == (0 if passes else 1), out


@pytest.mark.parametrize("expected, actual, subset, result", [
    ({"a": 1}, {"a": 1, "b": 2}, True, True), ({"a": 1}, {"a": 1, "b": 2}, False, False),
    ([1], [1, 2], True, True), ([1, 2, 3], [1, 2], True, False), ({"a": {"b": [1]}}, {"a": {"b": [1, 5]}}, True, True),
    (True, 1, True, False), ("x", "x", True, True), ({"a": None}, {}, True, False)])
def test_matches(expected, actual, subset: bool, result: bool) -> None:
    assert matches(expected, actual, subset) is result


def test_bundled_test_run_is_quiet(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the GM stands outside the installation
    assert main(["--lang", "ja", "test"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) < 10 and out.startswith("成功 ") and "失敗 0 件" in out
    assert main(["--lang", "en", "test", "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 50 and all(" /" not in line for line in lines)
    assert any(line.startswith("PASS (bundled) magipunk/briefing.yaml:") for line in lines)
    # every house rule's examples are among them (the one run that covers them all)
    house_rules = sorted(p.name for p in (rulesets_dir() / "examples" / "house_rules").iterdir() if p.is_dir())
    passed = {line.split("/")[2] for line in lines if line.startswith("PASS (bundled) examples/house_rules/")}
    assert house_rules and passed == set(house_rules)
    assert not any(line.startswith("FAIL") for line in lines)


def test_failures_show_paths_relative_to_where_the_gm_stands(capsys, tmp_path, monkeypatch) -> None:
    body, _ = EXAMPLES["subset with a wrong field"]
    write(tmp_path / "house", {"ruleset.yaml": manifest("t"), "t.yaml": TABLE + "  - name: x\n" + body})
    monkeypatch.chdir(tmp_path)
    assert main(["--lang", "en", "test", "house"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL house/t.yaml:") and out.rstrip().endswith("0 passed, 1 failed")


def test_a_second_run_takes_unchanged_rulesets_from_the_cache(capsys, tmp_path, monkeypatch) -> None:
    from interpreter.checks import loading

    body, _ = EXAMPLES["subset of a mapping"]
    good = write(tmp_path / "good", {"ruleset.yaml": manifest("t"), "t.yaml": TABLE + "  - name: x\n" + body})
    write(tmp_path / "broken", {"ruleset.yaml": manifest("b"), "t.yaml": TABLE.replace("kind:", "kinds:")})
    read: list[str] = []
    real = loading.collect
    monkeypatch.setattr(loading, "collect", lambda root, *a, **k: read.append(Path(root).name) or real(root, *a, **k))
    monkeypatch.chdir(tmp_path)

    def run() -> tuple[int, str]:
        code = main(["--lang", "en", "test", "good", "broken"])
        return code, capsys.readouterr().out.strip().splitlines()[-1]

    assert run() == (1, "1 passed, 0 failed, 1 ruleset(s) with errors") and read == ["good", "broken"]
    read.clear()  # the good one comes from the cache; one with errors is never kept
    assert run() == (1, "1 passed, 0 failed, 1 ruleset(s) with errors") and read == ["broken"]
    read.clear()  # an edited example is read again
    (good / "t.yaml").write_text(TABLE + "  - name: x\n" + EXAMPLES["exact needs every field"][0], encoding="utf-8")
    assert run() == (1, "0 passed, 1 failed, 1 ruleset(s) with errors") and read == ["good", "broken"]
