"""The import rule of the layers (docs/architecture.md): a module imports only from its own layer
and the layers below it, never from a higher one, and no two modules import each other in a
cycle; kinds never import another kind. Checked on the source with ``ast``, so a function-level
import counts as much as one at the top of a module."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from source_support import typing_only

ROOT = Path(__file__).resolve().parents[2]

# Lowest first. A module belongs to the first layer whose prefix it starts with.
LAYERS = [
    ("rules_dsl", "the expression language"),
    ("interpreter.documents", "YAML with positions, JSON Schema validation and its messages, shipped data"),
    ("interpreter.ruleset", "the ruleset model, texts, parameters, variants, wiring, the ruleset cache"),
    ("interpreter.engine", "running a rule: the kind protocol and registry, inputs, names, trace"),
    ("interpreter.solvers", "mechanisms kinds share, as pure functions"),
    ("interpreter.kinds", "the rule kinds"),
    ("interpreter.checks", "validation: semantic checks, loading a checked ruleset, examples"),
    ("interpreter.reports", "diff, handout, charts, exports, the codes page"),
    ("interpreter.campaign", "the campaign store and its commands"),
    ("interpreter.cli", "the command line"),
]
TOP = {"interpreter", "interpreter.__main__"}  # the public API and the entry point see everything


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)




def _imports(path: Path, at_run_time: bool = False) -> set[str]:
    """What ``path`` imports from the project; ``at_run_time`` leaves out imports for type
    annotations only (they make no cycle, but they still count for the direction of layers)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = typing_only(tree) if at_run_time else set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {f for f in found if f.split(".")[0] in ("interpreter", "rules_dsl")}


def _layer(module: str) -> int | None:
    for index, (prefix, _) in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return index
    return None


SOURCES = sorted(p for package in ("interpreter", "rules_dsl") for p in (ROOT / package).rglob("*.py"))
MODULES = {_module_name(p): p for p in SOURCES}


def _known(target: str) -> str | None:
    """The module an import names (``interpreter.solvers.cards.DeckSpec`` -> ``interpreter.solvers.cards``)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    name = _module_name(path)
    if name in TOP:
        return
    mine = _layer(name)
    assert mine is not None, f"{name} belongs to no layer: add it to LAYERS and docs/architecture.md"
    upward = sorted(t for t in _imports(path)
                    if (layer := _layer(t)) is not None and layer > mine)
    assert upward == [], f"{name} ({LAYERS[mine][0]}) imports a higher layer: {upward}"


def test_every_module_has_a_layer():
    assert [m for m in MODULES if m not in TOP and _layer(m) is None] == []


def test_kinds_do_not_import_each_other():
    kinds = {m for m in MODULES if m.startswith("interpreter.kinds.")
             and not m.rpartition(".")[2].startswith("_") and m.count(".") == 2}
    crossing = {m: sorted(k for k in (_known(t) for t in _imports(MODULES[m])) if k in kinds and k != m)
                for m in kinds}
    assert {m: ks for m, ks in crossing.items() if ks} == {}


def test_no_import_cycles():
    graph = {m: {k for k in (_known(t) for t in _imports(p, at_run_time=True)) if k and k != m}
             for m, p in MODULES.items()}
    # A package's __init__ importing its own submodules is how a package exports; not a cycle.
    for m in graph:
        graph[m] = {k for k in graph[m] if not k.startswith(m + ".")}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert cycles == []
