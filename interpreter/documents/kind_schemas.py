"""The schemas of kinds that live outside the package (found through the entry-point group
``mprules.kinds``): ``schemas/rule.json`` dispatches only to the kinds of ``schemas/kinds/``, so a
rule document whose kind is not among them is validated against the schema file its kind names.

The kinds are registered by the engine's kind registry, a higher layer: it hands this module a
``source`` that lists them, asked only when a document names a kind ``rule.json`` does not know."""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

_plugged: dict[str, Path] = {}
_source: list[Callable[[], Mapping[str, Path]]] = []


def set_source(source: Callable[[], Mapping[str, Path]]) -> None:
    """Who lists the kinds found outside the package (and their schema files), when asked."""
    _source[:] = [source]


def add(kind: str, schema: Path) -> None:
    _plugged[kind] = schema


def plugged() -> Mapping[str, Path]:
    return dict(_plugged)


def resource_name(kind: str) -> str:
    """The name under ``schemas/`` by which a plugged-in kind's schema is known: beside the kinds
    of the package (their file names are in snake case, kind names are not), so its relative
    ``$ref`` to ``../common.json`` reaches the shared definitions."""
    return f"kinds/{kind}.json"


def schema_for(kind: object) -> str | None:
    """The resource name of the schema of a kind found outside the package, or None."""
    if not isinstance(kind, str):
        return None
    if kind not in _plugged and _source:
        _source[0]()
    return resource_name(kind) if kind in _plugged else None


def read(name: str) -> dict[str, Any] | None:
    """The contents of the plugged-in schema known as ``name``, or None when no kind is."""
    for kind, path in _plugged.items():
        if resource_name(kind) == name:
            import json  # start-up: only for the schema of a kind plugged in from outside

            with open(path, encoding="utf-8") as handle:
                contents: dict[str, Any] = json.load(handle)
            return contents
    return None


def key() -> tuple[tuple[str, str], ...]:
    """What the validators built so far depend on: the kinds plugged in, and their files."""
    return tuple(sorted((kind, str(path)) for kind, path in _plugged.items()))
