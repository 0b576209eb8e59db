"""Pinning a campaign to its ruleset: the path, content hash, the caller's adoption switches and
parameter overrides, and a copy of the parameters of the rules a campaign runs (deck, circulation,
packages), so that a ruleset changed on disk is noticed and re-pinned on purpose."""
from __future__ import annotations

import os

from rules_dsl.errors import Location, MprError, define
from rules_dsl.frozen import replace
from rules_dsl.words import bilingual, define_word

from interpreter.solvers.cards import DeckSpec
from interpreter.campaign.state import Pin

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

RULESET_CHANGED = define(
    "MPR632", "the ruleset of this campaign changed on disk ({path}: pinned {pinned}, now {now}); "
              "nothing was changed. {how[en]}",
    "このキャンペーンのルールセットがディスク上で変更されています（{path}: 固定時 {pinned}、現在 {now}）。"
    "何も変更していません。{how[ja]}")
HOW_REPIN = define_word(
    "campaign.how.repin", "Re-pin it (keeps the cards; the deck's composition must be the same) or start "
    "over with a new campaign file", "固定し直すか（カードはそのまま。山札の構成は同じである必要があります）、"
    "新しいキャンペーンファイルでやり直してください")
RULESET_UNUSABLE = define(
    "MPR628", "the ruleset of this campaign ({path}) cannot be loaded now: {detail}; nothing was changed. "
              "Fix it, or re-pin with `mprules campaign repin {file}` once it loads",
    "このキャンペーンのルールセット（{path}）を読み込めません: {detail}。何も変更していません。"
    "修正するか、読み込めるようになってから `mprules campaign repin {file}` で固定し直してください")
BAD_TIME = define(
    "MPR639", "{field} must be a time of day HH:MM (00:00-23:59), not {value!r}",
    "{field} には時刻 HH:MM（00:00〜23:59）を指定してください（指定値: {value!r}）")

CAMPAIGN_KINDS = ("Deck", "Circulation", "Package")
DAY_MINUTES = 24 * 60


def load(path: str, adopt: dict[str, bool], param_overrides: dict[str, dict]) -> Any:
    """The ruleset at ``path`` ("" is the bundled one) with the campaign's switches (from the
    ruleset cache while none of its files changed)."""
    # start-up: interpreter.checks.loading loads only when load() runs
    from interpreter.checks.loading import load_ruleset

    return load_ruleset(path or None, param_overrides=param_overrides or None, adopt=adopt or None)


def pin_ruleset(path: str | None, adopt: dict[str, bool] | None = None,
                param_overrides: dict[str, dict] | None = None) -> Pin:
    """Load the ruleset (``None``: the bundled one) and pin what a campaign needs of it."""
    # start-up: the manifest's wiring is read only when a ruleset is pinned (init, repin)
    from interpreter.ruleset.wiring import require, resolved, wired, wired_ids

    # start-up: SQLite (beside the path checks of the campaign file) loads only when a ruleset is pinned
    from interpreter.campaign.files import utf8_path

    adopt, param_overrides = dict(adopt or {}), dict(param_overrides or {})
    path = utf8_path(os.path.abspath(path), "ruleset") if path else None  # the same one from anywhere
    ruleset = load(path or "", adopt, param_overrides)
    wiring = resolved(ruleset)
    manifest = _manifest(ruleset)
    deck_id = wired(wiring, "deck", manifest)
    needed = wired_ids(wiring)
    rules = {rule.id: _pinned_rule(rule) for rule in ruleset.rules.values()
             if rule.kind in CAMPAIGN_KINDS or rule.id in needed}
    require(rules, deck_id, "deck", manifest)
    DeckSpec.from_params(rules[deck_id]["params"], Location(path=f"{deck_id}.params"))
    return Pin(path or "", ruleset.content_hash, adopt, param_overrides, rules,
               dict(ruleset.parameters), wiring, manifest)


