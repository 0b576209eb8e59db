"""``mprules diff`` and ``mprules doc`` read as a player reads them, for every bundled variant and
house rule, in Japanese and English, as text and Markdown: outcomes by their rows' texts (never
row ids or JSON), tables whose title changed by what changed, means named, ids a rule's own data
names shown by those names, and a value that moved shown by its parts that moved."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.reports.handout import handout
from interpreter.documents.resources import rulesets_dir
from interpreter.checks.loading import load_ruleset

BASE = rulesets_dir() / "magipunk"
EXAMPLES = rulesets_dir() / "examples"
VARIANTS = sorted([p for p in EXAMPLES.iterdir() if (p / "ruleset.yaml").is_file()]
                  + [p for p in (EXAMPLES / "house_rules").iterdir() if (p / "ruleset.yaml").is_file()])
PROBABILITIES = {"ja": "変わる確率と値", "en": "Probabilities and values that move"}


@lru_cache(maxsize=None)
def diff_out(variant: str, lang: str, fmt: str) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--lang", lang, "diff", str(BASE), str(_path(variant)), "--format", fmt]) == 0
    return out.getvalue()


def _path(variant: str) -> Path:
    return next(p for p in VARIANTS if p.name == variant)


@lru_cache(maxsize=None)
def row_ids(variant: str) -> frozenset[str]:
    """The ids of every row of every rule on either side (what must not stand for an outcome)."""
    ids = set()
    for root in (BASE, _path(variant)):
        for rule in load_ruleset(root).rules.values():
            for container in (rule.doc.get("rows") or [], [rule.doc.get("default") or {}]):
                ids |= {r["id"] for r in container if isinstance(r, dict) and isinstance(r.get("id"), str)}
    return frozenset(ids)


@pytest.mark.parametrize("variant", [p.name for p in VARIANTS])
@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_outcomes_are_never_row_ids_or_json(variant: str, lang: str, fmt: str) -> None:
    out = diff_out(variant, lang, fmt)
    # a changed field shows the formula as the GM wrote it (the language's own `null` included)
    fields = re.compile(r"^\s*(- )?(項目|field) ")
    words = "\n".join(line for line in out.splitlines() if not fields.match(line))
    assert not re.search(r'\[["{\]]|\{"|": |\bnull\b|\bTrue\b|\bNone\b', words), out
    moved = out.split(PROBABILITIES[lang], 1)[1]
    shown = set(re.findall(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", moved))
    assert not shown & row_ids(variant), sorted(shown & row_ids(variant))
    assert "as_rolled" not in moved and "“default”" not in moved


CASES = [  # (variant, lang, format, what a player reads, what they must not)
    ("safer_city", "ja", "text",
     ["一度きりの結果なし", "空き巣に入られ、大きな経済的損害を被る。／空き巣に入られたが、被害は少なかった。",
      "平均（一度きりの結果の期待個数）: 115/144 (0.799) -> 91/144 (0.632)", "出目の増減は±2 -> ±3まで",
      "表に載っていない出目（default）", "出目の扱い: 出目を増減 4.55%（59/1296）、出目どおり 95.45%（1237/1296）",
      "余暇イベント表（都市）：同居するＰＣ全員に影響を及ぼすイベント — 入力なし", "結果ごと"],
     ["IDのない行", "cohabitation.leisure.city,", "平均（同居時", "events"]),
    ("safer_city", "en", "text",
     ["no once-only result", "Burglars broke in, but the damage was small.", "moves up to ±2 -> ±3",
      "mean (the expected number of once-only results): 115/144", "as rolled 95.45% (1237/1296)",
      "a roll no row lists (default)", "— no input"],
     ["a row of no id", "how the roll was resolved: adjusted"]),
    ("safer_city", "ja", "markdown",
     ["| 一度きりの結果なし | 34.03% | 44.44% | +10.42 |", "- 平均（一度きりの結果の期待個数）: 115/144"], []),
    ("wilderness_individual", "ja", "text",
     ["突如として魔煌災害が発生した。／レイダーズの襲撃に遭う。", "平均（一度きりの結果の期待個数）: 36005/15552 (2.32) -> 46043/23328 (1.97)",
      "出目の扱い: 出目を増減 12.81%（83/648）、出目どおり 87.19%（565/648） -> 出目の扱い: 出目どおり 87.19%（565/648）"],
     ["null ->", "- ->"]),
    ("strict_procurement", "ja", "text",
     ["調達判定: ダイス3 -> 2個、チャレンジ値3、能力値12", "バッドビート（失敗）", "ジャックポット（成功）",
      "成功の確率（合計）: 87.50%（7/8） -> 成功の確率（合計）: 75.00%（3/4）",
      "調達判定: ダイス3個、チャレンジ値2、能力値12 -> 調達判定: ダイス2個、チャレンジ値3、能力値12"],
     ["intellect 12", "バッドビート (失敗)", "成功 = 7/8"]),
    ("strict_procurement", "en", "markdown",
     ["*Procurement check: 3 -> 2 dice, challenge 3, ability 12*", "| bad beat (failure) | 0.01% | 0.25% | +0.24 |",
      "- chance of success in all: 87.50% (7/8) -> chance of success in all: 75.00% (3/4)"], []),
    ("stolen_goods", "en", "text",
     ["Selling stolen goods: 1 die, challenge 5, ability 12", "chance of success in all: 40.00% (2/5)"],
     ["1 dice", "- ->"]),
    ("crowded_residence", "ja", "text",
     ["値 life_points.アキラ.residence: 1 -> 2", "値 residence_split.エマ: 0 -> 1"],
     ["reasons: なし", "legal: はい"]),
    ("bad_beat_two_dice", "ja", "text",
     ["ルールセットのパラメータ:\n  core_check.results.bad_beat.when.if: なし -> rolled >= 2",
      "core_check.results.single_one: なし -> label: ダイス1個の1（通常の失敗）、when: （all: die == 1、if: rolled == 1）"],
     ["single_one.label.ja", "; core_check"]),
    ("cover_at_attack_check", "ja", "text", ["パラメータ declared_before: ダメージの算出 -> 攻撃判定、ダメージの算出"],
     ["-> attack_check", "damage_calculation"]),
    ("cover_at_attack_check", "en", "markdown",
     ["parameter declared_before: damage calculation -> attack check, damage calculation"], ["damage_calculation"]),
    ("briefing_options", "ja", "text",
     ["パラメータ options: なし -> 偵察（ハウスルール）、布陣（ハウスルール）", "値 effects: なし -> effect: sleep、hours: 8"],
     ["id: scout", "duration_minutes: 480"]),
]


@pytest.mark.parametrize("variant, lang, fmt, shown, hidden", CASES)
def test_diff_reads_in_words(variant: str, lang: str, fmt: str, shown: list[str], hidden: list[str]) -> None:
    out = diff_out(variant, lang, fmt)
    for text in shown:
        assert text in out, (text, out)
    for text in hidden:
        assert text not in out, (text, out)


DOC_CASES = [  # (variant, what the handout shows, what it must not)
    ("safer_city",
     ["| 一度きりの結果なし | 44.44% ★（基本: 34.03%） |",
      "★平均（一度きりの結果の期待個数）: 91/144（約0.632）（基本: 115/144（約0.799））",
      "| 表に載っていない出目（default） | 66.67% ★（基本: 58.33%） |", "| 7 空き巣に入られたが、被害は少なかった。 | 16.67% |",
      "| 空き巣に入られたが、被害は少なかった。 | 25.00% ★（基本: 22.22%） |", "平均: 7"],
     ['["', "| [] |", "null IDのない行", "| burglary_light 空き巣", "as_rolled"]),
    ("cover_at_attack_check", ["| declared_before ★ | 攻撃判定、ダメージの算出（基本: ダメージの算出） |"],
     ["attack_check、damage_calculation"]),
    ("strict_procurement", ["| バッドビート（失敗） | 0.25% ★（基本: 0.01%） |", "成功の確率（合計）: 75.00%（3/4）"],
     ["intellect 12"]),
]


@pytest.mark.parametrize("variant, shown, hidden", DOC_CASES)
def test_doc_reads_in_words(variant: str, shown: list[str], hidden: list[str]) -> None:
    page = handout(_path(variant), gm=True)
    for text in shown:
        assert text in page, (text, page)
    for text in hidden:
        assert text not in page, text


@pytest.mark.parametrize("variant", [p.name for p in VARIANTS])
def test_doc_probabilities_show_no_row_ids(variant: str) -> None:
    page = handout(_path(variant))
    bars = [line.split(" | ")[0].lstrip("| ") for section in page.split("### 確率")[1:]
            for line in section.split("\n## ")[0].splitlines() if line.startswith("| ")]
    shown = {word for label in bars for word in re.findall(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", label)}
    assert not shown & row_ids(variant)
    assert not any(label.startswith(("[", "null")) for label in bars), bars
