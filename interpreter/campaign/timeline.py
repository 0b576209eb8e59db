"""Time passing in a campaign: a clock advance with the dawns it crosses and the sleeps a package
declares, each running the circulation the manifest wires to it, in time order; and the notes
that explain each step."""
from __future__ import annotations


from rules_dsl.errors import Location, MprError, define
from interpreter.campaign.limits import MAX_ADVANCE_MINUTES, MAX_CARD_MOVES, MAX_SLEEP_HOURS

from interpreter.solvers.circulation import (NEGATIVE_HOURS, after_minimum, all_holders, keeper, ordered,
                                            renewed_holders)
from interpreter.ruleset.wiring import require, wired
from interpreter.campaign.pin import clock_text, dawn_of, dawns_between
from interpreter.campaign.state import State

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from rules_dsl.dice import DiceSource

    from interpreter.solvers.circulation import Circulated, Keep

NOT_ADOPTED_NOTE = define(
    "MPR650", "{rule} is not adopted in this campaign: no cards change",
    "{rule} はこのキャンペーンで採用されていません: カードは変わりません", severity="info")
SHORT_SLEEP = define(
    "MPR651", "{holder} slept {hours} h, less than {min} h ({rule}): no cards change",
    "{holder} の睡眠は {hours} 時間で、{min} 時間未満です（{rule}）: カードは変わりません", severity="info")
NO_CARDS = define(
    "MPR652", "{holder} holds no cards: nothing to circulate",
    "{holder} はカードを保持していません: 循環するカードはありません", severity="info")
DAWN_PASSED = define(
    "MPR653", "dawn at day {day} {time} ({rule})", "{day}日目 {time} に夜明け（{rule}）", severity="info")
RESHUFFLED = define(
    "MPR654", "the deck ran out: the discard pile was shuffled into a new deck ({times}x)",
    "山札が尽きたため、捨て札をシャッフルして新しい山札にしました（{times} 回）", severity="info")
NO_ITEM_CARDS = define(
    "MPR655", "no holder that {rule} renews holds cards: nothing to circulate",
    "{rule} が循環させる保持者はカードを保持していません: 循環するカードはありません", severity="info")
NONE_CHOSEN = define(
    "MPR656", "no card of {holder} was chosen (a count of 0): nothing to circulate",
    "{holder} の札は1枚も選ばれていません（枚数 0）: 循環するカードはありません", severity="info")
BAD_MINUTES = define(
    "MPR635", "{field} must be a whole number of minutes from 0 to {limit}, not {value!r}",
    "{field} には 0〜{limit} の整数（分）を指定してください（指定値: {value!r}）")
BAD_HOURS = define(
    "MPR636", "{field} must be a number of hours from 0 to {limit}, not {value!r}",
    "{field} には 0〜{limit} の時間を指定してください（指定値: {value!r}）")

TOO_MANY_MOVES = define(
    "MPR684", "{field}: {minutes} minutes cross {dawns} dawns for {items} items holding cards, more than "
              "{limit} circulations in one command; nothing was changed: advance in shorter steps",
    "{field}: {minutes} 分で夜明けを {dawns} 回迎え、カードを持つアイテムが {items} 個あるため、1回のコマンドで"
    "{limit} 回を超える循環になります。何も変更していません。もっと短い時間ずつ進めてください")

ALL_KEPT = define(
    "MPR786", "every card {holder} holds is kept ({rule}): nothing circulates",
    "{holder} が保持している札はすべて残ります（{rule}）: 循環する札はありません", severity="info")

BAD_CARD_COUNT = define(
    "MPR788", "{field} is a number of cards to circulate, a whole number 0 or more, not {value!r}",
    "{field} は循環させる札の枚数です。0 以上の整数でなければなりません（値: {value!r}）")

SLEEP = "sleep"  # the wiring slots this module runs (see the manifest's campaign section)
DAWN = "dawn"


class Outcome:
    """What a command did: the state it leaves, the card changes, and notes (codes with arguments)."""

    __slots__ = ("state", "changes", "notes")

    def __init__(self, state: State, changes: list[dict[str, Any]], notes: list[dict[str, Any]]) -> None:
        self.state = state
        self.changes = changes
        self.notes = notes

    def note(self, code: str, **args: Any) -> None:
        self.notes.append({"code": code, "args": args})

    def absorb(self, result: Circulated) -> None:
        self.state = self.state.evolve(cards=result.state)
        self.changes.extend(c.to_json() for c in result.changes)
        if result.reshuffles:
            self.note(RESHUFFLED, times=result.reshuffles)


def note_unchanged(out: Outcome, result: Circulated, holder: str, rule_id: str) -> None:
    """The note that says why a holder's cards did not change: it holds none, its circulation
    keeps every one, or none was chosen."""
    if result.reason == "no_cards":
        out.note(NO_CARDS, holder=holder)
    elif result.reason == "kept":
        out.note(ALL_KEPT, holder=holder, rule=rule_id)
    elif result.reason == "none_chosen":
        out.note(NONE_CHOSEN, holder=holder)


