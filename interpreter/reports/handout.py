"""A Japanese handout of a ruleset's adopted rules (``mprules doc``): titles and texts from the
documents, parameters and rows as tables, probability bars for the probes of rolled rules, and a ★
on everything a variant changed from its base; rendered as Markdown or as self-contained HTML."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules_dsl.errors import MprError

from interpreter.reports.diff import DEFAULT_PROBE, Diff, compare, outcome, probes
from interpreter.reports.diff_render import id_names, named, show
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.ruleset.texts import named_values
from interpreter.engine.trace import ProbTable
from rules_dsl.words import localized

MARK = "★"
_HALF_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９－", "0123456789-")
ROW_FIELDS = ("roll", "label", "text", "each", "as", "when", "value", "tags")
WORDS = {
    "params": "パラメータ", "value": "値", "meaning": "説明", "rows": "表", "row": "行",
    "probabilities": "確率", "probe": "入力例", "outcome": "結果", "p": "確率",
    "changed": "変更", "added": "追加", "base": "基本", "not_adopted": "採用しないルール",
    "removed": "削除されたルール", "intro": "このハンドアウトは mprules doc で作成しました。",
    "marks": "基本ルールセット {base} から変わった箇所に ★ を付けています。", "none": "なし",
    "contents": "目次", "no_input": "入力なし",
    "stale": "この本文は基本ルールセットのものです。このハウスルールでは {notes} です。",
}
ROW_HEADERS = {"roll": "出目", "label": "内容", "text": "内容", "each": "対象", "as": "名前",
               "when": "条件", "value": "値", "tags": "タグ"}


@dataclass
class Block:
    """One piece of the handout: a heading, a paragraph, a table or probability bars."""

    kind: str  # "heading" | "para" | "table" | "bars"
    text: str = ""
    level: int = 2
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    marks: list[bool] = field(default_factory=list)
    bars: list[tuple[str, float, float | None]] = field(default_factory=list)  # label, p, base p
    anchor: str | None = None
    links: list[str | None] = field(default_factory=list)  # per row: the anchor its title links to


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


def _source_key(rule: Rule) -> tuple:
    match = re.fullmatch(r"R(\d+)", str(rule.source or ""))
    return (int(match.group(1)) if match else -1, rule.id)


def build(ruleset: Ruleset, diff: Diff | None) -> list[Block]:
    """The handout's blocks, rule by rule in the order of their ``source`` numbers."""
    title = player_text(ruleset.manifest.get("title") or ruleset.id)
    blocks = [Block("heading", title, level=1)]
    intro = WORDS["intro"]
    if diff is not None:
        intro += WORDS["marks"].format(base=diff.base.id)
    blocks.append(Block("para", intro))
    if ruleset.manifest.get("text"):
        blocks.append(Block("para", player_text(ruleset.manifest["text"])))
    adopted = sorted((r for r in ruleset.rules.values() if r.adopted), key=_source_key)
    blocks.append(Block("heading", WORDS["contents"], level=2))
    blocks.append(Block("table", header=["", "ルール", "ID"], rows=[
        [str(r.source or ""), r.title("ja"), r.id] for r in adopted],
        marks=[_rule_mark(r, diff) is not None for r in adopted], links=[r.id for r in adopted]))
    for rule in adopted:
        blocks.extend(_rule_blocks(ruleset, rule, diff))
    left_out = sorted((r for r in ruleset.rules.values() if not r.adopted), key=_source_key)
    newly = {e["rule"] for e in diff.not_adopted} if diff else set()
    blocks.append(Block("heading", WORDS["not_adopted"], level=2))
    blocks.append(Block("table", header=["", "ルール", "ID"],
                        rows=[[str(r.source or ""), r.title("ja"), r.id] for r in left_out]
                        or [["", WORDS["none"], ""]],
                        marks=[r.id in newly for r in left_out] or [False]))
    if diff is not None and diff.removed:
        blocks.append(Block("heading", WORDS["removed"], level=2))
        blocks.append(Block("table", header=["ルール", "ID"], marks=[True] * len(diff.removed),
                            rows=[[e["title"], e["rule"]] for e in diff.removed]))
    return blocks


