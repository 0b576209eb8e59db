"""validate's findings and test's outcomes kept in the ruleset cache: the same with the cache off,
on the first (cold) run and on the next (warm) one, for every bundled ruleset and every broken
case; and a changed file is read and checked again."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from interpreter.checks import kept, loading
from interpreter.checks.validation import bundled_targets, validate_paths

BROKEN = Path(__file__).resolve().parents[1] / "broken"
TARGETS = [str(p) for p in bundled_targets()] + sorted(
    str(p) for p in BROKEN.rglob("*") if p.is_dir() or p.suffix in (".yaml", ".yml"))


def _three(monkeypatch, compute):
    """(cache off, cold cache, warm cache)."""
    with monkeypatch.context() as off:
        off.setenv("MPRULES_NO_CACHE", "1")
        without = compute()
    return without, compute(), compute()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_findings_are_the_same_with_and_without_the_cache(monkeypatch, lang):
    for target in TARGETS:
        without, cold, warm = _three(monkeypatch, lambda target=target: validate_paths([target], lang))
        assert without == cold == warm, target
        assert [d.path for d in without] == [d.path for d in warm], target


def test_outcomes_are_the_same_with_and_without_the_cache(monkeypatch):
    for target in [str(p) for p in bundled_targets()] + [str(BROKEN / "semantic")]:
        without, cold, warm = _three(monkeypatch, lambda target=target: kept.examples_of(target, "en"))
        shown = [(None if o is None else [x.to_json() for x in o], e) for o, e in (without, cold, warm)]
        assert shown[0] == shown[1] == shown[2], target


def test_a_warm_validate_reads_no_rule_file(monkeypatch):
    target = str(bundled_targets()[0])
    validate_paths([target])

    def refuse(*args, **kwargs):
        raise AssertionError("read again")

    monkeypatch.setattr(loading, "collect", refuse)
    validate_paths([target])
    kept.examples_of(target, "en")
    monkeypatch.setattr(loading, "collect_cached", refuse)
    kept.examples_of(target, "en")


def test_a_changed_file_is_checked_again(tmp_path):
    ruleset = tmp_path / "magipunk"
    shutil.copytree(bundled_targets()[0], ruleset)
    before = validate_paths([str(ruleset)])
    outcomes, _ = kept.examples_of(str(ruleset), "en")
    rule_file = ruleset / "procurement.yaml"
    text = rule_file.read_text(encoding="utf-8")
    rule_file.write_text(text.replace("kind: SumTable", "kind: SumTabel", 1), encoding="utf-8")
    after = validate_paths([str(ruleset)])
    assert after != before and any(d.severity == "error" for d in after)
    ran, errors = kept.examples_of(str(ruleset), "en")
    assert outcomes and ran is None and errors
    rule_file.write_text(text, encoding="utf-8")
    assert validate_paths([str(ruleset)]) == before
