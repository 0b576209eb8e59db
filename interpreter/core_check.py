"""The core check of the base rules (RULES.md Rc), in BCDice notation ``nMPmCx``: parse it, resolve
it from the dice shown, roll it, and compute its exact outcome distribution by folding over the dice.

The game's numbers (d20, n defaults to 1, two dice when modifiers took n to 0) are read from the
ruleset manifest ``parameters.core_check``; the rules below know only "n dice against m, challenge x".
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from rules_dsl.dice import SCRIPT_UNUSED, DiceSource, ScriptedDice
from rules_dsl.distribution import Distribution
from rules_dsl.errors import EXIT_STATE, Location, MprError, define
from rules_dsl.limits import MAX_CHECK_DICE, MAX_CHECK_NUMBER

BAD_NOTATION = define(
    "MPR010", "{text!r} is not a core check: write nMPm or nMPmCx, e.g. 3MP15C10, MP12, 0MP15C5",
    "{text!r} は判定の書式ではありません。nMPm または nMPmCx と書いてください（例: 3MP15C10、MP12、0MP15C5）")
CHECK_TOO_LARGE = define(
    "MPR011", "{what} of the core check is {value}, more than the limit {limit}",
    "判定の {what} が {value} で、上限 {limit} を超えています")
BAD_CHECK_PARAMETERS = define(
    "MPR012", "parameters.core_check.{name} of the ruleset must be a whole number >= {minimum}, got {value!r}",
    "ルールセットの parameters.core_check.{name} は {minimum} 以上の整数でなければなりません（値: {value!r}）",
    exit_code=EXIT_STATE)

_NOTATION = re.compile(r"(\d*)MP(\d+)(?:C(\d+))?", re.IGNORECASE)
JACKPOT = "JP"
BAD_BEAT = "BB"


@dataclass(frozen=True)
class CheckRules:
    """The game's numbers of the core check: faces of a die, n when omitted, dice rolled when n is 0."""

    faces: int
    default_dice: int
    zero_dice_roll: int

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> "CheckRules":
        """From a ruleset's ``parameters`` (the ``core_check`` entry)."""
        section = parameters.get("core_check") or {}
        values = {}
        for name, minimum in (("faces", 1), ("default_dice", 0), ("zero_dice_roll", 1)):
            value = section.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise MprError(BAD_CHECK_PARAMETERS, Location(path=f"parameters.core_check.{name}"),
                               name=name, minimum=minimum, value=value)
            values[name] = value
        return cls(**values)


@cache
def bundled_rules() -> CheckRules:
    """The core check numbers of the bundled ruleset manifest."""
    import yaml

    from .resources import bundled_ruleset

    manifest = yaml.safe_load((bundled_ruleset() / "ruleset.yaml").read_text(encoding="utf-8"))
    return CheckRules.from_parameters((manifest or {}).get("parameters") or {})


def _rules(rules: CheckRules | None, faces: int | None) -> CheckRules:
    rules = rules or bundled_rules()
    if faces is not None and faces != rules.faces:
        return CheckRules(faces, rules.default_dice, rules.zero_dice_roll)
    return rules


@dataclass(frozen=True)
class CheckSpec:
    """``dice`` d-faces dice against the ability value ``target``, with an optional ``challenge``."""

    dice: int
    target: int
    challenge: int | None = None

    @property
    def notation(self) -> str:
        challenge = "" if self.challenge is None else f"C{self.challenge}"
        return f"{self.dice}MP{self.target}{challenge}"

    @property
    def zero_dice(self) -> bool:
        return self.dice == 0


def parse_notation(text: str, *, rules: CheckRules | None = None,
                   loc: Location | None = None) -> CheckSpec:
    """``3MP15C10`` -> ``CheckSpec(3, 15, 10)``; ``MP12`` takes the default dice count; full-width ok."""
    where = loc or Location(path="NOTATION")
    normal = unicodedata.normalize("NFKC", text).strip()
    match = _NOTATION.fullmatch(normal)
    if match is None:
        raise MprError(BAD_NOTATION, where, text=text)
    count, target, challenge = match.groups()
    dice = int(count) if count else _rules(rules, None).default_dice
    spec = CheckSpec(dice, int(target), None if challenge is None else int(challenge))
    for what, value, limit in (("n", spec.dice, MAX_CHECK_DICE),
                               ("m", spec.target, MAX_CHECK_NUMBER),
                               ("x", spec.challenge or 0, MAX_CHECK_NUMBER)):
        if value > limit:
            raise MprError(CHECK_TOO_LARGE, where, what=what, value=value, limit=limit)
    return spec


@dataclass(frozen=True, order=True)
class CheckResult:
    """What a check came to, without its dice: the unit of ``success_distribution``."""

    success: bool
    special: str | None = None  # "JP" | "BB"
    value: int | None = None  # the achieved value (達成値) of a success

    @property
    def result(self) -> str:
        return "success" if self.success else "failure"