def _rule_mark(rule: Rule, diff: Diff | None) -> str | None:
    if diff is None:
        return None
    if any(e["rule"] == rule.id for e in diff.added):
        return WORDS["added"]
    if diff.change_of(rule.id) or any(e["rule"] == rule.id for e in diff.adopted + diff.probabilities):
        return WORDS["changed"]
    return None


def _rule_blocks(ruleset: Ruleset, rule: Rule, diff: Diff | None) -> list[Block]:
    mark = _rule_mark(rule, diff)
    head = f"{rule.source or ''} {rule.title('ja')}".strip()
    blocks = [Block("heading", head + (f" {MARK}{mark}" if mark else ""), level=2, anchor=rule.id)]
    blocks.append(Block("para", f"`{rule.id}`"))
    change = diff.change_of(rule.id) if diff else None
    old_params = {p["name"]: p["old"] for p in change.params} if change else {}
    text = rule.doc.get("text")
    if text:
        blocks.extend(_text_blocks(player_text(text), old_params, rule.params))
    if rule.params:
        docs = rule.doc.get("param_docs") or {}
        names = id_names(rule.params, "ja")
        rows, marks = [], []
        for name, value in rule.params.items():
            changed = name in old_params
            cell = player_text(named(value, names)) + (
                f"（{WORDS['base']}: {player_text(named(old_params[name], names))}）" if changed else "")
            rows.append([name + (f" {MARK}" if changed else ""), cell, player_text(docs.get(name, ""))])
            marks.append(changed)
        blocks.append(Block("heading", WORDS["params"], level=3))
        blocks.append(Block("table", header=[WORDS["params"], WORDS["value"], WORDS["meaning"]],
                            rows=rows, marks=marks))
    if isinstance(rule.doc.get("rows"), list) and rule.doc["rows"]:
        blocks.extend(_row_blocks(rule, change))
    blocks.extend(_probability_blocks(ruleset, rule, diff))
    return blocks


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


def _text_blocks(text: str, old_params: dict[str, Any], params: dict[str, Any]) -> list[Block]:
    """The rule's quoted text; where a variant made it untrue (it states a parameter's base
    value), marked ★ with the variant's value beside the base one."""
    stale = stale_quotes(text, old_params, params)
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
    notes = "、".join(f"{name} は {old} ではなく {new}" for name, old, new in stale)
    return [Block("para", shown), Block("para", f"{MARK}{WORDS['stale'].format(notes=notes)}")]


def _cell_text(value: Any, rule: Rule) -> str:
    """A row's cell in words, its ``{placeholders}`` filled with the rule's parameters."""
    # start-up: interpreter.reports.diff_render loads only when _cell_text() runs
    from interpreter.reports.diff_render import readable

    return readable(value, "ja", rule.params) if value not in ("", None) else ""


def _row_blocks(rule: Rule, change: Any) -> list[Block]:
    # start-up: interpreter.reports.diff loads only when _row_blocks() runs
    from interpreter.reports.diff import _rows_by_key, rendered_row

    rows = {key: (index, rendered_row(rule, row)) for key, (index, row) in _rows_by_key(rule).items()}
    changed = {r["row"]: r["change"] for r in change.rows} if change else {}
    present = [f for f in ROW_FIELDS if any(isinstance(r, dict) and f in r for _, r in rows.values())]
    if "label" in present or "text" in present:  # a row reads by its label, not its conditions
        present = [f for f in present if f not in ("each", "as", "when")]
    table = Block("table", header=[WORDS["row"]] + [ROW_HEADERS[f] for f in present])
    for key, (_, row) in rows.items():
        how = changed.get(key)
        name = key + (f" {MARK}{WORDS[how]}" if how in ("added", "changed") else "")
        table.rows.append([name] + [_cell_text(row.get(f, ""), rule) if f in row else "" for f in present])
        table.marks.append(how is not None)
    return [Block("heading", WORDS["rows"], level=3), table]


