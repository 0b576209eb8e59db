"""The campaign wiring of a ruleset: which rule each campaign command runs, as the manifest's
``campaign:`` section declares it (inherited through ``extends``). The slots and the kind each
must name are read from ``schemas/ruleset.json`` (``x-rule-kind``), so this module knows no slot
by name: ``check_wiring`` reports a slot naming a missing rule or a rule of another kind, and
``wired`` gives a command its rule, or a coded error saying which entry the manifest lacks."""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache

from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic, did_you_mean
from rules_dsl.words import bilingual, define_word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

NOT_WIRED = define(
    "MPR770",
    "the ruleset's manifest does not say which rule campaign.{slot} is: add `campaign: {{{slot}: "
    "{example[en]}}}` to its ruleset.yaml (or extend a ruleset that does)",
    "ルールセットのマニフェストに campaign.{slot} のルールの指定がありません。ruleset.yaml に "
    "`campaign: {{{slot}: {example[ja]}}}` を書いてください（または指定のあるルールセットを継承してください）")
EXAMPLES = {False: define_word("wiring.one", "RULE_ID", "ルールID"),
            True: define_word("wiring.many", "{NAME: RULE_ID}", "{名前: ルールID}")}
WIRED_TO_NOTHING = define(
    "MPR771", "campaign.{slot} names rule {rule!r}, which is not in the ruleset{hint}: the campaign "
              "commands that need it will refuse",
    "campaign.{slot} が指定するルール {rule!r} はルールセットにありません{hint}。"
    "それを使うキャンペーンのコマンドは実行できません", severity="warning")
WIRED_RULE_MISSING = define(
    "MPR773", "campaign.{slot} names rule {rule!r}, which is not in the ruleset",
    "campaign.{slot} が指定するルール {rule!r} はルールセットにありません")
WIRED_TO_WRONG_KIND = define(
    "MPR772", "campaign.{slot} names rule {rule}, of kind {kind}; it must be of kind {expected}",
    "campaign.{slot} が指定するルール {rule} の種別は {kind} です。種別 {expected} のルールを指定してください")


@cache
def slot_kinds() -> dict[str, tuple[str, bool]]:
    """Each slot of the ``campaign`` section: the kind its rule must be, and whether it is a
    mapping of named entries (``True``) or one rule id."""
    # start-up: the shipped schemas are found only when a slot's kind is asked (not to run a rule)
    from interpreter.documents.resources import schemas_dir

    schema = json.loads((schemas_dir() / "ruleset.json").read_text(encoding="utf-8"))
    slots = schema["properties"]["campaign"]["properties"]
    return {name: (spec["x-rule-kind"], spec.get("type") == "object") for name, spec in slots.items()}


def _targets(wiring: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """``(slot, key, rule id)`` for every rule the wiring names (``key`` is ``slot`` or
    ``slot.entry``)."""
    for slot, (_, many) in slot_kinds().items():
        value = wiring.get(slot)
        if many and isinstance(value, Mapping):
            for entry, rule_id in value.items():
                yield slot, f"{slot}.{entry}", rule_id
        elif not many and value is not None:
            yield slot, slot, value


def _successor(ruleset: Any, rule_id: Any) -> Any:
    """``rule_id``, or the id of the rule that ``replaces`` it under a new id."""
    aliases = getattr(ruleset.rules, "aliases", {})
    if isinstance(rule_id, str) and rule_id in aliases:
        return aliases[rule_id]
    if not isinstance(rule_id, str) or rule_id in ruleset.rules:
        return rule_id
    return next((r.id for r in ruleset.rules.values() if r.doc.get("replaces") == rule_id), rule_id)


def resolved(ruleset: Any) -> dict[str, Any]:
    """The ruleset's wiring with every rule replaced under a new id named by its new id."""
    wiring: dict[str, Any] = {}
    for slot, value in ruleset.campaign.items():
        if isinstance(value, Mapping):
            wiring[slot] = {entry: _successor(ruleset, rule_id) for entry, rule_id in value.items()}
        else:
            wiring[slot] = _successor(ruleset, value)
    return wiring


def check_wiring(ruleset: Any, lang: str = "en") -> Iterator[Diagnostic]:
    """Every rule the wiring names (or the rule that replaces it) exists and is of the kind its
    slot needs."""
    for slot, key, rule_id in _targets(resolved(ruleset)):
        loc = (ruleset.campaign_at.get(key) or ruleset.campaign_at.get(slot)
               or Location(path=f"campaign.{key}"))
        rule = ruleset.rules.get(rule_id) if isinstance(rule_id, str) else None
        if rule is None:
            yield diagnostic(WIRED_TO_NOTHING, loc, lang, slot=key, rule=rule_id,
                             hint=did_you_mean(str(rule_id), ruleset.rules))
            continue
        expected = slot_kinds()[slot][0]
        if rule.kind != expected:
            yield diagnostic(WIRED_TO_WRONG_KIND, loc, lang, slot=key, rule=rule_id, kind=rule.kind,
                             expected=expected)


def wired_ids(wiring: Mapping[str, Any]) -> set[str]:
    """The ids of every rule the wiring names."""
    return {rule_id for _, _, rule_id in _targets(wiring) if isinstance(rule_id, str)}


def require(rules: Mapping[str, Any], rule_id: str, slot: str, where: str | None = None) -> str:
    """``rule_id`` if the campaign has it, else ``MPR773`` located at ``campaign.<slot>``."""
    if rule_id not in rules:
        raise MprError(WIRED_RULE_MISSING, Location(where, path=f"campaign.{slot}"), slot=slot,
                       rule=rule_id)
    return rule_id


def wired(wiring: Mapping[str, Any], slot: str, where: str | None = None) -> Any:
    """What the wiring gives ``slot``: a rule id, or for a mapping slot its entries. A slot the
    manifest leaves out is ``MPR770``, located at ``campaign.<slot>`` of the manifest ``where``."""
    value = wiring.get(slot)
    if value is None or value == {}:
        many = slot_kinds().get(slot, ("", False))[1]
        raise MprError(NOT_WIRED, Location(where, path=f"campaign.{slot}"), slot=slot,
                       example=bilingual(EXAMPLES[many]))
    return value
