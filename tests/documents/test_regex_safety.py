"""Patterns of rule schemas that can backtrack for ever are refused when read (MPR324); the usual
safe shapes (ids, times, lists separated by commas, dotted names) are not."""
from __future__ import annotations

import pytest

from interpreter.documents.regex_safety import backtracking_risk

RISKY = [
    (r"^(a+)+$", "a repeated group that repeats its own start"),
    (r"(a*)*", "a repeated group that repeats its own start"),
    (r"^(\w+\s?)*$", "a repeated group that repeats its own start"),
    (r"(.*a){20}", "a repeated group that repeats its own start"),
    (r"^(\d+)*$", "a repeated group that repeats its own start"),
    (r"(a|aa)+", "alternatives under a repetition"),
    (r"^(x+|y)*z$", "a repeated group that repeats its own start"),
    (r"^(ab|a)+$", "alternatives under a repetition"),
    (r"(x)\1", "a back-reference"),
    (r"^a*a*a*b$", "three repetitions of shared characters in a row"),
    (r"^\d*[0-9]*\w*$", "three repetitions of shared characters in a row"),
]
SAFE = [r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$", r"^\s*[a-z]+\s*$", r"^(R([0-9]|1[0-9]|2[01])|Rc)$",
        r"^MPR[0-9]{3}$", r"^[0-9]{1,2}:[0-9]{2}$", r"^\d+(,\d+)*$", r"^([a-z]+\.)+[a-z]+$",
        r"^(a+b)+$", r"^[鋼堅木]+$", r"^(?:a|b)*$", r"(", r"a{1,3}b{2}"]


@pytest.mark.parametrize("pattern, why", RISKY)
def test_risky_patterns_are_named(pattern: str, why: str) -> None:
    risk = backtracking_risk(pattern)
    assert risk is not None and risk["why"] == why and risk["why_ja"]


@pytest.mark.parametrize("pattern", SAFE)
def test_safe_patterns_pass(pattern: str) -> None:
    assert backtracking_risk(pattern) is None


def test_a_rule_with_a_risky_pattern_is_a_located_finding() -> None:
    from interpreter.documents.loader import load_text
    from interpreter.documents.schema import validate_document

    text = ("id: t.p\nkind: SumTable\nsource: R9\ntitle: {en: P}\nrows: [{when: 'true', value: 1}]\n"
            "examples: [{name: one, input: {}, expect: 1}]\n"
            "inputs:\n  type: object\n  patternProperties:\n    '^(ab|a)+$': {type: string}\n"
            "  properties:\n    name: {type: string, pattern: '^(a+)+$'}\n")
    (doc,) = load_text(text, "p.yaml")
    found = [(d.code, d.line) for d in validate_document(doc, lang="en") if d.code == "MPR324"]
    assert sorted(found) == [("MPR324", 10), ("MPR324", 12)]
