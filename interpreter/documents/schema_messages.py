"""The schema findings' codes (MPR300-349) and the bilingual words their messages are made of:
type names, "did you mean", quoting hints for YAML 1.1 values."""
from __future__ import annotations

import json
import unicodedata
from typing import Any

from rules_dsl.errors import define
from rules_dsl.errors import did_you_mean as nearest
from rules_dsl.words import define_word, define_words, vocabulary, word

TYPE = define("MPR300", "expected {expected}, found {found}", "{expected}が必要ですが、{found}です")
QUOTE = define("MPR301", "YAML reads {text} as {value}, not as text: write it in quotes: '{text}'",
               "YAML は {text} を文字列ではなく {value} と読みます。引用符で囲んでください: '{text}'")
REQUIRED = define("MPR302", "the field '{name}' is required", "フィールド '{name}' が必要です")
UNKNOWN_PROPERTY = define("MPR303", "unknown field '{name}'{hint}", "不明なフィールド '{name}'{hint}")
ENUM = define("MPR304", "{value} is not one of: {allowed}{hint}",
              "{value} は次のどれでもありません: {allowed}{hint}")
CONST = define("MPR305", "{value} must be {allowed}", "{value} は {allowed} でなければなりません")
PATTERN = define("MPR306", "{value} is not {expected}", "{value} は {expected} ではありません")
RANGE = define("MPR307", "{value} is out of range: it must be {op} {limit}",
               "{value} は範囲外です（{op} {limit} である必要があります）")
LENGTH = define("MPR308", "the text has {value} characters: it must be {op} {limit}",
                "文字数が {value} です（{op} {limit} である必要があります）")
ITEMS = define("MPR309", "the list has {value} items: it must be {op} {limit}",
               "リストの要素数が {value} です（{op} {limit} である必要があります）")
FIELDS = define("MPR310", "the mapping has {value} fields: it must be {op} {limit}",
                "マッピングのフィールド数が {value} です（{op} {limit} である必要があります）")
UNIQUE = define("MPR311", "{value} is repeated: the items must be unique",
                "{value} が重複しています。要素は重複できません")
UNKNOWN_KIND = define("MPR312", "unknown kind {kind}{hint}; the known kinds are: {kinds}",
                      "不明な種類 {kind}{hint}。使える種類: {kinds}")
ONE_OF_REQUIRED = define("MPR313", "one of {names} is required", "{names} のどれかが必要です")
AMBIGUOUS = define("MPR314", "the value matches more than one of the allowed forms",
                   "値が複数の形式に当てはまります")
UNRESOLVABLE = define("MPR315", "the $ref {ref} is not a local schema: it is never fetched",
                      "$ref {ref} はローカルのスキーマではありません（取得はしません）")
DEPENDENT = define("MPR316", "'{name}' needs '{needed}' too", "'{name}' には '{needed}' も必要です")
EXCLUSIVE = define("MPR317", "{names} cannot be used together", "{names} は同時に使えません")
NOT_ALLOWED = define("MPR318", "{value} is not allowed here", "{value} はここでは使えません")
GENERIC = define("MPR319", "does not match the schema: {detail}", "スキーマに合いません: {detail}")
BAD_INPUTS = define("MPR320", "not a valid JSON Schema: {detail}",
                    "JSON Schema として正しくありません: {detail}")
BAD_KEY = define("MPR321", "the key '{key_name}' is not allowed: {detail}",
                 "キー '{key_name}' は使えません: {detail}")
UNKNOWN_SCHEMA = define("MPR322", "no schema named {name} in schemas/",
                        "schemas/ に {name} というスキーマはありません")

_TYPES = define_words(
    "schema.type",
    {"string": "text", "integer": "an integer", "number": "a number", "boolean": "true or false",
     "object": "a mapping", "array": "a list", "null": "null"},
    {"string": "文字列", "integer": "整数", "number": "数値", "boolean": "真偽値 (true/false)",
     "object": "マッピング", "array": "リスト", "null": "null"})
OR = define_word("schema.or", " or ", " または ")
INVISIBLE = define_word("schema.invisible", " (it contains the invisible character {code})",
                        "（見えない文字 {code} を含みます）")
