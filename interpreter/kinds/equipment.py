"""Equipment with slot-gated effects (kind ``Equipment``): an item may be equipped without the
slots it needs; then only its effect groups that do not need the slots work.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.registry import Kind
from interpreter.kinds._reasons import EXPECTED

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

BAD_ITEM = define(
    "MPR760", "{field} must be {expected[en]}; got {value!r}",
    "{field} は {expected[ja]} でなければなりません（値: {value!r}）")
NEGATIVE_SLOTS = define(
    "MPR761", "{field} must be 0 or more; got {value}", "{field} は 0 以上でなければなりません（値: {value}）")
DUPLICATE_GROUP = define(
    "MPR762", "{rule}: effect group field {field!r} is listed twice",
    "{rule}: 効果グループのフィールド {field!r} が二重に記載されています")


def _slots(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MprError(BAD_ITEM, Location(path=field), field=field, expected=EXPECTED["integer"],
                       value=value)
    if value < 0:
        raise MprError(NEGATIVE_SLOTS, Location(path=field), field=field, value=value)
    return value


def _effects(item: Mapping[str, Any], field: str) -> list[str]:
    value = item.get(field, [])
    if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
        raise MprError(BAD_ITEM, Location(path=f"item.{field}"), field=f"item.{field}",
                       expected=EXPECTED["effect_names"], value=value)
    return value


def equip(item: Any, available_slots: Any, *, slots_field: str, groups: list[Mapping[str, Any]],
          equip_without_slots: bool, active_flag: str) -> dict[str, Any]:
    """Equip ``item`` with ``available_slots`` free.

    ``groups`` lists the item's effect fields in order, each ``{field, needs_slots}``. With enough
    slots every group works; without them the item is still equipped (``equip_without_slots``) but
    only the groups that do not need slots work. Returns ``{equipped, <active_flag>, active_effects}``.
    """
    if not isinstance(item, Mapping):
        raise MprError(BAD_ITEM, Location(path="item"), field="item", expected=EXPECTED["item"], value=item)
    required = _slots(item.get(slots_field), f"item.{slots_field}")
    available = _slots(available_slots, "available_slots")
    slots_met = available >= required
    equipped = slots_met or equip_without_slots
    active: list[str] = []
    if equipped:
        for group in groups:
            effects = _effects(item, str(group["field"]))
            if slots_met or not group.get("needs_slots", False):
                active.extend(effects)
    return {"equipped": equipped, active_flag: equipped and slots_met, "active_effects": active}


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The engine's entry: what an item does once equipped with the slots available."""
    result = equip(inputs.get("item"), inputs.get("available_slots"),
                   slots_field=rule.doc["slots_field"], groups=rule.doc["effect_groups"],
                   equip_without_slots=ctx.param(rule, "equip_without_slots"),
                   active_flag=rule.doc["active_flag"])
    ctx.trace.add("note", "slots", result[rule.doc["active_flag"]],
                  required=(inputs.get("item") or {}).get(rule.doc["slots_field"]),
                  available=inputs.get("available_slots"))
    return result


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Semantic findings: each effect group field appears once."""
    seen: set[str | None] = set()
    for i, group in enumerate(rule.doc.get("effect_groups") or []):
        field = group.get("field") if isinstance(group, Mapping) else None
        if field in seen:
            yield diagnostic(DUPLICATE_GROUP, rule.loc("effect_groups", i, "field"), lang,
                             rule=rule.id, field=field)
        seen.add(field)


KIND = Kind("Equipment", run, check=check)
