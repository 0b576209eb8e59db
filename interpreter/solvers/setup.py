"""What a solver is given besides the plan (its parameters, the names of the plan's fields, the
names its values take in the document), and the conversion of part of an excess into other
budgets that two solvers share."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)

from interpreter.solvers.plan import Outcome, Violation, flag, whole

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Setup(Record, frozen=True):
    """A solver's configuration, all from the rule document.

    ``params`` are the numbers (variants may override them); ``fields`` name the fields of the
    plan the solver reads (a plan's vocabulary is the game's, so the solver takes it from the
    document); ``names`` renames the solver's generic values to the document's names;
    ``evaluate(path, env)`` evaluates an expression written at ``fields.<path>`` (a composite's
    links); ``parts`` holds each part of a composite as ``(solver, setup)``."""

    params: Mapping[str, Any]
    fields: Mapping[str, Any] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)
    evaluate: Callable[[tuple[str | int, ...], Mapping[str, Any]], Any] | None = None
    parts: Mapping[str, tuple[Any, "Setup"]] = field(default_factory=dict)

    def field(self, role: str) -> str:
        """The name of the plan field that plays ``role``."""
        return str(self.fields[role])


class Exchange(Record, frozen=True):
    """Part of an excess converted into other budgets: the amount asked of each conversion, the
    total asked, what the rule grants (nothing without permission, never more than the excess),
    each conversion's yield (granted amount times its rate, by value name), and the violations."""

    amounts: Mapping[str, int]
    converted: int
    granted: int
    outputs: Mapping[str, int]
    violations: tuple[Violation, ...]


def exchange(plan: Mapping[str, Any], setup: Setup, excess: int) -> Exchange:
    """Read the conversions of ``plan`` (``fields.conversions``: ``[{input, value, rate}]``, the
    rate the name of a parameter, 1 when left out) and the permission flag (``fields.permission``),
    and grant them out of ``excess`` in the order they are listed.

    Violations: ``conversion_not_permitted`` at each input asking for an amount without
    permission; ``conversion_over_excess`` at the first input asking for one when the total asked
    exceeds ``excess``."""
    permission = setup.field("permission")
    rules = list(setup.fields.get("conversions") or [])
    amounts = {str(c["input"]): whole(plan.get(str(c["input"]), 0), str(c["input"])) for c in rules}
    permitted = flag(plan.get(permission, False), permission)
    converted = sum(amounts.values())
    found: list[Violation] = []
    if not permitted:
        found += [Violation("conversion_not_permitted", where, {"amount": amount})
                  for where, amount in amounts.items() if amount]
    if converted > excess:
        first = next(where for where, amount in amounts.items() if amount)
        found.append(Violation("conversion_over_excess", first, {
            "converted": converted, "excess": excess, "over": converted - excess}))
    granted = min(converted, excess) if permitted else 0
    left, outputs = granted, {}
    for rule in rules:
        rate = (whole(setup.params.get(str(rule["rate"])), f"params.{rule['rate']}")
                if "rate" in rule else 1)
        taken = min(amounts[str(rule["input"])], left)
        outputs[str(rule["value"])] = taken * rate
        left -= taken
    return Exchange(amounts, converted, granted, outputs, tuple(found))


def solve(solver: Any, plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Run ``solver`` and give its values the document's names (``setup.names``)."""
    outcome = solver.check(plan, setup)
    if not setup.names:
        return outcome
    values = {setup.names.get(k, k): v for k, v in outcome.values.items()}
    return Outcome(values, outcome.violations, outcome.report, outcome.details)
