"""The registry of rule kinds: the ``Kind`` record each kind module exports as ``KIND``, the typed
signatures of what a kind gives the engine, and where kinds are found.

A kind is a reusable mechanism (a sum table, a roll table, a dice pool check, a deck, ...). It
gives the runner ``run(rule, inputs, ctx)``, optionally semantic checks ``check(rule, ruleset,
lang)`` yielding diagnostics, and ``distribution(rule, inputs, ctx)`` for ``mprules prob``. Its
document shape is a JSON Schema: ``schemas/kinds/<module>.json`` for the kinds of the package
(``schemas/rule.json`` dispatches to them), the file ``Kind.schema`` names for the others.

Kinds are found in two places: every module of the package ``interpreter.kinds`` that exports
``KIND``, and every entry point of the group ``mprules.kinds`` (a kind living in another
distribution). The package is imported by name, so the engine never imports a kind statically.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rules_dsl.errors import Diagnostic, Location, MprError, define

from interpreter.documents import kind_schemas
from interpreter.documents.resources import schemas_dir
from interpreter.engine.trace import ProbTable
from interpreter.ruleset.model import Rule, Ruleset

if TYPE_CHECKING:
    from interpreter.engine.runner import Context

BUILTIN_PACKAGE = "interpreter.kinds"
ENTRY_POINT_GROUP = "mprules.kinds"

NOT_A_KIND = define(
    "MPR575", "the entry point {name} of the group {group} gives {found}, not a Kind ({problem})",
    "エントリーポイントのグループ {group} の {name} が返すのは {found} で、Kind ではありません（{problem}）")
NO_SCHEMA = define(
    "MPR576", "kind {kind} (entry point {name}) names no schema file that exists: {schema}",
    "種別 {kind}（エントリーポイント {name}）のスキーマのファイルがありません: {schema}")
TWICE = define(
    "MPR577", "kind {kind} is registered twice: by {first} and by {second}",
    "種別 {kind} が2回登録されています: {first} と {second}")


class Run(Protocol):
    """``run(rule, inputs, ctx)``: the value of a rule for an input (defaults filled in)."""

    def __call__(self, rule: Rule, inputs: Mapping[str, Any], ctx: Context, /) -> Any: ...


class Check(Protocol):
    """``check(rule, ruleset, lang)``: the kind's own findings about a rule, for ``validate``."""

    def __call__(self, rule: Rule, ruleset: Ruleset, lang: str = "en", /) -> Iterator[Diagnostic]: ...


class Distribution(Protocol):
    """``distribution(rule, inputs, ctx)``: the exact probabilities of a rule's outcomes."""

    def __call__(self, rule: Rule, inputs: Mapping[str, Any], ctx: Context, /) -> list[ProbTable]: ...


@dataclass(frozen=True)
class Kind:
    """A kind as the engine sees it. ``schema`` is the file of its JSON Schema: left out by the
    kinds of the package (the registry fills in ``schemas/kinds/<module>.json``), required of a
    kind found through an entry point."""

    name: str  # the value of ``kind:`` in documents, e.g. "SumTable"
    run: Run
    check: Check | None = None
    distribution: Distribution | None = None
    schema: Path | None = None


def _builtin() -> Iterator[tuple[str, Kind]]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{BUILTIN_PACKAGE}.{info.name}")
        kind = getattr(module, "KIND", None)
        if isinstance(kind, Kind):
            schema = kind.schema or schemas_dir() / "kinds" / f"{info.name}.json"
            yield module.__name__, replace(kind, schema=schema)


def _plugged_in() -> Iterator[tuple[str, Kind]]:
    from importlib.metadata import entry_points  # only when kinds are listed: start-up time

    for point in entry_points(group=ENTRY_POINT_GROUP):
        where = Location(path=f"{ENTRY_POINT_GROUP}:{point.name}")
        kind = point.load()
        if not isinstance(kind, Kind):
            raise MprError(NOT_A_KIND, where, name=point.name, group=ENTRY_POINT_GROUP,
                           found=type(kind).__name__, problem=point.value)
        if kind.schema is None or not Path(kind.schema).is_file():
            raise MprError(NO_SCHEMA, where, kind=kind.name, name=point.name, schema=kind.schema)
        yield f"{ENTRY_POINT_GROUP}:{point.name}", kind


@cache
def registry() -> dict[str, Kind]:
    """Every kind by name: the package's first, then those of the entry points (whose schemas
    the document validation learns here)."""
    kinds: dict[str, Kind] = {}
    origins: dict[str, str] = {}
    for origin, kind in (*_builtin(), *_plugged_in()):
        if kind.name in kinds:
            raise MprError(TWICE, Location(path=origin), kind=kind.name, first=origins[kind.name],
                           second=origin)
        kinds[kind.name] = kind
        origins[kind.name] = origin
    for name, origin in origins.items():
        schema = kinds[name].schema
        if origin.startswith(ENTRY_POINT_GROUP + ":") and schema is not None:
            kind_schemas.add(name, Path(schema))
    return kinds


def plugged_schemas() -> Mapping[str, Path]:
    """The schema files of the kinds found through entry points, by kind name."""
    registry()
    return kind_schemas.plugged()


kind_schemas.set_source(plugged_schemas)


def get(name: str) -> Kind | None:
    return registry().get(name)
