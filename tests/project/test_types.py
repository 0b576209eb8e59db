"""The type check of the code: ``python -m mypy`` with the configuration of ``pyproject.toml``
(strict for the expression language and the engine, mypy's defaults elsewhere) finds nothing."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_finds_nothing() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir",
                           str(ROOT / ".mypy_cache")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