def _probability_blocks(ruleset: Ruleset, rule: Rule, diff: Diff | None) -> list[Block]:
    # start-up: interpreter.engine loads only when _probability_blocks() runs
    from interpreter.engine import registry as kinds

    kind = kinds.get(rule.kind)
    if kind is None or kind.distribution is None:
        return []
    base_rule = diff.base.rules.get(rule.id) if diff else None
    blocks: list[Block] = []
    for probe in probes(rule, base_rule)[:5]:
        try:
            tables = outcome(ruleset, rule, probe, "ja")
        except MprError:
            continue
        before: list[ProbTable] = []
        if base_rule is not None and base_rule.adopted:
            try:
                before = outcome(diff.base, base_rule, probe, "ja")  # type: ignore[union-attr]
            except MprError:
                before = []
        if not blocks:
            blocks.append(Block("heading", WORDS["probabilities"], level=3))
        for index, table in enumerate(tables):
            old = {show(r.value): float(r.p) for r in before[index].rows} if index < len(before) else {}
            name = WORDS["no_input"] if probe.name == DEFAULT_PROBE else f"{WORDS['probe']}「{probe.name}」"
            label = f"{name}: {table.title}"
            bars = [(_bar_label(r.value, r.label), float(r.p),
                     old.get(show(r.value), 0.0) if old else None) for r in table.rows]
            moved = any(b is not None and abs(a - b) > 1e-12 for _, a, b in bars)
            blocks.append(Block("bars", label + (f" {MARK}{WORDS['changed']}" if moved else ""),
                                bars=bars))
            if table.mean is not None:
                blocks.append(Block("para", _mean_line(table, before[index] if index < len(before) else None)))
            if table.note:
                blocks.append(Block("para", table.note))
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


def _percent(p: float) -> str:
    return f"{p * 100:.2f}%"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def _bar(p: float, width: int = 20) -> str:
    # start-up: interpreter.reports.bars loads only when _bar() runs
    from interpreter.reports.bars import bar

    return bar(p, width)


