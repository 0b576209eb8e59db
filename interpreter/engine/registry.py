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

import os
import sys

from rules_dsl.errors import Location, MprError, define
from rules_dsl.frozen import Frozen, replace

from interpreter.documents import kind_schemas

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from pathlib import Path
    from typing import Any

    from interpreter.engine.protocols import Check, Distribution, Run

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


def __getattr__(name: str) -> Any:
    """``Run``, ``Check`` and ``Distribution``, the typed signatures a kind gives, live in
    ``interpreter.engine.protocols`` (which imports ``typing``): they are read from here too."""
    if name in ("Run", "Check", "Distribution"):
        # start-up: typing's Protocol is for type checkers and readers, not for running a rule
        from interpreter.engine import protocols

        return getattr(protocols, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Kind(Frozen):
    """A kind as the engine sees it: ``name`` (the value of ``kind:`` in documents, e.g.
    "SumTable"), ``run``, and optionally ``check`` and ``distribution``. ``schema`` is the file of
    its JSON Schema: left out by the kinds of the package (the registry fills in
    ``schemas/kinds/<module>.json``), required of a kind found through an entry point.
    ``inputs`` are the inputs every rule of the kind takes without an ``inputs:`` block (JSON
    Schemas by name, e.g. RollTable's ``roll``); a document's own ``inputs`` add fields to them.
    A document's ``constraints`` are checked by the engine after ``run``
    (``interpreter.engine.constraints``) unless ``own_constraints`` says the kind checks them
    itself (as ``Plan`` does)."""

    __slots__ = ("name", "run", "check", "distribution", "schema", "inputs", "own_constraints")
    _defaults = {"check": None, "distribution": None, "schema": None, "inputs": None,
                 "own_constraints": False}
    name: str
    run: Run
    check: Check | None
    distribution: Distribution | None
    schema: Path | str | None
    inputs: Mapping[str, Any] | None
    own_constraints: bool


def _with_schema(kind: Kind, module: str) -> Kind:
    if kind.schema is not None:
        return kind
    # start-up: the schema's place is needed only when a document is validated
    from interpreter.documents.resources import data_dir_text

    return replace(kind, schema=os.path.join(data_dir_text("schemas"), "kinds", f"{module}.json"))


def _builtin() -> Iterator[tuple[str, Kind]]:
    # start-up: listing the package's modules is for the whole registry, not for one kind
    import importlib
    import pkgutil

    package = importlib.import_module(BUILTIN_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{BUILTIN_PACKAGE}.{info.name}")
        kind = getattr(module, "KIND", None)
        if isinstance(kind, Kind):
            yield module.__name__, _with_schema(kind, info.name)


def _plugged_in() -> Iterator[tuple[str, Kind]]:
    from importlib.metadata import entry_points  # only when kinds are listed: start-up time

    for point in entry_points(group=ENTRY_POINT_GROUP):
        where = Location(path=f"{ENTRY_POINT_GROUP}:{point.name}")
        kind = point.load()
        if not isinstance(kind, Kind):
            raise MprError(NOT_A_KIND, where, name=point.name, group=ENTRY_POINT_GROUP,
                           found=type(kind).__name__, problem=point.value)
        if kind.schema is None or not os.path.isfile(kind.schema):
            raise MprError(NO_SCHEMA, where, kind=kind.name, name=point.name, schema=kind.schema)
        yield f"{ENTRY_POINT_GROUP}:{point.name}", kind


_all: list[dict[str, Kind]] = []  # the whole registry, once it was asked for
_one: dict[str, Kind] = {}  # kinds of the package found one by one (see ``get``)


def registry() -> dict[str, Kind]:
    """Every kind by name: the package's first, then those of the entry points (whose schemas
    the document validation learns here)."""
    if _all:
        return _all[0]
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
            kind_schemas.add(name, schema)  # type: ignore[arg-type]
    _all.append(kinds)
    return kinds


def plugged_files(kind_names: Iterable[str]) -> list[str]:
    """The files of the kinds among ``kind_names`` that come from outside the package (entry
    points): the module of each function the kind gives and its schema. What was checked with a
    kind depends on them as on the documents, so the caches stamp them: a plugin edited, upgraded
    or removed makes the ruleset read and checked again."""
    found: list[str] = []
    for name in sorted({n for n in kind_names if isinstance(n, str)}):
        kind = get(name)
        if kind is None:
            continue
        functions = (kind.run, kind.check, kind.distribution)
        modules = {getattr(f, "__module__", None) for f in functions if f is not None}
        if all(m is not None and m.startswith(BUILTIN_PACKAGE + ".") for m in modules):
            continue
        for module in sorted(m for m in modules if m is not None):
            file = getattr(sys.modules.get(module), "__file__", None)
            if file:
                found.append(os.path.realpath(file))
        if kind.schema is not None:
            found.append(os.path.realpath(str(kind.schema)))
    return sorted(set(found))


def plugged_schemas() -> Mapping[str, Path]:
    """The schema files of the kinds found through entry points, by kind name."""
    registry()
    return kind_schemas.plugged()


kind_schemas.set_source(plugged_schemas)


def _module_of(name: str) -> str | None:
    """The module of the package that holds the kind ``name``, as ``schemas/rule.json`` dispatches
    to its schema (``kinds/<module>.json``); None when ``rule.json`` does not know it."""
    # start-up: the schema dispatch is read only when a kind is first run in a process
    from interpreter.documents.schema_dispatch import dispatch_targets

    target = dispatch_targets().get(name)
    if target is None or not target.startswith("kinds/") or not target.endswith(".json"):
        return None
    return target[len("kinds/"):-len(".json")]


def get(name: str) -> Kind | None:
    """The kind ``name``. A kind of the package is imported alone (the module ``rule.json``'s
    dispatch names), so running one rule does not import every kind or look at entry points;
    any other name is looked up in the whole registry."""
    if _all:
        return _all[0].get(name)
    found = _one.get(name)
    if found is not None:
        return found
    module = _module_of(name)
    if module is not None:
        try:
            __import__(f"{BUILTIN_PACKAGE}.{module}")  # importlib (and warnings) are not loaded for it: start-up
            kind = getattr(sys.modules[f"{BUILTIN_PACKAGE}.{module}"], "KIND", None)
        except ImportError:
            kind = None
        if isinstance(kind, Kind) and kind.name == name:
            found = _one[name] = _with_schema(kind, module)
            return found
    return registry().get(name)
