"""House-rule variants: how the layers of an ``extends`` graph combine into one ruleset (documents
added or replaced, parameters, rows, examples, adoption), recording the layer of every parameter
and row and reporting conflicts between independent layers. The semantics are in docs/variants.md."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rules_dsl.errors import Location, define, did_you_mean
from interpreter.ruleset.limits import MAX_VARIANT_LAYERS

from interpreter.documents.plain import plain_copy
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.ruleset.merge import Marks, Patch, RowLog, is_list_patch, merge_list
from interpreter.ruleset.variant_edits import (UNKNOWN_PARAM, Source, State, apply_override, finish_rule,
                                               inherit, key_loc_of, loc_of, row_key, settle, state_of,
                                               unchanged)

__all__ = ["row_key", "merge", "load_directory", "annotate_rows"]

MANIFEST = "ruleset.yaml"
PARAMETERS = "@parameters"  # the first element of the address of a ruleset-wide parameter
CAMPAIGN = "@campaign"  # the first element of the address of a campaign wiring entry

EXTENDS_CYCLE = define(
    "MPR409", "extends forms a cycle: {chain}", "extends が循環しています: {chain}")
EXTENDS_MISSING = define(
    "MPR410", "extends {name!r}: no such ruleset (looked for {looked}){hint}",
    "extends {name!r}: そのようなルールセットはありません（探した場所: {looked}）{hint}")
UNKNOWN_RULE_NAMED = define(
    "MPR411", "{where} names rule {rule!r}, which is not in the ruleset{hint}",
    "{where} がルール {rule!r} を指定していますが、ルールセットにありません{hint}")
UNKNOWN_PARAM_OVERRIDE = UNKNOWN_PARAM
NOT_OPTIONAL = define(
    "MPR413", "rule {rule} is not optional (optional: false) and cannot be left out",
    "ルール {rule} は必須（optional: false）なので不採用にできません")
DUPLICATE_ID = define(
    "MPR408", "rule id {id!r} is defined twice: here and at {other}",
    "ルールID {id!r} が二重に定義されています: ここと {other}")
REDEFINED = define(
    "MPR900", "rule {id!r} is already defined by ruleset {layer} ({other}); write 'replaces: {id}' to replace it, or override its parameters or rows in {manifest}",
    "ルール {id!r} はルールセット {layer} で定義済みです（{other}）。置き換えるには 'replaces: {id}' と書くか、{manifest} でパラメータや行を上書きしてください")
REPLACES_NOTHING = define(
    "MPR901", "replaces: {target!r} names no rule of the rulesets this one extends{hint}",
    "replaces: {target!r} は継承元のルールセットにないルールです{hint}")
CONFLICT = define(
    "MPR902", "{field} is written by two rulesets that do not extend each other: {layer} (here) and {other} ({where}); write it in a ruleset that extends both to decide",
    "{field} を、互いに継承関係にない2つのルールセットが書いています: {layer}（ここ）と {other}（{where}）。両方を継承するルールセットで値を決めてください")
WRITTEN_TWICE = define(
    "MPR903", "{field} is written twice by ruleset {layer}: here and at {other}",
    "{field} をルールセット {layer} が二度書いています: ここと {other}")
SAME_ID = define(
    "MPR908", "two rulesets of the extends graph have the id {id!r}: {first} and {second}",
    "extends でつながるルールセットのうち2つが同じ id {id!r} です: {first} と {second}")
BASE_CYCLE = define(
    "MPR920", "based_on forms a cycle: {chain}", "based_on が循環しています: {chain}")
NO_BASE = define(
    "MPR921", "rule {rule} is based_on {base!r}, which is not in the ruleset{hint}",
    "ルール {rule} の based_on {base!r} はルールセットにありません{hint}")
OTHER_KIND = define(
    "MPR922", "rule {rule} is of kind {kind} but based_on {base}, of kind {base_kind}; leave kind out to inherit it",
    "ルール {rule} は種別 {kind} ですが、based_on の {base} は種別 {base_kind} です。kind を書かなければ受け継ぎます")
REPLACED = define(
    "MPR923", "rule {old} is replaced by {new} (ruleset {layer}); the id {old} reaches it",
    "ルール {old} はルールセット {layer} の {new} に置き換えられています。ID {old} でもそのルールに届きます",
    severity="info")
TOO_MANY_LAYERS = define(
    "MPR909", "the extends graph has more than {limit} rulesets", "extends でつながるルールセットが {limit} 個を超えています")


class Write:
    """One layer setting one field: ``address`` is ``(rule_id,)`` for a whole document,
    ``(rule_id, "params", name)``, ``(rule_id, "rows", key)``, ``(rule_id, "adopted")`` or
    ``("@parameters", group, ..., leaf)``."""

    __slots__ = ("address", "layer", "value", "loc")  # one per row a layer edits: made fast

    def __init__(self, address: tuple, layer: str, value: Any, loc: Any) -> None:
        self.address, self.layer, self.value = address, layer, value
        self.loc = loc  # a Location, or what gives it when a finding needs it (``_located``)

    def __repr__(self) -> str:
        return f"Write({self.address!r}, {self.layer!r}, {self.value!r})"


def field_name(address: tuple) -> str:
    """An address as a user reads it: ``my.check params.time_dice_cap``."""
    if address[0] in (PARAMETERS, CAMPAIGN):
        return address[0][1:] + "." + ".".join(map(str, address[1:]))
    return " ".join([address[0], ".".join(map(str, address[1:]))]).strip()


def extends_of(manifest: dict[str, Any]) -> list[str]:
    """The rulesets a manifest extends, in order (``extends`` is a name or a list of names)."""
    value = manifest.get("extends")
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str) and v]
    return []


def resolve_extends(root: Path, name: str) -> Path | None:
    """A bundled ruleset's name, or a path relative to the directory ``root``."""
    # start-up: interpreter.documents.resources loads only when resolve_extends() runs
    from interpreter.documents.resources import rulesets_dir

    candidates = [root / name]
    if "/" not in name and "\\" not in name:
        candidates.insert(0, rulesets_dir() / name)
    for candidate in candidates:
        if (candidate / MANIFEST).is_file():
            return candidate.resolve()
    return None


