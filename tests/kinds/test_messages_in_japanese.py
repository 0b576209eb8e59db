"""Findings about a document say what a field must be, and which field, in the GM's language: the
Japanese message has the Japanese words (整数, のいずれか, コード, ...), never the English ones."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.checks.loading import collect
from interpreter.documents.resources import bundled_ruleset

CASES = [
    # (file, text of the bundled document, changed to, code, Japanese words, English words)
    ("cohabitation.yaml", "  move: {window: params.window, tie: params.tie}\n  fallback: nearest_lower",
     "  move: {window: params.window, tie: params.tie}\n  fallback: \"'closest'\"", "MPR544",
     ["のいずれか"], ["one of"]),
    ("cohabitation.yaml", "  tables: {city: cohabitation.leisure.city, wilderness: cohabitation.leisure.wilderness}",
     "  tables: {city: cohabitation.leisure.city, wilderness: cohabitation.rent_split}", "MPR544",
     ["ルールセットの RollTable の ID"], ["the id of"]),
    ("cohabitation.yaml", "    code: MPR534", "    code: MPR530", "MPR569", ["コード"], ["code"]),
    ("cohabitation.yaml", "  - id: not_consenting", "  - id: too_few", "MPR569", ["ID"], [" id "]),
    ("rebuild.yaml", "    code: MPR831", "    code: MPR830", "MPR817", ["コード"], ["code"]),
]


@pytest.mark.parametrize("file, old, new, code, ja_words, en_words", CASES)
def test_a_finding_says_what_a_field_must_be_in_japanese(tmp_path: Path, file, old, new, code,
                                                          ja_words, en_words) -> None:
    for source in bundled_ruleset().glob("*.yaml"):
        text = source.read_text(encoding="utf-8")
        if source.name == file:
            assert old in text
            text = text.replace(old, new, 1)
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    _, findings = collect(tmp_path, lang="ja")
    [finding] = [d for d in findings if d.code == code]
    assert finding.file.endswith(file)
    assert all(w in finding.message for w in ja_words), finding.message
    assert not any(w in finding.message for w in en_words), finding.message
