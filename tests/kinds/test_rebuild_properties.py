"""Property tests of the rebuild checks against brute force and against plans built legal:
every plan called legal satisfies every constraint of R17-R20, and every legal plan is found legal."""
from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.solvers.bounded_split import Bounds, nearest_legal, split
from rebuild_support import (DOCS, check_abilities, check_character, check_items,
                                   check_skills, check_spells, setup)

AP = DOCS["rebuild.abilities"]["params"]
SP = DOCS["rebuild.skills"]["params"]
IP = DOCS["rebuild.items"]["params"]
PP = DOCS["rebuild.spells"]["params"]
NAMES = tuple(AP["minimums"])
SETTINGS = settings(max_examples=150, deadline=None)


def brute_split(after: dict, placed: int) -> list[tuple[dict, dict]]:
    """Every split of ``after`` into a base and an extra, by enumerating the extras."""
    found = []
    for extra in product(range(AP["extra_max"] + 1), repeat=len(NAMES)):
        base = {a: after[a] - e for a, e in zip(NAMES, extra)}
        if (sum(extra) == placed and sum(base.values()) == AP["base_total"]
                and all(AP["minimums"][a] <= base[a] <= AP["maximum"] for a in NAMES)):
            found.append((base, dict(zip(NAMES, extra))))
    return found


def oracle(plan: dict) -> bool:
    """R17 read literally: permission, conversion from the excess only, and some split."""
    points = sum(plan["before"].values())
    excess = max(0, points - AP["base_total"])
    converted = plan["to_skills"] + plan["to_money"]
    if points < AP["base_total"] or converted > excess:
        return False
    if converted and not plan["gm_permits_conversion"]:
        return False
    return bool(brute_split(plan["after"], excess - converted))


abilities = st.fixed_dictionaries({a: st.integers(0, 22) for a in NAMES})
plans = st.fixed_dictionaries({
    "before": st.fixed_dictionaries({a: st.integers(5, 16) for a in NAMES}),
    "after": abilities,
    "to_skills": st.integers(0, 3), "to_money": st.integers(0, 3),
    "gm_permits_conversion": st.booleans()})


@SETTINGS
@given(plans)
def test_abilities_agree_with_brute_force(plan: dict) -> None:
    outcome = check_abilities(plan)
    assert outcome.legal == oracle(plan)
    if outcome.legal:
        base, extra = outcome.values["base"], outcome.values["extra"]
        assert (base, extra) in brute_split(plan["after"], outcome.values["placed"])
        assert outcome.values["money_mj"] == plan["to_money"] * AP["mj_per_point"]
    else:
        assert outcome.violations and outcome.values["base"] is None


@st.composite
def legal_plans(draw: st.DrawFn) -> dict:
    """A plan legal by construction: a base of 40 within the bounds, extras within +5, conversions
    within the excess, and any ``before`` with the right total."""
    base = {a: AP["minimums"][a] for a in NAMES}
    left = AP["base_total"] - sum(base.values())
    for a in draw(st.permutations(NAMES)):
        step = draw(st.integers(0, min(left, AP["maximum"] - base[a])))
        base[a] += step
        left -= step
    for a in NAMES:  # place what the random pass left (the maximums hold more than 40)
        step = min(left, AP["maximum"] - base[a])
        base[a] += step
        left -= step
    extra = {a: draw(st.integers(0, AP["extra_max"])) for a in NAMES}
    to_skills, to_money = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    total = AP["base_total"] + sum(extra.values()) + to_skills + to_money
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=3, max_size=3)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, total])]
    return {"before": dict(zip(NAMES, parts)), "after": {a: base[a] + extra[a] for a in NAMES},
            "to_skills": to_skills, "to_money": to_money,
            "gm_permits_conversion": bool(to_skills or to_money) or draw(st.booleans())}


@SETTINGS
@given(legal_plans())
def test_every_legal_ability_plan_is_found_legal(plan: dict) -> None:
    outcome = check_abilities(plan)
    assert outcome.legal, outcome.violations


