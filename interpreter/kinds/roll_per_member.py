"""The kind ``RollPerMember``: each member, in the order listed, rolls one of the document's roll
tables; the document's ``shift`` lets each member change the roll within a window first (a fixed
change, or aim at rows, named by inputs), then its ``repeat`` policy says which rows may come up
only once per session, how a repeat is moved (a window and a tie rule) and what happens when no
move helps (a fallback). Its ``distribution`` is exact for a whole session of N members, the
stated choices and the policy included."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import Location, MprError, define, diagnostic, did_you_mean, render

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.names import compiled
from interpreter.engine.trace import ProbRow, ProbTable, fraction_text
from interpreter.engine.registry import Kind
from interpreter.solvers.limits import MAX_MEMBERS
from rules_dsl.words import ASIDE, bilingual, define_word, define_words, localized, vocabulary, word
from interpreter.kinds._amounts import check_members, whole
from interpreter.kinds._reasons import EXPECTED, one_of
from interpreter.solvers.repeat_policy import (FALLBACKS, TABLE_ROLLS, TIES, TOO_MANY_STATES, UNRESOLVED, Entry, Policy,
                            Resolution, Shift, TableRows, session_distribution, taken_after, resolve_roll)
from interpreter.solvers.roll_rows import roll_distribution, row_for, table_range

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

UNKNOWN_TABLE = define(
    "MPR542", "table {name!r} is not one of the tables of {rule} ({known}){hint}",
    "表 {name!r} は {rule} の表（{known}）にありません{hint}")
ROLL_NOT_MEMBER = define(
    "MPR543", "rolls give a roll for {member!r}, who is not listed ({members})",
    "rolls に一覧にない {member!r} の出目があります（一覧: {members}）")
BAD_POLICY = define(
    "MPR544", "{name} of {rule} must be {expected[en]}, got {value!r}",
    "{rule} の {name} は{expected[ja]}でなければなりません（値: {value!r}）")
UNRESOLVED_NOTE = define(
    "MPR545", "{member}: roll {roll} repeats a once-only result and the policy finds no different result; to be decided (options: {options})",
    "{member}: 出目 {roll} は既に出た一度きりの結果で、方針どおりでは別の結果になりません。決めてください（候補: {options}）",
    severity="info")
NO_ONCE_ROWS = define(
    "MPR546", "table {table} has no row that {rule} counts as once-only ({once}): its repeat policy never applies",
    "表 {table} には {rule} が一度きりとみなす行（{once}）がありません。繰り返しの方針は働きません",
    severity="warning")
ROLLS_NOT_A_MAPPING = define(
    "MPR581", "{field} must be a mapping from a member to a whole number, got {value!r}",
    "{field} はメンバーから整数への対応でなければなりません（値: {value!r}）")
CHANGE_TOO_FAR = define(
    "MPR582", "{field}: a change of {change} is outside ±{window}",
    "{field}: 出目の増減 {change} は ±{window} の外です")
UNKNOWN_AIM = define(
    "MPR583", "{field}: table {table} has no row {row!r}{hint}",
    "{field}: 表 {table} に行 {row!r} はありません{hint}")
BAD_CHOICE = define(
    "MPR584", "{field} must be none, a whole number (the change) or {{aim: a row id or a list of row ids}}, got {value!r}",
    "{field} は none、整数（出目の増減）、{{aim: 行の id かそのリスト}} のどれかでなければなりません（値: {value!r}）")
SHIFT_INPUT_UNDECLARED = define(
    "MPR585", "shift.{field} of {rule} names the input {name!r}, which the document's inputs do not declare",
    "{rule} の shift.{field} が入力 {name!r} を指していますが、文書の inputs にありません", severity="warning")
NO_POLICY = define(
    "MPR580", "no repeat policy of {rule} applies to these inputs: give the last one no 'when'",
    "{rule} の repeat のどの方針もこの入力に当てはまりません。最後の方針には when を付けないでください")

OUTPUT = ("member", "rolled", "final_roll", "row", "text", "once", "how", "options", "roll",
          "results", "taken", "shifted")
TITLES = define_words(
    "roll_per_member",
    {"sets": "the set of once-only results", "each": "chance of each once-only result",
     "mean": "the expected number of once-only results", "how": "how the roll was resolved",
     "head": "{title} ({table}, {count} members{window})", "window": ", moves up to ±{window}",
     "no_once": "no once-only result", "other": "a roll no row lists (default)",
     "joiner": ", ", "set_joiner": " / ", "change": ", each changes the roll by {change}",
     "aim": ", each aims at {rows} (±{window})", "aim_joiner": ", else ", "aim_row": "\u201c{row}\u201d", "mixed": ", changes as stated per member"},
    {"sets": "一度きりの結果の組み合わせ", "each": "一度きりの各結果が出る確率",
     "mean": "一度きりの結果の期待個数", "how": "出目の扱い",
     "head": "{title}（{table}、{count}人{window}）", "window": "、出目の増減は±{window}まで",
     "no_once": "一度きりの結果なし", "other": "表に載っていない出目（default）", "joiner": "、",
     "set_joiner": "／", "change": "、各自が出目を {change} 増減", "aim": "、各自が{rows}を狙う（±{window}）",
     "aim_joiner": "、なければ", "aim_row": "「{row}」", "mixed": "、出目の増減はメンバーごとの指定どおり"})
_LABELS = {None: define_word("roll_per_member.no_id", "a row of no id", "IDのない行"),
           UNRESOLVED: define_word("roll_per_member.unresolved", "unresolved (to be decided)", "未解決（要判断）")}
HOWS = define_words(
    "roll_per_member.resolved",
    {"as_rolled": "as rolled", "adjusted": "moved", "nearest_lower": "nearest lower result",
     "nearest_higher": "nearest higher result", "individual": "the table's default", UNRESOLVED: "unresolved"},
    {"as_rolled": "出目どおり", "adjusted": "出目を増減", "nearest_lower": "低いほうに最も近い結果",
     "nearest_higher": "高いほうに最も近い結果", "individual": "表の default の結果", UNRESOLVED: "未解決"})


def _table_rule(rule: Rule, name: Any, ctx: Context) -> Any:
    tables = ctx.param(rule, "tables")
    if not isinstance(name, str) or name not in tables:
        raise MprError(UNKNOWN_TABLE, Location(path="table"), name=name, rule=rule.id,
                       known=", ".join(tables), hint=did_you_mean(name, tables))
    return ctx.ruleset.rule(tables[name])


def _env(rule: Rule, inputs: Mapping[str, Any], dice: Any) -> dict[str, Any]:
    """The inputs and ``params``; the parameter ``window``, an expression of the inputs, is given
    by its value."""
    params = dict(rule.params)
    if isinstance(params.get("window"), str):
        params["window"] = compiled(rule, ("params", "window")).evaluate({**inputs, "params": rule.params}, dice)
    return {**inputs, "params": params}


def _shift_window(rule: Rule, env: dict[str, Any], dice: Any) -> int:
    window = compiled(rule, ("shift", "window")).evaluate(env, dice)
    if isinstance(window, bool) or not isinstance(window, int):
        raise MprError(BAD_POLICY, rule.loc("shift", "window"), name="shift.window", rule=rule.id,
                       expected=EXPECTED["integer"], value=window)
    return abs(window)


def _shift_of(choice: Any, field: str, window: int, table: TableRows, tie: str) -> Shift | None:
    """One member's choice: None or ``none`` (no change), a whole number (the change), or
    ``{aim: ROW_ID}`` / ``{aim: [ROW_ID, ...]}`` (rows of the table, in order of preference)."""
    if choice is None or choice == "none":
        return None
    if isinstance(choice, int) and not isinstance(choice, bool):
        if abs(choice) > window:
            raise MprError(CHANGE_TOO_FAR, Location(path=field), field=field, change=choice, window=window)
        return Shift(window, change=choice)
    aim = choice.get("aim") if isinstance(choice, dict) and set(choice) == {"aim"} else None
    rows = [aim] if isinstance(aim, str) else aim
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise MprError(BAD_CHOICE, Location(path=field), field=field, value=choice)
    known = list(dict.fromkeys(e.id for e in table.entries if e is not None and e.id))
    for index, row in enumerate(rows):
        if row not in known:
            where = f"{field}.aim" if isinstance(aim, str) else f"{field}.aim[{index}]"
            raise MprError(UNKNOWN_AIM, Location(path=where), field=where, table=table.name, row=row,
                           hint=did_you_mean(row, known))
    return Shift(window, aim=tuple(rows), tie=tie)


def member_shifts(rule: Rule, inputs: Mapping[str, Any], env: dict[str, Any], members: list[str],
                  table: TableRows, policy: Policy, dice: Any) -> list[Shift | None]:
    """Each member's own change before the repeat policy, from the inputs the document's ``shift``
    names: ``per_member`` (a mapping member -> choice) over ``choice`` (everyone's choice)."""
    spec = rule.doc.get("shift")
    if not isinstance(spec, dict):
        return [None] * len(members)
    window = _shift_window(rule, env, dice)
    common_name, per_name = spec.get("choice"), spec.get("per_member")
    common = inputs.get(common_name) if common_name else None
    per = inputs.get(per_name) if per_name else None
    if per is None:
        per = {}
    if not isinstance(per, dict):
        raise MprError(BAD_CHOICE, Location(path=str(per_name)), field=per_name, value=per)
    for member in per:
        if member not in members:
            raise MprError(ROLL_NOT_MEMBER, Location(path=f"{per_name}.{member}"), member=member,
                           members=", ".join(members))
    return [_shift_of(per[m], f"{per_name}.{m}", window, table, policy.tie) if m in per
            else _shift_of(common, str(common_name), window, table, policy.tie) for m in members]


def _choice(rule: Rule, path: tuple, env: dict[str, Any], allowed: tuple[str, ...], dice: Any) -> str:
    """A policy field: one of ``allowed`` written as is, or an expression giving one."""
    text = _at(rule.doc, path)
    value = text if text in allowed else compiled(rule, path).evaluate(env, dice)
    if value not in allowed:
        raise MprError(BAD_POLICY, rule.loc(*path), name=".".join(map(str, path)), rule=rule.id,
                       expected=one_of(allowed), value=value)
    return value


def _at(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def chosen_policy(rule: Rule, env: dict[str, Any], dice: Any) -> tuple[tuple, Policy]:
    """The path of the repeat policy that applies (the first whose ``when`` holds) and its Policy."""
    repeat = rule.doc.get("repeat", "off")
    if repeat == "off":
        return (), Policy(None, fallback="as_rolled")
    cases = [(("repeat", i), case) for i, case in enumerate(repeat)] if isinstance(repeat, list) \
        else [(("repeat",), repeat)]
    for path, case in cases:
        if "when" in case and not compiled(rule, path + ("when",)).evaluate(env, dice):
            continue
        move = case.get("move", "off")
        window = tie = None
        if move != "off":
            window = compiled(rule, path + ("move", "window")).evaluate(env, dice)
            if isinstance(window, bool) or not isinstance(window, int):
                raise MprError(BAD_POLICY, rule.loc(*path, "move", "window"), name="move.window",
                               rule=rule.id, expected=EXPECTED["integer"], value=window)
            tie = _choice(rule, path + ("move", "tie"), env, TIES, dice) if "tie" in move else "lower"
        fallback = _choice(rule, path + ("fallback",), env, FALLBACKS, dice)
        return path, Policy(None if window is None else abs(window), tie or "lower", fallback)
    raise MprError(NO_POLICY, rule.loc("repeat"), rule=rule.id)


def table_rows(table_rule: Rule, rule: Rule, path: tuple, env: dict[str, Any]) -> TableRows:
    """The entries of every roll in the roll table's range; ``once`` (an expression of a row's
    ``tags``, ``id``, ``roll`` and ``value``) says which rows may come up once per session."""
    # start-up: interpreter.solvers.limits loads only when table_rows() runs
    from interpreter.solvers.limits import MAX_SESSION_TABLE_SPAN

    lo, hi = table_range(table_rule)
    if hi - lo + 1 > MAX_SESSION_TABLE_SPAN:
        raise MprError(TOO_MANY_STATES, table_rule.loc("range"), limit=MAX_SESSION_TABLE_SPAN,
                       what=bilingual(TABLE_ROLLS))
    once = compiled(rule, path + ("once",)) if path and "once" in _at(rule.doc, path) else None

    def entry(row: dict[str, Any], roll: int | None) -> Entry:
        facts = {"tags": row.get("tags") or [], "id": row.get("id"), "roll": roll,
                 "value": row.get("value"), "params": env["params"]}
        return Entry(row.get("id"), bool(once and once.evaluate(facts)), row.get("text"))

    entries = [None if (row := row_for(table_rule, roll)) is None else entry(row, roll)
               for roll in range(lo, hi + 1)]
    default = table_rule.doc.get("default")
    plain = None if default is None else entry(default, None)
    return TableRows(table_rule.id, lo, hi, tuple(entries), plain)


def members_of(rule: Rule, inputs: Mapping[str, Any]) -> list[str]:
    """The members listed in the input named by ``members.input``, or numbered names (the
    ``members.numbered`` template with ``n``) when it is a count."""
    # start-up: rules_dsl.template loads only when members_of() runs
    from rules_dsl.template import compile_template

    spec = rule.doc["members"]
    members = inputs.get(spec["input"])
    if isinstance(members, int) and not isinstance(members, bool) and members >= 1:
        if members > MAX_MEMBERS:  # refused before a name is made for each of them
            return check_members([None] * (MAX_MEMBERS + 1), spec["input"])
        template = compile_template(spec.get("numbered", "{n}"), rule.loc("members", "numbered"))
        members = [template.render({"n": n}) for n in range(1, members + 1)]
    return check_members(members, spec["input"])


def _names(rule: Rule) -> dict[str, str]:
    return {key: (rule.doc.get("output") or {}).get(key, key) for key in OUTPUT}


def _entry_json(entry: Entry | None, lang: str, name: dict[str, str]) -> dict[str, Any]:
    if entry is None:
        return {name["row"]: None, name["text"]: None, name["once"]: False}
    return {name["row"]: entry.id, name["text"]: localized(entry.text, lang) or None,
            name["once"]: entry.once}


def _result_json(member: str, resolution: Resolution, lang: str, name: dict[str, str]) -> dict[str, Any]:
    out = {name["member"]: member, name["rolled"]: resolution.rolled}
    if resolution.shifted is not None:
        out[name["shifted"]] = resolution.shifted
    out.update({name["final_roll"]: resolution.final_roll, **_entry_json(resolution.entry, lang, name),
                name["how"]: resolution.how})
    if resolution.how == UNRESOLVED:
        out[name["options"]] = [{name["roll"]: r, **_entry_json(e, lang, name)}
                                for r, e in resolution.options]
    return out


def _setup(rule: Rule, inputs: Mapping[str, Any], ctx: Context
           ) -> tuple[Any, TableRows, Policy, list[str], list[Shift | None]]:
    table_rule = _table_rule(rule, inputs.get("table"), ctx)
    env = _env(rule, inputs, ctx.dice)
    path, policy = chosen_policy(rule, env, ctx.dice)
    ctx.trace.add("expr", "repeat", f"{policy.fallback}, ±{policy.window}" if policy.window is not None
                  else policy.fallback, path=".".join(map(str, path)))
    table = table_rows(table_rule, rule, path, env)
    members = members_of(rule, inputs)
    return table_rule, table, policy, members, member_shifts(rule, inputs, env, members, table, policy, ctx.dice)


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    table_rule, table, policy, members, shifts = _setup(rule, inputs, ctx)
    name = _names(rule)
    given = inputs.get("rolls") or {}
    if not isinstance(given, dict):
        raise MprError(ROLLS_NOT_A_MAPPING, Location(path="rolls"), field="rolls", value=given)
    for member in given:
        if member not in members:
            raise MprError(ROLL_NOT_MEMBER, Location(path=f"rolls.{member}"), member=member,
                           members=", ".join(members))
    taken: frozenset[str] = frozenset()
    results, order = [], []
    for member, shift in zip(members, shifts):
        if member in given:
            roll = whole(given[member], f"rolls.{member}")
            ctx.trace.add("input", f"roll of {member}", roll)
        else:
            mark = ctx.dice.mark()
            roll = compiled(table_rule, ("params", "roll")).evaluate({"params": table_rule.params}, ctx.dice)
            ctx.trace.add("dice", f"roll of {member}", roll, dice=[d.value for d in ctx.dice.since(mark)])
        try:
            resolution = resolve_roll(table, roll, taken, policy, member, shift)
        except MprError as error:
            raise error.at(Location(path=f"rolls.{member}") if member in given
                           else table_rule.loc("params", "roll")) from None
        if resolution.shifted is not None:
            ctx.trace.add("expr", f"change of {member}", resolution.shifted,
                          change=resolution.shifted - roll, rolled=roll)
        after = taken_after(taken, resolution)
        if after != taken:
            order.append(resolution.entry.id)  # type: ignore[union-attr]
        taken = after
        if resolution.how == UNRESOLVED:
            options = ", ".join(f"{r}:{e.id or '-'}" for r, e in resolution.options) or "-"
            message = render(UNRESOLVED_NOTE, {"member": member, "roll": roll, "options": options}, ctx.lang)
            ctx.trace.add("unresolved", message, None, code=UNRESOLVED_NOTE)
        else:
            ctx.trace.add("row", f"{member}: {resolution.how}", resolution.entry.id if resolution.entry else None,
                          rolled=roll, final_roll=resolution.final_roll,
                          **({} if resolution.shifted is None else {"shifted": resolution.shifted}))
        results.append(_result_json(member, resolution, ctx.lang, name))
    return {name["results"]: results, name["taken"]: order}


def distribution(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> list[ProbTable]:
    """Exact: the set of once-only results of the whole session, each once-only result's chance,
    and each member's result and how its roll was resolved."""
    # start-up: fractions loads only for a distribution (a run of the session needs none)
    from fractions import Fraction

    table_rule, table, policy, members, shifts = _setup(rule, inputs, ctx)
    exact = session_distribution(table, roll_distribution(table_rule), len(members), policy, shifts)
    lang = ctx.lang
    words = vocabulary(TITLES, lang)
    texts = {e.id: localized(e.text, lang) or e.id for e in table.entries if e is not None and e.id}
    unnamed = [e for e in table.entries if e is not None and e.id is None]
    other = localized(table.plain.text, lang) if table.plain is not None and table.plain.text else None
    if other is None and unnamed and all(e == table.plain for e in unnamed):
        other = words["other"]
    window = "" if policy.window is None else words["window"].format(window=policy.window)
    window += _shift_note(shifts, texts, words)
    head = words["head"].format(title=rule.title(lang), table=table_rule.title(lang),
                                count=len(members), window=window)
    sets = [ProbRow(list(s), p, words["set_joiner"].join(texts.get(e, e) for e in s) or words["no_once"])
            for s, p in sorted(exact.taken_sets.items(), key=lambda sp: (-sp[1], sp[0]))]
    count = sum((len(s) * p for s, p in exact.taken_sets.items()), Fraction(0))
    tables = [ProbTable(f"{head}: {words['sets']}", sets, count, mean_label=words["mean"]),
              ProbTable(f"{head}: {words['each']}",
                        [ProbRow(e, exact.row_probability(e), texts.get(e, e)) for e in table.once_ids()])]
    names: dict[Any, str] = {key: word(label, lang) for key, label in _LABELS.items()}
    if other:
        names[None] = other
    hows = vocabulary(HOWS, lang)
    for member, rows, resolved in zip(members, exact.per_member, exact.per_member_how):
        shown = [ProbRow(v, p, texts.get(v) or names.get(v))
                 for v, p in sorted(rows.items(), key=lambda vp: (-vp[1], str(vp[0])))]
        how_note = words["joiner"].join(f"{hows.get(h, h)} {_share(p, lang)}" for h, p in resolved.items())
        tables.append(ProbTable(f"{head}: {member}", shown, note=f"{words['how']}: {how_note}"))
    return tables


def _shift_note(shifts: list[Shift | None], texts: dict[Any, str], words: dict[str, str]) -> str:
    """The members' stated change in the title: the same for all, else "as stated per member"."""
    if all(s is None for s in shifts):
        return ""
    if any(s != shifts[0] for s in shifts):
        return words["mixed"]
    shift = shifts[0]
    assert shift is not None
    if shift.change is not None:
        return words["change"].format(change=f"{shift.change:+d}")
    rows = words["aim_joiner"].join(words["aim_row"].format(row=texts.get(r, r)) for r in shift.aim)
    return words["aim"].format(rows=rows, window=shift.window)


def _share(p: Fraction, lang: str) -> str:
    """A probability as a percentage with its exact fraction: ``95.45%（1237/1296）``."""
    return word(ASIDE, lang).format(text=f"{float(p) * 100:.2f}%", aside=fraction_text(p))


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Any]:
    """Semantic checks: the tables named are roll tables, each with a row the policy counts as
    once-only (a missing rule is reported through the schema's ``x-rule-ref``)."""
    tables = rule.params.get("tables")
    if not isinstance(tables, dict) or not tables:
        yield diagnostic(BAD_POLICY, rule.loc("params", "tables"), lang, name="params.tables",
                         rule=rule.id, expected=EXPECTED["table_ids"], value=tables)
        return
    repeat = rule.doc.get("repeat", "off")
    cases = repeat if isinstance(repeat, list) else [] if repeat == "off" else [repeat]
    for index, case in enumerate(cases):
        yield from _check_policy(rule, ("repeat", index) if isinstance(repeat, list) else ("repeat",),
                                 case, lang)
    shift = rule.doc.get("shift")
    declared = set(((rule.doc.get("inputs") or {}).get("properties") or {}))
    for field in ("choice", "per_member"):
        named = shift.get(field) if isinstance(shift, dict) else None
        if named is not None and named not in declared:
            yield diagnostic(SHIFT_INPUT_UNDECLARED, rule.loc("shift", field), lang, field=field,
                             rule=rule.id, name=named)
    for name, rule_id in tables.items():
        target = ruleset.rules.get(rule_id)
        if target is not None and target.kind != "RollTable":
            yield diagnostic(BAD_POLICY, rule.loc("params", "tables", name), lang, name=f"params.tables.{name}",
                             rule=rule.id, expected=EXPECTED["roll_table_id"], value=rule_id)
        elif target is not None and cases and "once" in cases[-1] and "when" not in cases[-1]:
            env = {"params": rule.params}
            try:
                table = table_rows(target, rule, ("repeat", len(cases) - 1) if isinstance(repeat, list)
                                   else ("repeat",), env)
            except MprError:
                continue
            if not table.once_ids():
                yield diagnostic(NO_ONCE_ROWS, target.loc("rows"), lang, table=rule_id, rule=rule.id,
                                 once=cases[-1]["once"])


def _check_policy(rule: Rule, path: tuple, case: dict[str, Any], lang: str) -> Iterator[Any]:
    """``once`` compiles; ``tie`` and ``fallback`` written as expressions of ``params`` alone
    give one of their allowed words."""
    # start-up: rules_dsl loads only when _check_policy() runs
    from rules_dsl import compile_expression

    if "once" in case:
        try:
            compile_expression(str(case["once"]), origin=rule.loc(*path, "once"))
        except MprError as error:
            yield error.diagnostic(lang)
    move = case.get("move")
    fields = [(("fallback",), FALLBACKS)] + ([(("move", "tie"), TIES)]
                                           if isinstance(move, dict) and "tie" in move else [])
    for where, allowed in fields:
        text = _at(case, where)
        if text in allowed:
            continue
        try:
            expression = compile_expression(str(text), origin=rule.loc(*path, *where))
            value = expression.evaluate({"params": rule.params}) if expression.names <= {"params"} \
                else allowed[0]
        except MprError as error:
            yield error.diagnostic(lang)
            continue
        if value not in allowed:
            yield diagnostic(BAD_POLICY, rule.loc(*path, *where), lang, name=".".join(where),
                             rule=rule.id, expected=one_of(allowed), value=value)


KIND = Kind("RollPerMember", run, check=check, distribution=distribution)
