"""Time the compiled evaluation of realistic rule expressions against a native Python lambda of the
same expression, simpleeval and cel-python, in one run.

    python3 benchmarks/bench_expressions.py [--quick]

Prints a table (microseconds per evaluation) and a final JSON line with the geometric means of the
per-expression ratios ``our time / their time``: ``{"vs_native": x, "vs_simpleeval": y,
"vs_celpython": z}`` (below 1 means faster). simpleeval and cel-python are benchmark-only
dependencies (``pip install mprules[bench]``), each given its pre-parsed program; with ``--peers``
every peer's value is checked equal to the native one before any time is taken.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules_dsl import compile_expression  # noqa: E402

ENV = {
    "item": {"ma_gear": {"parts": [{"price": 1200}, {"price": 800}, {"price": 450}]},
             "quality": "masterpiece"},
    "time_dice": 3, "other_dice": 4, "x": "堅木", "region": {"safety": 4},
    "abilities": {"body": 5}, "intellect": 4, "order": -1, "roll": 5,
    "residents": [{"id": f"r{i}", "region": "north", "cost": 3 + i % 3} for i in range(6)],
}


def _clamp(e):
    t = e["time_dice"]
    return (1 if t < 1 else 2 if t > 2 else t) + e["other_dice"]


def _extremes(e):
    i, o = e["intellect"], e["order"]
    return (i if i >= 2 else 2) + (o if o <= 0 else 0)


def _same_region(e):
    residents = e["residents"]
    first = residents[0]
    return all(r["region"] == first["region"] for r in residents)


# (label, ours, native: the same computation as a Python programmer writes it, simpleeval, cel)
CASES = [
    ("price", "floor(sum(item.ma_gear.parts.price) / 500)",
     lambda e: sum(p["price"] for p in e["item"]["ma_gear"]["parts"]) // 500,
     "sum([p['price'] for p in item['ma_gear']['parts']]) // 500",
     "(item.ma_gear.parts[0].price + item.ma_gear.parts[1].price"
     " + item.ma_gear.parts[2].price) / 500"),
    ("clamp", "clamp(time_dice, 1, 2) + other_dice", _clamp,
     "min(max(time_dice, 1), 2) + other_dice",
     "(time_dice < 1 ? 1 : (time_dice > 2 ? 2 : time_dice)) + other_dice"),
    ("min/max", "max(intellect, 2) + min(order, 0)", _extremes,
     "max(intellect, 2) + min(order, 0)",
     "(intellect >= 2 ? intellect : 2) + (order <= 0 ? order : 0)"),
    ("material", "x in ['鋼', '堅木']",
     lambda e: e["x"] in ("鋼", "堅木"),
     "x in ['鋼', '堅木']",
     "x in ['鋼', '堅木']"),
    ("conditional", "2 if region.safety >= 3 else 1",
     lambda e: 2 if e["region"]["safety"] >= 3 else 1,
     "2 if region.safety >= 3 else 1",
     "region.safety >= 3 ? 2 : 1"),
    ("condition", "abilities.body >= 4 and item.quality != 'broken'",
     lambda e: e["abilities"]["body"] >= 4 and e["item"]["quality"] != "broken",
     "abilities.body >= 4 and item.quality != 'broken'",
     "abilities.body >= 4 && item.quality != 'broken'"),
    ("arithmetic", "intellect * 2 + order - 1",
     lambda e: e["intellect"] * 2 + e["order"] - 1,
     "intellect * 2 + order - 1",
     "intellect * 2 + order - 1"),
    ("range", "1 <= roll <= 6",
     lambda e: 1 <= e["roll"] <= 6,
     "1 <= roll <= 6",
     "1 <= roll && roll <= 6"),
    ("same region", "let first = residents[0] in all(r.region == first.region for r in residents)",
     _same_region,
     "all([r['region'] == residents[0]['region'] for r in residents])",
     "residents.all(r, r.region == residents[0].region)"),
    ("total cost", "sum(r.cost for r in residents)",
     lambda e: sum(r["cost"] for r in e["residents"]),
     "sum([r['cost'] for r in residents])",
     # CEL has no sum: the six costs added (the same value; CEL is given the list's length)
     " + ".join(f"residents[{i}].cost" for i in range(6))),
    ("ids", "[r.id for r in residents if r.cost > 3]",
     lambda e: [r["id"] for r in e["residents"] if r["cost"] > 3],
     "[r['id'] for r in residents if r['cost'] > 3]",
     "residents.filter(r, r.cost > 3).map(r, r.id)"),
]


def per_call(fn, number: int) -> float:
    """Best of three runs, in microseconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e6


