"""One way to say things in two languages: coded messages go through ``rules_dsl.errors.define``,
every other word through ``rules_dsl.words`` (``define_word``, ``word``), and a document's
``{ja, en}`` text through ``localized``. Checked on the source with ``ast``: a module outside the two
catalogues that branches on ``lang == "ja"`` or writes a literal table keyed by languages fails."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules_dsl.words import ASIDE, define_word, define_words, localized, translated, vocabulary, word

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = {ROOT / "rules_dsl" / "errors.py", ROOT / "rules_dsl" / "words.py"}
LANGS = {"ja", "en"}


def _is_lang(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in LANGS


def _names_lang(node: ast.AST) -> bool:
    """``lang``, ``args.lang``, ``ctx.lang``, ``merge.out.lang``..."""
    return (isinstance(node, ast.Name) and node.id == "lang") or \
        (isinstance(node, ast.Attribute) and node.attr == "lang")


def findings(source: str, where: str = "<test>") -> list[str]:
    """Each branch on a language and each literal table keyed by languages in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            sides = (node.left, node.comparators[0])
            if any(_is_lang(s) for s in sides) and any(_names_lang(s) for s in sides):
                found.append(f"{where}:{node.lineno}: a branch on the language")
        if isinstance(node, ast.Dict) and node.keys and all(k is not None and _is_lang(k) for k in node.keys):
            found.append(f"{where}:{node.lineno}: a literal table keyed by languages")
    return found


def _sources() -> list[Path]:
    return sorted(p for folder in ("rules_dsl", "interpreter") for p in (ROOT / folder).rglob("*.py")
                  if p not in CATALOGUES)


def test_no_module_outside_the_catalogues_says_things_its_own_way() -> None:
    found = [f for path in _sources()
             for f in findings(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert found == []


@pytest.mark.parametrize("source, count", [
    ('x = "a" if lang == "ja" else "b"', 1),
    ('x = WORDS["ja" if ctx.lang == "ja" else "en"]', 1),
    ('if args.lang != "ja":\n    pass', 1),
    ('LABELS = {"en": "out", "ja": "捨て札"}', 1),
    ('LABELS = {"en": {"a": "b"}, "ja": {"a": "c"}}', 1),
    ('TEXT = {"ja": value}', 1),
    ('x = word(KEY, lang)', 0),
    ('if value in ("ja", "en"):\n    pass', 0),
    ('parser.add_argument("--lang", choices=["ja", "en"])', 0),
    ('row = {"id": 1, "ja": "x"}', 0),
])
def test_the_check_finds_what_it_refuses(source: str, count: int) -> None:
    assert len(findings(source)) == count


@pytest.mark.parametrize("value, lang, expected", [
    ({"ja": "傑作", "en": "masterpiece"}, "ja", "傑作"),
    ({"ja": "傑作", "en": "masterpiece"}, "en", "masterpiece"),
    ({"ja": "傑作"}, "en", "傑作"),
    ({"en": "masterpiece"}, "ja", "masterpiece"),
    ({"ja": "", "en": "masterpiece"}, "ja", "masterpiece"),
    ({"fr": "chef-d'œuvre"}, "ja", "chef-d'œuvre"),
    ({}, "ja", ""),
    ("plain", "en", "plain"),
    (None, "ja", ""),
    (3, "ja", "3"),
])
def test_localized_reads_lang_then_japanese_then_english_then_the_first(value, lang, expected) -> None:
    assert localized(value, lang) == expected


def test_a_word_reads_english_for_any_language_but_japanese() -> None:
    key = define_word("test.sample", "{text} ({aside})", "{text}（{aside}）")
    assert key == "test.sample"
    assert [word(key, lang) for lang in ("ja", "en", "fr")] == \
        ["{text}（{aside}）", "{text} ({aside})", "{text} ({aside})"]
    assert word(ASIDE, "ja").format(text="平均", aside="表") == "平均（表）"


def test_a_word_defined_twice_must_say_the_same() -> None:
    define_word("test.twice", "same", "同じ")
    assert define_word("test.twice", "same", "同じ") == "test.twice"
    with pytest.raises(RuntimeError, match="test.twice"):
        define_word("test.twice", "other", "同じ")


def test_a_family_has_the_same_names_in_both_languages() -> None:
    family = define_words("test.family", {"in": "in", "out": "out"}, {"in": "引いた札", "out": "捨て札"})
    assert vocabulary(family, "ja") == {"in": "引いた札", "out": "捨て札"}
    assert vocabulary(family, "en") == {"in": "in", "out": "out"}
    with pytest.raises(RuntimeError, match="out"):
        define_words("test.uneven", {"in": "in", "out": "out"}, {"in": "引いた札"})


def test_a_text_of_the_code_reads_in_its_registered_rendering_or_as_written() -> None:
    import interpreter.cli._i18n  # noqa: F401  (registers argparse's texts)

    assert [translated("usage: ", lang) for lang in ("ja", "en")] == ["使い方: ", "usage: "]
    assert translated("a text nobody registered", "ja") == "a text nobody registered"