MATCHING = define_word("schema.matching", "text matching {pattern}", "パターン {pattern} に合う文字列")
# The patterns the schemas use, in words (a schema's own ``x-expected`` comes first).
PATTERN_WORDS = {
    r"^[^\s.]+$": define_word("schema.pattern.name", "a name without blanks or dots",
                               "空白とドットを含まない名前"),
    r"^[a-z][a-z0-9_]*$": define_word(
        "schema.pattern.snake", "a lower-case name: a letter a-z, then a-z, 0-9 or _ (e.g. short_rest)",
        "小文字の名前（a〜z で始まり、a〜z・0〜9・_ が続く。例: short_rest）"),
    r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$": define_word(
        "schema.pattern.dotted", "a rule id: lower-case names joined by dots (e.g. house.my_rule)",
        "ルール ID（小文字の名前をドットでつなぐ。例: house.my_rule）"),
    r"^[^\W\d]\w*$": define_word(
        "schema.pattern.identifier", "a name that starts with a letter and has no blanks or marks",
        "文字で始まり、空白や記号を含まない名前"),
    r"^MPR[0-9]{3}$": define_word("schema.pattern.code", "a message code: MPR and three digits (MPR123)",
                                  "メッセージのコード（MPR と3桁の数字。例: MPR123）"),
    r"^[A-Z]{1,3}$": define_word("schema.pattern.upper", "one to three capital letters A-Z (e.g. S, JK)",
                                 "大文字 A〜Z の1〜3文字（例: S、JK）"),
}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def type_of(value: Any, lang: str) -> str:
    name = json_type(value)
    return vocabulary(_TYPES, lang).get(name, name)


def type_names(expected: list[str], lang: str) -> str:
    types = vocabulary(_TYPES, lang)
    return word(OR, lang).join(types.get(t, t) for t in expected)


def value(item: Any) -> str:
    """A short JSON rendering of a value for a message."""
    try:
        text = json.dumps(item, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(item)
    return text if len(text) <= 60 else text[:57] + "..."


def names(items: list[Any]) -> str:
    return ", ".join(f"'{item}'" for item in items)


def quote_args(text: str, read_as: Any, lang: str) -> dict[str, Any]:
    """``1:30`` reads as 90, ``no`` as false; ``12`` reads as an integer."""
    shown = value(read_as)
    return {"text": text, "value": type_of(read_as, lang) if shown == text else shown}


def did_you_mean(given: Any, allowed: Any, lang: str) -> str:
    """The rendered "did you mean" for a misspelt string value or key, or an empty string."""
    if not isinstance(given, str):
        return ""
    return nearest(given, [a for a in allowed if isinstance(a, str)]).render(lang)


def invisible(name: str, lang: str) -> str:
    hidden = [c for c in name if unicodedata.category(c) == "Cf"]
    if not hidden:
        return ""
    code = f"U+{ord(hidden[0]):04X}"
    return word(INVISIBLE, lang).format(code=code)


def expected(schema: Any, lang: str) -> str:
    """The phrase for what a pattern wants: the schema's ``x-expected`` or the pattern itself."""
    custom = schema.get("x-expected") if isinstance(schema, dict) else None
    if isinstance(custom, dict) and custom.get(lang):
        return custom[lang]
    pattern = schema.get("pattern") if isinstance(schema, dict) else None
    if isinstance(pattern, str) and pattern in PATTERN_WORDS:
        return word(PATTERN_WORDS[pattern], lang)
    return word(MATCHING, lang).format(pattern=pattern)


def describe(error: Any, lang: str) -> str:
    """A one-phrase reason for a key refused by ``propertyNames``."""
    if error.validator == "pattern":
        return expected(error.schema, lang)
    return error.message


BOUNDS = {
    "minimum": (RANGE, "≥", lambda v: v), "maximum": (RANGE, "≤", lambda v: v),
    "exclusiveMinimum": (RANGE, ">", lambda v: v), "exclusiveMaximum": (RANGE, "<", lambda v: v),
    "minLength": (LENGTH, "≥", len), "maxLength": (LENGTH, "≤", len),
    "minItems": (ITEMS, "≥", len), "maxItems": (ITEMS, "≤", len),
    "minProperties": (FIELDS, "≥", len), "maxProperties": (FIELDS, "≤", len),
}
