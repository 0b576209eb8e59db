"""The documentation that must follow the code: docs/codes.md matches the message catalogue, every
bundled rule file carries its editor modeline, and the pre-commit hooks call real commands."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from interpreter import codes
from interpreter.resources import rulesets_dir, schemas_dir
from rules_dsl.errors import MESSAGES

ROOT = Path(__file__).resolve().parent.parent


def test_codes_page_is_up_to_date():
    assert codes.main(["--check"]) == 0, "run: python3 -m interpreter.codes"


def test_every_code_is_listed_once_in_both_languages():
    page = codes.render_page()
    for code, message in MESSAGES.items():
        assert page.count(f"| {code} |") == 1
        assert message.en and message.ja


BUNDLED = sorted(p for manifest in rulesets_dir().rglob("ruleset.yaml")
                 for p in manifest.parent.glob("*.yaml"))


@pytest.mark.parametrize("path", BUNDLED, ids=[str(p.relative_to(rulesets_dir())) for p in BUNDLED])
def test_bundled_files_point_the_editor_at_their_schema(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    prefix = "# yaml-language-server: $schema="
    assert first.startswith(prefix)
    target = (path.parent / first[len(prefix):]).resolve()
    expected = "ruleset.json" if path.name == "ruleset.yaml" else "rule.json"
    assert target == (schemas_dir() / expected).resolve()


def test_pre_commit_hooks_run_mprules():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entries = {hook["id"]: hook["entry"] for hook in hooks}
    assert entries["mprules-validate"] == "mprules validate"
    assert entries["mprules-test"] == "mprules test"
