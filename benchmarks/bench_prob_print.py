"""Benchmark: ``mprules prob`` of a large distribution, computing it against printing it, in one run.

    python3 benchmarks/bench_prob_print.py [--expression 100d500] [--repeat 3]

Computes the exact distribution of the expression (as ``prob`` does), then renders its table (as
``prob`` prints it, into memory), each the best of ``--repeat`` runs. Goal: printing no slower
than computing. Prints both times and a final JSON line with the ratio print/compute.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules_dsl import compile_expression, prob  # noqa: E402

from interpreter.cli._expr import print_rows, show  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expression", default="100d500")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    expression = compile_expression(args.expression)
    compute, dist = best(lambda: prob.distribution(expression, {}), args.repeat)

    def render() -> int:
        rows = [(show(value), p) for value, p in dist.items()]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print_rows(rows, ("値", "確率"))
        return len(out.getvalue())

    printing, size = best(render, args.repeat)
    print(f"{args.expression}: {len(dist.items())} outcomes, table of {size} characters")
    print(f"compute {compute * 1000:9.1f} ms")
    print(f"print   {printing * 1000:9.1f} ms")
    print(json.dumps({"expression": args.expression, "print_over_compute": round(printing / compute, 3),
                      "goal": 1.0}))


if __name__ == "__main__":
    main()
