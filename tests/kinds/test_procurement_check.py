"""R10 procurement check on the bundled ruleset: the dice cap, no check at rarity <= 0, reputation,
the exact success chance (checked against a brute force over every d20 roll) and scripted rolls."""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from interpreter.engine import runner as engine
from interpreter.checks.loading import load_ruleset
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import MprError

RULE = "procurement.check"


def item(materials: list[str], quality: str = "標準", design: str | None = None) -> dict[str, Any]:
    return {"materials": materials, "quality": quality, "design": design, "ma_gear": None,
            "vehicle": None}


MASTERPIECE_STEEL = item(["鋼"], "傑作")  # rarity 3


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset()


def _run(ruleset, inputs: dict[str, Any], dice: list[int] | None = None, seed: int = 0) -> Any:
    source = ScriptedDice(dice) if dice is not None else SeededDice(seed)
    return engine.run(ruleset, RULE, inputs, source).value


def brute_force(dice: int, ability: int, challenge: int) -> Fraction:
    """Rc by enumeration: success if a die is <= ability and >= challenge, or equals the ability
    (JP); every die a 1 fails (BB); zero dice roll two and need every die to succeed."""
    wins = total = 0
    count = dice if dice > 0 else 2
    for roll in itertools.product(range(1, 21), repeat=count):
        total += 1
        if all(d == 1 for d in roll) or (dice == 0 and 1 in roll):
            continue
        if dice == 0:
            wins += all(d == ability for d in roll) or all(challenge <= d <= ability for d in roll)
        else:
            wins += any(d == ability or challenge <= d <= ability for d in roll)
    return Fraction(wins, total)


@pytest.mark.parametrize("time_dice, other_dice, dice_bonus, dice", [
    (0, 0, 1, 2),   # procurement takes at least a minute: +1 die anyway
    (1, 0, 1, 2),
    (2, 0, 2, 3),
    (5, 0, 2, 3),   # time gives at most +2
    (2, 1, 3, 4),   # other dice are not capped
    (1, -2, -1, 0),  # modifiers took the dice to 0: the zero-dice rule
    (1, -5, -4, 0),
])
def test_dice_cap(ruleset, time_dice: int, other_dice: int, dice_bonus: int, dice: int) -> None:
    value = _run(ruleset, {"item": MASTERPIECE_STEEL, "time_dice": time_dice, "other_dice": other_dice})
    assert (value["dice_bonus"], value["dice"]) == (dice_bonus, dice)


@pytest.mark.parametrize("the_item, situation, rarity", [
    (item(["鋼"]), 0, 0),
    (item(["鋼"], "粗悪"), 0, -1),
    (item(["合金"]), -1, 0),
    (item(["鋼"], "粗悪"), -2, -3),
])
def test_no_check_at_rarity_zero_or_less(ruleset, the_item: dict, situation: int, rarity: int) -> None:
    value = _run(ruleset, {"item": the_item, "situation": situation, "intellect": 3})
    assert value["required"] is False and value["rarity"] == rarity
    assert value["probability"] == {"fraction": "1", "float": 1.0}
    assert "outcome" not in value


@pytest.mark.parametrize("lang, note", [("en", "no check"), ("ja", "判定なし")])
def test_no_check_is_traced_in_the_language(ruleset, lang: str, note: str) -> None:
    result = engine.run(ruleset, RULE, {"item": item(["鋼"]), "intellect": 3}, SeededDice(0),
                        lang=lang)
    assert note in [step.label for step in result.trace[0].children]


@pytest.mark.parametrize("time_dice, reputation, intellect, fraction", [
    (1, 0, 12, "3/4"),     # 2 dice against 12, challenge 3
    (2, 0, 12, None),      # 3 dice
    (1, -2, 12, None),     # reputation lowers the challenge to 1
    (1, 4, 12, None),      # ... or raises it to 7
    (1, 0, 2, None),       # challenge 3 above the ability: only a jackpot succeeds
    (1, 0, 20, None),
])
def test_probability_is_exact(ruleset, time_dice: int, reputation: int, intellect: int,
                              fraction: str | None) -> None:
    value = _run(ruleset, {"item": MASTERPIECE_STEEL, "time_dice": time_dice,
                           "reputation_modifier": reputation, "intellect": intellect, "roll": False})
    assert value["rarity"] == 3 and value["challenge"] == 3 + reputation
    expected = brute_force(value["dice"], intellect, value["challenge"])
    assert value["probability"]["fraction"] == (fraction or str(expected))
    assert Fraction(value["probability"]["fraction"]) == expected
    assert value["probability"]["float"] == float(expected)
    assert "outcome" not in value


