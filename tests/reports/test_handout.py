"""``mprules doc``: the players' handout quotes the whole source text in its order, once; marks the
ruleset's interpretations; shows no code, id, parameter name or English; fills every template; and
``--gm`` adds ids, parameters and formulas. Also the HTML (fonts, A4, SVG bars, escaping) and the
★ marks of what a variant changed, and validate's warnings on what is neither quoted nor marked."""
from __future__ import annotations

import html
import re
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rules_dsl.errors import MprError

from interpreter.checks.loading import collect, load_ruleset
from interpreter.cli import main
from interpreter.documents.resources import rulesets_dir
from interpreter.engine.runner import run
from interpreter.reports.handout import base_of, expression_words, handout, interpretations, root_of
from interpreter.reports.handout_render import md_text

BASE = rulesets_dir() / "magipunk"
EXAMPLES = rulesets_dir() / "examples"
ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "source" / "magipunk-optional-rules.txt"
INTERPRETATIONS_DOC = ROOT / "docs" / "interpretations.md"
TABLE_HEADERS = {"| 条件 | 希少度 |", "| 出目 | イベント |"}


@pytest.fixture(scope="module")
def players_md() -> str:
    return handout(BASE)


@pytest.fixture(scope="module")
def players_html() -> str:
    return handout(BASE, as_html=True)


@pytest.fixture(scope="module")
def gm_md() -> str:
    return handout(BASE, gm=True)


@pytest.fixture(scope="module")
def strict_md() -> str:
    return handout(EXAMPLES / "strict_procurement", gm=True)


def _cells(line: str) -> tuple[str, ...]:
    return tuple(html.unescape(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1])


def source_items() -> list[tuple[str, object]]:
    """The source's rule sentences and table rows, in order: every line but the heading はじめに,
    the tables' header and separator lines and blank lines (a line of prose is one item even when it
    has two sentences: the source writes one paragraph a line); a table row by its cells."""
    items: list[tuple[str, object]] = []
    for line in SOURCE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line == "はじめに" or line in TABLE_HEADERS or re.fullmatch(r"\|(-+\|)+", line):
            continue
        items.append(("row", _cells(line)) if line.startswith("|") else ("text", line))
    return items


def handout_items(md: str) -> list[tuple[str, object]]:
    return [("row", _cells(line)) if line.startswith("|") else ("text", html.unescape(line))
            for line in md.splitlines()]


def test_the_source_is_shipped_and_has_136_items():
    items = source_items()
    assert len(items) == 136
    assert sum(kind == "row" for kind, _ in items) == 31


def test_every_source_sentence_and_row_is_in_the_handout_in_order_once(players_md):
    items, shown = source_items(), handout_items(players_md)
    found, at = 0, -1
    for item in items:
        assert item in shown[at + 1:], f"missing or out of order: {item}"
        at = shown.index(item, at + 1)
        found += 1
    assert found == 136
    in_source, in_handout = Counter(items), Counter(shown)
    assert {item: in_handout[item] for item in in_source} == dict(in_source)  # none twice


def test_the_gm_handout_keeps_the_source_order_too(gm_md):
    texts = [line for kind, line in source_items() if kind == "text"]
    shown = [line for kind, line in handout_items(gm_md) if kind == "text"]
    at = -1
    for line in texts:
        at = shown.index(line, at + 1)


ALLOWED_ASCII = [
    r"\d*[dD]\d+",            # BCDice notation: 2d6, 2D6
    r"Ma-GEAR", r"JOKER",     # the source's own words
    r"\d*Mj", r"p\.\d+",      # money (1,000Mj), a page of the rulebook
    r"[ABCJQK]",              # the source's A + B - C, and the ranks of cards (A to K)
    r"(?:[SHDC](?:[AJQK]|\d+))|JK\d",  # card codes
]


def visible_text(page: str) -> str:
    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []
            self.skip = False

        def handle_starttag(self, tag, attrs):
            self.skip = tag in ("style", "script")

        def handle_endtag(self, tag):
            self.skip = False

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(page)
    return "\n".join(parser.parts)


