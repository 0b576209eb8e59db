"""The core check nMPmCx (n d20 against the ability value m, challenge x; a die equal to m is a
jackpot, all ones a bad beat, otherwise any die in [x, m] succeeds): every case of the rules as (notation, dice, expected JSON), and its
exact probabilities cross-checked against brute-force enumeration of every dice tuple."""
from __future__ import annotations

import copy
import itertools
from rules_dsl.frozen import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.solvers import pool_notation as core_check
from interpreter.solvers.pool_notation import CheckSpec
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import MprError


def outcome(dice, success, special=None, value=None):
    return {"dice": dice, "success": success, "result": "success" if success else "failure",
            "special": special, "value": value}


CASES = [
    # normal success: the achieved value is the highest die <= m
    ("3MP15C10", [9, 4, 12], outcome([9, 4, 12], True, None, 12)),
    ("3MP15", [9, 4, 18], outcome([9, 4, 18], True, None, 9)),
    ("MP12", [7], outcome([7], True, None, 7)),
    ("2MP10", [3, 9], outcome([3, 9], True, None, 9)),
    # failure: no die <= m
    ("2MP5", [6, 20], outcome([6, 20], False)),
    ("MP12", [13], outcome([13], False)),
    # challenge: the die <= m must also be >= x
    ("3MP15C10", [9, 4, 18], outcome([9, 4, 18], False)),
    ("3MP15C10", [10, 4, 18], outcome([10, 4, 18], True, None, 10)),
    ("2MP15C10", [16, 9], outcome([16, 9], False)),
    # jackpot: a die equal to m succeeds, even against the challenge value
    ("3MP15C10", [15, 4, 2], outcome([15, 4, 2], True, "JP", 15)),
    ("2MP5C8", [5, 20], outcome([5, 20], True, "JP", 5)),
    ("MP20", [20], outcome([20], True, "JP", 20)),
    # bad beat: every die 1 fails, and beats the jackpot
    ("3MP15", [1, 1, 1], outcome([1, 1, 1], False, "BB")),
    ("MP1", [1], outcome([1], False, "BB")),
    ("2MP1C1", [1, 1], outcome([1, 1], False, "BB")),
    ("3MP15", [1, 1, 2], outcome([1, 1, 2], True, None, 2)),
    # zero dice: two dice, the worse counts
    ("0MP15C5", [6, 12], outcome([6, 12], True, None, 6)),  # every die <= m and >= x: the lowest
    ("0MP15", [6, 16], outcome([6, 16], False)),  # one die above m
    ("0MP15C5", [4, 12], outcome([4, 12], False)),  # one die below x
    ("0MP15C18", [15, 15], outcome([15, 15], True, "JP", 15)),  # JP needs every die = m
    ("0MP15C18", [15, 17], outcome([15, 17], False)),  # one die = m is no JP
    ("0MP15", [1, 12], outcome([1, 12], False, "BB")),  # any die 1 is BB
    ("0MP1", [1, 1], outcome([1, 1], False, "BB")),  # BB beats JP
]


@pytest.mark.parametrize("notation, dice, expected", CASES)
def test_resolve(notation, dice, expected):
    spec = core_check.parse_notation(notation)
    assert core_check.resolve(spec, dice).to_json() == expected
    assert core_check.roll(spec, ScriptedDice(dice)).to_json() == expected


@pytest.mark.parametrize("text, expected", [
    ("3MP15C10", CheckSpec(3, 15, 10)),
    ("MP12", CheckSpec(1, 12, None)),
    ("0MP15C5", CheckSpec(0, 15, 5)),
    ("３ＭＰ１５Ｃ１０", CheckSpec(3, 15, 10)),
    (" 2mp8c3 ", CheckSpec(2, 8, 3)),
    ("12MP7", CheckSpec(12, 7, None)),
    ("3MP15C", CheckSpec(3, 15, 0)),
    ("3MP(10+5)C(2*5) 調達判定", CheckSpec(3, 15, 10)),
])
def test_parse(text, expected):
    assert core_check.parse_notation(text) == expected


@pytest.mark.parametrize("text, code", [
    ("3MP", "MPR010"), ("MP", "MPR010"), ("3MP15C-1", "MPR010"), ("3D6", "MPR010"), ("", "MPR010"),
    ("-1MP5", "MPR010"), ("3MP15C10x", "MPR010"), ("101MP5", "MPR011"), ("3MP10000", "MPR011"),
    ("3MP5C10000", "MPR011"),
])
def test_bad_notation(text, code):
    with pytest.raises(MprError) as info:
        core_check.parse_notation(text)
    assert info.value.code == code


@pytest.mark.parametrize("notation, dice, code", [
    ("3MP15", [1, 2], "MPR150"), ("3MP15", [1, 2, 3, 4], "MPR152"), ("2MP15", [0, 3], "MPR151"),
    ("2MP15", [3, 21], "MPR151"), ("0MP15", [3], "MPR150"),
])
def test_wrong_dice(notation, dice, code):
    with pytest.raises(MprError) as info:
        core_check.resolve(core_check.parse_notation(notation), dice)
    assert info.value.code == code


