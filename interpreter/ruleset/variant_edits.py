"""Edits a variant makes inside one rule document, with the merge rule of
``interpreter.ruleset.merge``: a document ``based_on`` another inherits every field it does not
write; an override changes any field but ``id`` and ``kind`` (parameters by name, with new ones
declared in ``param_schema``); earlier layers' examples are pinned to their values or dropped;
the file positions of every moved value carried along so findings still point at their line.

A rule's edits are folded once, after every layer is read: a list edited item by item is a
``Table`` through every layer's patches (each patch costs its own entries) and is made a list once
at the end; the marks of every value stay where the file that wrote them has them (``View``), so
no layer's positions are copied or cut, and the rule's positions are read through them
(``Folded``)."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rules_dsl.errors import Hint, Location, define, did_you_mean
from rules_dsl.words import define_word, word

from interpreter.ruleset.merge import (_ALL, MISSING, Folded, Mark, Marks, Patch, RowLog, Table,
                                       View, is_list_patch, merge_value)

NO_ROWS = define(
    "MPR906", "rule {rule} (kind {kind}) has no rows to override",
    "ルール {rule}（種別 {kind}）には上書きできる行がありません")
FIXED_FIELD = define(
    "MPR919", "an override of rule {rule} cannot write {field}: a variant changes every field of a document but id and kind (to replace the document, write a document with 'replaces: {rule}')",
    "ルール {rule} の上書きに {field} は書けません。変種は id と kind 以外のすべての項目を変えられます（文書を置き換えるには 'replaces: {rule}' と書いた文書を置いてください）")
UNKNOWN_PARAM = define(
    "MPR412", "rule {rule} has no parameter {name!r} to override{hint}",
    "ルール {rule} に上書きできるパラメータ {name!r} はありません{hint}")
NEW_PARAM = define_word(
    "variant.new_param", " (to add a parameter, declare it in the same override's param_schema)",
    "（パラメータを足すには、同じ上書きの param_schema で宣言してください）")


class _NewParamHint(Hint):
    """What to write to add a parameter, in the language of its message."""

    def render(self, lang: str) -> str:
        return word(NEW_PARAM, lang)

FIXED = ("id", "kind", "replaces", "based_on", "abstract")  # fields an override never writes
OWN = ("id", "replaces", "based_on", "abstract")  # fields a based_on document never inherits
# Fields whose change leaves the rule's logic as it was: earlier layers' examples keep running.
TEXT_FIELDS = frozenset({"params", "param_docs", "param_schema", "examples", "probes", "title",
                         "text", "source", "optional"})
LISTS = ("rows", "examples", "probes")  # top-level lists whose items' layers are kept


def loc_of(positions: dict, path: tuple, file: str | None) -> Location:
    # start-up: interpreter.documents.loader loads only when loc_of() runs
    from interpreter.documents.loader import locate

    return locate(positions, tuple(path), file)


def key_loc_of(positions: dict, path: tuple, file: str | None) -> Location:
    # start-up: interpreter.documents.loader loads only when key_loc_of() runs
    from interpreter.documents.loader import KEY

    pos = positions.get((*path, KEY))
    if pos is None:
        return loc_of(positions, path, file)
    return Location(pos[0], pos[1], pos[2], ".".join(map(str, path)))


def row_key(row: Any, index: int) -> str:
    """How a row is named in traces and overrides: its id, else ``#N`` (1-based)."""
    if isinstance(row, dict) and row.get("id") is not None:
        return str(row["id"])
    return f"#{index + 1}"


@dataclass
class Source:
    """Where a patch stands: the layer, its positions and texts (paths from the patch's root,
    ``path`` its place in the file's document) and the file."""

    layer: str
    data: dict
    positions: dict
    texts: dict
    file: str | None
    path: tuple = ()

    def marks(self) -> View:
        return View(self.positions, self.texts, self.path)

    def loc(self, inner: tuple) -> Location:
        return loc_of(self.positions, self.path + tuple(inner), self.file)

    def key_loc(self, inner: tuple) -> Location:
        return key_loc_of(self.positions, self.path + tuple(inner), self.file)


