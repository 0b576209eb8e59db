"""``mprules diff`` as text (for a terminal) and as Markdown (for a handout), in Japanese or English;
the JSON form is ``Diff.to_json`` itself."""
from __future__ import annotations

import json
from typing import Any

from .diff import Diff
from .trace import jsonable

WORDS = {
    "en": {"params": "Ruleset parameters", "added": "Rules added", "removed": "Rules removed",
           "not_adopted": "Rules not adopted", "adopted": "Rules now adopted", "none": "none",
           "changes": "Changed rules", "probabilities": "Probabilities and values that move",
           "param": "parameter", "row": "row", "field": "field", "replaced": "document replaced",
           "added_row": "added", "removed_row": "removed", "changed_row": "changed",
           "probe": "probe", "value": "value", "outcome": "outcome", "before": "base",
           "after": "variant", "change": "change", "mean": "mean", "no_change": "no differences",
           "warnings": "Warnings"},
    "ja": {"params": "ルールセットのパラメータ", "added": "追加されたルール", "removed": "削除されたルール",
           "not_adopted": "採用しないルール", "adopted": "新たに採用するルール", "none": "なし",
           "changes": "変更されたルール", "probabilities": "変わる確率と値",
           "param": "パラメータ", "row": "行", "field": "項目", "replaced": "文書ごと置き換え",
           "added_row": "追加", "removed_row": "削除", "changed_row": "変更",
           "probe": "入力例", "value": "値", "outcome": "結果", "before": "基本",
           "after": "ハウスルール", "change": "差", "mean": "平均", "no_change": "差分はありません",
           "warnings": "警告"},
}


def words(lang: str) -> dict[str, str]:
    return WORDS["ja" if lang == "ja" else "en"]


def show(value: Any) -> str:
    """A value on one line: strings bare, everything else as compact JSON."""
    plain = jsonable(value)
    if isinstance(plain, str):
        return plain
    return json.dumps(plain, ensure_ascii=False, separators=(", ", ": "))


def _percent(p: dict[str, Any]) -> str:
    return f"{p['percent']:.2f}%"


def _delta(d: float) -> str:
    return f"{d:+.2f}"


