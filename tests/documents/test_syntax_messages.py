"""YAML syntax errors in the GM's language: PyYAML's problem (English, libyaml's or the pure
loader's wording) becomes words of the message catalogue with a hint, the quoting hint where an
unquoted text is the likely cause; never PyYAML's English inside a Japanese message."""
from __future__ import annotations

import re

import pytest
import yaml

from rules_dsl.errors import MprError
from interpreter.documents.loader import load_text

LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])

# (the text, where the error is, words of the Japanese message)
CASES = [
    ("a: {b: c d: e}\n", (1, 11), ["{ } や [ ] の中で", "引用符で囲んで"]),
    ("a: [1, 2\n", (2, 1), ["{ } や [ ]", "閉じ"]),
    ("title: 表: 裏\n", (1, 9), ["「: 」は書けません", "title: '表: 裏'"]),
    ("a: @x\n", (1, 4), ["この記号で値を始める", "引用符で囲んで"]),
    ("a: `x\n", (1, 4), ["この記号で値を始める", "引用符で囲んで"]),
    ('a: "x\\q"\n', (1, 6), ["エスケープ", "シングルクォート"]),
    ('a: "abc\n', (2, 1), ["閉じないまま", "閉じて"]),
    ("key: value # a note\n  bad: 1\n", (2, 3), ["字下げ", "空白"]),
    ("a:\n  - 1\n  b: 2\n", (3, 3), ["字下げ"]),
    ("{a: 1}}\n", (1, 7), ["文書の終わりの後", "消して"]),
]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("text, where, words", CASES, ids=[c[0].strip() for c in CASES])
def test_a_syntax_error_speaks_japanese_with_a_hint(loader: type, text: str, where: tuple,
                                                    words: list[str]) -> None:
    with pytest.raises(MprError) as caught:
        load_text(text, "s.yaml", loader=loader)
    error = caught.value
    assert error.code == "MPR206"
    if loader is not yaml.SafeLoader:  # the pure loader marks some problems a little apart
        assert (error.loc.line, error.loc.column) == where
    japanese = error.message("ja")
    for word in words:
        assert word in japanese
    assert not re.search(r"[a-z]{3,} [a-z]{3,}", japanese), japanese  # no English sentence
    assert "; " in error.message("en") and "YAML syntax error" in error.message("en")