@dataclass
class State:
    """A rule while its edits are folded: the document, its marks, the effective parameters with
    the layer of each, and the layer of each item of ``rows``, ``examples`` and ``probes``; a
    field being patched item by item is in ``tables`` (``doc`` still holds the list it started
    from) until ``settle`` makes it a list again."""

    doc: dict
    marks: Marks
    params: dict
    param_layers: dict[str, str]
    origins: dict[str, list[str]] = field(default_factory=dict)
    logic_changed: bool = False
    tables: dict[str, Table] = field(default_factory=dict)


def settle(state: State, name: str | None = None) -> None:
    """The table of field ``name`` (of every field: None) made a list again, with its marks and
    the layer of each item."""
    for field_ in [name] if name is not None else list(state.tables):
        table = state.tables.pop(field_, None)
        if table is None or not table.written:
            continue
        items, marks, layers = table.settle()
        state.doc[field_] = items
        state.marks.set_kid(field_, marks)
        if field_ in LISTS:
            state.origins[field_] = layers


def _value(state: State, name: str) -> Any:
    """A field's value, its table settled first."""
    if name in state.tables:
        settle(state, name)
    return state.doc.get(name)


def state_of(rule: Any) -> State:
    """The state of a rule as its own document wrote it."""
    origins = {name: [rule.layer] * len(value) for name in LISTS
               if isinstance(value := rule.doc.get(name), list)}
    return State(rule.doc, Marks.over(View(rule.positions, rule.texts, ())), rule.params,
                 dict(rule.param_layers), origins)


def inherit(base: State, rule: Any, source: Source, merge: Any) -> State:
    """A document ``based_on`` the rule of ``base``: the base's fields, then the document's own
    written over them with the merge rule (list items by id or name, mappings key by key)."""
    marks = Marks.over(base.marks, frozenset(OWN))
    doc = {k: v for k, v in base.doc.items() if k not in OWN}
    state = State(doc, marks, {}, {}, {k: list(v) for k, v in base.origins.items()})
    own = {k: v for k, v in source.data.items() if k not in OWN}
    own_marks = source.marks()
    patch = _patch(merge, rule.id, source, record=False)
    inherited = _list(state.doc.get("examples"))
    base_params = base.params
    for name, value in own.items():
        _field(state, name, value, own_marks.kid(name), patch, source, merge)
    own_params = _dict(own.get("params"))
    for name in own_params:  # the base's examples keep the base's values
        if name in base_params and base_params[name] != _dict(_value(state, "params")).get(name):
            _pin(state, len(inherited), name, base_params[name])
    if state.logic_changed:  # the base's examples tested the base's logic
        drop_examples(state, source.layer, keep={e.get("name") for e in own.get("examples") or []
                                                 if isinstance(e, dict)})
    state.doc.update({k: source.data[k] for k in OWN if k in source.data})
    for name in OWN:
        if name in source.data:
            marks.set_kid(name, own_marks.kid(name))
    params = _dict(_value(state, "params"))
    state.params = copy.deepcopy(params)
    state.param_layers = {name: source.layer if name in own_params else
                          base.param_layers.get(name, source.layer) for name in params}
    return state


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _patch(merge: Any, rule_id: str, source: Source, record: bool, prefix: tuple = ()) -> Patch:
    def write(address: tuple, value: Any, path: tuple) -> bool:
        if not record:
            return True
        # a patch's values are the file's data or fresh copies of it, never changed later; the
        # location is found only when a finding needs it
        return merge.write(address, source.layer, value, (source, prefix, path), keep=True)

    def report(code: str, path: tuple, **args: Any) -> None:
        merge.out.add(code, source.loc(prefix + path), **args)

    def log(address: tuple) -> RowLog | None:
        return merge.row_log(address, source.layer, lambda index: source.loc(prefix + (index,)))

    return Patch(rule_id, source.layer, write, report, merge.out.lang,
                 under=lambda inner: _patch(merge, rule_id, source, record, prefix + inner),
                 log=log if record else None)


