"""Per-file work shared within a process (``interpreter.documents.shared``): validate's findings
and test's outcomes are the same with the sharing on (every target read in one process, a base's
files read once) and off (each target alone), for every bundled ruleset and every broken case;
each file is checked once and parsed at most twice; an edited file is read again."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from interpreter.checks import examples, kept
from interpreter.checks.validation import bundled_targets, validate_paths
from interpreter.documents import loader, schema, shared

BROKEN = Path(__file__).resolve().parents[1] / "broken"
TARGETS = [str(p) for p in bundled_targets()] + sorted(
    str(p) for p in BROKEN.rglob("*") if p.is_dir() or p.suffix in (".yaml", ".yml"))
RULESETS = [str(p) for p in bundled_targets()] + [str(BROKEN / "semantic")]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("MPRULES_NO_CACHE", "1")
    yield
    shared.enabled(True)
    shared.clear()


def _each(compute, targets, on):
    shared.enabled(on)
    shared.clear()
    found = []
    for target in targets:
        if not on:
            shared.clear()
        found.append(compute(target))
    return found


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_findings_are_the_same_with_and_without_sharing(lang):
    def compute(target):
        return validate_paths([target], lang)

    off, on = _each(compute, TARGETS, False), _each(compute, TARGETS, True)
    for target, alone, together in zip(TARGETS, off, on):
        assert alone == together, target
        assert [d.path for d in alone] == [d.path for d in together], target


def test_outcomes_are_the_same_with_and_without_sharing():
    def compute(target):
        ran, errors = kept.examples_of(target, "en")
        return None if ran is None else [o.to_json() for o in ran], errors

    off, on = _each(compute, RULESETS, False), _each(compute, RULESETS, True)
    for target, alone, together in zip(RULESETS, off, on):
        assert alone == together, target
    assert any(ran for ran, _ in on)


def test_each_file_is_parsed_at_most_twice_and_checked_once(monkeypatch):
    parsed: list[str] = []
    real = loader.load_text

    def counting(text, file="<input>", **kwargs):
        parsed.append(file)
        return real(text, file, **kwargs)

    checked: list[tuple[str, int, str]] = []
    real_check = schema.validate_document

    def counting_checks(doc, name="rule.json", lang="en"):
        checked.append((doc.file, doc.index, name))
        return real_check(doc, name, lang)

    monkeypatch.setattr(loader, "load_text", counting)
    monkeypatch.setattr(schema, "validate_document", counting_checks)
    shared.clear()
    validate_paths([str(p) for p in bundled_targets()])
    assert checked and len(checked) == len(set(checked))
    assert parsed and all(parsed.count(file) <= 2 for file in parsed)  # the first reader's, the kept one
    assert len(bundled_targets()) > 1 and len(parsed) < 2 * len(set(parsed))


def test_an_edited_file_is_read_again(tmp_path):
    ruleset = tmp_path / "magipunk"
    shutil.copytree(bundled_targets()[0], ruleset)
    shared.clear()
    before = validate_paths([str(ruleset)])
    rule_file = ruleset / "procurement.yaml"
    text = rule_file.read_text(encoding="utf-8")
    rule_file.write_text(text.replace("kind: SumTable", "kind: SumTabel", 1), encoding="utf-8")
    after = validate_paths([str(ruleset)])
    assert after != before and any(d.severity == "error" for d in after)
    rule_file.write_text(text, encoding="utf-8")
    assert validate_paths([str(ruleset)]) == before


def test_a_base_example_runs_again_only_under_a_variant_that_changes_what_it_reads(monkeypatch):
    runs: list[tuple[str, int]] = []
    real = examples.run_example

    def counting(ruleset, rule, index, lang="en"):
        runs.append((rule.id, index))
        return real(ruleset, rule, index, lang)

    monkeypatch.setattr(examples, "run_example", counting)
    targets = [str(p) for p in bundled_targets()]
    shared.clear()
    listed = sum(len(kept.examples_of(target, "en")[0] or []) for target in targets)
    shared_runs = len(runs)
    shared.enabled(False)
    runs.clear()
    assert sum(len(kept.examples_of(target, "en")[0] or []) for target in targets) == listed
    assert len(runs) == listed  # sharing off: every example of every ruleset runs
    assert 0 < shared_runs < listed
    # every example a variant changed ran again: some (rule, example) ran more than once
    shared.enabled(True)
    runs.clear()
    for target in targets:
        kept.examples_of(target, "en")
    assert len(set(runs)) < len(runs)


def test_a_variant_that_changes_a_rule_another_one_derives_from_runs_its_examples_again(tmp_path):
    base = tmp_path / "goods"
    shutil.copytree(Path(bundled_targets()[0]).parent / "examples" / "house_rules" / "stolen_goods", base)
    manifest = base / "ruleset.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        "extends: ../../../magipunk", f"extends: {bundled_targets()[0]}"), encoding="utf-8")
    variant = tmp_path / "dearer"
    variant.mkdir()
    (variant / "ruleset.yaml").write_text(
        "id: dearer\nversion: 0.1.0\ntitle: {en: dearer steel}\nextends: ../goods\n"
        "overrides:\n  procurement.rarity:\n    params:\n      materials_0: [堅木, 合成繊維, 獣革]\n"
        "      materials_1: [鋼, 合金, 重黒鉄, 魔樹木, 魔獣革, 合成樹脂, 強化結晶]\n", encoding="utf-8")

    def sale(target):
        ran, errors = kept.examples_of(str(target), "en")
        assert ran is not None, errors
        return [o.to_json() for o in ran if o.rule == "stolen_goods.sale"]

    alone = _each(sale, [base, variant], False)
    together = _each(sale, [base, variant], True)
    assert alone == together
    assert all(o["passed"] for o in together[0]) and not all(o["passed"] for o in together[1])
