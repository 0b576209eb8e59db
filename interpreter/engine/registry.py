"""The registry of rule kinds: the ``Kind`` record each kind module exports as ``KIND``, and where
kinds are found.

A kind is a reusable mechanism (a sum table, a roll table, a dice pool check, a deck, ...). Its
module gives the runner ``run(rule, inputs, ctx)``, optionally semantic checks ``check(rule,
ruleset, lang)`` yielding diagnostics, and ``distribution(rule, inputs, ctx)`` for ``mprules
prob``. Its document shape is ``schemas/kinds/<module>.json``.

Kinds are found in two places: every module of the package ``interpreter.kinds`` that exports
``KIND``, and every entry point of the group ``mprules.kinds`` (a kind living in another
distribution). The package is imported by name, so the engine never imports a kind statically.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

BUILTIN_PACKAGE = "interpreter.kinds"
ENTRY_POINT_GROUP = "mprules.kinds"


@dataclass(frozen=True)
class Kind:
    name: str  # the value of ``kind:`` in documents, e.g. "SumTable"
    run: Callable[..., Any]
    check: Callable[..., Iterator[Any]] | None = None
    distribution: Callable[..., Any] | None = None


def _builtin() -> Iterator[Kind]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{BUILTIN_PACKAGE}.{info.name}")
        kind = getattr(module, "KIND", None)
        if isinstance(kind, Kind):
            yield kind


def _plugged_in() -> Iterator[Kind]:
    from importlib.metadata import entry_points  # only when kinds are listed: start-up time

    for point in entry_points(group=ENTRY_POINT_GROUP):
        kind = point.load()
        if not isinstance(kind, Kind):
            raise RuntimeError(f"entry point {point.name} of {ENTRY_POINT_GROUP} is not a Kind")
        yield kind


@cache
def registry() -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for kind in (*_builtin(), *_plugged_in()):
        if kind.name in kinds:
            raise RuntimeError(f"kind {kind.name} registered twice")
        kinds[kind.name] = kind
    return kinds


def get(name: str) -> Kind | None:
    return registry().get(name)
