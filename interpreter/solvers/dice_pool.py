"""A dice pool check as data: n dice of f faces against a target (and an optional lower bound, the
challenge), whose success, achieved value and special results are expressions over one die, read
from a ruleset's parameters. Resolving dice and the exact distribution are the same fold over the
dice, so the odds always match the rules written in the data.

Each condition is a quantifier over the dice (``any`` or ``all`` of a per-die expression of
``die``, ``target``, ``challenge``, ``dice``, ``rolled``), optionally with ``if`` (an expression
without ``die``). A pool rolled "keeping the worse" (the zero-dice policy) uses the dual rules:
``any`` and ``all`` swap, and the highest value becomes the lowest.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from rules_dsl.frozen import Frozen
from rules_dsl.errors import EXIT_STATE, Location, MprError, define
from rules_dsl.words import define_word, define_words, localized, same_text, vocabulary, word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

BAD_POOL_NUMBER = define(
    "MPR012", "parameters.core_check.{name} of the ruleset must be a whole number >= {minimum}, got {value!r}",
    "ルールセットの parameters.core_check.{name} は {minimum} 以上の整数でなければなりません（値: {value!r}）",
    exit_code=EXIT_STATE)
BAD_POOL_FIELD = define(
    "MPR730", "parameters.core_check.{name} of the ruleset must be {expected}, got {value!r}",
    "ルールセットの parameters.core_check.{name} は {expected_ja} でなければなりません（値: {value!r}）",
    exit_code=EXIT_STATE)

DIE_NAMES = frozenset({"die", "target", "challenge", "dice", "rolled"})
POOL_NAMES = DIE_NAMES - {"die"}
QUANTIFIERS = ("any", "all")
EXTREMES = ("highest", "lowest")
EFFECTS = ("success", "failure")
KEEPS = ("worse", "better")
QUANTIFIER_WORDS = define_words("dice_pool.quantifier", {"any": "some die:", "all": "every die:"},
                                {"any": "いずれかの目が", "all": "すべての目が"})
HOLDS = define_word("dice_pool.holds", "holds", "成り立つ")
FAILS = define_word("dice_pool.fails", "does not hold", "成り立たない")
_DUAL = {"any": "all", "all": "any", "highest": "lowest", "lowest": "highest"}


def _where(name: str) -> Location:
    return Location(path=f"parameters.core_check.{name}")


def _field_error(name: str, expected: str, expected_ja: str, value: Any) -> MprError:
    return MprError(BAD_POOL_FIELD, _where(name), name=name, expected=expected,
                    expected_ja=expected_ja, value=value)


# A sample of the names every expression of the check may use (all of them numbers), to learn what
# an expression gives: a condition must give true or false, a value a number.
_SAMPLE = {"die": 1, "target": 10, "challenge": 0, "dice": 1, "rolled": 1}
_WANTED = {"boolean": ("a condition (an expression that is true or false)",
                       "条件（true か false になる式）"),
           "number": ("an expression that gives a number", "数になる式")}


def _expression(text: Any, name: str, known: frozenset[str], want: str = "boolean") -> Any:
    # start-up: rules_dsl loads only when _expression() runs
    from rules_dsl import compile_expression

    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise _field_error(name, "an expression", "式", text)
    try:
        compiled = compile_expression(str(text), names=set(known))
    except MprError as error:
        # the column inside the expression stays; the field path says where the expression is
        where = error.loc or Location()
        error.loc = Location(where.file, where.line, where.column, _where(name).path)
        raise error from None
    try:
        sample = compiled.evaluate({k: v for k, v in _SAMPLE.items() if k in known})
    except (MprError, ArithmeticError):  # e.g. a division by zero at this sample: no verdict
        return compiled
    fractions = sys.modules.get("fractions")  # a Fraction was made by a module already loaded
    is_number = not isinstance(sample, bool) and (isinstance(sample, (int, float)) or (
        fractions is not None and isinstance(sample, fractions.Fraction)))
    if (want == "boolean" and not isinstance(sample, bool)) or (want == "number" and not is_number):
        raise _field_error(name, *_WANTED[want], text)
    return compiled


def _text(value: Any, name: str) -> dict[str, str]:
    if isinstance(value, str):
        return same_text(value)
    if isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values()) and value:
        return dict(value)
    raise _field_error(name, "a text or {ja, en}", "文字列か {ja, en}", value)


class Condition(Frozen):
    """``quantifier`` (any/all) of ``per_die`` over the dice, and ``guard`` (or None) over the pool."""

    __slots__ = ("quantifier", "text", "guard_text", "per_die", "guard")
    _uncompared = frozenset({"per_die", "guard"})
    quantifier: str
    text: str
    guard_text: str | None
    per_die: Any
    guard: Any

    @classmethod
    def parse(cls, data: Any, name: str) -> "Condition":
        if not isinstance(data, Mapping):
            raise _field_error(name, "{any: EXPR} or {all: EXPR} (and optionally if: EXPR)",
                               "{any: 式} か {all: 式}（if: 式 も可）", data)
        quantifiers = [q for q in QUANTIFIERS if q in data]
        extra = sorted(set(data) - set(QUANTIFIERS) - {"if"})
        if len(quantifiers) != 1 or extra:
            raise _field_error(name, "exactly one of any or all (and optionally if)",
                               "any か all のどちらか1つ（if も可）", dict(data))
        quantifier = quantifiers[0]
        per_die = _expression(data[quantifier], f"{name}.{quantifier}", DIE_NAMES)
        guard_text = data.get("if")
        guard = None if guard_text is None else _expression(guard_text, f"{name}.if", POOL_NAMES)
        return cls(quantifier, str(data[quantifier]), None if guard_text is None else str(guard_text),
                   per_die, guard)


class Special(Frozen):
    """A special result: its id, tag (e.g. for BCDice's line), label, condition, effect, precedence,
    whether it stands regardless of the challenge, and the achieved value it gives (or None)."""

    __slots__ = ("id", "tag", "label", "when", "effect", "precedence", "over_challenge", "value_text",
                 "value")
    _uncompared = frozenset({"label", "value"})
    id: str
    tag: str | None  # None: the line shows the plain verdict
    label: dict[str, str]
    when: Condition
    effect: str
    precedence: int
    over_challenge: bool
    value_text: str | None
    value: Any

    @classmethod
    def parse(cls, key: str, data: Any) -> "Special":
        name = f"results.{key}"
        if not isinstance(data, Mapping):
            raise _field_error(name, "a mapping", "マッピング", data)
        effect = data.get("effect")
        if effect not in EFFECTS:
            raise _field_error(f"{name}.effect", "success or failure", "success か failure", effect)
        precedence = data.get("precedence")
        if isinstance(precedence, bool) or not isinstance(precedence, int):
            raise _field_error(f"{name}.precedence", "a whole number", "整数", precedence)
        over = data.get("over_challenge", False)
        if not isinstance(over, bool):
            raise _field_error(f"{name}.over_challenge", "true or false", "true か false", over)
        tag = data.get("tag")
        if tag is not None and (not isinstance(tag, str) or not tag):
            raise _field_error(f"{name}.tag", "a text or null", "文字列か null", tag)
        value_text = data.get("value")
        value = None if value_text is None else _expression(value_text, f"{name}.value", POOL_NAMES,
                                                            "number")
        return cls(key, tag, _text(data.get("label", tag or key), f"{name}.label"),
                   Condition.parse(data.get("when"), f"{name}.when"), effect, precedence, over,
                   None if value_text is None else str(value_text), value)


def _whole(section: Mapping[str, Any], name: str, minimum: int) -> int:
    value = section.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise MprError(BAD_POOL_NUMBER, _where(name), name=name, minimum=minimum, value=value)
    return value


class PoolRules(Frozen):
    """The data of a dice pool check: the dice, the zero-dice policy, the success condition, the
    achieved value (``extreme`` of ``value_of`` over the dice meeting ``value_where``), the words
    of the two verdicts and the special results in precedence order."""

    __slots__ = ("faces", "default_dice", "zero_dice_roll", "zero_dice_keep", "success", "extreme",
                 "value_of_text", "value_where_text", "words", "specials", "value_of", "value_where")
    _uncompared = frozenset({"words", "value_of", "value_where"})
    faces: int
    default_dice: int
    zero_dice_roll: int
    zero_dice_keep: str
    success: Condition
    extreme: str
    value_of_text: str
    value_where_text: str
    words: dict[str, dict[str, str]]
    specials: tuple[Special, ...]
    value_of: Any
    value_where: Any

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> "PoolRules":
        """From a ruleset's ``parameters`` (its ``core_check`` entry); located errors otherwise."""
        section = parameters.get("core_check")
        if not isinstance(section, Mapping):
            raise _field_error("", "a mapping", "マッピング", section)
        keep = section.get("zero_dice_keep")
        if keep not in KEEPS:
            raise _field_error("zero_dice_keep", "worse or better", "worse か better", keep)
        value = section.get("value")
        extremes = [e for e in EXTREMES if isinstance(value, Mapping) and e in value]
        if not isinstance(value, Mapping) or len(extremes) != 1 or set(value) - set(EXTREMES) - {"where"}:
            raise _field_error("value", "{highest: EXPR, where: EXPR} or {lowest: ..., where: ...}",
                               "{highest: 式, where: 式} か {lowest: 式, where: 式}", value)
        extreme = extremes[0]
        where_text = value.get("where", "true")
        words = section.get("words")
        if not isinstance(words, Mapping) or set(words) != set(EFFECTS):
            raise _field_error("words", "{success: TEXT, failure: TEXT}",
                               "{success: 文字列, failure: 文字列}", words)
        results = section.get("results") or {}
        if not isinstance(results, Mapping):
            raise _field_error("results", "a mapping of special results", "特殊な結果のマッピング", results)
        specials = sorted((Special.parse(str(k), v) for k, v in results.items()),
                          key=lambda s: s.precedence)
        return cls(
            _whole(section, "faces", 1), _whole(section, "default_dice", 0),
            _whole(section, "zero_dice_roll", 1), keep,
            Condition.parse(section.get("success"), "success"), extreme, str(value[extreme]),
            str(where_text), {k: _text(words[k], f"words.{k}") for k in EFFECTS}, tuple(specials),
            _expression(value[extreme], f"value.{extreme}", DIE_NAMES, "number"),
            _expression(where_text, "value.where", DIE_NAMES))

    def special(self, tag: str | None) -> Special | None:
        return next((s for s in self.specials if s.tag == tag), None)


class Verdict(Frozen):
    """What a check came to: success or not, the tag of the special result (or None), the value."""

    __slots__ = ("success", "special", "value")
    _defaults = {"special": None, "value": None}
    success: bool
    special: str | None
    value: int | None


class PoolFold(Frozen):
    """The check as a fold over its dice: per-face truth of every condition, then the verdict."""

    __slots__ = ("rules", "env", "dual", "conditions", "truth", "candidate")
    rules: PoolRules
    env: dict[str, Any]
    dual: bool
    conditions: tuple[Condition, ...]
    truth: tuple[tuple[bool, ...], ...]  # truth[face - 1][i]: condition i's per-die expression
    candidate: tuple[int | None, ...]  # the face's value when it meets ``value.where``

    @property
    def initial(self) -> tuple:
        return tuple(self.quantifier(c) == "all" for c in self.conditions) + (None,)

    def quantifier(self, condition: Condition) -> str:
        return _DUAL[condition.quantifier] if self.dual else condition.quantifier

    def step(self, state: tuple, die: int) -> tuple:
        truth = self.truth[die - 1]
        flags = tuple((held or truth[i]) if self.quantifier(c) == "any" else (held and truth[i])
                      for i, (c, held) in enumerate(zip(self.conditions, state)))
        best, new = state[-1], self.candidate[die - 1]
        extreme = _DUAL[self.rules.extreme] if self.dual else self.rules.extreme
        if new is not None and (best is None or (new > best if extreme == "highest" else new < best)):
            best = new
        return flags + (best,)

    def holds(self, index: int, state: tuple) -> bool:
        guard = self.conditions[index].guard
        return state[index] and (guard is None or bool(guard.evaluate(self.env)))

    def verdict(self, state: tuple) -> Verdict:
        best = state[-1]
        succeeded = self.holds(0, state)
        for i, special in enumerate(self.rules.specials, start=1):
            if not self.holds(i, state):
                continue
            if special.effect == "failure":
                return Verdict(False, special.tag)
            if special.over_challenge or succeeded:
                value = best if special.value is None else special.value.evaluate({**self.env, "value": best})
                return Verdict(True, special.tag, value)
        return Verdict(True, None, best) if succeeded else Verdict(False)


def pool_fold(rules: PoolRules, dice: int, target: int, challenge: int, rolled: int) -> PoolFold:
    """The fold of ``dice`` dice (``rolled`` actually thrown) against ``target`` and ``challenge``."""
    env = {"target": target, "challenge": challenge, "dice": dice, "rolled": rolled}
    conditions = (rules.success,) + tuple(s.when for s in rules.specials)
    truth, candidate = [], []
    for face in range(1, rules.faces + 1):
        here = {**env, "die": face}
        truth.append(tuple(bool(c.per_die.evaluate(here)) for c in conditions))
        candidate.append(rules.value_of.evaluate(here) if rules.value_where.evaluate(here) else None)
    dual = dice == 0 and rules.zero_dice_keep == "worse"
    return PoolFold(rules, env, dual, conditions, tuple(truth), tuple(candidate))


def explain(fold: PoolFold, values: Sequence[int], lang: str) -> list[str]:
    """One line per condition of the check: what it asks of the dice shown and whether it held."""
    state = fold.initial
    for die in values:
        state = fold.step(state, die)
    quantifier = vocabulary(QUANTIFIER_WORDS, lang)
    held = {True: word(HOLDS, lang), False: word(FAILS, lang)}
    lines = []
    names = [localized(fold.rules.words["success"], lang)]
    names += [" ".join(filter(None, (s.tag, localized(s.label, lang))))
              for s in fold.rules.specials]
    for i, (name, condition) in enumerate(zip(names, fold.conditions)):
        guard = "" if condition.guard_text is None else f" if {condition.guard_text}"
        lines.append(f"  {name}: {quantifier[fold.quantifier(condition)]} {condition.text}{guard}"
                     f" → {held[fold.holds(i, state)]}")
    return lines


def _folded_weights(fold: PoolFold, rolled: int) -> dict[tuple, int]:
    """The states after ``rolled`` dice, one die at a time, in whole-number weights (any values)."""
    states: dict[tuple, int] = {fold.initial: 1}
    for _ in range(rolled):
        after: dict[tuple, int] = {}
        for state, weight in states.items():
            for face in range(1, fold.rules.faces + 1):
                new = fold.step(state, face)
                after[new] = after.get(new, 0) + weight
        states = after
    return states


def state_weights(fold: PoolFold, rolled: int) -> dict[tuple, int]:
    """How many of the ``faces ** rolled`` rolls end in each state of the fold (whole numbers).

    The state depends only on which faces the dice show, never on their order or how many show
    each: every condition is "all dice lie in a set of faces" (``all``) or its negation (``any``),
    and the value is the best candidate shown, so "the value is at most v" is "all dice lie in the
    faces whose candidate is at most v (or none)". A set of c faces holds all ``rolled`` dice in
    c ** rolled rolls; inclusion and exclusion over the conditions then counts each state exactly.
    Work: (distinct values + 1) * (conditions * 2 ** conditions), whatever the number of dice.
    """
    candidates = fold.candidate
    if any(c is not None and type(c) is not int for c in candidates):  # values a sort may not order
        return _folded_weights(fold, rolled)
    m = len(fold.conditions)
    full = (1 << m) - 1
    alls = [fold.quantifier(c) == "all" for c in fold.conditions]
    masks = []  # bit i: the face keeps condition i's event "all dice lie in ..." possible
    for face in range(fold.rules.faces):
        truth = fold.truth[face]
        masks.append(sum(1 << i for i in range(m) if truth[i] == alls[i]))
    highest = (_DUAL[fold.rules.extreme] if fold.dual else fold.rules.extreme) == "highest"
    levels: dict[int | None, list[int]] = {None: []}
    for level in sorted({c for c in candidates if c is not None}, reverse=not highest):
        levels[level] = []
    for face, candidate in enumerate(candidates):
        levels[candidate].append(masks[face])
    powers = [c ** rolled for c in range(fold.rules.faces + 1)]
    exact = [0] * (1 << m)  # faces allowed so far, by their mask
    below = [0] * (1 << m)  # rolls within the levels before, by the set of events that hold
    out: dict[tuple, int] = {}
    for value, faces in levels.items():
        for mask in faces:
            exact[mask] += 1
        ways = exact[:]  # ways[T]: allowed faces keeping every event of T
        for i in range(m):
            bit = 1 << i
            for t in range(1 << m):
                if not t & bit:
                    ways[t] += ways[t | bit]
        held = [powers[c] for c in ways]
        for i in range(m):  # from "at least the events T" to "exactly the events T"
            bit = 1 << i
            for t in range(1 << m):
                if not t & bit:
                    held[t] -= held[t | bit]
        for events in range(full + 1):
            weight = held[events] - below[events]
            if weight:
                flags = tuple(bool(events >> i & 1) == alls[i] for i in range(m))
                out[flags + (value,)] = weight
        below = held
    return out


def verdict_weights(fold: PoolFold, rolled: int) -> dict[Verdict, int]:
    """How many of the ``faces ** rolled`` rolls give each verdict."""
    out: dict[Verdict, int] = {}
    for state, weight in state_weights(fold, rolled).items():
        verdict = fold.verdict(state)
        out[verdict] = out.get(verdict, 0) + weight
    return out
