"""Ruleset loading: a directory with ``ruleset.yaml`` and rule files becomes a ``Ruleset`` with
layered parameters, adoption switches (which optional rules are used) and ``extends`` (the layers are merged by
``interpreter.ruleset.variants``), then checked by ``interpreter.checks.semantic``; ``collect`` reports every
finding at once, ``load_ruleset`` refuses a ruleset with errors."""
from __future__ import annotations

import errno
import os
from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)

from rules_dsl import cachefile
from rules_dsl.errors import (EXIT_STATE, EXIT_USAGE, Diagnostic, Location, MprError, define,
                              diagnostic, did_you_mean)

from interpreter.ruleset import cache as ruleset_cache
from interpreter.ruleset.layers import CALLER_LAYER
from interpreter.ruleset.limits import MAX_RULESET_BYTES, MAX_RULESET_DOCUMENTS, MAX_RULESET_NODES
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.documents.resources import bundled_ruleset, shown_path

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Reading and checking a ruleset needs YAML, JSON Schema and the language; a ruleset that comes
# from the cache needs none of them, so those modules are imported where they are used.
MANIFEST = "ruleset.yaml"


INVALID = define(
    "MPR406", "ruleset {ruleset} has {count} error(s); the first: {first}{rest}",
    "ルールセット {ruleset} にエラーが {count} 件あります。最初のエラー: {first}{rest}")
NO_RULESET = define(
    "MPR407", "{path}: not a ruleset (no {manifest}) and not a rule file",
    "{path}: ルールセット（{manifest} のあるディレクトリ）でもルールファイルでもありません",
    exit_code=EXIT_USAGE)

TOO_MUCH_TO_READ = define(
    "MPR924", "the rulesets of this extends graph hold more than {limit} bytes in all (this file brings them to {total}); nothing more was read",
    "extends でつながるルールセットのファイルが合計 {limit} バイトを超えています（このファイルで {total} バイト）。これ以上は読んでいません")
TOO_MANY_DOCUMENTS = define(
    "MPR971", "the rulesets of this extends graph hold more than {limit} YAML documents (rules) in all (this file brings them to {total}); nothing more was read",
    "extends でつながるルールセットの YAML ドキュメント（ルール）が合計 {limit} 個を超えています（このファイルで {total} 個）。これ以上は読んでいません")
DIRECTORY_NOT_FILE = define(
    "MPR025", "a directory where a file is expected ({name} must be a YAML file); nothing in it was checked",
    "ファイルのはずの場所がディレクトリです（{name} は YAML のファイルでなければなりません）。中身は検査していません")


RULESET_MISSING = define(
    "MPR414", "ruleset {path}: no such file or directory",
    "ルールセット {path}: そのようなファイルやディレクトリはありません", exit_code=EXIT_STATE)

class _Layer(Record):
    """One ruleset directory of an ``extends`` graph, as read from disk (what
    ``interpreter.ruleset.variants`` merges)."""

    id: str
    root: Path
    manifest: dict[str, Any]
    positions: dict[tuple, tuple]
    manifest_file: str
    documents: list[Any] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    texts: dict[tuple, str] = field(default_factory=dict)  # written text of YAML-read scalars


class _Collector(Record):
    """Findings gathered while loading; rules whose documents failed the schema are skipped later."""

    lang: str
    findings: list[Diagnostic] = field(default_factory=list)
    skip: set[str] = field(default_factory=set)
    bytes_read: int = 0  # of every file of the extends graph, against MAX_RULESET_BYTES
    nodes_read: int = 0  # values of every file read, against MAX_RULESET_NODES
    documents_read: int = 0  # documents of every file read, against MAX_RULESET_DOCUMENTS
    spent: bool = False  # a file passed MAX_RULESET_NODES or _DOCUMENTS: nothing more is read

    def within_budget(self, path: Path) -> bool:
        """Whether ``path`` may still be read: the files of one graph hold MAX_RULESET_BYTES in all
        (a file that cannot be stat'ed is left to the reader to report) and MAX_RULESET_NODES
        values (counted as each file is read)."""
        if self.bytes_read > MAX_RULESET_BYTES or self.spent:
            return False
        try:
            self.bytes_read += path.stat().st_size
        except OSError:
            return True
        if self.bytes_read > MAX_RULESET_BYTES:
            self.add(TOO_MUCH_TO_READ, Location(display_path(path)), limit=MAX_RULESET_BYTES,
                     total=self.bytes_read)
            return False
        return True

    def read(self, path: Path) -> list[Any]:
        """The documents of ``path`` (``shared.read``) within what is left of MAX_RULESET_NODES
        (MPR970, located where the file passes it) and MAX_RULESET_DOCUMENTS (MPR971: the file
        that passes it is not used)."""
        # start-up: YAML loads only to read a ruleset, never for a cached one
        from interpreter.documents import shared
        from interpreter.documents.yaml_events import BUDGET

        try:
            docs = shared.read(display_path(path),
                               budget=(MAX_RULESET_NODES - self.nodes_read, MAX_RULESET_NODES))
        except MprError as error:
            self.spent = self.spent or error.code == BUDGET
            raise
        self.nodes_read += sum(doc.cost for doc in docs)
        self.documents_read += len(docs)
        if self.documents_read > MAX_RULESET_DOCUMENTS:
            self.spent = True
            self.add(TOO_MANY_DOCUMENTS, Location(display_path(path)), limit=MAX_RULESET_DOCUMENTS,
                     total=self.documents_read)
            return []
        return docs

    def add(self, code: str, loc: Location | None, **args: Any) -> None:
        self.findings.append(diagnostic(code, loc, self.lang, **args))

    def error(self, error: MprError) -> None:
        self.findings.append(error.diagnostic(self.lang))


