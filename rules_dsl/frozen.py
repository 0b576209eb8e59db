"""``Frozen``: the base of small immutable value classes on the start-up path of every command.

A subclass lists its fields as ``__slots__`` (and defaults in ``_defaults``, or a function making
a fresh default each time in ``_factories``; fields left out of comparing and hashing in
``_uncompared``); it is built by
position or keyword, compared and hashed by its fields, shown like a dataclass, copied with
``replace``, pickled by value. It behaves as a frozen dataclass would, without importing
``dataclasses`` (and ``inspect`` with it) or generating code for each class at import time.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    F = TypeVar("F", bound="Frozen")


class Frozen:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[dict[str, Any]] = {}
    _uncompared: ClassVar[frozenset[str]] = frozenset()
    _compared: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(name for name in cls.__dict__.get("__slots__", ()) if name not in cls._fields)
        cls._fields = cls._fields + own
        cls._defaults = {**cls._defaults, **cls.__dict__.get("_defaults", {})}
        cls._factories = {**cls._factories, **cls.__dict__.get("_factories", {})}
        cls._uncompared = cls._uncompared | frozenset(cls.__dict__.get("_uncompared", ()))
        cls._compared = tuple(name for name in cls._fields if name not in cls._uncompared)

    def __init__(self, *args: Any, **values: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} fields, got {len(args)}")
        setter = object.__setattr__
        for name, value in zip(fields, args):
            if name in values:
                raise TypeError(f"{type(self).__name__}() got the field {name!r} twice")
            setter(self, name, value)
        defaults = self._defaults
        for name in fields[len(args):]:
            if name in values:
                setter(self, name, values.pop(name))
            elif name in defaults:
                setter(self, name, defaults[name])
            elif name in self._factories:
                setter(self, name, self._factories[name]())
            else:
                raise TypeError(f"{type(self).__name__}() missing the field {name!r}")
        if values:
            raise TypeError(f"{type(self).__name__}() got unknown fields {sorted(values)}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def _asdict(self) -> dict[str, Any]:
        """The fields by name (shallow, like a namedtuple's ``_asdict``)."""
        return dict(zip(self._fields, self._values()))

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())


def replace(obj: F, /, **changes: Any) -> F:
    """A copy of ``obj`` with the given fields changed."""
    values = dict(zip(obj._fields, obj._values()))
    values.update(changes)
    return type(obj)(**values)
