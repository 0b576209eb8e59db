"""Finds the data that ships with mprules (schemas, bundled rulesets), installed or from a checkout.

The ``*_dir`` text forms need no pathlib, for commands that start fast."""
from __future__ import annotations

import os
from functools import cache

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from pathlib import Path

BUNDLED = "magipunk"


@cache
def data_dir_text(name: str) -> str:
    """The directory ``schemas`` or ``rulesets``: inside the wheel, or at the top of a checkout."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # interpreter
    installed = os.path.join(package, "_data", name)
    if os.path.isdir(installed):
        return installed
    return os.path.join(os.path.dirname(package), name)


def data_dir(name: str) -> Path:
    # start-up: pathlib waits for the callers that want a Path; the fast commands use the text forms
    from pathlib import Path

    return Path(data_dir_text(name))


def schemas_dir() -> Path:
    return data_dir("schemas")


def rulesets_dir() -> Path:
    return data_dir("rulesets")


def bundled_ruleset_dir() -> str:
    """The directory of the ruleset used when ``--ruleset`` is not given, as text."""
    return os.path.join(data_dir_text("rulesets"), BUNDLED)


def bundled_ruleset() -> Path:
    """The ruleset used when ``--ruleset`` is not given: the seed's rules."""
    return rulesets_dir() / BUNDLED


BUNDLED_PREFIX = "(bundled) "


def bundled_relative(file: str | Path) -> str | None:
    """``magipunk/rules.yaml`` for a file of the bundled rulesets (installed or in a checkout),
    else None."""
    # start-up: pathlib loads only when a path is shown
    from pathlib import Path

    text = str(file)
    if text.startswith(BUNDLED_PREFIX):
        return text[len(BUNDLED_PREFIX):]
    try:
        return Path(text).resolve().relative_to(Path(data_dir_text("rulesets")).resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def shown_path(file: str | Path | None) -> str:
    """A file as a GM reads it, one style in every output (text, JSON, annotations, errors):
    relative to where they stand when it is under there (a repository's path in CI), a file of the
    bundled rulesets as ``(bundled) magipunk/rules.yaml`` (wherever pip put it), any other as it
    is."""
    if not file:
        return ""
    # start-up: pathlib loads only when a path is shown
    from pathlib import Path

    text = str(file)
    if text.startswith(BUNDLED_PREFIX):
        return text
    try:
        return str(Path(text).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        pass
    inside = bundled_relative(text)
    return f"{BUNDLED_PREFIX}{inside}" if inside is not None else text


def templates_dir() -> Path:
    """The files ``mprules init`` writes into a GM's new repository."""
    return data_dir("templates")
