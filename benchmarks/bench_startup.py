"""Time the commands a GM runs at the table, as a user runs them (the installed ``mprules``),
against an empty Python of the same installation, in fresh processes.

    python3 -m venv /tmp/inst && /tmp/inst/bin/pip install .        # a user's install
    python3 benchmarks/bench_startup.py --mprules /tmp/inst/bin/mprules [--runs N] [--no-cache]
    python3 benchmarks/bench_startup.py --checkout [--root DIR]       # this checkout, -m interpreter

Without ``--mprules`` the ``mprules`` beside the running Python (or on ``PATH``) is measured; it
must be an installed command (``pip install .``), and the table says which one and whether it is
an editable install. ``--checkout`` measures ``python -m interpreter`` from a checkout instead
(``--root``, byte-compiled first), for comparing two commits. Each command runs N times (default
9), the commands taking turns so that a change in the machine's load touches them all alike; the
table shows the median wall time in milliseconds and the ratio to ``python -c pass`` of the same
Python (the goal is 3x at most), and a final JSON line has the ratios. Each command runs once
before the timed runs, filling the caches as the first command of a session does (the ruleset
cache, the compiled expressions, the bundled check data); ``--no-cache`` measures with every
cache off instead (``MPRULES_NO_CACHE=1``). Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _runner import find_tool, installed_env

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
INPUT = "item: {materials: [鋼], quality: 標準}\n"
LEISURE = "{table: city, safety: 2, residents: [アキラ, ベル]}\n"


def commands(workdir: Path) -> list[tuple[str, list[str]]]:
    """(label, arguments of mprules) of each command measured."""
    base, variant = str(RULESETS / "magipunk"), str(RULESETS / "examples" / "strict_procurement")
    return [
        ("--version", ["--version"]),
        ("eval 1+1", ["eval", "1+1"]),
        ("check 2MP12", ["check", "2MP12", "--dice", "5,9"]),
        ("check 3MP15C10 --prob", ["check", "3MP15C10", "--prob"]),
        ("run procurement.rarity", ["run", "procurement.rarity", "--input", str(workdir / "in.yaml")]),
        ("run a roll table", ["run", "cohabitation.leisure.city", "--seed", "1"]),
        ("run leisure (input)", ["run", "cohabitation.leisure", "--input", str(workdir / "leisure.yaml"),
                                 "--seed", "3"]),
        ("prob procurement.check", ["prob", "procurement.check", "--var", "intellect=12", "--var",
                                    "item={materials: [鋼], quality: 傑作}"]),
        ("prob a roll table", ["prob", "cohabitation.leisure.city"]),
        ("prob leisure (input)", ["prob", "cohabitation.leisure", "--input", str(workdir / "leisure.yaml")]),
        ("prob an expression", ["prob", "3d6 + 2 >= 12"]),
        ("prob 3MP15C10", ["prob", "3MP15C10"]),
        ("diff magipunk strict", ["diff", base, variant]),
        ("doc magipunk", ["doc", base]),
    ]


def interpreter_of(script: str) -> str:
    """The Python a console script runs with (its ``#!`` line)."""
    first = Path(script).read_bytes().split(b"\n", 1)[0]
    if first.startswith(b"#!"):
        found = first[2:].decode().strip().split()[0]
        if Path(found).is_file():
            return found
    return sys.executable


def describe(python: str) -> str:
    """Where the measured mprules comes from: installed, or an editable install of a checkout."""
    code = ("import importlib.metadata as m, json; d = m.distribution('mprules'); "
            "print(json.dumps([d.version, d.read_text('direct_url.json') or '']))")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        return "not installed"
    version, direct = json.loads(done.stdout)
    editable = bool(direct) and json.loads(direct).get("dir_info", {}).get("editable", False)
    return f"mprules {version}, " + ("editable install (a checkout)" if editable else "installed (pip install .)")


def once_ms(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--mprules", help="the installed mprules command to measure")
    parser.add_argument("--checkout", action="store_true", help="measure python -m interpreter of --root")
    parser.add_argument("--root", default=str(ROOT))
    parser.add_argument("--no-cache", action="store_true", help="measure with every cache off")
    parser.add_argument("--only", nargs="*", help="labels (or their first words) to measure")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "in.yaml").write_text(INPUT, encoding="utf-8")
        (workdir / "leisure.yaml").write_text(LEISURE, encoding="utf-8")
        env = dict(os.environ, MPRULES_CACHE_DIR=str(workdir / "cache"))
        if options.checkout:
            python = sys.executable
            env = installed_env(dict(env, PYTHONPATH=options.root), Path(options.root))
            prefix = [python, "-m", "interpreter"]
            what = f"checkout {options.root} (python -m interpreter)"
        else:
            script = options.mprules or find_tool("mprules")
            if not script:
                raise SystemExit("no installed mprules: pip install . into a venv and pass --mprules")
            python = interpreter_of(script)
            prefix = [script]
            what = f"{script}: {describe(python)}"
        if options.no_cache:
            env["MPRULES_NO_CACHE"] = "1"
        chosen = [(label, args) for label, args in commands(workdir)
                  if not options.only or any(label.startswith(o) for o in options.only)]
        measured = [("python -c pass", [python, "-c", "pass"])] + [
            (label, prefix + args) for label, args in chosen]
        for _, argv in measured:
            once_ms(argv, env, workdir)  # the first command of a session fills the caches
        times: dict[str, list[float]] = {label: [] for label, _ in measured}
        for _ in range(options.runs):
            for label, argv in measured:
                times[label].append(once_ms(argv, env, workdir))
    medians = {label: statistics.median(values) for label, values in times.items()}
    base = medians["python -c pass"]
    print(f"measured: {what}; cache {'off' if options.no_cache else 'warm'}")
    print(f"{'command':26} {'median ms':>10} {'x python -c pass':>17}")
    for label, ms in medians.items():
        print(f"{label:26} {ms:10.1f} {ms / base:17.2f}")
    print(json.dumps({label: round(ms / base, 2) for label, ms in medians.items()
                      if label != "python -c pass"} | {"cache": not options.no_cache, "goal": 3.0,
                                                        "measured": what}, ensure_ascii=False))


if __name__ == "__main__":
    main()
