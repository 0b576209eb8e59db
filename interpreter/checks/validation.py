"""What ``mprules validate`` checks for a list of paths: ruleset directories whole, rule files
inside a ruleset with their ruleset (findings of that file only), loose rule files alone."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rules_dsl.errors import Diagnostic

from interpreter.checks.loading import MANIFEST, collect_findings, display_path
from interpreter.documents.resources import rulesets_dir


def shown_path(file: str | Path | None) -> str:
    """A file as a GM reads it: relative to where they stand when it is under there, a file of
    the bundled rulesets as ``(bundled) magipunk/rules.yaml``, any other as it is."""
    if not file:
        return ""
    path = Path(file)
    absolute = path.resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        pass
    try:
        return f"(bundled) {absolute.relative_to(rulesets_dir().resolve()).as_posix()}"
    except ValueError:
        return str(file)


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
            loose: list[Path], seen: set[Path]) -> None:
    if path.is_dir():
        if path.resolve() in seen:  # a symlink back to a folder already walked
            return
        seen.add(path.resolve())
        if (path / MANIFEST).is_file():
            rulesets.append(path)
            return
        for child in sorted(path.iterdir()):
            if child.is_dir() or child.suffix in (".yaml", ".yml"):
                _expand(child, rulesets, files, loose, seen)
        return
    if path.name == MANIFEST:
        rulesets.append(path.parent)
    elif (path.parent / MANIFEST).is_file():
        files.setdefault(path.parent, []).append(path)
    else:
        loose.append(path)


def expand(paths: Sequence[str | Path]) -> list[tuple[Path, set[str] | None]]:
    """What to load for ``paths``: each ruleset directory or loose rule file once, with the display
    paths of the files to report (``None``: all of them). A file inside a ruleset is loaded with its
    ruleset; any other directory is searched."""
    rulesets: list[Path] = []
    files: dict[Path, list[Path]] = {}
    loose: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        _expand(Path(path), rulesets, files, loose, seen)
    whole = {p.resolve() for p in rulesets}
    targets: list[tuple[Path, set[str] | None]] = [(root, None) for root in dict.fromkeys(rulesets)]
    targets += [(root, {display_path(m) for m in members}) for root, members in files.items()
                if root.resolve() not in whole]
    targets += [(path, None) for path in dict.fromkeys(loose)]
    return targets


def validate_paths(paths: list[str], lang: str = "en") -> list[Diagnostic]:
    """Every finding for ``paths``, sorted by file, line and column."""
    findings: list[Diagnostic] = []
    for root, only in expand(paths):
        findings.extend(d for d in collect_findings(root, lang) if only is None or d.file in only)
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda d: (d.file or "", d.line or 0, d.column or 0, d.code))
