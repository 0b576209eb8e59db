"""Parameters have schemas, texts follow them, values are written once: bad parameters (in a
variant, on the command line, ruleset-wide) as located findings, templates in traces, the
stale-text warning, x-enum-from, free-form sources, cycles between rules, large row overrides."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.engine import runner as engine
from interpreter.cli import main
from interpreter.ruleset.model import Rule
from interpreter.documents.resources import bundled_ruleset, rulesets_dir
from interpreter.checks.loading import collect, load_ruleset
from interpreter.checks.semantic import check_source
from interpreter.ruleset.texts import render_text, stale_texts
from rules_dsl.errors import MprError
from ruleset_support import manifest, write

MAGIPUNK = bundled_ruleset().resolve()
HOUSE = rulesets_dir() / "examples" / "house_rules"

# (the manifest's body after `extends`, the text marked ⟨…⟩ where the finding must point, code)
BAD_VARIANT_PARAMS = [
    ("overrides:\n  procurement.rarity:\n    params: {rounding: ⟨flor⟩}\n", "MPR304"),
    ("overrides:\n  procurement.rarity:\n    params: {ma_gear_divisor: ⟨0⟩}\n", "MPR307"),
    ("overrides:\n  procurement.rarity:\n    params: {materials_1: [⟨1⟩, 合金]}\n", "MPR301"),
    ("overrides:\n  procurement.rarity:\n    params: {max_rarity: ⟨ten⟩}\n", "MPR300"),
    ("overrides:\n  circulation.sleep:\n    params: {min_sleep_hours: ⟨abc⟩}\n", "MPR300"),
    ("overrides:\n  procurement.check:\n    params: {time_dice_cap: ⟨[2]⟩}\n", "MPR300"),
    ("parameters:\n  clock: {⟨clok⟩: '07:00'}\n", "MPR303"),
    ("parameters:\n  core_check: {⟨jackpot_overides_challenge⟩: false}\n", "MPR303"),
    ("parameters:\n  ⟨clocks⟩: {dawn: '07:00'}\n", "MPR303"),
    ("parameters:\n  clock: {dawn: ⟨7:00⟩}\n", "MPR306"),  # YAML 1.2: the text 7:00, not 07:00
    ("parameters:\n  clock: {dawn: ⟨'25:00'⟩}\n", "MPR306"),
    ("parameters:\n  core_check: {faces: ⟨1⟩}\n", "MPR307"),
    ("parameter_schema:\n  clock: ⟨{type: objekt}⟩\n", "MPR424"),
]


def _variant(tmp_path: Path, body: str) -> tuple[Path, int, int]:
    """Write a variant of the bundled ruleset; the line and column of the marked text."""
    head = manifest("bad_params", f"extends: {MAGIPUNK}\n")
    text = head + body
    before = text[:text.index("⟨")]
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    write(tmp_path, {"ruleset.yaml": text.replace("⟨", "").replace("⟩", "")})
    return tmp_path, line, column


@pytest.mark.parametrize("body, code", BAD_VARIANT_PARAMS, ids=[c for _, c in BAD_VARIANT_PARAMS])
def test_a_bad_parameter_of_a_variant_is_located_at_its_value(tmp_path, body, code):
    root, line, column = _variant(tmp_path, body)
    _, findings = collect(root)
    errors = [(d.code, d.line, d.column) for d in findings if d.severity == "error"]
    assert errors == [(code, line, column)]
    assert all(d.file and d.file.endswith("ruleset.yaml") for d in findings if d.severity == "error")


def test_unknown_names_suggest_the_nearest(tmp_path):
    root, _, _ = _variant(tmp_path, "parameters:\n  ⟨clocks⟩: {dawn: '07:00'}\n")
    [finding] = [d for d in collect(root, "ja")[1] if d.code == "MPR303"]
    assert "clock" in finding.message


# --param RULE.NAME=YAML: the same checks, named by the argument; exit 1 for a wrong value
BAD_CALLER_PARAMS = [
    ("circulation.sleep.min_sleep_hours=abc", "MPR300"),
    ("circulation.sleep.min_sleep_hours=-1", "MPR307"),
    ("procurement.rarity.rounding=flor", "MPR304"),
    ("procurement.rarity.rounding=1:30", "MPR304"),  # the text 1:30 (YAML 1.2), and MPR325
    ("procurement.rarity.rounding=!!binary Zmxvb3I=", "MPR208"),
    ("procurement.rarity.rounding=", "MPR426"),
    ("procurement.rarity.roundin=ceil", "MPR412"),
]


@pytest.mark.parametrize("param, code", BAD_CALLER_PARAMS, ids=[p for p, _ in BAD_CALLER_PARAMS])
def test_a_bad_param_on_the_command_line_is_a_finding(capsys, tmp_path, param, code):
    data = tmp_path / "input.yaml"
    data.write_text("item: {materials: [鋼], quality: 標準}\n", encoding="utf-8")
    assert main(["run", "procurement.rarity", "--input", str(data), "--param", param]) == 1
    err = capsys.readouterr().err
    assert code in err and "Traceback" not in err


@pytest.mark.parametrize("param, warned", [
    ("procurement.rarity.ma_gear_divisor=017", True), ("procurement.rarity.ma_gear_divisor=0x10", False),
    ("procurement.rarity.rounding=1:30", True)])
def test_a_param_yaml_1_1_reads_differently_is_warned_at_its_argument(capsys, tmp_path, param,
                                                                      warned):
    data = tmp_path / "input.yaml"
    data.write_text("item: {materials: [鋼], quality: 標準}\n", encoding="utf-8")
    main(["run", "procurement.rarity", "--input", str(data), "--param", param])
    err = capsys.readouterr().err
    assert (f"--param {param.partition('=')[0]}: MPR325" in err) == warned


def test_a_good_param_on_the_command_line_runs(capsys, tmp_path):
    data = tmp_path / "input.yaml"
    data.write_text("item: {materials: [鋼], quality: 標準, ma_gear: {parts: [{price: 700}]}}\n",
                    encoding="utf-8")
    assert main(["run", "procurement.rarity", "--input", str(data), "--param",
                 "procurement.rarity.rounding=ceil", "--format", "json"]) == 0
    assert '"value": 2' in capsys.readouterr().out


def test_an_example_param_is_checked_where_the_example_writes_it(tmp_path):
    doc = (MAGIPUNK / "procurement.yaml").read_text(encoding="utf-8").split("\n---\n")[0]
    doc = doc.replace("    params: {rounding: ceil}", "    params: {rounding: ceiling}")
    write(tmp_path, {"ruleset.yaml": manifest("ex"), "rarity.yaml": doc})
    [finding] = [d for d in collect(tmp_path)[1] if d.severity == "error"]
    line = doc[:doc.index("ceiling")].count("\n") + 1
    assert (finding.code, finding.line) == ("MPR304", line)


# --- texts follow the parameters ---------------------------------------------------------------

def _trace_labels(result, lang="ja"):
    return {step.label: step.detail.get("text", {}).get(lang) for step in result.trace[0].children
            if step.kind == "row"}


def test_the_trace_lists_a_moved_material_under_its_new_rarity():
    ruleset = load_ruleset(HOUSE / "resin_rarity2")
    item = {"item": {"materials": ["合成樹脂"], "quality": "標準"}}
    labels = _trace_labels(engine.run(ruleset, "procurement.rarity", item))
    assert "合成樹脂" in labels["material_2"] and "合成樹脂" not in labels["material_1"]
    assert labels["material_2"] == "素材パーツが〈魔銀糸〉〈魔殻〉〈合成樹脂〉"


def test_the_base_trace_renders_the_same_labels_from_its_own_values():
    labels = _trace_labels(engine.run(load_ruleset(), "procurement.rarity",
                                      {"item": {"materials": ["鋼"], "quality": "標準"}}), "en")
    assert labels["material_3"] == "a material part of rarity 3: 魔煌銀"


TEXT_RULE = """id: prep.tense
kind: SumTable
source: ハウスルール
title: {{ja: "準備（{title}）"}}
text: {{ja: "{text}", en: "Each PC may act up to 6 times."}}
params: {{allowance: 6}}
param_schema: {{allowance: {{type: integer, minimum: 1}}}}
rows:
  - {{id: base, when: 'true', value: 0}}
