"""Results computed from a ruleset and kept in the ruleset cache while none of its files changed
(``interpreter.ruleset.cache.kept``): the outcomes of ``mprules test``. (``validate``'s findings are
kept by ``loading.collect_findings``.)"""
from __future__ import annotations

from interpreter.checks import loading
from interpreter.ruleset import cache as ruleset_cache

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from rules_dsl.errors import Diagnostic
    from interpreter.ruleset.model import Ruleset


def examples_of(path: str | Path, lang: str = "en", files: set[str] | None = None
                ) -> tuple[list[Any] | None, list[Diagnostic]]:
    """The outcomes of the examples of the ruleset at ``path`` (of ``files`` only, when given), or
    None and its errors; kept in the ruleset cache while none of its files changed (the examples
    roll scripted or seeded dice: the same files give the same outcomes)."""
    broken: list[list[Diagnostic]] = []

    def build() -> tuple[Ruleset | None, list[Any] | None]:
        # start-up: the examples' runner loads only when they must run
        from interpreter.checks.examples import run_examples

        ruleset, findings = loading.collect_cached(path, lang)
        errors = [d for d in findings if d.severity == "error"]
        if ruleset is None or errors:
            broken.append(errors)
            return None, None
        return ruleset, run_examples(ruleset, lang, files)

    purpose = f"test {lang} {sorted(files) if files is not None else '*'}"
    outcomes: list[Any] | None = ruleset_cache.kept(path, purpose, build)
    if broken or outcomes is None:
        return None, broken[0] if broken else []
    return outcomes, []
