"""What a variant changes against its base (``mprules diff``): rules added, removed and (not) adopted,
every changed parameter and row, and for each probe input the exact probabilities (or values) that
move. The JSON shape is documented in docs/variants.md and is stable."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rules_dsl.dice import ScriptedDice
from rules_dsl.errors import MprError, define, diagnostic
from interpreter.reports.limits import MAX_DIFF_OUTCOMES, MAX_DIFF_PROBES

from interpreter.engine import registry as kinds
from interpreter.engine import runner as engine
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.trace import ProbTable, jsonable
from interpreter.ruleset.variants import row_key
from interpreter.reports import doc_diff

PROBE_FAILED = define(
    "MPR950", "probe {probe!r} of rule {rule} cannot run on {side}: {error} {detail}",
    "ルール {rule} のプローブ {probe!r} を {side} で実行できません: {error} {detail}",
    severity="warning")
TOO_MANY_OUTCOMES = define(
    "MPR952", "probe {probe!r} of rule {rule} has {count} outcomes on both sides, more than {limit}: "
    "its odds are not compared row by row",
    "ルール {rule} のプローブ {probe!r} の結果は両方で {count} 通りあり、{limit} を超えるので、確率を行ごとには比較しません",
    severity="warning")
TOO_MANY_PROBES = define(
    "MPR951", "rule {rule} has {count} probes; only the first {limit} are compared",
    "ルール {rule} のプローブが {count} 個あります。最初の {limit} 個だけを比較します",
    severity="warning")

# Fields compared on their own (parameters and rows), or that are no part of what a rule does (its
# tests and probes, the documentation of its parameters, the names that tie a document to another).
SKIPPED_FIELDS = ("id", "kind", "params", "rows", "examples", "probes", "param_docs", "replaces")
DEFAULT_PROBE = "default"  # the probe of a rule that declares none and accepts an empty input


@dataclass(frozen=True)
class Probe:
    """A representative input of a rule (``probes:`` of its documents or of a variant's override)."""

    name: str
    input: dict[str, Any]


@dataclass
class RuleChange:
    """How one rule present on both sides differs."""

    rule: str
    title: str
    kind: str
    replaced: bool = False
    replaced_by: dict[str, Any] | None = None  # the layer and file of the document that replaced it
    params: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    fields: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.replaced or self.params or self.rows or self.fields)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "title": self.title, "kind": self.kind, "replaced": self.replaced,
                "replaced_by": self.replaced_by, "params": self.params, "rows": self.rows, "fields": self.fields}


@dataclass
class Diff:
    """The whole comparison; ``to_json`` is the documented, stable shape."""

    base: Ruleset
    variant: Ruleset
    lang: str
    parameters: list[dict[str, Any]] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    not_adopted: list[dict[str, Any]] = field(default_factory=list)
    adopted: list[dict[str, Any]] = field(default_factory=list)
    changes: list[RuleChange] = field(default_factory=list)
    campaign: list[dict[str, Any]] = field(default_factory=list)  # the campaign wiring's changes
    probabilities: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[Any] = field(default_factory=list)
    outcomes: Outcomes | None = field(default=None, repr=False, compare=False)

    def outcome(self, ruleset: Ruleset, rule: Rule, probe: Probe, lang: str) -> list[ProbTable] | Any:
        """``outcome(...)`` on one side of this comparison, each computed once (see ``Outcomes``)."""
        if self.outcomes is None:
            self.outcomes = Outcomes(self.base, self.variant)
        return self.outcomes.of(ruleset, rule, probe, lang)

    def change_of(self, rule_id: str) -> RuleChange | None:
        return next((c for c in self.changes if c.rule == rule_id), None)

    def to_json(self) -> dict[str, Any]:
        side = lambda rs: {"id": rs.id, "root": rs.root, "layers": rs.layers}  # noqa: E731
        return jsonable({
            "base": side(self.base), "variant": side(self.variant),
            "parameters": self.parameters,
            "rules": {"added": self.added, "removed": self.removed,
                      "not_adopted": self.not_adopted, "adopted": self.adopted},
            "changes": [c.to_json() for c in self.changes],
            "campaign": self.campaign,
            "probabilities": self.probabilities,
            "warnings": [{"code": w.code, "severity": w.severity, "message": w.message}
                         for w in self.warnings]})


def _entry(rule: Rule, lang: str) -> dict[str, Any]:
    return {"rule": rule.id, "title": rule.title(lang), "kind": rule.kind, "layer": rule.layer}


