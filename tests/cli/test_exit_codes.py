"""Exit codes are the same for every command (docs/exit-codes.md): 0 ok, 1 findings or refused
input, 2 usage, 3 state or I/O error, 70 a bug, reported in one line asking for a bug report
with the traceback only under --debug."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from interpreter.reports import codes
from interpreter.cli import main
from rules_dsl.errors import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_STATE, EXIT_USAGE, MESSAGES

from campaign_support import make_campaign  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "broken"
GOOD_RULE = ROOT / "rulesets" / "magipunk" / "procurement.yaml"
GOOD_INPUT = "item: {materials: [鋼], quality: 傑作, design: null, ma_gear: null, vehicle: null}\n"
ILLEGAL_PLAN = ("before: {body: 12, sense: 12, intellect: 12, magic: 9}\n"
                "after: {body: 21, sense: 8, intellect: 10, magic: 6}\n")  # an ability above 20


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("exit")
    (tmp / "good.yaml").write_text(GOOD_INPUT, encoding="utf-8")
    (tmp / "bad.yaml").write_text("item: 12\n", encoding="utf-8")
    (tmp / "chars.yaml").write_text("characters: [{id: a, hand_size: 2}]\n", encoding="utf-8")
    (tmp / "notes.txt").write_text("not a campaign\n", encoding="utf-8")
    (tmp / "illegal.yaml").write_text(ILLEGAL_PLAN, encoding="utf-8")
    (tmp / "bad_plan.yaml").write_text(ILLEGAL_PLAN + "to_money: -1\n", encoding="utf-8")
    return {"tmp": str(tmp), "campaign": make_campaign(tmp), **{
        name: str(tmp / name) for name in ("good.yaml", "bad.yaml", "chars.yaml", "notes.txt",
                                           "illegal.yaml", "bad_plan.yaml")}}


# (argv, exit, first code printed): every verb at every exit status it can reach.
TABLE = [
    (["eval", "1 + 2"], EXIT_OK, None),
    (["eval", "1 +"], EXIT_FINDINGS, "MPR1"),
    (["eval", "1/0"], EXIT_FINDINGS, "MPR141"),
    (["eval"], EXIT_USAGE, "MPR001"),
    (["eval", "1", "--bogus"], EXIT_USAGE, "MPR001"),
    (["eval", "x", "--var", "x=[1,"], EXIT_USAGE, "MPR013"),
    (["eval", "2d6", "--dice", "a,b"], EXIT_USAGE, "MPR154"),
    (["check", "3MP15C10", "--seed", "1"], EXIT_OK, None),
    (["check", "3MP"], EXIT_FINDINGS, "MPR010"),
    (["check", "3MP15", "--prob", "--seed", "1"], EXIT_USAGE, "MPR001"),
    (["prob", "2d6 >= 7"], EXIT_OK, None),
    (["prob", "2d6 >="], EXIT_FINDINGS, "MPR1"),
    (["prob", "2d6", "--input", "{tmp}/missing.yaml"], EXIT_STATE, "MPR014"),
    (["validate", str(GOOD_RULE)], EXIT_OK, None),
    (["validate", str(BROKEN / "yaml" / "alias_bomb.yaml")], EXIT_FINDINGS, "MPR972"),
    (["validate", "--format", "xml"], EXIT_USAGE, "MPR001"),
    (["validate", "{tmp}/missing.yaml"], EXIT_USAGE, "MPR020"),
    (["test", str(GOOD_RULE)], EXIT_OK, None),
    (["test", str(BROKEN / "schema" / "bad_id.yaml")], EXIT_FINDINGS, None),
    (["test", "{tmp}/missing.yaml"], EXIT_USAGE, "MPR020"),
    (["run", "procurement.rarity", "--input", "{good.yaml}"], EXIT_OK, None),
    (["run", "procurement.rarity", "--input", "{bad.yaml}"], EXIT_FINDINGS, "MPR500"),
    (["run", "no.such.rule"], EXIT_FINDINGS, "MPR401"),
    (["run", "procurement.rarity", "--param", "x=1"], EXIT_USAGE, "MPR021"),
    (["run", "procurement.rarity", "--input", "{tmp}/missing.yaml"], EXIT_STATE, "MPR200"),
    (["run", "procurement.rarity", "--input", "{tmp}"], EXIT_STATE, "MPR220"),
    (["run", "rebuild.abilities", "--input", "{illegal.yaml}"], EXIT_OK, None),  # legal: false
    (["run", "rebuild.abilities", "--input", "{bad_plan.yaml}"], EXIT_FINDINGS, "MPR802"),
    (["run", "rebuild.abilities", "--input", "{tmp}/missing.yaml"], EXIT_STATE, "MPR200"),
    (["campaign", "show", "{campaign}"], EXIT_OK, None),
    (["campaign", "sleep", "{campaign}", "nobody", "--hours", "8"], EXIT_FINDINGS, "MPR6"),
    (["campaign", "sleep", "{campaign}", "alice"], EXIT_USAGE, "MPR001"),
    (["campaign", "circulate", "{campaign}", "alice", "--cards", ",,"], EXIT_USAGE, "MPR040"),
    (["campaign", "show", "{tmp}/missing.db"], EXIT_STATE, "MPR623"),
    (["campaign", "show", "{notes.txt}"], EXIT_STATE, "MPR620"),
    (["campaign", "init", "{campaign}", "--characters", "{chars.yaml}"], EXIT_FINDINGS, "MPR624"),
    (["campaign", "init", "{tmp}/new.db", "--characters", "{tmp}/missing.yaml"], EXIT_STATE, "MPR"),
    (["diff", "rulesets/magipunk"], EXIT_USAGE, "MPR001"),
    (["doc", "--bogus"], EXIT_USAGE, "MPR001"),
    (["no-such-verb"], EXIT_USAGE, "MPR001"),
    ([], EXIT_USAGE, None),
]


def _argv(argv: list[str], files: dict[str, str]) -> list[str]:
    return [re.sub(r"\{([^}]+)\}", lambda m: files[m.group(1)], a) for a in argv]


@pytest.mark.parametrize("argv, status, code", TABLE, ids=[" ".join(t[0])[:60] or "no verb"
                                                         for t in TABLE])
def test_exit_status_of_every_verb(argv, status, code, files, capsys) -> None:
    assert main(_argv(argv, files)) == status
    out, err = capsys.readouterr()
    printed = re.findall(r"\bMPR\d{3}\b", err + out)
    if code:
        assert printed and printed[0].startswith(code), err + out
    assert "Traceback" not in err + out
    if status in (EXIT_USAGE, EXIT_STATE) and code:
        assert err.strip(), "an error is printed on standard error"


@pytest.mark.parametrize("verb", ["validate", "test"])
def test_an_unreadable_path_operand_is_a_usage_error(verb, files, capsys, monkeypatch) -> None:
    """Exit 2 (usage) for a PATH of validate (and test) that cannot be read, as docs/exit-codes.md
    says; the check
    asks os.access, which says yes to root, so the test makes it say no."""
    import os

    real = os.access
    unreadable = files["good.yaml"]
    monkeypatch.setattr(os, "access", lambda path, mode, *rest, **kw:
                        str(path) != unreadable and real(path, mode, *rest, **kw))
    assert main([verb, unreadable]) == EXIT_USAGE
    assert re.findall(r"\bMPR\d{3}\b", capsys.readouterr().err)[:1] == ["MPR024"]


def test_every_message_has_a_documented_exit_status() -> None:
    codes.load_all_modules()
    page = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    for status in (EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_STATE, EXIT_INTERNAL):
        assert f"| {status} |" in page
    for code, message in MESSAGES.items():
        assert message.exit_code in (EXIT_FINDINGS, EXIT_USAGE, EXIT_STATE, EXIT_INTERNAL), code
        assert (message.exit_code == EXIT_INTERNAL) == (code == "MPR000"), code


def test_every_code_the_page_names_has_the_status_it_is_listed_under() -> None:
    """A code named in a row of the table (or in the note on files that cannot be used) exits
    with that row's status: the page says only what the code does."""
    codes.load_all_modules()
    page = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    named = 0
    for status, row in re.findall(r"^\| (\d+) \|(.*)$", page, re.M):
        for first, last in re.findall(r"MPR(\d{3})(?:-MPR(\d{3}))?", row):
            for number in range(int(first), int(last or first) + 1):
                assert MESSAGES[f"MPR{number:03d}"].exit_code == int(status), (number, status)
                named += 1
    note = page[page.index("A file that cannot be used"):]
    note = note[:note.index("\n- ")]
    usage, state = note.split("Every other file")
    for text, status in ((usage, EXIT_USAGE), (state, EXIT_STATE)):
        for first, last in re.findall(r"MPR(\d{3})(?:-MPR(\d{3}))?", text):
            for number in range(int(first), int(last or first) + 1):
                assert MESSAGES[f"MPR{number:03d}"].exit_code == status, (number, status)
                named += 1
    assert named > 20


