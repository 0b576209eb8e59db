"""How a plain YAML scalar is read: mprules reads the core schema of YAML 1.2 (as editors do:
yaml-language-server); YAML 1.1 (PyYAML, older tools) and check-jsonschema (ruamel.yaml, which
widens the core schema with ``0b``, ``_`` and signs on ``0x``/``0o``) are compared with it, so a
value that another reader reads differently is flagged, never converted silently.

YAML 1.2 core (spec 10.3.2): ``null Null NULL ~`` and the empty text are null; ``true True TRUE
false False FALSE`` are booleans; ``[-+]?[0-9]+`` is a decimal integer (``014`` is 14), ``0o14``
octal (12), ``0x10`` hexadecimal (16); ``[-+]?(.5 | 5 | 5. | 5.5)([eE][-+]?[0-9]+)?`` a float
(``1e3`` is 1000.0); everything else is text (``yes``, ``on``, ``1:30``, ``0b11``, ``1_000``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

_CORE = "tag:yaml.org,2002:"
STR, NULL, BOOL, INT, FLOAT = (_CORE + n for n in ("str", "null", "bool", "int", "float"))

_CORE_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_CORE_BOOL = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_CORE_INT = re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_CORE_FLOAT = re.compile(r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")


class CoreResolver(yaml.resolver.BaseResolver):
    """PyYAML's resolver for the YAML 1.2 core schema (its own ``Resolver`` is YAML 1.1)."""


for _tag, _regexp, _first in (
        (NULL, _CORE_NULL, ["~", "n", "N", ""]), (BOOL, _CORE_BOOL, list("tTfF")),
        (INT, _CORE_INT, list("-+0123456789")), (FLOAT, _CORE_FLOAT, list("-+0123456789."))):
    CoreResolver.add_implicit_resolver(_tag, _regexp, _first)

_CORE_RESOLVER = CoreResolver()
_YAML11_RESOLVER = yaml.resolver.Resolver()
_YAML11_CONSTRUCTOR = yaml.constructor.SafeConstructor()
CORE_FIRST = frozenset(first for first in CoreResolver.yaml_implicit_resolvers if first)
"""The first characters of a plain scalar that may be read as something other than text."""


def core_tag(text: str) -> str:
    """The tag YAML 1.2's core schema gives the plain scalar ``text``."""
    if text and text[0] not in CORE_FIRST:
        return STR
    return _CORE_RESOLVER.resolve(yaml.ScalarNode, text, (True, False))


def core_int(text: str) -> int:
    """A core-schema integer (``text`` matched it): decimal (leading zeros too), ``0o``, ``0x``."""
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def core_float(text: str) -> float:
    """A core-schema float (``text`` matched it): ``.5``, ``5.``, ``1e3``, ``.inf``, ``.nan``."""
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    return float(text)


def core_value(text: str) -> Any:
    """What YAML 1.2's core schema reads the plain scalar ``text`` as."""
    tag = core_tag(text)
    if tag == NULL:
        return None
    if tag == BOOL:
        return text in ("true", "True", "TRUE")
    if tag == INT:
        return core_int(text)
    if tag == FLOAT:
        return core_float(text)
    return text


# --- the other readers --------------------------------------------------------------------------

_YAML11_BOOLS = frozenset(("yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON",
                           "off", "Off", "OFF"))
_NUMBER_FIRST = frozenset("-+.0123456789")

UNREADABLE = object()
"""A reader refuses the scalar (PyYAML and check-jsonschema stop at a plain ``=``)."""


def yaml11_value(text: str) -> Any:
    """What YAML 1.1 (PyYAML's safe loader) reads the plain scalar ``text`` as; a date stays
    text (mprules and check-jsonschema keep dates as text)."""
    tag = _YAML11_RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
    node = yaml.ScalarNode(tag, text)
    try:
        if tag == NULL:
            return None
        if tag == BOOL:
            return _YAML11_CONSTRUCTOR.bool_values[text.lower()]
        if tag == INT:
            return _YAML11_CONSTRUCTOR.construct_yaml_int(node)
        if tag == FLOAT:
            return _YAML11_CONSTRUCTOR.construct_yaml_float(node)
    except (KeyError, ValueError, IndexError):
        return UNREADABLE
    if tag not in (STR, _CORE + "timestamp"):  # ``=`` (!!value), ``<<`` (!!merge) as a value
        return UNREADABLE
    return text