def _added(variant: Ruleset, rule: Rule, lang: str) -> dict[str, Any]:
    """An added rule; one ``based_on`` another document also says what it writes over that one
    (``params``: name, old, new; ``fields``: as ``changes[].fields``)."""
    entry = _entry(rule, lang)
    base_id = rule.doc.get("based_on")
    base = variant.rules.get(base_id) or variant.bases.get(base_id) if isinstance(base_id, str) else None
    if base is None:
        return entry
    entry["based_on"] = base_id
    entry["params"] = [{"name": name, "old": base.params.get(name), "new": rule.params.get(name)}
                       for name in list(base.params) + [n for n in rule.params if n not in base.params]
                       if base.params.get(name) != rule.params.get(name)]
    own = ("abstract", "based_on", "title")  # what says which document it is, not what it does
    entry["fields"] = [c.to_json() for c in document_changes(
        {k: v for k, v in base.doc.items() if k not in own}, {k: v for k, v in rule.doc.items() if k not in own})]
    return entry


def _is_text(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= {"ja", "en"}


def changed_leaves(old: Any, new: Any, path: tuple = ()) -> list[tuple[tuple, Any, Any]]:
    """Where two values differ, as ``(path, old, new)``: mappings on both sides are compared key by
    key; anything else (a list, a ``{ja, en}`` text, a mapping only one side has) is one value."""
    if isinstance(old, dict) and isinstance(new, dict) and not _is_text(old) and not _is_text(new):
        out = []
        for key in list(old) + [k for k in new if k not in old]:
            out += changed_leaves(old.get(key), new.get(key), path + (key,))
        return out
    return [] if old == new else [(path, old, new)]


def rendered_row(rule: Rule, row: Any) -> Any:
    """A row as its side reads it: the parameters filled into its label and text."""
    # start-up: interpreter.ruleset.texts loads only when rendered_row() runs
    from interpreter.ruleset.texts import render_localized

    if not isinstance(row, dict):
        return row
    return {k: render_localized(rule, v) if k in ("label", "text") else v for k, v in row.items()}


def _rows_by_key(rule: Rule) -> dict[str, tuple[int, Any]]:
    rows = written_rows if isinstance(written_rows := rule.doc.get("rows"), list) else []
    ids = [r.get("id") if isinstance(r, dict) else None for r in rows]
    counts: dict[Any, int] = {}
    for one in ids:
        if one is not None:
            counts[one] = counts.get(one, 0) + 1
    out = {}
    for index, row in enumerate(rows):
        unique = ids[index] is not None and counts[ids[index]] == 1
        out[row_key(row, index) if unique else f"#{index + 1}"] = (index, row)
    return out


def compare_rule(old: Rule, new: Rule, base: Ruleset, lang: str) -> RuleChange:
    """Parameters (old -> new, with the layer of the new value), rows and other document fields."""
    change = RuleChange(old.id, new.title(lang), new.kind, replaced=new.layer not in base.layers)
    if change.replaced:
        change.replaced_by = {"layer": new.layer, "file": new.file, "rule": new.id}
    for name in sorted(set(old.params) | set(new.params)):
        before, after = old.params.get(name), new.params.get(name)
        if before != after or (name in old.params) != (name in new.params):
            change.params.append({"name": name, "old": before, "new": after,
                                  "layer": new.param_layers.get(name, new.layer)})
    old_rows, new_rows = _rows_by_key(old), _rows_by_key(new)
    for key in list(old_rows) + [k for k in new_rows if k not in old_rows]:
        before = old_rows.get(key, (None, None))[1]
        after = new_rows.get(key, (None, None))[1]
        if before == after:
            continue
        kind = "added" if before is None else "removed" if after is None else "changed"
        change.rows.append({"row": key, "change": kind, "old": rendered_row(old, before),
                            "new": rendered_row(new, after),
                            "layer": new.row_layers.get(key, new.layer) if after is not None else None})
    change.fields = [c.to_json() for c in document_changes(old.doc, new.doc)]
    return change


def document_changes(old: dict[str, Any], new: dict[str, Any]) -> list[doc_diff.FieldChange]:
    """The differences of two documents of one rule, field by field down to the leaf, but for the
    parameters and rows (compared on their own) and the fields that are no part of what it does."""
    return doc_diff.changes({k: v for k, v in old.items() if k not in SKIPPED_FIELDS},
                            {k: v for k, v in new.items() if k not in SKIPPED_FIELDS})


def probes(rule: Rule, *others: Rule | None) -> list[Probe]:
    """The probes of a rule and of its counterpart, by name (first wins); a rule without any that
    accepts an empty input gets the probe ``default`` (a roll table: its own dice)."""
    found: dict[str, Probe] = {}
    for each in (rule, *others):
        for entry in (each.doc.get("probes") or []) if each is not None else []:
            if isinstance(entry, dict) and entry.get("name") not in found:
                found[str(entry["name"])] = Probe(str(entry["name"]), dict(entry.get("input") or {}))
    if not found:
        # start-up: interpreter.engine.inputs loads only when probes() runs
        from interpreter.engine.inputs import accepts

        if not accepts(rule, {}):
            return []
        found[DEFAULT_PROBE] = Probe(DEFAULT_PROBE, {})
    return list(found.values())


def outcome(ruleset: Ruleset, rule: Rule, probe: Probe, lang: str) -> list[ProbTable] | Any:
    """The exact distribution of the rule on the probe's input; for a kind without distributions,
    the value of a run that rolls no dice."""
    kind = kinds.get(rule.kind)
    if kind is not None and kind.distribution is not None:
        return engine.distribution(ruleset, rule.id, probe.input, lang=lang)
    return engine.run(ruleset, rule.id, probe.input, ScriptedDice([]), lang=lang).value


class Outcomes:
    """The probes' outcomes of one comparison, each computed once per side: a probe asked again
    (the handout draws the bars of what ``compare`` compared) gives what it gave, an error
    included."""

    def __init__(self, base: Ruleset, variant: Ruleset) -> None:
        self.base, self.variant = base, variant
        self.memo: dict[tuple, Any] = {}

    def of(self, ruleset: Ruleset, rule: Rule, probe: Probe, lang: str) -> list[ProbTable] | Any:
        key = (ruleset is self.variant, rule.id, probe.name, _value_key(probe.input), lang)
        if key not in self.memo:
            try:
                self.memo[key] = outcome(ruleset, rule, probe, lang)
            except MprError as error:
                self.memo[key] = error
        found = self.memo[key]
        if isinstance(found, MprError):
            raise found
        return found


def _compare_tables(old: list[ProbTable], new: list[ProbTable]) -> list[dict[str, Any]]:
    """Each table's rows matched by value, both probabilities compared in whole numbers (each
    row's ``ratio``: a long table makes no Fraction per row)."""
    tables = []
    for index in range(max(len(old), len(new))):
        before = old[index] if index < len(old) else ProbTable("", [])
        after = new[index] if index < len(new) else ProbTable("", [])
        p_old = {_value_key(r.value): r for r in before.rows}
        p_new = {_value_key(r.value): r for r in after.rows}
        rows, moved = [], False
        for key in list(p_old) + [k for k in p_new if k not in p_old]:
            a, b = p_old.get(key), p_new.get(key)
            na, da = a.ratio() if a else (0, 1)
            nb, db = b.ratio() if b else (0, 1)
            changed = na != nb or da != db  # both in lowest terms
            moved |= changed
            rows.append({"value": (b or a).value, "label": (b or a).label, "old": _p(na, da),  # type: ignore[union-attr]
                         "new": _p(nb, db), "moved": changed,
                         "delta_percent": round((nb * da - na * db) / (db * da) * 100, 2)})
        moved |= before.mean != after.mean
        tables.append({"title": after.title or before.title, "old_title": before.title or None,
                       "moved": moved, "rows": rows, "old_mean": before.mean,
                       "new_mean": after.mean, "mean_label": after.mean_label or before.mean_label,
                       "old_note": before.note, "new_note": after.note})
    return tables


def _value_key(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)


def _p(numerator: int, denominator: int) -> dict[str, Any]:
    """A probability in lowest terms as the diff writes it: its fraction text and its percent."""
    return {"p": str(numerator) if denominator == 1 else f"{numerator}/{denominator}",
            "percent": round(numerator / denominator * 100, 2)}


def _run_probe(diff: Diff, ruleset: Ruleset, rule: Rule, probe: Probe, side: str) -> Any:
    """The probe's outcome, or the error (a warning, except for the implicit ``default`` probe)."""
    try:
        return diff.outcome(ruleset, rule, probe, diff.lang)
    except MprError as error:
        if probe.name == DEFAULT_PROBE and not rule.doc.get("probes"):
            return error
        diff.warnings.append(diagnostic(PROBE_FAILED, error.loc, diff.lang, probe=probe.name,
                                        rule=rule.id, side=side, error=error.code,
                                        detail=error.message(diff.lang)))
        return error


def row_count(*rules: Rule | None) -> int:
    """The rows the rules' documents write, in all: a table's odds have an outcome per row or
    more, so this bounds them before they are made."""
    return sum(len(rows) for rule in rules if rule is not None
               for rows in (rule.doc.get("rows"),) if isinstance(rows, list))


def _past_outcomes(diff: Diff, probe: Probe, rule: Rule, count: int, at_least: bool = False) -> bool:
    """Whether ``count`` outcomes (``at_least``: counted from the rows, before the odds are made)
    pass ``MAX_DIFF_OUTCOMES``; then the probe's odds are not compared (a warning, MPR952)."""
    if count <= MAX_DIFF_OUTCOMES:
        return False
    diff.warnings.append(diagnostic(TOO_MANY_OUTCOMES, None, diff.lang, probe=probe.name, rule=rule.id,
                                    count=f">= {count}" if at_least else count, limit=MAX_DIFF_OUTCOMES))
    return True


def compare_probes(diff: Diff, old: Rule, new: Rule) -> None:
    """Every probe on both sides; a probe whose outcome differs is listed with what moved."""
    found = probes(new, old)
    if len(found) > MAX_DIFF_PROBES:
        diff.warnings.append(diagnostic(TOO_MANY_PROBES, None, diff.lang, rule=new.id,
                                        count=len(found), limit=MAX_DIFF_PROBES))
    rows = row_count(old, new)
    for probe in found[:MAX_DIFF_PROBES]:
        if _past_outcomes(diff, probe, new, rows, at_least=True):  # known before the odds are made
            continue
        before = _run_probe(diff, diff.base, old, probe, diff.base.id)
        after = _run_probe(diff, diff.variant, new, probe, diff.variant.id)
        if isinstance(before, MprError) or isinstance(after, MprError):
            continue
        entry: dict[str, Any] = {"rule": new.id, "title": new.title(diff.lang), "probe": probe.name,
                                 "input": probe.input}
        if isinstance(before, list) and isinstance(after, list):
            if _past_outcomes(diff, probe, new, sum(len(t.rows) for t in (*before, *after))):
                continue
            tables = _compare_tables(before, after)
            if not any(t["moved"] for t in tables):
                continue
            entry.update(type="distribution", tables=tables)
        else:
            if jsonable(before) == jsonable(after):
                continue
            entry.update(type="value", old=before, new=after)
        diff.probabilities.append(entry)


def show_added_probes(diff: Diff, new: Rule) -> None:
    """The declared probes of a rule the variant adds: its exact odds, against nothing before."""
    for probe in probes(new)[:MAX_DIFF_PROBES]:
        if _past_outcomes(diff, probe, new, row_count(new), at_least=True):  # known before the odds are made
            continue
        after = _run_probe(diff, diff.variant, new, probe, diff.variant.id)
        if isinstance(after, MprError):
            continue
        entry: dict[str, Any] = {"rule": new.id, "title": new.title(diff.lang), "probe": probe.name,
                                 "input": probe.input}
        if isinstance(after, list):
            if _past_outcomes(diff, probe, new, sum(len(t.rows) for t in after)):
                continue
            entry.update(type="distribution", tables=_compare_tables([], after))
        else:
            entry.update(type="value", old=None, new=after)
        diff.probabilities.append(entry)


def _successors(base: Ruleset, variant: Ruleset) -> dict[str, Rule]:
    """The variant's rule answering to each id: its own, or the one that ``replaces:`` a base rule
    under another id."""
    out = dict(variant.rules)
    for rule in variant.rules.values():
        target = rule.doc.get("replaces")
        if isinstance(target, str) and target in base.rules and target not in out:
            out[target] = rule
    return out


def compare(base: Ruleset, variant: Ruleset, lang: str = "en") -> Diff:
    """The comparison of two loaded rulesets."""
    diff = Diff(base, variant, lang)
    diff.campaign = [c.to_json() for c in doc_diff.changes(base.campaign, variant.campaign)]
    for path, before, after in sorted(changed_leaves(base.parameters, variant.parameters),
                                      key=lambda change: tuple(map(str, change[0]))):
        diff.parameters.append({"path": ".".join(map(str, path)), "old": before, "new": after})
    successors = _successors(base, variant)
    paired = {id(rule) for rule_id, rule in successors.items() if rule_id in base.rules}
    for rule_id in sorted(set(base.rules) | set(variant.rules)):
        old, new = dict.get(base.rules, rule_id), successors.get(rule_id)  # own ids only
        if old is None and id(new) in paired:
            continue  # the new id of a rule that answers to a base rule's id: compared under that id
        if old is None:
            diff.added.append(_added(variant, new, lang))  # type: ignore[arg-type]
            if new.adopted and new.doc.get("probes"):  # type: ignore[union-attr]
                show_added_probes(diff, new)  # type: ignore[arg-type]
            continue
        if new is None:
            entry = _entry(old, lang)
            successor = variant.rules.get(rule_id)  # a replacement under a new id answers to it
            if successor is not None:
                entry.update({"replaced_by": successor.id,
                              "replaced_in": successor.replaced.get(rule_id, successor.layer)})
            diff.removed.append(entry)
            continue
        if old.adopted and not new.adopted:
            diff.not_adopted.append(_entry(new, lang))
        elif new.adopted and not old.adopted:
            diff.adopted.append(_entry(new, lang))
        change = compare_rule(old, new, base, lang)
        if change:
            diff.changes.append(change)
        if old.adopted and new.adopted:
            compare_probes(diff, old, new)
    return diff