def _names() -> tuple[set[str], set[str]]:
    ruleset = load_ruleset(BASE)
    return set(ruleset.rules), {name for rule in ruleset.rules.values() for name in rule.params}


@pytest.mark.parametrize("form", ["markdown", "html"])
def test_the_players_handout_has_no_code_ids_parameters_or_english(form, players_md, players_html):
    text = players_md if form == "markdown" else visible_text(players_html)
    if form == "markdown":  # the Markdown's own syntax is not text
        text = re.sub(r"^\|(?:-+:?\|)+$", "", text, flags=re.M).replace("`", "").replace("<br>", "\n")
    assert "{" not in text and "}" not in text
    rule_ids, params = _names()
    words = set(re.findall(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", text))
    assert not words & rule_ids
    assert not words & params
    english = sorted(w for w in words if re.search("[A-Za-z]", w)
                     and not any(re.fullmatch(a, w) for a in ALLOWED_ASCII))
    assert english == []


def test_the_gm_handout_adds_ids_parameters_and_formulas(gm_md):
    assert "`procurement.rarity`" in gm_md and "| ma_gear_divisor | 500 |" in gm_md
    assert "Ma-GEARパーツの価格の合計÷500（式: `sum(item.ma_gear.parts.price) / params.ma_gear_divisor`）" in gm_md
    assert "（パラメータ: on_empty）" in gm_md


def test_formula_rows_read_in_the_source_words_for_players(players_md):
    assert "| Ma-GEAR | Ma-GEARパーツの価格の合計÷500 |" in players_md
    assert "| 状況による修正 | ±ｎ（ｎの値はＧＭが任意に決定する） |" in players_md
    assert "sum(" not in players_md and "situation" not in players_md


def test_every_interpretation_is_marked_in_the_handout_and_listed_in_docs(players_md):
    ruleset = load_ruleset(BASE)
    marks = [(rule, entry) for rule in ruleset.rules.values() for entry in interpretations(rule)]
    assert len(marks) >= 13
    doc = INTERPRETATIONS_DOC.read_text(encoding="utf-8")
    for rule, entry in marks:
        text = md_text(entry["text"]["ja"]).replace("{params.ma_gear_divisor}", "500") \
            .replace("{params.vehicle_divisor}", "2000")
        assert f"【解釈】{text}" in players_md
        assert f"`{rule.id}`" in doc and text in doc


@pytest.mark.parametrize("variant, shown", [
    ("safer_city", ["## 余暇イベント表（都市）：同居するＰＣ全員に影響を及ぼすイベント ★変更",
                    "| 出目を増減できる幅（±この値。式。既定は地域の治安） | ★治安 + 1（基本: 治安） |"]),  # names by their labels
    ("strict_procurement", ["## 調達判定 ★変更", "65.25% ★（基本: 73.24%）",
                            "| ★追加 素材パーツが3つ以上（ハウスルール） | 1 |"]),
    ("briefing_options", ["ＰＣはそれぞれ下記のいずれかを合計で★4（基本: 6）回まで行える。",
                          "| ＰＣそれぞれが選択肢を行える回数 | ★4（基本: 6） |"]),  # the GM's notes left out
    ("long_rest_sleep", ["| 休息の効果 | ★睡眠（時間）: 8（基本: （なし）） |"]),  # an effect by its title
    ("long_rest_sleep", ["★4（基本: 1）時間以上の睡眠",
                         "★この文は基本のルールセットのものです。このハウスルールでは「魔煌札が循環する睡眠時間（時間）」が1ではなく4です。"]),
])
def test_the_players_handout_marks_what_the_gm_changed(variant, shown):
    md = handout(EXAMPLES / variant)
    for text in shown:
        assert text in md, text
    assert "基本のルールセット「『マジックパンクＴＲＰＧ』追加ルール」から変わった箇所に ★ を付けています。" in md


def test_the_base_ruleset_has_no_marks(players_md, gm_md):
    assert "★" not in players_md and "★" not in gm_md


GM_TEXT = """id: my.table
kind: RollTable
source: ハウスルール
title: {ja: "表（{params.roll}）"}
text: {ja: "ダイスは{params.roll}です。"}
inputs: {type: object, properties: {roll: {type: integer}}, additionalProperties: false}
params: {roll: 2d6, amount: 3}
rows:
  - {roll: [2, 6], id: low, text: {ja: "低い（{params.amount}点）"}, value: {text: {ja: "{params.amount}点を得る"}}}
  - {roll: [7, 9], id: mid, text: {ja: "中くらい"}}
  - {roll: [10, 12], id: high, text: {ja: 高い}}
"""


@pytest.fixture(scope="module")
def templated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("templated")
    (root / "ruleset.yaml").write_text(
        'id: v\nversion: "0.1.0"\ntitle: {ja: "<script>alert(1)</script> & 卓"}\nextends: magipunk\n',
        encoding="utf-8")
    (root / "table.yaml").write_text(GM_TEXT, encoding="utf-8")
    return root


@pytest.mark.parametrize("gm", [False, True])
@pytest.mark.parametrize("as_html", [False, True])
def test_templates_are_filled_and_ranges_read_as_ranges(templated, gm, as_html):
    page = handout(templated, gm=gm, as_html=as_html)
    text = visible_text(page) if as_html else page
    for shown in ["表（2d6）", "ダイスは2d6です。", "低い（3点）", "3点を得る", "7〜9"]:
        assert shown in text
    assert "{params." not in page and "7、9" not in text


def test_a_run_value_and_its_trace_have_their_texts_filled(templated):
    result = run(load_ruleset(templated), "my.table", {"roll": 3})
    assert result.value["text"] == {"ja": "低い（3点）"} and result.value["value"]["text"] == {"ja": "3点を得る"}
    row = [s for step in result.trace for s in step.children if s.kind == "row"]
    assert row
    assert "{params." not in repr([s.value for s in row])


def test_prob_and_the_bcdice_export_fill_the_row_texts(templated, capsys):
    assert main(["prob", "my.table", "--ruleset", str(templated)]) == 0
    assert main(["export", "bcdice", "my.table", "--ruleset", str(templated)]) == 0
    out = capsys.readouterr().out
    assert "表（2d6）" in out and "低い（3点）" in out and "{params." not in out


@pytest.mark.parametrize("as_html", [False, True])
def test_document_text_is_escaped(templated, as_html):
    page = handout(templated, as_html=as_html)
    assert "<script>" not in page
    shown = html.escape("<script>alert(1)</script> & 卓", quote=False) if as_html \
        else "&lt;script>alert(1)&lt;/script> &amp; 卓"
    assert shown in page


def test_diff_markdown_escapes_document_text(tmp_path, capsys):
    root = tmp_path / "v"
    root.mkdir()
    (root / "ruleset.yaml").write_text('id: v\nversion: "0.1.0"\ntitle: {ja: v}\nextends: magipunk\n',
                                       encoding="utf-8")
    (root / "t.yaml").write_text(GM_TEXT.replace('title: {ja: "表（{params.roll}）"}',
                                                 'title: {ja: "<img src=x onerror=alert(1)>表"}'), encoding="utf-8")
    main(["diff", str(BASE), str(root), "--format", "markdown"])
    out = capsys.readouterr().out
    assert "&lt;img src=x onerror=alert(1)>表" in out and "<img" not in out


@pytest.mark.parametrize("text, shown", [
    ("<script>", "&lt;script>"), ("a & b", "a &amp; b"), ("`a < b` < c", "`a < b` &lt; c"), ("A＋B－C", "A＋B－C"),
])
def test_md_text_escapes_outside_code_spans(text, shown):
    assert md_text(text) == shown


def test_html_names_japanese_fonts_prints_on_a4_and_fetches_nothing(players_html):
    css = re.search(r"<style>(.*?)</style>", players_html, re.S).group(1)
    for font in ('"Hiragino Sans"', '"Yu Gothic"', '"Noto Sans CJK JP"', '"IPAexGothic"', "sans-serif"):
        assert font in css
    assert "@page{size:A4" in css and "break-inside:avoid" in css
    assert not re.search(r"https?:|@import|url\(|<link|<img|<script", players_html)


def test_html_draws_probabilities_as_svg_bars(players_html):
    bars = re.findall(r'<svg class="bar"[^>]*aria-label="([\d.]+)%"><rect [^>]*width="([\d.]+)em"', players_html)
    assert len(bars) > 20
    assert all(abs(float(p) / 100 * 20 - float(w)) < 0.01 for p, w in bars)


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.changed_rows = 0
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "tr" and attrs.get("class") == "changed":
            self.changed_rows += 1
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])


