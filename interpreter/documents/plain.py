"""Copies of plain data, the values YAML documents hold: dicts, lists, texts, numbers,
booleans and null. Reading a ruleset copies every document more than once; a copy that knows
these types takes a fraction of ``copy.deepcopy``'s time."""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_IMMUTABLE = frozenset((str, int, float, bool, type(None)))


def plain_copy(value: Any) -> Any:
    """A deep copy of ``value``: dicts and lists copied all the way down, texts, numbers,
    booleans and null shared (they never change), anything else through ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {key: plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [plain_copy(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    # start-up: copy loads only for a value that is not plain data
    import copy

    return copy.deepcopy(value)
