"""The campaign commands: each takes the store (or a file) and its arguments, runs in one
transaction, journals its inputs, seed and result with the state before it, and returns a result
dict ``{command, seq, seed, changes: [{holder, out, to, in}], notes: [{code, args}], clock_minutes}``."""
from __future__ import annotations

from rules_dsl.dice import SeededDice
from rules_dsl.errors import EXIT_STATE, Location, MprError, define, did_you_mean
from rules_dsl.words import LANGS, LIST_SEPARATOR, bilingual, define_word, localized, word

from interpreter.solvers.circulation import ordered
from interpreter.solvers.cards import DeckSpec, fresh_state
from interpreter.ruleset.wiring import require, wired
from interpreter.campaign.pin import (check_pin, clock_text, dawn_of, load, minutes_of_day, pin_ruleset,
                                      pinned_path, with_manifest_wiring)
from interpreter.campaign.state import Pin, State
from interpreter.campaign.files import shown_path
from interpreter.campaign.names import resolve
from interpreter.campaign.store import Store
from interpreter.campaign.timeline import (Outcome, check_constraints, note_unchanged, apply_sleep, check_hours,
                                           check_minutes, keep_of, next_dawn, pass_time, rule_params, run_of,
                                           wired_rule)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from interpreter.campaign.characters import Roster

    Body = Callable[[Outcome, SeededDice], dict[str, Any]]

READING = ("export", "holder_names", "log", "show", "show_state")  # the commands of ``views``