@pytest.mark.parametrize("gm", [False, True])
def test_html_marks_changes_and_its_contents_link(gm):
    page = handout(EXAMPLES / "strict_procurement", as_html=True, gm=gm)
    parser = _Collect()
    parser.feed(page)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert parser.changed_rows >= 1 + 4  # a row and 4 outcomes (and the parameters for the GM)
    assert len(parser.hrefs) >= 20 and set(parser.hrefs) <= parser.ids
    assert ('<h2 id="procurement.check">' in page) == gm


@pytest.mark.parametrize("rule_id, marks", [
    ("procurement.check", ["## R10 調達判定 ★変更", "| time_dice_cap ★ | 1（基本: 2） |",
                           "65.25% ★（基本: 73.24%）"]),
    ("procurement.rarity", ["## R9 希少度 ★変更", "| many_materials ★追加 |",
                            "| materials_2 ★ | 魔銀糸、魔殻、強化結晶（基本: 魔銀糸、魔殻） |",
                            "| material_2 ★変更 | 素材パーツが魔銀糸、魔殻、強化結晶（ハウスルール） |"]),
])
def test_gm_markdown_marks_what_the_variant_changed(strict_md, rule_id, marks):
    text = section(strict_md, rule_id)
    for mark in marks:
        assert mark in text