@dataclass
class Graph:
    """The layers of an ``extends`` graph, parents before children (the variant last)."""

    layers: list[Any] = field(default_factory=list)
    parents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ancestors: dict[str, frozenset[str]] = field(default_factory=dict)

    def is_chain(self) -> bool:
        """Whether every layer extends every one before it (no two are independent)."""
        return all(len(self.ancestors.get(layer.id, ())) == index
                   for index, layer in enumerate(self.layers))

    def independent(self, a: str, b: str) -> bool:
        return a != b and a not in self.ancestors.get(b, ()) and b not in self.ancestors.get(a, ())

    def descends_from_both(self, layer: str, a: str, b: str) -> bool:
        above = self.ancestors.get(layer, frozenset()) | {layer}
        return a in above and b in above


def read_graph(root: Path, read_layer: Callable[[Path, Any], Any], out: Any) -> Graph:
    """Read ``root`` and every ruleset it extends, depth first (``extends: [a, b]`` puts a's
    layers before b's); a cycle or a missing ruleset is a finding."""
    graph = Graph()
    done: dict[Path, Any] = {}
    stack: list[Path] = []
    by_id: dict[str, Path] = {}

    def visit(path: Path, via: tuple[Any, tuple] | None) -> Any:
        if path in done:
            return done[path]
        if path in stack:
            names = [p.name for p in stack[stack.index(path):]] + [path.name]
            layer, where = via  # type: ignore[misc]
            out.add(EXTENDS_CYCLE, loc_of(layer.positions, where, layer.manifest_file),
                    chain=" -> ".join(names))
            return None
        if len(done) + len(stack) >= MAX_VARIANT_LAYERS:
            where = Location(path=str(path)) if via is None else \
                loc_of(via[0].positions, via[1], via[0].manifest_file)
            out.add(TOO_MANY_LAYERS, where, limit=MAX_VARIANT_LAYERS)
            return None
        stack.append(path)
        layer = read_layer(path, out)
        parents: list[str] = []
        if layer is not None:
            names = extends_of(layer.manifest)
            many = isinstance(layer.manifest.get("extends"), list)
            for index, name in enumerate(names):
                where = ("extends", index) if many else ("extends",)
                target = resolve_extends(layer.root, name)
                if target is None:
                    _missing(layer, name, where, out)
                    continue
                parent = visit(target, (layer, where))
                if parent is not None and parent.id not in parents:
                    parents.append(parent.id)
        stack.pop()
        done[path] = layer
        if layer is not None:
            if layer.id in by_id:
                out.add(SAME_ID, loc_of(layer.positions, ("id",), layer.manifest_file), id=layer.id,
                        first=str(by_id[layer.id]), second=str(path))
                return None
            by_id[layer.id] = path
            graph.layers.append(layer)
            graph.parents[layer.id] = tuple(parents)
            graph.ancestors[layer.id] = frozenset(parents).union(
                *(graph.ancestors[p] for p in parents))
        return layer

    if visit(root.resolve(), None) is None:
        return Graph()
    return graph


