"""``mprules validate``, ``run`` and ``test`` through the CLI entry point: formats, exit codes,
parameter overrides, scripted dice, and input errors located in the input file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.cli import main

BROKEN = Path(__file__).parents[1] / "broken" / "semantic"
ITEM = "item: {materials: [合金], quality: 傑作, design: null, ma_gear: {parts: [{price: 700}]}, vehicle: null}\n"
TABLE = """\
id: events.city
kind: RollTable
source: R16
title: {en: City events}
inputs: {type: object, properties: {roll: {type: integer}}, additionalProperties: false}
params: {roll: 2d6}
default: {id: individual}
rows:
  - {roll: 2, id: odd_house, value: 1}
  - {roll: [3, 4], id: burglary, value: 2}
  - {roll: 7, id: small_theft, value: 3}
examples:
  - {name: seven, dice: [3, 4], expect: {roll: 7, id: small_theft, text: null, value: 3}}
  - {name: given roll, input: {roll: 3}, expect: {roll: 3, id: burglary, text: null, value: 2}}
  - {name: wrong on purpose, input: {roll: 12}, expect: {roll: 12, id: odd_house, text: null, value: 1}}
"""


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    root = tmp_path / "tables"
    root.mkdir()
    (root / "ruleset.yaml").write_text('id: tables\nversion: "1.0.0"\ntitle: {en: Tables}\n',
                                       encoding="utf-8")
    (root / "events.yaml").write_text(TABLE, encoding="utf-8")
    return root


def test_validate_bundled_rulesets_is_clean(capsys):
    code, out, _ = run_cli(capsys, "validate", "--format", "json")
    assert [d for d in json.loads(out) if d["severity"] == "error"] == []
    assert code == 0


@pytest.mark.parametrize("fmt, line", [
    ("text", "tests/broken/semantic/roll_gap.yaml:9:3: MPR370 table test.roll_gap has no row"),
    ("github", "::error file=tests/broken/semantic/roll_gap.yaml,line=9,col=3,title=MPR370::table"),
])
def test_validate_text_and_github(capsys, monkeypatch, fmt, line):
    monkeypatch.chdir(BROKEN.parent.parent.parent)
    code, out, _ = run_cli(capsys, "validate", "tests/broken/semantic/roll_gap.yaml", "--format", fmt)
    assert code == 1 and out.startswith(line)


def test_validate_json_lists_every_finding_sorted(capsys, monkeypatch):
    monkeypatch.chdir(BROKEN.parent.parent.parent)
    code, out, _ = run_cli(capsys, "validate", "tests/broken/semantic", "--format", "json")
    findings = json.loads(out)
    assert code == 1 and len(findings) >= 15
    assert set(findings[0]) == {"file", "line", "column", "code", "severity", "message"}
    assert findings == sorted(findings, key=lambda d: (d["file"], d["line"], d["column"], d["code"]))


@pytest.mark.parametrize("extra, expected", [((), 0), (("--strict",), 1)])
def test_warnings_fail_only_when_strict(capsys, extra, expected):
    code, out, _ = run_cli(capsys, "validate", str(BROKEN / "roll_unreachable.yaml"), *extra)
    assert code == expected and "MPR372" in out


def test_validate_missing_path_is_usage_error(capsys):
    code, _, err = run_cli(capsys, "validate", "no/such/dir")
    assert code == 2 and "MPR020" in err


def test_validate_japanese(capsys):
    code, out, _ = run_cli(capsys, "validate", str(BROKEN / "roll_gap.yaml"), "--lang", "ja")
    assert code == 1 and "行もデフォルトもありません" in out


def test_run_json_contract(capsys, tmp_path):
    (tmp_path / "in.yaml").write_text(ITEM + "situation: 1\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"),
                           "--format", "json", "--seed", "5")
    data = json.loads(out)
    assert code == 0 and set(data) == {"rule", "value", "trace", "seed"}
    assert (data["rule"], data["value"], data["seed"]) == ("procurement.rarity", 1 + 3 + 1 + 1, 5)
    assert data["trace"][0]["kind"] == "rule"


def test_run_text_shows_the_tree(capsys, tmp_path):
    (tmp_path / "in.yaml").write_text(ITEM, encoding="utf-8")
    code, out, _ = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "5" and lines[1] == ""
    assert lines[2].startswith("└─ procurement.rarity") and "= 5" not in lines[2]
    assert any("quality_masterpiece (quality masterpiece) = 3" in line for line in lines)


@pytest.mark.parametrize("param, value", [
    ("procurement.rarity.rounding=ceil", 6), ("procurement.rarity.ma_gear_divisor=100", 11)])
def test_run_param_override(capsys, tmp_path, param, value):
    (tmp_path / "in.yaml").write_text(ITEM, encoding="utf-8")
    code, out, _ = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"),
                           "--param", param, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["value"] == value
    assert "--param" in json.dumps(data["trace"])


@pytest.mark.parametrize("param, code, message", [
    ("rounding=ceil", 2, "MPR021"), ("procurement.rarity.rondin=ceil", 1, "MPR412"),
    ("procurement.rarty.rounding=ceil", 1, "MPR411")])
def test_run_bad_param(capsys, param, code, message):
    result, _, err = run_cli(capsys, "run", "procurement.rarity", "--param", param)
    assert result == code and message in err


def test_run_input_errors_are_located(capsys, tmp_path):
    (tmp_path / "in.yaml").write_text(
        "item:\n  materials: [魔煌鋼]\n  quality: 標準\n  design: null\n  ma_gear: null\n"
        "  vehicle: {price: -1}\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"))
    assert code == 1
    assert f"{tmp_path / 'in.yaml'}:2:15" in err and "MPR500" in err and "魔煌銀" in err
    assert f"{tmp_path / 'in.yaml'}:6:20" in err


def test_run_yaml_error_in_input_is_located(capsys, tmp_path):
    (tmp_path / "in.yaml").write_text("item: {materials: [鋼]\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"))
    assert code == 1 and "in.yaml:" in err and "MPR2" in err


@pytest.mark.parametrize("argv, value, warning", [
    (("--dice", "3,4"), {"roll": 7, "id": "small_theft", "text": None, "value": 3}, False),
    (("--dice", "1,1,6"), {"roll": 2, "id": "odd_house", "text": None, "value": 1}, True),
    (("--seed", "1"), None, False),
])
def test_run_roll_table_dice(capsys, tables, argv, value, warning):
    code, out, err = run_cli(capsys, "run", "events.city", "--ruleset", str(tables), *argv,
                             "--format", "json")
    if warning:  # dice given that the rule did not use: refused (exit 1), as eval and check do
        assert code == 1 and "MPR152" in err and json.loads(out)["error"]["code"] == "MPR152"
        return
    data = json.loads(out)
    assert code == 0 and "MPR152" not in err
    if value is not None:
        assert data["value"] == value
    else:
        assert 2 <= data["value"]["roll"] <= 12 and data["seed"] == 1


def test_run_too_few_dice(capsys, tables):
    code, _, err = run_cli(capsys, "run", "events.city", "--ruleset", str(tables), "--dice", "3")
    assert code == 1 and "MPR150" in err


def test_test_command_reports_pass_fail_and_diff(capsys, tables):
    code, out, _ = run_cli(capsys, "test", str(tables))
    assert code == 1
    assert "PASS" not in out and "FAIL" in out and "2 passed, 1 failed" in out
    assert '-  "id": "odd_house"' in out and '+  "id": "individual"' in out
    code, out, _ = run_cli(capsys, "test", str(tables), "--format", "json")
    data = json.loads(out)
    assert (data["passed"], data["failed"]) == (2, 1)


def test_run_reads_the_input_from_stdin(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(ITEM + "situation: -1\n"))
    code, out, _ = run_cli(capsys, "run", "procurement.rarity", "--input", "-", "--format", "json")
    assert code == 0 and json.loads(out)["value"] == 4


def test_test_command_on_one_file_of_a_ruleset(capsys, tables):
    (tables / "other.yaml").write_text(TABLE.replace("events.city", "events.other"), encoding="utf-8")
    code, out, _ = run_cli(capsys, "test", str(tables / "other.yaml"), "--format", "json")
    data = json.loads(out)
    assert code == 1 and {e["rule"] for e in data["examples"]} == {"events.other"}


def test_validate_without_path_covers_every_bundled_ruleset():
    from interpreter.documents.resources import rulesets_dir
    from interpreter.checks.validation import bundled_targets

    root = rulesets_dir() / "examples"
    examples = sorted(p for p in root.iterdir() if p.is_dir() and p.name != "house_rules")
    house_rules = sorted(p for p in (root / "house_rules").iterdir() if p.is_dir())
    assert examples and house_rules
    assert bundled_targets() == [rulesets_dir() / "magipunk", *sorted(examples + house_rules)]


def test_github_format_escapes_the_file_property(capsys, tmp_path):
    """Workflow-command properties escape ``%``, CR, LF, ``:`` and ``,``; the message the first three."""
    broken = tmp_path / "a,b: 100%.yaml"
    broken.write_text("id: t.x\nid: t.y\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(broken), "--format", "github")
    escaped = str(broken).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    assert code == 1 and out.startswith(f"::error file={escaped},line=2,col=1,title=MPR207::")


@pytest.mark.parametrize("path, expected", [
    ("rulesets/examples", "0 failed"),  # a bare `test` (all of rulesets/) runs in test_examples_match
    ("tests/broken/semantic", "ruleset(s) with errors")])
def test_test_command_searches_directories_like_validate(capsys, monkeypatch, path, expected):
    monkeypatch.chdir(BROKEN.parent.parent.parent)
    code, out, _ = run_cli(capsys, "test", path)
    assert expected in out and "None" not in out
    assert "PASS " not in out  # quiet: failures and the summary only
    if code:
        assert "tests/broken/semantic/duplicate_id/b.yaml:2:5: MPR408" in out


def test_test_command_unreadable_path_is_usage_error(capsys):
    code, _, err = run_cli(capsys, "test", "no/such/dir")
    assert code == 2 and "MPR020" in err


EXAMPLE_PARAM = TABLE.replace(
    "examples:\n", "examples:\n  - {name: broken roll, params: {roll: '2d6 +'}, expect: 1}\n")


EXAMPLE_PARAM_NAME = TABLE.replace(
    "examples:\n", "examples:\n  - {name: unknown name, params: {roll: '2d6 + nope'}, expect: 1}\n")


def test_an_example_param_error_is_found_by_validate_in_the_example(capsys, tables):
    (tables / "events.yaml").write_text(EXAMPLE_PARAM, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(tables), "--format", "json")
    line = EXAMPLE_PARAM.splitlines().index("  - {name: broken roll, params: {roll: '2d6 +'}, expect: 1}")
    column = EXAMPLE_PARAM.splitlines()[line].index("+") + 1  # at the dangling operator
    (finding,) = json.loads(out)
    assert code == 1 and finding["code"] == "MPR112"
    assert (finding["line"], finding["column"]) == (line + 1, column)


def test_an_example_param_error_at_run_time_is_located_in_the_example(capsys, tables):
    (tables / "events.yaml").write_text(EXAMPLE_PARAM_NAME, encoding="utf-8")
    code, out, _ = run_cli(capsys, "test", str(tables), "--format", "json")
    (broken,) = [e for e in json.loads(out)["examples"] if e["name"] == "unknown name"]
    assert code == 1 and broken["actual"]["error"].startswith("MPR")
    assert broken["actual"]["at"].startswith(f"{tables / 'events.yaml'}:")


def test_an_example_param_leaves_the_rule_as_written(tables):
    from interpreter.checks.examples import run_examples
    from interpreter.checks.loading import load_ruleset

    (tables / "events.yaml").write_text(EXAMPLE_PARAM_NAME, encoding="utf-8")
    ruleset = load_ruleset(tables)
    before = dict(ruleset.rules["events.city"].positions)
    run_examples(ruleset)
    assert ruleset.rules["events.city"].positions == before


@pytest.mark.parametrize("written, value", [("no", "false"), ("'1:30'", None), ("1:30", "90")])
def test_run_input_yaml11_trap_says_to_quote(capsys, tmp_path, written, value):
    (tmp_path / "in.yaml").write_text(ITEM.replace("quality: 傑作", f"quality: {written}"),
                                      encoding="utf-8")
    code, _, err = run_cli(capsys, "run", "procurement.rarity", "--input", str(tmp_path / "in.yaml"))
    assert code == 1 and "MPR500" in err  # YAML 1.2 reads the text, which is not a quality
    assert ("MPR325" in err) == (value is not None)
    if value:
        assert f"in.yaml:1:34: MPR325 {written} is read as the text '{written}'" in err
        assert f"YAML 1.1 reads it as {value}" in err and f"write '{written}' in quotes" in err
        assert err.index("MPR325") < err.index("MPR500")  # the warning before the error


def test_a_dangling_link_in_a_searched_folder_is_located(capsys, tmp_path):
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    code, out, _ = run_cli(capsys, "validate", str(tmp_path), "--format", "json")
    (finding,) = json.loads(out)
    assert code == 1 and (finding["code"], finding["file"]) == ("MPR407", str(tmp_path / "gone.yaml"))


QUOTED = """\
id: answers.count
kind: SumTable
source: R9
title: {en: Answers}
inputs: {type: object, properties: {answer: {enum: ["no", "yes"]}, at: {type: string}}}
rows:
  - {id: no_answer, when: "answer == 'no'", value: 1}
