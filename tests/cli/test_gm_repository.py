"""A GM's repository end to end (#24, Show): `mprules init` in a fresh git repository, the real
pre-commit with the configuration init wrote, and the shipped workflow's commands.

The configuration uses `repo: local` hooks with `language: system`: they run the mprules that is
installed (the one that wrote the schemas), offline. A `repo:` pointing at mprules'
`.pre-commit-hooks.yaml` makes pre-commit build a virtualenv and pip-install mprules with its
build backend (hatchling) and dependencies, which needs a package index: not offline."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    beside = BIN / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]' installs pre-commit)")
    return found


@pytest.fixture
def gm(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "GM",
           "GIT_AUTHOR_EMAIL": "gm@example.invalid", "GIT_COMMITTER_NAME": "GM",
           "GIT_COMMITTER_EMAIL": "gm@example.invalid", "MPRULES_CACHE_DIR": str(tmp_path / "cache"),
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # no signing, hooksPath...
    env.pop("GITHUB_WORKSPACE", None)
    root = tmp_path / "house-rules"
    done = subprocess.run([tool("mprules"), "init", str(root)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    git = tool("git")
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run([git, *command], cwd=root, env=env, check=True, timeout=60)
    subprocess.run([tool("pre-commit"), "install"], cwd=root, env=env, check=True, timeout=120,
                   capture_output=True)
    return root, env


def commit(root: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess:
    subprocess.run([tool("git"), "add", "-A"], cwd=root, env=env, check=True, timeout=60)
    return subprocess.run([tool("git"), "commit", "-q", "-m", message], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


BLOCKED = [
    # (what the GM does, the file, the change, the hook that blocks it, what it says, where)
    ("a misspelt kind", "rules/house/weather.yaml", "kind: RollTable", "kind: RollTabel",
     "mprules-validate", "MPR312", "rules/house/weather.yaml:5:7"),
    ("a roll gap", "rules/house/weather.yaml", "roll: [4, 5]", "roll: 4",
     "mprules-validate", "MPR370", "rules/house/weather.yaml:"),
    ("a failing example", "rules/house/weather.yaml", "expect: {id: rain}", "expect: {id: clear}",
     "mprules-test", "1 failed", "FAIL rules/house/weather.yaml:"),
    ("a bad manifest", "rules/house/ruleset.yaml", "\nextends: magipunk\n", "\nextends: magipunkk\n",
     "mprules-validate", "MPR410", "rules/house/ruleset.yaml:"),
]


def test_a_fresh_repository_commits_and_its_workflow_passes(gm):
    root, env = gm
    done = commit(root, env, "house rules")
    assert done.returncode == 0, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert "mprules validate" in output and "Passed" in output and "Failed" not in output
    workflow = yaml.safe_load((root / ".github/workflows/rules.yml").read_text(encoding="utf-8"))
    for step in workflow["jobs"]["rules"]["steps"]:
        run = step.get("run", "")
        if run.startswith("mprules "):
            ran = subprocess.run(run, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=300)
            assert ran.returncode == 0, (run, ran.stdout, ran.stderr)
            assert "--strict" not in run or ran.stdout == ""  # nothing the GM must look at


@pytest.mark.parametrize("what, file, old, new, hook, says, where", BLOCKED, ids=[b[0] for b in BLOCKED])
def test_pre_commit_blocks_a_bad_rule_file_located(gm, what, file, old, new, hook, says, where):
    root, env = gm
    assert commit(root, env, "house rules").returncode == 0
    edit(root / file, old, new)
    done = commit(root, env, what)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert f"- hook id: {hook}" in output and says in output and where in output, output
    log = subprocess.run([tool("git"), "log", "--oneline"], cwd=root, env=env, capture_output=True, text=True)
    assert len(log.stdout.splitlines()) == 1  # nothing was committed


def test_other_yaml_is_not_validated(gm):
    root, env = gm
    edit(root / ".pre-commit-config.yaml", "repos:", "# edited\nrepos:")
    (root / "inputs").mkdir()
    (root / "inputs" / "procurement.yaml").write_text("item: {materials: [鋼], quality: 傑作}\n", encoding="utf-8")
    done = commit(root, env, "config and an input")
    assert done.returncode == 0, done.stdout + done.stderr