def _missing(layer: Any, name: str, where: tuple, out: Any) -> None:
    # start-up: interpreter.documents.resources loads only when _missing() runs
    from interpreter.documents.resources import rulesets_dir

    known = [p.name for p in rulesets_dir().iterdir() if (p / MANIFEST).is_file()] \
        if rulesets_dir().is_dir() else []
    out.add(EXTENDS_MISSING, loc_of(layer.positions, where, layer.manifest_file), name=name,
            looked=f"{rulesets_dir()}, {layer.root}", hint=did_you_mean(name, known))


Where = Location | Callable[[], Location] | tuple[Any, tuple, tuple]


def _located(loc: Where) -> Location:
    """A write's location: given, or found only now (by a function, or as ``(source, prefix,
    path)``: ``source.loc(prefix + path)``)."""
    if type(loc) is tuple:
        return loc[0].loc(loc[1] + loc[2])
    return loc() if callable(loc) else loc  # type: ignore[return-value]


def _each(writes: Write | list[Write] | None) -> list[Write]:
    """The writes of one address (one is kept without a list)."""
    if writes is None:
        return []
    return [writes] if type(writes) is Write else writes  # type: ignore[return-value]


def _where(loc: Location) -> str:
    return f"{loc.file}:{loc.line}:{loc.column}" if loc.line else str(loc.file or loc.path or "")


