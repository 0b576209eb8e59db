"""Benchmark: exact dice pools in mprules against icepool and dyce, values checked equal first.

    python3 benchmarks/bench_pools.py [--runs 5] [--check-runs 1] [--timeout 300] [--max-dice 100] [--cases ...]

Needs the ``bench`` extra (``pip install -e '.[bench]'``: icepool, dyce). Each (tool, case) runs in
a fresh process, so no tool profits from a cache an earlier repetition filled, and times one
computation there (the best of ``--runs`` processes: the machine's noise only adds time). mprules is timed on a compiled expression
(``compute``; the text's parsing and compiling is shown beside it, ``+ parse``), as the peers are
timed on pools built in Python. Before any time is compared, every tool's exact probabilities are
checked equal to mprules' (as Fractions); a tool that gives other values stops the run.

Cases (the goal of each: mprules ≤ 1.0x icepool):
- ``highest3``: the sum of the highest 3 of 20d6;
- ``highest3_d100``: the sum of the highest 3 of 12d100 (many faces: a running sum is kept);
- ``sixth_of_12``: the 6th lowest of 12d100 (one order statistic: only it is kept);
- ``count50``: how many of 50 d6 show 5 or more;
- ``max100``: the highest of 100 d20;
- ``check``: the core check nMP15C10 (d20; jackpot, bad beat, zero dice keeping the worse) for
  every n in 0..``--max-dice``, the verdicts' distribution, all n in one process.
dyce has no multiset evaluator for the check and enumerates the sorted rolls of a pool for
``max100`` (more than 10**20 of them): those are shown as not run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = ("highest3", "highest3_d100", "sixth_of_12", "count50", "max100", "check")
TOOLS = ("mprules", "icepool", "dyce")
TARGET, CHALLENGE = 15, 10


def _listed(item: str, n: int) -> str:
    return "[" + ", ".join([item] * n) + "]"


TEXTS = {
    "highest3": f"let s = sorted({_listed('d6', 20)}) in s[-1] + s[-2] + s[-3]",
    "highest3_d100": f"let s = sorted({_listed('d100', 12)}) in s[-1] + s[-2] + s[-3]",
    "sixth_of_12": f"sorted({_listed('d100', 12)})[5]",
    "count50": f"count({_listed('d6 >= 5', 50)})",
    "max100": f"max({_listed('d20', 100)})",
}


# --- one computation, in this process -------------------------------------------------------

def _mprules(case: str, max_dice: int) -> tuple[float, float, dict]:
    """(seconds computing, seconds parsing and compiling, {value: probability})."""
    if case == "check":
        from interpreter.solvers import pool_notation

        rules = pool_notation.bundled_rules()
        start = time.perf_counter()
        out = {}
        for n in range(max_dice + 1):
            odds = pool_notation.success_distribution(pool_notation.CheckSpec(n, TARGET, CHALLENGE),
                                                      rules=rules)
            out[n] = {_verdict(v): p for v, p in odds.items()}
        return time.perf_counter() - start, 0.0, out
    from rules_dsl import compile_expression, prob

    prob.distribution(compile_expression("d2"), {})  # the modules loaded, as a peer's import is
    start = time.perf_counter()
    expression = compile_expression(TEXTS[case])
    parsed = time.perf_counter()
    dist = prob.distribution(expression, {})
    done = time.perf_counter()
    return done - parsed, parsed - start, {v: p for v, p in dist.items()}


def _verdict(verdict) -> tuple:
    return (verdict.success, verdict.special or "", -1 if verdict.value is None else verdict.value)


def _icepool(case: str, max_dice: int) -> tuple[float, dict]:
    import icepool

    def values(die) -> dict:
        total = die.denominator()
        return {outcome: Fraction(quantity, total) for outcome, quantity in die.items()}

    start = time.perf_counter()
    if case == "highest3":
        out = values(icepool.d6.pool(20).highest(3).sum())
    elif case == "highest3_d100":
        out = values(icepool.d100.pool(12).highest(3).sum())
    elif case == "sixth_of_12":
        out = values(icepool.d100.pool(12)[5])
    elif case == "count50":
        out = values((icepool.d6 >= 5).pool(50).sum())
    elif case == "max100":
        out = values(icepool.d20.highest(100))
    else:
        check = _check_class()
        out = {n: values(check(n == 0).evaluate(icepool.d20.pool(2 if n == 0 else n)))
               for n in range(max_dice + 1)}
    return time.perf_counter() - start, out


def _check_class():
    import icepool

    class Check(icepool.MultisetEvaluator):
        """The core check of the bundled rules by hand: success a die within [x, m], JP a die
        equal to m (before the challenge), BB every die 1 (first); zero dice: two dice, the
        worse counts (every condition's any/all swapped, the lowest value)."""

        def __init__(self, dual: bool) -> None:
            self.dual = dual

        def initial_state(self, order, outcomes, *sizes):
            return (self.dual, not self.dual, self.dual, None)  # ok, bad beat, jackpot, value

        def next_state(self, state, order, outcome, count):
            if not count:
                return state
            ok, bb, jp, best = state
            d = outcome
            if self.dual:
                ok, bb, jp = ok and CHALLENGE <= d <= TARGET, bb or d == 1, jp and d == TARGET
                if d <= TARGET and (best is None or d < best):
                    best = d
            else:
                ok, bb, jp = ok or CHALLENGE <= d <= TARGET, bb and d == 1, jp or d == TARGET
                if d <= TARGET and (best is None or d > best):
                    best = d
            return (ok, bb, jp, best)

        def final_outcome(self, state, order, outcomes, *sizes):
            ok, bb, jp, best = state
            if bb:
                return (False, "BB", -1)
            if jp:
                return (True, "JP", TARGET)
            return (True, "", best) if ok else (False, "", -1)

    return Check


def _dyce(case: str, max_dice: int) -> tuple[float, dict] | None:
    from dyce import H, P

    def values(h) -> dict:
        total = h.total
        return {outcome: Fraction(count, total) for outcome, count in h.items()}

    start = time.perf_counter()
    if case == "highest3":
        out = values(H.from_counts((sum(roll), count) for roll, count
                                   in (20 @ P(6)).rolls_with_counts(slice(-3, None))))
    elif case == "highest3_d100":
        out = values(H.from_counts((sum(roll), count) for roll, count
                                   in (12 @ P(100)).rolls_with_counts(slice(-3, None))))
    elif case == "count50":
        out = values(50 @ H(6).ge(5))
    else:
        return None
    return time.perf_counter() - start, out


def one(tool: str, case: str, max_dice: int) -> dict:
    if tool == "mprules":
        compute, parse, values = _mprules(case, max_dice)
        return {"seconds": compute, "parse": parse, "values": _encode(values)}
    found = _icepool(case, max_dice) if tool == "icepool" else _dyce(case, max_dice)
    if found is None:
        return {"seconds": None, "values": None}
    return {"seconds": found[0], "values": _encode(found[1])}


def _encode(values: dict) -> list:
    def key(k):
        return list(k) if isinstance(k, tuple) else k
    out = []
    for k, v in values.items():
        if isinstance(v, dict):
            out.append([k, _encode(v)])
        elif v:
            out.append([key(k), str(v)])
    return sorted(out, key=repr)


# --- the run: fresh processes ---------------------------------------------------------------

def _measure(tool: str, case: str, args: argparse.Namespace) -> dict:
    env = dict(os.environ, MPRULES_NO_CACHE="1")
    argv = [sys.executable, __file__, "--one", tool, case, "--max-dice", str(args.max_dice)]
    runs = []
    for _ in range(args.check_runs if case == "check" else args.runs):
        try:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=args.timeout,
                                  check=True)
        except subprocess.TimeoutExpired:
            return {"seconds": None, "timeout": True}
        except subprocess.CalledProcessError as error:
            raise SystemExit(f"{tool} {case} failed:\n{error.stderr[-2000:]}") from None
        runs.append(json.loads(done.stdout))
        if runs[-1]["seconds"] is None:
            return runs[-1]
    result = runs[0]
    result["seconds"] = min(r["seconds"] for r in runs)
    if "parse" in result:
        result["parse"] = min(r["parse"] for r in runs)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check-runs", type=int, default=1,
                        help="processes for the check (icepool takes minutes for 0..100 dice)")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--max-dice", type=int, default=100)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    parser.add_argument("--one", nargs=2, metavar=("TOOL", "CASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.max_dice)))
        return
    summary = {}
    print(f"{'case':10} {'mprules':>10} {'+ parse':>10} {'icepool':>10} {'dyce':>10} {'vs icepool':>11}")
    for case in args.cases:
        found = {tool: _measure(tool, case, args) for tool in TOOLS}
        ours = found["mprules"]
        for tool in ("icepool", "dyce"):
            theirs = found[tool].get("values")
            if theirs is not None and theirs != ours["values"]:
                raise SystemExit(f"{case}: {tool} gives other values than mprules")

        def shown(result: dict) -> str:
            if result.get("timeout"):
                return "timeout"
            return "not run" if result["seconds"] is None else f"{result['seconds'] * 1000:8.1f}ms"

        ice = found["icepool"]["seconds"]
        ratio = None if ice is None else ours["seconds"] / ice
        print(f"{case:10} {shown(ours):>10} {ours['parse'] * 1000:8.1f}ms {shown(found['icepool']):>10} "
              f"{shown(found['dyce']):>10} {'' if ratio is None else f'{ratio:.3f}x':>11}")
        summary[case] = {"mprules_s": ours["seconds"], "parse_s": ours["parse"], "icepool_s": ice,
                         "dyce_s": found["dyce"]["seconds"],
                         "ratio_to_icepool": None if ratio is None else round(ratio, 4),
                         "values_equal": True}
    print(json.dumps({"goal": "mprules <= 1.0x icepool, values equal", "cases": summary}))


if __name__ == "__main__":
    main()