def paired(ours, theirs, number: int, rounds: int = 5) -> tuple[float, float]:
    """Best of ``rounds`` runs of each, in microseconds per call, the two taking turns so that a
    change in the machine's load touches both alike."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, fn in enumerate((ours, theirs)):
            best[i] = min(best[i], timeit.timeit(fn, number=number) / number * 1e6)
    return best[0], best[1]


def simpleeval_runner(text: str):
    import ast as python_ast

    try:
        from simpleeval import EvalWithCompoundTypes
    except ImportError:
        return None

    evaluator = EvalWithCompoundTypes(names=dict(ENV), functions={
        "sum": sum, "min": min, "max": max, "all": all, "any": any, "len": len})
    parsed = evaluator.parse(text)
    assert isinstance(parsed, python_ast.AST)
    return lambda: evaluator.eval(text, previously_parsed=parsed)


def cel_runner(text: str):
    try:
        import celpy
    except ImportError:
        return None

    environment = celpy.Environment()
    program = environment.program(environment.compile(text))
    activation = {k: celpy.json_to_cel(v) for k, v in ENV.items()}
    return lambda: program.evaluate(activation)


def _same(value, expected) -> bool:
    """A peer's value equals the native one (CEL's own types are subclasses of int, str, list...)."""
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(expected) is bool and bool(value) is expected and str(value).lower() in ("true", "false")
    if isinstance(expected, list):
        return isinstance(value, list) and len(value) == len(expected) and all(
            _same(v, e) for v, e in zip(value, expected))
    return value == expected and type(expected)(value) == expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (under 30 s)")
    parser.add_argument("--peers", action="store_true",
                        help="also time simpleeval and cel-python (pip install mprules[bench])")
    args = parser.parse_args(argv)
    number = 20_000 if args.quick else 200_000
    slow_number = number // 20  # the peers are much slower; fewer calls give the same precision

    rows = []
    for label, ours, native, simple, cel in CASES:
        expr = compile_expression(ours)
        expected = native(ENV)
        assert expr.evaluate(ENV) == expected, (label, expr.evaluate(ENV), expected)
        row = [label, *paired(lambda evaluate=expr.evaluate, env=ENV: evaluate(env),
                              lambda native=native, env=ENV: native(env), number)]
        for peer, runner, text in (("simpleeval", simpleeval_runner, simple), ("cel-python", cel_runner, cel)):
            run = runner(text) if args.peers else None
            if run is not None and not _same(run(), expected):  # values first, then times
                raise SystemExit(f"{label}: {peer} gives {run()!r}, not {expected!r}")
            row.append(per_call(run, slow_number) if run is not None else None)
        rows.append(row)

    print(f"{'expression':<12} {'mprules':>9} {'native':>9} {'/native':>8} {'simpleeval':>11}"
          f" {'cel-python':>11}   (µs per evaluation)")
    for label, ours, native, simple, cel in rows:
        peers = "".join(f" {v:11.3f}" if v is not None else f" {'-':>11}" for v in (simple, cel))
        print(f"{label:<12} {ours:9.3f} {native:9.3f} {ours / native:8.2f}{peers}")

    def geomean(column: int) -> float | None:
        if any(r[column] is None for r in rows):
            return None
        return round(math.exp(sum(math.log(r[1] / r[column]) for r in rows) / len(rows)), 4)

    worst = max(rows, key=lambda r: r[1] / r[2])
    print(json.dumps({"vs_native": geomean(2), "worst_vs_native": [worst[0], round(worst[1] / worst[2], 3)],
                      "vs_simpleeval": geomean(3), "vs_celpython": geomean(4)}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
