"""The dice a command line asks for: ``--dice 9,4,18`` (the dice rolled at the table, in order)
or ``--seed N``, never both. The language's dice sources are ``rules_dsl.dice``; only this module
knows the flags' names."""
from __future__ import annotations

from rules_dsl.dice import DiceSource, ScriptedDice, SeededDice
from rules_dsl.errors import EXIT_USAGE, Location, MprError, define

BAD_DICE_LIST = define(
    "MPR154", "--dice takes whole numbers separated by commas, e.g. 9,4,18; got {text!r}",
    "--dice にはカンマ区切りの整数を指定してください（例: 9,4,18）。指定値: {text!r}",
    exit_code=EXIT_USAGE)
TWO_SOURCES = define(
    "MPR155", "--dice and --seed cannot be used together: give the dice rolled at the table, or a seed",
    "--dice と --seed は同時に指定できません。卓で振ったダイスか、シードのどちらかを指定してください",
    exit_code=EXIT_USAGE)


def parse_dice_list(text: str) -> list[int]:
    """``"9,4,18"`` -> ``[9, 4, 18]``; full-width digits and commas are accepted."""
    import unicodedata  # only when dice are typed: start-up time

    normal = unicodedata.normalize("NFKC", text).replace("、", ",")
    try:
        values = [int(part.strip()) for part in normal.split(",") if part.strip()]
    except ValueError:
        raise MprError(BAD_DICE_LIST, Location(path="--dice"), text=text) from None
    if not values:
        raise MprError(BAD_DICE_LIST, Location(path="--dice"), text=text)
    return values


def refuse_two_sources(seed: int | None, dice: str | None) -> None:
    """Raise when both ``--seed`` and ``--dice`` are given (which dice would count is unclear)."""
    if seed is not None and dice is not None:
        raise MprError(TWO_SOURCES, Location(path="--dice"))


def source_from_args(seed: int | None, dice: str | None) -> DiceSource:
    """The dice source the CLI flags ask for: scripted if ``--dice`` is given, else seeded."""
    refuse_two_sources(seed, dice)
    if dice is not None:
        return ScriptedDice(parse_dice_list(dice), Location(path="--dice"))
    return SeededDice(seed)
