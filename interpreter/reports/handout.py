"""A Japanese handout of a ruleset's adopted rules (``mprules doc``), for two audiences.

The players' handout (the default) reads like the source: each rule's title and quoted text with
every ``{params.NAME}`` filled in, what the ruleset decided where the source is silent marked
「解釈」 with its reason, the tables by their labels (a row computed by a formula by the source's
words), probabilities as bars, and a ★ on what the variant changed from the ruleset it extends
(a changed value in words beside the base one). It shows no rule id, parameter name or code.
The GM's handout (``gm=True``) adds the ids, the parameter tables and the formulas.

The rules come in the order the manifest's ``order`` gives (the source's order), the rest by source
and id; a rule that says ``shown_in: HOST`` leaves out the opening lines of its text that the host
prints already (a shared introduction, or a sentence of the host's), and comes right after the
host unless the order places it. Rendering is in
``handout_render`` (Markdown, HTML)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rules_dsl.errors import MprError
from rules_dsl.words import localized

from interpreter.reports.diff import DEFAULT_PROBE, Diff, compare, outcome, probes, row_count
from interpreter.reports.limits import MAX_DIFF_OUTCOMES
from interpreter.reports.diff_render import id_names, named, show
from interpreter.reports.handout_render import MARK, Block, render_html, render_markdown
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.ruleset.quotes import shared_opening
from interpreter.ruleset.texts import named_values, render_localized
from interpreter.engine.trace import ProbTable

__all__ = ["Block", "MARK", "base_of", "build", "root_of", "handout", "player_text", "stale_quotes",
           "render_html", "render_markdown"]

_HALF_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９－", "0123456789-")
ROW_FIELDS = ("roll", "label", "text", "each", "as", "when", "value", "tags")
PLAYER_ROW_FIELDS = ("roll", "label", "text", "value")
WORDS = {
    "params": "パラメータ", "value": "値", "meaning": "説明", "rows": "表", "row": "行",
    "probabilities": "確率", "probe": "入力例", "outcome": "結果", "p": "確率",
    "changed": "変更", "added": "追加", "base": "基本", "not_adopted": "採用しないルール",
    "removed": "削除されたルール", "intro": "このハンドアウトは mprules doc で作成しました。",
    "marks": "基本ルールセット {base} から変わった箇所に ★ を付けています。", "none": "なし",
    "contents": "目次", "no_input": "入力なし",
    "too_many_rows": "行が {count} 行あるので、確率の図は省きました（{limit} 行まで）",
    "stale": "この本文は基本ルールセットのものです。このハウスルールでは {notes} です。",
    "interpretation": "解釈", "formula": "式", "origin": "原文",
    "player_intro": "原文の文と表をそのまま載せています。原文に書かれていないことをこのルールセットが"
                    "決めた箇所には【解釈】と理由を付けています。",
    "player_marks": "基本のルールセット「{base}」から変わった箇所に ★ を付けています。",
    "changed_values": "変更された値",
    "player_stale": "この文は基本のルールセットのものです。このハウスルールでは{notes}です。",
    "player_stale_one": "「{what}」が{old}ではなく{new}",
    "player_removed": "このハウスルールで削除されたルール",
}
ROW_HEADERS = {"roll": "出目", "label": "内容", "text": "内容", "each": "対象", "as": "名前",
               "when": "条件", "value": "値", "tags": "タグ"}
_ID_ASIDE = re.compile(r"（[a-z][a-z0-9_]*）")  # an id in brackets: for the GM
_ASCII_PC = re.compile(r"(?<![A-Za-z])PC(?![A-Za-z])")


def base_of(root: Path) -> Path | None:
    """The root of a variant's ``extends`` graph (following the first ``extends`` each time)."""
    # start-up: interpreter.documents.loader, interpreter.ruleset.variants load only when base_of() runs
    from interpreter.documents.loader import load_file
    from interpreter.ruleset.variants import MANIFEST, extends_of, resolve_extends

    current, seen = root.resolve(), set()
    while current not in seen:
        seen.add(current)
        try:
            docs = load_file(str(current / MANIFEST))
        except MprError:
            return None
        data = docs[0].data if docs and isinstance(docs[0].data, dict) else {}
        names = extends_of(data)
        parent = resolve_extends(current, names[0]) if names else None
        if parent is None:
            return current if current != root.resolve() else None
        current = parent
    return None


