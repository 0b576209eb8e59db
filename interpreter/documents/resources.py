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
