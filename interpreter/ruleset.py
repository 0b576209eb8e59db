"""Ruleset loading: a directory with ``ruleset.yaml`` and rule files becomes a ``Ruleset`` with
layered parameters, adoption switches (R0) and ``extends``; ``collect`` reports every finding at once."""
from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules_dsl.errors import EXIT_USAGE, Diagnostic, Location, MprError, define, diagnostic

from .documents import KEY, load_file, locate
from .engine import did_you_mean
from .model import Rule, Ruleset
from .resources import bundled_ruleset, rulesets_dir
from .schema import validate_document
from .semantic import check_ruleset

MANIFEST = "ruleset.yaml"
CALLER_LAYER = "--param"

INVALID = define(
    "MPR406", "ruleset {ruleset} has {count} error(s); the first: {first}{rest}",
    "ルールセット {ruleset} にエラーが {count} 件あります。最初のエラー: {first}{rest}")
NO_RULESET = define(
    "MPR407", "{path}: not a ruleset (no {manifest}) and not a rule file",
    "{path}: ルールセット（{manifest} のあるディレクトリ）でもルールファイルでもありません",
    exit_code=EXIT_USAGE)
DUPLICATE_ID = define(
    "MPR408", "rule id {id!r} is defined twice: here and at {other}",
    "ルールID {id!r} が二重に定義されています: ここと {other}")
EXTENDS_CYCLE = define(
    "MPR409", "extends forms a cycle: {chain}", "extends が循環しています: {chain}")
EXTENDS_MISSING = define(
    "MPR410", "extends {name!r}: no such ruleset (looked for {looked}){hint}",
    "extends {name!r}: そのようなルールセットはありません（探した場所: {looked}）{hint}")
UNKNOWN_RULE_NAMED = define(
    "MPR411", "{where} names rule {rule!r}, which is not in the ruleset{hint}",
    "{where} がルール {rule!r} を指定していますが、ルールセットにありません{hint}")
UNKNOWN_PARAM_OVERRIDE = define(
    "MPR412", "rule {rule} has no parameter {name!r} to override{hint}",
    "ルール {rule} に上書きできるパラメータ {name!r} はありません{hint}")
NOT_OPTIONAL = define(
    "MPR413", "rule {rule} is not optional (optional: false) and cannot be left out",
    "ルール {rule} は必須（optional: false）なので不採用にできません")


@dataclass
class _Layer:
    """One ruleset directory of an ``extends`` chain, as read from disk."""

    id: str
    root: Path
    manifest: dict[str, Any]
    positions: dict[tuple, tuple]
    manifest_file: str
    documents: list[Any] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


@dataclass
class _Collector:
    """Findings gathered while loading; rules whose documents failed the schema are skipped later."""

    lang: str
    findings: list[Diagnostic] = field(default_factory=list)
    skip: set[str] = field(default_factory=set)

    def add(self, code: str, loc: Location | None, **args: Any) -> None:
        self.findings.append(diagnostic(code, loc, self.lang, **args))

    def error(self, error: MprError) -> None:
        self.findings.append(error.diagnostic(self.lang))


def _key_loc(positions: dict, path: tuple, file: str | None) -> Location:
    """Where the key of ``path`` is written (its value's position when the key has none)."""
    pos = positions.get((*path, KEY))
    if pos is None:
        return locate(positions, path, file)
    return Location(pos[0], pos[1], pos[2], ".".join(map(str, path)))


