"""What ``mprules validate`` checks for a list of paths: ruleset directories whole, rule files
inside a ruleset with their ruleset (findings of that file only), loose rule files alone."""
from __future__ import annotations

from pathlib import Path

from rules_dsl.errors import Diagnostic

from .ruleset import MANIFEST, collect, display_path


def bundled_targets() -> list[Path]:
    """The bundled rulesets: ``rulesets/magipunk`` and every directory under ``rulesets/examples``."""
    from .resources import rulesets_dir

    root = rulesets_dir()
    targets = [root / "magipunk"]
    examples = root / "examples"
    if examples.is_dir():
        targets += sorted(p for p in examples.iterdir() if (p / MANIFEST).is_file())
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


def validate_paths(paths: list[str], lang: str = "en") -> list[Diagnostic]:
    """Every finding for ``paths``, sorted by file, line and column."""
    rulesets: list[Path] = []
    files: dict[Path, list[Path]] = {}
    loose: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        _expand(Path(path), rulesets, files, loose, seen)
    findings: list[Diagnostic] = []
    done = {p.resolve() for p in rulesets}
    for root in dict.fromkeys(rulesets):
        findings.extend(collect(root, lang)[1])
    for root, members in files.items():
        if root.resolve() in done:
            continue
        wanted = {display_path(m) for m in members}
        findings.extend(d for d in collect(root, lang)[1] if d.file in wanted)
    for path in loose:
        findings.extend(collect(path, lang)[1])
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda d: (d.file or "", d.line or 0, d.column or 0, d.code))