examples:
  - {name: unquoted no, input: {answer: no}, expect: 1}
  - {name: unquoted time, input: {answer: "no", at: 1:30}, expect: 1}
"""


def test_an_example_input_is_read_as_yaml_1_2_and_validate_warns_where_1_1_differs(capsys, tables):
    (tables / "events.yaml").write_text(QUOTED, encoding="utf-8")
    code, out, _ = run_cli(capsys, "test", str(tables), "--format", "json")
    assert code == 0 and json.loads(out)["failed"] == 0  # ``no`` and ``1:30`` are texts
    code, out, _ = run_cli(capsys, "validate", str(tables / "events.yaml"))
    assert code == 0
    assert [line.split(": ")[1].split()[0] + " " + line.split(":")[1] for line in out.splitlines()
            if "MPR325" in line] == ["MPR325 9", "MPR325 10"]


@pytest.mark.parametrize("lang, lines", [
    ("ja", ["調達判定が必要: true", "希少度: 1", "能力値: 知性", "ダイス: 2", "チャレンジ値: 1",
            "判定の結果: {ダイス: [8, 19], 成功: true, 結果: 成功, 特殊な結果: null, 達成値: 8}"]),
    ("en", ["check needed: true", "rarity: 1", "ability: intellect", "dice: 2", "challenge: 1",
            "outcome: {dice: [8, 19], success: true, result: success, special: null, value: 8}"]),
])
def test_run_text_output_writes_the_result_with_the_documents_labels(capsys, tmp_path, lang, lines):
    (tmp_path / "in.yaml").write_text("item: {materials: [鋼], quality: 上質}\nintellect: 12\n",
                                      encoding="utf-8")
    code, out, _ = run_cli(capsys, "--lang", lang, "run", "procurement.check", "--input",
                           str(tmp_path / "in.yaml"), "--dice", "8,19")
    assert code == 0
    shown = out.split("\n\n")[0].splitlines()
    assert [line for line in shown if not line.startswith(("ダイスの修正", "dice bonus", "成功率",
                                                            "chance"))] == lines
    code, out, _ = run_cli(capsys, "run", "procurement.check", "--input", str(tmp_path / "in.yaml"),
                           "--dice", "8,19", "--format", "json", "--lang", lang)
    assert set(json.loads(out)["value"]) >= {"required", "rarity", "attribute", "dice", "outcome"}


# ---- what validate shows: the GM's findings, one path style, every check, JSON refusals ----

GM_VARIANT = """\
id: house
version: 0.1.0
title: {ja: うちの卓, en: Our table}
extends: magipunk
overrides:
  briefing.tense:
    params: {allowance: 4}
