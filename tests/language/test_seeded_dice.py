"""A seed gives the dice ``random.Random(seed)`` gives (``randrange(faces) + 1`` a die, its
``shuffle`` a shuffle), though ``rules_dsl.dice`` draws them from random's core without loading
module ``random``: the same seed, the same dice as before, on every machine."""
from __future__ import annotations

import random

import pytest

from rules_dsl.dice import SeededDice

SEEDS = [0, 1, 3, 7, 2**31 - 1, 2**32, 2**64 + 5, 123456789012345678901234567890]
# (what, faces or length) in the order a source is asked: dice of many sizes, shuffles between
ASKED = [("die", 6), ("die", 6), ("die", 20), ("shuffle", 10), ("die", 100), ("die", 1), ("die", 2),
         ("shuffle", 1), ("die", 1000), ("die", 3), ("shuffle", 52), ("die", 2**40), ("die", 6)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seed_gives_what_random_gives(seed) -> None:
    source, reference = SeededDice(seed), random.Random(seed)
    for _ in range(5):
        for what, size in ASKED:
            if what == "die":
                assert source.roll(size) == [reference.randrange(size) + 1]
            else:
                expected = list(range(size))
                reference.shuffle(expected)
                assert source.shuffle(range(size)) == expected


def test_the_dice_are_recorded_and_a_shuffle_is_not() -> None:
    source = SeededDice(5)
    rolled = source.roll(6, 3)
    source.shuffle(range(8))
    assert source.values == rolled and [d.faces for d in source.rolled] == [6, 6, 6]