@pytest.mark.parametrize("notation, line", [
    ("3MP15C10", "(3MP15C10) > [9,4,18] > 失敗"),
    ("3MP15C10", "(3MP15C10) > [9,4,12] > 成功(12)"),
    ("3MP15C10", "(3MP15C10) > [15,4,2] > 成功(JP)"),
    ("3MP15", "(3MP15C0) > [1,1,1] > 失敗(BB)"),
])
def test_text(notation, line):
    dice = [int(d) for d in line.split("[")[1].split("]")[0].split(",")]
    assert core_check.resolve(core_check.parse_notation(notation), dice).text("ja") == line


def brute_force(spec: CheckSpec, faces: int, zero_roll: int = 2) -> dict:
    """Rc read directly, over every tuple of dice: {(success, special, value): probability}."""
    m, x = spec.target, spec.challenge or 1
    count = zero_roll if spec.dice == 0 else spec.dice
    tally: dict = {}
    for dice in itertools.product(range(1, faces + 1), repeat=count):
        if spec.dice == 0:
            bb, jp = 1 in dice, all(d == m for d in dice)
            ok = all(x <= d <= m for d in dice)
            value = min(dice)
        else:
            bb, jp = all(d == 1 for d in dice), m in dice
            ok = any(x <= d <= m for d in dice)
            value = max((d for d in dice if d <= m), default=None)
        if bb:
            key = (False, "BB", None)
        elif jp:
            key = (True, "JP", m)
        elif ok:
            key = (True, None, value)
        else:
            key = (False, None, None)
        tally[key] = tally.get(key, 0) + 1
    total = faces ** count
    return {k: Fraction(v, total) for k, v in tally.items()}


@pytest.mark.parametrize("notation, faces", [
    ("3MP15C10", 20), ("2MP15C7", 20), ("MP12", 20), ("0MP15C5", 20), ("0MP12", 20), ("2MP5C8", 20),
    ("3MP1", 20), ("4MP4C2", 8), ("0MP3C3", 6), ("2MP25", 20), ("3MP0", 10), ("5MP6C4", 6),
])
def test_distribution_matches_enumeration(notation, faces):
    spec = core_check.parse_notation(notation)
    dist = core_check.success_distribution(spec, faces=faces)
    got = {(r.success, r.special, r.value): p for r, p in dist.items()}
    assert got == brute_force(spec, faces)
    assert dist.total() == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3), st.integers(0, 10), st.one_of(st.none(), st.integers(0, 10)), st.integers(1, 8))
def test_any_small_check_matches_enumeration(dice, target, challenge, faces):
    spec = CheckSpec(dice, target, challenge)
    dist = core_check.success_distribution(spec, faces=faces)
    assert {(r.success, r.special, r.value): p for r, p in dist.items()} == brute_force(spec, faces)


@pytest.mark.parametrize("notation, probability", [
    ("3MP15C10", Fraction(657, 1000)),  # 1 - (14/20)^3: six faces 10..15 succeed
    ("2MP15C7", Fraction(279, 400)),  # 1 - (11/20)^2
    ("0MP15C5", Fraction(121, 400)),  # (11/20)^2: both dice within 5..15
    ("MP12", Fraction(11, 20)),  # 2..12 succeed, 1 is a bad beat
    ("MP1", Fraction(0)),
])
def test_success_probability(notation, probability):
    assert core_check.success_probability(core_check.parse_notation(notation)) == probability


def test_game_numbers_come_from_the_manifest():
    rules = core_check.bundled_rules()
    assert (rules.faces, rules.default_dice, rules.zero_dice_roll, rules.zero_dice_keep) == (20, 1, 2, "worse")
    assert [(s.tag, s.effect, s.precedence) for s in rules.specials] == [("BB", "failure", 1), ("JP", "success", 2)]
    custom = replace(rules, faces=6, default_dice=2, zero_dice_roll=3)
    spec = core_check.parse_notation("MP4", rules=custom)
    assert spec.dice == 2
    assert len(core_check.roll(CheckSpec(0, 4), SeededDice(1), rules=custom).dice) == 3


def _parameters(**changes):
    section = copy.deepcopy(core_check_parameters())
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        here = section
        for key in parents:
            here = here[key]
        if value is DELETE:
            del here[leaf]
        else:
            here[leaf] = value
    return {"core_check": section}


DELETE = object()


def core_check_parameters():
    import yaml

    from interpreter.documents.resources import bundled_ruleset

    manifest = yaml.safe_load((bundled_ruleset() / "ruleset.yaml").read_text(encoding="utf-8"))
    return manifest["parameters"]["core_check"]


