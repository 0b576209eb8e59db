"""The named solvers a ``Procedure`` document may use, each with the constraint ids it reports, the
report messages it writes and the values it computes (the document gives the codes, the texts,
the plan's field names and, where it wants, other names for the values)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from rules_dsl.frozen import Record  # a dataclass without importing dataclasses (start-up)

from interpreter.solvers import bounded_split, budget, composite, ordered_relearn, weighted_count
from interpreter.solvers.plan import Outcome
from interpreter.solvers.setup import Setup

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

VERDICTS = frozenset({"legal", "illegal"})
CONVERSIONS = frozenset({"conversion_not_permitted", "conversion_over_excess"})


class Solver(Record, frozen=True):
    """A plan checker: ``check(plan, setup) -> Outcome``. A composite solver gets the solvers and
    setups of the rules it combines in ``setup.parts``."""

    name: str
    check: Callable[[Mapping[str, Any], Setup], Outcome]
    constraints: frozenset[str]
    messages: frozenset[str]
    values: frozenset[str]  # its values' generic names (seen by ``derive`` and checks)
    composite: bool = False

    def value_names(self, fields: Mapping[str, Any], names: Mapping[str, str],
                    parts: Mapping[str, Any] | None = None) -> set[str]:
        """The names of its values in a document: the generic ones renamed by ``names``, the
        conversions' values, and a composite's parts."""
        found = {names.get(v, v) for v in self.values}
        found |= {str(c.get("value")) for c in fields.get("conversions") or []
                  if isinstance(c, Mapping)}
        return found | set(parts or ())


SOLVERS: dict[str, Solver] = {s.name: s for s in (
    Solver("bounded_split", bounded_split.check,
           CONVERSIONS | {"points_short", "total_over", "total_short", "below_minimum",
                          "above_maximum", "excess_too_small", "excess_unplaceable"},
           VERDICTS | {"points", "base", "extra", "proposal", "no_proposal", "move", "add",
                       "remove", "convert_less"},
           frozenset({"points", "excess", "converted", "placed", "base", "extra", "proposal"})),
    Solver("weighted_count", weighted_count.check, CONVERSIONS | {"count_over", "count_short"},
           VERDICTS | {"count"},
           frozenset({"count", "excess", "converted", "available", "used"})),
    Solver("budget", budget.check,
           frozenset({"debit_over_credit", "first_phase_over_budget", "total_over_budget"}),
           VERDICTS | {"refund", "spending"},
           frozenset({"refund", "budget", "first_budget", "spent_first", "spent_rest",
                      "remaining"})),
    Solver("ordered_relearn", ordered_relearn.check, frozenset({"level_gap", "over_budget"}),
           VERDICTS | {"refund", "spending"}, frozenset({"refund", "spent", "left"})),
    Solver("composite", composite.check, frozenset(), VERDICTS, frozenset(), composite=True),
)}
"""Every solver by name."""
