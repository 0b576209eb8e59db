"""Benchmark: ``mprules validate`` on a generated tree of rule documents, side by side with
``check-jsonschema`` checking the same files against the same schemas, in one run.

Both run as subprocesses, so both times include interpreter start-up. mprules does more: YAML
with positions, the schema, every expression compiled and name-checked, each roll table checked
against the exact distribution of its dice. check-jsonschema gets a copy of ``schemas/`` whose
``$id``s are removed so its relative ``$ref``s resolve to local files (offline, no network).
Both run as installed tools run: with their modules' bytecode cached (``PYTHONDONTWRITEBYTECODE``
is dropped from their environment, and each runs once untimed on two files first, which also
warms the file cache), and check-jsonschema is found next to ``sys.executable`` or on ``PATH``.
Prints the timings side by side, the start-up of ``mprules --version`` against ``python -c pass``,
and a final JSON line ``{"files": n, "vs_check_jsonschema": ratio}`` (our time / theirs; below 1
is faster).

Usage: python3 benchmarks/bench_validate.py [--files 1000] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _runner import find_tool, installed_env

ROOT = Path(__file__).resolve().parent.parent
PER_RULESET = 100
MATERIALS = ["鋼", "堅木", "合金", "魔銀糸", "魔煌銀"]

SUM_TABLE = """\
# yaml-language-server: $schema=../../schemas/rule.json
id: bench.sum_{n}
kind: SumTable
source: R9
title: {{ja: 合計表{n}, en: Sum table {n}}}
inputs:
  type: object
  properties:
    item:
      type: object
      properties:
        materials: {{type: array, items: {{enum: [{materials}]}}}}
        quality: {{enum: [粗悪, 標準, 傑作]}}
        price: {{type: integer, minimum: 0}}
      required: [materials, quality, price]
      additionalProperties: false
    situation: {{type: integer, default: 0}}
  required: [item]
  additionalProperties: false
params:
  rounding: floor
  divisor: {divisor}
  rare: [{rare}]
rows:
  - id: rare
    each: item.materials
    as: material
    when: material in params.rare
    value: {n_mod}
  - id: crude
    when: item.quality == '粗悪'
    value: -1
  - id: masterpiece
    when: item.quality == '傑作'
    value: 3
  - id: price
    when: item.price > 0
    value: item.price / params.divisor
  - id: situation
    when: situation != 0
    value: situation
examples:
  - name: masterpiece
    input: {{item: {{materials: [{first}], quality: 傑作, price: 0}}}}
    expect: 3
"""

ROLL_TABLE = """\
# yaml-language-server: $schema=../../schemas/rule.json
id: bench.roll_{n}
kind: RollTable
source: R16
title: {{ja: 出目表{n}, en: Roll table {n}}}
inputs: {{type: object, properties: {{roll: {{type: integer}}}}, additionalProperties: false}}
params:
  roll: {roll}
default: {{id: individual, text: {{ja: 個別イベント, en: an individual event}}}}
rows:
  - {{roll: {lo}, id: low, text: {{ja: 低い, en: low}}, tags: [shared]}}
  - {{roll: [{mid_lo}, {mid_hi}], id: middle, text: {{ja: 中間, en: middle}}}}
  - {{roll: {hi}, id: high, text: {{ja: 高い, en: high}}, value: {n}}}
examples:
  - name: lowest
    input: {{roll: {lo}}}
    expect: {{roll: {lo}, id: low, text: {{ja: 低い, en: low}}, value: null}}
"""

ROLLS = [("2d6", 2, 12), ("1d6", 1, 6), ("3d6", 3, 18), ("1d20", 1, 20), ("2d10", 2, 20)]


def generate(root: Path, files: int) -> list[Path]:
    """``files`` rule documents in ruleset directories of ``PER_RULESET`` files each."""
    paths = []
    for n in range(files):
        directory = root / f"set_{n // PER_RULESET:03d}"
        if not directory.is_dir():
            directory.mkdir(parents=True)
            (directory / "ruleset.yaml").write_text(
                f'id: set_{n // PER_RULESET:03d}\nversion: "1.0.0"\ntitle: {{en: Set}}\n',
                encoding="utf-8")
        if n % 2:
            roll, lo, hi = ROLLS[n % len(ROLLS)]
            text = ROLL_TABLE.format(n=n, roll=roll, lo=lo, mid_lo=lo + 1, mid_hi=hi - 1, hi=hi)
        else:
            rare = MATERIALS[n % 3 + 2:]
            text = SUM_TABLE.format(n=n, materials=", ".join(MATERIALS), divisor=500 + n,
                                    rare=", ".join(rare), n_mod=n % 4 + 1, first=MATERIALS[0])
        path = directory / f"rule_{n:04d}.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def local_schemas(target: Path) -> Path:
    """A copy of ``schemas/`` without ``$id``s: relative ``$ref``s then resolve to local files."""
    from interpreter.documents.resources import schemas_dir

    shutil.copytree(schemas_dir(), target)
    for path in target.rglob("*.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        schema.pop("$id", None)
        path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    return target / "rule.json"


def timed(argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, result


def best_of(argv: list[str], cwd: Path, runs: int = 5) -> float:
    return min(timed(argv, cwd)[0] for _ in range(runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mprules-bench-"))
    try:
        tree = workdir / "tree"
        files = generate(tree, args.files)
        schema = local_schemas(workdir / "schemas")
        mprules = [sys.executable, "-m", "interpreter"]
        env = installed_env(dict(os.environ, PYTHONPATH=str(ROOT)))
        os.environ.clear()
        os.environ.update(env)  # both tools run in it
        checker = find_tool("check-jsonschema")
        if checker is None:
            print("check-jsonschema is not installed (pip install '.[test]')", file=sys.stderr)
            return 1
        timed([*mprules, "validate", *map(str, files[:2])], workdir)  # untimed: bytecode, caches
        timed([checker, "--schemafile", str(schema), *map(str, files[:2])], workdir)

        ours, result = timed([*mprules, "validate", str(tree), "--format", "json"], workdir)
        findings = json.loads(result.stdout or "[]")
        errors = [f for f in findings if f["severity"] == "error"]
        print(f"mprules validate: {len(files)} files in {ours:.2f} s, exit {result.returncode}, "
              f"{len(errors)} errors, {len(findings) - len(errors)} other findings")
        if errors or result.returncode != 0:
            print(result.stdout[:2000], result.stderr[:2000], file=sys.stderr)
            return 1

        theirs, result = timed([checker, "--schemafile", str(schema), *map(str, files)], workdir)
        print(f"check-jsonschema: {len(files)} files in {theirs:.2f} s, exit {result.returncode}")
        if result.returncode != 0:
            print(result.stdout[:2000], result.stderr[:2000], file=sys.stderr)
            return 1

        version = best_of([*mprules, "--version"], workdir)
        bare = best_of([sys.executable, "-c", "pass"], workdir)
        print(f"start-up: mprules --version {version * 1000:.0f} ms, python -c pass {bare * 1000:.0f} ms")
        print(f"side by side: mprules {ours:.2f} s / check-jsonschema {theirs:.2f} s = "
              f"{ours / theirs:.3f} (goal <= 0.3)")
        print(json.dumps({"files": len(files), "vs_check_jsonschema": round(ours / theirs, 3)}))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