# check-jsonschema reads YAML through ruamel.yaml, whose YAML 1.2 resolver is wider than the core
# schema: ``_`` between digits, ``0b`` binary, a sign before ``0x``/``0o``, and a float written
# ``.5e3`` needs a sign in its exponent. Its dates are turned back into text.
_RUAMEL_FLOAT = re.compile(r"(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
                           r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                           r"|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?"
                           r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_RUAMEL_INT = re.compile(r"[-+]?(?:0b[01_]+|0o?[0-7_]+|[0-9_]+|0x[0-9a-fA-F_]+)\Z")


def check_jsonschema_value(text: str) -> Any:
    """What check-jsonschema (ruamel.yaml, YAML 1.2) reads the plain scalar ``text`` as."""
    if text == "=":
        return UNREADABLE
    if not text or text[0] not in _NUMBER_FIRST:
        return core_value(text)
    try:
        if _RUAMEL_FLOAT.match(text):
            return core_float(text.replace("_", ""))
        if _RUAMEL_INT.match(text):
            digits = text.replace("_", "")
            sign = -1 if digits.startswith("-") else 1
            digits = digits.lstrip("+-")
            for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
                if digits.startswith(prefix):
                    return sign * int(digits[2:], base)
            return sign * int(digits, 10)
    except ValueError:
        return UNREADABLE
    return text


@dataclass(frozen=True, slots=True)
class Reading:
    """A plain scalar that not every reader reads alike: what mprules read (``value``), what the
    others read (``others``: reader name -> value), and ``plain``, a form every reader reads as the
    one value that is not text (``14`` for ``014``, ``90`` for ``1:30``, ``true`` for ``yes``)."""

    text: str
    value: Any
    others: tuple[tuple[str, Any], ...]
    plain: str


READERS = (("yaml11", yaml11_value), ("check-jsonschema", check_jsonschema_value))


_ALIKE = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?\Z")
"""Numbers every reader reads alike (``12``, ``-3``, ``0.5``): the common case, never compared."""


def may_differ(text: str) -> bool:
    """A quick test: only these plain scalars can be read differently by another reader."""
    if not text:
        return False
    if text[0] in _NUMBER_FIRST:
        return _ALIKE.match(text) is None
    return text in _YAML11_BOOLS or text == "="


def compare(text: str, value: Any) -> Reading | None:
    """How the other readers read the plain scalar ``text`` that mprules read as ``value``;
    None when they all agree."""
    if not may_differ(text):
        return None
    others = tuple((name, read(text)) for name, read in READERS)
    differing = tuple((name, other) for name, other in others if not same(other, value))
    if not differing:
        return None
    candidates = [value] + [other for _, other in differing]
    typed = next((v for v in candidates if v is not None and v is not UNREADABLE
                  and not isinstance(v, str)), None)
    return Reading(text, value, differing, plain_form(typed) if typed is not None else "")


def same(a: Any, b: Any) -> bool:
    """One value read alike (``1``, ``1.0`` and ``true`` are three readings; NaN is NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def plain_form(value: Any) -> str:
    """The plain YAML text of a number or boolean that YAML 1.1, YAML 1.2 and check-jsonschema
    all read as ``value`` (a float keeps a dot in its mantissa, which YAML 1.1 needs)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (e + (exponent if exponent[:1] in "+-" else "+" + exponent) if e else "")


# --- writing ------------------------------------------------------------------------------------

class _Resolver(yaml.resolver.Resolver):
    """For writing: a text that any reader would read as something else is quoted."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        tag = super().resolve(kind, value, implicit)
        if kind is yaml.ScalarNode and implicit[0] and tag == STR and (
                core_tag(value) != STR or check_jsonschema_value(value) != value):
            return core_tag(value) if core_tag(value) != STR else INT
        return tag


class Dumper(yaml.emitter.Emitter, yaml.serializer.Serializer, yaml.representer.SafeRepresenter,
             _Resolver):
    """PyYAML's safe dumper whose plain texts read back as the same text in YAML 1.1, YAML 1.2
    and check-jsonschema (``'1e3'``, ``'0o14'``, ``'08'`` are quoted)."""

    def __init__(self, stream: Any, **kwds: Any) -> None:
        yaml.emitter.Emitter.__init__(self, stream, canonical=kwds.get("canonical"),
                                      indent=kwds.get("indent"), width=kwds.get("width"),
                                      allow_unicode=kwds.get("allow_unicode"),
                                      line_break=kwds.get("line_break"))
        yaml.serializer.Serializer.__init__(self, encoding=kwds.get("encoding"),
                                            explicit_start=kwds.get("explicit_start"),
                                            explicit_end=kwds.get("explicit_end"),
                                            version=kwds.get("version"), tags=kwds.get("tags"))
        yaml.representer.SafeRepresenter.__init__(
            self, default_style=kwds.get("default_style"),
            default_flow_style=kwds.get("default_flow_style", False),
            sort_keys=kwds.get("sort_keys", True))
        _Resolver.__init__(self)


def dump(data: Any, **options: Any) -> str:
    """``data`` as YAML text that every reader reads back as ``data`` (``yaml.safe_dump``'s
    options)."""
    return yaml.dump(data, Dumper=Dumper, **options)