def display_path(path: Path) -> str:
    """A path as shown in messages: relative to the working directory where possible."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def rule_files(root: Path, globs: list[str] | None = None) -> list[Path]:
    """The rule files of a ruleset directory: those matching the manifest's ``files`` globs,
    by default every ``*.yaml`` but the manifest; sorted."""
    found = {p for pattern in (globs or ["*.yaml"]) for p in root.glob(pattern)}
    return sorted(p for p in found if p.name != MANIFEST and p.is_file())


def _read_layer(root: Path, out: _Collector) -> _Layer | None:
    manifest_path = root / MANIFEST
    try:
        docs = load_file(display_path(manifest_path))
    except MprError as error:
        out.error(error)
        return None
    if not docs:
        return _Layer(root.name, root, {}, {}, display_path(manifest_path), files=[manifest_path])
    manifest_doc = docs[0]
    problems = validate_document(manifest_doc, "ruleset.json", out.lang)
    out.findings.extend(problems)
    data = manifest_doc.data if isinstance(manifest_doc.data, dict) else {}
    if any(p.severity == "error" for p in problems):
        data = {k: v for k, v in data.items() if k in ("id", "extends")
                and isinstance(v, str)}
    layer = _Layer(str(data.get("id") or root.name), root, data, manifest_doc.positions,
                   display_path(manifest_path), files=[manifest_path])
    globs = data.get("files") if isinstance(data.get("files"), list) else None
    for path in rule_files(root, globs):
        layer.files.append(path)
        try:
            layer.documents.extend(load_file(display_path(path)))
        except MprError as error:
            out.error(error)
    return layer


def _resolve_extends(layer: _Layer) -> Path | None:
    name = str(layer.manifest["extends"])
    candidates = [(layer.root / name)]
    if "/" not in name and "\\" not in name:
        candidates.insert(0, rulesets_dir() / name)
    for candidate in candidates:
        if (candidate / MANIFEST).is_file():
            return candidate.resolve()
    return None


def _read_chain(root: Path, out: _Collector) -> list[_Layer]:
    """The layers from the base to ``root`` (the variant last), following ``extends``."""
    chain: list[_Layer] = []
    seen: list[Path] = []
    current: Path | None = root.resolve()
    while current is not None:
        if current in seen:
            names = [p.name for p in seen[seen.index(current):]] + [current.name]
            last = chain[-1]
            out.add(EXTENDS_CYCLE, locate(last.positions, ("extends",), last.manifest_file),
                    chain=" -> ".join(names))
            break
        seen.append(current)
        layer = _read_layer(current, out)
        if layer is None:
            break
        chain.append(layer)
        if not layer.manifest.get("extends"):
            break
        current = _resolve_extends(layer)
        if current is None:
            name = str(layer.manifest["extends"])
            known = [p.name for p in rulesets_dir().iterdir() if (p / MANIFEST).is_file()] \
                if rulesets_dir().is_dir() else []
            out.add(EXTENDS_MISSING, locate(layer.positions, ("extends",), layer.manifest_file),
                    name=name, looked=f"{display_path(rulesets_dir())}, {display_path(layer.root)}",
                    hint=did_you_mean(name, known))
    chain.reverse()
    return chain


def _add_documents(ruleset: Ruleset, layer: _Layer, out: _Collector) -> None:
    """The layer's documents as rules; a document replaces one of an earlier layer by id."""
    defined_here: dict[str, Location] = {}
    for doc in layer.documents:
        data = doc.data
        problems = validate_document(doc, "rule.json", out.lang)
        out.findings.extend(problems)
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            continue
        rule_id = data["id"]
        loc = locate(doc.positions, ("id",), doc.file)
        if rule_id in defined_here:
            first = defined_here[rule_id]
            out.add(DUPLICATE_ID, loc, id=rule_id, other=f"{first.file}:{first.line}:{first.column}")
            continue
        defined_here[rule_id] = loc
        if any(p.severity == "error" for p in problems):
            out.skip.add(rule_id)
        params = data.get("params") if isinstance(data.get("params"), dict) else {}
        ruleset.rules[rule_id] = Rule(
            id=rule_id, kind=str(data.get("kind", "")), doc=data,
            params=copy.deepcopy(params), param_layers={k: layer.id for k in params},
            adopted=True, layer=layer.id, file=doc.file, positions=dict(doc.positions))


