"""The kind ``Cohabitation``: checks a plan of PCs sharing one residence (RULES.md R11-R15) and
computes what each pays; every violation is a coded, located reason of a ``legal: false`` result."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules_dsl.errors import Location, MprError, define

from . import Kind
from ._reasons import EXPECTED, reason
from .allocation import (NEGATIVE_AMOUNT, SHARES_DO_NOT_SUM, UNEVEN_WITHOUT_CONSENT,
                         check_members, whole)

TOO_FEW = define(
    "MPR530", "cohabitation needs at least {minimum} consenting PCs, {count} listed (R11)",
    "同居には同意した {minimum} 人以上のＰＣが必要ですが、{count} 人です（R11）")
REGION_DIFFERS = define(
    "MPR531", "{pc} chose the region {value!r}, but {first} chose {expected!r}: every cohabitant must choose the same region (R13)",
    "{pc} の地域は {value!r} ですが、{first} は {expected!r} です。同居するＰＣ全員が同じ地域を選択しなければなりません（R13）")
RESIDENCE_DIFFERS = define(
    "MPR532", "{pc} chose the residence {value!r}, but {first} chose {expected!r}: every cohabitant must choose the same residence (R14)",
    "{pc} の住居は {value!r} ですが、{first} は {expected!r} です。同居するＰＣ全員が同じ住居を選択しなければなりません（R14）")
NOT_SHAREABLE = define(
    "MPR533", "the residence {value!r} cannot be shared (not shareable: {listed}) (R14)",
    "住居 {value!r} は共有できません（共有できない住居: {listed}）（R14）")
NOT_CONSENTING = define(
    "MPR534", "{pc} does not consent to cohabit (R11)",
    "{pc} は同居に同意していません（R11）")
UNKNOWN_FACILITY = define(
    "MPR535", "the facility {name!r} of {pc} is not in the GM's facility data; it is treated as not shared (R15)",
    "{pc} の設備 {name!r} はＧＭの設備データにありません。共用しない設備として扱います（R15）",
    severity="info")
BAD_RULE_PARAM = define(
    "MPR536", "parameter {name} of {rule} must be {expected}, got {value!r}",
    "{rule} のパラメータ {name} は {expected} でなければなりません（値: {value!r}）")

BAD_INPUT = define(
    "MPR537", "{field} must be {expected[en]}, got {value!r}",
    "{field} は {expected[ja]} でなければなりません（値: {value!r}）")

_SPLIT_REASONS = (SHARES_DO_NOT_SUM, UNEVEN_WITHOUT_CONSENT)


def _expect(ok: bool, field: str, expected: str, value: Any) -> None:
    """A coded error naming ``field`` unless ``ok`` (a rule whose own ``inputs`` schema is looser
    than the bundled one still gets located errors, never a traceback)."""
    if not ok:
        raise MprError(BAD_INPUT, Location(path=field), field=field, expected=EXPECTED[expected],
                       value=value)


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _residents(inputs: dict[str, Any]) -> list[dict[str, Any]]:
    residents = inputs.get("residents")
    if isinstance(residents, list):
        for i, resident in enumerate(residents):
            _expect(isinstance(resident, dict) and isinstance(resident.get("id"), str),
                    f"residents[{i}]", "resident", resident)
            for field in ("facilities", "activities"):
                _expect(resident.get(field) is None or _names(resident[field]),
                        f"residents[{i}].{field}", "names", resident.get(field))
        check_members([r["id"] for r in residents], "residents")
    else:
        check_members(residents, "residents")
    return residents  # type: ignore[return-value]


def _same(residents: list[dict[str, Any]], field: str, code: str, lang: str) -> list[dict[str, Any]]:
    first = residents[0]
    return [reason(code, f"residents[{i}].{field}", lang, pc=r["id"], value=r.get(field),
                    first=first["id"], expected=first.get(field))
            for i, r in enumerate(residents) if r.get(field) != first.get(field)]


def _facilities(residents: list[dict[str, Any]], known: dict[str, Any],
                lang: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    shared: dict[str, list[str]] = {}
    per_pc: dict[str, list[str]] = {}
    notes = []
    for i, resident in enumerate(residents):
        per_pc[resident["id"]] = []
        for j, name in enumerate(resident.get("facilities") or []):
            data = known.get(name)
            if data is None:
                notes.append(reason(UNKNOWN_FACILITY, f"residents[{i}].facilities[{j}]", lang,
                                     name=name, pc=resident["id"]))
            if isinstance(data, dict) and data.get("shareable") is True:
                shared.setdefault(name, []).append(resident["id"])
            else:
                per_pc[resident["id"]].append(name)
    facilities = {"shared": [{"name": n, "installed_by": pcs} for n, pcs in shared.items()],
                  "per_pc": per_pc}
    return facilities, notes


def run(rule: Any, inputs: dict[str, Any], ctx: Any) -> dict[str, Any]:
    lang = ctx.lang
    residents = _residents(inputs)
    ids = [r["id"] for r in residents]
    minimum = ctx.param(rule, "min_residents")
    not_shareable = ctx.param(rule, "non_shareable_residences")
    costs = inputs.get("costs") or {}
    _expect(isinstance(costs, dict), "costs", "costs", costs)
    facility_data = inputs.get("facility_data") or {}
    _expect(isinstance(facility_data, dict), "facility_data", "facility_data", facility_data)
    region_cost = whole(costs.get("region", 0), "costs.region")
    residence_cost = whole(costs.get("residence", 0), "costs.residence")
    for field, value in (("costs.region", region_cost), ("costs.residence", residence_cost)):
        if value < 0:
            raise MprError(NEGATIVE_AMOUNT, Location(path=field), field=field, value=value)

    reasons = []
    if len(residents) < minimum:
        reasons.append(reason(TOO_FEW, "residents", lang, minimum=minimum, count=len(residents)))
    reasons += [reason(NOT_CONSENTING, f"residents[{i}].consent", lang, pc=r["id"])
                for i, r in enumerate(residents) if r.get("consent", True) is False]
    reasons += _same(residents, "region", REGION_DIFFERS, lang)
    reasons += _same(residents, "residence", RESIDENCE_DIFFERS, lang)
    for i, resident in enumerate(residents):
        if resident.get("residence") in not_shareable:
            reasons.append(reason(NOT_SHAREABLE, f"residents[{i}].residence", lang,
                                   value=resident.get("residence"), listed="、".join(not_shareable)))
            break

    split_input = {"cost": residence_cost, "residents": ids}
    for name in ("shares", "consent"):
        if name in inputs:
            split_input[name] = inputs[name]
    try:
        split = ctx.run(ctx.param(rule, "rent_split"), split_input)
    except MprError as error:
        if error.code not in _SPLIT_REASONS:
            raise
        split = None
        path = error.loc.path if error.loc and error.loc.path else "shares"
        reasons.append({"code": error.code, "message": error.message(lang), "path": path})

    facilities, notes = _facilities(residents, facility_data, lang)
    life_points = {pc: {"region": region_cost,
                        "residence": None if split is None else split[pc],
                        "total": None if split is None else region_cost + split[pc]}
                   for pc in ids}
    for found in reasons:
        ctx.trace.add("note", f"{found['code']} {found['path']}", found["message"])
    return {"legal": not reasons, "reasons": reasons,
            "region": residents[0].get("region"), "residence": residents[0].get("residence"),
            "life_points": life_points, "residence_split": split, "facilities": facilities,
            "per_pc": {r["id"]: {"occupation": r.get("occupation"),
                                 "activities": list(r.get("activities") or [])} for r in residents},
            "notes": notes}


def check(rule: Any, ruleset: Any, lang: str = "en") -> Iterator[Any]:
    """Semantic checks: the parameters' types and that ``rent_split`` names an Allocation (the
    schema's ``x-rule-ref`` already reports a missing rule)."""
    from rules_dsl.errors import diagnostic

    params = rule.params
    listed = params.get("non_shareable_residences")
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        yield diagnostic(BAD_RULE_PARAM, rule.loc("params", "non_shareable_residences"), lang,
                         name="non_shareable_residences", rule=rule.id,
                         expected="a list of residence names", value=listed)
    minimum = params.get("min_residents")
    if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
        yield diagnostic(BAD_RULE_PARAM, rule.loc("params", "min_residents"), lang,
                         name="min_residents", rule=rule.id, expected="a whole number >= 1",
                         value=minimum)
    target = ruleset.rules.get(params.get("rent_split"))
    if target is not None and target.kind != "Allocation":
        yield diagnostic(BAD_RULE_PARAM, rule.loc("params", "rent_split"), lang,
                         name="rent_split", rule=rule.id, expected="the id of an Allocation rule",
                         value=params.get("rent_split"))


KIND = Kind("Cohabitation", run, check=check)
