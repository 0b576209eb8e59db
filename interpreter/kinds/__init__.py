"""The registry of rule kinds: one module per kind, each exporting ``KIND = Kind(...)``.

A kind is a reusable primitive (sum table, roll table, check, tiered package, ...). Its module
gives the executor ``run(rule, inputs, ctx)``, optionally semantic checks ``check(rule, ruleset,
lang)`` yielding diagnostics, and ``distribution(rule, inputs, ctx)`` for ``mprules prob``.
Its document shape is ``schemas/kinds/<module>.json``.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True)
class Kind:
    name: str  # the value of ``kind:`` in documents, e.g. "SumTable"
    run: Callable[..., Any]
    check: Callable[..., Iterator[Any]] | None = None
    distribution: Callable[..., Any] | None = None
    describe: Callable[..., Any] | None = None  # handout rendering (mprules doc)


@cache
def registry() -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        kind = getattr(module, "KIND", None)
        if isinstance(kind, Kind):
            if kind.name in kinds:
                raise RuntimeError(f"kind {kind.name} registered twice")
            kinds[kind.name] = kind
    return kinds


def get(name: str) -> Kind | None:
    return registry().get(name)
