"""atheris harness of the expression language: any text is compiled, evaluated with seeded dice
and, when it has dice, given its exact distribution; the only allowed failure is a located MPR1xx
error. Run: ``python3 fuzz/fuzz_expression.py -max_total_time=300 fuzz/corpus/expression``."""
from __future__ import annotations

from fractions import Fraction

from _harness import instrumented, run

with instrumented():
    from rules_dsl import compile_expression
    from rules_dsl.dice import SeededDice
    from rules_dsl.errors import MprError

ENV = {"x": 3, "y": Fraction(1, 2), "s": "鋼", "xs": [1, 2, 3], "b": True, "n": None,
       "item": {"parts": [{"price": 1200}, {"price": 800}]}, "知性": 4}


def test_one_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    try:
        expression = compile_expression(text)
        expression.evaluate(ENV, SeededDice(1))
        if expression.has_dice:
            expression.distribution(ENV)
    except MprError as error:
        if not error.code.startswith("MPR1") or error.loc is None:
            raise AssertionError(f"{error.code} without a location: {error}") from None
        error.message("ja")


if __name__ == "__main__":
    run(test_one_input)
