"""The check of BCDice notation ``nMPmCx``: parse it, resolve it from the dice shown, roll it, and
compute its exact outcome distribution. Everything the game decides (the faces, n when omitted, the
zero-dice policy, success, the achieved value, the special results and their precedence, the words
of the result line) is data, read from the ruleset's ``parameters.core_check`` (``dice_pool``).
"""
from __future__ import annotations

import os
import re
from functools import cache

from rules_dsl.dice import SCRIPT_UNUSED, DiceSource, ScriptedDice
from rules_dsl.frozen import Frozen, replace
from rules_dsl.errors import Location, MprError, define
from interpreter.solvers.limits import MAX_CHECK_DICE, MAX_CHECK_NUMBER
from rules_dsl.words import localized

from interpreter.solvers.dice_pool import PoolFold, PoolRules, Verdict, explain, pool_fold, verdict_weights

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from rules_dsl.distribution import Distribution
    from fractions import Fraction
    from collections.abc import Mapping, Sequence
    from typing import Any

BAD_NOTATION = define(
    "MPR010", "{text!r} is not a core check: write nMPm or nMPmCx, e.g. 3MP15C10, MP12, 0MP15C5, "
    "(1+2)MP(10+5)C3 (a label may follow after a space: 3MP15C10 label)",
    "{text!r} は判定の書式ではありません。nMPm または nMPmCx と書いてください（例: 3MP15C10、MP12、"
    "0MP15C5、(1+2)MP(10+5)C3。空白のあとはラベルです: 3MP15C10 ラベル）")
CHECK_TOO_LARGE = define(
    "MPR011", "{what} of the core check is {value}, more than the limit {limit}",
    "判定の {what} が {value} で、上限 {limit} を超えています")
CheckRules = PoolRules

# BCDice's reading of a command line, step by step: what follows the first ASCII blank is a label;
# each innermost parenthesis of integer arithmetic is replaced by its value, again until none is
# left; the text is upper-cased; an ``S`` in front asks for a secret roll; then ``nMPm`` with an
# optional ``C`` and challenge (a bare ``C`` is ``C0``). mprules reads full-width characters too
# (NFKC), which BCDice refuses.
# Patterns of the notation, compiled (by re's cache) the first time a notation is read, not when
# the module loads: a run of a Check rule reads none (start-up).
_BLANK = r"[ \t\r\n\f\v]"
_PARENTHESES = r"\([0-9/+*\-CURF]+\)"
_COMMAND = r"(S?)([0-9]*)MP([0-9]+)(C?)([0-9]*)"
_TOKEN = r"[0-9]+|[-+*/()CURF]"
_MAX_DIGITS = 18  # a number BCDice's arithmetic reads, before it is checked against its limit


@cache
def bundled_rules() -> PoolRules:
    """The check data of the bundled ruleset manifest (read without loading every rule; its
    parameters kept in the cache, so a check does not import the YAML reader)."""
    # start-up: rules_dsl.cachefile loads only when bundled_rules() runs
    from rules_dsl.cachefile import derived

    # start-up: interpreter.documents.resources loads only when bundled_rules() runs
    from interpreter.documents.resources import bundled_ruleset_dir

    manifest = os.path.join(bundled_ruleset_dir(), "ruleset.yaml")
    return PoolRules.from_parameters(derived(manifest, "manifest-parameters",
                                             lambda: _manifest_parameters(manifest)))


def _manifest_parameters(path: str) -> dict[str, Any]:
    # start-up: yaml loads only when _manifest_parameters() runs
    import yaml

    with open(path, encoding="utf-8") as handle:
        manifest = yaml.safe_load(handle.read())
    parameters = (manifest or {}).get("parameters") if isinstance(manifest, dict) else None
    return parameters or {}


def rules_of(parameters: Mapping[str, Any] | None) -> PoolRules:
    """The check data of a ruleset's ``parameters``, or of the bundled ruleset when None."""
    return bundled_rules() if parameters is None else PoolRules.from_parameters(parameters)