def root_of(ruleset: Ruleset) -> Path | None:
    """``base_of`` the loaded ``ruleset``'s directory, from what loading it learnt: its layers come
    parents first, the first of them the root reached by following the first ``extends`` each
    time (None for a ruleset that extends nothing, or a lone rule file)."""
    first = next(iter(ruleset.listings), None)
    if first is None or first == str(Path(ruleset.root).resolve()):
        return None
    return Path(first)


def player_text(value: Any) -> str:
    """A value as a player reads it: the Japanese of a ``{ja, en}`` text, a list joined by 、, an
    entry by its ``title`` (a package's options) or as ``key: value`` pairs (its effects)."""
    if isinstance(value, dict) and ("ja" in value or "en" in value):
        return localized(value, "ja")
    if isinstance(value, dict) and "title" in value:
        return player_text(value["title"])
    if isinstance(value, dict) and value and all(not isinstance(v, (dict, list)) for v in value.values()):
        return "、".join(f"{k}: {show(v)}" for k, v in value.items())
    if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
        return "、".join(show(v) for v in value) or "（なし）"
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return "／".join(player_text(v) for v in value)
    return show(value)


def filled(rule: Rule, value: Any) -> str:
    """A text of ``rule`` in Japanese with its placeholders filled from the effective parameters."""
    return player_text(render_localized(rule, value)) if value not in (None, "") else ""


def _source_key(rule: Rule) -> tuple:
    match = re.fullmatch(r"R(\d+)", str(rule.source or ""))
    return (int(match.group(1)) if match else -1, rule.id)


def handout_order(ruleset: Ruleset, base: Ruleset | None = None) -> list[Rule]:
    """The rules in the handout's order: the manifest's ``order`` (the variant's, else its
    base's), each ``shown_in`` rule right after the rule that shows its text, then the others by
    source number and id."""
    order = ruleset.manifest.get("order")
    if not isinstance(order, list) and base is not None:
        order = base.manifest.get("order")
    listed = [r for r in (order if isinstance(order, list) else []) if isinstance(r, str)]
    rules = ruleset.rules
    out: list[str] = [r for r in listed if r in rules]
    rest = sorted((r for r in rules.values() if r.id not in out), key=_source_key)
    for rule in rest:
        host = rule.doc.get("shown_in")
        if isinstance(host, str) and host in out:
            at = out.index(host) + 1
            while at < len(out) and rules[out[at]].doc.get("shown_in") == host:
                at += 1
            out.insert(at, rule.id)
        else:
            out.append(rule.id)
    return [rules[r] for r in out]


def build(ruleset: Ruleset, diff: Diff | None, *, gm: bool = False) -> list[Block]:
    """The handout's blocks, rule by rule in the handout's order (``handout_order``)."""
    title = filled_manifest(ruleset, "title") or ruleset.id
    blocks = [Block("heading", title, level=1)]
    base_title = (filled_manifest(diff.base, "title") or diff.base.id) if diff else ""
    if gm:
        intro = WORDS["intro"] + (WORDS["marks"].format(base=diff.base.id) if diff else "")
    else:
        intro = WORDS["player_intro"] + (WORDS["player_marks"].format(base=base_title) if diff else "")
    blocks.append(Block("para", intro))
    if ruleset.manifest.get("text"):
        blocks.append(Block("para", filled_manifest(ruleset, "text")))
    ordered = handout_order(ruleset, diff.base if diff else None)
    adopted = [r for r in ordered if r.adopted]
    blocks.append(Block("heading", WORDS["contents"], level=2))
    anchors = {r.id: (r.id if gm else f"rule-{i + 1}") for i, r in enumerate(adopted)}
    header = ["", "ルール", "ID"] if gm else ["ルール"]
    blocks.append(Block("table", header=header, rows=[
        ([str(r.source or ""), r.title("ja"), r.id] if gm else [r.title("ja")]) for r in adopted],
        marks=[_rule_mark(r, diff) is not None for r in adopted],
        links=[anchors[r.id] for r in adopted], link_column=1 if gm else 0))
    for rule in adopted:
        blocks.extend(_rule_blocks(ruleset, rule, diff, gm, anchors[rule.id]))
    left_out = [r for r in ordered if not r.adopted]
    newly = {e["rule"] for e in diff.not_adopted} if diff else set()
    if gm or left_out:
        blocks.append(Block("heading", WORDS["not_adopted"], level=2))
        none = ["", WORDS["none"], ""] if gm else [WORDS["none"]]
        blocks.append(Block("table", header=header,
                            rows=[([str(r.source or ""), r.title("ja"), r.id] if gm else [r.title("ja")])
                                  for r in left_out] or [none],
                            marks=[r.id in newly for r in left_out] or [False]))
    if diff is not None and diff.removed:
        blocks.append(Block("heading", WORDS["removed" if gm else "player_removed"], level=2))
        blocks.append(Block("table", header=["ルール", "ID"] if gm else ["ルール"],
                            marks=[True] * len(diff.removed),
                            rows=[[e["title"], e["rule"]] if gm else [e["title"]] for e in diff.removed]))
    return blocks


