"""The named solvers a ``Procedure`` document may use, each with the constraint ids it reports and
the report messages it writes (the document gives their codes and texts)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .abilities import check_abilities
from .character import PARTS, check_character
from .items import check_items
from .plan import Outcome
from .skills import check_skills
from .spells import check_spells

VERDICTS = frozenset({"legal", "illegal"})


@dataclass(frozen=True)
class Solver:
    """A plan checker: ``check(plan, params) -> Outcome``. A composite solver (``parts``) gets the
    parameters of the rules it combines, by part name, instead of its own."""

    name: str
    check: Callable[[Mapping[str, Any], Mapping[str, Any]], Outcome]
    constraints: frozenset[str]
    messages: frozenset[str]
    values: frozenset[str]  # the names of the values it computes (seen by ``derive`` and checks)
    parts: tuple[str, ...] = ()


SOLVERS: dict[str, Solver] = {s.name: s for s in (
    Solver("ability_split", check_abilities,
           frozenset({"points_short", "conversion_not_permitted", "conversion_over_excess",
                      "total_over", "total_short", "below_minimum", "above_maximum",
                      "excess_too_small", "excess_unplaceable"}),
           VERDICTS | {"points", "base", "extra", "proposal", "no_proposal", "move", "add",
                       "remove", "convert_less"},
           frozenset({"points", "excess", "converted", "placed", "base", "extra",
                      "skill_acquisitions", "money_mj", "proposal"})),
    Solver("skill_acquisitions", check_skills,
           frozenset({"conversion_not_permitted", "conversion_over_excess", "acquisitions_over",
                      "acquisitions_short"}),
           VERDICTS | {"acquisitions"},
           frozenset({"acquisitions", "excess", "converted", "available", "used", "ability_points",
                      "money_mj"})),
    Solver("item_refund", check_items,
           frozenset({"spells_spent_over_money", "creation_over_budget", "total_over_budget"}),
           VERDICTS | {"refund", "spending"},
           frozenset({"refund", "budget", "creation_budget", "spent_creation", "spent_after",
                      "remaining"})),
    Solver("spell_relearning", check_spells,
           frozenset({"tier_gap", "spells_over_budget"}),
           VERDICTS | {"spell_refund", "spell_spending"},
           frozenset({"refund", "spent", "left"})),
    Solver("character_rebuild", check_character, frozenset({"spells_spent_mismatch"}), VERDICTS,
           frozenset(PARTS), tuple(PARTS)),
)}
"""Every solver by name."""

PART_SOLVERS = {"abilities": "ability_split", "skills": "skill_acquisitions",
                "items": "item_refund", "spells": "spell_relearning"}
"""The solver each part of a composite plan must use."""