def _rules(rules: PoolRules | None, faces: int | None) -> PoolRules:
    rules = rules or bundled_rules()
    return rules if faces is None or faces == rules.faces else replace(rules, faces=faces)


class CheckSpec(Frozen):
    """``dice`` dice against the target value ``target``, with an optional ``challenge``."""

    __slots__ = ("dice", "target", "challenge")
    _defaults = {"challenge": None}
    dice: int
    target: int
    challenge: int | None

    @property
    def notation(self) -> str:
        """BCDice's echo of the command: the challenge is always shown, ``C0`` when none was given."""
        return f"{self.dice}MP{self.target}C{self.challenge or 0}"

    @property
    def zero_dice(self) -> bool:
        return self.dice == 0


class Command(Frozen):
    """A command line as BCDice reads it: the command after its parentheses are computed and
    upper-cased, the label after the first blank, and whether ``S`` asked for a secret roll."""

    __slots__ = ("command", "label", "secret", "match")
    command: str
    label: str
    secret: bool
    match: Any


def read_command(text: str) -> Command:
    """``3mp(10+5)C ラベル`` -> command ``3MP15C``, label ``ラベル``; ``match`` is None when the
    command is not ``[S]nMPm[C[x]]``."""
    parts = re.split(_BLANK, _nfkc(text).strip(), maxsplit=1)
    command, label = parts[0], parts[1] if len(parts) > 1 else ""
    while True:
        computed = re.sub(_PARENTHESES, _computed, command)
        if computed == command:
            break
        command = computed
    command = command.upper()
    match = re.fullmatch(_COMMAND, command)
    return Command(command, label.strip(), bool(match and match.group(1)), match)


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``; ASCII text is its own NFKC, read without loading
    unicodedata (start-up)."""
    if text.isascii():
        return text
    # start-up: unicodedata loads only for a text that is not ASCII
    import unicodedata

    return unicodedata.normalize("NFKC", text)


def _computed(match: re.Match) -> str:
    value = arithmetic(match.group())
    return match.group() if value is None else str(value)


def arithmetic(text: str) -> int | None:
    """BCDice's integer arithmetic of a parenthesis: ``+ - * /`` and unary signs, a division
    rounded down unless ``C``/``U`` (up), ``R`` (half away from zero) or ``F`` (down) follows its
    divisor; None when it is not such an expression or divides by zero (BCDice leaves it as
    written)."""
    tokens = re.findall(_TOKEN, text)
    if "".join(tokens) != text or any(t.isdigit() and len(t) > _MAX_DIGITS for t in tokens):
        return None
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def add() -> int:
        value = mul()
        while peek() in ("+", "-"):
            value = value + mul() if take() == "+" else value - mul()
        return value

    def mul() -> int:
        value = unary()
        while peek() in ("*", "/"):
            if take() == "*":
                value *= unary()
            else:
                divisor = unary()
                rounding = take() if peek() in ("C", "U", "R", "F") else "F"
                value = _divide(value, divisor, rounding)
            if abs(value) > 10 ** _MAX_DIGITS:
                raise OverflowError
        return value

    def unary() -> int:
        token = peek()
        if token == "+":
            take()
            return unary()
        if token == "-":
            take()
            return -unary()
        return term()

    def term() -> int:
        token = take() if peek() is not None else None
        if token == "(":
            value = add()
            if peek() != ")":
                raise ValueError
            take()
            return value
        if token is None or not token.isdigit():
            raise ValueError
        return int(token)

    try:
        value = add()
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if position == len(tokens) else None


def _divide(dividend: int, divisor: int, rounding: str) -> int:
    if divisor == 0:
        raise ZeroDivisionError
    if rounding in ("C", "U"):
        return -(-dividend // divisor)
    if rounding == "R":  # half away from zero
        whole, rest = divmod(abs(dividend), abs(divisor))
        whole += 2 * rest >= abs(divisor)
        return whole if (dividend >= 0) == (divisor > 0) else -whole
    return dividend // divisor


def is_notation(text: str) -> bool:
    """Whether ``text`` is a check BCDice would roll (``3MP15C10``, ``MP12``, ``3MP(15) メモ``,
    full-width too)."""
    return read_command(text).match is not None


def parse_notation(text: str, *, rules: CheckRules | None = None,
                   loc: Location | None = None) -> CheckSpec:
    """``3MP15C10`` -> ``CheckSpec(3, 15, 10)``, as BCDice reads it: ``MP12`` takes the default dice
    count, ``3MP15C`` is ``C0``, parentheses are computed, a label after a blank is left out
    (``read_command(text).label``), lower case and full-width are read."""
    where = loc or Location(path="NOTATION")
    match = read_command(text).match
    if match is None:
        raise MprError(BAD_NOTATION, where, text=text)
    _, count, target, letter, challenge = match.groups()
    for what, digits in (("n", count), ("m", target), ("x", challenge)):
        if len(digits) > _MAX_DIGITS:
            raise MprError(CHECK_TOO_LARGE, where, what=what, value=digits[:20] + "…",
                           limit=MAX_CHECK_DICE if what == "n" else MAX_CHECK_NUMBER)
    dice = int(count) if count else _rules(rules, None).default_dice
    spec = CheckSpec(dice, int(target), int(challenge or 0) if letter else None)
    for what, value, limit in (("n", spec.dice, MAX_CHECK_DICE),
                               ("m", spec.target, MAX_CHECK_NUMBER),
                               ("x", spec.challenge or 0, MAX_CHECK_NUMBER)):
        if value > limit:
            raise MprError(CHECK_TOO_LARGE, where, what=what, value=value, limit=limit)
    return spec


CheckResult = Verdict


def result_word(result: Verdict) -> str:
    return "success" if result.success else "failure"


class CheckOutcome(Frozen):
    """A resolved check: the dice shown, what they give, and the data that decided it."""

    __slots__ = ("spec", "dice", "outcome", "fold")
    spec: CheckSpec
    dice: tuple[int, ...]
    outcome: Verdict
    fold: PoolFold

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
        return {"dice": list(self.dice), "success": self.success, "result": result_word(self.outcome),
                "special": self.special, "value": self.value}

    def text(self, lang: str = "ja") -> str:
        """BCDice's line: ``(3MP15C5) > [10,4,18] > 成功(10)``, ``成功(JP)``, ``失敗(BB)``, ``失敗``."""
        dice = ",".join(map(str, self.dice))
        return f"({self.spec.notation}) > [{dice}] > {describe(self.outcome, self.fold.rules, lang)}"

    def explanation(self, lang: str = "ja") -> list[str]:
        """The lines under the result line: each condition of the data, and whether it held."""
        return explain(self.fold, self.dice, lang)