def wired_rule(state: State, slot: str) -> str:
    """The id of the rule the campaign's wiring gives ``slot`` (a coded error when it gives none)."""
    return require(state.pin.rules, wired(state.pin.campaign, slot, state.pin.manifest), slot,
                   state.pin.manifest)


def rule_params(state: State, rule_id: str) -> dict[str, Any] | None:
    """The pinned parameters of ``rule_id`` if it is adopted, else ``None``."""
    rule = state.pin.rules.get(rule_id)
    if rule is None or not rule.get("adopted", True):
        return None
    return rule.get("params") or {}


def keep_of(state: State, rule_id: str, dice: DiceSource | None = None) -> Keep | None:
    """The pinned circulation's ``keep`` (an expression of one held card) as a function of a card
    and its holder, or None when it keeps nothing."""
    rule = state.pin.rules.get(rule_id) or {}
    text = rule.get("keep")
    if not text:
        return None
    # start-up: the expression compiler loads only for a circulation that keeps cards
    from rules_dsl import compile_expression

    deck = (state.pin.rules.get(rule.get("deck") or "") or {}).get("params") or {}
    return keeper(compile_expression(text, origin=Location(path=f"{rule_id}.keep")), deck,
                  rule.get("params") or {}, rule_id, dice)


def check_constraints(state: State, rule_id: str, inputs: dict[str, Any], result: Circulated) -> None:
    """The pinned circulation's ``constraints:`` over the run's inputs (the deck state before it
    as ``state``), its parameters and its value as ``mprules run`` gives it: a broken one refuses
    the command with the document's message (MPR780), before anything changes."""
    rule = state.pin.rules.get(rule_id) or {}
    if not rule.get("constraints"):
        return
    # start-up: the engine and the ruleset are loaded only for a circulation with constraints
    from rules_dsl.dice import SeededDice
    from interpreter.campaign.pin import load, pinned_path  # start-up: as above
    from interpreter.engine.constraints import apply  # start-up: as above
    from interpreter.engine.runner import Context  # start-up: as above
    from interpreter.solvers.cards import state_value  # start-up: as above

    ruleset = load(pinned_path(state.pin, ""), state.pin.adopt, state.pin.param_overrides)
    short = (rule.get("threshold") or {}).get("short")
    value = {"circulated": result.circulated,
             "reason": short if result.reason == "short" and short else result.reason,
             "changes": [c.to_json() for c in result.changes], **state_value(result.state)}
    inputs = {"state": state.cards.to_json(), **inputs}
    apply(ruleset.rule(rule_id), inputs, value, Context(ruleset, SeededDice(0)))


