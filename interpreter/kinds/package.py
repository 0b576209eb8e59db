"""Tiered packages (kind ``Package``): a rest (R4) returns what it does, its duration and effects;
a briefing (R5) checks a preparation plan against the tier's allowance, option list and enemy symmetry.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic, did_you_mean, render

from . import Kind
from ._reasons import EXPECTED, reason

OPTIONS_EMPTY = define(
    "MPR700",
    "{rule}: the option list is empty (the source gives none; the GM supplies them). "
    "Until options are listed, plans are counted but option names are not checked",
    "{rule}: 選択肢のリストが空です（原典に記載はなく、GMが用意するデータです）。"
    "リストが用意されるまで、計画の回数は数えますが選択肢の名前は照合しません",
    severity="info")
PC_OVER_ALLOWANCE = define(
    "MPR701", "PC {name} plans {used} uses, but {rule} allows {allowed} per PC",
    "PC {name} の計画は {used} 回ですが、{rule} で行えるのはPCごとに {allowed} 回までです")
UNKNOWN_OPTION = define(
    "MPR702", "{option!r} is not an option of {rule}{hint}",
    "{option!r} は {rule} の選択肢にありません{hint}")
ENEMY_NO_RIGHT = define(
    "MPR703", "enemy {name} may not prepare: {why}",
    "エネミー {name} は準備を行えません: {why}")
ENEMY_OVER_ALLOWANCE = define(
    "MPR704", "enemy {name} plans {used} uses, but {rule} allows {allowed} (the same right as a PC)",
    "エネミー {name} の計画は {used} 回ですが、{rule} で行えるのは（PCと同様に）{allowed} 回までです")
NOT_A_PARTICIPANT = define(
    "MPR705", "{side[en]} {name!r} is not in the battle (known: {known})",
    "{side[ja]} {name!r} はこのバトルにいません（参加者: {known}）")
BAD_ALLOWANCE = define(
    "MPR706",
    "{rule}: allowance must be a whole number of uses, 0 or more, or null for unlimited; got {value!r}",
    "{rule}: allowance は 0 以上の整数（回数）か、無制限を表す null でなければなりません（値: {value!r}）")
BAD_PLAN = define(
    "MPR707", "{field} must be {expected[en]}; got {value!r}",
    "{field} は {expected[ja]} でなければなりません（値: {value!r}）")
BAD_EFFECT = define(
    "MPR708", "{rule}: effect {effect!r} is not an effect a rest can have (known: {known})",
    "{rule}: 効果 {effect!r} は休息の効果として使えません（使える効果: {known}）")
SLEEP_LONGER_THAN_REST = define(
    "MPR709", "{rule}: a sleep of {hours} h does not fit in a rest of {minutes} min",
    "{rule}: {hours} 時間の睡眠は {minutes} 分の休息に収まりません", severity="warning")
DUPLICATE_OPTION = define(
    "MPR710", "{rule}: option {option!r} is listed twice", "{rule}: 選択肢 {option!r} が二重に記載されています")

REST_EFFECTS = {"sleep": "hours"}  # effect name -> its amount field (a rest's effects, R4)
WHY_NOT_AWARE = {"en": "the enemies are not aware of the PCs", "ja": "エネミーはPCの存在に気づいていません"}
WHY_NO_SYMMETRY = {"en": "this tier gives enemies no preparation right (enemy_symmetry is false)",
                   "ja": "このパッケージではエネミーに準備の権利がありません（enemy_symmetry が false）"}
SIDES = {"pc": {"en": "PC", "ja": "PC"}, "enemy": {"en": "enemy", "ja": "エネミー"}}


def option_ids(options: list[Any]) -> list[str]:
    """The ids of a package's options: each option is a name or ``{id, title, ...}``."""
    return [str(o["id"]) if isinstance(o, Mapping) else str(o) for o in options or []]


def _malformed_options(options: Any) -> list[Any]:
    """The entries of an option list that are neither a name nor ``{id, ...}``."""
    if not isinstance(options, list):
        return [options]
    return [o for o in options
            if not isinstance(o, str) and not (isinstance(o, Mapping) and isinstance(o.get("id"), str))]


