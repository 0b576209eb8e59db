"""Shared measuring for the whole-process benchmarks: paired runs of a command and of the
baseline ``python -c pass``, interleaved so machine noise hits both alike, reported as medians
and their ratio. Peers are found next to ``sys.executable`` as well as on ``PATH``."""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "pass"]

# The characters of the campaign benchmarks: two PCs, one with an item that holds cards.
CHARACTERS = """\
characters:
  - id: rin
    name: リン
    hand_size: 4
    items:
      - {id: a_battery, name: Aバッテリー, held_size: 2}
  - id: kai
    name: カイ
    hand_size: 4
"""


def find_tool(name: str) -> str | None:
    """A console script next to the running interpreter (a venv that is not activated), else on
    ``PATH``."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def mprules_command() -> list[str]:
    found = find_tool("mprules")
    return [found] if found else [sys.executable, "-m", "interpreter"]


def installed_env(base: dict | None = None, root: Path = ROOT) -> dict[str, str]:
    """The environment of a command run as an installed mprules runs: the modules of the checkout
    ``root`` byte-compiled (as pip leaves them) and bytecode allowed, whatever
    ``PYTHONDONTWRITEBYTECODE`` says here."""
    import compileall

    for package in ("rules_dsl", "interpreter"):
        compileall.compile_dir(str(root / package), quiet=1)
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(argv: Sequence[str], cwd: Path | None = None, env: dict | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({result.returncode}): "
                         f"{result.stderr.decode(errors='replace')[-500:]}")
    return elapsed


def paired(argv: Sequence[str], runs: int, cwd: Path | None = None,
           env: dict | None = None) -> tuple[float, float]:
    """Median seconds of ``argv`` and of the baseline, measured in alternation."""
    ours, base = [], []
    run_once(argv, cwd, env)  # warm the file cache (and the ruleset cache)
    for _ in range(runs):
        base.append(run_once(BASELINE, cwd, env))
        ours.append(run_once(argv, cwd, env))
    return statistics.median(ours), statistics.median(base)