def __getattr__(name: str) -> Any:
    """The commands that only read (``views``) are read from here too, like every command."""
    if name in READING:
        # start-up: a command that changes a campaign does not load the ones that only read it
        from interpreter.campaign import views

        return getattr(views, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

UNKNOWN_PC = define(
    "MPR630", "no character {pc!r} in this campaign{hint} (characters: {known})",
    "このキャンペーンにキャラクター {pc!r} はいません{hint}（キャラクター: {known}）")
UNKNOWN_HOLDER = define(
    "MPR631", "no character or item {holder!r} in this campaign{hint} (holders: {known})",
    "このキャンペーンにキャラクターやアイテム {holder!r} はありません{hint}（保持者: {known}）")
NOTHING_TO_UNDO = define(
    "MPR634", "nothing to undo: no command since the campaign was created is left",
    "取り消せるコマンドはありません（キャンペーン作成後のコマンドはすべて取り消し済みです）")
UNKNOWN_TIER = define(
    "MPR637", "no {package} package {tier!r}{hint} (known: {known})",
    "{package} パッケージ {tier!r} はありません{hint}（使えるもの: {known}）")
REPIN_DECK_CHANGED = define(
    "MPR638", "cannot re-pin: the deck's composition changed ({detail}); export the campaign, delete "
              "the export's `campaign` section (its deck is the old one) and {how[en]}",
    "固定し直せません: 山札の構成が変わっています（{detail}）。キャンペーンを export し、書き出したファイルの "
    "`campaign` の項目（古い山札）を削除してから{how[ja]}")
EXPORTED_RULESET_MISSING = define(
    "MPR029", "this export was played with the ruleset {ruleset}, which is not there (no ruleset.yaml): "
              "{how[en]}; the bundled rules are not used in its place",
    "この書き出しはルールセット {ruleset} で遊ばれていましたが、そこにありません（ruleset.yaml がありません）。"
    "{how[ja]}。同梱のルールで代わりに始めることはしません", exit_code=EXIT_STATE)
HOW_EXPORTED_RULESET = define_word(
    "campaign.how.exported_ruleset", "give the directory where that ruleset is now, or write "
    "`ruleset: (bundled)` in the export to play it on the bundled rules",
    "そのルールセットがいまある場所を指定するか、同梱のルールで遊ぶなら書き出しに `ruleset: (bundled)` と書いてください")
HOW_RESTART = define_word("campaign.how.restart", "start over with a new campaign file from the export",
                          "書き出したファイルから新しいキャンペーンファイルを作ってやり直してください")
UNKNOWN_OPTION = define(
    "MPR660", "{message[en]} (options: {known_en})", "{message[ja]}（選択肢: {known_ja}）")
OVER_ALLOWANCE = define(
    "MPR661", "{message[en]} (in this briefing, {rule}): refused",
    "{message[ja]}（このブリーフィング、{rule}）: 行えません")
REFUSED_BY_DOCUMENT = define(
    "MPR782", "{message[en]} (in this briefing, {rule}; {given}): refused",
    "{message[ja]}（このブリーフィング、{rule}。{given}）: 行えません")
EFFECT_RAN = define(
    "MPR789", "{rule}: effect {effect} ran {target}: {field} {amount}",
    "{rule}: 効果 {effect} で {target} を実行しました: {field} {amount}", severity="info")
DOCUMENT_NOTE = define(
    "MPR783", "{message[en]} ({rule}; {given})", "{message[ja]}（{rule}。{given}）", severity="info")
NOT_A_PLAN = define(
    "MPR666", "{rule} has no plan section: it cannot record uses",
    "{rule} には plan の項目がないため、使用回数を記録できません")
NO_SUCH_EFFECT_SLOT = define(
    "MPR667", "{rule}: effect {effect} runs nothing in a campaign (its type has no `runs`)",
    "{rule}: 効果 {effect} はキャンペーンで何も実行しません（効果の種類に runs がありません）",
    severity="info")
OPTIONS_UNLISTED = define(
    "MPR662", "{rule} lists no options (GM data): the use is counted, its name not checked",
    "{rule} には選択肢が記載されていません（GMのデータ）: 回数は数えますが、名前は照合しません",
    severity="info")
UNDONE = define(
    "MPR663", "undid #{seq} {command}", "#{seq} {command} を取り消しました", severity="info")
REPINNED = define(
    "MPR664", "re-pinned the ruleset {path}: {old} -> {new}",
    "ルールセット {path} を固定し直しました: {old} -> {new}", severity="info")
REPIN_SAME = define(
    "MPR665", "the ruleset did not change: nothing to re-pin",
    "ルールセットは変わっていません: 固定し直す必要はありません", severity="info")

# The manifest's campaign wiring: the slot of each rule a command runs.
DECK, SPECIAL, RESTS, BRIEFINGS = "deck", "special", "rests", "briefings"


def _not_adopted(rule_id: str, rule: dict[str, Any]) -> MprError:
    # The engine's error, imported only when raised: a campaign command does not load the engine.
    from interpreter.engine.runner import NOT_ADOPTED

    return MprError(NOT_ADOPTED, Location(path=rule_id), rule=rule_id, title=_title(rule, rule_id))


def _run(store: Store, command: str, inputs: dict[str, Any], seed: int | None, body: Body, *,
         check_ruleset: bool = True, random: bool = True) -> dict[str, Any]:
    """One command in one transaction: load, check the ruleset pin, apply, save, journal.
    A command that draws no card (``random`` false) has no seed to show. The ruleset is loaded
    before the write lock is taken (checked again inside it only when another command changed
    the pin meanwhile), so writers wait only for writes."""
    checked = store.load()
    if check_ruleset:
        check_pin(checked.pin, store.path)
    with store.transaction():
        before = store.load()  # read again only if another command committed meanwhile
        if check_ruleset and before.pin != checked.pin:
            check_pin(before.pin, store.path)
        dice = SeededDice(seed if random or seed is not None else 0)
        out = Outcome(before, [], [])
        extra = body(out, dice)
        seed = dice.seed if random or seed is not None else None
        result = {"command": command, "seed": seed, "changes": out.changes, "notes": out.notes,
                  "clock_minutes": out.state.clock_minutes,
                  "clock": clock_text(out.state.clock_minutes), **extra}
        store.save(out.state)
        result["seq"] = store.journal(command, inputs, seed, dice.values, result, before)
    return result


def init(path: str, characters: str, *, ruleset: str | None = None, seed: int | None = None,
         force: bool = False, adopt: dict[str, bool] | None = None,
         param_overrides: dict[str, dict] | None = None, start: str | None = None) -> dict[str, Any]:
    """Create a campaign: pin the ruleset, shuffle the deck by ``seed``, place and deal the cards.
    From an export (a ``campaign`` section), the deck order, discard pile and clock come back too."""
    # start-up: reading and dealing a roster is only for creating a campaign (1.8M instructions)
    from interpreter.campaign.characters import deal, load_roster, restore

    Store.refuse_existing(path, force)
    roster = load_roster(characters)
    exported = roster.exported
    if exported is not None and ruleset is None:  # an export is played on on the rules it names
        ruleset = exported_ruleset(roster, characters)
        adopt = {**(exported.adopt or {}), **(adopt or {})}  # the command line's on top
        merged = {rule: dict(values) for rule, values in (exported.param_overrides or {}).items()}
        for rule, values in (param_overrides or {}).items():
            merged.setdefault(rule, {}).update(values)
        param_overrides = merged
    pin = pin_ruleset(ruleset, adopt, param_overrides)
    dawn = dawn_of(pin)
    clock = minutes_of_day(start, "start") if start is not None else \
        exported.clock_minutes if exported and exported.clock_minutes is not None else dawn
    dice = SeededDice(seed)
    spec = _spec(pin)
    cards = restore(roster, spec, dice) if exported else deal(roster, spec, fresh_state(spec, dice), dice)
    state = State(pin, roster.characters, roster.items, cards, clock, dawn)
    inputs = {"characters": shown_path(characters), "ruleset": ruleset and shown_path(ruleset), "adopt": adopt or {},
              "param_overrides": param_overrides or {}, "start": start}

    # start-up: the state as show gives it, only for the result of init
    from interpreter.campaign.views import show_state

    def fill(store: Store) -> dict[str, Any]:
        store.save(state)
        result = {"command": "init", "seed": dice.seed, "notes": [],
                  "changes": [{"holder": h, "out": [], "to": h, "in": list(c)}
                              for h, c in cards.holders if c],
                  "clock_minutes": clock, "clock": clock_text(clock), **show_state(state)}
        result["seq"] = store.journal("init", inputs, dice.seed, dice.values, result, None)
        return result
    result = Store.build(path, fill, force=force)
    return result


def exported_ruleset(roster: Roster, characters: str) -> str | None:
    """The ruleset an export was played with: None for the bundled one, else its directory (a
    relative path is read from the export's folder); refused (MPR029) when it is not there, never
    replaced by the bundled rules."""
    # start-up: os loads with the package
    import os

    name = roster.exported.ruleset if roster.exported is not None else None
    if name is None:
        return None
    where = name if os.path.isabs(name) else os.path.join(os.path.dirname(os.path.abspath(characters)), name)
    if os.path.isfile(os.path.join(where, "ruleset.yaml")):
        return where
    raise MprError(EXPORTED_RULESET_MISSING, roster.loc("campaign", "ruleset"), ruleset=name,
                   how=bilingual(HOW_EXPORTED_RULESET))


def _spec(pin: Pin) -> DeckSpec:
    deck = require(pin.rules, wired(pin.campaign, DECK, pin.manifest), DECK, pin.manifest)
    return DeckSpec.from_params(pin.rules[deck]["params"])


def _require_pc(state: State, pc: str) -> str:
    """The id of the character ``pc`` names (by id or by name)."""
    found = resolve(pc, state.characters, "PC")
    if found is None:
        known = [h.id for h in state.characters]
        raise MprError(UNKNOWN_PC, Location(path="PC"), pc=pc, hint=did_you_mean(pc, known),
                       known=", ".join(known))
    return found


def _require_holder(state: State, holder: str) -> str:
    """The id of the character or item ``holder`` names (by id or by name)."""
    found = resolve(holder, (*state.characters, *state.items), "HOLDER")
    if found is None:
        known = [h.id for h in (*state.characters, *state.items)]
        raise MprError(UNKNOWN_HOLDER, Location(path="HOLDER"), holder=holder,
                       hint=did_you_mean(holder, known), known=", ".join(known))
    return found


def sleep(store: Store, pc: str, hours: Any, *, seed: int | None = None) -> dict[str, Any]:
    """One character slept: the campaign's wired sleep rule for that character (the clock does not
    move: use rest or advance for time)."""
    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        who = _require_pc(out.state, pc)
        check_hours(hours, "hours")
        apply_sleep(out, who, hours, dice)
        return {"pc": who, "hours": hours}
    return _run(store, "sleep", {"pc": pc, "hours": hours}, seed, body)


def dawn(store: Store, *, seed: int | None = None) -> dict[str, Any]:
    """Advance the clock to the next dawn, which applies the dawn's rules once."""
    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        minutes = next_dawn(out.state)
        pass_time(out, minutes, dice)
        return {"minutes": minutes}
    return _run(store, "dawn", {}, seed, body)


def advance(store: Store, minutes: Any, *, seed: int | None = None) -> dict[str, Any]:
    """Advance the clock; every dawn crossed applies the dawn's rules once."""
    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        pass_time(out, check_minutes(minutes, "minutes"), dice)
        return {"minutes": minutes}
    return _run(store, "advance", {"minutes": minutes}, seed, body)


def rest(store: Store, tier: str, *, seed: int | None = None) -> dict[str, Any]:
    """Advance the clock by the wired package's duration and apply its effects (an effect
    whose type ``runs`` a slot runs it for every character), in time order with the dawns crossed.
    A package that runs rules for its effects or has constraints is run by the engine (its
    refusal refuses the rest); the others are read off the pin."""
    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        rule_id = _package(out.state, "rest", RESTS, tier)
        rule = out.state.pin.rules[rule_id]
        types = rule.get("effect_types") or {}
        params = rule["params"]
        effects = params.get("effects") or []
        if rule.get("constraints") or any("rule" in (types.get(e.get("effect")) or {}) for e in effects):
            done = _document_run(_pinned(store, out.state.pin), rule_id, {}, dice)
            params, effects = {**params, **done}, done["effects"]
        minutes = check_minutes(params.get("duration_minutes", 0), f"{rule_id}.duration_minutes")
        runs, elapsed = [], 0
        for i, effect in enumerate(effects):
            kind = types.get(effect.get("effect")) or {}
            field = f"{rule_id}.effects[{i}].{kind.get('amount')}"
            if not kind.get("runs"):
                out.note(NO_SUCH_EFFECT_SLOT, rule=rule_id, effect=effect.get("effect"))
                continue
            amount = effect.get(kind["amount"], 0)
            if "rule" in kind:
                out.note(EFFECT_RAN, rule=rule_id, effect=effect.get("effect"), target=kind["rule"],
                         field=kind["amount"], amount=amount)
                if amount == 0:
                    continue
            runs += [run_of(out.state, kind["runs"], pc.id, amount, elapsed, field)
                     for pc in out.state.characters]
            if isinstance(amount, (int, float)):
                elapsed += amount * kind.get("minutes_per_unit", 0)
        pass_time(out, minutes, dice, runs)
        return {"rule": rule_id, "minutes": minutes}
    return _run(store, "rest", {"tier": tier}, seed, body)


def _package(state: State, command: str, slot: str, tier: str) -> str:
    """The rule the wiring's ``slot`` gives the tier ``tier`` (its name, or its rule id)."""
    tiers = wired(state.pin.campaign, slot, state.pin.manifest)
    rule_id = tiers.get(tier) or (tier if tier in tiers.values() else None)
    if rule_id is None:
        names = list(tiers)
        raise MprError(UNKNOWN_TIER, Location(path="TIER"), package=command, tier=tier,
                       hint=did_you_mean(tier, names), known=", ".join(names) or "-")
    rule = state.pin.rules[require(state.pin.rules, rule_id, f"{slot}.{tier}", state.pin.manifest)]
    if not rule.get("adopted", True):
        raise _not_adopted(rule_id, rule)
    return rule_id


def _title(rule: dict[str, Any], rule_id: str) -> str:
    return localized(rule.get("title"), "ja") or rule_id


def circulate(store: Store, holder: str, *, take_all: bool = False, count: int | None = None,
              select: str | None = None, cards: list[str] | None = None,
              seed: int | None = None) -> dict[str, Any]:
    """The GM orders all or some of a holder's cards discarded and redrawn."""
    selection = select or ("gm" if cards else "random")

    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        who = _require_holder(out.state, holder)
        rule_id = wired_rule(out.state, SPECIAL)
        params = rule_params(out.state, rule_id)
        if params is None:
            rule = out.state.pin.rules.get(rule_id, {})
            raise _not_adopted(rule_id, rule)
        state = out.state
        result = ordered(state.cards, state.deck_spec(), who, dice, take_all=take_all,
                         count=count, selection=selection, cards=cards,
                         allowed=params.get("selection", ["random", "player", "gm"]),
                         rule_id=rule_id, keep=keep_of(state, rule_id, dice))
        note_unchanged(out, result, who, rule_id)
        given = {"holder": who, "all": take_all, "count": count, "selection": selection, "cards": cards}
        check_constraints(state, rule_id, {k: v for k, v in given.items() if v is not None}, result)
        out.absorb(result)
        return {"holder": who, "selection": "all" if take_all else selection}
    inputs = {"holder": holder, "all": take_all, "count": count, "select": selection, "cards": cards}
    return _run(store, "circulate", inputs, seed, body)


def _document_run(ruleset: Any, rule_id: str, inputs: dict[str, Any], dice: SeededDice,
                  lang: str = "en") -> Any:
    """The value of the pinned ruleset's rule ``rule_id`` run by the engine: the document's own
    logic, messages and ``constraints`` (a refusal of the rule rises as the engine's error). The
    input is the command's own, built from the campaign's checked data."""
    # start-up: the engine runs only for commands that run a document
    from interpreter.engine.runner import run as run_rule

    return run_rule(ruleset, rule_id, inputs, dice, lang=lang, check_input=False).value


def _pinned(store: Store, pin: Pin) -> Any:
    """The pinned ruleset (from the ruleset cache while none of its files changed)."""
    return load(pinned_path(pin, store.path), pin.adopt, pin.param_overrides)


def _verdicts(ruleset: Any, rule_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The package's verdict on a plan in Japanese and in English."""
    return {lang: _document_run(ruleset, rule_id, inputs, SeededDice(0), lang) for lang in LANGS}


def _new_reports(before: dict[str, Any], after: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The reports (``errors`` or ``notes``) of the verdict after a use that were not there
    before it, each with its message in both languages."""
    known = {(r["code"], r["path"], r["message"]) for r in before.get(key) or []}
    reports = zip(*(after[lang].get(key) or [] for lang in LANGS))  # the last is English, as before
    return [{**texts[-1], "message": {lang: text["message"] for lang, text in zip(LANGS, texts)}}
            for texts in reports
            if (texts[-1]["code"], texts[-1]["path"], texts[-1]["message"]) not in known]


def brief(store: Store, tier: str, pc: str, option: str, *, new: bool = False,
          seed: int | None = None) -> dict[str, Any]:
    """Record one use of an option by a character in the current briefing (the package the
    wiring gives the tier, as its first side). The package runs on the briefing's plan before
    and after the use (its allowance, counting, options, messages and constraints): a report
    the use brings is refused in the document's words, a note is shown. A new briefing starts
    with ``new``, or when the tier changes."""
    # start-up: the package kind's counting is only for briefings (1.7M instructions)
    from interpreter.kinds.package import MESSAGE_CODES, Side, allowance_of, counting_of, option_ids, uses_counted

    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        state = out.state
        rule_id = _package(state, "briefing", BRIEFINGS, tier)
        who = _require_pc(state, pc)
        rule = state.pin.rules[rule_id]
        params = rule["params"]
        if not (rule.get("plan") or {}).get("sides"):
            raise MprError(NOT_A_PLAN, Location(path="TIER"), rule=rule_id)
        options = option_ids(params.get("options") or [])
        if not options:
            out.note(OPTIONS_UNLISTED, rule=rule_id)
        number = state.briefing
        if new or number == 0 or state.briefing_tier != rule_id:
            number += 1
        uses: dict[str, list[str]] = {c.id: [] for c in state.characters}
        for b, _, by, chosen in state.briefing_uses:
            if b == number:
                uses.setdefault(by, []).append(chosen)
        side = Side.of(rule["plan"]["sides"][0])
        members = {side.members: list(uses)} if side.members else {}
        ruleset = _pinned(store, state.pin)
        before = _document_run(ruleset, rule_id, {side.plan: uses, **members}, SeededDice(0))
        after_uses = {**uses, who: [*uses.get(who, []), option]}
        after = _verdicts(ruleset, rule_id, {side.plan: after_uses, **members})
        errors = _new_reports(before, after, "errors")
        if errors:
            _refuse(errors[0], rule_id, options, MESSAGE_CODES)
        for note in _new_reports(before, after, "notes"):
            out.note(DOCUMENT_NOTE, rule=rule_id, given=note["code"], message=note["message"])
        env = {side.plan: uses, "params": params, **members}
        allowed = allowance_of(params.get("allowance"), env, rule_id)
        used = uses_counted(uses.setdefault(who, []), counting_of(params.get("counting"), rule_id), option)
        out.state = state.evolve(briefing=number, briefing_tier=rule_id,
                                 briefing_uses=state.briefing_uses + ((number, rule_id, who, option),))
        return {"rule": rule_id, "pc": who, "option": option, "briefing": number,
                "used": used + 1, "allowed": allowed}
    return _run(store, "brief", {"tier": tier, "pc": pc, "option": option, "new": new}, seed, body,
                random=False)


def _refuse(report: dict[str, Any], rule_id: str, options: list[str], codes: dict[str, str]) -> None:
    """Refuse a use with the first report it brings, in the document's words: past the allowance
    (MPR661), an option not listed (MPR660) or any other report, a constraint's (MPR782)."""
    where = Location(path="OPTION" if report["code"] == codes["unknown_option"] else "PC")
    if report["code"] in (codes["over_allowance"], codes["mirrored_over_allowance"]):
        raise MprError(OVER_ALLOWANCE, Location(path="PC"), message=report["message"], rule=rule_id)
    if report["code"] == codes["unknown_option"]:
        raise MprError(UNKNOWN_OPTION, where, message=report["message"],  # each language its list
                       **{f"known_{lang}": word(LIST_SEPARATOR, lang).join(options) for lang in LANGS})
    raise MprError(REFUSED_BY_DOCUMENT, where, message=report["message"], rule=rule_id,
                   given=report["code"])


def repin(store: Store) -> dict[str, Any]:
    """Pin the ruleset as it is on disk now (same path and switches); the deck must be unchanged."""
    def body(out: Outcome, dice: SeededDice) -> dict[str, Any]:
        old = out.state.pin
        new = pin_ruleset(pinned_path(old, store.path) or None, old.adopt, old.param_overrides)
        if new.content_hash == old.content_hash:
            out.note(REPIN_SAME)
            return {}
        before, after = _spec(old), _spec(new)
        if before != after:
            detail = f"{len(before.composition)} -> {len(after.composition)} cards, on_empty " \
                     f"{before.on_empty} -> {after.on_empty}"
            raise MprError(REPIN_DECK_CHANGED, Location(path=f"campaign.{DECK}"), detail=detail,
                           how=bilingual(HOW_RESTART))
        out.state = out.state.evolve(pin=new, dawn_minutes=dawn_of(new))
        out.note(REPINNED, path=new.path or "(bundled)", old=old.content_hash[:12],
                 new=new.content_hash[:12])
        return {}
    return _run(store, "repin", {}, None, body, check_ruleset=False, random=False)


def undo(store: Store) -> dict[str, Any]:
    """Restore the state before the last command not yet undone (repeat to go further back)."""
    with store.transaction():
        entry = store.last_undoable()
        if entry is None:
            raise MprError(NOTHING_TO_UNDO, Location(path="undo"))
        now = store.load()
        restored = store.state_before(entry)  # a state saved before pins kept the wiring gets it
        restored = restored.evolve(pin=with_manifest_wiring(restored.pin, store.path))
        store.save(restored)
        result: dict[str, Any] = {"command": "undo", "seed": None, "undone": {"seq": entry.seq, "command": entry.command},
                  "changes": _differences(now, restored),
                  "notes": [{"code": UNDONE, "args": {"seq": entry.seq, "command": entry.command}}],
                  "clock_minutes": restored.clock_minutes, "clock": clock_text(restored.clock_minutes)}
        result["seq"] = store.journal("undo", {"seq": entry.seq}, None, [], result, None)
        store.mark_undone(entry.seq, result["seq"])
    return result


def _differences(now: State, then: State) -> list[dict[str, Any]]:
    """Per holder, the cards that leave it and come back to it when ``now`` becomes ``then``."""
    changes = []
    for holder, cards in then.cards.holders:
        current = now.cards.held(holder) if holder in now.cards.holder_ids() else ()
        out = [c for c in current if c not in cards]
        back = [c for c in cards if c not in current]
        if out or back:
            changes.append({"holder": holder, "out": out, "to": holder, "in": back})
    return changes


