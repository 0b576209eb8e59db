"""The kind ``Leisure``: each cohabitant rolls a leisure roll table in the order listed, and a shared
event already obtained in this leisure is moved to a different result (RULES.md R16); its
``distribution`` is exact for a whole leisure of N residents, the dedup policy included."""
from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rules_dsl.errors import Location, MprError, define, diagnostic, did_you_mean, render
from rules_dsl.limits import MAX_LEISURE_TABLE_SPAN, MAX_RESIDENTS

from ..expression_names import compiled
from ..trace import ProbRow, ProbTable, fraction_text
from . import Kind
from ._reasons import text as localized
from ._amounts import NO_MEMBERS, check_members, per_member, whole
from .leisure_dedup import (TOO_MANY_STATES, UNRESOLVED, Event, LeisureTable, Policy, Resolution,
                            leisure_distribution, obtained_after, resolve_roll)
from .roll_table import roll_distribution, row_for, table_range

UNKNOWN_TABLE = define(
    "MPR542", "table {name!r} is not one of the leisure tables of {rule} ({known}){hint}",
    "表 {name!r} は {rule} の余暇イベント表（{known}）にありません{hint}")
ROLL_NOT_RESIDENT = define(
    "MPR543", "rolls give a roll for {pc!r}, who is not a resident ({residents})",
    "rolls に同居者でない {pc!r} の出目があります（同居者: {residents}）")
BAD_LEISURE_PARAM = define(
    "MPR544", "parameter {name} of {rule} must be {expected}, got {value!r}",
    "{rule} のパラメータ {name} は {expected} でなければなりません（値: {value!r}）")
UNRESOLVED_NOTE = define(
    "MPR545", "{pc}: roll {roll} repeats a shared event and no lower roll gives a different result; the GM decides (options: {options})",
    "{pc}: 出目 {roll} は既に出た全員に影響するイベントで、低い出目にも別の結果がありません。ＧＭが決めてください（候補: {options}）",
    severity="info")
NO_SHARED_ROWS = define(
    "MPR546", "table {table} has no row tagged {tag!r}: {rule} will never move a roll of it",
    "表 {table} にはタグ {tag!r} の行がありません。{rule} はこの表の出目を増減しません",
    severity="warning")

TIES = ("lower", "higher")
_TITLES = {
    "en": {"sets": "the set of shared events", "each": "chance of each shared event",
           "mean": "mean = the expected number of shared events", "how": "how the roll was resolved"},
    "ja": {"sets": "全員に影響を及ぼすイベントの組み合わせ", "each": "各イベントが起きる確率",
           "mean": "平均 = 全員に影響を及ぼすイベントの期待個数", "how": "出目の扱い"},
}
_LABELS = {"en": {None: "individual event", UNRESOLVED: "unresolved (the GM decides)"},
           "ja": {None: "個別のイベント", UNRESOLVED: "未解決（ＧＭが決める）"}}


def _table_rule(rule: Any, name: Any, ctx: Any) -> Any:
    tables = ctx.param(rule, "tables")
    if not isinstance(name, str) or name not in tables:
        raise MprError(UNKNOWN_TABLE, Location(path="table"), name=name, rule=rule.id,
                       known=", ".join(tables), hint=did_you_mean(name, tables))
    return ctx.ruleset.rule(tables[name])


def leisure_table(table_rule: Any, shared_tag: str) -> LeisureTable:
    """The events of every roll in the roll table's range; rows tagged ``shared_tag`` are shared."""
    lo, hi = table_range(table_rule)
    if hi - lo + 1 > MAX_LEISURE_TABLE_SPAN:
        raise MprError(TOO_MANY_STATES, table_rule.loc("range"), limit=MAX_LEISURE_TABLE_SPAN,
                       what="table rolls")
    events = []
    for roll in range(lo, hi + 1):
        row = row_for(table_rule, roll)
        events.append(None if row is None else
                      Event(row.get("id"), shared_tag in (row.get("tags") or []), row.get("text")))
    return LeisureTable(table_rule.id, lo, hi, tuple(events))