def _apply_manifest(ruleset: Ruleset, layer: _Layer, out: _Collector) -> None:
    """A layer's ``parameters``, ``overrides``, ``adopt`` and ``not_adopted`` on top of what is loaded."""
    manifest, positions, file = layer.manifest, layer.positions, layer.manifest_file
    parameters = manifest.get("parameters")
    if isinstance(parameters, dict):
        _deep_merge(ruleset.parameters, parameters)
    overrides = manifest.get("overrides")
    if isinstance(overrides, dict):
        for rule_id, override in overrides.items():
            rule = _named_rule(ruleset, rule_id, ("overrides", rule_id), layer, out)
            if rule is None or not isinstance(override, dict):
                continue
            params = override.get("params")
            if isinstance(params, dict):
                for name, value in params.items():
                    path = ("overrides", rule_id, "params", name)
                    if name not in rule.params:
                        out.add(UNKNOWN_PARAM_OVERRIDE, _key_loc(positions, path, file),
                                rule=rule_id, name=name, hint=did_you_mean(name, rule.params))
                        continue
                    _set_param(rule, name, value, layer.id)
                    for key, pos in positions.items():
                        if key[:len(path)] == path:
                            rule.positions[("params", name) + key[len(path):]] = pos
    adopt = manifest.get("adopt")
    if isinstance(adopt, dict):
        for rule_id, adopted in adopt.items():
            rule = _named_rule(ruleset, rule_id, ("adopt", rule_id), layer, out)
            if rule is not None:
                _set_adopted(rule, bool(adopted), locate(positions, ("adopt", rule_id), file), out)
    not_adopted = manifest.get("not_adopted")
    if isinstance(not_adopted, list):
        for index, rule_id in enumerate(not_adopted):
            rule = _named_rule(ruleset, rule_id, ("not_adopted", index), layer, out)
            if rule is not None:
                _set_adopted(rule, False, locate(positions, ("not_adopted", index), file), out)


def _named_rule(ruleset: Ruleset, rule_id: Any, path: tuple, layer: _Layer,
                out: _Collector) -> Rule | None:
    rule = ruleset.rules.get(str(rule_id))
    if rule is None:
        out.add(UNKNOWN_RULE_NAMED, _key_loc(layer.positions, path, layer.manifest_file),
                where=f"{MANIFEST} {path[0]}", rule=str(rule_id),
                hint=did_you_mean(str(rule_id), ruleset.rules))
    return rule


def _set_adopted(rule: Rule, adopted: bool, loc: Location, out: _Collector) -> None:
    if not adopted and rule.doc.get("optional", True) is False:
        out.add(NOT_OPTIONAL, loc, rule=rule.id)
        return
    rule.adopted = adopted


def _set_param(rule: Rule, name: str, value: Any, layer: str) -> None:
    rule.params[name] = copy.deepcopy(value)
    rule.param_layers[name] = layer
    rule._compiled.clear()


