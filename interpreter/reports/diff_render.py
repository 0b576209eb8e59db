"""``mprules diff`` as text (for a terminal) and as Markdown (for a handout), in Japanese or English;
the JSON form is ``Diff.to_json`` itself."""
from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from interpreter.reports.diff import Diff
from interpreter.engine.trace import jsonable
from rules_dsl.words import (ASIDE, LANGS, LIST_SEPARATOR, define_word, define_words, is_text, localized,
                             vocabulary, word)

WORDS = define_words(
    "diff",
    {"params": "Ruleset parameters", "added": "Rules added", "removed": "Rules removed",
     "not_adopted": "Rules not adopted", "adopted": "Rules now adopted", "none": "none",
     "changes": "Changed rules", "probabilities": "Probabilities and values that move",
     "param": "parameter", "row": "row", "field": "field", "replaced": "document replaced",
     "added_row": "added", "removed_row": "removed", "changed_row": "changed",
     "probe": "probe", "value": "value", "outcome": "outcome", "before": "base",
     "after": "variant", "change": "change", "mean": "mean", "no_change": "no differences",
     "warnings": "Warnings", "no_input": "no input", "moved_row": "moved",
     "campaign": "Campaign wiring", "first": "first", "after_key": "after {key}",
     "replaced_by": "document replaced by {layer}", "only_in": "the {lang} text only",
     "based_on": "{rule}, over {base}:"},
    {"params": "ルールセットのパラメータ", "added": "追加されたルール", "removed": "削除されたルール",
     "not_adopted": "採用しないルール", "adopted": "新たに採用するルール", "none": "なし",
     "changes": "変更されたルール", "probabilities": "変わる確率と値",
     "param": "パラメータ", "row": "行", "field": "項目", "replaced": "文書ごと置き換え",
     "added_row": "追加", "removed_row": "削除", "changed_row": "変更",
     "probe": "入力例", "value": "値", "outcome": "結果", "before": "基本",
     "after": "ハウスルール", "change": "差", "mean": "平均", "no_change": "差分はありません",
     "warnings": "警告", "no_input": "入力なし", "moved_row": "順序の変更",
     "campaign": "キャンペーンの配線", "first": "先頭", "after_key": "{key} の後",
     "replaced_by": "{layer} が文書ごと置き換え", "only_in": "{lang}の文だけ",
     "based_on": "{rule}（{base} との違い）:"})
LANGUAGE_NAMES = define_words("diff.language", dict(zip(LANGS, ("Japanese", "English"))),
                              dict(zip(LANGS, ("日本語", "英語"))))
RECORD_SEPARATOR = define_word("diff.record_separator", " / ", "／")
BRACKETED = define_word("diff.bracketed", "({text})", "（{text}）")


def words(lang: str) -> dict[str, str]:
    return vocabulary(WORDS, lang)


def show(value: Any) -> str:
    """A value on one line: strings bare, everything else as compact JSON."""
    plain = jsonable(value)
    if isinstance(plain, str):
        return plain
    return json.dumps(plain, ensure_ascii=False, separators=(", ", ": "))


LABEL_FIELDS = ("label", "title", "text", "name")
_PLAIN_ITEMS = frozenset((int, str))  # exactly these types: a bool or a float is shown its own way


