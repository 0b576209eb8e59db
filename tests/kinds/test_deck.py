"""The deck and circulation primitives (R1-R3) as pure functions: composition, draw, discard,
on_empty, the multiset invariant, and sleep/dawn/special circulation, table-driven."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.kinds import circulation as circ
from interpreter.solvers.cards import (DeckSpec, DeckState, discard, draw, fresh_state,
                                    invariant_problems, require_invariant, shuffle_deck)
from rules_dsl.dice import ScriptedDice, SeededDice
from rules_dsl.errors import MprError

PARAMS = {"suits": ["S", "H", "D", "C"],
          "ranks": ["A", 2, 3, 4, 5, 6, 7, 8, 9, 10, "J", "Q", "K"],
          "jokers": ["JK1", "JK2"], "on_empty": "reshuffle_discards"}
SPEC = DeckSpec.from_params(PARAMS)
SMALL = DeckSpec.from_params({"suits": ["S"], "ranks": ["A", 2, 3], "jokers": ["JK1"]})


def state(holders: dict[str, list[str]], spec: DeckSpec = SPEC, **rest) -> DeckState:
    return DeckState.from_json({"holders": holders, **rest}, spec)


@pytest.mark.parametrize("params, count, first, last", [
    (PARAMS, 54, "SA", "JK2"),
    ({**PARAMS, "jokers": []}, 52, "SA", "CK"),
    ({"suits": ["S"], "ranks": ["A"], "jokers": ["JK1"]}, 2, "SA", "JK1"),
])
def test_composition_is_data(params, count, first, last):
    spec = DeckSpec.from_params(params)
    assert (len(spec.composition), spec.composition[0], spec.composition[-1]) == (count, first, last)
    assert {"H10", "DQ", "C7"} <= set(spec.composition) or count < 52


@pytest.mark.parametrize("params, code", [
    ({**PARAMS, "jokers": ["JK1", "JK1"]}, "MPR606"),
    ({**PARAMS, "on_empty": "panic"}, "MPR606"),
    ({"suits": [], "ranks": [], "jokers": []}, "MPR606"),
])
def test_bad_composition(params, code):
    with pytest.raises(MprError) as error:
        DeckSpec.from_params(params)
    assert error.value.code == code


@pytest.mark.parametrize("holders, count, expect_held, expect_deck_top", [
    ({"pc": []}, 2, ["SA", "S2"], "S3"),
    ({"pc": ["SA"]}, 1, ["SA", "S2"], "S3"),
    ({"pc": ["H10"]}, 0, ["H10"], "SA"),
])
def test_draw_takes_from_the_top(holders, count, expect_held, expect_deck_top):
    result = draw(state(holders), SPEC, "pc", count, SeededDice(0))
    assert list(result.state.held("pc")) == expect_held
    assert result.state.deck[0] == expect_deck_top
    require_invariant(result.state, SPEC)


@pytest.mark.parametrize("on_empty, expect", [
    ("reshuffle_discards", {"held": 2, "reshuffles": 1, "short": 0}),
    ("draw_short", {"held": 1, "reshuffles": 0, "short": 1}),
    ("error", "MPR604"),
])
def test_on_empty(on_empty, expect):
    spec = DeckSpec(SMALL.composition, on_empty)
    start = DeckState(("S3",), ("SA",), (("pc", ()), ("npc", ("S2", "JK1"))))
    if isinstance(expect, str):
        with pytest.raises(MprError) as error:
            draw(start, spec, "pc", 2, SeededDice(1))
        assert error.value.code == expect
        return
    result = draw(start, spec, "pc", 2, SeededDice(1))
    assert {"held": len(result.state.held("pc")), "reshuffles": result.reshuffles,
            "short": result.short} == expect
    require_invariant(result.state, spec)


def test_reshuffle_with_both_piles_empty_is_an_error():
    start = DeckState((), (), (("pc", SMALL.composition),))
    with pytest.raises(MprError) as error:
        draw(start, SMALL, "pc", 1, SeededDice(1))
    assert error.value.code == "MPR604"


@pytest.mark.parametrize("held, cards, code", [
    (["SA"], ["H10"], "MPR602"),
    (["SA"], ["SA", "SA"], "MPR601"),
    (["SA", "H10"], ["SA"], None),
])
def test_discard(held, cards, code):
    start = state({"pc": held})
    if code:
        with pytest.raises(MprError) as error:
            discard(start, "pc", cards)
        assert error.value.code == code
        return
    after = discard(start, "pc", cards)
    assert after.discard == tuple(cards)
    assert set(after.held("pc")) == set(held) - set(cards)


def test_unknown_holder_names_the_nearest():
    with pytest.raises(MprError) as error:
        state({"alice": []}).held("alise")
    assert error.value.code == "MPR607" and "alice" in error.value.message()


@pytest.mark.parametrize("data, missing, extra", [
    ({"holders": {"pc": ["SA"]}}, [], []),
    ({"deck": ["S2", "S3"], "holders": {"pc": ["SA"]}}, ["JK1"], []),
    ({"deck": ["S2", "S3", "JK1", "SA"], "holders": {"pc": ["SA"]}}, [], ["SA"]),
])
def test_invariant(data, missing, extra):
    deck = data.get("deck")
    raw = DeckState(tuple(deck) if deck is not None else tuple(
        c for c in SMALL.composition if c not in data["holders"]["pc"]), (),
        tuple((h, tuple(c)) for h, c in data["holders"].items()))
    assert invariant_problems(raw, SMALL) == (missing, extra)
    if missing or extra:
        with pytest.raises(MprError) as error:
            DeckState.from_json(data, SMALL)
        assert error.value.code == "MPR605"


def test_same_seed_same_shuffle_and_a_different_seed_differs():
    assert fresh_state(SPEC, SeededDice(7)) == fresh_state(SPEC, SeededDice(7))
    assert fresh_state(SPEC, SeededDice(7)) != fresh_state(SPEC, SeededDice(8))
    assert Counter(shuffle_deck(fresh_state(SPEC), SeededDice(3)).deck) == Counter(SPEC.composition)


# -- circulation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("hours, minimum, circulated, reason", [
    (8, 1, True, None), (1, 1, True, None), (0.5, 1, False, "short"),
    (0, 1, False, "short"), (3, 4, False, "short"), (4, 4, True, None),
])
def test_sleep_threshold(hours, minimum, circulated, reason):
    result = circ.after_minimum(state({"pc": ["SA", "JK1"]}), SPEC, "pc", hours, minimum, SeededDice(0))
    assert (result.circulated, result.reason) == (circulated, reason)
    assert len(result.state.held("pc")) == 2
    if circulated:
        assert result.changes[0].out == ("SA", "JK1") and result.changes[0].drawn == ("S2", "S3")
        assert result.state.discard == ("SA", "JK1")


def test_sleep_refuses_negative_hours():
    with pytest.raises(MprError) as error:
        circ.after_minimum(state({"pc": ["SA"]}), SPEC, "pc", -1, 1, SeededDice(0))
    assert error.value.code == "MPR610"


def test_discard_first_then_draw_lets_a_card_come_back():
    """With one card in the deck and two to draw, the just-discarded cards are reshuffled in."""
    start = DeckState(("JK1",), (), (("pc", ("SA", "S2")), ("npc", ("S3",))))
    result = circ.after_minimum(start, SMALL, "pc", 8, 1, ScriptedDice([1, 1]))
    assert result.reshuffles == 1
    assert Counter(result.state.held("pc")) + Counter(result.state.deck) + Counter(result.state.discard) \
        == Counter(["SA", "S2", "JK1"])
    require_invariant(result.state, SMALL)


@pytest.mark.parametrize("redraw_to, holders_after", [
    ("holder", {"pc": ["HA"], "bat": ["SA", "S2"]}),
    ("owner_hand", {"pc": ["HA", "SA", "S2"], "bat": []}),
])
def test_dawn(redraw_to, holders_after):
    start = state({"pc": ["HA"], "bat": ["H2", "H3"]})
    result = circ.all_holders(start, SPEC, [("bat", "pc")], redraw_to, SeededDice(0))
    assert {h: list(c) for h, c in result.state.holders} == holders_after
    assert result.state.discard == ("H2", "H3")


def test_dawn_discards_every_item_before_drawing():
    start = DeckState((), ("S3",), (("pc", ()), ("a", ("SA",)), ("b", ("S2",)), ("c", ("JK1",))))
    result = circ.all_holders(start, SMALL, [("a", "pc"), ("b", "pc"), ("c", "pc")], "holder", SeededDice(4))
    assert sorted(result.state.discard + result.state.deck + sum((c for _, c in result.state.holders), ())) \
        == sorted(SMALL.composition)
    assert all(len(result.state.held(h)) == 1 for h in "abc")


@pytest.mark.parametrize("kwargs, out, code", [
    ({"take_all": True}, ("SA", "HK", "D5"), None),
    ({"count": 1, "selection": "random"}, ("HK",), None),  # the die shows 2 of 3
    ({"count": 2, "selection": "gm", "cards": ["D5", "SA"]}, ("D5", "SA"), None),
    ({"selection": "player", "cards": ["HK"]}, ("HK",), None),
    ({"count": 0, "selection": "random"}, (), None),
    ({}, None, "MPR613"),
    ({"take_all": True, "count": 1}, None, "MPR613"),
    ({"count": 4, "selection": "random"}, None, "MPR603"),
    ({"count": 2, "selection": "gm", "cards": ["SA"]}, None, "MPR615"),
    ({"count": 1, "selection": "gm"}, None, "MPR612"),
    ({"count": 1, "selection": "random", "cards": ["SA"]}, None, "MPR617"),
    ({"count": 1, "selection": "gm", "cards": ["H10"]}, None, "MPR602"),
    ({"count": 1, "selection": "gm", "cards": ["ZZ"]}, None, "MPR602"),
    ({"count": -1, "selection": "random"}, None, "MPR608"),
    ({"count": 1, "selection": "oracle"}, None, "MPR611"),
])
def test_special(kwargs, out, code):
    start = state({"pc": ["SA", "HK", "D5"]})
    if code:
        with pytest.raises(MprError) as error:
            circ.ordered(start, SPEC, "pc", ScriptedDice([2]), **kwargs)
        assert error.value.code == code
        return
    result = circ.ordered(start, SPEC, "pc", ScriptedDice([2]), **kwargs)
    assert (result.changes[0].out if result.changes else ()) == out
    assert len(result.state.held("pc")) == 3


def test_special_selection_must_be_allowed():
    with pytest.raises(MprError) as error:
        circ.ordered(state({"pc": ["SA"]}), SPEC, "pc", SeededDice(0), count=1, selection="player",
                     cards=["SA"], allowed=["gm"])
    assert error.value.code == "MPR611"


holdings = st.lists(st.integers(0, 5), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(sizes=holdings, seed=st.integers(0, 10_000), ops=st.lists(
    st.tuples(st.sampled_from(["sleep", "special", "dawn"]), st.integers(0, 3)), max_size=12))
def test_circulation_keeps_the_multiset_and_the_counts(sizes, seed, ops):
    dice = SeededDice(seed)
    current = fresh_state(SPEC, dice)
    for n, size in enumerate(sizes):
        current = draw(current.with_held(f"h{n}", ()), SPEC, f"h{n}", size, dice).state
    counts = {h: len(c) for h, c in current.holders}
    for op, index in ops:
        holder = f"h{index % len(sizes)}"
        if op == "sleep":
            current = circ.after_minimum(current, SPEC, holder, 8, 1, dice).state
        elif op == "dawn":
            current = circ.all_holders(current, SPEC, [(h, h) for h in counts], "holder", dice).state
        else:
            held = len(current.held(holder))
            current = circ.ordered(current, SPEC, holder, dice, count=min(index, held)).state
        assert not any(invariant_problems(current, SPEC))
        assert {h: len(c) for h, c in current.holders} == counts


# -- the documents of rulesets/magipunk/cards.yaml, run by the engine ----------------------------

def _cards_ruleset():
    from interpreter.documents.resources import bundled_ruleset
    from interpreter.checks.loading import load_ruleset

    return load_ruleset(bundled_ruleset() / "cards.yaml")


def test_the_examples_of_cards_yaml_pass(capsys):
    from interpreter.cli import main
    from interpreter.documents.resources import bundled_ruleset

    assert main(["test", str(bundled_ruleset() / "cards.yaml")]) == 0
    assert main(["validate", str(bundled_ruleset() / "cards.yaml")]) == 0


@pytest.mark.parametrize("rule, inputs, dice, expect", [
    ("cards.deck", {"operations": [{"op": "draw", "holder": "pc", "count": 2},
                                   {"op": "discard", "holder": "pc", "cards": ["S2"]}]}, [],
     {"deck_count": 52, "discard": ["S2"], "holders": {"pc": ["SA"]}, "drawn": ["SA", "S2"],
      "composition_count": 54}),
    ("cards.deck", {"operations": [{"op": "draw", "count": 2}]}, [], "MPR609"),
    ("circulation.sleep", {"state": {"holders": {"pc": ["SA"]}}, "holder": "pc", "hours": 2}, [],
     {"circulated": True, "reason": None, "changes": [{"holder": "pc", "out": ["SA"], "to": "pc", "in": ["S2"]}],
      "deck_count": 52, "discard": ["SA"], "holders": {"pc": ["S2"]}}),
    ("circulation.sleep", {"state": {"holders": {"pc": ["SA"]}}, "holder": "pc", "hours": -2}, [], "MPR500"),
    ("circulation.dawn", {"state": {"holders": {"pc": [], "bat": ["SA", "HA"]}}, "items": {"bat": "pc"}}, [],
     {"circulated": True, "reason": None, "changes": [{"holder": "bat", "out": ["SA", "HA"], "to": "bat", "in": ["S2", "S3"]}],
      "deck_count": 50, "discard": ["SA", "HA"], "holders": {"pc": [], "bat": ["S2", "S3"]}}),
    ("circulation.special", {"state": {"holders": {"pc": ["SA", "HA", "DA"]}}, "holder": "pc", "count": 2},
     [3, 1], {"circulated": True, "reason": None,
              "changes": [{"holder": "pc", "out": ["DA", "SA"], "to": "pc", "in": ["S2", "S3"]}],
              "deck_count": 49, "discard": ["DA", "SA"], "holders": {"pc": ["HA", "S2", "S3"]}}),
    ("circulation.special", {"state": {"holders": {"pc": ["SA"]}}, "holder": "pc", "count": 1}, [], "MPR150"),
])
def test_run_through_the_engine(rule, inputs, dice, expect):
    from interpreter.engine import runner as engine

    ruleset = _cards_ruleset()
    if isinstance(expect, str):
        with pytest.raises(MprError) as error:
            engine.run(ruleset, rule, inputs, ScriptedDice(dice))
        assert error.value.code == expect
        return
    assert engine.run(ruleset, rule, inputs, ScriptedDice(dice)).value == expect


@pytest.mark.parametrize("edit, codes", [
    (("jokers: [JK1, JK2]", "jokers: []"), set()),
    (("suits: [S, H, D, C]", "suits: [S, H, D, S]"), {"MPR311"}),
    (("on_empty: reshuffle_discards\nparam_docs", "on_empty: panic\nparam_docs"), {"MPR304"}),
    (("kind: Circulation\ndeck: cards.deck", "kind: Circulation\ndeck: cards.dek"), {"MPR354"}),
])
def test_validate_finds_bad_deck_documents(tmp_path, capsys, edit, codes):
    import json

    from interpreter.cli import main
    from interpreter.documents.resources import bundled_ruleset

    text = (bundled_ruleset() / "cards.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    (tmp_path / "cards.yaml").write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    main(["validate", str(tmp_path / "cards.yaml"), "--format", "json"])
    found = {d["code"] for d in json.loads(capsys.readouterr().out) if d["severity"] == "error"}
    assert found == codes


def test_a_composition_whose_names_collide_is_refused_by_the_kind_check():
    from interpreter.kinds.deck import check
    from interpreter.ruleset.model import Rule

    rule = Rule("cards.deck", "Deck", {}, params={"suits": ["S", "S1"], "ranks": ["1", "11"],
                                                  "jokers": [], "on_empty": "error"})
    assert [d.code for d in check(rule, None)] == ["MPR606"]
