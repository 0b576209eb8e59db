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
    R = TypeVar("R", bound="Frozen | Record")


class _Compared:
    """What ``Frozen`` and ``Record`` share: their values in field order, and equality by the
    compared fields (``_fields`` and ``_compared``, set by each subclass)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[dict[str, Any]] = {}

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def _given(self, args: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
        """Each field's value from the arguments of a construction, by position or keyword, else
        its default (or a fresh one from its factory); a TypeError as a dataclass gives one."""
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} fields, got {len(args)}")
        given = dict(zip(fields, args))
        for name in given:
            if name in values:
                raise TypeError(f"{type(self).__name__}() got the field {name!r} twice")
        defaults, factories = self._defaults, self._factories
        for name in fields[len(args):]:
            if name in values:
                given[name] = values.pop(name)
            elif name in defaults:
                given[name] = defaults[name]
            elif name in factories:
                given[name] = factories[name]()
            else:
                raise TypeError(f"{type(self).__name__}() missing the field {name!r}")
        if values:
            raise TypeError(f"{type(self).__name__}() got unknown fields {sorted(values)}")
        return given

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()


class Frozen(_Compared):
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
        setter = object.__setattr__
        for name, value in self._given(args, values).items():
            setter(self, name, value)


    def _asdict(self) -> dict[str, Any]:
        """The fields by name (shallow, like a namedtuple's ``_asdict``)."""
        return dict(zip(self._fields, self._values()))


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


def replace(obj: R, /, **changes: Any) -> R:
    """A copy of ``obj`` (a ``Frozen`` or a ``Record``) with the given fields changed."""
    values = dict(zip(obj._fields, obj._values()))
    values.update(changes)
    return type(obj)(**values)


class _Field:
    """What ``field()`` gives: a default (or a function making one), and whether the field is
    shown and compared."""

    __slots__ = ("default", "factory", "repr", "compare")

    def __init__(self, default: Any, factory: Any, repr: bool, compare: bool) -> None:
        self.default, self.factory, self.repr, self.compare = default, factory, repr, compare


_MISSING = _Field(None, None, True, True)


def field(*, default: Any = _MISSING, default_factory: Any = None, repr: bool = True,
          compare: bool = True) -> Any:
    """A field of a ``Record`` with a default, or a fresh default from ``default_factory``, and
    left out of ``repr`` or comparing (as ``dataclasses.field``)."""
    return _Field(default, default_factory, repr, compare)


class Record(_Compared):
    """The base of a class on the start-up path that a ``dataclass`` would be: its fields are its
    annotations, in order (``ClassVar`` ones left out), a class value their default (or
    ``field(...)``); it is built by position or keyword, compared by its fields, shown like a
    dataclass, copied with ``replace``, pickled by its ``__dict__``. A subclass with ``frozen=True``
    (``class T(Record, frozen=True)``) refuses assignment and is hashed by its compared fields. No
    ``dataclasses`` (nor ``inspect``) is imported and no code is generated per class."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[dict[str, Any]] = {}
    _compared: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()
    _frozen: ClassVar[bool] = False

    def __init_subclass__(cls, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields, defaults, factories = list(cls._fields), dict(cls._defaults), dict(cls._factories)
        uncompared = set(cls._fields) - set(cls._compared)
        unshown = set(cls._fields) - set(cls._shown)
        for name, note in cls.__dict__.get("__annotations__", {}).items():
            if "ClassVar" in str(note):
                continue
            if name not in fields:
                fields.append(name)
            value = cls.__dict__.get(name, _MISSING)
            if isinstance(value, _Field):
                if value.factory is not None:
                    factories[name] = value.factory
                elif value is not _MISSING and value.default is not _MISSING:
                    defaults[name] = value.default
                if not value.compare:
                    uncompared.add(name)
                if not value.repr:
                    unshown.add(name)
                if value is not _MISSING:
                    delattr(cls, name)
                    if name in defaults:
                        setattr(cls, name, defaults[name])
            else:
                defaults[name] = value
        cls._fields, cls._defaults, cls._factories = tuple(fields), defaults, factories
        cls._compared = tuple(n for n in fields if n not in uncompared)
        cls._shown = tuple(n for n in fields if n not in unshown)
        cls._frozen = frozen or cls._frozen
        if cls._frozen:
            cls.__hash__ = Record._frozen_hash  # type: ignore[method-assign,assignment]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # as a dataclass compared by value

    def __init__(self, *args: Any, **values: Any) -> None:
        self.__dict__.update(self._given(args, values))

    def _frozen_hash(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._frozen:
            raise AttributeError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)
