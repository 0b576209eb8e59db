"""A weighted recount: entries each have a level worth a weight; the entries given up are counted,
part of the count above a base may be converted into other budgets, and the entries taken instead
must use exactly the count that is left (plus any gained from elsewhere).

The plan gives ``before`` and ``after`` as lists of records ``{<name>, <level>}`` (the key names
from ``fields.name`` and ``fields.level``); the weights per level and the base are parameters."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from interpreter.solvers.plan import (Line, Outcome, Violation, choice, field_of, join, name, record, sequence,
                   unique, whole)
from interpreter.solvers.setup import Setup, exchange

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def _entries(value: Any, weights: Mapping[str, int], keys: tuple[str, str], path: str
             ) -> list[dict[str, Any]]:
    """A list of ``{name, level}`` records (by the document's key names): names unique, levels
    known."""
    name_key, level_key = keys
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        entry = record(raw, here, keys)
        records.append({"name": name(field_of(entry, name_key, here), join(here, name_key)),
                        "level": choice(field_of(entry, level_key, here), weights,
                                        join(here, level_key), "value")})
    unique(records, path, name_key)
    return records


def counted(entries: Sequence[Mapping[str, Any]], table: Mapping[str, int]) -> int:
    return sum(table[e["level"]] for e in entries)


def check(plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Check a plan ``{before, after, <gained>, <permission>, <conversions>...}`` against the
    rule's parameters ``weights`` and ``base``."""
    table = {str(k): v for k, v in setup.params["weights"].items()}  # typed by the kind schema
    base = setup.params["base"]
    keys = (setup.field("name"), setup.field("level"))
    before = _entries(plan.get("before", []), table, keys, "before")
    after = _entries(plan.get("after", []), table, keys, "after")
    gained_field = setup.field("gained")
    gained = whole(plan.get(gained_field, 0), gained_field)

    count = counted(before, table)
    excess = max(0, count - base)
    conversion = exchange(plan, setup, excess)
    found = list(conversion.violations)
    available = count - conversion.granted + gained
    used = counted(after, table)
    if used > available:
        found.append(Violation("count_over", "after", {
            "used": used, "available": available, "over": used - available}))
    elif used < available:
        found.append(Violation("count_short", "after", {
            "used": used, "available": available, "short": available - used}))
    report = (Line("count", {"count": count, "base": base, "excess": excess,
                             "converted": conversion.converted, "gained": gained,
                             "available": available, "used": used, "left": available - used}),)
    values = {"count": count, "excess": excess, "converted": conversion.converted,
              "available": available, "used": used, **conversion.outputs}
    return Outcome(values, tuple(found), report)
