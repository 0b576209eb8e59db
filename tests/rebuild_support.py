"""The bundled rebuild documents as the generic solvers see them, without the engine: a ``Setup``
per rule (parameters, field names, value names, a composite's parts and links) and ``check(rule,
plan)`` running the rule's solver, so the tests exercise the solvers with the YAML's numbers and
vocabulary."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from interpreter.documents.resources import bundled_ruleset
from interpreter.solvers.plan import Outcome
from interpreter.solvers.registry import SOLVERS
from interpreter.solvers.setup import solve
from interpreter.solvers.setup import Setup
from rules_dsl import compile_expression

DOCS = {d["id"]: d for d in yaml.safe_load_all(
    (bundled_ruleset() / "rebuild.yaml").read_text(encoding="utf-8"))}
PARTS = ("abilities", "skills", "items", "spells")
PARAMS = {part: DOCS[f"rebuild.{part}"]["params"] for part in PARTS}


def _at(node: Any, path: tuple) -> Any:
    for key in path:
        node = node[key]
    return node


def setup(rule_id: str, params: Mapping[str, Any] | None = None,
          parts: Mapping[str, Mapping[str, Any]] | None = None) -> Setup:
    """The setup of ``rule_id`` with ``params`` over its own (a composite: ``parts`` holds the
    parameter overrides of each part, by part name)."""
    doc = DOCS[rule_id]
    fields = doc.get("fields") or {}

    def evaluate(path: tuple, env: Mapping[str, Any]) -> Any:
        return compile_expression(str(_at(fields, path))).evaluate(dict(env))

    return Setup({**(doc.get("params") or {}), **(params or {})}, fields,
                 doc.get("value_names") or {}, evaluate,
                 {p: (SOLVERS[DOCS[r]["solver"]], setup(r, (parts or {}).get(p)))
                  for p, r in (doc.get("parts") or {}).items()})


def check(rule_id: str, plan: Mapping[str, Any], params: Mapping[str, Any] | None = None,
          parts: Mapping[str, Mapping[str, Any]] | None = None) -> Outcome:
    """Run the solver of ``rule_id`` on ``plan``."""
    return solve(SOLVERS[DOCS[rule_id]["solver"]], plan, setup(rule_id, params, parts))


def part(name: str):
    """``check`` for one part of the rebuild, as ``(plan, params) -> Outcome``."""
    return lambda plan, params=None: check(f"rebuild.{name}", plan, params)


check_abilities, check_skills, check_items, check_spells = (part(p) for p in PARTS)


def check_character(plan: Mapping[str, Any],
                    parts: Mapping[str, Mapping[str, Any]] | None = None) -> Outcome:
    return check("rebuild.character", plan, None, parts)