def display_path(path: Path) -> str:
    """A path as shown in messages: relative to the working directory where possible."""
    try:
        # start-up: pathlib loads only when a path is shown
        from pathlib import Path

        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def rule_files(root: Path, globs: list[str] | None = None,
               directories: list[Path] | None = None) -> list[Path]:
    """The rule files of a ruleset directory: those matching the manifest's ``files`` globs,
    by default every ``*.yaml`` but the manifest; sorted. Directories that match (a folder named
    ``house.yaml``) go to ``directories``, when given."""
    found = {p for pattern in (globs or ["*.yaml"]) for p in root.glob(pattern)}
    if directories is not None:
        directories.extend(sorted(p for p in found if p.name != MANIFEST and p.is_dir()))
    return sorted(p for p in found if p.name != MANIFEST and p.is_file())


def _read_layer(root: Path, out: _Collector) -> _Layer | None:
    # start-up: YAML and the schema validators load only to read a ruleset, never for a cached one
    from interpreter.documents import shared

    manifest_path = root / MANIFEST
    if not out.within_budget(manifest_path):
        return None
    try:
        docs = out.read(manifest_path)
    except MprError as error:
        out.error(error)
        return None
    if not docs:
        return _Layer(root.name, root, {}, {}, display_path(manifest_path), files=[manifest_path])
    manifest_doc = docs[0]
    problems = shared.check(manifest_doc, "ruleset.json", out.lang)
    out.findings.extend(problems)
    data = manifest_doc.data if isinstance(manifest_doc.data, dict) else {}
    if any(p.severity == "error" for p in problems):
        data = {k: v for k, v in data.items() if k in ("id", "extends")
                and isinstance(v, str)}
    layer = _Layer(str(data.get("id") or root.name), root, data, manifest_doc.positions,
                   display_path(manifest_path), files=[manifest_path], texts=manifest_doc.texts)
    globs = written_files if isinstance(written_files := data.get("files"), list) else None
    directories: list[Path] = []
    for path in rule_files(root, globs, directories):
        if not out.within_budget(path):
            break
        layer.files.append(path)
        try:
            layer.documents.extend(out.read(path))
        except MprError as error:
            out.error(error)
    for path in directories:
        out.add(DIRECTORY_NOT_FILE, Location(display_path(path)), path=display_path(path),
                name=path.name)
    return layer


def _set_param(rule: Rule, name: str, value: Any, given_as: str) -> None:
    """A parameter set by the caller: an expression error in it points at ``given_as``, the name
    of the caller's layer."""
    # start-up: param_schema brings jsonschema, needed only when the caller sets a parameter
    from interpreter.checks.param_schema import Written

    texts: dict = {}
    if isinstance(value, Written):
        value, texts = value.value, value.texts
    # start-up: copy loads only when a parameter is overridden
    import copy

    rule.params[name] = copy.deepcopy(value)
    for key in [k for k in rule.texts if k[:2] == ("params", name)]:
        del rule.texts[key]
    rule.texts.update({("params", name) + k: v for k, v in texts.items()})
    rule.param_layers[name] = given_as
    rule._compiled.clear()
    for key in [k for k in rule.positions if k[:2] == ("params", name)]:
        del rule.positions[key]
    rule.positions[("params", name)] = (given_as, None, None)


