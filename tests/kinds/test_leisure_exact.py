"""The exact distribution of a whole leisure (R16 dedup included) against two independent paths:
a brute-force enumeration of every combination of rolls, and a seeded Monte-Carlo run of 200,000
leisures (tolerance: 4.5 binomial standard errors per outcome, plus 1e-4)."""
from __future__ import annotations

import copy
import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from interpreter.engine import runner as engine
from interpreter.solvers import repeat_policy
from interpreter.kinds.roll_per_member import table_rows
from interpreter.solvers.repeat_policy import Policy, Shift, session_distribution, resolve_session
from interpreter.solvers.roll_rows import roll_distribution
from interpreter.checks.loading import load_ruleset
from rules_dsl.distribution import Distribution
from rules_dsl.errors import MprError
from interpreter.solvers.limits import MAX_SESSION_MEMBERS, MAX_SESSION_TABLE_SPAN, MAX_MEMBERS

MC_RUNS = 200_000
SIGMAS = 4.5

def leisure_table(ruleset, table_rule):
    """The rows of a bundled leisure table as the bundled policy sees them (rows tagged shared are once-only)."""
    rule = ruleset.rules["cohabitation.leisure"]
    return table_rows(table_rule, rule, ("repeat",), {"params": rule.params})



@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset()


def _setup(ruleset, table: str):
    rule = ruleset.rules[f"cohabitation.leisure.{table}"]
    return leisure_table(ruleset, rule), roll_distribution(rule)


def _brute_force(table, rolls: Distribution, residents: int, policy: Policy, shifts=None) -> dict:
    order = {e: i for i, e in enumerate(table.once_ids())}
    out: dict[tuple, Fraction] = {}
    faces = rolls.items()
    for combo in itertools.product(faces, repeat=residents):
        p = math.prod((pr for _, pr in combo), start=Fraction(1))
        _, obtained = resolve_session(table, [(str(i), r) for i, (r, _) in enumerate(combo)], policy,
                                      shifts)
        key = tuple(sorted(obtained, key=order.__getitem__))
        out[key] = out.get(key, Fraction(0)) + p
    return out


@pytest.mark.parametrize("table, window, tie, residents", [
    ("wilderness", 1, "lower", 3), ("wilderness", 0, "lower", 3), ("city", 2, "higher", 3),
    ("city", 0, "lower", 2), ("wilderness", 3, "lower", 2),
])
def test_exact_equals_brute_force(ruleset, table: str, window: int, tie: str, residents: int) -> None:
    leisure, rolls = _setup(ruleset, table)
    policy = Policy(window, tie)
    exact = session_distribution(leisure, rolls, residents, policy)
    assert dict(exact.taken_sets.items()) == _brute_force(leisure, rolls, residents, policy)
    assert exact.taken_sets.total() == 1
    for per in exact.per_member + exact.per_member_how:
        assert per.total() == 1


def test_one_resident_is_the_table_itself(ruleset) -> None:
    leisure, rolls = _setup(ruleset, "wilderness")
    exact = session_distribution(leisure, rolls, 1, Policy(2))
    assert exact.per_member[0]["magic_disaster"] == Fraction(1 + 3 + 5, 36)  # 2, 4, 6 on 2d6
    assert exact.per_member_how[0]["as_rolled"] == 1


def test_double_two_in_the_city_with_no_safety_is_unresolved(ruleset) -> None:
    leisure, rolls = _setup(ruleset, "city")
    exact = session_distribution(leisure, rolls, 2, Policy(0))
    assert exact.per_member_how[1]["unresolved"] == Fraction(1, 36 * 36)


def test_monte_carlo_agrees_with_exact(ruleset) -> None:
    leisure, rolls = _setup(ruleset, "wilderness")
    policy = Policy(1, "lower")
    residents = 4
    exact = session_distribution(leisure, rolls, residents, policy)
    order = {e: i for i, e in enumerate(leisure.once_ids())}
    rng = random.Random(20261129)
    counts: Counter = Counter()
    names = [f"pc{i}" for i in range(residents)]
    for _ in range(MC_RUNS):
        rolled = [(pc, rng.randint(1, 6) + rng.randint(1, 6)) for pc in names]
        _, obtained = resolve_session(leisure, rolled, policy)
        counts[tuple(sorted(obtained, key=order.__getitem__))] += 1
    assert set(counts) <= set(exact.taken_sets)
    for outcome, p in exact.taken_sets.items():
        estimate = counts[outcome] / MC_RUNS
        error = math.sqrt(float(p) * (1 - float(p)) / MC_RUNS)
        assert abs(estimate - float(p)) <= SIGMAS * error + 1e-4, outcome


