"""Copies of plain data, the values YAML documents hold: dicts, lists, texts, numbers,
booleans and null. Reading a ruleset copies every document more than once; a copy that knows
these types takes a fraction of ``copy.deepcopy``'s time."""
from __future__ import annotations

from collections.abc import MutableMapping

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


class FlatOnUse(MutableMapping):
    """A mapping held in another form (positions folded through layers, a cache entry still
    encoded) until something needs it whole: the subclass's ``plain()`` makes it a dict once, and
    listing, changing, copying or pickling it goes through that dict. The subclass answers
    look-ups (``get``, ``[]``, ``in``, truth) its own way first."""

    __slots__ = ()

    def plain(self) -> dict:
        raise NotImplementedError

    def __iter__(self) -> Any:
        return iter(self.plain())

    def __len__(self) -> int:
        return len(self.plain())

    def __setitem__(self, key: Any, value: Any) -> None:
        self.plain()[key] = value

    def __delitem__(self, key: Any) -> None:
        del self.plain()[key]

    def keys(self) -> Any:
        return self.plain().keys()

    def items(self) -> Any:
        return self.plain().items()

    def values(self) -> Any:
        return self.plain().values()

    def copy(self) -> dict:
        return dict(self.plain())

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (self.plain(),)