def _content_hash(files: list[Path]) -> str:
    digest = cachefile.sha256()  # the built-in SHA-256: hashlib would load OpenSSL (start-up)
    for path in sorted(set(files), key=lambda p: str(p)):
        digest.update(os.fsencode(path.name) + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
        digest.update(b"\0")
    return digest.hexdigest()


def apply_caller(ruleset: Ruleset, param_overrides: dict[str, dict] | None,
                 adopt: dict[str, bool] | None, lang: str = "en",
                 given_as: str = CALLER_LAYER) -> list[Diagnostic]:
    """The caller's parameter overrides and adoption switches (a command's parameters, a
    campaign's choices), in the layer the caller names ``given_as``."""
    # start-up: the layering of variants is needed only when the caller changes something
    from interpreter.ruleset.variants import NOT_OPTIONAL, UNKNOWN_PARAM_OVERRIDE, UNKNOWN_RULE_NAMED

    findings: list[Diagnostic] = []
    where = Location(path=given_as)
    for rule_id, params in (param_overrides or {}).items():
        rule = ruleset.rules.get(rule_id)
        if rule is None:
            findings.append(diagnostic(UNKNOWN_RULE_NAMED, where, lang, where=given_as,
                                       rule=rule_id, hint=did_you_mean(rule_id, ruleset.rules)))
            continue
        for name, value in params.items():
            if name not in rule.params:
                findings.append(diagnostic(UNKNOWN_PARAM_OVERRIDE, Location(path=f"{rule_id}.{name}"),
                                           lang, rule=rule_id, name=name,
                                           hint=did_you_mean(name, rule.params)))
                continue
            _set_param(rule, name, value, given_as)
    for rule_id, adopted in (adopt or {}).items():
        rule = ruleset.rules.get(rule_id)
        if rule is None:
            findings.append(diagnostic(UNKNOWN_RULE_NAMED, Location(path="adopt"), lang,
                                       where="adopt", rule=rule_id,
                                       hint=did_you_mean(rule_id, ruleset.rules)))
            continue
        if not adopted and rule.doc.get("optional", True) is False:
            findings.append(diagnostic(NOT_OPTIONAL, Location(path=f"adopt.{rule_id}"), lang,
                                       rule=rule_id))
        else:
            rule.adopted = bool(adopted)
    return findings


def _single_file(path: Path, out: _Collector) -> Ruleset:
    # start-up: reading rule files (variants, YAML) is never needed for a cached ruleset
    from interpreter.ruleset import variants

    """A rule file outside any ruleset directory: a ruleset of its documents alone."""
    ruleset = Ruleset(id=path.stem, root=str(path.parent), manifest={}, layers=[path.stem])
    layer = _Layer(path.stem, path.parent, {}, {}, display_path(path), files=[path])
    try:
        layer.documents = out.read(path)
    except MprError as error:
        out.error(error)
    graph = variants.Graph([layer], {layer.id: ()}, {layer.id: frozenset()})
    variants.merge(ruleset, graph, out)
    ruleset.content_hash = _content_hash([path])
    ruleset.files = [str(path.resolve())]
    return ruleset


def collect(path: str | Path | None = None, lang: str = "en", *,
            param_overrides: dict[str, dict] | None = None,
            adopt: dict[str, bool] | None = None,
            given_as: str = CALLER_LAYER) -> tuple[Ruleset | None, list[Diagnostic]]:
    """Load a ruleset directory (or a lone rule file) and return it with every finding; the
    caller's ``param_overrides`` form the layer named ``given_as``."""
    # start-up: gc is a built-in module; reading, merging and checking make many small objects
    # and no cycles worth collecting, so the cyclic collector, which would walk them again and
    # again (a third of the time of a long table), waits until they are done; what they made is
    # then frozen (no collection walks it once more: another second for 100,000 rows) until the
    # next call, which hands it back to the collector's oldest generation
    import gc

    collecting = gc.isenabled()
    if collecting:
        gc.unfreeze()
    gc.disable()
    try:
        return _collect(path, lang, param_overrides=param_overrides, adopt=adopt,
                        given_as=given_as)
    finally:
        if collecting:
            gc.freeze()
            gc.enable()


def _collect(path: str | Path | None, lang: str, *, param_overrides: dict[str, dict] | None,
             adopt: dict[str, bool] | None, given_as: str
             ) -> tuple[Ruleset | None, list[Diagnostic]]:
    # start-up: reading and checking (variants, jsonschema, the semantic checks) is skipped for a
    # ruleset that comes from the cache
    from interpreter.ruleset import variants
    from interpreter.checks.param_schema import check_params
    from interpreter.checks.semantic import check_ruleset

    # start-up: pathlib loads only when a ruleset is read (not taken from the cache)
    from pathlib import Path

    root = Path(path) if path is not None else bundled_ruleset()
    out = _Collector(lang)
    if root.is_file() and root.name == MANIFEST:
        root = root.parent
    ruleset: Ruleset | None
    if root.is_file():
        ruleset = _single_file(root, out)
    elif root.is_dir() and (root / MANIFEST).is_file():
        ruleset = variants.load_directory(root, out, _read_layer, _content_hash)
    elif root.is_dir() and (root / MANIFEST).is_dir() or root.name == MANIFEST and root.is_dir():
        manifest = root if root.name == MANIFEST else root / MANIFEST
        out.add(DIRECTORY_NOT_FILE, Location(display_path(manifest)), path=display_path(manifest),
                name=MANIFEST)
        return None, out.findings
    else:
        out.add(NO_RULESET, Location(str(root)), path=str(root), manifest=MANIFEST)
        return None, out.findings
    if ruleset is None:
        return None, _sorted(out.findings)
    out.findings.extend(apply_caller(ruleset, param_overrides, adopt, lang, given_as))
    out.findings.extend(check_params(ruleset, lang, skip=frozenset(out.skip)))
    out.findings.extend(check_ruleset(ruleset, lang, skip=frozenset(out.skip),
                                      refused=list(out.findings)))
    # start-up: the registry is asked here only when a ruleset is read and checked
    from interpreter.engine.registry import plugged_files

    # the code of kinds from outside the package: the caches of the ruleset stamp it with its files
    ruleset.files.extend(f for f in plugged_files(r.kind for r in ruleset.rules.values())
                         if f not in ruleset.files)
    ruleset.values_read = out.nodes_read
    return ruleset, _sorted(out.findings)


class _Broken(Exception):
    """A ruleset with errors, which the cache never keeps."""


def collect_cached(path: str | Path, lang: str = "en") -> tuple[Ruleset | None, list[Diagnostic]]:
    """``collect(path)``, the ruleset taken from the cache when it holds it unchanged: a ruleset
    is cached only without errors, and then no finding comes with it (its warnings are not kept);
    otherwise it is read and checked, and kept for the next call."""
    found: list[Diagnostic] = []

    def build() -> Ruleset:
        ruleset, findings = collect(path, lang)
        found.extend(findings)
        if ruleset is None or any(d.severity == "error" for d in findings):
            raise _Broken
        return ruleset

    try:
        return ruleset_cache.load(path, None, None, build), found
    except _Broken:
        return None, found


def collect_findings(path: str | Path, lang: str = "en") -> list[Diagnostic]:
    """``collect(path)[1]``, kept in the ruleset cache while none of the ruleset's files changed
    (a ruleset with errors is read and checked each time): a warm ``validate`` only stats files."""
    def build() -> tuple[Ruleset | None, list[Diagnostic]]:
        ruleset, findings = collect(path, lang)
        clean = ruleset is not None and not any(d.severity == "error" for d in findings)
        return (ruleset if clean else None), findings

    found: list[Diagnostic] = ruleset_cache.kept(path, f"validate {lang}", build)
    return found


def _sorted(findings: list[Diagnostic]) -> list[Diagnostic]:
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda d: (d.file or "", d.line or 0, d.column or 0, d.code))


