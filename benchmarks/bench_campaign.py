"""Benchmark: 200 campaign commands on one campaign file (show, sleep, dawn, advance, log, in
turn), each a whole process, against ``python -c pass`` measured in alternation in the same run.

The first command warms the ruleset cache, as the first command of a session at the table does.
Goal: a campaign command with a warm cache at most 3x ``python -c pass``. Prints whether the
measured mprules is installed or a checkout (an editable install is one: its code stamp reads the
size and time of every source file), the median of each command kind and a final JSON line of
the ratios.

Usage: python3 benchmarks/bench_campaign.py [--commands 200] [--no-cache]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _runner import BASELINE, CHARACTERS, installed_env, mprules_command, run_once

CYCLE = [
    ["campaign", "show", "{file}"],
    ["campaign", "sleep", "{file}", "rin", "--hours", "8"],
    ["campaign", "advance", "{file}", "--minutes", "1200"],
    ["campaign", "log", "{file}", "--last", "3"],
    ["campaign", "dawn", "{file}"],
]


# What the measured mprules is: its code stamp says whether it is installed (stamped by its
# dist-info RECORD, one stat) or a checkout, an editable install included (every source file stat'ed).
INSTALL_KIND = ("import interpreter; from rules_dsl import cachefile; "
                "print(cachefile.code_stamp().split()[0], interpreter.__file__)")


def install_kind(mprules: list[str], env: dict[str, str]) -> str:
    """``installed`` or ``checkout (editable)``, with where its package is, as the interpreter of
    the measured ``mprules`` (its script's ``#!`` line, else this one) imports it."""
    python = sys.executable
    if len(mprules) == 1:
        with open(mprules[0], "rb") as script:
            first = script.readline().decode("utf-8", "replace")
        python = first[2:].strip() if first.startswith("#!") else python
    if len(mprules) > 1:  # python -m interpreter: the checkout it runs from
        done = subprocess.run([python, "-c", INSTALL_KIND], capture_output=True, text=True, env=env)
    else:  # not from here: python -c puts the current folder (a checkout?) first on sys.path
        done = subprocess.run([python, "-I", "-c", INSTALL_KIND], capture_output=True, text=True,
                              env=env, cwd=tempfile.gettempdir())
    kind, _, where = done.stdout.strip().partition(" ")
    label = {"installed": "installed (pip install .)",
             "checkout": "checkout (python -m interpreter)" if len(mprules) > 1 else "editable install (a checkout)",
             }.get(kind, "unknown")
    return f"{label}: {where or done.stderr.strip()[-200:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--no-cache", action="store_true", help="measure with the cache off")
    args = parser.parse_args()
    mprules = mprules_command()
    with tempfile.TemporaryDirectory(prefix="mprules-bench-") as tmp:
        work = Path(tmp)
        env = dict(installed_env(), MPRULES_CACHE_DIR=str(work / "cache"))
        if args.no_cache:
            env["MPRULES_NO_CACHE"] = "1"
        (work / "chars.yaml").write_text(CHARACTERS, encoding="utf-8")
        run_once(mprules + ["campaign", "init", "c.mpc", "--characters", "chars.yaml",
                            "--seed", "7"], work, env)
        times: dict[str, list[float]] = {}
        base: list[float] = []
        for i in range(args.commands):
            argv = [part.format(file="c.mpc") for part in CYCLE[i % len(CYCLE)]]
            base.append(run_once(BASELINE, work, env))
            times.setdefault(argv[1], []).append(run_once(mprules + argv, work, env))
        kind = install_kind(mprules, env)
    baseline = statistics.median(base)
    every = [t for ts in times.values() for t in ts]
    print(f"mprules measured: {kind}")
    print(f"python -c pass: {baseline * 1000:.1f} ms (median)")
    for name, ts in times.items():
        print(f"campaign {name:<8} {statistics.median(ts) * 1000:8.1f} ms  "
              f"{statistics.median(ts) / baseline:5.2f}x")
    ratio = statistics.median(every) / baseline
    print(json.dumps({"commands": args.commands, "cache": not args.no_cache, "mprules": kind.split(":")[0],
                      "vs_python_pass": round(ratio, 2), "goal": 3.0}))


if __name__ == "__main__":
    main()
