"""The solvers of the Procedure kind are generic: no word of the documents that use them (rule
ids, the plan's field names, labels, the documents' own names for values and constraints) is
written in their Python, so the game lives in the YAML only."""
from __future__ import annotations

import re
from pathlib import Path

from rebuild_support import DOCS

ROOT = Path(__file__).resolve().parents[2]
# The other mechanisms of the solvers layer (dice pools, cards, table rows, repeats) serve other kinds.
NOT_PROCEDURE = {"dice_pool.py", "pool_notation.py", "cards.py", "circulation.py", "roll_rows.py", "repeat_policy.py"}
SOURCES = sorted([*(p for p in (ROOT / "interpreter" / "solvers").glob("*.py") if p.name not in NOT_PROCEDURE),
                  *(ROOT / "interpreter" / "kinds").glob("procedure*.py"),
                  *(ROOT / "interpreter" / "kinds").glob("_procedure*.py")])


def _strings(node: object, keys: bool = True) -> set[str]:
    if isinstance(node, dict):
        inner = set().union(*(_strings(v, keys) for v in node.values()), set())
        return inner | (set(map(str, node)) if keys else set())
    if isinstance(node, list):
        return set().union(*(_strings(v, keys) for v in node), set())
    return {node} if isinstance(node, str) else set()


def _vocabulary() -> set[str]:
    """The documents' words: ids, field names and everything under ``fields``, labels,
    ``value_names``, the inputs' properties, parameter names, and the part names."""
    words: set[str] = set()
    for doc in DOCS.values():
        words |= {doc["id"], *doc["id"].split(".")}
        fields = doc.get("fields") or {}
        words |= _strings({k: v for k, v in fields.items() if k != "steps"}, keys=False)
        for step in fields.get("steps") or []:  # the fields a link writes, and the part
            words |= {step["part"], *(w for k in (*(step.get("set") or {}),
                                                  *(step.get("fill") or {}))
                                      for w in k.split("."))}
        words |= set(doc.get("labels") or {}) | set((doc.get("value_names") or {}).values())
        words |= set(((doc.get("inputs") or {}).get("properties") or {}))
        words |= set(doc.get("parts") or {})
    # plain words the solvers define themselves (``converted`` is also a value of bounded_split,
    # ``relearn`` names the ordered_relearn solver, ``items`` is Python's ``dict.items``)
    generic = {"before", "after", "name", "cost", "money", "converted", "relearn", "items"}
    return {w for w in words if re.fullmatch(r"[a-z_]+", w)} - generic


def test_the_vocabulary_is_not_trivial() -> None:
    assert {"body", "tier", "school", "rank", "to_skills", "creation_budget"} <= _vocabulary()


def test_no_solver_source_names_a_word_of_the_documents() -> None:
    vocabulary = _vocabulary()
    found = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for word in re.findall(r"[A-Za-z_]+", text):
            if word.lower() in vocabulary:
                found.append((path.name, word))
    assert found == []