def policy_of(rule: Any, inputs: dict[str, Any], ctx: Any) -> Policy:
    """The 治安 window (the ``window`` expression of the inputs, taken as ±) and the tie-break."""
    ctx.param(rule, "window")
    safety = whole(inputs.get("safety"), "safety")
    window = compiled(rule, ("params", "window")).evaluate({"safety": safety, "params": rule.params},
                                                        ctx.dice)
    if isinstance(window, bool) or not isinstance(window, int):
        raise MprError(BAD_LEISURE_PARAM, rule.loc("params", "window"), name="window", rule=rule.id,
                       expected="an expression giving a whole number", value=window)
    ctx.trace.add("expr", "window", abs(window), expr=str(rule.params["window"]))
    tie = ctx.param(rule, "tie")
    if tie not in TIES:
        raise MprError(BAD_LEISURE_PARAM, rule.loc("params", "tie"), name="tie", rule=rule.id,
                       expected="'lower' or 'higher'", value=tie)
    return Policy(abs(window), tie)


def residents_of(inputs: dict[str, Any]) -> list[str]:
    """The residents listed, or ``PC1..PCn`` when ``residents`` is a number."""
    residents = inputs.get("residents")
    if isinstance(residents, int) and not isinstance(residents, bool):
        if not 1 <= residents <= MAX_RESIDENTS:
            raise MprError(NO_MEMBERS, Location(path="residents"), field="residents",
                           limit=MAX_RESIDENTS)
        residents = [f"PC{i}" for i in range(1, residents + 1)]
    return check_members(residents, "residents")


def _event_json(event: Event | None, lang: str) -> dict[str, Any]:
    if event is None:
        return {"event": None, "text": None, "shared": False}
    return {"event": event.id, "text": localized(event.text, lang) or None, "shared": event.shared}


def _result_json(pc: str, resolution: Resolution, lang: str) -> dict[str, Any]:
    out = {"pc": pc, "rolled": resolution.rolled, "final_roll": resolution.final_roll,
           **_event_json(resolution.event, lang), "how": resolution.how}
    if resolution.how == UNRESOLVED:
        out["options"] = [{"roll": r, **_event_json(e, lang)} for r, e in resolution.options]
    return out


def run(rule: Any, inputs: dict[str, Any], ctx: Any) -> dict[str, Any]:
    table_rule = _table_rule(rule, inputs.get("table"), ctx)
    table = leisure_table(table_rule, ctx.param(rule, "shared_tag"))
    policy = policy_of(rule, inputs, ctx)
    residents = residents_of(inputs)
    given = per_member(inputs.get("rolls") or {}, "rolls")
    for pc in given:
        if pc not in residents:
            raise MprError(ROLL_NOT_RESIDENT, Location(path=f"rolls.{pc}"), pc=pc,
                           residents=", ".join(residents))
    obtained: frozenset[str] = frozenset()
    results, order = [], []
    for pc in residents:
        if pc in given:
            roll = whole(given[pc], f"rolls.{pc}")
            ctx.trace.add("input", f"roll of {pc}", roll)
        else:
            mark = ctx.dice.mark()
            roll = compiled(table_rule, ("params", "roll")).evaluate({"params": table_rule.params},
                                                                     ctx.dice)
            ctx.trace.add("dice", f"roll of {pc}", roll,
                          dice=[d.value for d in ctx.dice.since(mark)])
        try:
            resolution = resolve_roll(table, roll, obtained, policy, pc)
        except MprError as error:
            raise error.at(Location(path=f"rolls.{pc}") if pc in given
                           else table_rule.loc("params", "roll"))
        after = obtained_after(obtained, resolution)
        if after != obtained:
            order.append(resolution.event.id)  # type: ignore[union-attr]
        obtained = after
        result = _result_json(pc, resolution, ctx.lang)
        if resolution.how == UNRESOLVED:
            options = ", ".join(f"{o['roll']}:{o['event'] or '-'}" for o in result["options"]) or "-"
            message = render(UNRESOLVED_NOTE, {"pc": pc, "roll": roll, "options": options}, ctx.lang)
            ctx.trace.add("unresolved", message, None, code=UNRESOLVED_NOTE)
        else:
            ctx.trace.add("row", f"{pc}: {resolution.how}", resolution.event.id if resolution.event else None,
                          rolled=roll, final_roll=resolution.final_roll)
        results.append(result)
    return {"results": results, "shared_events": order}


