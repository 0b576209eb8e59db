"""The kind ``Allocation``: split a whole cost among members as evenly as possible (differences of
at most 1, the remainder to the first or last listed), or by explicit shares that every member
agreed to and that sum to the cost (RULES.md R14, ``cohabitation.rent_split``)."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rules_dsl.errors import Location, MprError, define
from rules_dsl.limits import MAX_RESIDENTS

from . import Kind

RESIDENT_TWICE = define(
    "MPR520", "resident {pc!r} is listed twice (first at {first})",
    "同居者 {pc!r} が2回指定されています（最初は {first}）")
SHARE_NOT_RESIDENT = define(
    "MPR521", "shares name {pc!r}, who is not a resident ({residents})",
    "負担額に同居者でない {pc!r} が指定されています（同居者: {residents}）")
SHARES_DO_NOT_SUM = define(
    "MPR522", "the shares sum to {total}, but the cost is {cost}",
    "負担額の合計が {total} ですが、必要な生活ポイントは {cost} です")
UNEVEN_WITHOUT_CONSENT = define(
    "MPR523", "the shares ({shares}) are uneven (they differ by more than 1): every resident must consent (consent: true)",
    "負担額（{shares}）は不均等です（差が1を超えます）。同居するＰＣ全員の同意（consent: true）が必要です")
NEGATIVE_AMOUNT = define(
    "MPR524", "{field} is {value}, but it cannot be negative",
    "{field} が {value} ですが、負の値にはできません")
SHARE_MISSING = define(
    "MPR525", "the shares give nothing for resident {pc!r}: give every resident a share (0 is allowed)",
    "同居者 {pc!r} の負担額がありません。同居者全員の負担額を指定してください（0 も可）")
NO_RESIDENTS = define(
    "MPR526", "{field} must list at least one resident, and at most {limit}",
    "{field} には同居者を1人以上（上限 {limit} 人）指定してください")
NOT_WHOLE = define(
    "MPR527", "{field} must be a whole number, got {value!r}",
    "{field} は整数でなければなりません（値: {value!r}）")
BAD_REMAINDER_TO = define(
    "MPR528", "parameter remainder_to of {rule} must be 'first' or 'last', got {value!r}",
    "{rule} のパラメータ remainder_to は 'first' か 'last' でなければなりません（値: {value!r}）")
NOT_A_MAPPING = define(
    "MPR529", "{field} must be a mapping from a resident to a whole number, got {value!r}",
    "{field} は同居者から整数への対応でなければなりません（値: {value!r}）")

REMAINDER_TO = ("first", "last")


def even_split(cost: int, members: Sequence[str], remainder_to: str = "first") -> dict[str, int]:
    """``cost`` split per head: every share is ``cost // n`` or one more, the extra ones going to
    the first (or last) listed members; the shares sum exactly to ``cost``."""
    base, remainder = divmod(cost, len(members))
    extra = set(range(remainder)) if remainder_to == "first" else \
        set(range(len(members) - remainder, len(members)))
    return {pc: base + (1 if i in extra else 0) for i, pc in enumerate(members)}


def whole(value: Any, field: str) -> int:
    """``value`` if it is a whole number (not a boolean), else a coded error naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MprError(NOT_WHOLE, Location(path=field), field=field, value=value)
    return value


def check_members(members: Any, field: str = "residents") -> list[str]:
    """The member ids, each once; a repeated id or an empty list is a coded error."""
    if not isinstance(members, list) or not 1 <= len(members) <= MAX_RESIDENTS:
        raise MprError(NO_RESIDENTS, Location(path=field), field=field, limit=MAX_RESIDENTS)
    first: dict[str, int] = {}
    for i, pc in enumerate(members):
        pc = str(pc)
        if pc in first:
            raise MprError(RESIDENT_TWICE, Location(path=f"{field}[{i}]"), pc=pc,
                           first=f"{field}[{first[pc]}]")
        first[pc] = i
    return [str(pc) for pc in members]


def per_resident(value: Any, field: str) -> Mapping[str, Any]:
    """``value`` if it is a mapping (resident -> amount), else a coded error naming ``field``."""
    if not isinstance(value, Mapping):
        raise MprError(NOT_A_MAPPING, Location(path=field), field=field, value=value)
    return value


def explicit_shares(cost: int, members: Sequence[str], shares: Any,
                    consent: bool) -> dict[str, int]:
    """The given shares in the members' order, if they are a legal split of ``cost`` (R14)."""
    shares = per_resident(shares, "shares")
    for pc in shares:
        if pc not in members:
            raise MprError(SHARE_NOT_RESIDENT, Location(path=f"shares.{pc}"), pc=pc,
                           residents=", ".join(members))
    split = {}
    for pc in members:
        if pc not in shares:
            raise MprError(SHARE_MISSING, Location(path="shares"), pc=pc)
        amount = whole(shares[pc], f"shares.{pc}")
        if amount < 0:
            raise MprError(NEGATIVE_AMOUNT, Location(path=f"shares.{pc}"), field=f"shares.{pc}",
                           value=amount)
        split[pc] = amount
    total = sum(split.values())
    if total != cost:
        raise MprError(SHARES_DO_NOT_SUM, Location(path="shares"), total=total, cost=cost)
    if max(split.values()) - min(split.values()) > 1 and not consent:
        raise MprError(UNEVEN_WITHOUT_CONSENT, Location(path="consent"),
                       shares=", ".join(f"{pc}: {amount}" for pc, amount in split.items()))
    return split


def split_cost(cost: Any, members: Any, shares: Mapping[str, Any] | None = None,
               consent: bool = False, remainder_to: str = "first") -> dict[str, int]:
    """R14: the even split of ``cost``, or the explicit ``shares`` when they are legal."""
    cost = whole(cost, "cost")
    if cost < 0:
        raise MprError(NEGATIVE_AMOUNT, Location(path="cost"), field="cost", value=cost)
    ids = check_members(members)
    if shares is not None:
        return explicit_shares(cost, ids, shares, bool(consent))
    return even_split(cost, ids, remainder_to)


def run(rule: Any, inputs: dict[str, Any], ctx: Any) -> dict[str, int]:
    remainder_to = ctx.param(rule, "remainder_to")
    if remainder_to not in REMAINDER_TO:
        raise MprError(BAD_REMAINDER_TO, rule.loc("params", "remainder_to"), rule=rule.id,
                       value=remainder_to)
    split = split_cost(inputs.get("cost"), inputs.get("residents"), inputs.get("shares"),
                       bool(inputs.get("consent", False)), remainder_to)
    how = "shares" if inputs.get("shares") is not None else f"even, remainder to the {remainder_to}"
    ctx.trace.add("note", f"split: {how}", split)
    return split


def check(rule: Any, ruleset: Any, lang: str = "en") -> Iterator[Any]:
    """Semantic check: ``remainder_to`` is one of the known orders."""
    from rules_dsl.errors import diagnostic

    value = rule.params.get("remainder_to")
    if value not in REMAINDER_TO:
        yield diagnostic(BAD_REMAINDER_TO, rule.loc("params", "remainder_to"), lang, rule=rule.id,
                         value=value)


KIND = Kind("Allocation", run, check=check)
