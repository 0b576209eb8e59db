"""The kind ``Check``: the ruleset's dice pool check (``parameters.core_check``) whose need, dice and
challenge value are expressions of the inputs, the parameters and values derived by running other
rules; with the value checked given, its exact success chance and a roll."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import Location, MprError, define, diagnostic, did_you_mean
from rules_dsl.words import ASIDE, LIST_SEPARATOR, define_word, localized, word

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.solvers import pool_notation as core_check
from interpreter.engine.trace import ProbRow, ProbTable
from interpreter.engine.registry import Kind
from rules_dsl.plain import ratio_text
from interpreter.kinds._amounts import whole
from interpreter.kinds._derive import run_rule

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, TypedDict

BAD_CHECK_VALUE = define(
    "MPR550", "{field} of {rule} must give {expected[en]}, got {value!r}",
    "{rule} の {field} は{expected[ja]}でなければなりません（値: {value!r}）")
CHECK_LIMIT = define(
    "MPR551", "{field} is {value}, more than the limit {limit}",
    "{field} が {value} で、上限 {limit} を超えています")

UNKNOWN_FORMULA_NAME = define(
    "MPR553", "{field} of {rule} uses {name!r}, which is not an input, a derived value or an earlier formula{hint}",
    "{rule} の {field} が使う {name!r} は入力・導出値・先の式のいずれでもありません{hint}")

FORMULAS = ("required", "dice_bonus", "dice", "challenge")
HEAD = define_word("check.head", "{dice} dice, challenge {challenge}", "ダイス{dice}個、チャレンジ値{challenge}")
HEAD_ONE = define_word("check.head_one", "1 die, challenge {challenge}", "ダイス1個、チャレンジ値{challenge}")
ABILITY = define_word("check.ability", "ability {value}", "能力値{value}")
NO_CHECK = define_word("check.no_check", "no check", "判定なし")
BY = define_word("check.by", "chance of success by ability value", "能力値ごとの成功率")
TOTAL = define_word("check.total", "chance of {word} in all: {percent} ({p})", "{word}の確率（合計）: {percent}（{p}）")
SEPARATE = define_word("check.separate", "each row is a separate chance; the rows do not sum to 1",
                       "各行は別々の確率です（合計は1になりません）")


def _derived(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Each ``derive`` entry: another rule run on the named inputs (e.g. a table whose sum raises the challenge)."""
    values = {}
    for name, spec in (rule.doc.get("derive") or {}).items():
        forwarded = {k: inputs[k] for k in spec.get("inputs") or [] if k in inputs}
        values[name] = run_rule(ctx, spec["rule"], forwarded)
    return values


