"""Combat actions (kind ``CombatAction``): an action declared just before one of the steps of an
attack its document lists, with a range in areas, a cost and effects, all from YAML: on a battle
state (``take_attack`` redirects the attack to the user, ``set_state`` changes the user's acted
state), or on one attack's damage (``damage`` replaces it by a formula, ``hp_floor`` keeps HP
from going below a floor)."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from rules_dsl.frozen import Record  # a dataclass without importing dataclasses (start-up)

from rules_dsl.functions import is_fraction
from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic, did_you_mean
from rules_dsl.words import LANGS, bilingual, define_word, localized, word

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.names import compiled
from interpreter.engine.registry import Kind
from interpreter.kinds._reasons import EXPECTED, reason

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

NOT_IN_BATTLE = define(
    "MPR720", "{role[en]} {name!r} is not a character of the battle (characters: {known}){hint}",
    "{role[ja]} {name!r} はバトルのキャラクターにいません（キャラクター: {known}）{hint}")
UNKNOWN_STEP = define(
    "MPR721", "{step!r} is not a step of an attack (steps: {known}){hint}",
    "{step!r} は攻撃の処理ステップにありません（ステップ: {known}）{hint}")
UNKNOWN_AREA = define(
    "MPR722", "{area!r} is not an area of the battle (areas: {known}){hint}",
    "{area!r} はバトルのエリアにありません（エリア: {known}）{hint}")
DUPLICATE_NAME = define(
    "MPR723", "{what[en]} {name!r} appears twice", "{what[ja]} {name!r} が二重に記載されています")
BAD_BATTLE = define(
    "MPR724", "{field} must be {expected[en]}; got {value!r}",
    "{field} は {expected[ja]} でなければなりません（値: {value!r}）")
NEGATIVE_DAMAGE = define(
    "MPR725", "damage must be 0 or more; got {value}", "ダメージは 0 以上でなければなりません（値: {value}）")
WRONG_STEP = define(
    "MPR726", "{action} is declared just before {expected}, but the attack is at {step}",
    "{action} は「{expected}」の直前に宣言するものですが、攻撃は「{step}」の段階です")
BAD_DAMAGE_VALUE = define(
    "MPR777", "{rule}: the damage formula {formula} gives {value!r}, not a whole number of 0 or more",
    "{rule}: ダメージの式 {formula} の値 {value!r} は 0 以上の整数ではありません")
BAD_FLOOR = define(
    "MPR778", "{rule}: {param} must be a whole number or null (no floor); got {value!r}",
    "{rule}: {param} は整数か null（下限なし）でなければなりません（値: {value!r}）")
EFFECT_PARAM_MISSING = define(
    "MPR779", "{rule}: effect {effect} reads parameter {param!r}, which the rule does not have{hint}",
    "{rule}: 効果 {effect} が参照するパラメータ {param!r} はこのルールにありません{hint}")
OUT_OF_RANGE = define(
    "MPR727", "{where[en]}; {action} reaches {range} area(s)",
    "{where[ja]}。{action} は {range}エリア以内のキャラクターにしか使えません")
SELF_TARGET = define(
    "MPR728", "{user} is the attacked character itself: {action} takes the attack in another's place",
    "{user} は攻撃の対象本人です。{action} は他のキャラクターの代わりに攻撃を受けるものです")
UNDECLARED_STEP = define(
    "MPR729", "{rule}: declared_before names {step!r}, which is not one of its steps ({known})",
    "{rule}: declared_before の {step!r} は、定義されたステップ（{known}）にありません")
SEPARATOR = define_word("combat_action.separator", " or ", "」か「")
UNSTATED = define_word(
    "combat_action.unstated", "no effect of the rule applies to the user's state: it is left unchanged; the GM decides",
    "使用者のこの状態に当てはまる効果がルールにないため、状態は変更していません。GMが判断してください")
DISTANCE = define_word("combat_action.distance", "{user} is {n} area(s) from {target}",
                       "{user} から {target} までは {n}エリアです")
UNREACHABLE = define_word("combat_action.unreachable", "{user} and {target} are in areas that are not connected",
                          "{user} と {target} のエリアはつながっていません")
WHAT = {"area": define_word("combat_action.area", "area", "エリア"),
        "character": define_word("combat_action.character", "character", "キャラクター")}
ROLES = {"user": define_word("combat_action.user", "the user", "使用者"),
         "attacker": define_word("combat_action.attacker", "the attacker", "攻撃者"),
         "target": define_word("combat_action.target", "the target", "攻撃の対象")}
CHARACTER_FIELDS = {"id": str, "area": str, "hp": int, "acted": bool, "turn_started": bool}
TYPE_WORDS = {str: "name", int: "integer", bool: "boolean"}


class Battle(Record, frozen=True):
    """A checked battle state: areas with their adjacency, characters by id, the attack underway."""

    round: int
    areas: tuple[str, ...]
    adjacent: tuple[tuple[str, str], ...] | None  # None: every area is next to every other
    characters: dict[str, dict[str, Any]]
    attacker: str
    target: str
    step: str

    def distance(self, a: str, b: str) -> int | None:
        """Areas between the areas of characters ``a`` and ``b``; ``None`` if not connected."""
        return area_distance(self.areas, self.adjacent, self.characters[a]["area"],
                             self.characters[b]["area"])


def area_distance(areas: tuple[str, ...] | list[str], adjacent: Any, start: str, goal: str) -> int | None:
    """The shortest path in areas from ``start`` to ``goal``. Without ``adjacent`` (``None``) the
    areas form a line in list order; ``None`` is returned when the two are not connected."""
    if adjacent is None:
        adjacent = list(zip(areas, areas[1:]))
    links: dict[str, set[str]] = {area: set() for area in areas}
    for a, b in adjacent:
        links[a].add(b)
        links[b].add(a)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return seen[here]
        for there in links[here]:
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return None


def _bad(field: str, expected: str, value: Any) -> MprError:
    return MprError(BAD_BATTLE, Location(path=field), field=field, expected=EXPECTED[expected],
                    value=value)


def _is(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _step_ids(steps: list[Mapping[str, Any]]) -> list[str]:
    return [str(step["id"]) for step in steps]


def check_step(step: Any, steps: list[Mapping[str, Any]], field: str = "attack.step") -> str:
    """``step`` if it names a step of ``steps``, else an error naming the known ones."""
    ids = _step_ids(steps)
    if step not in ids:
        raise MprError(UNKNOWN_STEP, Location(path=field), step=step, known=", ".join(ids),
                       hint=did_you_mean(step, ids))
    return step


def _character_id(value: Any, role: str, characters: Mapping[str, Any], field: str) -> str:
    if not isinstance(value, str) or value not in characters:
        known = list(characters)
        raise MprError(NOT_IN_BATTLE, Location(path=field), role=bilingual(ROLES[role]), name=value,
                       known=", ".join(known) or "-", hint=did_you_mean(value, known))
    return value


def parse_battle(state: Mapping[str, Any], steps: list[Mapping[str, Any]]) -> Battle:
    """Check a battle state (the contract shape) and return it as a ``Battle``; bad input is an error."""
    round_ = state.get("round", 1)
    if not _is(round_, int) or round_ < 0:
        raise _bad("round", "round", round_)
    areas = state.get("areas")
    if not isinstance(areas, list) or not areas or not all(_is(a, str) for a in areas):
        raise _bad("areas", "areas", areas)
    known_areas: set[str] = set()
    for area in areas:
        if area in known_areas:
            raise MprError(DUPLICATE_NAME, Location(path="areas"), what=bilingual(WHAT["area"]), name=area)
        known_areas.add(area)
    adjacent = state.get("adjacent")
    if adjacent is not None:
        if not isinstance(adjacent, list):
            raise _bad("adjacent", "adjacent", adjacent)
        for i, pair in enumerate(adjacent):
            if not isinstance(pair, list) or len(pair) != 2:
                raise _bad(f"adjacent[{i}]", "pair", pair)
            for j, area in enumerate(pair):
                _known_area(area, known_areas, areas, f"adjacent[{i}][{j}]")
        adjacent = tuple((a, b) for a, b in adjacent)
    characters: dict[str, dict[str, Any]] = {}
    listed = state.get("characters")
    if not isinstance(listed, list):
        raise _bad("characters", "characters", listed)
    for i, character in enumerate(listed):
        if not isinstance(character, Mapping):
            raise _bad(f"characters[{i}]", "character", character)
        for name, kind in CHARACTER_FIELDS.items():
            if not _is(character.get(name), kind):
                raise _bad(f"characters[{i}].{name}", TYPE_WORDS[kind], character.get(name))
        if character["id"] in characters:
            raise MprError(DUPLICATE_NAME, Location(path=f"characters[{i}].id"), what=bilingual(WHAT["character"]),
                           name=character["id"])
        _known_area(character["area"], known_areas, areas, f"characters[{i}].area")
        characters[character["id"]] = dict(character)
    attack = state.get("attack")
    if not isinstance(attack, Mapping):
        raise _bad("attack", "attack", attack)
    attacker = _character_id(attack.get("attacker"), "attacker", characters, "attack.attacker")
    target = _character_id(attack.get("target"), "target", characters, "attack.target")
    step = check_step(attack.get("step"), steps)
    return Battle(round_, tuple(areas), adjacent, characters, attacker, target, step)


def _known_area(area: Any, known: set[str], areas: list[str], field: str) -> None:
    if not isinstance(area, str) or area not in known:
        raise MprError(UNKNOWN_AREA, Location(path=field), area=area, known=", ".join(areas),
                       hint=did_you_mean(area, areas))


def _matches(state: Mapping[str, Any], when: Mapping[str, Any] | None) -> bool:
    return all(state.get(key, False) == value for key, value in (when or {}).items())


def state_effects(effects: list[Mapping[str, Any]], before: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``set_state`` effects whose ``when`` holds for a character's state before the action."""
    return [e for e in effects if e.get("effect") == "set_state" and _matches(before, e.get("when"))]