@SETTINGS
@given(abilities, st.integers(0, 22))
def test_split_agrees_with_brute_force(after: dict, placed: int) -> None:
    found = split(after, placed, Bounds.from_setup(setup("rebuild.abilities")))
    assert (found is not None) == bool(brute_split(after, placed))


@settings(max_examples=25, deadline=None)
@given(abilities, st.integers(0, 22))
def test_the_proposal_is_legal_and_nearest(after: dict, placed: int) -> None:
    rules = Bounds.from_setup(setup("rebuild.abilities"))
    proposal = nearest_legal(after, placed, rules)
    total = AP["base_total"] + placed
    candidates = [dict(zip(NAMES, (*p, total - sum(p)))) for p in product(range(21), repeat=3)]
    legal = [c for c in candidates if split(c, placed, rules) is not None]
    if not legal:
        assert proposal is None
        return
    assert proposal is not None and brute_split(proposal, placed)
    distance = min(sum(abs(c[a] - after[a]) for a in NAMES) for c in legal)
    assert sum(abs(proposal[a] - after[a]) for a in NAMES) == distance


ranks = st.sampled_from(sorted(SP["weights"]))


def skill_list(prefix: str) -> st.SearchStrategy:
    return st.lists(ranks, max_size=6).map(
        lambda rs: [{"name": f"{prefix}{i}", "rank": r} for i, r in enumerate(rs)])


@SETTINGS
@given(skill_list("b"), skill_list("a"), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3),
       st.booleans())
def test_skills_agree_with_the_rule(before: list, after: list, to_abilities: int, to_money: int,
                                    from_abilities: int, permitted: bool) -> None:
    plan = {"before": before, "after": after, "to_abilities": to_abilities, "to_money": to_money,
            "from_abilities": from_abilities, "gm_permits_conversion": permitted}
    count = sum(SP["weights"][s["rank"]] for s in before)
    converted = to_abilities + to_money
    legal = ((permitted or not converted) and converted <= max(0, count - SP["base"])
             and sum(SP["weights"][s["rank"]] for s in after) == count - converted + from_abilities)
    assert check_skills(plan).legal == legal


# Worked by hand from the rule (money A obtained at creation, B from scenarios, C spent on spells,
# taken from B first; creation purchases are paid from A alone unless the GM allows one phase;
# what is left of A joins B for the later purchases): (A, B, C, purchases, one phase, money left or
# None when a payment cannot be made).
ITEMS_BY_HAND = [
    (100, 50, 0, [(80, "creation"), (60, "after")], False, 10),  # 100-80=20; 50+20-60=10
    (100, 50, 0, [(120, "creation")], False, None),  # 120 > A=100: B cannot pay at creation
    (100, 50, 0, [(120, "creation")], True, 30),  # one phase: 150-120=30
    (100, 50, 60, [(90, "creation")], False, 0),  # spells: B 50->0, A 100->90; 90-90=0
    (100, 50, 60, [(91, "creation")], False, None),  # only 90 of A is left after the spells
    (10, 0, 20, [], False, None),  # the spells cost more than all the money
    (0, 50, 0, [(70, "after")], False, None),  # 70 > 50
    (30, 0, 0, [(30, "after")], False, 0),  # A left unspent at creation pays a later purchase
]


@pytest.mark.parametrize("a, b, c, buys, single, left", ITEMS_BY_HAND)
def test_items_by_hand(a: int, b: int, c: int, buys: list, single: bool, left: int | None) -> None:
    plan = {"money": {"initial": a, "scenarios": b, "spells_spent": c},
            "purchases": [{"name": f"x{i}", "price": p, "phase": ph} for i, (p, ph) in enumerate(buys)],
            "gm_allows_single_phase": single}
    outcome = check_items(plan)
    assert outcome.legal == (left is not None)
    if left is not None:
        assert outcome.values["remaining"] == left
    assert pay_in_order(a, b, c, buys, single) == left  # the step-by-step model below agrees


