"""A non-editable install of the wheel into a fresh virtual environment, then ``mprules validate``
and ``mprules run procurement.rarity`` from another directory: the wheel carries schemas and rulesets.

Offline, and true on a new machine: the wheel is built by the running interpreter with the build
backend the project's ``[test]`` extras installed (``pip wheel --no-build-isolation --no-index``),
then installed with the running pip into a venv that has no site-packages of its own beyond the
wheel; its dependencies (PyYAML, jsonschema, lark) come from the running environment through a
``.pth`` file, which never names the checkout. Skipped only when no build backend can be had
offline (hatchling is not installed where the tests run)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

ROOT = Path(__file__).resolve().parents[2]
DEPENDENCIES = ("yaml", "jsonschema", "referencing", "lark")


def _dependency_dirs() -> list[str]:
    """The folders the running interpreter imports the project's dependencies from (never the
    checkout: the installed package must be the wheel's)."""
    folders = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folders.add(str(Path(spec.origin).resolve().parent.parent))
    root = ROOT.resolve()
    return sorted(f for f in folders if Path(f).resolve() != root and Path(f).is_dir())


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("no build backend offline: hatchling is not installed in the running "
                    "environment (pip install -e '.[test]' installs it)")
    wheels = tmp_path_factory.mktemp("wheels")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--no-cache-dir", "--wheel-dir", str(wheels), str(ROOT)],
        cwd=wheels, capture_output=True, text=True, timeout=300, env=_clean_env())
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next(wheels.glob("mprules-*.whl"))
    env_dir = tmp_path_factory.mktemp("venv")
    try:
        venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    except Exception as error:  # noqa: BLE001 - any failure to create a venv means: cannot test here
        pytest.skip(f"cannot create a virtual environment: {error}")
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True, env=_clean_env()).stdout.strip()
    Path(purelib, "_mprules_test_dependencies.pth").write_text(
        "".join(f"{folder}\n" for folder in _dependency_dirs()), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
         "--no-cache-dir", str(wheel)],
        cwd=wheels, capture_output=True, text=True, timeout=300, env=_clean_env())
    assert result.returncode == 0, result.stdout + result.stderr
    return bindir


def mprules(bindir: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(bindir / "mprules"), *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=_clean_env())


def test_installed_package_is_not_the_checkout(installed, tmp_path):
    code = ("import sys, interpreter, interpreter.documents.resources as r; "
            "print(r.schemas_dir()); print(interpreter.__file__); print('\\n'.join(sys.path))")
    out = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=_clean_env())
    assert out.returncode == 0, out.stderr
    schemas, package, *path = out.stdout.splitlines()
    root = ROOT.resolve()
    assert "_data" in Path(schemas).parts and root not in Path(schemas).resolve().parents
    assert root not in Path(package).resolve().parents
    assert str(root) not in [str(Path(p).resolve()) for p in path if p]
    assert (Path(schemas) / "rule.json").is_file()


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


def test_an_installed_mprules_is_stamped_by_its_record_and_keeps_compiled_code(installed, tmp_path):
    """Installed, the code stamp of every cache is its dist-info RECORD (not a walk over the
    sources), and a second ``eval`` of the same text runs from the kept code."""
    stamp = subprocess.run([str(installed / "python"), "-c",
                            "from rules_dsl import cachefile; print(cachefile.code_stamp())"],
                           cwd=tmp_path, capture_output=True, text=True, env=_clean_env())
    assert stamp.stdout.startswith("installed ") and "RECORD" in stamp.stdout, stamp.stdout + stamp.stderr
    env = dict(_clean_env(), MPRULES_CACHE_DIR=str(tmp_path / "cache"))
    code = ("import sys; from interpreter.cli import main; main(['eval', 'x * 3', '--var', 'x=2']); "
            "print('rules_dsl.parser' in sys.modules)")
    runs = [subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True,
                           text=True, env=env) for _ in range(2)]
    assert [r.stdout.split()[-1] for r in runs] == ["True", "False"], [r.stderr for r in runs]
    assert (tmp_path / "cache" / "expressions.bin").is_file()


def test_installed_readme_main_job_prints_no_warning_or_note(installed, tmp_path):
    """The README's main job on a fresh install: results, and nothing that looks like a problem."""
    outputs = []
    for argv in (["validate"], ["test"], ["check", "3MP15C10", "--prob"],
                 ["diff", str(ROOT / "rulesets" / "magipunk"), str(ROOT / "rulesets" / "examples" / "strict_procurement")]):
        result = mprules(installed, tmp_path, *argv)
        assert result.returncode == 0, (argv, result.stdout, result.stderr)
        outputs.append(result.stdout + result.stderr)
    assert outputs[0] == "" and "MPR" not in "".join(outputs), outputs


def test_installed_bundled_files_print_in_one_style(installed, tmp_path):
    """Installed, a bundled file is ``(bundled) magipunk/...`` in text, JSON and annotations,
    never a site-packages path."""
    text = mprules(installed, tmp_path, "validate", "--include-bundled").stdout
    data = json.loads(mprules(installed, tmp_path, "validate", "--include-bundled", "--format", "json").stdout)
    github = mprules(installed, tmp_path, "validate", "--include-bundled", "--format", "github").stdout
    assert data and all(d["file"].startswith("(bundled) ") for d in data), data
    assert text.splitlines() and all(line.startswith("(bundled) ") for line in text.splitlines()), text
    assert github.splitlines() and all("file=(bundled) " in line for line in github.splitlines()), github
    assert "site-packages" not in text + github + json.dumps(data)


def test_installed_init_makes_a_repository_that_passes(installed, tmp_path):
    """`mprules init` from the wheel: its templates (dot files too) and schemas are there, the
    variant extends the bundled ruleset outside any checkout, and the workflow's checks pass."""
    assert mprules(installed, tmp_path, "init", "gm").returncode == 0
    gm = tmp_path / "gm"
    for name in (".pre-commit-config.yaml", ".github/workflows/rules.yml", ".vscode/settings.json",
                 "rules/house/ruleset.yaml", "schemas/rule.json", "schemas/kinds/roll_table.json"):
        assert (gm / name).is_file(), name
    strict = mprules(installed, gm, "validate", "rules", "--strict", "--format", "github")
    assert (strict.returncode, strict.stdout, strict.stderr) == (0, "", "")
    tested = mprules(installed, gm, "test", "rules")
    assert tested.returncode == 0 and " 0 failed" in tested.stdout, tested.stdout + tested.stderr
    schemas = mprules(installed, gm, "schemas").stdout.strip()
    assert "_data" in Path(schemas).parts and (Path(schemas) / "rule.json").is_file()