def test_distribution_through_the_engine(ruleset) -> None:
    tables = engine.distribution(ruleset, "cohabitation.leisure",
                                 {"table": "city", "safety": 1, "residents": 3})
    sets, chances, *per_pc = tables
    assert sum((r.p for r in sets.rows), Fraction(0)) == 1
    assert len(per_pc) == 3
    assert [r.value for r in chances.rows] == ["home_disturbed", "residence_destroyed", "burglary_heavy",
                                               "burglary_light", "crime_rising", "eviction",
                                               "crime_falling"]
    # 2d6 never rolls 13 or 15, and only a repeated shared event is moved: 12 and 14 are not
    # shared, so 13 and 15 never come up in the bundled city table
    assert chances.rows[5].p == 0 and chances.rows[6].p == 0


# --- limits, at and past their bounds ------------------------------------------------------------

def test_residents_limit(ruleset) -> None:
    leisure, rolls = _setup(ruleset, "city")
    at_bound = session_distribution(leisure, rolls, MAX_SESSION_MEMBERS, Policy(1))
    assert at_bound.taken_sets.total() == 1
    with pytest.raises(MprError) as raised:
        session_distribution(leisure, rolls, MAX_SESSION_MEMBERS + 1, Policy(1))
    assert raised.value.code == repeat_policy.TOO_MANY_STATES


def test_states_limit(ruleset, monkeypatch) -> None:
    leisure, rolls = _setup(ruleset, "wilderness")
    reachable = len(session_distribution(leisure, rolls, 2, Policy(1)).taken_sets)
    monkeypatch.setattr(repeat_policy, "MAX_SESSION_STATES", reachable)
    assert len(session_distribution(leisure, rolls, 2, Policy(1)).taken_sets) == reachable
    monkeypatch.setattr(repeat_policy, "MAX_SESSION_STATES", reachable - 1)
    with pytest.raises(MprError) as raised:
        session_distribution(leisure, rolls, 2, Policy(1))
    assert raised.value.code == repeat_policy.TOO_MANY_STATES


def test_table_span_limit(ruleset) -> None:
    rule = copy.deepcopy(ruleset.rules["cohabitation.leisure.city"])
    rule.doc["range"] = [1, MAX_SESSION_TABLE_SPAN]
    assert leisure_table(ruleset, rule).hi == MAX_SESSION_TABLE_SPAN
    rule.doc["range"] = [1, MAX_SESSION_TABLE_SPAN + 1]
    with pytest.raises(MprError) as raised:
        leisure_table(ruleset, rule)
    assert raised.value.code == repeat_policy.TOO_MANY_STATES


def test_resident_count_limit(ruleset) -> None:
    value = engine.run(ruleset, "cohabitation.rent_split",
                       {"cost": 1000, "residents": [f"p{i}" for i in range(MAX_MEMBERS)]}).value
    assert sum(value.values()) == 1000
    with pytest.raises(MprError) as raised:
        engine.run(ruleset, "cohabitation.rent_split",
                   {"cost": 1000, "residents": [f"p{i}" for i in range(MAX_MEMBERS + 1)]})
    assert raised.value.code == "MPR526"


# --- every fallback of the repeat policy: exact == brute force, and Monte-Carlo agrees ------------

@pytest.mark.parametrize("table, window, fallback", [
    ("wilderness", None, "individual"), ("wilderness", 1, "nearest_higher"), ("city", 0, "as_rolled"),
    ("city", None, "unresolved"), ("wilderness", None, "off"), ("city", 1, "nearest_higher"),
])
def test_every_fallback_is_exact(ruleset, table: str, window, fallback: str) -> None:
    leisure, rolls = _setup(ruleset, table)
    policy = Policy(window, "lower", fallback)
    exact = session_distribution(leisure, rolls, 3, policy)
    assert dict(exact.taken_sets.items()) == _brute_force(leisure, rolls, 3, policy)
    for per in exact.per_member + exact.per_member_how:
        assert per.total() == 1


