"""Benchmark: the exact distribution of a 4-resident leisure (R16 dedup included) against a seeded
Monte-Carlo estimate of 200,000 leisures; prints the time of each path and the estimate's error,
then one JSON line. Run: ``python3 benchmarks/bench_leisure.py [--runs N] [--table T] [--safety S]``."""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter.solvers.repeat_policy import Policy, resolve_session, session_distribution  # noqa: E402
from interpreter.kinds.roll_per_member import table_rows  # noqa: E402
from interpreter.solvers.roll_rows import roll_distribution  # noqa: E402
from interpreter.checks.loading import load_ruleset  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200_000)
    parser.add_argument("--residents", type=int, default=4)
    parser.add_argument("--table", default="wilderness", choices=["city", "wilderness"])
    parser.add_argument("--safety", type=int, default=1)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()

    ruleset = load_ruleset()
    rule = ruleset.rules[f"cohabitation.leisure.{args.table}"]
    leisure = ruleset.rules["cohabitation.leisure"]
    table = table_rows(rule, leisure, ("repeat",), {"params": leisure.params})
    rolls = roll_distribution(rule)
    policy = Policy(args.safety, "lower")

    start = time.perf_counter()
    exact = session_distribution(table, rolls, args.residents, policy)
    exact_seconds = time.perf_counter() - start

    order = {e: i for i, e in enumerate(table.once_ids())}
    faces = sorted(rolls)
    weights = [float(rolls[r]) for r in faces]
    rng = random.Random(args.seed)
    names = [f"pc{i}" for i in range(args.residents)]
    start = time.perf_counter()
    counts: Counter = Counter()
    for _ in range(args.runs):
        drawn = rng.choices(faces, weights, k=args.residents)
        _, obtained = resolve_session(table, list(zip(names, drawn)), policy)
        counts[tuple(sorted(obtained, key=order.__getitem__))] += 1
    mc_seconds = time.perf_counter() - start

    outcomes = set(exact.taken_sets) | set(counts)
    errors = {o: abs(counts[o] / args.runs - float(exact.taken_sets[o])) for o in outcomes}
    worst = max(outcomes, key=lambda o: errors[o])
    p_worst = float(exact.taken_sets[worst])
    z_worst = max(errors[o] / math.sqrt(max(float(exact.taken_sets[o]) * (1 - float(exact.taken_sets[o])), 1e-300) / args.runs)
                  for o in exact.taken_sets)
    tv = sum(errors.values()) / 2
    print(f"table {args.table}, safety ±{args.safety}, {args.residents} residents, "
          f"{len(exact.taken_sets)} possible sets of shared events")
    print(f"exact: {exact_seconds * 1000:.1f} ms (Fractions)")
    print(f"Monte-Carlo: {args.runs} leisures in {mc_seconds:.2f} s")
    print(f"max |error| {errors[worst]:.5f} (outcome {'+'.join(worst) or '-'} p={p_worst:.5f}), "
          f"max z {z_worst:.2f}, total variation {tv:.5f}")
    print(json.dumps({"benchmark": "leisure", "table": args.table, "safety": args.safety,
                      "residents": args.residents, "outcomes": len(exact.taken_sets),
                      "exact_seconds": round(exact_seconds, 4), "mc_runs": args.runs,
                      "mc_seconds": round(mc_seconds, 3),
                      "speedup": round(mc_seconds / exact_seconds, 1),
                      "max_abs_error": round(errors[worst], 6), "max_z": round(z_worst, 3),
                      "total_variation": round(tv, 6),
                      "unseen_in_mc": sum(1 for o in exact.taken_sets if counts[o] == 0)}))


if __name__ == "__main__":
    main()