def filled_manifest(ruleset: Ruleset, key: str) -> str:
    value = ruleset.manifest.get(key)
    return player_text(value) if value else ""


def _rule_mark(rule: Rule, diff: Diff | None) -> str | None:
    if diff is None:
        return None
    if any(e["rule"] == rule.id for e in diff.added):
        return WORDS["added"]
    if diff.change_of(rule.id) or any(e["rule"] == rule.id for e in diff.adopted + diff.probabilities):
        return WORDS["changed"]
    return None


def _rule_blocks(ruleset: Ruleset, rule: Rule, diff: Diff | None, gm: bool, anchor: str) -> list[Block]:
    mark = _rule_mark(rule, diff)
    head = f"{rule.source or ''} {rule.title('ja')}".strip() if gm else rule.title("ja")
    blocks = [Block("heading", head + (f" {MARK}{mark}" if mark else ""), level=2, anchor=anchor)]
    if gm:
        blocks.append(Block("para", f"`{rule.id}`"))
    change = diff.change_of(rule.id) if diff else None
    old_params = {p["name"]: p["old"] for p in change.params} if change else {}
    text = rule.doc.get("text")
    if text:
        lines = filled(rule, text).split("\n")[shared_opening(rule, ruleset):]
        if lines:
            blocks.extend(_text_blocks("\n".join(lines), old_params, rule, gm))
    for entry in interpretations(rule):
        names = f"（{WORDS['params']}: {'、'.join(entry['params'])}）" if gm and entry["params"] else ""
        blocks.append(Block("note", filled(rule, entry["text"]) + names, label=WORDS["interpretation"]))
    if gm and rule.params:
        blocks.extend(_param_blocks(rule, old_params))
    elif old_params:
        blocks.extend(_changed_value_blocks(rule, old_params))
    if isinstance(rule.doc.get("rows"), list) and rule.doc["rows"]:
        blocks.extend(_row_blocks(rule, change, gm))
    blocks.extend(_probability_blocks(ruleset, rule, diff, gm))
    return blocks


def interpretations(rule: Rule) -> list[dict[str, Any]]:
    """The rule's ``interpretations``: ``{text, params}`` each (what the source does not say)."""
    found = rule.doc.get("interpretations")
    return [{"text": e.get("text"), "params": [p for p in e.get("params") or [] if isinstance(p, str)]}
            for e in found if isinstance(e, dict) and e.get("text")] if isinstance(found, list) else []


def _param_doc(rule: Rule, name: str) -> str:
    docs = rule.doc.get("param_docs") or {}
    return player_text(docs.get(name, "")) if isinstance(docs, dict) else ""


def _param_blocks(rule: Rule, old_params: dict[str, Any]) -> list[Block]:
    """The GM's parameter table: name, value (with the base's), meaning, and where the default
    comes from (the source's words of ``quotes``, or 【解釈】)."""
    names = id_names(rule.params, "ja")
    quotes = given if isinstance(given := rule.doc.get("quotes"), dict) else {}
    marked = {p for e in interpretations(rule) for p in e["params"]}
    rows, marks = [], []
    for name, value in rule.params.items():
        changed = name in old_params
        cell = player_text(named(value, names)) + (
            f"（{WORDS['base']}: {player_text(named(old_params[name], names))}）" if changed else "")
        origin = f"「{quotes[name]}」" if isinstance(quotes.get(name), str) else \
            f"【{WORDS['interpretation']}】" if name in marked else ""
        rows.append([name + (f" {MARK}" if changed else ""), cell, _param_doc(rule, name), origin])
        marks.append(changed)
    return [Block("heading", WORDS["params"], level=3),
            Block("table", header=[WORDS["params"], WORDS["value"], WORDS["meaning"], WORDS["origin"]],
                  rows=rows, marks=marks)]


