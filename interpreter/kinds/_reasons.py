"""Reasons a plan or an action breaks a rule: coded, bilingual items of a result's ``errors`` list.

An illegal plan is a result (``legal: false``), not an exception; each reason says which rule
refuses what, with a code from the message catalogue and the input path it concerns.
"""
from __future__ import annotations


from rules_dsl.errors import render
from rules_dsl.words import bilingual, define_word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def reason(code: str, path: str, lang: str, **args: Any) -> dict[str, str]:
    """One item of a result's ``errors``: ``{code, message, path}``."""
    return {"code": code, "message": render(code, args, lang), "path": path}


# What a field of a run input must be, in both languages (messages use ``{expected[en]}``).
EXPECTED: dict[str, dict[str, str]] = {
    name: bilingual(define_word(f"expected.{name}", en, ja)) for name, en, ja in (
        ("names", "a list of names",
         "名前のリスト"),
        ("uses", "a mapping from a name to a list of options",
         "名前から選択肢のリストへの対応"),
        ("boolean", "true or false",
         "true か false"),
        ("minutes", "a whole number of minutes, 0 or more",
         "0 以上の整数（分）"),
        ("effects", "a list of effects",
         "効果のリスト"),
        ("effect", "an effect {effect: ...}",
         "効果 {effect: ...}"),
        ("amount", "a number, 0 or more",
         "0 以上の数"),
        ("integer", "a whole number",
         "整数"),
        ("name", "a name",
         "名前"),
        ("round", "a round number, 0 or more",
         "0 以上のラウンド数"),
        ("areas", "a non-empty list of area names",
         "エリア名のリスト（1つ以上）"),
        ("adjacent", "a list of pairs of areas",
         "エリアの組のリスト"),
        ("pair", "a pair of areas [a, b]",
         "エリアの組 [a, b]"),
        ("characters", "a list of characters",
         "キャラクターのリスト"),
        ("character", "a character {id, area, hp, acted, turn_started}",
         "キャラクター {id, area, hp, acted, turn_started}"),
        ("attack", "an attack {attacker, target, step}",
         "攻撃 {attacker, target, step}"),
        ("item", "an item",
         "アイテム"),
        ("effect_names", "a list of effect names",
         "効果名のリスト"),
        ("options", "a list of options, each a name or {id, title}",
         "選択肢のリスト（各要素は名前か {id, title}）"),
        ("whole_or_more", "a whole number, 0 or more",
         "0 以上の整数"),
        ("table_ids", "a mapping of table names to roll table ids",
         "表の名前からロール表の ID への対応"),
        ("roll_table_id", "the id of a RollTable of the ruleset",
         "ルールセットの RollTable の ID"),
    )
}
ONE_OF = define_word("expected.one_of", "one of {options}", "{options} のいずれか")
# The names of a document's fields that a message quotes (``{what[en]}``).
FIELD_NAME: dict[str, dict[str, str]] = {
    name: bilingual(define_word(f"field.{name}", en, ja)) for name, en, ja in (
        ("id", "id", "ID"),
        ("code", "code", "コード"),
    )
}


def one_of(allowed: tuple[str, ...]) -> dict[str, str]:
    """``one of a | b`` / ``a | b のいずれか``: the words a field allows, in both languages."""
    options = " | ".join(allowed)
    return {lang: text.format(options=options) for lang, text in bilingual(ONE_OF).items()}