"""


def _text_variant(tmp_path: Path, text: str, title: str = "{params.allowance}回") -> Path:
    base = write(tmp_path / "base", {"ruleset.yaml": manifest("base"),
                                     "prep.yaml": TEXT_RULE.format(text=text, title=title)})
    return write(tmp_path / "variant", {"ruleset.yaml": manifest(
        "variant", f"extends: {base}\noverrides:\n  prep.tense:\n    params: {{allowance: 8}}\n")})


def test_a_text_naming_a_changed_value_is_warned(tmp_path):
    root = _text_variant(tmp_path, "ＰＣはそれぞれ合計で6回まで行える。")
    ruleset, findings = collect(root, "ja")
    stale = [d for d in findings if d.code == "MPR428"]
    assert [(d.severity, d.line) for d in stale] == [("warning", 5), ("warning", 5)]  # ja and en
    assert "{params.allowance}" in stale[0].message
    found = stale_texts(ruleset.rules["prep.tense"])
    assert {(s.path, s.old, s.new, s.layer) for s in found} == {
        (("text", "ja"), 6, 8, "variant"), (("text", "en"), 6, 8, "variant")}


def test_a_text_that_interpolates_follows_the_variant(tmp_path):
    root = _text_variant(tmp_path, "ＰＣはそれぞれ合計で{params.allowance}回まで行える。")
    ruleset, findings = collect(root, "ja")
    rule = ruleset.rules["prep.tense"]
    assert [d.code for d in findings if d.code == "MPR428"] == ["MPR428"]  # the en text only
    assert render_text(rule, ("text",), "ja") == "ＰＣはそれぞれ合計で8回まで行える。"
    assert rule.title("ja") == "準備（8回）"


@pytest.mark.parametrize("title, code", [("{params.allowanse}", "MPR352"), ("{pcs}", "MPR427"),
                                         ("{params.allowance", "MPR180")])
def test_a_bad_placeholder_in_a_text_is_a_finding(tmp_path, title, code):
    root = _text_variant(tmp_path, "{params.allowance}", title=title)
    codes = {d.code for d in collect(root)[1] if d.severity == "error"}
    assert code in codes or (code == "MPR352" and codes)


# --- values written once -------------------------------------------------------------------------

def test_a_new_material_is_one_edit():
    item = {"item": {"materials": ["神鉄"], "quality": "標準"}}
    with pytest.raises(MprError) as error:
        engine.run(load_ruleset(), "procurement.rarity", item)
    assert error.value.code == "MPR500"
    variant = load_ruleset(HOUSE / "new_material")
    assert engine.run(variant, "procurement.rarity", item).value == 2
    assert "神鉄" in _trace_labels(engine.run(variant, "procurement.rarity", item))["material_2"]


def test_the_cap_of_rarity_is_a_parameter():
    item = {"item": {"materials": ["魔煌銀"], "quality": "伝説", "design": "絢爛",
                     "vehicle": {"price": 8000}}}
    assert engine.run(load_ruleset(), "procurement.rarity", item).value == 14
    assert engine.run(load_ruleset(HOUSE / "rarity_cap"), "procurement.rarity", item).value == 10


@pytest.mark.parametrize("expression, code", [("params.rounding", "MPR429"),
                                              ("params.materials_0 + item", "MPR433"),
                                              ("params.materials_0 +", "MPR100")])
def test_a_bad_enum_from_is_a_finding(tmp_path, expression, code):
    doc = (MAGIPUNK / "procurement.yaml").read_text(encoding="utf-8").split("\n---\n")[0]
    start = doc.index("x-enum-from: ") + len("x-enum-from: ")
    end = doc.index("\n", start)
    doc = doc[:start] + f"'{expression}'" + doc[end:]
    write(tmp_path, {"ruleset.yaml": manifest("ex"), "rarity.yaml": doc})
    codes = {d.code for d in collect(tmp_path)[1] if d.severity == "error"}
    assert code in codes or (code == "MPR100" and codes)


# --- sources, cycles, large overrides ------------------------------------------------------------

def test_a_house_rule_names_its_own_source():
    ruleset, findings = collect(HOUSE / "rarity_cap")
    assert not [d for d in findings if d.severity == "error"]


@pytest.mark.parametrize("source, inside, found", [
    ("ハウスルール", False, []), ("基本ルールブック p.123", False, []),
    ("ハウスルール", True, ["MPR420"]), ("R9", True, []), ("Rc", True, [])])
def test_only_the_bundled_ruleset_needs_rule_numbers(source, inside, found):
    folder = MAGIPUNK if inside else Path("/elsewhere")
    rule = Rule(id="x.y", kind="SumTable", doc={"source": source}, file=str(folder / "x.yaml"))
    assert [d.code for d in check_source(rule, None, "en")] == found


CYCLE_RULE = """id: {id}
kind: Check
source: ハウスルール
title: {{en: {id}}}
inputs: {{type: object, properties: {{}}}}
attribute: intellect
derive:
  other: {{rule: {other}, inputs: []}}
