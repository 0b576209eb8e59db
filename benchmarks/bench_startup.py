"""Benchmark: start-up of the commands a GM types at the table (``--version``, ``check 2MP12``,
``eval 1+1``), each against ``python -c pass`` in the same run (medians of paired runs).

Goal: each at most 3x ``python -c pass``. Prints a table and a final JSON line of the ratios.

Usage: python3 benchmarks/bench_startup.py [--runs 15]
"""
from __future__ import annotations

import argparse
import json

from _runner import mprules_command, paired

COMMANDS = {
    "--version": ["--version"],
    "check 2MP12": ["check", "2MP12", "--seed", "1"],
    "eval 1+1": ["eval", "1+1"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    mprules = mprules_command()
    ratios = {}
    print(f"{'command':<14} {'mprules':>10} {'python -c pass':>15} {'ratio':>7}")
    for name, argv in COMMANDS.items():
        ours, base = paired(mprules + argv, args.runs)
        ratios[name] = round(ours / base, 2)
        print(f"{name:<14} {ours * 1000:>8.1f}ms {base * 1000:>13.1f}ms {ours / base:>6.2f}x")
    print(json.dumps({"vs_python_pass": ratios, "goal": 3.0}))


if __name__ == "__main__":
    main()
