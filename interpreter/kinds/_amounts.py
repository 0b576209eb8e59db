"""Checks of run inputs that several kinds share: whole numbers, lists of members each named
once, mappings from a member to an amount. Each failure is a coded error naming the input path."""
from __future__ import annotations

from collections.abc import Mapping

from rules_dsl.errors import Location, MprError, define
from interpreter.solvers.limits import MAX_MEMBERS

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MEMBER_TWICE = define(
    "MPR520", "{pc!r} is listed twice (first at {first})",
    "{pc!r} が2回指定されています（最初は {first}）")
NEGATIVE_AMOUNT = define(
    "MPR524", "{field} is {value}, but it cannot be negative",
    "{field} が {value} ですが、負の値にはできません")
NO_MEMBERS = define(
    "MPR526", "{field} must list at least one member, and at most {limit}",
    "{field} には1人以上（上限 {limit} 人）を指定してください")
NOT_WHOLE = define(
    "MPR527", "{field} must be a whole number, got {value!r}",
    "{field} は整数でなければなりません（値: {value!r}）")
NOT_A_MAPPING = define(
    "MPR529", "{field} must be a mapping from a member to a whole number, got {value!r}",
    "{field} はメンバーから整数への対応でなければなりません（値: {value!r}）")


def whole(value: Any, field: str) -> int:
    """``value`` if it is a whole number (not a boolean), else a coded error naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MprError(NOT_WHOLE, Location(path=field), field=field, value=value)
    return value


def check_members(members: Any, field: str) -> list[str]:
    """The member ids, each once; a repeated id or an empty list is a coded error."""
    if not isinstance(members, list) or not 1 <= len(members) <= MAX_MEMBERS:
        raise MprError(NO_MEMBERS, Location(path=field), field=field, limit=MAX_MEMBERS)
    first: dict[str, int] = {}
    for i, member in enumerate(members):
        member = str(member)
        if member in first:
            raise MprError(MEMBER_TWICE, Location(path=f"{field}[{i}]"), pc=member,
                           first=f"{field}[{first[member]}]")
        first[member] = i
    return [str(member) for member in members]


def per_member(value: Any, field: str) -> Mapping[str, Any]:
    """``value`` if it is a mapping (member -> amount), else a coded error naming ``field``."""
    if not isinstance(value, Mapping):
        raise MprError(NOT_A_MAPPING, Location(path=field), field=field, value=value)
    return value
