"""Reasons a plan or an action breaks a rule: coded, bilingual items of a result's ``errors`` list.

An illegal plan is a result (``legal: false``), not an exception; each reason says which rule
refuses what, with a code from the message catalogue and the input path it concerns.
"""
from __future__ import annotations

from typing import Any

from rules_dsl.errors import render


def reason(code: str, path: str, lang: str, **args: Any) -> dict[str, str]:
    """One item of a result's ``errors``: ``{code, message, path}``."""
    return {"code": code, "message": render(code, args, lang), "path": path}


def text(value: Any, lang: str) -> str:
    """A bilingual ``{ja, en}`` label (or a plain string) in ``lang``."""
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("ja") or value.get("en") or "")
    return "" if value is None else str(value)


# What a field of a run input must be, in both languages (messages use ``{expected[en]}``).
EXPECTED: dict[str, dict[str, str]] = {
    "names": {"en": "a list of names", "ja": "名前のリスト"},
    "uses": {"en": "a mapping from a name to a list of options", "ja": "名前から選択肢のリストへの対応"},
    "boolean": {"en": "true or false", "ja": "true か false"},
    "minutes": {"en": "a whole number of minutes, 0 or more", "ja": "0 以上の整数（分）"},
    "effects": {"en": "a list of effects", "ja": "効果のリスト"},
    "effect": {"en": "an effect {effect: ...}", "ja": "効果 {effect: ...}"},
    "amount": {"en": "a number, 0 or more", "ja": "0 以上の数"},
    "integer": {"en": "a whole number", "ja": "整数"},
    "name": {"en": "a name", "ja": "名前"},
    "round": {"en": "a round number, 0 or more", "ja": "0 以上のラウンド数"},
    "areas": {"en": "a non-empty list of area names", "ja": "エリア名のリスト（1つ以上）"},
    "adjacent": {"en": "a list of pairs of areas", "ja": "エリアの組のリスト"},
    "pair": {"en": "a pair of areas [a, b]", "ja": "エリアの組 [a, b]"},
    "characters": {"en": "a list of characters", "ja": "キャラクターのリスト"},
    "character": {"en": "a character {id, area, hp, acted, turn_started}",
                  "ja": "キャラクター {id, area, hp, acted, turn_started}"},
    "attack": {"en": "an attack {attacker, target, step}", "ja": "攻撃 {attacker, target, step}"},
    "item": {"en": "an item", "ja": "アイテム"},
    "effect_names": {"en": "a list of effect names", "ja": "効果名のリスト"},
    "options": {"en": "a list of options, each a name or {id, title}", "ja": "選択肢のリスト（各要素は名前か {id, title}）"},
}