"""


@pytest.fixture
def gm_variant(tmp_path: Path) -> Path:
    """A GM's variant outside the checkout that changes a value the bundled texts spell out
    (a warning about a bundled file) and sees the bundled briefings' notes."""
    root = tmp_path / "gm" / "house"
    root.mkdir(parents=True)
    (root / "ruleset.yaml").write_text(GM_VARIANT, encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_findings_of_bundled_files_show_only_when_asked(capsys, monkeypatch, gm_variant, fmt):
    monkeypatch.chdir(gm_variant.parent)
    code, out, _ = run_cli(capsys, "validate", "house", "--strict", "--format", fmt)
    assert (code, out) == (0, "[]\n" if fmt == "json" else "")  # the GM's files are clean
    code, out, _ = run_cli(capsys, "validate", "house", "--include-bundled", "--format", fmt)
    assert code == 0 and "MPR700" in out  # the notes of the bundled briefings, with the flag
    shown = [d["file"] for d in json.loads(out)] if fmt == "json" else \
        [line.split("file=")[1].split(",")[0] if fmt == "github" else line.split(":")[0]
         for line in out.splitlines()]
    assert shown and all(path.startswith("(bundled) magipunk/") for path in shown), shown


def test_a_named_bundled_ruleset_is_asked_for(capsys, monkeypatch):
    monkeypatch.chdir(BROKEN.parent.parent.parent)
    code, out, _ = run_cli(capsys, "validate", "rulesets/magipunk", "--format", "json")
    assert code == 0 and {d["code"] for d in json.loads(out)} >= {"MPR700"}
    assert all(d["file"].startswith("rulesets/magipunk/") for d in json.loads(out))


def test_the_readme_main_validate_prints_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "validate") == (0, "", "")