# The special results are data: the same engine with other data gives other answers.
DATA_CASES = [
    # a bad beat needs two or more dice rolled: a single 1 is an ordinary failure
    ({"results__bad_beat__when": {"all": "die == 1", "if": "rolled >= 2"},
      "results__single_one": {"when": {"all": "die == 1", "if": "rolled == 1"}, "effect": "failure",
                              "precedence": 1, "tag": None}}, "MP15", [1], "(1MP15C0) > [1] > 失敗"),
    ({"results__bad_beat__when": {"all": "die == 1", "if": "rolled >= 2"}}, "MP15", [1], "(1MP15C0) > [1] > 成功(1)"),
    ({"results__bad_beat__when": {"all": "die == 1", "if": "rolled >= 2"}}, "2MP15", [1, 1], "(2MP15C0) > [1,1] > 失敗(BB)"),
    # a jackpot that does not override the challenge value
    ({"results__jackpot__over_challenge": False}, "2MP5C8", [5, 20], "(2MP5C8) > [5,20] > 失敗"),
    ({"results__jackpot__over_challenge": False}, "2MP12C8", [12, 20], "(2MP12C8) > [12,20] > 成功(JP)"),
    # precedence: the jackpot first, so it beats the bad beat
    ({"results__jackpot__precedence": 0}, "MP1", [1], "(1MP1C0) > [1] > 成功(JP)"),
    # no special result at all
    ({"results": {}}, "3MP15", [1, 1, 1], "(3MP15C0) > [1,1,1] > 成功(1)"),
    # zero dice keep the better: the conditions as written
    ({"zero_dice_keep": "better"}, "0MP15C5", [4, 12], "(0MP15C5) > [4,12] > 成功(12)"),
    # other words
    ({"words__success": {"ja": "成功", "en": "hit"}}, "MP15", [3], "(1MP15C0) > [3] > hit(3)"),
]


@pytest.mark.parametrize("changes, notation, dice, line", DATA_CASES)
def test_special_results_are_data(changes, notation, dice, line):
    rules = core_check.rules_of(_parameters(**changes))
    spec = core_check.parse_notation(notation, rules=rules)
    lang = "en" if "hit" in line else "ja"
    assert core_check.resolve(spec, dice, rules=rules).text(lang) == line
    # the odds are folded from the same data: compare with resolving every tuple of dice
    count = core_check.dice_rolled(spec, rules)
    tally: dict = {}
    for roll in itertools.product(range(1, 21), repeat=count):
        verdict = core_check.resolve(spec, list(roll), rules=rules).outcome
        tally[verdict] = tally.get(verdict, 0) + 1
    exact = dict(core_check.success_distribution(spec, rules=rules).items())
    assert exact == {v: Fraction(n, 20 ** count) for v, n in tally.items()}


@pytest.mark.parametrize("changes, code, path", [
    ({"faces": 0}, "MPR012", "parameters.core_check.faces"),
    ({"zero_dice_keep": "middle"}, "MPR730", "parameters.core_check.zero_dice_keep"),
    ({"results__jackpot__effect": "win"}, "MPR730", "parameters.core_check.results.jackpot.effect"),
    ({"results__jackpot__when": {"some": "die == 1"}}, "MPR730", "parameters.core_check.results.jackpot.when"),
    ({"results__jackpot__when": {"any": "dye == 1"}}, "MPR133", "parameters.core_check.results.jackpot.when.any"),
    ({"success": {"any": "die <="}}, "MPR112", "parameters.core_check.success.any"),
    ({"value": {"best": "die"}}, "MPR730", "parameters.core_check.value"),
    ({"words": DELETE}, "MPR730", "parameters.core_check.words"),
])
def test_bad_check_data_is_located(changes, code, path):
    with pytest.raises(MprError) as info:
        core_check.rules_of(_parameters(**changes))
    assert info.value.code == code and info.value.loc.path == path


def _by_hand(dice: list[int], m: int, x: int) -> dict:
    """The check as the rules state it: every die 1 is a bad beat (a failure, before anything
    else); a die equal to m is a jackpot (a success worth m); otherwise the highest die within
    [x, m] is the achieved value, and no such die is a failure."""
    if all(d == 1 for d in dice):
        return outcome(dice, False, "BB")
    if m in dice:
        return outcome(dice, True, "JP", m)
    within = [d for d in dice if x <= d <= m]
    return outcome(dice, True, None, max(within)) if within else outcome(dice, False)


@pytest.mark.parametrize("notation, m, x", [("3MP15C10", 15, 10), ("2MP5", 5, 1), ("4MP20C19", 20, 19)])
def test_a_seeded_roll_is_judged_by_the_rules_and_repeats(notation, m, x):
    spec = core_check.parse_notation(notation)
    verdicts = set()
    for seed in range(200):
        rolled = core_check.roll(spec, SeededDice(seed)).to_json()
        assert len(rolled["dice"]) == spec.dice and all(1 <= d <= 20 for d in rolled["dice"])
        assert rolled == _by_hand(rolled["dice"], m, x)
        assert core_check.roll(spec, SeededDice(seed)).to_json() == rolled  # the same seed, the same roll
        verdicts.add((rolled["success"], rolled["special"]))
    assert (True, None) in verdicts and (False, None) in verdicts  # 200 seeds reach both verdicts


def test_hundred_dice_is_fast_and_exact():
    p = core_check.success_probability(core_check.parse_notation("100MP15C10"))
    assert p == 1 - Fraction(14, 20) ** 100  # every die 1 (BB) is among the failures already
