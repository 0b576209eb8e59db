"""The documentation that must follow the code: docs/codes.md matches the message catalogue, every
bundled rule file carries its editor modeline, and the pre-commit hooks call real commands."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from interpreter.reports import codes
from interpreter.documents.resources import rulesets_dir, schemas_dir
from rules_dsl.errors import MESSAGES

ROOT = Path(__file__).resolve().parents[2]


def test_codes_page_is_up_to_date():
    assert codes.main(["--check"]) == 0, "run: python3 -m interpreter.reports.codes"


def test_every_code_is_listed_once_in_both_languages():
    page = codes.render_page()
    for code, message in MESSAGES.items():
        assert page.count(f"| {code} |") == 1
        assert message.en and message.ja


BUNDLED = sorted(p for manifest in rulesets_dir().rglob("ruleset.yaml")
                 for p in manifest.parent.glob("*.yaml"))


@pytest.mark.parametrize("path", BUNDLED, ids=[str(p.relative_to(rulesets_dir())) for p in BUNDLED])
def test_bundled_files_point_the_editor_at_their_schema(path):
    """Every document names its schema: yaml-language-server reads a modeline from each
    document's own header comments (after its `---`), so the first line serves the first
    document only (tests/documents/test_editor.py shows it over LSP)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    prefix = "# yaml-language-server: $schema="
    assert lines[0].startswith(prefix)
    target = (path.parent / lines[0][len(prefix):]).resolve()
    expected = "ruleset.json" if path.name == "ruleset.yaml" else "rule.json"
    assert target == (schemas_dir() / expected).resolve()
    starts = [i for i, line in enumerate(lines) if line.strip() == "---"]
    assert [lines[i + 1] if i + 1 < len(lines) else "" for i in starts] == [lines[0]] * len(starts)


def test_pre_commit_hooks_run_mprules():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entries = {hook["id"]: hook["entry"] for hook in hooks}
    assert entries["mprules-validate"] == "mprules validate --only-rule-files"
    assert entries["mprules-test"] == "mprules test --only-rule-files"
    assert all(hook.get("pass_filenames", True) for hook in hooks)  # the GM's changed files


COMMANDS = yaml.safe_load((ROOT / "tests" / "broken" / "commands.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("code", sorted(COMMANDS))
def test_each_command_example_reports_its_code(code, capsys, monkeypatch):
    import io
    import shlex

    from interpreter.cli import main

    example = COMMANDS[code]
    assert set(example) <= {"command", "stdin"}  # an unquoted comma in a flow mapping splits it
    argv = shlex.split(example["command"])
    assert argv[0] == "mprules"
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(example.get("stdin", "").encode())))
    status = main(argv[1:])
    out, err = capsys.readouterr()
    assert code in out + err
    assert status in (0, 1, 2, 3)
    assert f"`{codes.shell_line(example)}`".replace("|", "\\|") in codes.render_page()


# The codes of this area (documents, schema, semantic checks, ruleset loading, validate/run/test,
# run inputs, the table kinds) that no corpus file or command can show, and why.
NO_EXAMPLE = {
    "MPR024": "permission denied: depends on file modes, which root ignores",
    "MPR201": "a file over 4 MB (a rule file) or 1 MB (an input): too large for an example; the "
              "hostile corpus shows it (yaml-file-over-the-size-limit, run-input-2mb)",
    "MPR211": "a file of more than 1,000,000 values (2 MB and more, past what aliases may copy): "
              "too large for an example; tests/documents/test_documents.py shows it",
    "MPR314": "only inside MPR500, for a GM's inputs schema with oneOf",
    "MPR318": "only inside MPR500, for a GM's inputs schema with not",
    "MPR319": "only inside MPR500, for a GM's inputs schema with a rare keyword",
    "MPR322": "a programming error: a schema name that is not in schemas/",
    "MPR356": "a kind's own checks crashing: a programming error, reported instead of a traceback",
    "MPR501": "the command line refuses such an input first (MPR022); only through the Python API",
    "MPR516": "an input roll is an integer by the schema, and the semantic checks refuse a roll "
              "expression that is not whole (MPR375)",
}
AREA = ("MPR02", "MPR2", "MPR3", "MPR40", "MPR41", "MPR50", "MPR51")


def test_every_code_of_this_area_has_an_example_or_a_reason():
    page = codes.render_page()
    rows = {line.split(" | ")[0][2:]: line for line in page.splitlines() if line.startswith("| MPR")}
    without = {code for code, line in rows.items()
               if code.startswith(AREA) and code not in ("MPR401", "MPR403", "MPR404")
               and line.endswith("|  |")}
    assert without == set(NO_EXAMPLE)
