"""The catalogue of words and labels in two languages, beside the message catalogue of ``errors``.

A coded message (an error, a warning) is defined with ``errors.define``; every other word a user
reads (a table heading, a label, a separator, a unit) is defined here once with ``define_word`` and
looked up with ``word(key, lang)``. A document's own bilingual text (``{ja: ..., en: ...}``) is read
with ``localized``, the one place that says which language stands in for a missing one.
A test (``tests/project/test_words.py``) refuses a ``lang == "ja"`` branch or a literal
``{"ja": ..., "en": ...}`` table anywhere else.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: the fast commands load this module
if TYPE_CHECKING:
    from typing import Any

LANGS = ("ja", "en")
"""The languages of every text, the first standing in for a missing one."""


class Word:
    """One word in both languages (a plain class: no dataclass machinery at start-up)."""

    __slots__ = ("en", "ja")

    def __init__(self, en: str, ja: str) -> None:
        self.en = en
        self.ja = ja

    def __call__(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en


WORDS: dict[str, Word] = {}
FAMILIES: dict[str, dict[str, Word]] = {}


def define_word(key: str, en: str, ja: str) -> str:
    """Register the word ``key``; returns the key so modules can keep it as a constant."""
    known = WORDS.get(key)
    if known is not None and (known.en, known.ja) != (en, ja):
        raise RuntimeError(f"word {key} defined twice with different texts")
    WORDS[key] = Word(en, ja)
    return key


def word(key: str, lang: str) -> str:
    """The word ``key`` in ``lang`` (English for any language but Japanese)."""
    return WORDS[key](lang)


def bilingual(key: str) -> dict[str, str]:
    """The word ``key`` as a document's text ``{ja: ..., en: ...}``."""
    entry = WORDS[key]
    return {"ja": entry.ja, "en": entry.en}


def same_text(text: str) -> dict[str, str]:
    """A text that reads the same in every language, in the shape of a document's text."""
    return dict.fromkeys(LANGS, text)


def is_text(value: Any) -> bool:
    """Whether ``value`` is a document's bilingual text: a mapping whose keys are languages."""
    return isinstance(value, dict) and bool(value) and set(value) <= set(LANGS)


def localized(value: Any, lang: str) -> str:
    """A document's text in ``lang``: a plain value as it is; of ``{ja: ..., en: ...}`` the text in
    ``lang``, else in Japanese, else in English, else the first text given ("" when there is none)."""
    if not isinstance(value, dict):
        return "" if value is None else str(value)
    for choice in (lang, *LANGS):
        if value.get(choice):
            return str(value[choice])
    return next((str(text) for text in value.values() if text), "")


def define_translations(texts: dict[str, str]) -> None:
    """Register Japanese renderings of texts written in English where they are used (a command's
    help, argparse's own texts), each keyed by its English text."""
    for en, ja in texts.items():
        define_word(f"text:{en}", en, ja)


def translated(text: str, lang: str) -> str:
    """An English text of the code in ``lang``: its registered rendering, or itself."""
    entry = WORDS.get(f"text:{text}")
    return text if entry is None else entry(lang)


def text_language(value: dict[str, Any], lang: str) -> str:
    """Which key of a document's text ``localized`` reads for ``lang`` (the key, not the text)."""
    return next((choice for choice in (lang, *LANGS) if choice in value), next(iter(value)))


def define_words(prefix: str, en: dict[str, str], ja: dict[str, str]) -> str:
    """Register a family of words ``prefix.name`` at once (the same names in both languages)."""
    if set(en) != set(ja):
        raise RuntimeError(f"words {prefix}.* differ between languages: {sorted(set(en) ^ set(ja))}")
    family = FAMILIES.setdefault(prefix, {})
    for name, text in en.items():
        family[name] = WORDS[define_word(f"{prefix}.{name}", text, ja[name])]
    return prefix


def vocabulary(prefix: str, lang: str) -> dict[str, str]:
    """The words of the family ``prefix`` in ``lang``, by name."""
    return {name: entry(lang) for name, entry in FAMILIES[prefix].items()}


LIST_SEPARATOR = define_word("list_separator", ", ", "、")
ASIDE = define_word("aside", "{text} ({aside})", "{text}（{aside}）")
YES = define_word("yes", "yes", "はい")
NO = define_word("no", "no", "いいえ")