def section(md: str, rule_id: str) -> str:
    """The GM Markdown of one rule: from its heading to the next rule heading."""
    parts = re.split(r"\n(?=## )", md)
    (found,) = [p for p in parts if f"`{rule_id}`" in p]
    return found


@pytest.mark.parametrize("variant, rule_id, line", [
    ("long_rest_sleep", "rest.long", "| effects ★ | effect: sleep、hours: 8（基本: （なし）） |"),
    ("briefing_options", "briefing.tense",
     "| options ★ | 偵察（ハウスルール）／布陣（ハウスルール）／アイテムの用意（ハウスルール）／事前詠唱（ハウスルール）（基本: （なし）） |"),
])
def test_structured_parameters_read_as_text_not_json(variant, rule_id, line):
    assert line in section(handout(EXAMPLES / variant, gm=True), rule_id)


def test_cli_gm_flag_writes_a_file_and_reports_an_unwritable_one(tmp_path, capsys):
    out = tmp_path / "h.html"
    assert main(["doc", str(EXAMPLES / "long_rest_sleep"), "--html", "--gm", "-o", str(out)]) == 0
    assert "min_sleep_hours" in out.read_text(encoding="utf-8")
    assert main(["doc", str(EXAMPLES / "long_rest_sleep"), "-o", str(out)]) == 0
    assert "min_sleep_hours" not in out.read_text(encoding="utf-8")
    assert main(["doc", str(BASE), "-o", str(tmp_path / "no" / "dir" / "h.md")]) == 3
    assert "MPR960" in capsys.readouterr().err


def test_base_of_follows_extends_to_the_root():
    assert base_of(EXAMPLES / "strict_procurement") == BASE.resolve()
    assert base_of(BASE) is None


ROOTED = sorted({p.parent for p in (*rulesets_dir().rglob("ruleset.yaml"), *(ROOT / "tests").rglob("ruleset.yaml"))})


@pytest.mark.parametrize("target", ROOTED, ids=[str(p.relative_to(ROOT)) for p in ROOTED])
def test_the_root_a_loaded_ruleset_knows_is_the_one_its_manifests_name(target):
    """doc marks changes against ``root_of`` the loaded ruleset, without reading the manifests
    again: the same root that following the first ``extends`` each time reaches."""
    try:
        ruleset = load_ruleset(target)
    except MprError:
        return  # a ruleset with errors has no handout
    assert root_of(ruleset) == base_of(target)