def _deep_merge(into: dict[str, Any], layer: dict[str, Any]) -> None:
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def _content_hash(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(set(files), key=lambda p: str(p)):
        digest.update(path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
        digest.update(b"\0")
    return digest.hexdigest()


def apply_caller(ruleset: Ruleset, param_overrides: dict[str, dict] | None,
                 adopt: dict[str, bool] | None, lang: str = "en") -> list[Diagnostic]:
    """The caller's parameter overrides and adoption switches (``--param``, a campaign's choices)."""
    findings: list[Diagnostic] = []
    where = Location(path=CALLER_LAYER)
    for rule_id, params in (param_overrides or {}).items():
        rule = ruleset.rules.get(rule_id)
        if rule is None:
            findings.append(diagnostic(UNKNOWN_RULE_NAMED, where, lang, where=CALLER_LAYER,
                                       rule=rule_id, hint=did_you_mean(rule_id, ruleset.rules)))
            continue
        for name, value in params.items():
            if name not in rule.params:
                findings.append(diagnostic(UNKNOWN_PARAM_OVERRIDE, Location(path=f"{rule_id}.{name}"),
                                           lang, rule=rule_id, name=name,
                                           hint=did_you_mean(name, rule.params)))
                continue
            _set_param(rule, name, value, CALLER_LAYER)
    for rule_id, adopted in (adopt or {}).items():
        rule = ruleset.rules.get(rule_id)
        if rule is None:
            findings.append(diagnostic(UNKNOWN_RULE_NAMED, Location(path="adopt"), lang,
                                       where="adopt", rule=rule_id,
                                       hint=did_you_mean(rule_id, ruleset.rules)))
            continue
        collector = _Collector(lang)
        _set_adopted(rule, bool(adopted), Location(path=f"adopt.{rule_id}"), collector)
        findings.extend(collector.findings)
    return findings


def _single_file(path: Path, out: _Collector) -> Ruleset:
    """A rule file outside any ruleset directory: a ruleset of its documents alone."""
    ruleset = Ruleset(id=path.stem, root=str(path.parent), manifest={}, layers=[path.stem])
    layer = _Layer(path.stem, path.parent, {}, {}, display_path(path), files=[path])
    try:
        layer.documents = load_file(display_path(path))
    except MprError as error:
        out.error(error)
    _add_documents(ruleset, layer, out)
    ruleset.content_hash = _content_hash([path])
    return ruleset


def collect(path: str | Path | None = None, lang: str = "en", *,
            param_overrides: dict[str, dict] | None = None,
            adopt: dict[str, bool] | None = None) -> tuple[Ruleset | None, list[Diagnostic]]:
    """Load a ruleset directory (or a lone rule file) and return it with every finding."""
    root = Path(path) if path is not None else bundled_ruleset()
    out = _Collector(lang)
    if root.is_file() and root.name == MANIFEST:
        root = root.parent
    if root.is_file():
        ruleset = _single_file(root, out)
    elif root.is_dir() and (root / MANIFEST).is_file():
        ruleset = _load_directory(root, out)
    else:
        out.add(NO_RULESET, Location(path=str(root)), path=str(root), manifest=MANIFEST)
        return None, out.findings
    if ruleset is None:
        return None, _sorted(out.findings)
    out.findings.extend(apply_caller(ruleset, param_overrides, adopt, lang))
    out.findings.extend(check_ruleset(ruleset, lang, skip=frozenset(out.skip)))
    return ruleset, _sorted(out.findings)


def _load_directory(root: Path, out: _Collector) -> Ruleset | None:
    chain = _read_chain(root, out)
    if not chain:
        return None
    top = chain[-1]
    ruleset = Ruleset(id=top.id, root=str(top.root), manifest=top.manifest,
                      layers=[layer.id for layer in chain])
    for layer in chain:
        _add_documents(ruleset, layer, out)
        _apply_manifest(ruleset, layer, out)
    ruleset.content_hash = _content_hash([f for layer in chain for f in layer.files])
    return ruleset


def _sorted(findings: list[Diagnostic]) -> list[Diagnostic]:
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda d: (d.file or "", d.line or 0, d.column or 0, d.code))


def load_ruleset(path: str | Path | None = None, *,
                 param_overrides: dict[str, dict] | None = None,
                 adopt: dict[str, bool] | None = None, lang: str = "en") -> Ruleset:
    """The ruleset at ``path`` (None: the bundled one), or an ``MprError`` naming its errors."""
    ruleset, findings = collect(path, lang, param_overrides=param_overrides, adopt=adopt)
    errors = [d for d in findings if d.severity == "error"]
    if ruleset is None or errors:
        first = errors[0] if errors else findings[0]
        rest = "".join(f"\n  {_where(d)}{d.code} {d.message}" for d in errors[1:])
        error = MprError(INVALID, Location(first.file, first.line, first.column, first.path),
                         ruleset=ruleset.id if ruleset else str(path), count=max(len(errors), 1),
                         first=f"{first.code} {first.message}", rest=rest)
        error.diagnostics = findings  # type: ignore[attr-defined]
        raise error
    return ruleset


def _where(d: Diagnostic) -> str:
    loc = str(Location(d.file, d.line, d.column, d.path))
    return f"{loc}: " if loc else ""