def readable(value: Any, lang: str, params: Mapping[str, Any] | None = None, whole: bool = False) -> str:
    """A value in words, as a player reads it: lists joined (``合金、重黒鉄``), texts in ``lang``,
    a row or an entry by its label (its ``{placeholders}`` filled with ``params``) and value,
    other mappings (and, with ``whole``, every mapping) as ``name: value`` pairs, a mapping inside
    them in brackets; ``なし``/``none`` for nothing."""
    # start-up: rules_dsl.template loads only when readable() runs
    from rules_dsl.template import show as template_show

    if type(value) is list and value and set(map(type, value)) <= _PLAIN_ITEMS:
        # a list of whole numbers and texts (a parameter of 500,000 values): each distinct item
        # shown once, joined as the general way below joins them
        shown = {item: item if type(item) is str else template_show(item, lang) for item in set(value)}
        return word(LIST_SEPARATOR, lang).join(map(shown.__getitem__, value))
    value = jsonable(value) if not isinstance(value, (Fraction, int, str, bool)) else value
    if value is None or value == [] or value == {}:
        return words(lang)["none"]  # looked up only here: a list of many values is read item by item
    if isinstance(value, (bool, int, Fraction)):
        return template_show(value, lang)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        records = any(isinstance(v, dict) and not is_text(v)
                      and (whole or not any(k in v for k in LABEL_FIELDS)) for v in value)
        joiner = word(RECORD_SEPARATOR if records else LIST_SEPARATOR, lang)
        return joiner.join(readable(v, lang, params, whole) for v in value)
    if isinstance(value, dict):
        if is_text(value):
            return _fill(localized(value, lang), lang, params)
        for key in LABEL_FIELDS if not whole else ():
            if key in value:
                label = readable(value[key], lang, params)
                extra = value.get("value")
                return label if extra is None or isinstance(extra, (dict, list)) else \
                    word(ASIDE, lang).format(text=label, aside=readable(extra, lang))
        return word(LIST_SEPARATOR, lang).join(
            f"{k}: {_bracketed(v, lang, params, whole)}" for k, v in value.items())
    return show(value)


def _bracketed(value: Any, lang: str, params: Mapping[str, Any] | None, whole: bool) -> str:
    """A value inside a ``name: value`` pair; a mapping in brackets, so its pairs stay its own."""
    shown = readable(value, lang, params, whole)
    if isinstance(value, dict) and value and not is_text(value):
        return word(BRACKETED, lang).format(text=shown)
    return shown


