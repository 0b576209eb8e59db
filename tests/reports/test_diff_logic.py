"""`diff` shows logic: every changed field of a rule document (formulas, constraints, computed values,
policies, messages, texts) and of the campaign wiring is listed in words, down to the leaf, whether
or not a probe moves; an unchanged value is never listed; a multi-line text shows the lines that
changed. A table of document pairs for the comparison itself, then the words it is shown in."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from interpreter.reports.diff_render import field_lines, words
from interpreter.reports.doc_diff import changes

CONSTRAINTS = [{"id": "same_region", "check": "len(regions) == 1"},
               {"id": "same_residence", "check": "len(residences) == 1"}]

CASES = [
    # (name, old, new, [(field, change, old, new, after?)])
    ("a formula", {"challenge": "rarity"}, {"challenge": "max(1, rarity)"},
     [("challenge", "changed", "rarity", "max(1, rarity)")]),
    ("nothing changed", {"challenge": "rarity", "text": {"ja": "あ"}}, {"challenge": "rarity", "text": {"ja": "あ"}},
     []),
    ("a nested mapping key by key", {"repeat": {"policy": "move", "window": "safety"}},
     {"repeat": {"policy": "move", "window": "safety + 1"}},
     [("repeat.window", "changed", "safety", "safety + 1")]),
    ("a keyed item added after another", {"constraints": CONSTRAINTS},
     {"constraints": [CONSTRAINTS[0], {"id": "paid", "check": "cost > 0"}, CONSTRAINTS[1]]},
     [("constraints[paid]", "added", None, {"id": "paid", "check": "cost > 0"}, "same_region")]),
    ("a keyed item added first", {"constraints": CONSTRAINTS},
     {"constraints": [{"id": "paid", "check": "cost > 0"}, *CONSTRAINTS]},
     [("constraints[paid]", "added", None, {"id": "paid", "check": "cost > 0"}, None)]),
    ("a keyed item removed", {"constraints": CONSTRAINTS}, {"constraints": CONSTRAINTS[:1]},
     [("constraints[same_residence]", "removed", CONSTRAINTS[1], None)]),
    ("a keyed item changed inside", {"constraints": CONSTRAINTS},
     {"constraints": [CONSTRAINTS[0], {"id": "same_residence", "check": "len(residences) <= 1"}]},
     [("constraints[same_residence].check", "changed", "len(residences) == 1", "len(residences) <= 1")]),
    ("a keyed item moved", {"constraints": CONSTRAINTS}, {"constraints": CONSTRAINTS[::-1]},
     [("constraints[same_residence]", "moved", None, None, None)]),
    ("computed values keyed by name", {"computed": [{"name": "total", "value": "a + b"}]},
     {"computed": [{"name": "facilities", "value": "len(f)"}, {"name": "total", "value": "a + b + facilities"}]},
     [("computed[facilities]", "added", None, {"name": "facilities", "value": "len(f)"}, None),
      ("computed[total].value", "changed", "a + b", "a + b + facilities")]),
    ("records without a key, by position", {"sides": [{"plan": "plan", "label": {"ja": "PC"}}]},
     {"sides": [{"plan": "plan", "label": {"ja": "ＰＣ"}}]},
     [("sides[#1].label", "changed", {"ja": "PC"}, {"ja": "ＰＣ"})]),
    ("a field added and one removed", {"when": "a"}, {"keep": "card == 'SA'"},
     [("when", "removed", "a", None), ("keep", "added", None, "card == 'SA'")]),
    ("a list of values is one value", {"renews": ["items"]}, {"renews": ["items", "characters"]},
     [("renews", "changed", ["items"], ["items", "characters"])]),
]


@pytest.mark.parametrize("name, old, new, expected", CASES, ids=[c[0] for c in CASES])
def test_each_change_is_found_down_to_the_leaf(name, old, new, expected):
    found = [c.to_json() for c in changes(old, new)]
    assert [(f["field"], f["change"], f["old"], f["new"]) for f in found] == [e[:4] for e in expected]
    for entry, want in zip(found, expected):
        if len(want) > 4:
            assert entry["after"] == want[4]


def test_a_multi_line_text_shows_only_the_lines_that_changed():
    old = {"text": {"ja": "一行目。\n二行目。\n三行目。", "en": "One.\nTwo.\nThree."}}
    new = {"text": {"ja": "一行目。\n二行目を変えた。\n三行目。", "en": "One.\nTwo.\nThree."}}
    [change] = changes(old, new)
    assert change.lines == {"ja": ["- 二行目。", "+ 二行目を変えた。"]}
    shown = field_lines([change.to_json()], words("ja"), "ja", None, None)
    assert shown == ["text:", "  - 二行目。", "  + 二行目を変えた。"]
    shown = field_lines([change.to_json()], words("en"), "en", None, None)
    assert shown == ["text (Japanese):", "  - 二行目。", "  + 二行目を変えた。"]


WORDED = [
    ("ja", {"challenge": "rarity"}, {"challenge": "max(1, rarity)"}, ["challenge: rarity -> max(1, rarity)"]),
    ("ja", {"constraints": CONSTRAINTS}, {"constraints": [CONSTRAINTS[0], {"id": "paid", "check": "cost > 0"},
                                                          CONSTRAINTS[1]]},
     ["constraints[paid]: 追加（same_region の後） id: paid、check: cost > 0"]),
    ("en", {"constraints": CONSTRAINTS}, {"constraints": CONSTRAINTS[:1]},
     ["constraints[same_residence]: removed id: same_residence, check: len(residences) == 1"]),
    ("ja", {"constraints": CONSTRAINTS}, {"constraints": CONSTRAINTS[::-1]},
     ["constraints[same_residence]: 順序の変更（先頭）"]),
    # the Japanese words read the same: the English that differs is shown, and said to be English
    ("ja", {"label": {"ja": "PC", "en": "PC"}}, {"label": {"ja": "PC", "en": "player character"}},
     ["label: PC -> player character（英語の文だけ）"]),
    ("en", {"message": {"ja": "{name} は共有できません", "en": "x"}}, {"message": {"ja": "{name} は同居できません", "en": "x"}},
     ["message: {name} は共有できません -> {name} は同居できません (the Japanese text only)"]),
]


@pytest.mark.parametrize("lang, old, new, expected", WORDED)
def test_each_change_is_shown_in_words(lang, old, new, expected):
    found = [c.to_json() for c in changes(old, new)]
    assert field_lines(found, words(lang), lang, None, None) == expected


def _variant(tmp_path: Path, docs: str, manifest_extra: str = "") -> Path:
    (tmp_path / "ruleset.yaml").write_text(textwrap.dedent(f"""\
        id: logic_variant
        version: 0.1.0
        title: {{ja: 変更の確認}}
        extends: {Path(__file__).resolve().parents[2] / "rulesets" / "magipunk"}
        """) + textwrap.dedent(manifest_extra), encoding="utf-8")
    if docs:
        (tmp_path / "rules.yaml").write_text(textwrap.dedent(docs), encoding="utf-8")
    return tmp_path


def _diff(capsys, base: Path, variant: Path, *extra: str) -> str:
    # start-up: the CLI loads only in the tests that run it
    from interpreter.cli import main

    assert main(["diff", str(base), str(variant), *extra]) == 0
    return capsys.readouterr().out


BASE = Path(__file__).resolve().parents[2] / "rulesets" / "magipunk"


def test_a_formula_that_no_probe_exercises_is_listed_and_the_campaign_wiring_too(tmp_path, capsys):
    source = (BASE / "procurement.yaml").read_text(encoding="utf-8").split("\n---")
    [check] = [d for d in source if "id: procurement.check" in d]
    check = check.lstrip("-\n").replace("id: procurement.check", "id: my.check\nreplaces: procurement.check", 1)
    check = check.replace("\nchallenge: rarity + reputation_modifier",
                          "\nchallenge: rarity + reputation_modifier + (1 if rarity > 20 else 0)")
    assert "rarity > 20" in check
    variant = _variant(tmp_path, check, "campaign:\n  rests: {nap: rest.short}\n")
    out = _diff(capsys, BASE, variant, "--lang", "ja")
    assert "キャンペーンの配線:\n  rests.nap: 追加 rest.short" in out
    assert "procurement.check 調達判定 (Check)\n    logic_variant が文書ごと置き換え（my.check）" in out
    assert ("項目 challenge: rarity + reputation_modifier -> rarity + reputation_modifier + "
            "(1 if rarity > 20 else 0)") in out
    # nothing else of the document is listed: its other fields are the same
    assert out.count("項目 ") == 1
    assert "追加されたルール: なし" in out and "削除されたルール: なし" in out
    markdown = _diff(capsys, BASE, variant, "--format", "markdown", "--lang", "en")
    assert "- **Campaign wiring**\n  - rests.nap: added rest.short" in markdown
    assert "  - field challenge: rarity + reputation_modifier -> " in markdown


def test_a_variant_that_changes_nothing_lists_nothing(tmp_path, capsys):
    out = _diff(capsys, BASE, _variant(tmp_path, ""), "--lang", "en")
    assert "Changed rules:\n  none" in out and "Campaign wiring" not in out


HOUSE_RULES = BASE.parent / "examples" / "house_rules"
# (example, lang, lines the diff shows in words, with no probe needed)
EXAMPLES = [
    ("challenge_at_least_one", "ja", ["パラメータ min_challenge: なし -> 1  [challenge_at_least_one]",
                                      "項目 challenge: rarity + reputation_modifier -> max(rarity + reputation_modifier, "
                                      "params.min_challenge) if rarity >= params.required_from else"]),
    ("challenge_at_least_one", "en", ["field param_schema: added min_challenge: (type: integer, minimum: 0)"]),
    ("free_residence_not_shared", "ja", ["項目 constraints[free_residence]: 追加（unknown_facility の後） id: free_residence、"
                                         "check: costs.residence > 0"]),
    ("free_residence_not_shared", "en", ["field constraints[free_residence]: added (after unknown_facility)"]),
    ("facility_life_points", "en", ["field computed[facility_points]: added (after residence_split) name: facility_points",
                                    "field computed[life_points].value.facilities: added facility_points[pc]",
                                    "field computed[life_points].value.total: costs.region + residence_split[pc] if"]),
    ("city_moves_up_first", "ja", ["項目 repeat: once: params.shared_tag in tags"]),
    ("instant_distinct_options", "en", ["field constraints: added id: option_taken"]),
    ("dawn_keeps_aces", "ja", ["項目 keep: 追加 card.rank == 'A'"]),
    ("dawn_keeps_aces", "en", ["field keep: added card.rank == 'A'"]),
    ("storm_camp", "ja", ["  rest.camp（rest.long との違い）:", "    パラメータ duration_minutes: 480 -> 240",
                          "    項目 effect_types.storm: 追加 amount: cards、rule: camp.storm", "rests.camp: 追加 rest.camp"]),
    ("storm_camp", "en", ["  rest.camp, over rest.long:", "    parameter effects: none -> effect: sleep, hours: 3 / effect: storm"]),
]


@pytest.mark.parametrize("example, lang, shown", EXAMPLES)
def test_each_house_rule_is_listed_in_words(capsys, example, lang, shown):
    out = _diff(capsys, BASE, HOUSE_RULES / example, "--lang", lang)
    for line in shown:
        assert line in out, (line, out)