def describe(result: Verdict, rules: PoolRules, lang: str = "ja") -> str:
    """The verdict word of the data, then the special result's tag or the achieved value in brackets."""
    word = localized(rules.words[result_word(result)], lang)
    detail = result.special if result.special is not None else result.value
    return word if detail is None else f"{word}({detail})"


def special_label(rules: PoolRules, tag: str, lang: str = "ja") -> str:
    special = rules.special(tag)
    if special is None:
        return tag
    return localized(special.label, lang)


def _fold_of(spec: CheckSpec, rules: PoolRules) -> PoolFold:
    return pool_fold(rules, spec.dice, spec.target, spec.challenge or 0, dice_rolled(spec, rules))


def dice_rolled(spec: CheckSpec, rules: PoolRules | None = None) -> int:
    """How many dice the check rolls: n, or the zero-dice roll when n is 0."""
    return _rules(rules, None).zero_dice_roll if spec.zero_dice else spec.dice


def resolve(spec: CheckSpec, dice_values: Sequence[int], *, faces: int | None = None,
            rules: PoolRules | None = None, loc: Location | None = None) -> CheckOutcome:
    """The outcome the dice shown give (pure). Too few, too many or out-of-range dice are errors."""
    rules = _rules(rules, faces)
    script = ScriptedDice(dice_values, loc)
    count = dice_rolled(spec, rules)
    values = script.roll(rules.faces, count)
    if script.unused:
        raise MprError(SCRIPT_UNUSED, script.loc, unused=len(script.unused),
                       values=",".join(map(str, script.unused)), used=count)
    return _outcome(spec, values, rules)