def load_ruleset(path: str | Path | None = None, *,
                 param_overrides: dict[str, dict] | None = None,
                 adopt: dict[str, bool] | None = None, lang: str = "en",
                 given_as: str = CALLER_LAYER) -> Ruleset:
    """The ruleset at ``path`` (None: the bundled one), or an ``MprError`` naming its errors.
    ``param_overrides`` form the layer named ``given_as`` (the command line names it by its flag).

    A path that does not exist is a state error (exit 3), a path that is not a ruleset a usage
    error (exit 2), a ruleset with errors a finding (exit 1)."""
    if path is not None and not _exists(path):
        raise MprError(RULESET_MISSING, None, path=str(path))
    return ruleset_cache.load(path, param_overrides, adopt,
                              lambda: _load_checked(path, param_overrides, adopt, lang, given_as),
                              given_as)


def _exists(path: str | Path) -> bool:
    """``Path(path).exists()`` without loading pathlib (start-up): False for a path that is not
    there, an error (``OSError``) for one that cannot be looked at (too long, no permission)."""
    try:
        os.stat(os.fspath(path) or ".")  # Path("") is the current folder
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP) and \
                getattr(error, "winerror", None) not in (21, 123, 1921):
            raise
        return False
    except ValueError:  # a NUL in the path
        return False
    return True


def _load_checked(path: str | Path | None, param_overrides: dict[str, dict] | None,
                  adopt: dict[str, bool] | None, lang: str, given_as: str) -> Ruleset:
    ruleset, findings = collect(path, lang, param_overrides=param_overrides, adopt=adopt,
                                given_as=given_as)
    if ruleset is None and len(findings) == 1 and findings[0].code == NO_RULESET:
        raise MprError(NO_RULESET, None, path=str(path), manifest=MANIFEST)
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
    loc = str(Location(shown_path(d.file) or None, d.line, d.column, d.path))
    return f"{loc}: " if loc else ""