# A bug in each verb: the function it calls first raises an exception mprules does not expect.
BUGS = [
    (["eval", "1"], "rules_dsl", "compile_expression"),
    (["prob", "2d6"], "rules_dsl", "compile_expression"),
    (["check", "3MP15"], "interpreter.solvers.pool_notation", "parse_notation"),
    (["validate", str(GOOD_RULE)], "interpreter.checks.validation", "validate_paths"),
    (["test", str(GOOD_RULE)], "interpreter.checks.kept", "examples_of"),
    (["run", "procurement.rarity", "--input", "{good.yaml}"], "interpreter.engine.runner", "run"),
    (["campaign", "show", "{campaign}"], "interpreter.campaign.views", "show"),
    (["diff", "rulesets/magipunk", "rulesets/examples/strict_procurement"], "interpreter.reports.kept_output",
     "Asked"),  # the kept output is looked up first
    (["doc"], "interpreter.reports.kept_output", "Asked"),
]
ERRORS = [RuntimeError("boom"), KeyError("k"), RecursionError("maximum recursion depth exceeded"),
          MemoryError(), ZeroDivisionError("division by zero")]


def _raiser(error: BaseException):
    def raising(*args, **kwargs):
        raise error
    return raising


@pytest.mark.parametrize("argv, module, name", BUGS, ids=[b[0][0] for b in BUGS])
@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_a_bug_is_one_line_asking_for_a_report(argv, module, name, error, files, capsys,
                                               monkeypatch) -> None:
    import importlib

    monkeypatch.setattr(importlib.import_module(module), name, _raiser(error))
    assert main(_argv(argv, files)) == EXIT_INTERNAL
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "MPR000" in lines[0] and "report" in lines[0], err
    assert type(error).__name__ in lines[0]
    assert "Traceback" not in err + out


