"""What every solver returns (values, violations of named constraints, report lines) and the input
readers that turn bad plan data into coded, located errors (MPR800-829)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)

from rules_dsl.errors import Location, MprError, define, did_you_mean
from interpreter.solvers.limits import MAX_PLAN_ENTRIES
from rules_dsl.words import bilingual, define_word, define_words, vocabulary

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_NAME = define(
    "MPR800", "unknown {what_en} {name!r}; expected one of: {options}{hint}",
    "不明な{what_ja} {name!r} です。次のいずれかを指定してください: {options}{hint}")
MISSING = define(
    "MPR801", "{what_en} {name!r} is missing", "{what_ja} {name!r} がありません")
NEGATIVE = define(
    "MPR802", "{value} is negative; a count or an amount is 0 or more",
    "{value} は負の値です。回数や金額は0以上で指定してください")
NOT_WHOLE = define(
    "MPR803", "expected a whole number, got {value!r}",
    "整数を指定してください（{value!r} が与えられました）")
DUPLICATE = define(
    "MPR804", "{name!r} is listed twice (first at {first})",
    "{name!r} が2回指定されています（最初は {first}）")
NOT_TEXT = define(
    "MPR805", "expected a non-empty name, got {value!r}",
    "空でない名前を指定してください（{value!r} が与えられました）")
NOT_MAPPING = define(
    "MPR806", "expected a mapping of names to values, got {got}",
    "名前と値の対応（マッピング）を指定してください（{got} が与えられました）")
NOT_LIST = define(
    "MPR810", "expected a list, got {got}",
    "リストを指定してください（{got} が与えられました）")
NOT_FLAG = define(
    "MPR807", "expected true or false, got {value!r}",
    "true か false を指定してください（{value!r} が与えられました）")
PARAM_UNSET = define(
    "MPR808", "this parameter has no value in the ruleset; {how[en]} to check a plan with {option}",
    "このパラメータはルールセットで値が設定されていません。{option} の計画を確認するには、{how[ja]}")
HOW_SET = define_word("plan.how.set", "set it (in a variant or as a parameter the caller gives)",
                      "バリアントか、呼び出し側が与えるパラメータで値を設定してください")
TOO_MANY = define(
    "MPR809", "{count} entries; at most {limit} are accepted in one plan",
    "{count} 件あります。1つの計画で指定できるのは {limit} 件までです")
TOO_LOW = define(
    "MPR811", "{value} is below the lowest allowed value {minimum}",
    "{value} は下限 {minimum} を下回っています")
TOO_HIGH = define(
    "MPR823", "{value} is above the highest allowed value {maximum}",
    "{value} は上限 {maximum} を上回っています")
LINKED_FIELD = define(
    "MPR812", "{name} is filled in by this plan from its other parts; leave it out",
    "{name} はこの計画でほかの部分から自動的に設定されます。指定しないでください")

WHAT = define_words("plan.what", {"field": "field", "value": "value"}, {"field": "項目", "value": "値"})
"""The nouns an error may use for what is unknown or missing: a field of a record, or a value."""


class Violation(Record, frozen=True):
    """A constraint of the rule that the plan breaks: the constraint's id in the rule document,
    where in the plan, and the numbers its message needs (what is off and by how much)."""

    constraint: str
    path: str
    args: Mapping[str, Any] = field(default_factory=dict)
    part: str | None = None  # the sub-procedure of a composite plan that reported it


class Line(Record, frozen=True):
    """One line of the readable report: a message id of the rule document and its arguments."""

    message: str
    args: Mapping[str, Any] = field(default_factory=dict)
    part: str | None = None


class Outcome(Record, frozen=True):
    """A checked plan: its computed values, every violation found, and the report lines;
    ``details`` are values a composite plan may link to that are not part of the result."""

    values: Mapping[str, Any]
    violations: tuple[Violation, ...] = ()
    report: tuple[Line, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def legal(self) -> bool:
        return not self.violations


def join(path: str, key: str | int) -> str:
    """``after`` + ``x`` -> ``after.x``; ``after`` + 2 -> ``after[2]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _fail(code: str, path: str, **args: Any) -> MprError:
    if "what" in args:
        what = args.pop("what")
        args["what_en"], args["what_ja"] = (vocabulary(WHAT, lang)[what] for lang in ("en", "ja"))
    return MprError(code, Location(path=path), **args)