def _rule_lines(diff: Diff, w: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Per changed rule: a heading and its change lines (shared by text and Markdown)."""
    out = []
    for change in diff.changes:
        lines = [w["replaced"]] if change.replaced else []
        for p in change.params:
            lines.append(f"{w['param']} {p['name']}: {show(p['old'])} -> {show(p['new'])}  [{p['layer']}]")
        for r in change.rows:
            body = show(r["new"] if r["new"] is not None else r["old"])
            if r["change"] == "changed":
                body = f"{show(r['old'])} -> {show(r['new'])}"
            layer = f"  [{r['layer']}]" if r["layer"] else ""
            lines.append(f"{w['row']} {r['row']}: {w[r['change'] + '_row']} {body}{layer}")
        for f in change.fields:
            lines.append(f"{w['field']} {f['field']}: {show(f['old'])} -> {show(f['new'])}")
        out.append((f"{change.rule} {change.title} ({change.kind})", lines))
    return out


def _list(entries: list[dict[str, Any]], w: dict[str, str]) -> str:
    return ", ".join(f"{e['rule']} ({e['title']})" for e in entries) or w["none"]


def _probe_head(entry: dict[str, Any], w: dict[str, str]) -> str:
    return f"{entry['rule']} {entry['title']} — {w['probe']} “{entry['probe']}”"


def _table_title(table: dict[str, Any]) -> str:
    old = table.get("old_title")
    return table["title"] if not old or old == table["title"] else f"{old} -> {table['title']}"


def render_text(diff: Diff) -> str:
    w = words(diff.lang)
    lines = [f"{diff.base.id} -> {diff.variant.id}", ""]
    lines.append(f"{w['params']}: " + ("; ".join(
        f"{p['path']}: {show(p['old'])} -> {show(p['new'])}" for p in diff.parameters) or w["none"]))
    for key in ("added", "removed", "not_adopted", "adopted"):
        lines.append(f"{w[key]}: {_list(getattr(diff, key), w)}")
    lines += ["", f"{w['changes']}:"]
    for head, body in _rule_lines(diff, w) or [(w["none"], [])]:
        lines.append(f"  {head}")
        lines.extend(f"    {line}" for line in body)
    lines += ["", f"{w['probabilities']}:"]
    if not diff.probabilities:
        lines.append(f"  {w['none']}")
    for entry in diff.probabilities:
        lines.append(f"  {_probe_head(entry, w)}")
        if entry["type"] == "value":
            lines.append(f"    {w['value']}: {show(entry['old'])} -> {show(entry['new'])}")
            continue
        for table in entry["tables"]:
            if not table["moved"]:
                continue
            lines.append(f"    {_table_title(table)}")
            width = max((_width(_label(r)) for r in table["rows"] if r["moved"]), default=0)
            for row in table["rows"]:
                if row["moved"]:
                    label = _label(row)
                    lines.append(f"      {label}{' ' * (width - _width(label))}  {_percent(row['old']):>7} -> "
                                 f"{_percent(row['new']):>7}  ({_delta(row['delta_percent'])})  "
                                 f"{row['old']['p']} -> {row['new']['p']}")
            lines.extend(f"      {note}" for note in _notes(table, w))
    if diff.warnings:
        lines += ["", f"{w['warnings']}:"]
        lines.extend(f"  {d.code} {d.message}" for d in diff.warnings)
    return "\n".join(lines)


def _width(text: str) -> int:
    """Columns a string takes in a terminal (wide East Asian characters count 2)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _label(row: dict[str, Any]) -> str:
    value = show(row["value"])
    return f"{row['label']}" if row.get("label") and row["label"] != value else value


def _notes(table: dict[str, Any], w: dict[str, str]) -> list[str]:
    notes = []
    if table["old_mean"] != table["new_mean"]:
        notes.append(f"{w['mean']}: {show(table['old_mean'])} -> {show(table['new_mean'])}")
    if table.get("old_note") != table.get("new_note"):
        notes.append(f"{table.get('old_note') or '-'} -> {table.get('new_note') or '-'}")
    return notes


def _cell(text: Any) -> str:
    return show(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(diff: Diff, heading: str = "##") -> str:
    """The diff as Markdown sections (``heading`` is the level of the top sections)."""
    w = words(diff.lang)
    sub = heading + "#"
    lines = [f"{heading} {diff.base.id} → {diff.variant.id}", ""]
    if diff.parameters:
        lines += [f"| {w['params']} | {w['before']} | {w['after']} |", "|---|---|---|"]
        lines += [f"| `{p['path']}` | {_cell(p['old'])} | {_cell(p['new'])} |" for p in diff.parameters]
        lines.append("")
    for key in ("added", "removed", "not_adopted", "adopted"):
        lines.append(f"- **{w[key]}**: {_list(getattr(diff, key), w)}")
    lines += ["", f"{sub} {w['changes']}", ""]
    for head, body in _rule_lines(diff, w) or [(w["none"], [])]:
        lines.append(f"- **{head}**")
        lines.extend(f"  - {line}" for line in body)
    lines += ["", f"{sub} {w['probabilities']}", ""]
    if not diff.probabilities:
        lines.append(w["none"])
    for entry in diff.probabilities:
        lines.append(f"**{_probe_head(entry, w)}**")
        lines.append("")
        if entry["type"] == "value":
            lines += [f"- {w['value']}: {_cell(entry['old'])} → {_cell(entry['new'])}", ""]
            continue
        for table in entry["tables"]:
            if not table["moved"]:
                continue
            lines += [f"*{_table_title(table)}*", "",
                      f"| {w['outcome']} | {w['before']} | {w['after']} | {w['change']} |",
                      "|---|---:|---:|---:|"]
            lines += [f"| {_cell(_label(r))} | {_percent(r['old'])} | {_percent(r['new'])} | "
                      f"{_delta(r['delta_percent'])} |" for r in table["rows"] if r["moved"]]
            lines += [""] + [f"- {n}" for n in _notes(table, w)] + [""]
    return "\n".join(lines).rstrip() + "\n"
