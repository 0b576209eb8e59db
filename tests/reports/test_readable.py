"""What players read: ``diff`` and ``doc`` show lists, rows (by their labels) and means in words,
not JSON; the HTML handout has a table of contents whose links resolve and print CSS; a quoted
text a variant makes untrue is marked ★ with the variant's value."""
from __future__ import annotations

from fractions import Fraction
from html.parser import HTMLParser

import pytest

from interpreter.reports.diff_render import readable
from interpreter.reports.handout import handout, stale_quotes
from interpreter.documents.resources import rulesets_dir

EXAMPLES = rulesets_dir() / "examples"
BASE = rulesets_dir() / "magipunk"


@pytest.mark.parametrize("value, lang, params, text", [
    (["合金", "魔殻"], "ja", None, "合金、魔殻"),
    (["a", "b"], "en", None, "a, b"),
    ([], "ja", None, "なし"),
    ({"ja": "静かな日", "en": "A quiet day"}, "en", None, "A quiet day"),
    ({"id": "x", "label": {"ja": "素材が{params.n}つ以上"}, "when": "len(x) >= 3", "value": 1}, "ja",
     {"n": 3}, "素材が3つ以上（1）"),
    ([{"id": "scout", "title": {"ja": "偵察", "en": "Scout"}}], "ja", None, "偵察"),
    ({"effect": "sleep", "hours": 8}, "ja", None, "effect: sleep、hours: 8"),
    (Fraction(7, 2), "ja", None, "7/2"), (True, "ja", None, "はい"),
])
def test_values_in_words(value, lang, params, text) -> None:
    assert readable(value, lang, params) == text


@pytest.mark.parametrize("value", [
    [1, 2, 3], [0, -5, 10 ** 30], ["a", "b", "a"], [1, "1", "x"], ["合金", 2], [1] * 1000,
    [True, 1], [1.5, 2], [Fraction(1, 2), 1], [None, 1], [[1, 2], 3], [{"ja": "静か", "en": "quiet"}, "x"],
    ["{params.n}", 1],
], ids=["whole numbers", "large ones", "texts", "a number and its text", "mixed", "many", "a bool",
        "a float", "a fraction", "null", "nested", "a text in two languages", "braces"])
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_list_reads_as_its_items_joined(value, lang) -> None:
    # a list of whole numbers and texts is shown by a quick path: the same as each item read
    # in words and joined, as any other list is
    joiner = "、" if lang == "ja" else ", "
    assert readable(value, lang, {"n": 3}) == joiner.join(readable(v, lang, {"n": 3}) for v in value)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])


@pytest.mark.parametrize("path", [BASE, EXAMPLES / "strict_procurement", EXAMPLES / "long_rest_sleep"])
def test_html_toc_links_resolve_and_print_css(path) -> None:
    page = handout(path, as_html=True)
    links = _Links()
    links.feed(page)
    assert len(links.hrefs) >= 10 and set(links.hrefs) <= links.ids
    assert '<nav class="toc">' in page and "@media print" in page


def test_a_quoted_text_the_variant_makes_untrue_is_marked() -> None:
    md = handout(EXAMPLES / "long_rest_sleep", gm=True)
    section = md.split("## R1 睡眠による魔煌の循環")[1].split("\n## ")[0]
    assert "★4（基本: 1）時間以上の睡眠" in section
    assert "min_sleep_hours は 1 ではなく 4" in section
    assert "★" not in handout(BASE)


@pytest.mark.parametrize("text, old, new, stale", [
    ("1時間以上の睡眠", {"h": 1}, {"h": 4}, [("h", "1", "4")]),
    ("１時間以上の睡眠", {"h": 1}, {"h": 4}, [("h", "1", "4")]),
    ("10時間以上", {"h": 1}, {"h": 4}, []),
    ("1時間以上", {"h": 1}, {"h": 1}, []),
    ("〈強化結晶〉は希少度1", {"m": "強化結晶"}, {"m": "魔殻"}, [("m", "強化結晶", "魔殻")]),
])
def test_stale_quotes(text, old, new, stale) -> None:
    assert stale_quotes(text, old, new) == stale