def pay_in_order(a: int, b: int, c: int, buys: list, single: bool) -> int | None:
    """The rule played out step by step, one payment at a time (not the code's formula): the money obtained is kept as the creation money (A) and the
    rest (B); the money spent on spells (C) is taken back out of it, the rest first. Then each
    creation purchase is paid, one at a time, from the creation money only (from all of it when
    the GM allows one phase); what is left of it joins the rest, from which each later purchase is
    paid. The money left at the end, or None when some payment cannot be made."""
    creation, rest = a, b
    for _ in range(c):  # one Mj at a time
        if rest:
            rest -= 1
        elif creation:
            creation -= 1
        else:
            return None
    if single:
        creation, rest = creation + rest, 0
    for price, phase in buys:
        if phase == IP["phases"][0]:
            if price > creation:
                return None
            creation -= price
    rest += creation
    for price, phase in buys:
        if phase != IP["phases"][0]:
            if price > rest:
                return None
            rest -= price
    return rest


@SETTINGS
@given(st.integers(0, 900), st.integers(0, 900), st.integers(0, 900),
       st.lists(st.tuples(st.integers(0, 600), st.sampled_from(IP["phases"])), max_size=4),
       st.booleans())
def test_items_agree_with_paying_in_order(a: int, b: int, c: int, buys: list, single: bool) -> None:
    plan = {"money": {"initial": a, "scenarios": b, "spells_spent": c},
            "purchases": [{"name": "x", "price": p, "phase": ph} for p, ph in buys],
            "gm_allows_single_phase": single}
    left = pay_in_order(a, b, c, buys, single)
    outcome = check_items(plan)
    assert outcome.legal == (left is not None)
    if left is not None:
        assert outcome.values["remaining"] == left


spell_records = st.lists(st.tuples(st.sampled_from(["炎", "水"]), st.integers(1, 4),
                                   st.integers(0, 3000)), max_size=6)


@SETTINGS
@given(spell_records, spell_records, st.lists(st.sampled_from(["spell_only", "ordinary", "free"]),
                                              min_size=6, max_size=6),
       st.integers(0, 4000), st.integers(0, 4000))
def test_spells_agree_with_the_rule(learned: list, relearn: list, sources: list, spell_only: int,
                                    ordinary: int) -> None:
    plan = {"learned": [{"name": f"l{i}", "school": s, "tier": t, "cost": c, "paid_from": p}
                        for i, ((s, t, c), p) in enumerate(zip(learned, sources))],
            "relearn": [{"name": f"r{i}", "school": s, "tier": t, "cost": c}
                        for i, (s, t, c) in enumerate(relearn)],
            "money": {"spell_only": spell_only, "ordinary": ordinary}}
    refund_only = sum(c for (_, _, c), p in zip(learned, sources) if p == "spell_only")
    refund_ordinary = sum(c for (_, _, c), p in zip(learned, sources) if p != "spell_only")
    cost = sum(c for _, _, c in relearn)
    held = {(s, t) for s, t, _ in relearn}
    ordered = all(t == PP["first_level"] or (s, t - 1) in held for s, t, _ in relearn)
    outcome = check_spells(plan)
    assert outcome.legal == (ordered and cost <= spell_only + ordinary + refund_only + refund_ordinary)
    if outcome.legal:
        assert outcome.values["spent"]["spell_only"] == min(cost, spell_only + refund_only)
        assert sum(outcome.values["left"].values()) == (spell_only + ordinary + refund_only
                                                        + refund_ordinary - cost)