@dataclass
class Merge:
    """Applies the layers of a graph in order to one ``Ruleset``: each layer's documents are
    added at once, its overrides kept per rule and folded by ``finish`` (bases first), which
    then reports conflicts between independent layers."""

    ruleset: Ruleset
    graph: Graph
    out: Any
    writes: dict[tuple, Write | list[Write]] = field(default_factory=dict)  # address -> write(s)
    defined: dict[str, Location] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)  # rule -> its document as written
    pending: dict[str, list[Source]] = field(default_factory=dict)  # rule -> its overrides, in order
    states: dict[str, State] = field(default_factory=dict)  # folded rules
    replaced: dict[str, tuple[str, str, Location]] = field(default_factory=dict)  # old -> (new, layer, where)
    hidden: dict[str, Rule] = field(default_factory=dict)  # replaced documents, kept as bases
    former: dict[str, tuple[str, str]] = field(default_factory=dict)  # rule -> (id it replaced, hidden key)
    # (list address, layer) -> the log of the items the layer wrote into that list, kept
    # instead of a write per item when the layers form a chain (no two conflict)
    logs: dict[tuple, RowLog] = field(default_factory=dict)
    chain: bool = False

    def __post_init__(self) -> None:
        self.chain = self.graph.is_chain()

    def row_log(self, address: tuple, layer: str, locate: Callable[[int], Location]) -> RowLog | None:
        """A new log of the items ``layer`` writes into the list at ``address`` (``locate``: where
        the edit at an index of its patch is), or None when every item is written (``write``):
        the layers do not form a chain, so the conflicts between them are looked for."""
        if not self.chain:
            return None

        def twice(label: str, index: int, other: Location) -> None:
            self.out.add(WRITTEN_TWICE, locate(index), field=field_name(address + (label,)),
                         layer=layer, other=_where(other))

        key = (address, layer)
        log = self.logs[key] = RowLog(self.logs.get(key), locate, twice)
        return log

    def write(self, address: tuple, layer: str, value: Any, loc: Where, keep: bool = False) -> bool:
        """Record a write (``loc`` may give the location only when a finding needs it,
        ``_located``; ``keep``: ``value`` is never changed later, so it is kept, not copied; in a
        chain of layers no value is compared, so none is copied); a second write of the same
        field by the same layer is a finding."""
        if not keep and not self.chain:
            value = plain_copy(value)
        writes = self.writes
        known = writes.get(address)
        if known is None:
            writes[address] = Write(address, layer, value, loc)
            return True
        for other in _each(known):
            if other.layer == layer:
                self.out.add(WRITTEN_TWICE, _located(loc), field=field_name(address), layer=layer,
                             other=_where(_located(other.loc)))
                return False
        if type(known) is Write:
            writes[address] = [known, Write(address, layer, value, loc)]
        else:
            known.append(Write(address, layer, value, loc))  # type: ignore[union-attr]
        return True

    def add_documents(self, layer: Any) -> None:
        """A layer's rule documents: new ids are added; an id of an earlier layer needs ``replaces``.
        A document ``based_on`` another, or ``abstract``, is checked by its kind's schema once
        merged (``finish``)."""
        # start-up: interpreter.documents.schema loads only when add_documents() runs
        from interpreter.documents import shared

        here: dict[str, Location] = {}
        for doc in layer.documents:
            data = doc.data
            partial = isinstance(data, dict) and ("based_on" in data or data.get("abstract") is True)
            problems = [] if partial else shared.check(doc, "rule.json", self.out.lang)
            self.out.findings.extend(problems)
            if not isinstance(data, dict) or not isinstance(data.get("id"), str):
                continue
            rule_id, loc = data["id"], doc.loc("id")
            if rule_id in here:
                self.out.add(DUPLICATE_ID, loc, id=rule_id, other=_where(here[rule_id]))
                continue
            here[rule_id] = loc
            if not self._may_define(data, doc, layer, loc):
                continue
            if any(p.severity == "error" for p in problems):
                self.out.skip.add(rule_id)
            self.write((rule_id,), layer.id, data, loc)
            self.defined[rule_id] = loc
            params = written_params if isinstance(written_params := data.get("params"), dict) else {}
            self.ruleset.rules[rule_id] = Rule(
                id=rule_id, kind=str(data.get("kind", "")), doc=plain_copy(data),
                params=plain_copy(params), param_layers={k: layer.id for k in params},
                adopted=True, layer=layer.id, file=doc.file, positions=dict(doc.positions),
                texts=dict(doc.texts))
            self.sources[rule_id] = Source(layer.id, data, doc.positions, doc.texts, doc.file)
            self.pending[rule_id] = []
            self.states.pop(rule_id, None)

    def _may_define(self, data: dict, doc: Any, layer: Any, loc: Location) -> bool:
        rule_id, target = data["id"], data.get("replaces")
        rules = self.ruleset.rules
        if target is None:
            if rule_id in rules:
                old = rules[rule_id]
                self.out.add(REDEFINED, loc, id=rule_id, layer=old.layer,
                             other=_where(self.defined[rule_id]), manifest=MANIFEST)
                return False
            return True
        if not isinstance(target, str) or target not in rules:
            self.out.add(REPLACES_NOTHING, doc.loc("replaces"), target=target,
                         hint=did_you_mean(str(target), rules))
            return False
        self.replaced[target] = (rule_id, layer.id, doc.loc("replaces"))
        # The replaced document stays reachable as the base of its replacement (based_on: TARGET).
        hidden = f"{target}\x00{layer.id}"
        self.hidden[hidden] = rules[target]
        self.sources[hidden] = self.sources[target]
        self.pending[hidden] = self.pending.get(target, [])
        self.former[rule_id] = (target, hidden)
        if target != rule_id:
            if rule_id in rules:
                self.out.add(REDEFINED, loc, id=rule_id, layer=rules[rule_id].layer,
                             other=_where(self.defined[rule_id]), manifest=MANIFEST)
                return False
            self.write((target,), layer.id, None, doc.loc("replaces"))
            del rules[target]
            for old, (new, by, where) in list(self.replaced.items()):
                if new == target:  # replaced again: the first id reaches the last document
                    self.replaced[old] = (rule_id, by, where)
        return True

    def apply_manifest(self, layer: Any) -> None:
        """A layer's ``parameters``, ``campaign``, ``overrides``, ``adopt`` and ``not_adopted``."""
        manifest = layer.manifest
        if isinstance(manifest.get("parameter_schema"), dict):
            self.ruleset.parameter_schema.update(copy.deepcopy(manifest["parameter_schema"]))
            self._keep_positions(layer, "parameter_schema")
        if isinstance(manifest.get("parameters"), dict):
            self._parameters(self.ruleset.parameters, manifest["parameters"], ("parameters",), layer)
            self._keep_positions(layer, "parameters")
        if isinstance(manifest.get("campaign"), dict):
            self._parameters(self.ruleset.campaign, manifest["campaign"], ("campaign",), layer,
                             CAMPAIGN, self.ruleset.campaign_at)
        overrides = manifest.get("overrides")
        if isinstance(overrides, dict):
            for rule_id, override in overrides.items():
                rule = self._named(rule_id, ("overrides", rule_id), layer)
                if rule is not None and isinstance(override, dict):
                    self.pending[rule.id].append(Source(
                        layer.id, override, layer.positions, getattr(layer, "texts", {}),
                        layer.manifest_file, ("overrides", rule_id)))
        adopt = manifest.get("adopt")
        if isinstance(adopt, dict):
            for rule_id, adopted in adopt.items():
                self._adopt(rule_id, bool(adopted), ("adopt", rule_id), layer)
        not_adopted = manifest.get("not_adopted")
        if isinstance(not_adopted, list):
            for index, rule_id in enumerate(not_adopted):
                self._adopt(rule_id, False, ("not_adopted", index), layer)

    def _keep_positions(self, layer: Any, field_: str) -> None:
        """Where this layer writes ruleset-wide ``field_`` (later layers overwrite earlier ones)."""
        ruleset = self.ruleset
        ruleset.parameter_positions.update(
            {k: v for k, v in layer.positions.items() if k[:1] == (field_,)})
        ruleset.parameter_texts.update(
            {k: v for k, v in getattr(layer, "texts", {}).items() if k[:1] == (field_,)})

    def _parameters(self, into: dict, values: dict, path: tuple, layer: Any,
                    prefix: str = PARAMETERS, where: dict[str, Location] | None = None) -> None:
        """Ruleset-wide parameters (and the campaign wiring) merge with the one merge rule: a
        mapping merges key by key, a list keyed by id or name item by item, anything else
        replaces; ``where`` records the location of each value written."""
        for key, value in values.items():
            here = path + (key,)
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                self._parameters(into[key], value, here, layer, prefix, where)
                continue
            loc = loc_of(layer.positions, here, layer.manifest_file)
            if is_list_patch(into.get(key), value):
                source = Source(layer.id, {}, layer.positions, {}, layer.manifest_file, here)

                def write(address: tuple, v: Any, inner: tuple, s: Source = source) -> bool:
                    return self.write(address, layer.id, v, s.loc(inner))

                def report(code: str, inner: tuple, s: Source = source, **args: Any) -> None:
                    self.out.add(code, s.loc(inner), **args)

                edit = Patch(prefix, layer.id, write, report, self.out.lang)
                into[key], _, _ = merge_list(into[key], Marks(), value, Marks(), edit,
                                             (prefix,) + here[1:], None)
            elif self.write((prefix,) + here[1:], layer.id, value, loc):
                into[key] = copy.deepcopy(value)
            else:
                continue
            if where is not None:
                where[".".join(map(str, here[1:]))] = loc

    def _named(self, rule_id: Any, path: tuple, layer: Any) -> Rule | None:
        rules = self.ruleset.rules
        rule = rules.get(str(rule_id))
        if rule is None and str(rule_id) in self.replaced:
            rule = rules.get(self.replaced[str(rule_id)][0])  # a replaced rule keeps its id
        if rule is None:
            self.out.add(UNKNOWN_RULE_NAMED, key_loc_of(layer.positions, path, layer.manifest_file),
                         where=f"{MANIFEST} {path[0]}", rule=str(rule_id),
                         hint=did_you_mean(str(rule_id), rules))
        return rule

    def _adopt(self, rule_id: Any, adopted: bool, path: tuple, layer: Any) -> None:
        rule = self._named(rule_id, path, layer)
        if rule is None:
            return
        loc = loc_of(layer.positions, path, layer.manifest_file)
        if not adopted and rule.doc.get("optional", True) is False:
            self.out.add(NOT_OPTIONAL, loc, rule=rule.id)
        elif self.write((rule.id, "adopted"), layer.id, adopted, loc):
            rule.adopted = adopted

    def _fold(self, rule_id: str, chain: tuple[str, ...] = ()) -> State | None:
        """The rule after its base (``based_on``) and every override, folded once."""
        if rule_id in self.states:
            return self.states[rule_id]
        rule = dict.get(self.ruleset.rules, rule_id) or self.hidden[rule_id]
        source = self.sources[rule_id]
        base_id = rule.doc.get("based_on")
        state: State | None
        if base_id is None:
            state = state_of(rule)
        else:
            base_id = str(base_id)
            former = self.former.get(rule_id)
            if former is not None and former[0] == base_id:
                base_id = former[1]  # based on the document it replaces: that document as it was
            elif base_id in self.replaced and not dict.__contains__(self.ruleset.rules, base_id):
                base_id = self.replaced[base_id][0]
            loc = loc_of(source.positions, ("based_on",), source.file)
            if base_id == rule_id or base_id in chain:
                path = [*chain[chain.index(base_id):], rule_id, base_id] if base_id in chain \
                    else [rule_id, base_id]
                self.out.add(BASE_CYCLE, loc, chain=" -> ".join(path))
                self.states[rule_id] = state = None  # type: ignore[assignment]
                self.out.skip.add(rule_id)
                return None
            if base_id not in self.ruleset.rules and base_id not in self.hidden:
                self.out.add(NO_BASE, loc, base=base_id, rule=rule_id,
                             hint=did_you_mean(base_id, self.ruleset.rules))
                self.out.skip.add(rule_id)
                self.states[rule_id] = None  # type: ignore[assignment]
                return None
            base = self._fold(base_id, (*chain, rule_id))
            if base is None:
                self.out.skip.add(rule_id)
                self.states[rule_id] = None  # type: ignore[assignment]
                return None
            kind = source.data.get("kind")
            if kind is not None and kind != base.doc.get("kind"):
                self.out.add(OTHER_KIND, loc_of(source.positions, ("kind",), source.file),
                             rule=rule_id, kind=kind, base=base_id, base_kind=base.doc.get("kind"))
                self.out.skip.add(rule_id)
                self.states[rule_id] = None  # type: ignore[assignment]
                return None
            state = inherit(base, rule, source, self)
        for override in self.pending.get(rule_id, []):
            apply_override(state, rule, override, self)
        settle(state)
        self.states[rule_id] = state
        return state

    def _revalidate(self, rule: Rule) -> None:
        # start-up: interpreter.documents.schema loads only when _revalidate() runs
        from interpreter.documents.schema import validate_instance

        problems = validate_instance(rule.doc, "rule.json", rule.positions, rule.file, self.out.lang)
        self.out.findings.extend(problems)
        if any(p.severity == "error" for p in problems):
            self.out.skip.add(rule.id)

    def finish(self) -> None:
        """Fold every rule (bases first), check each merged document by its kind's schema, keep
        abstract bases apart, record which rule answers to a replaced id; then the conflicts
        between independent layers."""
        ruleset = self.ruleset
        for rule_id in list(ruleset.rules):
            rule = ruleset.rules[rule_id]
            if not self.pending.get(rule_id) and "based_on" not in rule.doc:
                unchanged(rule)  # as its document wrote it: nothing to fold
                continue
            state = self._fold(rule_id)
            if state is None:
                unchanged(rule)
                continue
            finish_rule(rule, state)
            rule.kind = str(rule.doc.get("kind", ""))
            if rule.doc.get("abstract") is not True:
                self._revalidate(rule)
        for rule_id in [r for r, rule in ruleset.rules.items() if rule.doc.get("abstract") is True]:
            ruleset.bases[rule_id] = ruleset.rules.pop(rule_id)
            ruleset.rules.aliases.pop(rule_id, None)
        for old, (new, layer, where) in self.replaced.items():
            if new in ruleset.rules:
                ruleset.rules[new].replaced[old] = layer
                if old != new:
                    ruleset.rules.aliases[old] = new
                self.out.add(REPLACED, where, old=old, new=new, layer=layer)
        if self.graph.is_chain():
            return  # each layer extends the one before: no two are independent, nothing conflicts
        reported: set[tuple] = set()
        every = self.writes
        for address, found in every.items():
            if type(found) is Write and not any(address[:k] in every for k in range(1, len(address))):
                continue  # one write, under no other: a layer never conflicts with itself
            writes = _each(found)
            above = [w for k in range(1, len(address) + 1) for w in _each(every.get(address[:k]))]
            for mine in writes:
                for other in above:
                    if not self.graph.independent(mine.layer, other.layer) or mine.value == other.value:
                        continue
                    pair = (address, frozenset((mine.layer, other.layer)))
                    if pair in reported or self._resolved(address, mine.layer, other.layer):
                        continue
                    reported.add(pair)
                    self.out.add(CONFLICT, _located(mine.loc), field=field_name(address),
                                 layer=mine.layer, other=other.layer, where=_where(_located(other.loc)))

    def _resolved(self, address: tuple, a: str, b: str) -> bool:
        return any(self.graph.descends_from_both(w.layer, a, b)
                   for k in range(1, len(address) + 1) for w in _each(self.writes.get(address[:k])))