@pytest.mark.parametrize("where, shown", [
    ("bundled", "(bundled) magipunk/procurement.yaml:3:1: MPR020 "),
    ("here", "mine.yaml:3:1: MPR020 "),
])
def test_an_error_is_printed_in_the_same_path_style(capsys, monkeypatch, tmp_path, where, shown):
    """`run` and every verb print an error's file as validate does: a bundled file as
    ``(bundled) magipunk/...`` wherever mprules is installed, a file here relative to here."""
    from interpreter.cli.output import print_error
    from interpreter.documents.resources import bundled_ruleset
    from rules_dsl.errors import Location, MprError

    monkeypatch.chdir(tmp_path)
    file = bundled_ruleset() / "procurement.yaml" if where == "bundled" else tmp_path / "mine.yaml"
    print_error(MprError("MPR020", Location(str(file.resolve()), 3, 1), path="x"), "en")
    assert capsys.readouterr().err.startswith(shown)


SCHEMA_AND_GAP = (BROKEN / "roll_gap.yaml").read_text(encoding="utf-8").replace("title:", "titel: x\ntitle:", 1)


def test_a_schema_error_does_not_hide_the_other_checks_of_its_document(capsys, tmp_path):
    (tmp_path / "gap.yaml").write_text(SCHEMA_AND_GAP, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(tmp_path / "gap.yaml"), "--format", "json")
    assert code == 1 and [d["code"] for d in json.loads(out)] == ["MPR303", "MPR370"]


