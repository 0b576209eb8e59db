"""``mprules doc``: the Japanese handout rendered as Markdown and as HTML, checked for the texts,
tables, probability bars and the ★ marks on what a variant changed from its base."""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from interpreter.cli import main
from interpreter.reports.handout import base_of, handout
from interpreter.documents.resources import rulesets_dir

BASE = rulesets_dir() / "magipunk"
EXAMPLES = rulesets_dir() / "examples"


@pytest.fixture(scope="module")
def strict_md() -> str:
    return handout(EXAMPLES / "strict_procurement")


@pytest.fixture(scope="module")
def strict_html() -> str:
    return handout(EXAMPLES / "strict_procurement", as_html=True)


def section(md: str, rule_id: str) -> str:
    """The Markdown of one rule: from its heading to the next rule heading."""
    parts = re.split(r"\n(?=## )", md)
    (found,) = [p for p in parts if f"`{rule_id}`" in p]
    return found


@pytest.mark.parametrize("rule_id, marks", [
    ("procurement.check", ["## R10 調達判定 ★変更", "| time_dice_cap ★ | 1（基本: 2） |",
                           "65.25% ★（基本: 73.24%）"]),
    ("procurement.rarity", ["## R9 希少度 ★変更", "| many_materials ★追加 |",
                            "| materials_2 ★ | 魔銀糸、魔殻、強化結晶（基本: 魔銀糸、魔殻） |",
                            "| material_2 ★変更 | 素材パーツが魔銀糸、魔殻、強化結晶（ハウスルール） |"]),
])
def test_markdown_marks_what_the_variant_changed(strict_md, rule_id, marks):
    text = section(strict_md, rule_id)
    for mark in marks:
        assert mark in text


@pytest.mark.parametrize("rule_id", ["circulation.sleep", "rest.long", "cohabitation.leisure.city"])
def test_markdown_leaves_unchanged_rules_unmarked(strict_md, rule_id):
    assert "★" not in section(strict_md, rule_id)


def test_markdown_has_texts_tables_and_bars(strict_md):
    assert strict_md.startswith("# ハウスルール例：厳しい調達\n")
    assert "基本ルールセット magipunk から変わった箇所に ★ を付けています" in strict_md
    rarity = section(strict_md, "procurement.rarity")
    assert "「希少度」はアイテムの品質や価格によって評価され" in rarity
    assert "| quality_masterpiece | クオリティが「傑作」 | 3 |" in rarity  # by its label, not its condition
    assert "item.quality ==" not in rarity
    city = section(strict_md, "cohabitation.leisure.city")
    assert "| burglary_light | 7 | 空き巣に入られたが、被害は少なかった。 | shared |" in city
    assert re.search(r"\| 7 空き巣に入られたが、被害は少なかった。 \| 16\.67% \| `█+▍?` \|", city)


def test_the_base_ruleset_has_no_marks():
    md = handout(BASE)
    assert "★" not in md and "## R9 希少度\n" in md


def test_long_rest_sleep_marks_its_two_parameters():
    md = handout(EXAMPLES / "long_rest_sleep")
    assert "| min_sleep_hours ★ | 4（基本: 1） |" in section(md, "circulation.sleep")
    assert "effects ★" in section(md, "rest.long")
    assert "★" not in section(md, "rest.short")


@pytest.mark.parametrize("variant, rule_id, line", [
    ("long_rest_sleep", "rest.long", "| effects ★ | effect: sleep、hours: 8（基本: （なし）） |"),
    ("briefing_options", "briefing.tense",
     "| options ★ | 偵察（ハウスルール）／布陣（ハウスルール）／アイテムの用意（ハウスルール）／事前詠唱（ハウスルール）（基本: （なし）） |"),
])
def test_structured_parameters_read_as_text_not_json(variant, rule_id, line):
    assert line in section(handout(EXAMPLES / variant), rule_id)


def test_html_keeps_wide_tables_inside_the_page(strict_html):
    assert "overflow-wrap:anywhere" in strict_html and "td:first-child{white-space:nowrap}" in strict_html
    assert '<td class="label">素材パーツが魔銀糸、魔殻、強化結晶（ハウスルール）</td>' in strict_html


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.changed_rows = 0
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr" and ("class", "changed") in attrs:
            self.changed_rows += 1

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_self_contained_and_marks_changes(strict_html):
    parser = _Collect()
    parser.feed(strict_html)
    assert strict_html.startswith("<!DOCTYPE html>") and strict_html.rstrip().endswith("</html>")
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    text = "".join(parser.text)
    assert "R10 調達判定 ★変更" in text and "1（基本: 2）" in text
    assert parser.changed_rows >= 2 + 1 + 1 + 4  # 2 parameters, a row, time_dice_cap, 4 outcomes
    assert '<h2 id="procurement.check">' in strict_html
    assert 'class="bar" style="width:13.05em"' in strict_html  # 65.25% of a 20em bar


def test_html_escapes_document_text(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text(
        'id: v\nversion: "0.1.0"\ntitle: {ja: "<script>alert(1)</script> & 卓"}\nextends: magipunk\n',
        encoding="utf-8")
    page = handout(root, as_html=True)
    assert "<script>" not in page and html.escape("<script>alert(1)</script> & 卓") in page


def test_cli_writes_a_file_and_reports_an_unwritable_one(tmp_path, capsys):
    out = tmp_path / "h.html"
    assert main(["doc", str(EXAMPLES / "long_rest_sleep"), "--html", "-o", str(out)]) == 0
    assert "min_sleep_hours" in out.read_text(encoding="utf-8")
    assert main(["doc", str(BASE), "-o", str(tmp_path / "no" / "dir" / "h.md")]) == 3
    assert "MPR960" in capsys.readouterr().err


def test_base_of_follows_extends_to_the_root():
    assert base_of(EXAMPLES / "strict_procurement") == BASE.resolve()
    assert base_of(BASE) is None
