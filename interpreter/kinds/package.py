"""Tiered packages (kind ``Package``): a document says what a tier does. Without a ``plan`` section,
running it returns its duration and effects (each effect of a type its ``effect_types`` declare),
for a campaign to apply. With one, running it checks a plan of option uses, side by side, against
the tier's allowance (an expression; ``null`` is unlimited), how uses count (``total`` or
``per_option``), its option list and each side's right to plan; the refusals read as the
document's ``{ja, en}`` templates."""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from rules_dsl.errors import Location, MprError, define, diagnostic, did_you_mean, render
from rules_dsl.frozen import Frozen
from rules_dsl.words import localized

from interpreter.engine.registry import Kind
from interpreter.kinds._reasons import EXPECTED

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from rules_dsl.errors import Diagnostic
    from rules_dsl.template import Template

    from interpreter.engine.runner import Context
    from interpreter.ruleset.model import Rule, Ruleset

OPTIONS_EMPTY = define(
    "MPR700",
    "{rule}: the option list is empty (the source gives none; the GM supplies them). "
    "Until options are listed, plans are counted but option names are not checked",
    "{rule}: 選択肢のリストが空です（原典に記載はなく、GMが用意するデータです）。"
    "リストが用意されるまで、計画の回数は数えますが選択肢の名前は照合しません",
    severity="info")
OVER_ALLOWANCE = define(
    "MPR701", "{side} {name} plans {used} uses, but {rule} allows {allowed}",
    "{side} {name} の計画は {used} 回ですが、{rule} で行えるのは {allowed} 回までです")
UNKNOWN_OPTION = define(
    "MPR702", "{option!r} is not an option of {rule}{hint}",
    "{option!r} は {rule} の選択肢にありません{hint}")
NO_RIGHT = define(
    "MPR703", "{side} {name} may not plan: {why}", "{side} {name} は計画を行えません: {why}")
MIRRORED_OVER_ALLOWANCE = define(
    "MPR704", "{side} {name} plans {used} uses, but {rule} allows {allowed} (the same right as the first side)",
    "{side} {name} の計画は {used} 回ですが、{rule} で行えるのは（最初の側と同様に）{allowed} 回までです")
NOT_A_PARTICIPANT = define(
    "MPR705", "{side} {name!r} is not a participant (known: {known})",
    "{side} {name!r} は参加者にいません（参加者: {known}）")
BAD_ALLOWANCE = define(
    "MPR706",
    "{rule}: allowance must be a whole number of uses, 0 or more, or null for unlimited; got {value!r}",
    "{rule}: allowance は 0 以上の整数（回数）か、無制限を表す null でなければなりません（値: {value!r}）")
BAD_PLAN = define(
    "MPR707", "{field} must be {expected[en]}; got {value!r}",
    "{field} は {expected[ja]} でなければなりません（値: {value!r}）")
BAD_EFFECT = define(
    "MPR708", "{rule}: effect {effect!r} is not an effect this package can have (known: {known})",
    "{rule}: 効果 {effect!r} はこのパッケージの効果として使えません（使える効果: {known}）")
EFFECT_LONGER_THAN_PACKAGE = define(
    "MPR709", "{rule}: effect {effect} lasts {needed} min, longer than the package's {minutes} min",
    "{rule}: 効果 {effect} は {needed} 分かかり、パッケージの所要時間 {minutes} 分に収まりません",
    severity="warning")
DUPLICATE_OPTION = define(
    "MPR710", "{rule}: option {option!r} is listed twice", "{rule}: 選択肢 {option!r} が二重に記載されています")
BAD_COUNTING = define(
    "MPR776", "{rule}: counting must be {known}; got {value!r}",
    "{rule}: counting には {known} のいずれかを指定してください（値: {value!r}）")

UNDECLARED_PARAM = define(
    "MPR781", "{rule}: the parameter {name!r} is not one a package reads{hint}; a parameter of your own needs its type in param_schema",
    "{rule}: パラメータ {name!r} はパッケージが読むものではありません{hint}。自分で加えるパラメータは param_schema で型を宣言してください")

EFFECT_VALUE_NAME = define(
    "MPR787", "{rule}: the value of effect {effect} uses {name!r}; it sees result (the value of the rule it runs) and params{hint}",
    "{rule}: 効果 {effect} の value が {name!r} を使っています。使えるのは result（実行したルールの値）と params です{hint}")