@st.composite
def character_plans(draw: st.DrawFn, legal: bool) -> dict:
    """A whole-character plan; when ``legal``, every part is built to fit the links."""
    abilities = draw(legal_plans())
    permitted = abilities.pop("gm_permits_conversion")
    before = draw(st.lists(ranks, max_size=5))
    count = sum(SP["weights"][r] for r in before)
    excess = max(0, count - SP["base"])
    to_abilities = draw(st.integers(0, excess)) if permitted else 0
    if not legal:
        to_abilities = draw(st.integers(0, 3))
    abilities["before"] = dict(abilities["before"])
    take = to_abilities  # the points the skills give back were not among the abilities before
    for a in NAMES:
        step = min(take, abilities["before"][a])
        abilities["before"][a] -= step
        take -= step
    learn = count - to_abilities + abilities["to_skills"]
    learn += 0 if legal else draw(st.integers(-1, 1))
    skills = {"before": [{"name": f"b{i}", "rank": r} for i, r in enumerate(before)],
              "after": [{"name": f"a{i}", "rank": "novice"} for i in range(max(0, learn))],
              "to_abilities": to_abilities}
    initial, scenarios = draw(st.integers(0, 5000)), draw(st.integers(0, 5000))
    source = draw(st.sampled_from(["spell_only", "ordinary", "free"]))
    cost = draw(st.integers(0, initial + scenarios if source == "ordinary" else 2000))
    learned = [{"name": "l", "school": "炎", "tier": 1, "cost": cost, "paid_from": source}]
    again = draw(st.integers(0, cost))
    relearn = [{"name": "r", "school": "水", "tier": draw(st.integers(1, 1 if legal else 2)),
                "cost": again}]
    ordinary_left = (0 if source == "spell_only" else cost) - (again if source != "spell_only" else 0)
    budget = (initial + scenarios - (cost if source == "ordinary" else 0) + ordinary_left
              + abilities["to_money"] * AP["mj_per_point"])
    price = draw(st.integers(0, budget + (0 if legal else 3000)))
    first = draw(st.integers(0, min(price, initial + scenarios - (cost if source == "ordinary" else 0),
                                    initial) if legal else price))
    items = {"money": {"initial": initial, "scenarios": scenarios},
             "purchases": [{"name": "c", "price": first, "phase": "creation"},
                           {"name": "d", "price": price - first, "phase": "after"}]}
    return {"gm_permits_conversion": permitted, "abilities": abilities, "skills": skills,
            "items": items, "spells": {"learned": learned, "relearn": relearn,
                                       "money": {"spell_only": 0, "ordinary": 0}}}


@settings(max_examples=80, deadline=None)
@given(character_plans(legal=True))
def test_a_character_built_legal_is_found_legal(plan: dict) -> None:
    outcome = check_character(plan)
    assert outcome.legal, outcome.violations


@settings(max_examples=80, deadline=None)
@given(character_plans(legal=False))
def test_a_character_is_legal_iff_its_linked_parts_are(plan: dict) -> None:
    outcome = check_character(plan)
    permitted = plan["gm_permits_conversion"]
    skills = check_skills({**plan["skills"], "gm_permits_conversion": permitted})
    abilities = check_abilities({**plan["abilities"], "gm_permits_conversion": permitted,
                                 "from_skills": skills.values["ability_points"]})
    skills = check_skills({**plan["skills"], "gm_permits_conversion": permitted,
                           "from_abilities": abilities.values["skill_acquisitions"]})
    spells = check_spells(plan["spells"])
    paid = sum(s["cost"] for s in plan["spells"]["learned"] if s["paid_from"] == "ordinary")
    money = {**plan["items"]["money"], "spells_spent": paid,
             "converted": abilities.values["money_mj"] + skills.values["money_mj"],
             "from_spells": spells.values["left"]["ordinary"]}
    items = check_items({**plan["items"], "money": money})
    assert outcome.legal == all(p.legal for p in (abilities, skills, spells, items))


# ---- any plan data: a result or a coded, located error, never another exception -------------

FIELDS = ["before", "after", "to_skills", "to_money", "from_skills", "to_abilities", "immature",
          "gm_permits_conversion", "money", "purchases", "learned", "relearn", "initial",
          "scenarios", "spells_spent", "name", "rank", "price", "phase", "school", "tier", "cost",
          "paid_from", "spell_only", "ordinary", "abilities", "skills", "items", "spells", *NAMES,
          "novice", "master", "creation", "free"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 25), st.sampled_from(FIELDS),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=3))
DATA = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6)),
    max_leaves=30)
PART_CHECKS = [check_abilities, check_skills, check_items, check_spells, check_character]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PART_CHECKS), st.dictionaries(st.sampled_from(FIELDS), DATA, max_size=8))
def test_any_plan_data_is_a_result_or_a_located_error(check, plan: dict) -> None:
    from rules_dsl.errors import MprError

    try:
        outcome = check(plan)
    except MprError as error:
        assert error.code.startswith("MPR8") and error.loc and error.loc.path, error
        assert error.message("ja") != error.message("en")
    else:
        assert outcome.legal == (not outcome.violations)