# --- validate: what is neither quoted nor marked ----------------------------------------------

def _bundled_copy(tmp_path: Path, monkeypatch, edit: tuple[str, str, str] | None) -> Path:
    root = tmp_path / "magipunk"
    shutil.copytree(BASE, root)
    if edit is not None:
        name, old, new = edit
        text = (root / name).read_text(encoding="utf-8")
        assert old in text
        (root / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr("interpreter.documents.resources.bundled_ruleset", lambda: root)
    return root


@pytest.mark.parametrize("edit, expected", [
    (None, []),
    (("cards.yaml", "  - params: [on_empty]\n", "  - params: []\n"), ["MPR844"]),
    (("equipment.yaml", "  equip_without_slots: Ma-GEARのアイテムは", "  equip_without_slots: Ma-GEARの道具は"),
     ["MPR845"]),
    (("combat.yaml", "  action_type: 対応アクションとして\n", ""), ["MPR844"]),
    (("cohabitation.yaml", "shown_in: cohabitation.setup\n", "shown_in: cohabitation.leisure\n"), ["MPR846"]),
    (("cards.yaml", "  - params: [redraw_to]\n", "  - params: [redraw_into]\n"), ["MPR844", "MPR847"]),
    (("ruleset.yaml", "  - rebuild.spells\n", "  - rebuild.spell\n"), ["MPR848"]),
    (("procurement.yaml", "  ma_gear_divisor: 500\n", "  ma_gear_divisor: 400\n"), []),  # the label follows
    (("procurement.yaml", "  vehicle_divisor: 2000\n  max_rarity: null\n", "  vehicle_divisor: 2000\n  max_rarity: 9\n"),
     ["MPR844"]),
])
def test_validate_warns_on_what_is_neither_quoted_nor_marked(tmp_path, monkeypatch, edit, expected):
    root = _bundled_copy(tmp_path, monkeypatch, edit)
    _, findings = collect(root)
    codes = sorted(d.code for d in findings if d.code.startswith("MPR84"))
    assert codes == expected
    assert all(d.severity == "warning" for d in findings if d.code.startswith("MPR84"))


def test_a_variant_outside_the_bundled_ruleset_is_not_asked_for_quotes(templated):
    _, findings = collect(templated)
    assert not [d for d in findings if d.code == "MPR844" and "table.yaml" in (d.file or "")]


@pytest.mark.parametrize("value, shown", [
    ("safety + 1", "治安 + 1"),
    ("max(safety, 2) * residents", "max(治安, 2) * 同居人数"),  # a called function stays
    ("params.safety + safety", "params.safety + 治安"),        # a parameter reference stays
    ("'safety' + safety", "'safety' + 治安"),                   # so does a quoted text
    ("safetyness + 1", "safetyness + 1"),                       # only whole names
    (3, 3),
])
def test_a_changed_expression_names_what_players_know(value, shown):
    labels = {"safety": "治安", "residents": "同居人数"}
    assert expression_words(value, labels) == shown


@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "past it"])
def test_a_table_of_more_rows_than_the_bound_gets_a_sentence_not_bars(monkeypatch, past):
    """A rule whose rows (with its base's) pass ``MAX_DIFF_OUTCOMES`` is not drawn bar by bar:
    the handout says why, and the odds are never made."""
    from interpreter.reports import handout as handout_report
    from interpreter.reports.handout import handout_made

    city = load_ruleset(rulesets_dir() / "magipunk").rule("cohabitation.leisure.city")
    rows = len(city.doc["rows"])
    monkeypatch.setattr(handout_report, "MAX_DIFF_OUTCOMES", rows - 1 if past else rows)
    text, _ = handout_made(rulesets_dir() / "magipunk", gm=True)
    sentence = f"行が {rows} 行あるので、確率の図は省きました（{rows - 1} 行まで）"
    assert (sentence in text) is past
