"""Time the start-up of the commands a GM runs most, against an empty Python, in fresh processes.

    python3 benchmarks/bench_startup.py [--runs N] [--root DIR]

The code is byte-compiled first (as an installed package is). Each command runs N times (default 9); the table shows the median wall time in milliseconds and the
median over ``python -c pass``. ``--root`` runs another checkout's code (e.g. an older commit
extracted with ``git archive``) for a before/after comparison. Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [
    ("python -c pass", ["-c", "pass"]),
    ("import rules_dsl", ["-c", "import rules_dsl"]),
    ("mprules eval 1+1", ["-m", "interpreter", "eval", "1+1"]),
    ("mprules check 2MP12", ["-m", "interpreter", "check", "2MP12", "--dice", "5,9"]),
]


def median_ms(args: list[str], runs: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    options = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=options.root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: so here
    for package in ("rules_dsl", "interpreter"):
        compileall.compile_dir(str(Path(options.root) / package), quiet=1)
    base = None
    print(f"{'command':24} {'median ms':>10} {'over python -c pass':>20}")
    for label, args in COMMANDS:
        ms = median_ms(args, options.runs, env)
        base = ms if base is None else base
        print(f"{label:24} {ms:10.1f} {ms - base:20.1f}")


if __name__ == "__main__":
    main()