def _field(state: State, name: str, value: Any, value_marks: Mark, patch: Patch, source: Source,
           merge: Any) -> None:
    """One top-level field of a patch written over the state."""
    old = state.doc.get(name, MISSING)
    wrote: list[bool] = []

    def write(address: tuple, v: Any, path: tuple) -> bool:
        done = patch.write(address, v, (name, *path))
        wrote.append(done)
        return done

    scoped = Patch(patch.rule, patch.origin, write,
                   lambda code, path, **args: patch.report(code, (name, *path), **args), patch.lang)
    address = (patch.rule, name)
    table = state.tables.get(name)
    if (table is not None or isinstance(old, list)) and (
            name in LISTS and isinstance(value, list) or is_list_patch(table or old, value)):
        if table is None:
            table = state.tables[name] = Table(old, state.marks.kid(name), state.origins.get(name)
                                               if name in LISTS else None, source.layer)
            if name in LISTS:
                state.origins[name] = table.first_layers
        direct = patch.under((name,)) if patch.under is not None else scoped  # no wrapper per row
        if table.patch(value, value_marks, direct, address) and name not in TEXT_FIELDS:
            state.logic_changed = True
        return
    if table is not None:
        settle(state, name)
        old = state.doc.get(name, MISSING)
    new, new_marks, _ = merge_value(old, state.marks.kid(name), value, value_marks, scoped,
                                    address)
    if name in LISTS and isinstance(new, list) and new is not old:
        state.origins[name] = [source.layer] * len(new)
    if new is MISSING or not any(wrote):
        return
    state.doc[name] = new
    state.marks.set_kid(name, new_marks)
    if name not in TEXT_FIELDS:
        state.logic_changed = True


def apply_override(state: State, rule: Any, source: Source, merge: Any) -> None:
    """An override (a layer's ``overrides: {RULE: {...}}``) written over the state."""
    patch = _patch(merge, rule.id, source, record=True)
    data = source.data
    marks = source.marks()
    declared = _dict(data.get("param_schema"))
    state.doc = dict(state.doc)  # the document read from the file stays as it was written
    before_logic = state.logic_changed
    state.logic_changed = False
    for name, value in data.items():
        if name in FIXED:
            merge.out.add(FIXED_FIELD, source.key_loc((name,)), rule=rule.id, field=name)
            continue
        if name == "params":
            if isinstance(value, dict):
                for param, given in value.items():
                    _param(state, rule, param, given, marks.kid("params").kid(param), declared,
                           source, merge)
            continue
        if name == "rows" and not isinstance(state.doc.get("rows"), list):  # (a table's too)
            merge.out.add(NO_ROWS, source.key_loc((name,)), rule=rule.id, kind=rule.kind)
            continue
        _field(state, name, value, marks.kid(name), patch, source, merge)
    if state.logic_changed:
        drop_examples(state, source.layer)
    state.logic_changed = state.logic_changed or before_logic


def _param(state: State, rule: Any, name: str, value: Any, value_marks: Mark, declared: dict,
           source: Source, merge: Any) -> None:
    path = ("params", name)
    if name not in state.params and name not in declared \
            and name not in (_value(state, "param_schema") or {}):
        hint = did_you_mean(name, state.params) or _NewParamHint("")
        merge.out.add(UNKNOWN_PARAM, source.key_loc(path), rule=rule.id, name=name, hint=hint)
        return
    old = state.params.get(name, MISSING)
    patch = _patch(merge, rule.id, source, record=True)
    wrote: list[bool] = []

    def write(address: tuple, v: Any, inner: tuple) -> bool:
        done = patch.write(address, v, path + inner)
        wrote.append(done)
        return done

    scoped = Patch(patch.rule, patch.origin, write,
                   lambda code, inner, **args: patch.report(code, path + inner, **args), patch.lang)
    params_marks = state.marks.kid("params").copy()  # a copy: it may be a base's
    state.marks.set_kid("params", params_marks)
    new, new_marks, _ = merge_value(old, params_marks.kid(name), value, value_marks, scoped,
                                    (rule.id, "params", name))
    if not any(wrote):
        return
    if old is not MISSING:
        pin_examples(state, name, old, source.layer)
    state.params = dict(state.params)
    state.params[name] = new
    state.param_layers[name] = source.layer
    params_marks.set_kid(name, new_marks)