def id_names(params: Mapping[str, Any] | None, lang: str) -> dict[str, str]:
    """What a rule's own data calls its ids: each ``{id, ...}`` entry of a parameter's list that
    carries a name (``ja``/``en`` beside the id, a ``title`` or a ``label``), e.g. an attack's steps."""
    names: dict[str, str] = {}
    for value in (params or {}).values():
        for item in value if isinstance(value, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                continue
            text = {k: item[k] for k in LANGS if k in item} or item.get("title") or item.get("label")
            if text:
                names[item["id"]] = readable(text, lang)
    return names


def named(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` with every text that is one of ``names``' ids replaced by its name."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [named(v, names) for v in value]
    return value


def outcome_label(value: Any, label: str | None, lang: str) -> str:
    """An outcome of a distribution as a player reads it: by its label (a row's text, a verdict),
    a number with its label beside it unless the label already says it (``7 空き巣…``), and a
    value without a label in words."""
    if not label:
        return readable(value, lang)
    if isinstance(value, int) and not isinstance(value, bool) and str(value) not in label:
        return f"{value} {label}"
    return label


def _fill(text: str, lang: str, params: Mapping[str, Any] | None) -> str:
    """``text`` with its ``{expression}`` placeholders filled from ``params`` (as written when
    they cannot be)."""
    if params is None or "{" not in text:
        return text
    # start-up: rules_dsl.errors, rules_dsl.template load only when _fill() runs
    from rules_dsl.errors import MprError
    from rules_dsl.template import compile_template

    try:
        return compile_template(text).render({"params": dict(params)}, lang)
    except MprError:
        return text


def _params(diff: Diff, rule_id: str, side: str) -> Mapping[str, Any] | None:
    ruleset = diff.base if side == "old" else diff.variant
    rule = ruleset.rules.get(rule_id)
    return rule.params if rule is not None else None


def _percent(p: dict[str, Any]) -> str:
    return f"{p['percent']:.2f}%"


def _delta(d: float) -> str:
    return f"{d:+.2f}"


def _rule_lines(diff: Diff, w: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Per changed rule: a heading and its change lines in words (shared by text and Markdown):
    values as lists and texts, rows by their labels filled with each side's parameters."""
    out = []
    lang = diff.lang
    for change in diff.changes:
        old_params, new_params = _params(diff, change.rule, "old"), _params(diff, change.rule, "new")
        lines = []
        if change.replaced:
            by = change.replaced_by or {}
            line = w["replaced_by"].format(layer=by["layer"]) if by.get("layer") else w["replaced"]
            if by.get("rule") not in (None, change.rule):
                line = word(ASIDE, lang).format(text=line, aside=by["rule"])
            lines.append(line)
        old_names, new_names = id_names(old_params, lang), id_names(new_params, lang)
        for p in change.params:
            deep = _deep(p["old"], p["new"], p["name"])
            if deep is not None:
                lines += [line if line.startswith("  ") else f"{w['param']} {line}  [{p['layer']}]"
                          for line in field_lines(deep, w, lang, old_params, new_params)]
                continue
            lines.append(f"{w['param']} {p['name']}: {readable(named(p['old'], old_names), lang)}"
                         f" -> {readable(named(p['new'], new_names), lang)}  [{p['layer']}]")
        for r in change.rows:
            body = readable(r["new"], lang, new_params) if r["new"] is not None \
                else readable(r["old"], lang, old_params)
            if r["change"] == "changed":
                body = f"{readable(r['old'], lang, old_params)} -> {readable(r['new'], lang, new_params)}"
            layer = f"  [{r['layer']}]" if r["layer"] else ""
            lines.append(f"{w['row']} {r['row']}: {w[r['change'] + '_row']} {body}{layer}")
        lines += [line if line.startswith("  ") else f"{w['field']} {line}"
                  for line in field_lines(change.fields, w, lang, old_params, new_params)]
        out.append((f"{change.rule} {change.title} ({change.kind})", lines))
    return out


def _deep(old: Any, new: Any, name: str) -> list[dict[str, Any]] | None:
    """A parameter whose both values are mappings or keyed lists, as its changes field by field."""
    # start-up: .doc_diff loads only when a parameter is compared
    from .doc_diff import changes, list_key

    if not ((isinstance(old, dict) and isinstance(new, dict)) or (list_key(old) and list_key(old) == list_key(new))):
        return None
    return [c.to_json() for c in changes(old, new, (name,))]


def field_lines(fields: list[dict[str, Any]], w: dict[str, str], lang: str,
                old_params: Mapping[str, Any] | None, new_params: Mapping[str, Any] | None) -> list[str]:
    """Each changed field in words: ``challenge: a -> max(1, a)``; an item added, removed
    or moved in a keyed list; a multi-line text as the lines that changed (``- old``, ``+ new``)."""
    out = []
    for f in fields:
        head = f"{f['field']}: "
        what = w[f["change"] + "_row"]
        if "after" in f:
            what = word(ASIDE, lang).format(
                text=what, aside=w["first"] if f["after"] is None else w["after_key"].format(key=f["after"]))
        if f["change"] == "added":
            out.append(head + what + " " + readable(f["new"], lang, new_params, whole=True))
        elif f["change"] == "removed":
            out.append(head + what + " " + readable(f["old"], lang, old_params, whole=True))
        elif f["change"] == "moved":
            out.append(head + what)
        elif f.get("lines"):
            for text_lang, changed in f["lines"].items():
                name = f["field"] if text_lang == lang else word(ASIDE, lang).format(
                    text=f["field"], aside=vocabulary(LANGUAGE_NAMES, lang)[text_lang])
                out.append(f"{name}:")
                out += [f"  {line}" for line in changed]
        else:
            out.append(head + changed_value(f["old"], f["new"], w, lang, old_params, new_params))
    return out


def changed_value(old: Any, new: Any, w: dict[str, str], lang: str,
                  old_params: Mapping[str, Any] | None, new_params: Mapping[str, Any] | None) -> str:
    """``old -> new`` in words; where the words of ``lang`` read the same on both sides, the words
    of the language that differs (a text changed only in English), else the values as written."""
    before, after = readable(old, lang, old_params), readable(new, lang, new_params)
    if before != after:
        return f"{before} -> {after}"
    for other in LANGS:
        if other != lang and readable(old, other, old_params) != readable(new, other, new_params):
            return word(ASIDE, lang).format(
                text=f"{readable(old, other, old_params)} -> {readable(new, other, new_params)}",
                aside=w["only_in"].format(lang=vocabulary(LANGUAGE_NAMES, lang)[other]))
    return f"{show(old)} -> {show(new)}"


def _based_lines(diff: Diff, w: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Per added rule written over another document (``based_on``): what it writes over that one."""
    out = []
    lang = diff.lang
    for entry in diff.added:
        if "based_on" not in entry:
            continue
        params = _params(diff, entry["rule"], "new")
        body = [f"{w['param']} {p['name']}: {readable(p['old'], lang)} -> {readable(p['new'], lang, params)}"
                for p in entry["params"]]
        body += [line if line.startswith("  ") else f"{w['field']} {line}"
                 for line in field_lines(entry["fields"], w, lang, None, params)]
        out.append((w["based_on"].format(rule=entry["rule"], base=entry["based_on"]), body))
    return out


def _list(entries: list[dict[str, Any]], w: dict[str, str]) -> str:
    return ", ".join(f"{e['rule']} ({e['title']})" for e in entries) or w["none"]


def _probe_head(entry: dict[str, Any], w: dict[str, str]) -> str:
    # start-up: .diff loads only when _probe_head() runs
    from .diff import DEFAULT_PROBE

    probe = w["no_input"] if entry["probe"] == DEFAULT_PROBE else f"{w['probe']} “{entry['probe']}”"
    return f"{entry['rule']} {entry['title']} — {probe}"


def _table_title(table: dict[str, Any]) -> str:
    """The table's title; when the variant's differs, what changed in it (``±2 -> ±3``)."""
    old, new = table.get("old_title"), table["title"]
    if not old or old == new:
        return new
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    while start and (old[start - 1].isdigit() or old[start - 1] in "+-±."):  # a number stays whole
        start -= 1
    while end and (old[len(old) - end].isdigit() or old[len(old) - end] == "."):
        end -= 1
    before, after = old[start:len(old) - end], new[start:len(new) - end]
    if start + end < 8 or any(mark in before + after for mark in ("、", ", ", "（", "(", ":")):
        return f"{old} -> {new}"
    return f"{old[:start]}{before} -> {after}{old[len(old) - end:]}"


def _value_lines(entry: dict[str, Any], w: dict[str, str], lang: str) -> list[str]:
    """A value probe: what differs, one part per line (``value shares.A.total: 1 -> 2``)
    when both sides give a mapping, else the whole value."""
    # start-up: .diff loads only when _value_lines() runs
    from .diff import changed_leaves

    changes = changed_leaves(entry["old"], entry["new"]) if entry["old"] is not None else []
    if not changes or changes[0][0] == ():
        return [f"{w['value']}: {readable(entry['old'], lang)} -> {readable(entry['new'], lang)}"]
    return [f"{w['value']} {'.'.join(map(str, path))}: {readable(old, lang)} -> {readable(new, lang)}"
            for path, old, new in changes]


def render_text(diff: Diff) -> str:
    w = words(diff.lang)
    lines = [f"{diff.base.id} -> {diff.variant.id}", ""]
    lines.append(f"{w['params']}:" + ("" if diff.parameters else f" {w['none']}"))
    lines.extend(f"  {p['path']}: {readable(p['old'], diff.lang, whole=True)} -> "
                 f"{readable(p['new'], diff.lang, whole=True)}" for p in diff.parameters)
    for key in ("added", "removed", "not_adopted", "adopted"):
        lines.append(f"{w[key]}: {_list(getattr(diff, key), w)}")
        if key == "added":
            for head, body in _based_lines(diff, w):
                lines.append(f"  {head}")
                lines.extend(f"    {line}" for line in body)
    if diff.campaign:
        lines.append(f"{w['campaign']}:")
        lines.extend(f"  {line}" for line in field_lines(diff.campaign, w, diff.lang, None, None))
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
            lines.extend(f"    {line}" for line in _value_lines(entry, w, diff.lang))
            continue
        for table in entry["tables"]:
            if not table["moved"]:
                continue
            lines.append(f"    {_table_title(table)}")
            width = max((_width(_label(r, diff.lang)) for r in table["rows"] if r["moved"]), default=0)
            for row in table["rows"]:
                if row["moved"]:
                    label = _label(row, diff.lang)
                    lines.append(f"      {label}{' ' * (width - _width(label))}  {_percent(row['old']):>7} -> "
                                 f"{_percent(row['new']):>7}  ({_delta(row['delta_percent'])})  "
                                 f"{row['old']['p']} -> {row['new']['p']}")
            lines.extend(f"      {note}" for note in _notes(table, w, diff.lang))
    if diff.warnings:
        lines += ["", f"{w['warnings']}:"]
        lines.extend(f"  {d.code} {d.message}" for d in diff.warnings)
    return "\n".join(lines)


def _width(text: str) -> int:
    """Columns a string takes in a terminal (wide East Asian characters count 2)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _label(row: dict[str, Any], lang: str = "en") -> str:
    return outcome_label(row["value"], row.get("label"), lang)


def _mean(value: Any) -> str:
    """An exact mean with its decimal value: ``115/144 (0.799)``."""
    shown = show(value)
    if "/" in shown:
        number = Fraction(shown)
        return f"{shown} ({float(number):.3g})"
    return shown


def _notes(table: dict[str, Any], w: dict[str, str], lang: str = "en") -> list[str]:
    """The mean (named by what it is the mean of) and the note of a table, where they moved."""
    notes = []
    if table["old_mean"] != table["new_mean"]:
        label = table.get("mean_label") or table["title"]
        head = word(ASIDE, lang).format(text=w["mean"], aside=label) + ": "
        old = "" if table["old_mean"] is None else f"{_mean(table['old_mean'])} -> "
        notes.append(head + old + ("-" if table["new_mean"] is None else _mean(table["new_mean"])))
    old_note, new_note = table.get("old_note"), table.get("new_note")
    if old_note != new_note:
        notes.append(str(new_note) if old_note is None else f"{old_note} -> {new_note or '-'}")
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
        lines += [f"| `{p['path']}` | {_cell(readable(p['old'], diff.lang, whole=True))} | "
                  f"{_cell(readable(p['new'], diff.lang, whole=True))} |" for p in diff.parameters]
        lines.append("")
    for key in ("added", "removed", "not_adopted", "adopted"):
        lines.append(f"- **{w[key]}**: {_list(getattr(diff, key), w)}")
        if key == "added":
            for head, body in _based_lines(diff, w):
                lines.append(f"  - {head}")
                lines.extend(f"      - `{line.strip()}`" if line.startswith("  ") else f"    - {line}"
                             for line in body)
    if diff.campaign:
        lines.append(f"- **{w['campaign']}**")
        lines.extend(f"  - {_cell(line)}" for line in field_lines(diff.campaign, w, diff.lang, None, None))
    lines += ["", f"{sub} {w['changes']}", ""]
    for head, body in _rule_lines(diff, w) or [(w["none"], [])]:
        lines.append(f"- **{head}**")
        lines.extend(f"    - `{line.strip()}`" if line.startswith("  ") else f"  - {line}" for line in body)
    lines += ["", f"{sub} {w['probabilities']}", ""]
    if not diff.probabilities:
        lines.append(w["none"])
    for entry in diff.probabilities:
        lines.append(f"**{_probe_head(entry, w)}**")
        lines.append("")
        if entry["type"] == "value":
            lines += [f"- {_cell(line)}" for line in _value_lines(entry, w, diff.lang)] + [""]
            continue
        for table in entry["tables"]:
            if not table["moved"]:
                continue
            lines += [f"*{_table_title(table)}*", "",
                      f"| {w['outcome']} | {w['before']} | {w['after']} | {w['change']} |",
                      "|---|---:|---:|---:|"]
            lines += [f"| {_cell(_label(r, diff.lang))} | {_percent(r['old'])} | {_percent(r['new'])} | "
                      f"{_delta(r['delta_percent'])} |" for r in table["rows"] if r["moved"]]
            lines += [""] + [f"- {n}" for n in _notes(table, w, diff.lang)] + [""]
    # start-up: .handout_render loads only when a diff is written as Markdown
    from .handout_render import md_text

    return md_text("\n".join(lines).rstrip()) + "\n"  # a document's text never opens a tag
