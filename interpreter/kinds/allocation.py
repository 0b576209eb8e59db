"""The kind ``Allocation``: split a whole cost among members as evenly as possible (differences of
at most 1, the remainder to the first or last listed), or by explicit shares that every member
agreed to and that sum to the cost. Which inputs hold the cost, the members, the shares and the
consent is the document's ``fields`` (by default ``cost``, ``members``, ``shares``, ``consent``)."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from rules_dsl.frozen import Record  # a dataclass without importing dataclasses (start-up)

from rules_dsl.errors import Location, MprError, define, diagnostic

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.registry import Kind
from interpreter.kinds._amounts import NEGATIVE_AMOUNT, check_members, per_member, whole

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SHARE_NOT_MEMBER = define(
    "MPR521", "shares name {pc!r}, who is not a member ({members})",
    "負担額にメンバーでない {pc!r} が指定されています（メンバー: {members}）")
SHARES_DO_NOT_SUM = define(
    "MPR522", "the shares sum to {total}, but the cost is {cost}",
    "負担額の合計が {total} ですが、費用は {cost} です")
UNEVEN_WITHOUT_CONSENT = define(
    "MPR523", "the shares ({shares}) are uneven (they differ by more than 1): every member must consent ({consent}: true)",
    "負担額（{shares}）は不均等です（差が1を超えます）。全員の同意（{consent}: true）が必要です")
SHARE_MISSING = define(
    "MPR525", "the shares give nothing for {pc!r}: give every member a share (0 is allowed)",
    "{pc!r} の負担額がありません。全員の負担額を指定してください（0 も可）")
BAD_REMAINDER_TO = define(
    "MPR528", "parameter remainder_to of {rule} must be 'first' or 'last', got {value!r}",
    "{rule} のパラメータ remainder_to は 'first' か 'last' でなければなりません（値: {value!r}）")

REMAINDER_TO = ("first", "last")


class Fields(Record, frozen=True):
    """The names of the inputs an Allocation reads."""

    cost: str = "cost"
    members: str = "members"
    shares: str = "shares"
    consent: str = "consent"


_DEFAULT_FIELDS = Fields()


def fields_of(rule: Rule) -> Fields:
    return Fields(**(rule.doc.get("fields") or {}))


def even_split(cost: int, members: Sequence[str], remainder_to: str = "first") -> dict[str, int]:
    """``cost`` split per head: every share is ``cost // n`` or one more, the extra ones going to
    the first (or last) listed members; the shares sum exactly to ``cost``."""
    base, remainder = divmod(cost, len(members))
    extra = set(range(remainder)) if remainder_to == "first" else \
        set(range(len(members) - remainder, len(members)))
    return {pc: base + (1 if i in extra else 0) for i, pc in enumerate(members)}


def explicit_shares(cost: int, members: Sequence[str], shares: Any, consent: bool,
                    names: Fields = _DEFAULT_FIELDS) -> dict[str, int]:
    """The given shares in the members' order, if they are a legal split of ``cost``."""
    shares = per_member(shares, names.shares)
    for pc in shares:
        if pc not in members:
            raise MprError(SHARE_NOT_MEMBER, Location(path=f"{names.shares}.{pc}"), pc=pc,
                           members=", ".join(members))
    split = {}
    for pc in members:
        if pc not in shares:
            raise MprError(SHARE_MISSING, Location(path=names.shares), pc=pc)
        field = f"{names.shares}.{pc}"
        amount = whole(shares[pc], field)
        if amount < 0:
            raise MprError(NEGATIVE_AMOUNT, Location(path=field), field=field, value=amount)
        split[pc] = amount
    total = sum(split.values())
    if total != cost:
        raise MprError(SHARES_DO_NOT_SUM, Location(path=names.shares), total=total, cost=cost)
    if max(split.values()) - min(split.values()) > 1 and not consent:
        raise MprError(UNEVEN_WITHOUT_CONSENT, Location(path=names.consent), consent=names.consent,
                       shares=", ".join(f"{pc}: {amount}" for pc, amount in split.items()))
    return split


def split_cost(inputs: Mapping[str, Any], names: Fields = _DEFAULT_FIELDS,
               remainder_to: str = "first") -> dict[str, int]:
    """The even split of the cost, or the explicit shares when they are legal."""
    cost = whole(inputs.get(names.cost), names.cost)
    if cost < 0:
        raise MprError(NEGATIVE_AMOUNT, Location(path=names.cost), field=names.cost, value=cost)
    ids = check_members(inputs.get(names.members), names.members)
    shares = inputs.get(names.shares)
    if shares is not None:
        return explicit_shares(cost, ids, shares, bool(inputs.get(names.consent, False)), names)
    return even_split(cost, ids, remainder_to)


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, int]:
    remainder_to = ctx.param(rule, "remainder_to")
    if remainder_to not in REMAINDER_TO:
        raise MprError(BAD_REMAINDER_TO, rule.loc("params", "remainder_to"), rule=rule.id,
                       value=remainder_to)
    names = fields_of(rule)
    split = split_cost(inputs, names, remainder_to)
    how = names.shares if inputs.get(names.shares) is not None else \
        f"even, remainder to the {remainder_to}"
    ctx.trace.add("note", f"split: {how}", split)
    return split


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Any]:
    """Semantic check: ``remainder_to`` is one of the known orders."""
    value = rule.params.get("remainder_to")
    if value not in REMAINDER_TO:
        yield diagnostic(BAD_REMAINDER_TO, rule.loc("params", "remainder_to"), lang, rule=rule.id,
                         value=value)


KIND = Kind("Allocation", run, check=check)