def distribution(rule: Any, inputs: dict[str, Any], ctx: Any) -> list[ProbTable]:
    """Exact: the set of shared events of the whole leisure, each shared event's chance, and each
    resident's event and how its roll was resolved."""
    table_rule = _table_rule(rule, inputs.get("table"), ctx)
    table = leisure_table(table_rule, ctx.param(rule, "shared_tag"))
    policy = policy_of(rule, inputs, ctx)
    residents = residents_of(inputs)
    exact = leisure_distribution(table, roll_distribution(table_rule), len(residents), policy)
    lang = ctx.lang
    texts = {e.id: localized(e.text, lang) or e.id for e in table.events
             if e is not None and e.id is not None}
    head = f"{rule.title(lang)} ({table_rule.id}, {len(residents)}, ±{policy.window})"
    sets = [ProbRow(list(s), p) for s, p in
            sorted(exact.shared_sets.items(), key=lambda sp: (-sp[1], sp[0]))]
    count = sum((len(s) * p for s, p in exact.shared_sets.items()), Fraction(0))
    words = _TITLES["ja" if lang == "ja" else "en"]
    tables = [ProbTable(f"{head}: {words['sets']}", sets, count, note=words["mean"]),
              ProbTable(f"{head}: {words['each']}",
                        [ProbRow(e, exact.event_probability(e), texts.get(e, e))
                         for e in table.shared_ids()])]
    names = _LABELS["ja" if lang == "ja" else "en"]
    for pc, events, hows in zip(residents, exact.per_resident, exact.per_resident_how):
        rows = [ProbRow(v, p, texts.get(v) or names.get(v))
                for v, p in sorted(events.items(), key=lambda vp: (-vp[1], str(vp[0])))]
        how_note = ", ".join(f"{h} {fraction_text(p)}" for h, p in hows.items())
        tables.append(ProbTable(f"{head}: {pc}", rows, note=f"{words['how']}: {how_note}"))
    return tables


def check(rule: Any, ruleset: Any, lang: str = "en") -> Iterator[Any]:
    """Semantic checks: the tables named are roll tables with rows tagged ``shared_tag`` (a missing
    rule is reported through the schema's ``x-rule-ref``), and ``tie`` is a known tie-break."""
    tables = rule.params.get("tables")
    if not isinstance(tables, dict) or not tables:
        yield diagnostic(BAD_LEISURE_PARAM, rule.loc("params", "tables"), lang, name="tables",
                         rule=rule.id, expected="a mapping of table names to roll table ids",
                         value=tables)
    else:
        for name, rule_id in tables.items():
            target = ruleset.rules.get(rule_id)
            if target is not None and target.kind != "RollTable":
                yield diagnostic(BAD_LEISURE_PARAM, rule.loc("params", "tables", name), lang,
                                 name=f"tables.{name}", rule=rule.id,
                                 expected="the id of a RollTable of the ruleset", value=rule_id)
            elif target is not None and not any(
                    tag in (row.get("tags") or []) for row in target.doc.get("rows") or []
                    for tag in [rule.params.get("shared_tag")]):
                yield diagnostic(NO_SHARED_ROWS, target.loc("rows"), lang, table=rule_id,
                                 tag=rule.params.get("shared_tag"), rule=rule.id)
    if rule.params.get("tie") not in TIES:
        yield diagnostic(BAD_LEISURE_PARAM, rule.loc("params", "tie"), lang, name="tie",
                         rule=rule.id, expected="'lower' or 'higher'", value=rule.params.get("tie"))


KIND = Kind("Leisure", run, check=check, distribution=distribution)