def test_monte_carlo_agrees_with_an_individual_fallback(ruleset) -> None:
    leisure, rolls = _setup(ruleset, "wilderness")
    policy = Policy(None, "lower", "individual")
    exact = session_distribution(leisure, rolls, 3, policy)
    rng = random.Random(7)
    runs = 50_000
    counts: Counter = Counter()
    for _ in range(runs):
        rolled = [(f"pc{i}", rng.randint(1, 6) + rng.randint(1, 6)) for i in range(3)]
        results, _ = resolve_session(leisure, rolled, policy)
        counts[results[-1].how] += 1
    for how, p in exact.per_member_how[2].items():
        error = math.sqrt(float(p) * (1 - float(p)) / runs)
        assert abs(counts[how] / runs - float(p)) <= SIGMAS * error + 1e-4, how


# --- the ordinary 治安 change each member chooses before the dedup --------------------------------

@pytest.mark.parametrize("table, window, shifts", [
    ("city", 3, [Shift(3, change=3)] * 3),
    ("city", 2, [Shift(2, aim=("eviction",))] * 3),
    ("city", 3, [Shift(3, aim=("crime_falling", "eviction"))] * 2 + [None]),
    ("wilderness", 1, [Shift(1, change=-1), Shift(1, aim=("exile_settlement",)), None]),
    ("wilderness", 2, [Shift(2, aim=("stampede_caught", "exile_settlement"), tie="higher")] * 3),
    ("wilderness", 0, [Shift(1, change=1)] * 3),
], ids=["city +3", "city aim eviction", "city aim 15 else 13, third none", "wilderness mixed",
        "wilderness aim both, higher first", "change beyond the dedup window"])
def test_shift_is_exact(ruleset, table: str, window: int, shifts) -> None:
    leisure, rolls = _setup(ruleset, table)
    policy = Policy(window, "lower")
    exact = session_distribution(leisure, rolls, len(shifts), policy, shifts)
    assert dict(exact.taken_sets.items()) == _brute_force(leisure, rolls, len(shifts), policy, shifts)
    for per in exact.per_member + exact.per_member_how:
        assert per.total() == 1


SHARES = [  # (input, {event: exact chance for one resident}), from 2d6: P(n) = (6 - |n - 7|) / 36
    ({"table": "city", "safety": 3, "shift": 3}, {"eviction": Fraction(3, 36), "crime_falling": Fraction(1, 36)}),
    ({"table": "city", "safety": 2, "shift": {"aim": "eviction"}}, {"eviction": Fraction(3, 36),
                                                                   "crime_falling": 0}),
    ({"table": "city", "safety": 3, "shift": {"aim": ["crime_falling", "eviction"]}},
     {"crime_falling": Fraction(1, 36), "eviction": Fraction(2 + 3, 36), "crime_rising": 0}),
    ({"table": "wilderness", "safety": 1, "shift": -1}, {"stampede_caught": Fraction(1, 36)}),
    ({"table": "wilderness", "safety": 1, "shift": {"aim": ["stampede_caught", "exile_settlement"]}},
     {"stampede_caught": Fraction(1, 36), "exile_settlement": Fraction(1, 36),
      "exile_camp": Fraction(2, 36)}),  # 11 stays (no aim reachable), 12 goes to 13
    ({"table": "city", "safety": 2}, {"eviction": 0, "crime_falling": 0}),  # no change stated
]


@pytest.mark.parametrize("inputs, shares", SHARES)
def test_prob_gives_the_rows_outside_the_dice_their_share(ruleset, inputs, shares) -> None:
    sets, chances, *_ = engine.distribution(ruleset, "cohabitation.leisure", {**inputs, "residents": 1})
    got = {row.value: row.p for row in chances.rows}
    assert {event: got[event] for event in shares} == shares
    assert sum((r.p for r in sets.rows), Fraction(0)) == 1