def with_manifest_wiring(pin: Pin, file: str) -> Pin:
    """A pin that holds no campaign wiring (made before campaigns kept the manifest's
    ``campaign:`` section) gets the wiring of its pinned ruleset's manifest, with the rules it
    names, as ``init`` would pin them. When the ruleset cannot be loaded, the one pinned rule of
    the kind the ``deck`` slot needs stands for the deck (the file can be read, logged, exported
    and undone; the commands that run rules refuse with MPR628 as for any campaign)."""
    if pin.campaign:
        return pin
    # start-up: only a campaign pinned before campaigns kept the wiring reads the manifest's
    from interpreter.ruleset.wiring import resolved, slot_kinds, wired_ids

    try:
        ruleset = load(pinned_path(pin, file), pin.adopt, pin.param_overrides)
    except MprError:
        kind = slot_kinds()["deck"][0]
        decks = [rule_id for rule_id, rule in pin.rules.items() if rule.get("kind") == kind]
        return replace(pin, campaign={"deck": decks[0]}) if len(decks) == 1 else pin
    wiring = resolved(ruleset)
    rules = dict(pin.rules)
    for rule_id in wired_ids(wiring) - set(rules):
        if rule_id in ruleset.rules:
            rules[rule_id] = _pinned_rule(ruleset.rules[rule_id])
    return replace(pin, rules=rules, campaign=wiring, manifest=_manifest(ruleset))


def _manifest(ruleset: Any) -> str:
    return os.path.join(ruleset.root, "ruleset.yaml") if ruleset.manifest else ruleset.root


def _pinned_rule(rule: Any) -> dict[str, Any]:
    """What a campaign keeps of a rule it runs."""
    # start-up: copies are made only when a ruleset is pinned (init, repin)
    import copy

    return {"kind": rule.kind, "adopted": rule.adopted, "params": copy.deepcopy(rule.params),
            "title": rule.doc.get("title"), "circulation": rule.doc.get("circulation"),
            "deck": rule.doc.get("deck"), "threshold": rule.doc.get("threshold"),
            "keep": rule.doc.get("keep"), "constraints": copy.deepcopy(rule.doc.get("constraints")),
            "plan": copy.deepcopy(rule.doc.get("plan")),
            "effect_types": copy.deepcopy(rule.doc.get("effect_types"))}


def pinned_path(pin: Pin, file: str) -> str:
    """Where the pinned ruleset is: an absolute path as stored ("" is the bundled one); a relative
    one (pinned by an older mprules) is taken relative to the campaign file, never to the
    directory a command happens to run in."""
    if not pin.path or os.path.isabs(pin.path):
        return pin.path
    return os.path.join(os.path.dirname(os.path.abspath(file)), pin.path)


def check_pin(pin: Pin, file: str) -> None:
    """Refuse to go on when the pinned ruleset's content changed on disk (or cannot be loaded).
    While its cache entry is true, the entry's header tells the content hash: no ruleset is loaded."""
    # start-up: interpreter.ruleset loads only when check_pin() runs
    from interpreter.ruleset import cache

    path = pinned_path(pin, file)
    known = cache.content_hash(path or None, pin.param_overrides or None, pin.adopt or None)
    try:
        now = known or load(path, pin.adopt, pin.param_overrides).content_hash
    except MprError as error:
        raise MprError(RULESET_UNUSABLE, Location(path=pin.path or "ruleset"),
                       path=pin.path or "(bundled)", detail=str(error), file=file) from None
    if now != pin.content_hash:
        raise MprError(RULESET_CHANGED, Location(path=pin.path or "ruleset"), path=pin.path or "(bundled)",
                       how=bilingual(HOW_REPIN),
                       pinned=pin.content_hash[:12], now=now[:12], file=file)


def minutes_of_day(value: Any, field: str) -> int:
    """``"06:00"`` -> 360 (YAML 1.1 may already have read an unquoted 06:00 as 360)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < DAY_MINUTES:
        return value
    text = str(value)
    hours, sep, minutes = text.partition(":")
    if sep and hours.isdigit() and minutes.isdigit() and len(minutes) == 2:
        total = int(hours) * 60 + int(minutes)
        if int(hours) < 24 and int(minutes) < 60:
            return total
    raise MprError(BAD_TIME, Location(path=field), field=field, value=value)


def dawn_of(pin: Pin) -> int:
    clock = (pin.parameters or {}).get("clock") or {}
    return minutes_of_day(clock.get("dawn", "06:00"), "clock.dawn")


def clock_text(minutes: int) -> str:
    """``day 1 06:00`` for minute 360 of the campaign."""
    day, rest = divmod(minutes, DAY_MINUTES)
    return f"day {day + 1} {rest // 60:02d}:{rest % 60:02d}"


def dawns_between(start: int, end: int, dawn: int) -> list[int]:
    """Every dawn in the time after ``start`` up to and including ``end``."""
    first = start + (dawn - start - 1) % DAY_MINUTES + 1
    return list(range(first, end + 1, DAY_MINUTES))