def checked_allowance(value: Any, rule_id: str) -> int | None:
    """The allowance per PC (``None`` is unlimited), or an error for a negative or non-integer one."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise MprError(BAD_ALLOWANCE, Location(path=f"{rule_id}.allowance"), rule=rule_id, value=value)


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
        raise MprError(BAD_PLAN, Location(path=field), field=field,
                       expected=EXPECTED["uses"], value=value)
    uses: dict[str, list[str]] = {}
    for name, chosen in value.items():
        uses[str(name)] = _names(chosen if chosen is not None else [], f"{field}.{name}") or []
    return uses


def _require_known(uses: dict[str, list[str]], known: list[str] | None, side: str,
                   field: str) -> None:
    if known is None:
        return
    participants = set(known)
    for name in uses:
        if name not in participants:
            raise MprError(NOT_A_PARTICIPANT, Location(path=f"{field}.{name}"),
                           side=SIDES[side], name=name, known=", ".join(known) or "-")


def _check_side(uses: dict[str, list[str]], *, side: str, field: str, rule_id: str,
                allowance: int | None, options: list[str], lang: str) -> list[dict[str, str]]:
    reasons = []
    over = PC_OVER_ALLOWANCE if side == "pc" else ENEMY_OVER_ALLOWANCE
    listed = set(options)
    for name, chosen in uses.items():
        if options:
            for i, option in enumerate(chosen):
                if option not in listed:
                    reasons.append(reason(UNKNOWN_OPTION, f"{field}.{name}[{i}]", lang,
                                          option=option, rule=rule_id,
                                          hint=did_you_mean(option, options)))
        if allowance is not None and len(chosen) > allowance:
            reasons.append(reason(over, f"{field}.{name}[{allowance}]", lang, name=name,
                                  used=len(chosen), allowed=allowance, rule=rule_id))
    return reasons


def check_plan(plan_input: Mapping[str, Any], *, allowance: int | None, options: list[Any],
               enemy_symmetry: bool, rule_id: str = "briefing", lang: str = "en") -> dict[str, Any]:
    """Check a briefing plan (R5) against one tier.

    ``plan_input`` is ``{enemies_aware, plan: {pc: [option...]}, enemy_plan?, pcs?, enemies?}``;
    ``pcs``/``enemies`` (optional) name the participants, and a plan naming anyone else is an error.
    Returns ``{legal, per_pc: {pc: {used, allowed}}, enemy_allowed, errors}``: a plan that breaks
    the tier's rules is ``legal: false`` with one coded reason per breach.
    """
    allowance = checked_allowance(allowance, rule_id)
    aware = plan_input.get("enemies_aware", False)
    if not isinstance(aware, bool):
        raise MprError(BAD_PLAN, Location(path="enemies_aware"), field="enemies_aware",
                       expected=EXPECTED["boolean"], value=aware)
    pcs = _names(plan_input.get("pcs"), "pcs")
    enemies = _names(plan_input.get("enemies"), "enemies")
    plan = _uses(plan_input.get("plan"), "plan")
    enemy_plan = _uses(plan_input.get("enemy_plan"), "enemy_plan")
    _require_known(plan, pcs, "pc", "plan")
    _require_known(enemy_plan, enemies, "enemy", "enemy_plan")
    ids = option_ids(options)

    errors = _check_side(plan, side="pc", field="plan", rule_id=rule_id, allowance=allowance,
                         options=ids, lang=lang)
    enemy_allowed = bool(enemy_symmetry) and aware
    if enemy_allowed:
        errors += _check_side(enemy_plan, side="enemy", field="enemy_plan", rule_id=rule_id,
                              allowance=allowance, options=ids, lang=lang)
    else:
        why = WHY_NO_SYMMETRY if not enemy_symmetry else WHY_NOT_AWARE
        errors += [reason(ENEMY_NO_RIGHT, f"enemy_plan.{name}", lang, name=name, why=why[lang])
                   for name, chosen in enemy_plan.items() if chosen]

    per_pc = {pc: {"used": len(plan.get(pc, [])), "allowed": allowance}
              for pc in dict.fromkeys([*(pcs or []), *plan])}
    return {"legal": not errors, "per_pc": per_pc, "enemy_allowed": enemy_allowed,
            "errors": errors}


def rest_outcome(duration_minutes: Any, effects: Any, rule_id: str = "rest") -> dict[str, Any]:
    """What a rest (R4) does: its duration and its effects (the campaign applies them)."""
    if not isinstance(duration_minutes, int) or isinstance(duration_minutes, bool) or duration_minutes < 0:
        raise MprError(BAD_PLAN, Location(path=f"{rule_id}.duration_minutes"),
                       field=f"{rule_id}.duration_minutes", expected=EXPECTED["minutes"],
                       value=duration_minutes)
    if not isinstance(effects, list):
        raise MprError(BAD_PLAN, Location(path=f"{rule_id}.effects"), field=f"{rule_id}.effects",
                       expected=EXPECTED["effects"], value=effects)
    outcome = []
    for i, item in enumerate(effects):
        if not isinstance(item, Mapping):
            raise MprError(BAD_PLAN, Location(path=f"{rule_id}.effects[{i}]"),
                           field=f"{rule_id}.effects[{i}]", expected=EXPECTED["effect"],
                           value=item)
        name = item.get("effect")
        if name not in REST_EFFECTS:
            raise MprError(BAD_EFFECT, Location(path=f"{rule_id}.effects[{i}]"), rule=rule_id,
                           effect=name, known=", ".join(REST_EFFECTS))
        amount_field = REST_EFFECTS[name]
        amount = item.get(amount_field)
        if not isinstance(amount, (int, float)) or isinstance(amount, bool) or amount < 0:
            raise MprError(BAD_PLAN, Location(path=f"{rule_id}.effects[{i}].{amount_field}"),
                           field=f"{rule_id}.effects[{i}].{amount_field}",
                           expected=EXPECTED["amount"], value=amount)
        outcome.append({"effect": name, amount_field: amount})
    return {"duration_minutes": duration_minutes, "effects": outcome}


def run(rule: Any, inputs: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """The engine's entry: a rest's outcome, or the verdict on a briefing plan."""
    if rule.doc.get("package") == "rest":
        return rest_outcome(ctx.param(rule, "duration_minutes"), ctx.param(rule, "effects"), rule.id)
    if "duration_seconds" in rule.params:
        ctx.param(rule, "duration_seconds")
    options = ctx.param(rule, "options")
    if not options:
        ctx.trace.add("note", render(OPTIONS_EMPTY, {"rule": rule.id}, ctx.lang), code=OPTIONS_EMPTY)
    verdict = check_plan(inputs, allowance=ctx.param(rule, "allowance"), options=options,
                         enemy_symmetry=ctx.param(rule, "enemy_symmetry"), rule_id=rule.id,
                         lang=ctx.lang)
    for pc, count in verdict["per_pc"].items():
        ctx.trace.add("note", f"per_pc.{pc}", count)
    ctx.trace.add("note", "enemy_allowed", verdict["enemy_allowed"],
                  enemies_aware=inputs.get("enemies_aware", False))
    return verdict


def check(rule: Any, ruleset: Any, lang: str = "en") -> Iterator[Diagnostic]:
    """Semantic findings on the effective parameters (after variants): an empty option list
    (information), a malformed or duplicate option, a bad allowance or symmetry, a bad rest effect,
    a sleep that does not fit in its rest."""
    params = rule.params
    if rule.doc.get("package") == "rest":
        try:
            rest_outcome(params.get("duration_minutes"), params.get("effects"), rule.id)
        except MprError as error:
            yield diagnostic(error.code, rule.loc("params"), lang, **error.args_)
            return
        minutes = params.get("duration_minutes")
        for i, item in enumerate(params.get("effects") or []):
            hours = item.get("hours") if isinstance(item, Mapping) else None
            if (item.get("effect") == "sleep" and isinstance(hours, (int, float))
                    and isinstance(minutes, int) and hours * 60 > minutes):
                yield diagnostic(SLEEP_LONGER_THAN_REST, rule.loc("params", "effects", i), lang,
                                 rule=rule.id, hours=hours, minutes=minutes)
        return
    try:
        checked_allowance(params.get("allowance"), rule.id)
    except MprError as error:
        yield diagnostic(error.code, rule.loc("params", "allowance"), lang, **error.args_)
    if not isinstance(params.get("enemy_symmetry"), bool):
        yield diagnostic(BAD_PLAN, rule.loc("params", "enemy_symmetry"), lang,
                         field=f"{rule.id}.enemy_symmetry", expected=EXPECTED["boolean"],
                         value=params.get("enemy_symmetry"))
    options = params.get("options")
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
