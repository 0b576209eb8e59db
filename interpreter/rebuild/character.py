"""A whole-character rebuild on one plan: R17-R20 checked together, the ability-skill conversions
feeding each other, converted money and the spells' ordinary money joining the item budget.

Only what the rule grants is passed on: a conversion the GM did not permit, or the part of one
beyond the excess, feeds nothing. The skills' conversion to ability points depends only on the
skills before the rebuild, so it is settled first; then the abilities, then the skills with the
acquisitions the abilities gave."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rules_dsl.errors import Location, MprError, define

from .abilities import check_abilities
from .items import check_items
from .plan import Line, Outcome, Violation, choice, flag, join, linked, mapping, sequence, whole
from .skills import check_skills
from .spells import check_spells

HELD_MONEY = define(
    "MPR824", "in a whole-character rebuild the money held before it is already in the item "
    "refund (A + B - C): {name} must be 0, not {value}",
    "キャラクター全体のリビルドでは、リビルド前の所持金はすでにアイテムの払い戻し（A＋B－C）に"
    "含まれています。{name} は {value} ではなく 0 にしてください")

PARTS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Outcome]] = {
    "abilities": check_abilities, "skills": check_skills, "items": check_items,
    "spells": check_spells}
"""The parts of a character plan, in the order they are checked."""

LINKED = {"abilities": ("from_skills",), "skills": ("from_abilities",)}
"""Fields of a part that the character plan fills in from another part."""

LINKED_MONEY = ("converted", "from_spells")
"""Money of the item plan that the character plan fills in from the other parts."""


@contextmanager
def within(part: str) -> Iterator[None]:
    """Locate an input error raised inside ``part`` under the part's name (``after.body`` ->
    ``abilities.after.body``); parameter errors keep their path and name the part."""
    try:
        yield
    except MprError as error:
        error.part = part  # type: ignore[attr-defined]
        path = error.loc.path if error.loc else None
        if path and not path.startswith("params."):
            loc = error.loc
            error.loc = Location(loc.file, loc.line, loc.column, join(part, path))
        raise


def _refuse_linked(plan: Mapping[str, Any], fields: tuple[str, ...], path: str) -> None:
    for key in fields:
        if key in plan:
            raise linked(join(path, key), key)


def _refuse_held_money(spells: Mapping[str, Any], purses: Mapping[str, int], spell_only: str
                       ) -> None:
    """The ordinary money a PC holds is among the money it obtained (A + B), which the item
    rebuild refunds in full: given again as a spell purse it would be counted twice."""
    held = spells.get("money") or {}
    for purse in purses:
        if purse != spell_only and held.get(purse):
            raise MprError(HELD_MONEY, Location(path=join("spells.money", purse)),
                           name=join("spells.money", purse), value=held[purse])


def _tag(outcome: Outcome, part: str) -> tuple[tuple[Violation, ...], tuple[Line, ...]]:
    return (tuple(Violation(v.constraint, join(part, v.path), v.args, part)
                  for v in outcome.violations),
            tuple(Line(r.message, r.args, part) for r in outcome.report))


def check_character(plan: Mapping[str, Any], params: Mapping[str, Mapping[str, Any]]) -> Outcome:
    """Check a whole rebuild ``{gm_permits_conversion, abilities, skills, items, spells}``;
    ``params`` holds each part's parameters by part name."""
    permitted = flag(plan.get("gm_permits_conversion", False), "gm_permits_conversion")
    parts = {p: dict(mapping(plan.get(p), p)) for p in PARTS}
    for part, fields in LINKED.items():
        _refuse_linked(parts[part], fields + ("gm_permits_conversion",), part)
    money = dict(mapping(parts["items"].get("money"), "items.money"))
    _refuse_linked(money, LINKED_MONEY, "items.money")
    for part in LINKED:
        parts[part]["gm_permits_conversion"] = permitted
    outcomes: dict[str, Outcome] = {}
    with within("skills"):
        granted = check_skills({**parts["skills"], "from_abilities": 0}, params["skills"])
    with within("abilities"):
        outcomes["abilities"] = check_abilities(
            {**parts["abilities"], "from_skills": granted.values["ability_points"]},
            params["abilities"])
    with within("skills"):
        outcomes["skills"] = check_skills(
            {**parts["skills"],
             "from_abilities": outcomes["abilities"].values["skill_acquisitions"]},
            params["skills"])
    with within("spells"):
        outcomes["spells"] = check_spells(parts["spells"], params["spells"])

    free = str(params["spells"].get("free_source"))
    with within("spells"):
        spell_only = choice(params["spells"].get("spell_only_purse"),
                            outcomes["spells"].values["left"], "params.spell_only_purse", "purse")
        learned = sequence(parts["spells"].get("learned", []), "learned")
    _refuse_held_money(parts["spells"], outcomes["spells"].values["left"], spell_only)
    paid = sum(s["cost"] for s in learned if s["paid_from"] not in (spell_only, free))
    found: list[Violation] = []
    if "spells_spent" in money:
        with within("items"):
            stated = whole(money["spells_spent"], "money.spells_spent")
        if stated != paid:
            found.append(Violation("spells_spent_mismatch", "items.money.spells_spent", {
                "stated": stated, "paid": paid, "difference": abs(stated - paid)}))
    money.setdefault("spells_spent", paid)
    money["converted"] = sum(outcomes[p].values["money_mj"] for p in ("abilities", "skills"))
    money["from_spells"] = sum(v for purse, v in outcomes["spells"].values["left"].items()
                               if purse != spell_only)
    with within("items"):
        outcomes["items"] = check_items({**parts["items"], "money": money}, params["items"])

    report: list[Line] = []
    values: dict[str, Any] = {}
    for part in PARTS:
        violations, lines = _tag(outcomes[part], part)
        found += violations
        report += lines
        values[part] = {"legal": outcomes[part].legal, **outcomes[part].values}
    return Outcome(values, tuple(found), tuple(report))
