"""The core check's exact odds by counting (solvers.dice_pool.state_weights: inclusion and
exclusion over "all dice lie in these faces") equal the fold over every die, one at a time, in
Fractions as before and in whole numbers, for a table of rules, sizes and special results."""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from interpreter.solvers import dice_pool
from interpreter.solvers import pool_notation as core_check
from interpreter.solvers.pool_notation import CheckSpec
from rules_dsl.distribution import Distribution
from rules_dsl.frozen import replace

from tests.kinds.test_core_check import core_check_parameters


def _rules(faces: int, **changes):
    section = copy.deepcopy(core_check_parameters())
    section["faces"] = faces
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        here = section
        for key in parents:
            here = here[key]
        here[leaf] = value
    return core_check.rules_of({"core_check": section})


RULES = {
    "bundled": {},
    "better": {"zero_dice_keep": "better"},
    "lowest": {"value": {"lowest": "die", "where": "die >= challenge"}},
    "constant value": {"value": {"highest": "3", "where": "die <= target"}},
    "value nowhere": {"value": {"highest": "die", "where": "false"}},
    "value of two faces": {"value": {"highest": "die // 2", "where": "die <= target"}},
    "guards": {"results__bad_beat__when": {"all": "die == 1", "if": "rolled >= 2"},
               "results__jackpot__when": {"any": "die == target", "if": "dice > 1"}},
    "all success": {"success": {"all": "die <= target"}},
    "three specials": {"results__odd": {"when": {"all": "die % 2 == 1"}, "effect": "success",
                                        "precedence": 3, "tag": "OD", "value": "target + 1"}},
    "jackpot under the challenge": {"results__jackpot__over_challenge": False},
}
SIZES = [(faces, dice) for faces in (1, 2, 3, 6) for dice in (0, 1, 2, 3, 4)] + [(20, 3), (10, 4)]


def _old(fold, rolled: int, faces: int) -> dict:
    """The fold as the odds were computed before: Fractions, one die at a time."""
    states = Distribution.fold([Distribution.die(faces)] * rolled, fold.initial, fold.step)
    return dict(states.items())


@pytest.mark.parametrize("faces, dice", SIZES)
@pytest.mark.parametrize("name", sorted(RULES))
def test_counted_states_equal_the_fold(name, faces, dice):
    rules = _rules(faces, **RULES[name])
    for target in sorted({0, 1, faces // 2, faces, faces + 1}):
        for challenge in sorted({0, 1, faces // 2 + 1, faces}):
            spec = CheckSpec(dice, target, challenge)
            rolled = core_check.dice_rolled(spec, rules)
            fold = dice_pool.pool_fold(rules, dice, target, challenge, rolled)
            counted = dice_pool.state_weights(fold, rolled)
            assert counted == {s: w for s, w in dice_pool._folded_weights(fold, rolled).items() if w}
            total = faces ** rolled
            assert {s: Fraction(w, total) for s, w in counted.items()} == _old(fold, rolled, faces)
            odds = core_check.success_distribution(spec, rules=rules)
            assert odds == _old_verdicts(fold, rolled, faces)


def _old_verdicts(fold, rolled: int, faces: int) -> Distribution:
    states = Distribution.fold([Distribution.die(faces)] * rolled, fold.initial, fold.step)
    return states.map(fold.verdict)


def test_values_that_are_not_whole_numbers_take_the_fold():
    rules = _rules(6, value={"highest": "die / 2", "where": "true"})
    fold = dice_pool.pool_fold(rules, 3, 4, 2, 3)
    assert dice_pool.state_weights(fold, 3) == dice_pool._folded_weights(fold, 3)


@pytest.mark.parametrize("dice, target, challenge", [(100, 15, 10), (0, 15, 5), (60, 20, 1), (100, 1, 1)])
def test_many_dice_have_closed_forms(dice, target, challenge):
    """By hand for the bundled rules: BB needs every die 1, JP a die equal to the target (before
    BB when it is not 1), success otherwise a die within [challenge, target]."""
    odds = core_check.odds(CheckSpec(dice, target, challenge))
    n = dice or 2
    if dice == 0:  # keep the worse: any 1 is BB, JP needs every die on the target
        bb = 1 - Fraction(19, 20) ** n
        jp = 0 if target == 1 else Fraction(1, 20) ** n
    else:
        bb = Fraction(1, 20) ** n
        jp = 1 - Fraction(19, 20) ** n - (bb if target == 1 else 0)  # every die 1 is BB first
    assert odds.special("BB") == bb and odds.special("JP") == jp


def test_a_thousand_faces_and_a_hundred_dice():
    rules = replace(core_check.bundled_rules(), faces=1000)
    odds = core_check.odds(CheckSpec(100, 500, 100), rules=rules)
    assert odds.outcomes.total() == 1
    assert odds.special("BB") == Fraction(1, 1000 ** 100)
    assert odds.special("JP") == 1 - Fraction(999, 1000) ** 100
    # a failure: every die in the 599 faces outside [100, 500] (all 1s, BB, among them)
    assert 1 - odds.success == Fraction(599, 1000) ** 100
