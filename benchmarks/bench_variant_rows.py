"""Benchmark: ``mprules validate`` of a generated chain of variants whose row edits add up to many
rows (issue #26: 100,000 rows over 10 layers, validate within 3 s and 256 MB).

The base has one SumTable of ``rows / layers`` rows; each of the ``layers - 1`` variants extends
the one before, adds as many rows again (by new ids), replaces one row of every 100 written by the
layers below and removes one of every 100, and places one row before another. The rows'
conditions repeat a few texts, as a real table's do, so the expression compiler's cost per text
(measured elsewhere) stays out of the figure. The merge folds each
rule's edits once, after every layer is read, so the time is linear in the rows. Runs ``validate``
as a subprocess (start-up included, ruleset cache off) and reports its wall time and peak memory
(the child's maximum resident set) and CPU time (what it cost on a busy machine), then a JSON
line.

100,000 rows over 10 layers are 4.4 MB of files and 406,451 values, within ``MAX_RULESET_BYTES``
(8 MiB) and ``MAX_RULESET_NODES`` (500,000 values, weighted by depth), so ``validate`` reads them;
``--past-budget`` lifts both bounds (and ``MAX_RULESET_DOCUMENTS``) for one run to measure more
(about 123,000 rows and up): the same ``validate`` run by the same interpreter.
Measured (2 cores shared with other work, the installed command, 2026-12-02): 100,000 rows
2.1-2.6 s CPU, 221 MB, with the line reader and the one-pass fold (was 3.3-4.9 s, 246 MB; before
the fold 10.7-12.2 s, 556-590 MB, and refused by the 2 MiB budget).

Usage: python3 benchmarks/bench_variant_rows.py [--rows 100000] [--layers 10] [--past-budget]
[--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _runner import installed_env, mprules_command

BASE = """\
id: big.table
kind: SumTable
source: R9
title: {{en: A generated table}}
inputs: {{type: object, properties: {{n: {{type: integer}}}}, required: [n]}}
rows:
{rows}
examples:
  - {{name: nothing matches, input: {{n: -1}}, expect: 0}}
"""


# ``mprules`` with the ruleset budget lifted: the loader reads it from interpreter.checks.loading
PAST_BUDGET = ("import sys; from interpreter.checks import loading; loading.MAX_RULESET_BYTES = 1 << 40; "
               "loading.MAX_RULESET_NODES = loading.MAX_RULESET_DOCUMENTS = 1 << 40; "
               "from interpreter.cli import main; sys.exit(main(sys.argv[1:]))")


def manifest(name: str, extends: str | None, body: str = "") -> str:
    head = f"extends: {extends}\n" if extends else ""
    return f'id: {name}\nversion: "0.1.0"\ntitle: {{en: {name}}}\n{head}{body}'


def row(key: str, value: int) -> str:
    return f"  - {{id: {key}, when: n > {value % 10}, value: 1}}"


def generate(root: Path, rows: int, layers: int) -> Path:
    per = rows // layers
    base = root / "l0"
    base.mkdir(parents=True)
    (base / "ruleset.yaml").write_text(manifest("l0", None), encoding="utf-8")
    (base / "big.yaml").write_text(BASE.format(rows="\n".join(row(f"r0_{i}", i) for i in range(per))),
                                   encoding="utf-8")
    for layer in range(1, layers):
        edits = [f"      - {{id: r{layer}_{i}, when: n > {i % 10}, value: 1}}" for i in range(per)]
        edits += [f"      - {{id: r{layer - 1}_{i}, when: n > {i % 10}, value: 2}}" for i in range(0, per, 100)]
        edits += [f"      - {{id: r{layer - 1}_{i}, remove: true}}" for i in range(50, per, 100)]
        edits.append(f"      - {{id: first{layer}, when: n > 1, value: 0, before: r{layer - 1}_1}}")
        body = "overrides:\n  big.table:\n    rows:\n" + "\n".join(edits) + "\n"
        directory = root / f"l{layer}"
        directory.mkdir()
        (directory / "ruleset.yaml").write_text(manifest(f"l{layer}", f"../l{layer - 1}", body),
                                                encoding="utf-8")
    return root / f"l{layers - 1}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="generate the rulesets here and keep them")
    parser.add_argument("--past-budget", action="store_true",
                        help="lift MAX_RULESET_BYTES, _NODES and _DOCUMENTS for this run (validate is run in-process by "
                             "the interpreter of the installed command)")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="mprules-rows-"))
    top = generate(root, args.rows, args.layers)
    env = installed_env(dict(os.environ))
    env["MPRULES_CACHE_DIR"] = str(root / "cache")
    command = [*mprules_command(), "validate", "--no-cache", str(top)]
    if args.past_budget:
        command = [sys.executable, "-c", PAST_BUDGET, "validate", "--no-cache", str(top)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime  # what the command cost, whatever else the machine runs
    peak_mb = usage.ru_maxrss / 1024
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
        if any(code in done.stdout for code in ("MPR924", "MPR970", "MPR971")):
            print("refused by MAX_RULESET_BYTES, _NODES or _DOCUMENTS: --past-budget measures it anyway",
                  file=sys.stderr)
        return 1
    print(f"validate, {args.rows} rows over {args.layers} layers: {seconds:.2f} s wall, {cpu:.2f} s CPU,"
          f" peak {peak_mb:.0f} MB")
    print(json.dumps({"rows": args.rows, "layers": args.layers, "seconds": round(seconds, 2),
                      "cpu_seconds": round(cpu, 2), "peak_mb": round(peak_mb)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