def _formulas(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """``required``, ``dice_bonus``, ``dice`` and ``challenge`` in that order, each seeing the ones
    before it, the inputs, the derived values and ``params``."""
    for name in rule.params:
        ctx.param(rule, name)
    env: dict[str, Any] = {**inputs, "params": rule.params, **_derived(rule, inputs, ctx)}
    for name in FORMULAS:
        value = ctx.evaluate(rule, (name,), env, label=name)
        ok = isinstance(value, bool) if name == "required" else \
            isinstance(value, int) and not isinstance(value, bool)
        if not ok:
            raise MprError(BAD_CHECK_VALUE, rule.loc(name), field=name, rule=rule.id,
                           expected=_expected("boolean" if name == "required" else "integer"), value=value)
        env[name] = value
    return env


def _spec(rule: Rule, values: dict[str, Any], ability: int) -> core_check.CheckSpec:
    # start-up: interpreter.solvers.limits loads only when _spec() runs
    from interpreter.solvers.limits import MAX_CHECK_DICE, MAX_CHECK_NUMBER

    attribute = rule.doc["attribute"]
    for field, value, limit in ((attribute, ability, MAX_CHECK_NUMBER),
                                ("dice", values["dice"], MAX_CHECK_DICE),
                                ("challenge", values["challenge"], MAX_CHECK_NUMBER)):
        if value > limit:
            raise MprError(CHECK_LIMIT, Location(path=field), field=field, value=value, limit=limit)
    if values["dice"] < 0:
        raise MprError(BAD_CHECK_VALUE, rule.loc("dice"), field="dice", rule=rule.id,
                       expected=_expected("whole_or_more"), value=values["dice"])
    return core_check.CheckSpec(values["dice"], ability, values["challenge"])


# A probability in results: exact, and as a float for tools that want one.
if TYPE_CHECKING:
    Probability = TypedDict("Probability", {"fraction": str, "float": float})


def _probability(weight: int, total: int) -> Probability:
    """The chance ``weight`` over ``total``, exact (as ``Fraction`` writes it) and as a float
    (``float(Fraction(weight, total))``), counted without loading fractions."""
    return {"fraction": ratio_text(weight, total), "float": weight / total}


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    env = _formulas(rule, inputs, ctx)
    attribute = rule.doc["attribute"]
    value: dict[str, Any] = {"required": env["required"]}
    value.update({name: env[name] for name in rule.doc.get("derive") or {}})
    value.update({"attribute": attribute, "dice_bonus": env["dice_bonus"], "dice": env["dice"],
                  "challenge": env["challenge"]})
    if inputs.get(attribute) is None:
        return value
    ability = whole(inputs[attribute], attribute)
    if not env["required"]:
        ctx.trace.add("note", word(NO_CHECK, ctx.lang), 1)
        value["probability"] = _probability(1, 1)
        return value
    rules = core_check.rules_of(ctx.ruleset.parameters)
    spec = _spec(rule, env, ability)
    weight, total = _success_weight(spec, rules)
    chance = value["probability"] = _probability(weight, total)
    # the trace shows the chance as a Fraction's value is shown (3/4, or 1 when it is whole), held
    # as that text or number: fractions is not loaded for it
    shown = chance["fraction"]
    ctx.trace.add("expr", f"P(success of {spec.notation})", int(shown) if "/" not in shown else shown)
    if inputs.get("roll", ctx.dice.explicit):  # roll when the dice or a seed were given
        outcome = core_check.roll(spec, ctx.dice, rules=rules)
        ctx.trace.add("dice", outcome.text(ctx.lang), outcome.success, dice=list(outcome.dice))
        value["outcome"] = outcome.to_json()
    return value


def distribution(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> list[ProbTable]:
    """With the ability value: the check's outcomes (success, JP, BB, failure) exactly; without it:
    the success chance for every ability value a die can show."""
    env = _formulas(rule, inputs, ctx)
    attribute = rule.doc["attribute"]
    rules = core_check.rules_of(ctx.ruleset.parameters)
    head = f"{rule.title(ctx.lang)}: " + word(HEAD if env["dice"] != 1 else HEAD_ONE, ctx.lang).format(
        dice=env["dice"], challenge=env["challenge"])
    if not env["required"]:
        return [ProbTable(head, [ProbRow.counted("success", 1, 1, word(NO_CHECK, ctx.lang))])]
    if inputs.get(attribute) is not None:
        spec = _spec(rule, env, whole(inputs[attribute], attribute))
        weights, total = core_check.success_weights(spec, rules=rules)
        # in the order of the exact distribution's rows (verdicts are not ordered: by their repr),
        # the impossible ones left out; counted in whole numbers (no fractions loaded)
        counted = sorted(((v, w) for v, w in weights.items() if w), key=lambda item: repr(item[0]))
        rows: dict[str, int] = {}
        for result, weight in counted:
            key = result.special or core_check.result_word(result)
            rows[key] = rows.get(key, 0) + weight
        table = [ProbRow.counted(k, w, total, _label(rules, k, ctx.lang)) for k, w in rows.items()]
        success = sum(w for v, w in counted if v.success)
        note = word(TOTAL, ctx.lang).format(word=_label(rules, "success", ctx.lang), p=ratio_text(success, total),
                                            percent=f"{success / total * 100:.2f}%")
        return [ProbTable(f"{head}{word(LIST_SEPARATOR, ctx.lang)}"
                          + word(ABILITY, ctx.lang).format(value=spec.target), table, note=note)]
    rows_by_ability = [ProbRow.counted(m, *_success_weight(_spec(rule, env, m), rules),
                                       word(ABILITY, ctx.lang).format(value=m)) for m in range(1, rules.faces + 1)]
    return [ProbTable(f"{head}: {word(BY, ctx.lang)}", rows_by_ability, note=word(SEPARATE, ctx.lang))]


def _expected(name: str) -> dict[str, str]:
    """What a formula must give, in both languages, for its message."""
    # start-up: the words of the reasons load only when a formula gives a wrong value
    from interpreter.kinds._reasons import EXPECTED

    return EXPECTED[name]


def _success_weight(spec: core_check.CheckSpec, rules: Any) -> tuple[int, int]:
    """``(weight, total)``: of the ``total`` rolls of the check's dice, how many succeed."""
    weights, total = core_check.success_weights(spec, rules=rules)
    return sum(w for v, w in weights.items() if v.success), total


def _label(rules: Any, key: str, lang: str) -> str:
    """The data's word for a verdict (``success``/``failure``) or the label of a special result."""
    if key in rules.words:
        return localized(rules.words[key], lang)
    special = rules.special(key)
    effect = localized(rules.words[special.effect], lang)
    return word(ASIDE, lang).format(text=core_check.special_label(rules, key, lang), aside=effect)


def _at_manifest(error: MprError, ruleset: Ruleset) -> MprError:
    """An error about ``parameters.core_check`` located at that line of the ruleset's manifest."""
    # start-up: pathlib loads only when _at_manifest() runs
    from pathlib import Path

    where = error.loc or Location()
    if where.file is None:
        manifest = Path(ruleset.root) / "ruleset.yaml"
        lines = manifest.read_text(encoding="utf-8").splitlines() if manifest.is_file() else []
        line = next((i for i, text in enumerate(lines, 1) if text.strip().startswith("core_check:")), 1)
        error.loc = Location(str(manifest), line, 1, where.path)
    return error


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Any]:
    """Semantic check: the ruleset's check data (``parameters.core_check``) is whole, and every formula compiles and uses only the inputs, ``params``, the derived
    values and the formulas before it (``derive`` targets are ``x-rule-ref`` in the schema)."""
    # start-up: rules_dsl loads only when check() runs
    from rules_dsl import compile_expression

    first = min(r.id for r in ruleset.rules.values() if r.kind == rule.kind)
    if rule.id == first and "core_check" in ruleset.parameters:  # the check data, reported once
        try:
            core_check.rules_of(ruleset.parameters)
        except MprError as error:
            yield _at_manifest(error, ruleset).diagnostic(lang)
    derived = rule.doc.get("derive") or {}
    known = set((rule.doc.get("inputs") or {}).get("properties") or {}) | {"params"} | set(derived)
    for name in FORMULAS:
        try:
            expression = compile_expression(str(rule.doc.get(name)), origin=rule.loc(name))
        except MprError as error:
            yield error.at(rule.loc(name)).diagnostic(lang)
            continue
        for unknown in sorted(expression.names - known):
            yield diagnostic(UNKNOWN_FORMULA_NAME, rule.loc(name), lang, name=unknown,
                             field=name, rule=rule.id, hint=did_you_mean(unknown, sorted(known)))
        known.add(name)


KIND = Kind("Check", run, check=check, distribution=distribution)
