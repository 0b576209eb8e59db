"""A phased budget: a refund of credits minus debits (plus extra amounts from elsewhere) spent on
entries in phases, the first phase capped by one of the credits (unless a flag lifts the cap);
the money need not all be spent.

The plan gives the amounts as a mapping (``fields.money``) whose credits, debits and extras are
named by the document (``fields.credits``, ``fields.debits``, ``fields.extras``; extras may be
left out) and the entries as a list of ``{name, price, phase}`` (``fields.entries``), the phases
being the parameter ``phases`` in order."""
from __future__ import annotations

from collections.abc import Mapping

from interpreter.solvers.plan import (Line, Outcome, Violation, choice, field_of, flag, join, name, record, sequence,
                   whole)
from interpreter.solvers.setup import Setup

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def _entries(value: Any, phases: list[str], path: str) -> list[dict[str, Any]]:
    """A list of ``{name, price, phase}``; the same name may appear more than once (no
    uniqueness check: one may buy two of a thing)."""
    records = []
    for i, raw in enumerate(sequence(value, path)):
        here = join(path, i)
        entry = record(raw, here, ("name", "price", "phase"))
        records.append({"name": name(field_of(entry, "name", here), join(here, "name")),
                        "price": whole(field_of(entry, "price", here), join(here, "price")),
                        "phase": choice(field_of(entry, "phase", here), phases,
                                        join(here, "phase"), "value")})
    return records


def _names(setup: Setup, role: str) -> list[str]:
    return [str(n) for n in setup.fields.get(role) or []]


def check(plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Check a plan ``{<money>: {credits..., debits..., extras...}, <entries>, <single phase>}``
    against the parameter ``phases``."""
    phases = [str(p) for p in setup.params["phases"]]  # typed by the kind schema
    credits, debits, extras = (_names(setup, r) for r in ("credits", "debits", "extras"))
    box, entries_field = setup.field("money"), setup.field("entries")
    single_field = setup.field("single_phase")
    money = record(plan.get(box), box, credits + debits + extras)
    amounts = {k: whole(field_of(money, k, box), join(box, k)) for k in credits + debits}
    amounts |= {k: whole(money.get(k, 0), join(box, k)) for k in extras}
    entries = _entries(plan.get(entries_field, []), phases, entries_field)
    single = flag(plan.get(single_field, False), single_field)

    found: list[Violation] = []
    credit = sum(amounts[k] for k in credits)
    debit = sum(amounts[k] for k in debits)
    refund = credit - debit
    if refund < 0:
        found.append(Violation("debit_over_credit", join(box, debits[0]), {
            "debits": debit, "credits": credit, "over": -refund}))
    extra = sum(amounts[k] for k in extras)
    budget = max(0, refund) + extra
    first_budget = budget if single else min(amounts[setup.field("first_credit")], max(0, refund))
    spent_first = sum(e["price"] for e in entries if e["phase"] == phases[0])
    spent = sum(e["price"] for e in entries)
    if not single and spent_first > first_budget:
        found.append(Violation("first_phase_over_budget", entries_field, {
            "spent": spent_first, "budget": first_budget, "over": spent_first - first_budget}))
    if spent > budget:
        found.append(Violation("total_over_budget", entries_field, {
            "spent": spent, "budget": budget, "over": spent - budget}))
    values = {"refund": refund, "budget": budget, "first_budget": first_budget,
              "spent_first": spent_first, "spent_rest": spent - spent_first,
              "remaining": budget - spent}
    report = (Line("refund", {**amounts, "refund": refund, "extra": extra, "budget": budget}),
              Line("spending", {k: values[k] for k in ("first_budget", "spent_first",
                                                       "spent_rest", "remaining")}))
    return Outcome(values, tuple(found), report)