def test_a_value_past_a_schema_bound_stops_the_checks_of_its_document(capsys, tmp_path):
    """The schema's bounds bound the checks' work: past one, the other checks of that document
    wait (a roll gap shows once the bound is kept)."""
    text = (BROKEN / "roll_gap.yaml").read_text(encoding="utf-8").replace("source: R16", f"source: {'x' * 121}")
    (tmp_path / "gap.yaml").write_text(text, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(tmp_path / "gap.yaml"), "--format", "json")
    assert code == 1 and [d["code"] for d in json.loads(out)] == ["MPR308"]


@pytest.mark.parametrize("verb, shape", [("validate", list), ("test", dict)])
@pytest.mark.parametrize("argv, code, exit_status", [
    (["no/such/path"], "MPR020", 2),
    ([""], "MPR073", 2),  # an empty argument names nothing (not "permission denied")
])
def test_json_output_on_a_refusal_is_a_json_document(capsys, verb, shape, argv, code, exit_status):
    status, out, err = run_cli(capsys, verb, *argv, "--format", "json")
    data = json.loads(out)
    assert status == exit_status and code in err and isinstance(data, shape)
    error = data[0] if shape is list else data["error"]
    assert (error["code"], error["severity"], error["exit"]) == (code, "error", exit_status)