required: 'true'
dice_bonus: '0'
dice: '1'
challenge: '0'
"""


def test_rules_that_derive_from_each_other_are_a_located_cycle(tmp_path):
    write(tmp_path, {"ruleset.yaml": manifest("loop"),
                     "a.yaml": CYCLE_RULE.format(id="loop.a", other="loop.b"),
                     "b.yaml": CYCLE_RULE.format(id="loop.b", other="loop.a")})
    ruleset, findings = collect(tmp_path)
    [cycle] = [d for d in findings if d.code == "MPR430"]
    assert "loop.a -> loop.b -> loop.a" in cycle.message
    assert cycle.file.endswith("a.yaml") and cycle.line == 8
    with pytest.raises(MprError) as error:
        engine.run(ruleset, "loop.a", {})
    assert error.value.code == "MPR431"


def test_many_added_rows_validate_with_their_positions(tmp_path):
    """Row overrides are applied in one pass (20,000 rows validate in seconds on an idle machine;
    3,000 here keep the suite fast): every added row keeps its layer and its line."""
    count = 3000
    rows = "".join(f"  - {{id: r{i}, when: situation>99, value: 1}}\n" for i in range(count))
    body = f"overrides:\n procurement.rarity:\n  rows:\n{rows}"
    write(tmp_path, {"ruleset.yaml": manifest("big", f"extends: {MAGIPUNK}\n") + body})
    ruleset, findings = collect(tmp_path)
    assert not [d for d in findings if d.severity == "error"]
    rule = ruleset.rules["procurement.rarity"]
    last = 14 + count - 1
    assert len(rule.doc["rows"]) == last + 1 and rule.row_layers[f"r{count - 1}"] == "big"
    assert rule.loc("rows", last, "when").line == 8 + count - 1
    assert rule.loc("rows", 0, "when").file.endswith("procurement.yaml")