@dataclass(frozen=True)
class CheckOutcome:
    """A resolved check: the dice shown and what they give."""

    spec: CheckSpec
    dice: tuple[int, ...]
    outcome: CheckResult

    @property
    def success(self) -> bool:
        return self.outcome.success

    @property
    def special(self) -> str | None:
        return self.outcome.special

    @property
    def value(self) -> int | None:
        return self.outcome.value

    def to_json(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "success": self.success, "result": self.outcome.result,
                "special": self.special, "value": self.value}

    def text(self, lang: str = "ja") -> str:
        """BCDice style: ``(3MP15C10) > [9,4,12] > 成功（達成値12）``."""
        dice = ",".join(map(str, self.dice))
        return f"({self.spec.notation}) > [{dice}] > {describe(self.outcome, lang)}"


def describe(result: CheckResult, lang: str = "ja") -> str:
    """``成功（達成値12）``, ``ジャックポット！ 成功（達成値15）``, ``バッドビート… 失敗``, or English."""
    if lang == "ja":
        verdict = f"成功（達成値{result.value}）" if result.success else "失敗"
        prefix = {JACKPOT: "ジャックポット！ ", BAD_BEAT: "バッドビート… "}.get(result.special or "", "")
    else:
        verdict = f"success (value {result.value})" if result.success else "failure"
        prefix = {JACKPOT: "jackpot! ", BAD_BEAT: "bad beat... "}.get(result.special or "", "")
    return prefix + verdict


# The check as a fold over its dice: a small summary state, one step per die, then a verdict.
# ``resolve`` and ``success_distribution`` share these, so the odds are those of the dice rules.

@dataclass(frozen=True)
class _Fold:
    initial: Hashable
    step: Callable[[Any, int], Hashable]
    verdict: Callable[[Any], CheckResult]


def _fold_of(spec: CheckSpec) -> _Fold:
    m = spec.target
    x = spec.challenge if spec.challenge is not None else 1

    if not spec.zero_dice:
        # state: (highest die <= m or 0, some die == m, every die == 1)
        def step(state: tuple[int, bool, bool], die: int) -> tuple[int, bool, bool]:
            best, jackpot, ones = state
            return (max(best, die) if die <= m else best, jackpot or die == m, ones and die == 1)

        def verdict(state: tuple[int, bool, bool]) -> CheckResult:
            best, jackpot, ones = state
            if ones:
                return CheckResult(False, BAD_BEAT)
            if jackpot:
                return CheckResult(True, JACKPOT, m)
            if best and best >= x:
                return CheckResult(True, None, best)
            return CheckResult(False)

        return _Fold((0, False, True), step, verdict)

    # zero dice, keep the worse: state (lowest die, highest die); -1 marks "no die yet"
    def step_zero(state: tuple[int, int], die: int) -> tuple[int, int]:
        low, high = state
        return (die if low < 0 else min(low, die), max(high, die))

    def verdict_zero(state: tuple[int, int]) -> CheckResult:
        low, high = state
        if low == 1:
            return CheckResult(False, BAD_BEAT)
        if low == high == m:
            return CheckResult(True, JACKPOT, m)
        if high <= m and low >= x:
            return CheckResult(True, None, low)
        return CheckResult(False)

    return _Fold((-1, 0), step_zero, verdict_zero)


def dice_rolled(spec: CheckSpec, rules: CheckRules | None = None) -> int:
    """How many dice the check rolls: n, or the zero-dice roll when n is 0."""
    return _rules(rules, None).zero_dice_roll if spec.zero_dice else spec.dice


def resolve(spec: CheckSpec, dice_values: Sequence[int], *, faces: int | None = None,
            rules: CheckRules | None = None, loc: Location | None = None) -> CheckOutcome:
    """The outcome the dice shown give (pure). Too few, too many or out-of-range dice are errors."""
    rules = _rules(rules, faces)
    script = ScriptedDice(dice_values, loc)
    count = dice_rolled(spec, rules)
    values = script.roll(rules.faces, count)
    if script.unused:
        raise MprError(SCRIPT_UNUSED, script.loc, unused=len(script.unused),
                       values=",".join(map(str, script.unused)), used=count)
    return _outcome(spec, values)


def roll(spec: CheckSpec, source: DiceSource, *, faces: int | None = None,
         rules: CheckRules | None = None) -> CheckOutcome:
    """Roll the check's dice from ``source`` (seeded or scripted) and resolve them."""
    rules = _rules(rules, faces)
    return _outcome(spec, source.roll(rules.faces, dice_rolled(spec, rules)))


def _outcome(spec: CheckSpec, values: Sequence[int]) -> CheckOutcome:
    fold = _fold_of(spec)
    state = fold.initial
    for die in values:
        state = fold.step(state, die)
    return CheckOutcome(spec, tuple(values), fold.verdict(state))


def success_distribution(spec: CheckSpec, *, faces: int | None = None,
                         rules: CheckRules | None = None) -> Distribution:
    """The exact distribution of ``CheckResult`` over every roll of the check's dice."""
    rules = _rules(rules, faces)
    fold = _fold_of(spec)
    die = Distribution.die(rules.faces)
    states = Distribution.fold([die] * dice_rolled(spec, rules), fold.initial, fold.step)
    return states.map(fold.verdict)


def success_probability(spec: CheckSpec, *, faces: int | None = None,
                        rules: CheckRules | None = None) -> Fraction:
    """The exact chance that the check succeeds (JP included, BB excluded)."""
    return success_distribution(spec, faces=faces, rules=rules).probability(lambda r: r.success)