@pytest.mark.parametrize("layout, where", [
    ({"ruleset.yaml/README": "x"}, "ruleset.yaml"),                       # the manifest is a folder
    ({"ruleset.yaml": "id: r\nversion: 0.1.0\ntitle: {en: r}\n", "rules.yaml/README": "x"}, "rules.yaml"),
])
@pytest.mark.parametrize("given", ["folder", "inner"])
def test_a_directory_where_a_file_is_expected_is_refused(capsys, tmp_path, layout, where, given):
    root = tmp_path / "r"
    for name, text in layout.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    path = root if given == "folder" else root / where
    code, out, _ = run_cli(capsys, "validate", str(path), "--format", "json")
    findings = json.loads(out)
    assert code == 1 and [(d["code"], Path(d["file"]).name) for d in findings] == [("MPR025", where)]


def test_run_refuses_a_ruleset_whose_manifest_is_a_directory(capsys, tmp_path):
    (tmp_path / "ruleset.yaml").mkdir()
    code, _, err = run_cli(capsys, "run", "x.y", "--ruleset", str(tmp_path))
    assert code == 1 and "MPR025" in err


@pytest.mark.parametrize("name, text, checked", [
    (".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks:\n      - id: mprules-validate\n", False),
    (".github/workflows/rules.yml", "name: rules\non: [push]\njobs: {}\n", False),
    ("notes.yaml", "things: [1, 2]\n", False),
    ("loose_rule.yaml", "id: t.x\nkind: RollTabel\n", True),               # a rule by its content
    ("moded.yaml", "# yaml-language-server: $schema=../schemas/rule.json\nkidn: x\n", True),
])
def test_only_rule_files_skips_yaml_that_is_not_a_rule_document(capsys, tmp_path, monkeypatch, name, text, checked):
    monkeypatch.chdir(tmp_path)
    Path(name).parent.mkdir(parents=True, exist_ok=True)
    Path(name).write_text(text, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--only-rule-files", name, "--format", "json")
    assert (code == 1 and bool(json.loads(out))) is checked, out
    code, out, _ = run_cli(capsys, "test", "--only-rule-files", name, "--format", "json")
    assert (code == 1) is checked, out


def test_a_file_beside_a_manifest_is_a_rule_file_whatever_it_holds(capsys, tables):
    (tables / "notes.yaml").write_text("things: [1, 2]\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--only-rule-files", str(tables / "notes.yaml"))
    assert code == 1 and "notes.yaml:1:1: MPR302 the field 'id' is required" in out, out


def test_annotations_are_relative_to_the_github_workspace(capsys, tmp_path, monkeypatch):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "gap.yaml").write_text(SCHEMA_AND_GAP, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "rules")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    code, out, _ = run_cli(capsys, "validate", "gap.yaml", "--format", "github")
    assert code == 1 and out.startswith("::error file=rules/gap.yaml,line=")


def test_only_rule_files_never_opens_a_fifo(capsys, tmp_path):
    import os

    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    code, out, _ = run_cli(capsys, "validate", "--only-rule-files", str(fifo), "--format", "json")
    assert code == 1 and json.loads(out)[0]["code"] == "MPR407"  # refused, located, no hang