def roll(spec: CheckSpec, source: DiceSource, *, faces: int | None = None,
         rules: PoolRules | None = None) -> CheckOutcome:
    """Roll the check's dice from ``source`` (seeded or scripted) and resolve them."""
    rules = _rules(rules, faces)
    return _outcome(spec, source.roll(rules.faces, dice_rolled(spec, rules)), rules)


def _outcome(spec: CheckSpec, values: Sequence[int], rules: PoolRules) -> CheckOutcome:
    fold = _fold_of(spec, rules)
    state = fold.initial
    for die in values:
        state = fold.step(state, die)
    return CheckOutcome(spec, tuple(values), fold.verdict(state), fold)


def success_weights(spec: CheckSpec, *, faces: int | None = None,
                    rules: PoolRules | None = None) -> tuple[dict[Verdict, int], int]:
    """``(weights, total)``: how many of the ``total`` equally likely rolls of the check's dice
    give each ``Verdict``, in whole numbers (the chance of a verdict is its weight over the
    total; nothing here loads ``fractions``)."""
    rules = _rules(rules, faces)
    fold = _fold_of(spec, rules)
    rolled = dice_rolled(spec, rules)
    return verdict_weights(fold, rolled), rules.faces ** rolled


def success_distribution(spec: CheckSpec, *, faces: int | None = None,
                         rules: PoolRules | None = None) -> Distribution:
    """The exact distribution of ``Verdict`` over every roll of the check's dice."""
    weights, total = success_weights(spec, faces=faces, rules=rules)
    # start-up: exact distributions (and fractions) load only when odds are asked for
    from fractions import Fraction  # start-up: as above
    from rules_dsl.distribution import Distribution  # start-up: as above

    return Distribution({verdict: Fraction(weight, total) for verdict, weight in weights.items()})


def success_probability(spec: CheckSpec, *, faces: int | None = None,
                        rules: PoolRules | None = None) -> Fraction:
    """The exact chance that the check succeeds (special results included)."""
    return success_distribution(spec, faces=faces, rules=rules).probability(lambda r: r.success)


class CheckOdds(Frozen):
    """The exact chances of a check: success, each special result (by tag), and every outcome."""

    __slots__ = ("spec", "rules", "outcomes")
    spec: CheckSpec
    rules: PoolRules
    outcomes: Distribution

    @property
    def success(self) -> Fraction:
        return self.outcomes.probability(lambda r: r.success)

    def special(self, tag: str) -> Fraction:
        return self.outcomes.probability(lambda r: r.special == tag)

    def rows(self, lang: str = "ja") -> list[tuple[str, Fraction]]:
        """Each result line's verdict (``成功(12)``, ``成功(JP)``, ``失敗``...) with its chance,
        successes first from the best value down."""
        def order(item: tuple[Verdict, Fraction]) -> tuple:
            r = item[0]
            return (not r.success, r.special is None, -(r.value or 0), r.special or "")
        return [(describe(r, self.rules, lang), p) for r, p in sorted(self.outcomes.items(), key=order)]


def odds(spec: CheckSpec, rules: PoolRules | None = None) -> CheckOdds:
    rules = _rules(rules, None)
    return CheckOdds(spec, rules, success_distribution(spec, rules=rules))