def check_minutes(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ADVANCE_MINUTES:
        raise MprError(BAD_MINUTES, Location(path=field), field=field, value=value,
                       limit=MAX_ADVANCE_MINUTES)
    return value


def check_hours(value: Any, field: str) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise MprError(NEGATIVE_HOURS, Location(path=field), hours=value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value > MAX_SLEEP_HOURS:
        raise MprError(BAD_HOURS, Location(path=field), field=field, value=value, limit=MAX_SLEEP_HOURS)
    return value


def apply_sleep(out: Outcome, holder: str, hours: Any, dice: DiceSource, slot: str = SLEEP) -> None:
    """The circulation wired to ``slot`` for one character after ``hours``, or a note saying why
    no cards change."""
    rule_id = wired_rule(out.state, slot)
    params = rule_params(out.state, rule_id)
    if params is None:
        out.note(NOT_ADOPTED_NOTE, rule=rule_id)
        return
    minimum = _minimum(out.state, rule_id)
    state = out.state
    result = after_minimum(state.cards, state.deck_spec(), holder, hours, minimum, dice,
                           keep=keep_of(state, rule_id, dice))
    if result.reason == "short":
        out.note(SHORT_SLEEP, holder=holder, hours=hours, min=minimum, rule=rule_id)
    else:
        note_unchanged(out, result, holder, rule_id)
    amount = (state.pin.rules[rule_id].get("threshold") or {}).get("amount") or "amount"
    check_constraints(state, rule_id, {"holder": holder, amount: hours}, result)
    out.absorb(result)


def apply_dawn(out: Outcome, at: int, dice: DiceSource) -> None:
    """The wired dawn circulation at minute ``at``: the cards of every holder it renews, or a
    note saying why no cards change."""
    rule_id = wired_rule(out.state, DAWN)
    day, time = clock_text(at).split(" ")[1:]
    out.note(DAWN_PASSED, day=int(day), time=time, rule=rule_id)
    params = rule_params(out.state, rule_id)
    if params is None:
        out.note(NOT_ADOPTED_NOTE, rule=rule_id)
        return
    state = out.state
    items = [(item.id, item.owner or item.id) for item in state.items]
    holders = renewed_holders(params.get("renews", ["items"]), [c.id for c in state.characters], items)
    result = all_holders(state.cards, state.deck_spec(), holders, params.get("redraw_to", "holder"),
                         dice, keep=keep_of(state, rule_id, dice))
    if result.reason == "no_cards":
        out.note(NO_ITEM_CARDS, rule=rule_id)
    elif result.reason == "kept":
        out.note(ALL_KEPT, holder=", ".join(holder for holder, _ in holders), rule=rule_id)
    check_constraints(state, rule_id, {"items": {item: owner for item, owner in items},
                                       "characters": [c.id for c in state.characters]}, result)
    out.absorb(result)


def run_of(state: State, slot: str, holder: str, amount: Any, elapsed: Any,
           field: str) -> tuple[str, str, Any, Any]:
    """One run a package's effect asks of ``slot`` for ``holder``: ``(slot, holder, amount, at)``.
    A threshold circulation (after_minimum) runs when the amount reaches its minimum (``at`` None);
    an ordered one circulates ``amount`` cards of the holder (at most those it holds) once the
    effects before it have taken their time (``elapsed`` minutes from the start)."""
    rule = state.pin.rules.get(wired_rule(state, slot)) or {}
    if rule.get("circulation") == "ordered":
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise MprError(BAD_CARD_COUNT, Location(path=field), field=field, value=amount)
        return (slot, holder, amount, elapsed)
    return (slot, holder, check_hours(amount, field), None)


def apply_count(out: Outcome, holder: str, count: int, dice: DiceSource, slot: str) -> None:
    """The ordered circulation wired to ``slot``: ``count`` of the holder's cards (at most those
    it holds and does not keep), chosen at random."""
    rule_id = wired_rule(out.state, slot)
    params = rule_params(out.state, rule_id)
    if params is None:
        out.note(NOT_ADOPTED_NOTE, rule=rule_id)
        return
    state = out.state
    keep = keep_of(state, rule_id, dice)
    held = [card for card in state.cards.held(holder) if keep is None or not keep(card, holder)]
    result = ordered(state.cards, state.deck_spec(), holder, dice, count=min(count, len(held)),
                     selection="random", allowed=("random",), rule_id=rule_id, keep=keep)
    note_unchanged(out, result, holder, rule_id)
    check_constraints(state, rule_id, {"holder": holder, "count": min(count, len(held)),
                                       "selection": "random"}, result)
    out.absorb(result)


def pass_time(out: Outcome, minutes: int, dice: DiceSource,
              runs: Sequence[tuple[str, str, Any, Any]] = ()) -> None:
    """Advance the clock by ``minutes``: each dawn crossed and each ``(slot, holder, amount, at)``
    run a package declares (``run_of``: a threshold circulation at the moment the amount reaches
    its minimum, an ordered one ``at`` minutes from the start) happen in time order, a dawn first
    on a tie."""
    start = out.state.clock_minutes
    end = start + minutes
    events: list[tuple[int, int, str, Any]] = [
        (t, 0, DAWN, None) for t in dawns_between(start, end, dawn_of(out.state.pin))]
    holding = sum(1 for item in out.state.items if out.state.cards.held(item.id))
    if len(events) * holding + len(runs) > MAX_CARD_MOVES:  # bounds time and journal size
        raise MprError(TOO_MANY_MOVES, Location(path="minutes"), field="minutes", minutes=minutes,
                       dawns=len(events), items=holding, limit=MAX_CARD_MOVES)
    for order, (slot, holder, amount, offset) in enumerate(runs):
        if offset is None:
            minimum = _minimum(out.state, wired_rule(out.state, slot))
            at = start + min(minutes, int(minimum * 60)) if amount >= minimum else end
        else:
            at = start + min(minutes, int(offset))
        events.append((at, 1 + order, slot, (holder, amount, offset is not None)))
    for at, _, slot, detail in sorted(events, key=lambda e: (e[0], e[1])):
        if detail is None:
            apply_dawn(out, at, dice)
        elif detail[2]:
            apply_count(out, detail[0], detail[1], dice, slot)
        else:
            apply_sleep(out, detail[0], detail[1], dice, slot)
    out.state = out.state.evolve(clock_minutes=end)


def _minimum(state: State, rule_id: str) -> Any:
    """The minimum amount of the pinned threshold circulation ``rule_id``."""
    rule = state.pin.rules[rule_id]
    threshold = rule.get("threshold") or {}
    return rule["params"].get(threshold.get("minimum", ""), 1)


def next_dawn(state: State) -> int:
    """Minutes from the clock to the next dawn (a full day when it is dawn now)."""
    start = state.clock_minutes
    return dawns_between(start, start + 24 * 60, dawn_of(state.pin))[0] - start