def declared_steps(value: Any) -> list[str]:
    """The steps an action may be declared just before: one step id, or a list of them."""
    return [value] if isinstance(value, str) else list(value or [])


def resolve_in_battle(state: Mapping[str, Any], *, user: Any, declared_before: Any, range_areas: int,
                      steps: list[Mapping[str, Any]], effects: list[Mapping[str, Any]],
                      action: str, lang: str = "en") -> dict[str, Any]:
    """Declare an action by ``user`` against the attack underway.

    Legal when the attack is just before one of the ``declared_before`` steps, the attacked
    character is within ``range_areas`` of the user and is not the user. ``take_attack`` makes the
    user receive the attack instead of the target; each ``set_state`` effect whose ``when`` holds
    for the user's state *before* the action sets fields of ``user_after``.
    Returns ``{legal, target_after, user_after: {acted, stays_acted_next_round}, errors}``.
    """
    battle = parse_battle(state, steps)
    user = _character_id(user, "user", battle.characters, "user")
    timings = declared_steps(declared_before)
    for timing in timings:
        check_step(timing, steps, "declared_before")
    labels = {str(s["id"]): localized(s, lang) or str(s["id"]) for s in steps}
    errors = []
    if battle.step not in timings:
        errors.append(reason(WRONG_STEP, "attack.step", lang, action=action,
                             expected=word(SEPARATOR, lang).join(labels[t] for t in timings),
                             step=labels[battle.step]))
    if user == battle.target:
        errors.append(reason(SELF_TARGET, "user", lang, user=user, action=action))
    distance = battle.distance(user, battle.target)
    if distance is None or distance > range_areas:
        phrase = UNREACHABLE if distance is None else DISTANCE
        where = {k: word(phrase, k).format(user=user, target=battle.target, n=distance) for k in LANGS}
        errors.append(reason(OUT_OF_RANGE, "user", lang, where=where, action=action,
                             range=range_areas))
    before = battle.characters[user]
    target_after = dict(battle.characters[battle.target], receives_attack=True)
    user_after = {"acted": before["acted"],
                  "stays_acted_next_round": bool(before.get("stays_acted_next_round", False))}
    if not errors:
        for effect in effects:
            if effect.get("effect") == "take_attack":
                target_after["receives_attack"] = False
        for effect in state_effects(effects, before):
            user_after.update(effect.get("set") or {})
    return {"legal": not errors, "target_after": target_after, "user_after": user_after,
            "errors": errors}


