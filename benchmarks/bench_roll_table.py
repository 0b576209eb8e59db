"""Benchmark: roll tables of N rows (dice giving 1..N evenly, one number per row). Table lookups
are an index (the rows' spans sorted, found by bisection) and the checks of gaps and overlaps work
over spans, so each figure grows about linearly in N; this prints the seconds per size and, per
figure, the cost per row at the largest size over that at the smallest (near 1: linear; the old
row-by-row scan made ``prob`` quadratic: 10,000 rows 7.9 s, 100,000 rows 773 s).

In-process (any N; the table is built in memory, as a variant chain of many layers would give
it): the kind's checks (``validate``), ``prob``, ``run``, a leisure-style ``table_rows`` over a
span, and ``export bcdice`` of an ``N``-row ``1dN`` table where BCDice's nDm allows (N ≤ 1,000
faces in the expression language). As the installed command (N up to what one rule file of at
most ``MAX_RULE_FILE_BYTES``, 4,000,000 bytes and 1,000,000 values, holds: 100,000 rows are
2.98 MB and 300,010 values): ``mprules prob RULE`` cold (an empty cache: the file is read,
checked and cached) and warm, ``mprules run RULE`` the same, then ``validate --no-cache``; each
with its CPU seconds and peak memory (the child's maximum resident set, from ``os.wait4``).
Times are CPU seconds (the process's own, or a command's user + system), so that a machine
busy with other work does not inflate them. Not a timed test: it asserts nothing about time.

Usage: python3 benchmarks/bench_roll_table.py [--rows 1000 10000 100000] [--cli-rows 1000 10000 100000] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _runner import installed_env, mprules_command  # noqa: E402

MANIFEST = 'id: big\nversion: "1.0.0"\ntitle: {en: big}\n'


def roll_of(rows: int) -> str:
    """Dice giving 1..rows evenly (a die has at most 1,000 faces: a hundreds die over a 1,000 die)."""
    if rows <= 1000:
        return f"1d{rows}"
    if rows % 1000:
        raise SystemExit("a size above 1000 must be a multiple of 1000")
    return f"(1d{rows // 1000} - 1) * 1000 + 1d1000"


def table_text(rows: int) -> str:
    """A RollTable of ``rows`` rows over dice giving 1..rows, as one compact YAML document."""
    lines = ["id: big.table", "kind: RollTable", "source: bench", "title: {ja: 大きな表, en: A big table}",
             f"params: {{roll: '{roll_of(rows)}'}}", "rows:"]
    lines += [f"  - {{roll: {n}, id: r{n}}}" for n in range(1, rows + 1)]
    return "\n".join(lines) + "\n"


def timed(fn) -> float:
    """The CPU seconds ``fn`` takes (``time.process_time``: on a shared machine, the wall clock
    counts the other processes' turns too)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def in_process(rows: int, base: Path) -> dict[str, float]:
    # start-up: the modules load after the arguments are read (as a command would)
    from interpreter.checks.loading import load_ruleset
    from interpreter.engine import runner
    from interpreter.kinds import roll_table
    from interpreter.reports.export import bcdice_table
    from interpreter.ruleset.model import Rule
    from interpreter.solvers.roll_rows import row_index, table_range
    from rules_dsl.dice import SeededDice

    root = base / "in_process"
    root.mkdir(parents=True, exist_ok=True)
    (root / "ruleset.yaml").write_text(MANIFEST, encoding="utf-8")
    (root / "big.yaml").write_text(table_text(6), encoding="utf-8")
    ruleset = load_ruleset(root)
    doc = {"id": "big.table", "kind": "RollTable", "source": "bench", "title": {"en": "A big table"},
           "params": {"roll": roll_of(rows)},
           "rows": [{"roll": n, "id": f"r{n}", "text": {"ja": f"出来事{n}", "en": f"Event {n}"}}
                    for n in range(1, rows + 1)]}
    rule = Rule("big.table", "RollTable", doc, params=dict(doc["params"]), file=str(root / "big.yaml"))
    ruleset.rules["big.table"] = rule
    figures = {"check": timed(lambda: list(roll_table.check(rule, ruleset))),
               "prob": timed(lambda: runner.distribution(ruleset, "big.table")),
               "run": timed(lambda: runner.run(ruleset, "big.table", {}, SeededDice(1)))}
    lo, hi = table_range(rule)
    figures["lookup_every_roll"] = timed(lambda: [row_index(rule).row_for(n) for n in range(lo, hi + 1)])
    if rows <= 1000:
        rule.doc["params"]["roll"] = rule.params["roll"] = f"1d{rows}"
        rule._compiled.clear()
        figures["export_bcdice"] = timed(lambda: bcdice_table(ruleset, "big.table"))
    return figures


PEAKS: dict[str, float] = {}  # a command's peak memory in MB, by its figure's name


def command(root: Path, *argv: str, env: dict, name: str = "") -> float:
    """The CPU seconds (user + system) of one run of the command, from its rusage (its peak
    memory kept in ``PEAKS[name]``)."""
    with tempfile.TemporaryFile() as err:
        where = [str(root)] if argv[0] == "validate" else ["--ruleset", str(root)]
        child = subprocess.Popen([*mprules_command(), *argv, *where], env=env,
                                 stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise SystemExit(err.read().decode(errors="replace")[-800:])
    PEAKS[name] = usage.ru_maxrss / 1024
    return usage.ru_utime + usage.ru_stime


def cli(rows: int, base: Path, env: dict) -> dict[str, float]:
    root = base / f"rows{rows}"
    root.mkdir(parents=True, exist_ok=True)
    (root / "ruleset.yaml").write_text(MANIFEST, encoding="utf-8")
    (root / "big.yaml").write_text(table_text(rows), encoding="utf-8")
    env = {**env, "MPRULES_CACHE_DIR": str(root / "cache")}  # cold: an empty cache of its own
    figures = {}
    for verb in ("prob", "run"):  # each verb keeps its own entry: the first of each is cold
        for name in (f"cli_{verb}_cold", f"cli_{verb}_warm"):
            figures[name] = command(root, verb, "big.table", env=env, name=name)
    figures["cli_validate_no_cache"] = command(root, "validate", "--no-cache", env=env,
                                               name="cli_validate_no_cache")
    return figures


def per_row(results: dict[int, dict[str, float]]) -> dict[str, float]:
    small, large = min(results), max(results)
    return {k: (results[large][k] / large) / (results[small][k] / small)
            for k in results[large] if k in results[small] and not k.endswith("_peak_mb")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--cli-rows", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--keep", metavar="DIR", help="write the tables under DIR and keep them")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-roll-table-"))
    env = installed_env({**os.environ, "MPRULES_CACHE_DIR": str(base / "cache")})
    outside = {}  # first: a child's peak memory counts what it copied of this process before exec
    for rows in args.cli_rows:
        outside[rows] = cli(rows, base, env)
        print(f"{rows:>8} rows command     " + "  ".join(
            f"{k} {v:.3f} s {PEAKS[k]:.0f} MB" for k, v in outside[rows].items()))
        outside[rows].update({f"{k}_peak_mb": round(PEAKS[k]) for k in list(outside[rows])})
    inside = {}
    for rows in args.rows:
        inside[rows] = in_process(rows, base)
        print(f"{rows:>8} rows in-process  " + "  ".join(f"{k} {v:.3f} s" for k, v in inside[rows].items()))
    ratios = {**per_row(inside), **(per_row(outside) if outside else {})}
    print("cost per row, largest size / smallest: " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    print(json.dumps({"in_process": {str(k): v for k, v in inside.items()},
                      "command": {str(k): v for k, v in outside.items()}, "per_row_ratio": ratios}))


if __name__ == "__main__":
    main()