def drop_examples(state: State, layer: str, keep: set | None = None) -> None:
    """The rule's logic changed: earlier layers' examples tested what no longer stands, so they go
    (with ``keep``, the names of the examples a document based on another wrote itself)."""
    examples = _value(state, "examples")
    if not isinstance(examples, list):
        return
    origins = state.origins.get("examples") or [layer] * len(examples)
    old_marks = state.marks.kid("examples")
    kept = [(e, old_marks.kid(i), o) for i, (e, o) in enumerate(zip(examples, origins))
            if (o == layer if keep is None else isinstance(e, dict) and e.get("name") in keep)]
    if not kept:
        del state.doc["examples"]
        state.marks.set_kid("examples", Marks.over(None))
        state.origins.pop("examples", None)
        return
    # only the list's own mark and its kept items' (as a split of its marks kept them)
    new = Marks.over(old_marks, _ALL, {i: m for i, (_, m, _) in enumerate(kept)})
    state.doc["examples"] = [e for e, _, _ in kept]
    state.marks.set_kid("examples", new)
    state.origins["examples"] = [o for _, _, o in kept]


def pin_examples(state: State, name: str, old: Any, layer: str) -> None:
    """Earlier layers' examples keep testing what their layer wrote: the old value of the
    parameter is pinned into each of them that does not set it itself."""
    examples = _value(state, "examples")
    if not isinstance(examples, list):
        return
    origins = state.origins.get("examples") or []
    pinned_any = False
    new_examples = list(examples)
    for index, origin in enumerate(origins):
        example = examples[index]
        if origin != layer and isinstance(example, dict) and name not in (example.get("params") or {}):
            example = dict(example)
            example["params"] = {**(example.get("params") or {}), name: copy.deepcopy(old)}
            new_examples[index] = example
            pinned_any = True
    if pinned_any:
        state.doc["examples"] = new_examples


def _pin(state: State, count: int, name: str, old: Any) -> None:
    """The first ``count`` examples (a base's, inherited) keep the base's value of ``name``."""
    examples = _value(state, "examples")
    if not isinstance(examples, list):
        return
    new_examples = list(examples)
    for index, example in enumerate(examples[:count]):
        if isinstance(example, dict) and name not in (example.get("params") or {}):
            new_examples[index] = {**example, "params": {**(example.get("params") or {}),
                                                         name: copy.deepcopy(old)}}
    state.doc["examples"] = new_examples


def unchanged(rule: Any) -> None:
    """A rule no layer edits: every row and example is its own layer's."""
    rows = rule.doc.get("rows")
    rule.row_layers = {row_key(row, i): rule.layer for i, row in enumerate(rows)} \
        if isinstance(rows, list) else {}
    rule.example_layers = [rule.layer] * len(_list(rule.doc.get("examples")))


def finish_rule(rule: Any, state: State) -> None:
    """Write the folded state back into the rule (its positions and texts read through its
    marks)."""
    settle(state)
    rule.doc = state.doc
    rule.positions, rule.texts = Folded(state.marks, 0), Folded(state.marks, 1)
    rule.params = state.params
    rule.param_layers = state.param_layers
    rows = state.doc.get("rows")
    origins = state.origins.get("rows") or []
    layers: dict[str, str] = {}
    if isinstance(rows, list):
        count = len(origins)
        for i, row in enumerate(rows):  # row_key, for every row of a long table
            name = row.get("id") if isinstance(row, dict) else None
            layers[f"#{i + 1}" if name is None else str(name)] = origins[i] if i < count else rule.layer
    rule.row_layers = layers
    rule.example_layers = list(state.origins.get("examples") or [])
    rule._compiled.clear()
