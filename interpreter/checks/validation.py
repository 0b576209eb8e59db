"""What ``mprules validate`` checks for a list of paths: ruleset directories whole, rule files
inside a ruleset with their ruleset (findings of that file only), loose rule files alone."""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rules_dsl.errors import Diagnostic, Location, diagnostic

from interpreter.checks.loading import DIRECTORY_NOT_FILE, MANIFEST, collect_findings, display_path
from interpreter.documents.resources import bundled_relative, rulesets_dir
from interpreter.documents.resources import shown_path as shown_path  # the one path style


# A rule document or manifest by its content: a top-level ``kind:`` or ``id:`` (at the start of a
# line), or a modeline naming mprules' schemas. Configuration YAML (pre-commit's, a workflow's)
# has neither.
_RULE_CONTENT = re.compile(
    rb"^(?:kind|id)[ \t]*:|^#[ \t]+yaml-language-server[ \t]*:.*\$schema=\S*(?:rule|ruleset)\.json",
    re.M)
_SNIFF_BYTES = 1 << 20


def is_rule_file(path: str | Path) -> bool:
    """Whether ``path`` is a rule document or manifest, as a hook that is given every changed
    ``.yaml`` must tell: a ``ruleset.yaml``, a YAML file beside one (a file of that ruleset), or a
    file whose content is a rule document's (a top-level ``kind:`` or ``id:``, or a modeline
    naming ``rule.json`` or ``ruleset.json``). A directory is left to the search that walks it."""
    path = Path(path)
    if path.is_dir() or path.name == MANIFEST or (path.parent / MANIFEST).exists():
        return True
    if not path.is_file():
        return True  # a FIFO or a device is never opened here: the check refuses it, located
    try:
        with path.open("rb") as stream:
            head = stream.read(_SNIFF_BYTES)
    except OSError:
        return True  # let the check say what is wrong with it
    return bool(_RULE_CONTENT.search(head))


def bundled_targets() -> list[Path]:
    """The bundled rulesets: ``rulesets/magipunk`` and every ruleset directory under
    ``rulesets/examples`` (the house-rule variants of ``examples/house_rules/`` included)."""
    root = rulesets_dir()
    targets = [root / "magipunk"]
    examples = root / "examples"
    if examples.is_dir():
        targets += sorted(p.parent for p in examples.rglob(MANIFEST))
    return [t for t in targets if t.is_dir()]


def _expand(path: Path, rulesets: list[Path], files: dict[Path, list[Path]],
            loose: list[Path], seen: set[Path], refused: list[Path]) -> None:
    if path.is_dir():
        if path.resolve() in seen:  # a symlink back to a folder already walked
            return
        seen.add(path.resolve())
        if path.name == MANIFEST:  # a directory named ruleset.yaml: never a ruleset
            refused.append(path)
            return
        if path.suffix in (".yaml", ".yml") and (path.parent / MANIFEST).is_file():
            files.setdefault(path.parent, []).append(path)  # its ruleset refuses it, located
            return
        if (path / MANIFEST).is_file():
            rulesets.append(path)
            return
        for child in sorted(path.iterdir()):
            if child.is_dir() or child.suffix in (".yaml", ".yml"):
                _expand(child, rulesets, files, loose, seen, refused)
        return
    if path.name == MANIFEST:
        rulesets.append(path.parent)
    elif (path.parent / MANIFEST).is_file():
        files.setdefault(path.parent, []).append(path)
    else:
        loose.append(path)


def expand(paths: Sequence[str | Path], refused: list[Path] | None = None
           ) -> list[tuple[Path, set[str] | None]]:
    """What to load for ``paths``: each ruleset directory or loose rule file once, with the display
    paths of the files to report (``None``: all of them). A file inside a ruleset is loaded with its
    ruleset; any other directory is searched. A directory named like a manifest is put in
    ``refused``."""
    rulesets: list[Path] = []
    refusing: list[Path] = [] if refused is None else refused
    files: dict[Path, list[Path]] = {}
    loose: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        _expand(Path(path), rulesets, files, loose, seen, refusing)
    whole = {p.resolve() for p in rulesets}
    targets: list[tuple[Path, set[str] | None]] = [(root, None) for root in dict.fromkeys(rulesets)]
    targets += [(root, {display_path(m) for m in members}) for root, members in files.items()
                if root.resolve() not in whole]
    targets += [(path, None) for path in dict.fromkeys(loose)]
    return targets


def asked_for(finding: Diagnostic, asked: Sequence[str | Path]) -> bool:
    """Whether ``finding`` is about what was asked: an error always (the ruleset cannot be used),
    a warning or note when its file is not one of the bundled rulesets' (a GM's own file), or lies
    in one of the ``asked`` paths (the bundled files named on the command line)."""
    if finding.severity == "error" or not finding.file:
        return True
    if bundled_relative(finding.file) is None:
        return True
    try:
        file = Path(finding.file).resolve()
    except (OSError, RuntimeError):
        return True
    for path in asked:
        try:
            root = Path(path).resolve()
        except (OSError, RuntimeError):
            continue
        if file == root or root in file.parents:
            return True
    return False


def validate_paths(paths: Sequence[str | Path], lang: str = "en", *,
                   include_bundled: bool = True, asked: Sequence[str | Path] | None = None
                   ) -> list[Diagnostic]:
    """Every finding for ``paths``, sorted by file, line and column. Without ``include_bundled``,
    the warnings and notes located in bundled files that are not under ``asked`` (by default
    ``paths``) are left out: a GM's variant is judged by the GM's files, not by the rulesets it
    extends."""
    refused: list[Path] = []
    targets = expand(paths, refused)
    findings = [diagnostic(DIRECTORY_NOT_FILE, Location(display_path(path)), lang,
                           path=display_path(path), name=path.name) for path in refused]
    for root, only in targets:
        findings.extend(d for d in collect_findings(root, lang) if only is None or d.file in only)
    if not include_bundled:
        named = list(paths if asked is None else asked)
        findings = [d for d in findings if asked_for(d, named)]
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda d: (d.file or "", d.line or 0, d.column or 0, d.code))