def whole(value: Any, path: str) -> int:
    """A count or an amount: an integer of 0 or more."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(NOT_WHOLE, path, value=value)
    if value < 0:
        raise _fail(NEGATIVE, path, value=value)
    return value


def at_least(value: Any, minimum: int, path: str) -> int:
    """A whole number of ``minimum`` or more (a level counting from the first level)."""
    number = whole(value, path)
    if number < minimum:
        raise _fail(TOO_LOW, path, value=number, minimum=minimum)
    return number


def at_most(value: int, maximum: int, path: str) -> int:
    if value > maximum:
        raise _fail(TOO_HIGH, path, value=value, maximum=maximum)
    return value


def flag(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(NOT_FLAG, path, value=value)
    return value


def _absent(path: str) -> MprError:
    return _fail(MISSING, path, what="field", name=path.rsplit(".", 1)[-1])


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        raise _absent(path)
    if not isinstance(value, Mapping):
        raise _fail(NOT_MAPPING, path, got=type(value).__name__)
    return value


def record(value: Any, path: str, keys: Sequence[str]) -> Mapping[str, Any]:
    """A mapping whose keys are all among ``keys``: a misspelt field is refused, not ignored."""
    found = mapping(value, path)
    for key in found:
        choice(key, keys, join(path, str(key)), "field")
    return found


def sequence(value: Any, path: str) -> Sequence[Any]:
    if value is None:
        raise _absent(path)
    if not isinstance(value, (list, tuple)):
        raise _fail(NOT_LIST, path, got=type(value).__name__)
    if len(value) > MAX_PLAN_ENTRIES:
        raise _fail(TOO_MANY, path, count=len(value), limit=MAX_PLAN_ENTRIES)
    return value


def name(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(NOT_TEXT, path, value=value)
    return value


def choice(value: Any, options: Iterable[str], path: str, what: str) -> str:
    """One of ``options``; an unknown value names the options and the nearest one."""
    options = list(options)
    if isinstance(value, str) and value in options:
        return value
    raise _fail(UNKNOWN_NAME, path, what=what, name=value, options=", ".join(options),
                hint=did_you_mean(str(value), options))


def field_of(record: Mapping[str, Any], key: str, path: str, what: str = "field") -> Any:
    if key not in record or record[key] is None:
        raise _fail(MISSING, join(path, key), what=what, name=key)
    return record[key]


def keyed(value: Any, keys: Sequence[str], path: str, what: str) -> dict[str, int]:
    """A mapping with exactly ``keys`` (in that order), each a whole number."""
    record = mapping(value, path)
    for key in record:
        choice(key, keys, join(path, str(key)), what)
    return {key: whole(field_of(record, key, path, what), join(path, key)) for key in keys}


def unique(records: Sequence[Mapping[str, Any]], path: str, key: str = "name") -> None:
    """Refuse two records of a list with the same ``name`` (written under ``key`` in the plan)."""
    seen: dict[str, str] = {}
    for i, record in enumerate(records):
        here = join(path, i)
        label = record["name"]
        if label in seen:
            raise _fail(DUPLICATE, join(here, key), name=label, first=seen[label])
        seen[label] = here


def linked(path: str, key: str) -> MprError:
    """A field of a part that the composite plan sets itself."""
    return _fail(LINKED_FIELD, path, name=key)


def unset(path: str, option: str) -> MprError:
    """A parameter the ruleset leaves unset (null), needed by ``option`` of the plan."""
    return _fail(PARAM_UNSET, path, option=option, how=bilingual(HOW_SET))