def player_words(text: str) -> str:
    """A parameter's description as a player reads it: the notes in brackets written for the GM
    (those with code or English in them) left out, ＰＣ and ＧＭ written as the source writes them."""
    text = re.sub(r"（[^（）]*[A-Za-z][^（）]*）", "", text)
    return re.sub(r"(?<![A-Za-z])GM(?![A-Za-z])", "ＧＭ", player_label(text))


def _effect_words(rule: Rule, value: Any) -> Any:
    """Entries naming an effect the rule declares (``effect_types``) by that effect's title and
    amount: ``{effect: sleep, hours: 8}`` reads 睡眠（時間）: 8."""
    types = rule.doc.get("effect_types")
    if not isinstance(value, list) or not isinstance(types, dict):
        return value
    out: list[Any] = []
    for entry in value:
        kind = types.get(entry.get("effect")) if isinstance(entry, dict) else None
        if isinstance(kind, dict) and kind.get("title"):
            amount = entry.get(kind.get("amount"), "")
            out.append(f"{player_text(kind['title'])}: {show(amount)}" if amount != "" else player_text(kind["title"]))
        else:
            out.append(entry)
    return out


_WORD_OR_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|(?<![\w.])([A-Za-z_]\w*)(?![\w(])")


def input_labels(rule: Rule) -> dict[str, str]:
    """What a player calls each name the rule's expressions read: its ``labels`` entry, else
    the ``title`` of that input in the ``inputs`` schema."""
    properties = (rule.doc.get("inputs") or {}).get("properties")
    found = {name: schema["title"] for name, schema in (properties or {}).items()
             if isinstance(schema, dict) and isinstance(schema.get("title"), str)}
    labels = rule.doc.get("labels")
    for name, label in (labels.items() if isinstance(labels, dict) else ()):
        if isinstance(label, (str, dict)) and (text := localized(label, "ja")):
            found[name] = text
    return found


def expression_words(value: Any, labels: dict[str, str]) -> Any:
    """An expression a player reads: each name it reads written by its label (``x + 1``
    reads LABEL + 1); quoted texts, called functions and ``params.X`` stay as written."""
    if not isinstance(value, str) or not labels:
        return value
    return _WORD_OR_QUOTED.sub(lambda m: labels.get(m[1], m[1]) if m[1] else m[0], value)


def _changed_value_blocks(rule: Rule, old_params: dict[str, Any]) -> list[Block]:
    """For players: each value the variant changed, by what it means (not by its name), an
    expression with the names it reads written as players know them."""
    names = id_names(rule.params, "ja")
    labels = input_labels(rule)

    def shown(value: Any) -> str:
        return player_text(named(_effect_words(rule, expression_words(value, labels)), names))

    rows = [[player_words(_param_doc(rule, name)) or WORDS["value"],
             f"{MARK}{shown(rule.params.get(name))}（{WORDS['base']}: {shown(old)}）"]
            for name, old in old_params.items()]
    return [Block("heading", WORDS["changed_values"], level=3),
            Block("table", header=[WORDS["meaning"], WORDS["value"]], rows=rows, marks=[True] * len(rows))]


def stale_quotes(text: str, old_params: dict[str, Any], params: dict[str, Any]
                 ) -> list[tuple[str, str, str]]:
    """The parameters whose base value a quoted text still states while the variant changed it:
    ``(name, old, new)``, found the way ``validate`` finds them (``texts.named_values``)."""
    stale = []
    for name, old in old_params.items():
        new = params.get(name)
        if isinstance(old, bool) or not isinstance(old, (int, str)) or old == new or old == "":
            continue
        if named_values(old, new, text):
            stale.append((name, str(old), player_text(new)))
    return stale


def _text_blocks(text: str, old_params: dict[str, Any], rule: Rule, gm: bool) -> list[Block]:
    """The rule's quoted text; where a variant made it untrue (it states a parameter's base
    value), marked ★ with the variant's value beside the base one."""
    stale = stale_quotes(text, old_params, rule.params)
    if not stale:
        return [Block("para", text)]
    shown = text
    for _name, old, new in stale:
        pattern = r"(?<![0-9.])" + re.escape(old) + r"(?![0-9.])" if old.lstrip("-").isdigit() \
            else re.escape(old)
        found = list(re.finditer(pattern, shown.translate(_HALF_WIDTH_DIGITS)))
        for m in reversed(found):  # same offsets: the translation maps one character to one
            shown = (shown[:m.start()] + f"{MARK}{new}（{WORDS['base']}: {shown[m.start():m.end()]}）"
                     + shown[m.end():])
    if gm:
        notes = "、".join(f"{name} は {old} ではなく {new}" for name, old, new in stale)
        note = WORDS["stale"].format(notes=notes)
    else:
        notes = "、".join(WORDS["player_stale_one"].format(what=player_words(_param_doc(rule, name)) or WORDS["value"],
                                                           old=old, new=new) for name, old, new in stale)
        note = WORDS["player_stale"].format(notes=notes)
    return [Block("para", shown), Block("para", f"{MARK}{note}")]


def roll_text(value: Any) -> str:
    """A row's roll: ``7`` or a range ``7〜9`` (never 「7、9」, which reads as "7 or 9")."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]}〜{value[1]}" if value[0] != value[1] else str(value[0])
    return show(value)


def _cell_text(field: str, row: dict[str, Any], rule: Rule, gm: bool) -> str:
    """A row's cell in words, its ``{placeholders}`` filled with the rule's parameters; the value
    of a row computed by a formula by its ``value_label`` (with the formula for the GM)."""
    # start-up: interpreter.reports.diff_render loads only when _cell_text() runs
    from interpreter.reports.diff_render import readable

    value = row.get(field, "")
    if field == "roll":
        return roll_text(value)
    if field == "value" and row.get("value_label"):
        words = filled(rule, row["value_label"])
        formula = row.get("value")
        if gm and isinstance(formula, str):
            return f"{words}（{WORDS['formula']}: `{formula}`）"
        return words
    if field in ("label", "text"):
        return filled(rule, value)
    return readable(value, "ja", rule.params) if value not in ("", None) else ""


def _row_blocks(rule: Rule, change: Any, gm: bool) -> list[Block]:
    # start-up: interpreter.reports.diff loads only when _row_blocks() runs
    from interpreter.reports.diff import _rows_by_key

    rows = _rows_by_key(rule)
    changed = {r["row"]: r["change"] for r in change.rows} if change else {}
    fields = ROW_FIELDS if gm else PLAYER_ROW_FIELDS
    present = [f for f in fields if any(isinstance(r, dict) and f in r for _, r in rows.values())]
    if "label" in present or "text" in present:  # a row reads by its label, not its conditions
        present = [f for f in present if f not in ("each", "as", "when")]
    header = ([WORDS["row"]] if gm else []) + [ROW_HEADERS[f] for f in present]
    table = Block("table", header=header)
    for key, (_, row) in rows.items():
        if not isinstance(row, dict):
            continue
        how = changed.get(key)
        cells = [_cell_text(f, row, rule, gm) if f in row else "" for f in present]
        if gm:
            cells.insert(0, key + (f" {MARK}{WORDS[how]}" if how in ("added", "changed") else ""))
        elif how in ("added", "changed"):
            cells[0] = f"{MARK}{WORDS[how]} {cells[0]}"
        table.rows.append(cells)
        table.marks.append(how is not None)
    return [Block("heading", WORDS["rows"], level=3), table]


def player_label(text: str) -> str:
    """A label of the engine's output as a player reads it: an id in brackets left out, ＰＣ
    written as the source writes it."""
    return _ASCII_PC.sub("ＰＣ", _ID_ASIDE.sub("", text))


def _probability_blocks(ruleset: Ruleset, rule: Rule, diff: Diff | None, gm: bool) -> list[Block]:
    # start-up: interpreter.engine loads only when _probability_blocks() runs
    from interpreter.engine import registry as kinds

    kind = kinds.get(rule.kind)
    if kind is None or kind.distribution is None:
        return []
    base_rule = diff.base.rules.get(rule.id) if diff else None
    blocks: list[Block] = []
    words = (lambda s: s) if gm else player_label  # noqa: E731
    rows = row_count(rule, base_rule)
    if rows > MAX_DIFF_OUTCOMES:  # a bar per outcome: known too many before the odds are made
        return [Block("heading", WORDS["probabilities"], level=3),
                Block("para", WORDS["too_many_rows"].format(count=rows, limit=MAX_DIFF_OUTCOMES))]
    for probe in probes(rule, base_rule)[:5]:
        try:
            tables = diff.outcome(ruleset, rule, probe, "ja") if diff else outcome(ruleset, rule, probe, "ja")
        except MprError:
            continue
        before: list[ProbTable] = []
        if base_rule is not None and base_rule.adopted:
            try:
                before = diff.outcome(diff.base, base_rule, probe, "ja")  # type: ignore[union-attr]
            except MprError:
                before = []
        if not blocks:
            blocks.append(Block("heading", WORDS["probabilities"], level=3))
        for index, table in enumerate(tables):
            old = {show(r.value): float(r.p) for r in before[index].rows} if index < len(before) else {}
            name = WORDS["no_input"] if probe.name == DEFAULT_PROBE else f"{WORDS['probe']}「{probe.name}」"
            label = words(f"{name}: {table.title}")
            bars = [(words(_bar_label(r.value, r.label)), float(r.p),
                     old.get(show(r.value), 0.0) if old else None) for r in table.rows]
            moved = any(b is not None and abs(a - b) > 1e-12 for _, a, b in bars)
            blocks.append(Block("bars", label + (f" {MARK}{WORDS['changed']}" if moved else ""),
                                bars=bars))
            if table.mean is not None:
                blocks.append(Block("para", _mean_line(table, before[index] if index < len(before) else None)))
            if table.note:
                blocks.append(Block("para", words(table.note)))
    return blocks


def _bar_label(value: Any, label: str | None) -> str:
    # start-up: .diff_render loads only when _bar_label() runs
    from .diff_render import outcome_label

    return outcome_label(value, label, "ja")


def _mean_line(table: ProbTable, base: ProbTable | None) -> str:
    """``平均（一度きりの結果の期待個数）: 91/144（約0.632）``, with the base's mean where it moved."""
    # start-up: interpreter.engine.trace loads only when _mean_line() runs
    from interpreter.engine.trace import fraction_text

    def shown(mean: Any) -> str:
        text = fraction_text(mean)
        return f"{text}（約{float(mean):.3g}）" if "/" in text else text

    line = f"平均（{table.mean_label}）: " if table.mean_label else "平均: "
    line += shown(table.mean)
    if base is not None and base.mean is not None and base.mean != table.mean:
        line = f"{MARK}{line}（{WORDS['base']}: {shown(base.mean)}）"
    return line


def handout(path: str | Path, *, as_html: bool = False, base: str | Path | None = None,
            lang: str = "ja", gm: bool = False) -> str:
    """The handout of the ruleset at ``path`` for players (``gm``: for the GM, with ids,
    parameters and formulas), marking what changed from ``base`` (default: the root of its
    ``extends`` graph; none for a ruleset that extends nothing)."""
    return handout_made(path, as_html=as_html, base=base, lang=lang, gm=gm)[0]


def handout_made(path: str | Path, *, as_html: bool = False, base: str | Path | None = None,
                 lang: str = "ja", gm: bool = False) -> tuple[str, list[Ruleset]]:
    """``handout(...)`` and the rulesets it was made from (the ruleset, then its base if any)."""
    # start-up: interpreter.checks.loading loads only when handout() runs
    from interpreter.checks.loading import load_ruleset

    from interpreter.ruleset.cache import holding_two  # start-up: loaded with load_ruleset's module

    with holding_two():  # the ruleset and the base it is compared with, held at once
        ruleset = load_ruleset(path, lang=lang)
        base_path = Path(base) if base is not None else root_of(ruleset)
        based = load_ruleset(base_path, lang=lang) if base_path else None
    diff = compare(based, ruleset, "ja") if based is not None else None
    blocks = build(ruleset, diff, gm=gm)
    text = render_html(blocks) if as_html else render_markdown(blocks)
    return text, [ruleset] + ([based] if based is not None else [])