@pytest.mark.parametrize("lang, word", [("en", "report"), ("ja", "報告")])
def test_debug_shows_the_traceback(lang, word, files, capsys, monkeypatch) -> None:
    import rules_dsl

    monkeypatch.setattr(rules_dsl, "compile_expression", _raiser(RuntimeError("boom")))
    assert main(["--lang", lang, "eval", "1", "--debug"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err
    assert err.strip().splitlines()[-1].count(word) == 1


def test_the_console_script_exits_with_the_status(tmp_path) -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "interpreter", "eval", "1 +"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == EXIT_FINDINGS and "MPR1" in done.stderr
    done = subprocess.run([sys.executable, "-m", "interpreter", "campaign", "show",
                           str(tmp_path / "none.db")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == EXIT_STATE and "MPR623" in done.stderr


@pytest.mark.parametrize("argv, code, status", [
    (["run", "procurement.rarity", "--ruleset", "{missing}"], "MPR414", 3),
    (["prob", "procurement.check", "--ruleset", "{missing}"], "MPR414", 3),
    (["run", "procurement.rarity", "--ruleset", "{empty}"], "MPR407", 2),
])
def test_a_ruleset_option_that_names_no_ruleset(tmp_path, capsys, argv, code, status):
    (tmp_path / "empty").mkdir()
    paths = {"missing": str(tmp_path / "missing"), "empty": str(tmp_path / "empty")}
    assert main([arg.format(**paths) for arg in argv]) == status
    assert code in capsys.readouterr().err


# With --format json, a refusal is a JSON document on standard output as well as its message on
# standard error: {"error": {...}} with the fields of a validate finding (validate and test write
# their own shapes).
JSON_REFUSALS = [
    (["eval", "1 +", "--format", "json"], EXIT_FINDINGS, "MPR112", (1, 4)),
    (["eval", "x", "--var", "x=[1,", "--format", "json"], EXIT_USAGE, "MPR013", (None, None)),
    (["check", "3MP", "--format", "json"], EXIT_FINDINGS, "MPR010", (None, None)),
    (["prob", "2d6 >=", "--format", "json"], EXIT_FINDINGS, "MPR112", (1, 7)),
    (["run", "procurement.rarity", "--input", "{bad.yaml}", "--format", "json"], EXIT_FINDINGS, "MPR500",
     (1, 7)),
    (["run", "no.such.rule", "--format", "json"], EXIT_FINDINGS, "MPR401", (None, None)),
    (["campaign", "show", "{tmp}/missing.db", "--format", "json"], EXIT_STATE, "MPR623", (None, None)),
]


@pytest.mark.parametrize("argv, status, code, where", JSON_REFUSALS,
                         ids=[" ".join(t[0])[:60] for t in JSON_REFUSALS])
def test_a_refusal_is_json_with_format_json(argv, status, code, where, files, capsys) -> None:
    import json

    assert main(_argv(argv, files)) == status
    out, err = capsys.readouterr()
    refusal = json.loads(out)["error"]
    assert (refusal["code"], refusal["exit"], refusal["severity"]) == (code, status, "error")
    assert (refusal["line"], refusal["column"]) == where
    assert code in err and refusal["message"] in err  # the message on stderr too
    main(_argv([a for a in argv if a not in ("--format", "json")], files))
    assert capsys.readouterr().out == ""  # text output: nothing on stdout