def merge(ruleset: Ruleset, graph: Graph, out: Any) -> Ruleset:
    """Apply every layer of ``graph`` to ``ruleset``: each layer's documents, then its manifest."""
    # start-up: gc is a built-in module; the merge makes many small objects and no cycles, so
    # the cyclic collector, which would walk them again and again, waits until it is done
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        return _merge(ruleset, graph, out)
    finally:
        if collecting:
            gc.enable()


def _merge(ruleset: Ruleset, graph: Graph, out: Any) -> Ruleset:
    work = Merge(ruleset, graph, out)
    for layer in graph.layers:
        ruleset.file_layers[str(layer.manifest_file)] = layer.id
        for doc in layer.documents:
            ruleset.file_layers[str(doc.file)] = layer.id
        work.add_documents(layer)
        work.apply_manifest(layer)
    work.finish()
    for rule in [*ruleset.rules.values(), *ruleset.bases.values()]:
        rule.file_layers = ruleset.file_layers
    return ruleset


def load_directory(root: Path, out: Any, read_layer: Callable[[Path, Any], Any],
                   content_hash: Callable[[list[Path]], str]) -> Ruleset | None:
    """The ruleset of the directory ``root`` with every layer it extends merged in; its
    ``content_hash`` covers the files of every layer."""
    graph = read_graph(root, read_layer, out)
    if not graph.layers:
        return None
    top = graph.layers[-1]
    ruleset = Ruleset(id=top.id, root=str(top.root), manifest=top.manifest,
                      layers=[layer.id for layer in graph.layers])
    merge(ruleset, graph, out)
    ruleset.content_hash = content_hash([f for layer in graph.layers for f in layer.files])
    ruleset.files = [str(Path(f).resolve()) for layer in graph.layers for f in layer.files]
    for layer in graph.layers:
        globs = layer.manifest.get("files")
        ruleset.listings[str(Path(layer.root).resolve())] = (
            [g for g in globs if isinstance(g, str)] if isinstance(globs, list) else ["*.yaml"])
    return ruleset


def annotate_rows(rule: Rule, steps: list[Any]) -> None:
    """Mark each row step of a rule's trace with the layer the row came from."""
    for step in steps:
        if step.kind == "row" and step.label in rule.row_layers and "layer" not in step.detail:
            step.detail["layer"] = rule.row_layers[step.label]
