"""A non-editable ``pip install .`` into a fresh virtual environment, then ``mprules validate`` and
``mprules run procurement.rarity`` from another directory: the wheel carries schemas and rulesets.

Offline and fast: the venv sees the system site-packages (PyYAML, jsonschema, lark, hatchling and
pip itself, so it is created without its own pip) and pip builds without isolation or dependency
resolution. Skipped only if a venv cannot be created."""
from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("venv")
    try:
        venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    except Exception as error:  # noqa: BLE001 - any failure to create a venv means: cannot test here
        pytest.skip(f"cannot create a virtual environment: {error}")
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    build = tmp_path_factory.mktemp("build")
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
         "--no-cache-dir", str(ROOT)],
        cwd=build, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return bindir


def mprules(bindir: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(bindir / "mprules"), *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


def test_installed_package_is_not_the_checkout(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([str(installed / "python"), "-c",
                          "import interpreter.resources as r; print(r.schemas_dir())"],
                         cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    schemas = Path(out.stdout.strip())
    assert "_data" in schemas.parts and ROOT not in schemas.parents
    assert (schemas / "rule.json").is_file()


def test_installed_validate(installed, tmp_path):
    result = mprules(installed, tmp_path, "validate", "--format", "json")
    findings = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [f for f in findings if f["severity"] == "error"] == []


def test_installed_run_rarity(installed, tmp_path):
    (tmp_path / "item.yaml").write_text(
        "item: {materials: [魔銀糸], quality: 傑作, design: 絢爛, ma_gear: null, vehicle: null}\n",
        encoding="utf-8")
    result = mprules(installed, tmp_path, "run", "procurement.rarity", "--input", "item.yaml",
                     "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["value"] == 2 + 3 + 2


def test_installed_version(installed, tmp_path):
    result = mprules(installed, tmp_path, "--version")
    assert result.returncode == 0 and result.stdout.startswith("mprules ")
