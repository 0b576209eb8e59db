"""Time the start-up of the commands a GM runs most, against an empty Python, in fresh processes.

    python3 benchmarks/bench_startup.py [--runs N] [--root DIR] [--no-cache]

The code is byte-compiled first (as an installed package is). Each command runs N times (default
9), the commands taking turns so that a change in the machine's load touches them all alike; the
table shows the median wall time in milliseconds and the ratio to ``python -c pass`` (the goal is
3x at most), and a final JSON line has the ratios. ``--root`` runs another checkout's code (e.g. an older commit
extracted with ``git archive``) for a before/after comparison. Each command runs once before the
timed runs, filling the caches as the first command of a session does (the stored parse tables, the
bundled check data, the compiled code of ``1+1`` and of the check's conditions); ``--no-cache``
measures with every cache off instead (``MPRULES_NO_CACHE=1``: each command parses and compiles).
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _runner import installed_env

COMMANDS = [
    ("python -c pass", ["-c", "pass"]),
    ("mprules --version", ["-m", "interpreter", "--version"]),
    ("mprules eval 1+1", ["-m", "interpreter", "eval", "1+1"]),
    ("mprules check 2MP12", ["-m", "interpreter", "check", "2MP12", "--dice", "5,9"]),
]


def once_ms(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--no-cache", action="store_true", help="measure with every cache off")
    options = parser.parse_args()
    env = installed_env(dict(os.environ, PYTHONPATH=options.root), Path(options.root))
    if options.no_cache:
        env["MPRULES_NO_CACHE"] = "1"
    for _, args in COMMANDS:
        once_ms(args, env)  # the first command of a session fills the caches
    times: dict[str, list[float]] = {label: [] for label, _ in COMMANDS}
    for _ in range(options.runs):
        for label, args in COMMANDS:
            times[label].append(once_ms(args, env))
    medians = {label: statistics.median(values) for label, values in times.items()}
    base = medians[COMMANDS[0][0]]
    print(f"{'command':24} {'median ms':>10} {'x python -c pass':>17}")
    for label, ms in medians.items():
        print(f"{label:24} {ms:10.1f} {ms / base:17.2f}")
    print(json.dumps({label: round(ms / base, 2) for label, ms in medians.items()
                      if label != COMMANDS[0][0]} | {"cache": not options.no_cache, "goal": 3.0}))


if __name__ == "__main__":
    main()