EFFECT_INPUT_NAME = define(
    "MPR061", "{rule}: the input {input} that effect {effect} gives its rule uses {name!r}; it sees params{hint}",
    "{rule}: 効果 {effect} がルールに渡す入力 {input} が {name!r} を使っています。使えるのは params です{hint}")

COUNTINGS = ("total", "per_option")
MESSAGE_CODES = {"over_allowance": OVER_ALLOWANCE, "mirrored_over_allowance": MIRRORED_OVER_ALLOWANCE,
                 "unknown_option": UNKNOWN_OPTION, "no_right": NO_RIGHT}


class Side(Frozen):
    """One side of a plan: the input fields of its uses and members, its label, the result keys
    it fills, the conditions of its right to plan (``may_plan``), and its message templates."""

    __slots__ = ("plan", "members", "label", "counts", "flag", "may_plan", "messages")
    plan: str
    members: str | None
    label: Mapping[str, str]
    counts: str | None
    flag: str | None
    may_plan: tuple[tuple[str, Mapping[str, str]], ...]
    messages: Mapping[str, Mapping[str, str]]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> "Side":
        return cls(data["plan"], data.get("members"), data.get("label") or {}, data.get("counts"),
                   data.get("flag"), tuple((c["unless"], c["why"]) for c in data.get("may_plan") or []),
                   data.get("messages") or {})


def option_ids(options: list[Any]) -> list[str]:
    """The ids of a package's options: each option is a name or ``{id, title, ...}``."""
    return [str(o["id"]) if isinstance(o, Mapping) else str(o) for o in options or []]


def _malformed_options(options: Any) -> list[Any]:
    if not isinstance(options, list):
        return [options]
    return [o for o in options
            if not isinstance(o, str) and not (isinstance(o, Mapping) and isinstance(o.get("id"), str))]


@lru_cache(maxsize=256)
def _expression(text: str) -> Any:
    # start-up: the expression compiler loads only when an allowance is computed
    from rules_dsl import compile_expression

    return compile_expression(text)


@lru_cache(maxsize=512)
def _template(text: str) -> Template:
    # start-up: templates are compiled only when a plan's message is shown
    from rules_dsl.template import compile_template

    return compile_template(text)


def _check_template(text: str, where: Location) -> None:
    # start-up: templates are compiled only when a plan's message is shown or checked
    from rules_dsl.template import compile_template

    compile_template(text, where)


def allowance_of(value: Any, env: Mapping[str, Any], rule_id: str) -> int | None:
    """The allowance: a whole number of uses, ``None`` (unlimited), or an expression evaluated in
    ``env`` that gives one of these; anything else is ``MPR706``."""
    if isinstance(value, str):
        try:
            value = _expression(value).evaluate(env)
        except MprError as error:
            raise error.at(Location(path=f"{rule_id}.allowance")) from None
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise MprError(BAD_ALLOWANCE, Location(path=f"{rule_id}.allowance"), rule=rule_id, value=value)


def counting_of(value: Any, rule_id: str) -> str:
    if value is None:
        return "total"
    if value not in COUNTINGS:
        raise MprError(BAD_COUNTING, Location(path=f"{rule_id}.counting"), rule=rule_id,
                       known=", ".join(COUNTINGS), value=value)
    return value


def uses_counted(chosen: list[str], counting: str, option: str | None = None) -> int:
    """The uses that count against the allowance: all of them, or those of ``option``."""
    if counting == "total":
        return len(chosen)
    return 0 if option is None else chosen.count(option)