def render_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if b.kind == "heading":
            out += [f"{'#' * b.level} {b.text}", ""]
        elif b.kind == "para":
            out += [b.text, ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(b.header) + " |")
            out.append("|" + "---|" * len(b.header))
            for row, marked in zip(b.rows, b.marks or [False] * len(b.rows)):
                cells = [_md_cell(c) for c in row]
                if marked and not any(MARK in c for c in cells):
                    cells[0] = f"{MARK} {cells[0]}"
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        elif b.kind == "bars":
            out += [f"**{b.text}**", "", f"| {WORDS['outcome']} | {WORDS['p']} | |", "|---|---:|---|"]
            for label, p, old in b.bars:
                moved = old is not None and abs(old - p) > 1e-12
                cell = _percent(p) + (f" {MARK}（{WORDS['base']}: {_percent(old)}）" if moved else "")  # type: ignore[arg-type]
                out.append(f"| {_md_cell(label)} | {cell} | `{_bar(p) or '·'}` |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


CSS = """body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.6;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #bbb;padding:.2em .5em;vertical-align:top;overflow-wrap:anywhere}
tr.changed td{background:#fff3cd}.mark{color:#b8860b;font-weight:bold}
.bar{display:inline-block;height:.9em;background:#4a7bd0}.old{display:inline-block;height:.3em;background:#999}
code{background:#f3f3f3;padding:0 .2em}td.p{text-align:right;white-space:nowrap}td.label{min-width:10em}
td:first-child{white-space:nowrap}nav.toc a{color:inherit}
@media print{body{max-width:none;margin:0;font-size:10pt;line-height:1.45}
h1,h2,h3{break-after:avoid}h2{break-before:auto}table,tr,p{break-inside:avoid}
nav.toc{break-after:page}a{color:inherit;text-decoration:none}
.bar,.old,tr.changed td{-webkit-print-color-adjust:exact;print-color-adjust:exact}}"""
LABEL_HEADERS = frozenset({ROW_HEADERS["label"], WORDS["meaning"]})  # columns of prose, kept wide
LABEL_CELL = ' class="label"'


def _html_text(text: str) -> str:
    escaped = html.escape(text).replace("\n", "<br>")
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return escaped.replace(MARK, f'<span class="mark">{MARK}</span>')


def render_html(blocks: list[Block]) -> str:
    title = next((b.text for b in blocks if b.kind == "heading"), "mprules")
    out = ['<!DOCTYPE html>', '<html lang="ja"><head><meta charset="utf-8">',
           f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"]
    for b in blocks:
        if b.kind == "heading":
            anchor = f' id="{html.escape(b.anchor)}"' if b.anchor else ""
            out.append(f"<h{b.level}{anchor}>{_html_text(b.text)}</h{b.level}>")
        elif b.kind == "para":
            out.append(f"<p>{_html_text(b.text)}</p>")
        elif b.kind == "table":
            toc = bool(b.links)
            out.append(('<nav class="toc">' if toc else "") + "<table><tr>"
                       + "".join(f"<th>{html.escape(h)}</th>" for h in b.header) + "</tr>")
            for i, (row, marked) in enumerate(zip(b.rows, b.marks or [False] * len(b.rows))):
                cells = [_html_text(c) for c in row]
                if marked and not any(MARK in c for c in row):
                    cells[0] = f'<span class="mark">{MARK}</span> {cells[0]}'
                link = b.links[i] if i < len(b.links) else None
                if link:
                    cells[1] = f'<a href="#{html.escape(link)}">{cells[1]}</a>'
                cls = ' class="changed"' if marked else ""
                out.append(f"<tr{cls}>" + "".join(
                    f"<td{LABEL_CELL if h in LABEL_HEADERS else ''}>{c}</td>"
                    for h, c in zip(b.header, cells)) + "</tr>")
            out.append("</table>" + ("</nav>" if toc else ""))
        elif b.kind == "bars":
            out.append(f"<p><strong>{_html_text(b.text)}</strong></p><table>")
            for label, p, old in b.bars:
                moved = old is not None and abs(old - p) > 1e-12
                cls = ' class="changed"' if moved else ""
                base = (f' <span class="mark">{MARK}</span>（{WORDS["base"]}: {_percent(old)}）'  # type: ignore[arg-type]
                        if moved else "")
                old_bar = f'<br><span class="old" style="width:{old * 20:.2f}em"></span>' if moved else ""  # type: ignore[operator]
                out.append(f"<tr{cls}><td>{html.escape(label)}</td><td class=\"p\">{_percent(p)}{base}</td>"
                           f'<td style="width:22em"><span class="bar" style="width:{p * 20:.2f}em">'
                           f"</span>{old_bar}</td></tr>")
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def handout(path: str | Path, *, as_html: bool = False, base: str | Path | None = None,
            lang: str = "ja") -> str:
    """The handout of the ruleset at ``path``, marking what changed from ``base`` (default: the
    root of its ``extends`` graph; none for a ruleset that extends nothing)."""
    # start-up: interpreter.checks.loading loads only when handout() runs
    from interpreter.checks.loading import load_ruleset

    ruleset = load_ruleset(path, lang=lang)
    base_path = Path(base) if base is not None else base_of(Path(path))
    diff = compare(load_ruleset(base_path, lang=lang), ruleset, "ja") if base_path else None
    blocks = build(ruleset, diff)
    return render_html(blocks) if as_html else render_markdown(blocks)