class DamageEffect(Record, frozen=True):
    """One effect on an attack's damage: ``damage`` (its value is a formula over the input) or
    ``hp_floor`` (its value is the floor, ``None`` for none), read from the parameter ``param``."""

    effect: str
    param: str
    value: Any


def resolve_damage(target_hp: Any, damage: Any, declared: Any, *, effects: list[DamageEffect],
                   action_cost: int, declared_by: str, rule_id: str = "",
                   env: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The target's HP after an attack's damage. When the action was declared, its effects apply
    in order: ``damage`` replaces the damage by its formula's value (evaluated with the input and
    ``params`` in ``env``); ``hp_floor`` keeps this attack's damage from bringing HP below the
    floor (HP already below it stays where it is)."""
    if not _is(target_hp, int):
        raise _bad("target_hp", "integer", target_hp)
    if not _is(damage, int):
        raise _bad("damage", "integer", damage)
    if damage < 0:
        raise MprError(NEGATIVE_DAMAGE, Location(path="damage"), value=damage)
    if not _is(declared, bool):
        raise _bad(declared_by, "boolean", declared)
    floor = None
    if declared:
        for effect in effects:
            if effect.effect == "damage":
                damage = _whole(effect.value.evaluate({**(env or {}), "damage": damage,
                                                       "target_hp": target_hp}),
                                rule_id, effect.value.text)
            elif effect.effect == "hp_floor":
                floor = effect.value
    hp_after = target_hp - damage
    if floor is not None and hp_after < floor:
        hp_after = min(target_hp, floor)
    return {"hp_after": hp_after, "action_cost": action_cost}


def _whole(value: Any, rule_id: str, formula: str) -> int:
    if is_fraction(value) and value.denominator == 1:
        value = int(value)
    if not _is(value, int) or value < 0:
        raise MprError(BAD_DAMAGE_VALUE, Location(path=f"{rule_id}.damage"), rule=rule_id,
                       formula=formula, value=value)
    return value


def damage_effects(rule: Rule, ctx: Context) -> list[DamageEffect]:
    """The rule's damage effects with their parameters' values (a formula compiled)."""
    out = []
    for effect in rule.doc.get("effects") or []:
        name, param = effect.get("effect"), effect.get("param")
        if name == "damage":
            ctx.param(rule, param)
            out.append(DamageEffect(name, param, compiled(rule, ("params", param))))
        elif name == "hp_floor":
            value = ctx.param(rule, param)
            if value is not None and not _is(value, int):
                raise MprError(BAD_FLOOR, rule.loc("params", param), rule=rule.id, param=param,
                               value=value)
            out.append(DamageEffect(name, param, value))
    return out


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The engine's entry: resolve the action on a battle state, or on an attack's damage."""
    steps = ctx.param(rule, "steps")
    declared_before = ctx.param(rule, "declared_before")
    effects = rule.doc.get("effects") or []
    if rule.doc.get("applies_to") == "damage":
        declared_by = rule.doc["declared_by"]
        return resolve_damage(inputs.get("target_hp"), inputs.get("damage"), inputs.get(declared_by),
                              effects=damage_effects(rule, ctx),
                              action_cost=ctx.param(rule, "action_cost"), declared_by=declared_by,
                              rule_id=rule.id, env={**inputs, "params": rule.params})
    if "action_type" in rule.params:
        ctx.param(rule, "action_type")
    verdict = resolve_in_battle(inputs, user=inputs.get("user"), declared_before=declared_before,
                                range_areas=ctx.param(rule, "range_areas"), steps=steps,
                                effects=effects, action=rule.title(ctx.lang), lang=ctx.lang)
    ctx.trace.add("note", "legal", verdict["legal"], step=(inputs.get("attack") or {}).get("step"))
    before = next(c for c in inputs["characters"] if c["id"] == inputs["user"])
    if verdict["legal"] and not state_effects(effects, before):
        ctx.trace.add("unresolved", word(UNSTATED, ctx.lang), verdict["user_after"],
                      acted=before["acted"], turn_started=before["turn_started"])
    return verdict


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Semantic findings: every declared step is one of the action's steps; every effect's
    parameter exists."""
    steps = rule.params.get("steps") or []
    ids = [str(s.get("id")) for s in steps if isinstance(s, Mapping)]
    value = rule.params.get("declared_before")
    for i, step in enumerate(declared_steps(value)):
        if step not in ids:
            where = ("params", "declared_before") if isinstance(value, str) else ("params", "declared_before", i)
            yield diagnostic(UNDECLARED_STEP, rule.loc(*where), lang, rule=rule.id, step=step,
                             known=", ".join(ids))
    for i, effect in enumerate(rule.doc.get("effects") or []):
        param = effect.get("param") if isinstance(effect, Mapping) else None
        if param is not None and param not in rule.params:
            yield diagnostic(EFFECT_PARAM_MISSING, rule.loc("effects", i, "param"), lang,
                             rule=rule.id, effect=effect.get("effect"), param=param,
                             hint=did_you_mean(param, rule.params))
        elif param is not None and effect.get("effect") == "hp_floor":
            floor = rule.params[param]
            if floor is not None and not _is(floor, int):
                yield diagnostic(BAD_FLOOR, rule.loc("params", param), lang, rule=rule.id,
                                 param=param, value=floor)


KIND = Kind("CombatAction", run, check=check)