def _names(value: Any, field: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MprError(BAD_PLAN, Location(path=field), field=field, expected=EXPECTED["names"],
                       value=value)
    return value


def _uses(value: Any, field: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MprError(BAD_PLAN, Location(path=field), field=field, expected=EXPECTED["uses"], value=value)
    return {str(name): _names(chosen if chosen is not None else [], f"{field}.{name}") or []
            for name, chosen in value.items()}


def _reason(side: Side, key: str, path: str, lang: str, args: dict[str, Any]) -> dict[str, str]:
    """One ``{code, message, path}`` of a verdict, in the side's template when it has one."""
    code = MESSAGE_CODES[key]
    template = side.messages.get(key)
    text = template.get(lang) if isinstance(template, Mapping) else None
    message = _template(text).render(args, lang) if text else render(code, args, lang)
    return {"code": code, "message": message, "path": path}


def _breaches(side: Side, uses: dict[str, list[str]], *, key: str, allowance: int | None,
              counting: str, options: list[str], rule_id: str, lang: str) -> list[dict[str, str]]:
    reasons = []
    listed = set(options)
    label = localized(side.label, lang)
    for name, chosen in uses.items():
        if options:
            for i, option in enumerate(chosen):
                if option not in listed:
                    reasons.append(_reason(side, "unknown_option", f"{side.plan}.{name}[{i}]", lang, {
                        "option": option, "rule": rule_id, "side": label, "name": name,
                        "hint": did_you_mean(option, options).render(lang)}))
        if allowance is None:
            continue
        groups: list[str | None] = [None] if counting == "total" else list(dict.fromkeys(chosen))
        for group in groups:
            at = [i for i, o in enumerate(chosen) if group is None or o == group]
            if len(at) > allowance:
                reasons.append(_reason(side, key, f"{side.plan}.{name}[{at[allowance]}]", lang, {
                    "side": label, "name": name, "used": len(at), "allowed": allowance,
                    "rule": rule_id, "option": group}))
    return reasons


def check_plan(plan_input: Mapping[str, Any], params: Mapping[str, Any], plan: Mapping[str, Any],
               rule_id: str, lang: str = "en") -> dict[str, Any]:
    """Check a plan against one tier: ``plan`` is the document's ``plan`` section, ``params`` the
    tier's effective parameters. The value is ``{legal, <counts key>: {member: {used, allowed}},
    <flag key>: bool, errors}``; a plan that breaks the tier is ``legal: false`` with one coded
    reason per breach."""
    sides = [Side.of(s) for s in plan["sides"]]
    uses = {side.plan: _uses(plan_input.get(side.plan), side.plan) for side in sides}
    env: dict[str, Any] = {**plan_input, "params": dict(params)}
    members: dict[str, list[str]] = {}
    for side in sides:
        listed = _names(plan_input.get(side.members), side.members) if side.members else None
        if listed is not None:
            for name in uses[side.plan]:
                if name not in listed:
                    raise MprError(NOT_A_PARTICIPANT, Location(path=f"{side.plan}.{name}"),
                                   side=localized(side.label, lang), name=name,
                                   known=", ".join(listed) or "-")
        members[side.plan] = list(dict.fromkeys([*(listed or []), *uses[side.plan]]))
        if side.members:
            env[side.members] = members[side.plan]
    allowance = allowance_of(params.get("allowance"), env, rule_id)
    counting = counting_of(params.get("counting"), rule_id)
    options = option_ids(params.get("options") or [])
    value: dict[str, Any] = {"legal": True}
    errors: list[dict[str, str]] = []
    for side in sides:
        why = next((w for condition, w in side.may_plan if not _holds(condition, env)), None)
        if side.counts:
            value[side.counts] = {m: {"used": len(uses[side.plan].get(m, [])), "allowed": allowance}
                                  for m in members[side.plan]}
        if side.flag:
            value[side.flag] = why is None
        if why is None:
            key = "mirrored_over_allowance" if side.may_plan else "over_allowance"
            errors += _breaches(side, uses[side.plan], key=key, allowance=allowance,
                                counting=counting, options=options, rule_id=rule_id, lang=lang)
        else:
            errors += [_reason(side, "no_right", f"{side.plan}.{name}", lang, {
                "side": localized(side.label, lang), "name": name, "why": localized(why, lang),
                "rule": rule_id}) for name, chosen in uses[side.plan].items() if chosen]
    value["legal"] = not errors
    value["errors"] = errors
    return value


def _holds(condition: str, env: Mapping[str, Any]) -> bool:
    """The value of a ``may_plan`` condition, which must be true or false."""
    value = _expression(condition).evaluate(env)
    if not isinstance(value, bool):
        raise MprError(BAD_PLAN, Location(path=condition), field=condition,
                       expected=EXPECTED["boolean"], value=value)
    return value


def outcome(params: Mapping[str, Any], effect_types: Mapping[str, Any] | None,
            rule_id: str, run_effect: Any = None) -> dict[str, Any]:
    """What a tier without a plan does: its duration and its effects, each of a declared type
    with its amount (the campaign applies them). The amount of an effect whose type names a
    ``rule`` is that rule's value, computed by ``run_effect(index, name)`` (left out when None:
    the document is only being checked)."""
    minutes = params.get("duration_minutes")
    if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes < 0:
        raise MprError(BAD_PLAN, Location(path=f"{rule_id}.duration_minutes"),
                       field=f"{rule_id}.duration_minutes", expected=EXPECTED["minutes"], value=minutes)
    effects = params.get("effects")
    if not isinstance(effects, list):
        raise MprError(BAD_PLAN, Location(path=f"{rule_id}.effects"), field=f"{rule_id}.effects",
                       expected=EXPECTED["effects"], value=effects)
    types = effect_types or {}
    done = []
    for i, item in enumerate(effects):
        where = f"{rule_id}.effects[{i}]"
        if not isinstance(item, Mapping):
            raise MprError(BAD_PLAN, Location(path=where), field=where, expected=EXPECTED["effect"],
                           value=item)
        name = item.get("effect")
        if not isinstance(name, str) or name not in types:
            raise MprError(BAD_EFFECT, Location(path=where), rule=rule_id, effect=name,
                           known=", ".join(types) or "-")
        field = types[name]["amount"]
        if "rule" in types[name]:
            done.append({"effect": name} if run_effect is None else
                        {"effect": name, field: _amount(run_effect(i, name), f"{where}.{field}")})
            continue
        amount = item.get(field)
        if not isinstance(amount, (int, float)) or isinstance(amount, bool) or amount < 0:
            raise MprError(BAD_PLAN, Location(path=f"{where}.{field}"), field=f"{where}.{field}",
                           expected=EXPECTED["amount"], value=amount)
        done.append({"effect": name, field: amount})
    return {"duration_minutes": minutes, "effects": done}


def _amount(value: Any, field: str) -> Any:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise MprError(BAD_PLAN, Location(path=field), field=field, expected=EXPECTED["amount"],
                       value=value)
    return value


def _effect_runner(rule: Rule, ctx: Context) -> Any:
    """``run_effect`` of ``outcome``: the effect type's ``rule`` run on the type's ``input`` (each
    an expression of ``params``, dice rolled; none: no input), its value taken whole or through the
    type's ``value`` expression (of ``result`` and ``params``)."""
    def run_effect(index: int, name: str) -> Any:
        spec = rule.doc["effect_types"][name]
        given = spec.get("input") or {}
        inputs = {key: ctx.evaluate(rule, ("effect_types", name, "input", key), {"params": rule.params},
                                    label=f"effects[{index}] ({name}) {key}") for key in given}
        if inputs:
            # start-up: the input check loads only when an effect gives its rule an input
            from interpreter.engine.inputs import check_inputs

            check_inputs(ctx.ruleset.rule(spec["rule"]), inputs, lang=ctx.lang)
        value = ctx.run(spec["rule"], inputs)
        if "value" not in spec:
            return value
        return ctx.evaluate(rule, ("effect_types", name, "value"), {"result": value, "params": rule.params},
                            label=f"effects[{index}] ({name})")
    return run_effect


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The engine's entry: the tier's outcome, or the verdict on a plan."""
    plan = rule.doc.get("plan")
    params = {name: ctx.param(rule, name) for name in rule.params}
    if plan is None:
        return outcome(params, rule.doc.get("effect_types"), rule.id, _effect_runner(rule, ctx))
    if not params.get("options"):
        ctx.trace.add("note", render(OPTIONS_EMPTY, {"rule": rule.id}, ctx.lang), code=OPTIONS_EMPTY)
    verdict = check_plan(inputs, params, plan, rule.id, ctx.lang)
    for key, value in verdict.items():
        if key not in ("legal", "errors"):
            ctx.trace.add("note", key, value)
    return verdict


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Semantic findings on the effective parameters (after variants): a bad outcome or effect,
    an effect longer than the package, a bad allowance or counting, a malformed, duplicate or
    empty option list, and templates that do not parse."""
    params = rule.params
    yield from _check_own_params(rule, lang)
    if rule.doc.get("plan") is None:
        yield from _check_outcome(rule, lang)
        return
    if not isinstance(params.get("allowance"), str):
        try:
            allowance_of(params.get("allowance"), {}, rule.id)
        except MprError as error:
            yield diagnostic(error.code, rule.loc("params", "allowance"), lang, **error.args_)
    try:
        counting_of(params.get("counting"), rule.id)
    except MprError as error:
        yield diagnostic(error.code, rule.loc("params", "counting"), lang, **error.args_)
    yield from _check_templates(rule, lang)
    yield from _check_options(rule, params.get("options"), lang)


@lru_cache(maxsize=2)
def _kind_params(section: str) -> tuple[str, ...]:
    """The parameters the kind reads, as its schema lists them (``plan_params`` or ``outcome_params``)."""
    # start-up: the kind's schema is read only when a package is validated
    import json
    from interpreter.documents.resources import schemas_dir  # start-up: as above

    schema = json.loads((schemas_dir() / "kinds" / "package.json").read_text(encoding="utf-8"))
    return tuple(schema["$defs"][section]["properties"])


def _check_own_params(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    """A parameter the kind does not read is the GM's own only when ``param_schema`` declares it
    (otherwise it is most likely a typing mistake of one the kind reads)."""
    known = _kind_params("outcome_params" if rule.doc.get("plan") is None else "plan_params")
    declared = rule.doc.get("param_schema") or {}
    for name in rule.params:
        if name not in known and name not in declared:
            yield diagnostic(UNDECLARED_PARAM, rule.loc("params", name), lang, rule=rule.id,
                             name=name, hint=did_you_mean(name, known))


def _check_outcome(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    params = rule.params
    try:
        outcome(params, rule.doc.get("effect_types"), rule.id)
    except MprError as error:
        yield diagnostic(error.code, rule.loc("params"), lang, **error.args_)
        return
    minutes = params.get("duration_minutes")
    types = rule.doc.get("effect_types") or {}
    yield from _check_effect_types(rule, lang)
    for i, item in enumerate(params.get("effects") or []):
        spec = types[item["effect"]]
        amount = item.get(spec["amount"])
        per_minute = spec.get("minutes_per_unit")
        if per_minute is not None and amount is not None and amount * per_minute > minutes:
            yield diagnostic(EFFECT_LONGER_THAN_PACKAGE, rule.loc("params", "effects", i), lang,
                             rule=rule.id, effect=item["effect"], needed=amount * per_minute,
                             minutes=minutes)


def _check_effect_types(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    """The ``value`` of an effect type that runs a rule compiles and uses only ``result`` and
    ``params``; each expression of its ``input`` uses only ``params``."""
    for name, spec in (rule.doc.get("effect_types") or {}).items():
        for key in spec.get("input") or {}:
            yield from _expression_names(rule, ("effect_types", name, "input", key), ("params",), lang,
                                         EFFECT_INPUT_NAME, effect=name, input=key)
        if "value" in spec:
            yield from _expression_names(rule, ("effect_types", name, "value"), ("result", "params"),
                                         lang, EFFECT_VALUE_NAME, effect=name)


def _expression_names(rule: Rule, path: tuple[str, ...], sees: tuple[str, ...], lang: str, code: str,
                      **args: Any) -> Iterator[Diagnostic]:
    """The expression at ``path`` compiles and reads only the names it ``sees`` (``code`` each other)."""
    try:
        expression = rule.expression(*path)
    except MprError as error:
        yield error.at(rule.loc(*path)).diagnostic(lang)
        return
    for unknown in sorted(expression.names - set(sees)):
        yield diagnostic(code, rule.loc(*path), lang, rule=rule.id, name=unknown,
                         hint=did_you_mean(unknown, sees), **args)


def _check_templates(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    for s, side in enumerate(rule.doc["plan"].get("sides") or []):
        for key, texts in (side.get("messages") or {}).items():
            for language, text in (texts or {}).items():
                try:
                    _check_template(text, rule.loc("plan", "sides", s, "messages", key, language))
                except MprError as error:
                    yield error.diagnostic(lang)
        for c, condition in enumerate(side.get("may_plan") or []):
            try:
                _expression(condition["unless"])
            except MprError as error:
                yield error.at(rule.loc("plan", "sides", s, "may_plan", c, "unless")).diagnostic(lang)


def _check_options(rule: Rule, options: Any, lang: str) -> Iterator[Diagnostic]:
    bad = _malformed_options(options)
    if bad:
        yield diagnostic(BAD_PLAN, rule.loc("params", "options"), lang, field=f"{rule.id}.options",
                         expected=EXPECTED["options"], value=bad[0])
        return
    ids = option_ids(options)
    if not ids:
        yield diagnostic(OPTIONS_EMPTY, rule.loc("params", "options"), lang, rule=rule.id)
    seen: set[str] = set()
    for i, option in enumerate(ids):
        if option in seen:
            yield diagnostic(DUPLICATE_OPTION, rule.loc("params", "options", i), lang,
                             rule=rule.id, option=option)
        seen.add(option)


KIND = Kind("Package", run, check=check)
