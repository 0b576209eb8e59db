"""Rows of a roll table as data: each row lists a number or a ``[lo, hi]`` range, a roll is
looked up in them (else the document's ``default``), and the roll expression's exact
distribution and range. Shared by the kinds that roll on tables."""
from __future__ import annotations

from typing import Any

from rules_dsl.distribution import Distribution

from interpreter.engine.names import compiled


def span(roll: Any) -> tuple[int, int]:
    if isinstance(roll, list):
        return int(roll[0]), int(roll[1])
    return int(roll), int(roll)


def row_name(rule: Any, index: int) -> str:
    row = rule.doc["rows"][index]
    return str(row.get("id") or f"#{index + 1}")


def roll_distribution(rule: Any, params: dict[str, Any] | None = None) -> Distribution:
    """The exact distribution of the table's roll expression."""
    params = rule.params if params is None else params
    return compiled(rule, ("params", "roll")).distribution({"params": params})


def table_range(rule: Any) -> tuple[int, int]:
    """``range`` if declared, else the lowest and highest number the roll can give."""
    declared = rule.doc.get("range")
    if declared:
        return int(declared[0]), int(declared[1])
    support = [int(v) for v in roll_distribution(rule).support()]
    return min(support), max(support)


def row_for(rule: Any, roll: int) -> dict[str, Any] | None:
    """The row listing ``roll``, else the ``default``, else None."""
    for row in rule.doc.get("rows") or []:
        lo, hi = span(row["roll"])
        if lo <= roll <= hi:
            return row
    return rule.doc.get("default")
