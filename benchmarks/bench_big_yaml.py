"""Benchmark: the worst inputs at the bounds of reading YAML (docs/limits.md), each run by the
installed ``mprules`` with its CPU seconds (user + system) and peak memory (the child's maximum
resident set): what the limits promise is that no command passes 512 MB or a few seconds of
reading whatever the input. Not a timed test: it asserts nothing about time.

Cases (``MAX_RULESET_NODES`` values in one graph, ``MAX_RULE_FILE_BYTES`` in one file):
- ``dense-params``: one rule whose ``params`` hold a dense list ``[1,1,…]`` up to the graph's
  values (about 1 MB), and a second ruleset like it for ``diff``;
- ``dense-top``: a file that is only such a list (a schema error);
- ``wide-mapping``: a rule whose ``params`` hold a mapping of unique keys up to the file's bytes;
- ``past-values``: a dense list one file long past the graph's values (refused, MPR970);
- ``alias-bomb``: aliases that copy past ``MAX_YAML_ALIAS_NODES`` (refused, MPR972);
- ``deep``: mappings nested ``MAX_YAML_DEPTH`` deep, many times over;
- ``many-files``: ``MAX_RULESET_DOCUMENTS`` small rule files;
- ``input``: ``run --input`` of a file of ``MAX_INPUT_FILE_BYTES`` holding a dense list.

Usage: python3 benchmarks/bench_big_yaml.py [--keep DIR] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _runner import installed_env, mprules_command  # noqa: E402
from interpreter.documents import limits as documents  # noqa: E402
from interpreter.ruleset import limits as rulesets  # noqa: E402

HEAD = "id: w.t\nkind: SumTable\nsource: R9\ntitle: {en: t}\ninputs: {type: object}\n" \
       "rows: [{id: a, when: 'true', value: 1}]\n"


def ruleset(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ruleset.yaml").write_text(f'id: {root.name.replace("-", "_")}\nversion: "1.0.0"\n'
                                       "title: {en: w}\n", encoding="utf-8")
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def dense(values: int, item: str = "1") -> str:
    return "[" + ",".join([item] * values) + "]"


def room() -> int:
    """The values a rule file may hold beside the manifest (3 values) and HEAD's (about 20)."""
    return rulesets.MAX_RULESET_NODES - 40


def cases(base: Path) -> dict[str, list[list[str]]]:
    made: dict[str, list[list[str]]] = {}
    one = ruleset(base / "dense-params", {"t.yaml": HEAD + f"params: {{x: {dense(room())}}}\n"})
    two = ruleset(base / "dense-params-b", {"t.yaml": HEAD + f"params: {{x: {dense(room(), '2')}}}\n"})
    made["dense-params"] = [["validate", "--no-cache", str(one)], ["validate", str(one)],
                            ["test", "--no-cache", str(one)], ["--no-cache", "diff", str(one), str(two)],
                            ["--no-cache", "doc", str(one)]]
    top = ruleset(base / "dense-top", {"t.yaml": dense(room()) + "\n"})
    made["dense-top"] = [["validate", "--no-cache", str(top)]]
    lines, size, i = [], len(HEAD) + 20, 0
    while True:
        line = f"    k{i:x}: 1\n"
        if size + len(line) > documents.MAX_RULE_FILE_BYTES:
            break
        lines.append(line)
        size, i = size + len(line), i + 1
    wide = ruleset(base / "wide-mapping", {"t.yaml": HEAD + "params:\n  x:\n" + "".join(lines)})
    made["wide-mapping"] = [["validate", "--no-cache", str(wide)]]
    past = ruleset(base / "past-values", {"a.yaml": HEAD + f"params: {{x: {dense(room())}}}\n",
                                          "b.yaml": HEAD.replace("w.t", "w.u") + f"params: {{x: {dense(room())}}}\n"})
    made["past-values"] = [["validate", "--no-cache", str(past)]]
    bomb = "".join(f"{chr(97 + k)}: &{chr(97 + k)} [" + ", ".join([f"*{chr(96 + k)}"] * 9) + "]\n"
                   for k in range(1, 9))
    made["alias-bomb"] = [["validate", "--no-cache", str(ruleset(
        base / "alias-bomb", {"t.yaml": HEAD + "params:\n  x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
                              + "".join("  " + line for line in bomb.splitlines(True))}))]]
    depth = documents.MAX_YAML_DEPTH - 3
    nest = "{a: " * depth + "1" + "}" * depth
    count = (documents.MAX_RULE_FILE_BYTES - 200) // (len(nest) + 8)
    made["deep"] = [["validate", "--no-cache", str(ruleset(
        base / "deep", {"t.yaml": HEAD + "params:\n  x:\n" + "".join(f"    - {nest}\n" for _ in range(count))}))]]
    many = base / "many-files"
    ruleset(many, {f"r{n}.yaml": HEAD.replace("w.t", f"w.r{n}") for n in range(rulesets.MAX_RULESET_DOCUMENTS - 1)})
    made["many-files"] = [["validate", "--no-cache", str(many)]]
    data = base / "input.yaml"
    data.write_text("x: " + dense((documents.MAX_INPUT_FILE_BYTES - 10) // 2) + "\n", encoding="utf-8")
    made["input"] = [["run", "procurement.rarity", "--input", str(data)]]
    return made


def measure(argv: list[str], env: dict) -> dict:
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([*mprules_command(), *argv], env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        text = out.read().decode(errors="replace")
    codes = sorted({word for word in text.split() if word.startswith("MPR") and word[3:].isdigit()})
    return {"cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_mb": round(usage.ru_maxrss / 1024), "exit": os.waitstatus_to_exitcode(status),
            "codes": codes[:6]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", metavar="DIR", help="write the inputs under DIR and keep them")
    parser.add_argument("--only", nargs="*", help="the cases to run (default: all)")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-big-yaml-"))
    env = installed_env({**os.environ, "MPRULES_CACHE_DIR": str(base / "cache")})
    results = {}
    for name, commands in cases(base).items():
        if args.only and name not in args.only:
            continue
        for argv in commands:
            figure = measure(argv, env)
            shown = " ".join(a if not a.startswith(str(base)) else Path(a).name for a in argv)
            results[f"{name}: {shown}"] = figure
            print(f"{name:>13}  {shown:<48} {figure['cpu_seconds']:6.2f} s CPU {figure['peak_mb']:5d} MB"
                  f"  exit {figure['exit']} {' '.join(figure['codes'])}", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