def test_zero_dice_probability(ruleset) -> None:
    value = _run(ruleset, {"item": MASTERPIECE_STEEL, "other_dice": -2, "intellect": 12, "roll": False})
    assert value["dice"] == 0
    assert Fraction(value["probability"]["fraction"]) == brute_force(0, 12, 3)


@pytest.mark.parametrize("dice, success, special, achieved", [
    ([15, 9], True, None, 9),
    ([2, 13], False, None, None),    # 2 is below the challenge 3, 13 above the ability
    ([12, 20], True, "JP", 12),
    ([1, 1], False, "BB", None),
])
def test_scripted_outcome(ruleset, dice: list[int], success: bool, special: str | None,
                          achieved: int | None) -> None:
    value = _run(ruleset, {"item": MASTERPIECE_STEEL, "intellect": 12}, dice=dice)
    assert value["outcome"] == {"dice": dice, "success": success,
                                "result": "success" if success else "failure",
                                "special": special, "value": achieved}


def test_seeded_outcome_is_reproducible(ruleset) -> None:
    first = _run(ruleset, {"item": MASTERPIECE_STEEL, "intellect": 12}, seed=42)
    second = _run(ruleset, {"item": MASTERPIECE_STEEL, "intellect": 12}, seed=42)
    assert first["outcome"] == second["outcome"] and len(first["outcome"]["dice"]) == 2


def test_distribution_through_the_engine(ruleset) -> None:
    tables = engine.distribution(ruleset, RULE, {"item": MASTERPIECE_STEEL, "intellect": 12})
    rows = {r.value: r.p for r in tables[0].rows}
    assert sum(rows.values()) == 1
    assert rows["success"] + rows["JP"] == Fraction(3, 4)
    assert rows["BB"] == Fraction(1, 400)


def test_distribution_by_ability(ruleset) -> None:
    tables = engine.distribution(ruleset, RULE, {"item": MASTERPIECE_STEEL})
    by_ability = {r.value: r.p for r in tables[0].rows}
    assert by_ability[12] == Fraction(3, 4)
    assert list(by_ability) == list(range(1, 21))
    assert all(a <= b for a, b in zip(list(by_ability.values())[2:], list(by_ability.values())[3:]))


@pytest.mark.parametrize("inputs, code", [
    ({"item": item(["銅"])}, "MPR500"),
    ({"item": item(["鋼"], "名作")}, "MPR500"),
    ({"item": MASTERPIECE_STEEL, "time_dice": "two"}, "MPR500"),
])
def test_bad_input(ruleset, inputs: dict[str, Any], code: str) -> None:
    with pytest.raises(MprError) as raised:
        _run(ruleset, inputs)
    assert raised.value.code == code


@pytest.mark.parametrize("old, new, code", [
    ("challenge: rarity + reputation_modifier", "challenge: rarity + reputation_modifer", "MPR553"),
    ("dice: max(1 + dice_bonus, 0)", "dice: max(1 + dice_bonus, challenge)", "MPR553"),  # not yet known
    ("rarity: {rule: procurement.rarity,", "rarity: {rule: procurement.rarty,", "MPR354"),
    ("required: rarity >= params.required_from", "required: rarity >= (", "MPR113"),
], ids=["misspelt input", "a later formula", "unknown derived rule", "syntax error"])
def test_document_checks(tmp_path, old: str, new: str, code: str) -> None:
    from interpreter.documents.resources import bundled_ruleset
    from interpreter.checks.loading import collect

    for name in ("ruleset.yaml", "procurement.yaml"):
        text = (bundled_ruleset() / name).read_text(encoding="utf-8")
        if name == "procurement.yaml":
            assert old in text
            text = text.replace(old, new)
        (tmp_path / name).write_text(text, encoding="utf-8")
    _, findings = collect(tmp_path)
    errors = [d for d in findings if d.severity == "error"]
    assert errors and errors[0].code == code and errors[0].file.endswith("procurement.yaml")
    assert errors[0].line is not None
