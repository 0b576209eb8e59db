"""``mprules init DIR`` and ``mprules schemas`` (#24 item 2): a GM's repository that validates
(strict) and tests clean as written, whose every document names its schema, whose editor settings
and workflow point at what is there, and which never overwrites a file."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from interpreter.cli import main
from interpreter.documents.resources import schemas_dir

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(capsys, tmp_path: Path) -> Path:
    code, out, err = cli(capsys, "init", str(tmp_path / "gm"))
    assert code == 0, err
    assert "rules/house/ruleset.yaml" in out and "schemas/" in out
    return tmp_path / "gm"


def written(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_init_writes_a_repository_that_is_clean_and_tested(capsys, repo, monkeypatch):
    assert {".pre-commit-config.yaml", ".github/workflows/rules.yml", ".vscode/settings.json", "README.md",
            "rules/house/ruleset.yaml", "rules/house/weather.yaml", "rules/house/weather_shift.yaml", "schemas/rule.json",
            "schemas/ruleset.json"} <= written(repo)
    manifest = yaml.safe_load((repo / "rules/house/ruleset.yaml").read_text(encoding="utf-8"))
    assert manifest["extends"] == "magipunk"  # the bundled ruleset, by its name
    monkeypatch.chdir(repo)
    assert cli(capsys, "validate", "rules", "--strict") == (0, "", "")
    code, out, _ = cli(capsys, "test", "rules", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0
    assert {e["rule"] for e in data["examples"]} >= {"house.weather", "house.weather_shift"}


def test_the_workflows_commands_pass_on_the_new_repository(capsys, repo, monkeypatch):
    workflow = yaml.safe_load((repo / ".github/workflows/rules.yml").read_text(encoding="utf-8"))
    runs = [step["run"] for step in workflow["jobs"]["rules"]["steps"] if "run" in step]
    commands = [run.split()[1:] for run in runs if run.startswith("mprules ")]
    assert any("--strict" in c for c in commands) and any(c[0] == "test" for c in commands)
    assert any(run.startswith("pip install") and "mprules==" in run for run in runs)
    monkeypatch.chdir(repo)
    for command in commands:
        assert cli(capsys, *command)[0] == 0, command


def test_every_document_names_its_schema_and_the_settings_map_them(repo):
    for path in (repo / "rules").rglob("*.yaml"):
        documents = path.read_text(encoding="utf-8").split("\n---\n")
        for text in documents:
            match = MODELINE.match(text.splitlines()[0])
            assert match, (path, text[:80])
            target = (path.parent / match.group(1)).resolve()
            expected = "ruleset.json" if path.name == "ruleset.yaml" else "rule.json"
            assert target == (repo / "schemas" / expected).resolve() and target.is_file()
    settings = json.loads((repo / ".vscode/settings.json").read_text(encoding="utf-8"))
    for schema in settings["yaml.schemas"]:
        assert (repo / schema).is_file(), schema
    for name in ("rule.json", "ruleset.json", "common.json"):
        assert (repo / "schemas" / name).read_bytes() == (schemas_dir() / name).read_bytes()


@pytest.mark.parametrize("already", ["README.md", "rules/house/weather.yaml", "schemas/rule.json"])
def test_init_never_overwrites_and_writes_nothing_when_it_would(capsys, tmp_path, already):
    target = tmp_path / "gm"
    (target / already).parent.mkdir(parents=True)
    (target / already).write_text("mine\n", encoding="utf-8")
    code, out, err = cli(capsys, "init", str(target))
    assert code == 3 and "MPR026" in err and already in err and out == ""
    assert written(target) == {already} and (target / already).read_text(encoding="utf-8") == "mine\n"


def test_init_refuses_a_file_for_a_directory(capsys, tmp_path):
    (tmp_path / "gm").write_text("", encoding="utf-8")
    code, _, err = cli(capsys, "init", str(tmp_path / "gm"))
    assert code == 3 and "MPR027" in err


def test_init_json_lists_what_it_wrote(capsys, tmp_path):
    code, out, _ = cli(capsys, "init", str(tmp_path / "gm"), "--format", "json")
    data = json.loads(out)
    assert code == 0 and set(data["written"]) == written(tmp_path / "gm")


def test_schemas_prints_where_they_are_and_copies_them(capsys, tmp_path):
    code, out, _ = cli(capsys, "schemas")
    assert code == 0 and Path(out.strip()) == schemas_dir().resolve()
    code, out, _ = cli(capsys, "schemas", "--format", "json")
    data = json.loads(out)
    assert Path(data["rule"]).is_file() and Path(data["ruleset"]).is_file() and "kinds/roll_table.json" in data["files"]
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "rule.json").write_text("old", encoding="utf-8")  # an older copy is refreshed
    code, out, _ = cli(capsys, "schemas", "--copy", str(tmp_path / "s"))
    assert code == 0 and (tmp_path / "s" / "rule.json").read_bytes() == (schemas_dir() / "rule.json").read_bytes()
    assert len(out.splitlines()) == len(data["files"])


def test_a_failed_init_leaves_the_place_as_it_was(capsys, tmp_path):
    target = tmp_path / "gm"
    target.mkdir()
    (target / "schemas").write_text("", encoding="utf-8")  # a file where init makes a folder
    code, _, err = cli(capsys, "init", str(target))
    assert code == 3 and "MPR028" in err
    assert sorted(p.name for p in target.iterdir()) == ["schemas"] and (target / "schemas").is_file()


@pytest.mark.parametrize("argv", [["init", ""], ["schemas", "--copy", ""]])
def test_an_empty_directory_argument_is_refused_and_nothing_written(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, *argv)
    assert code == 2 and "MPR030" in err and list(tmp_path.iterdir()) == []
