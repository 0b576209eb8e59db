"""Finds the data that ships with mprules (schemas, bundled rulesets), installed or from a checkout."""
from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def data_dir(name: str) -> Path:
    """The directory ``schemas`` or ``rulesets``: inside the wheel, or at the top of a checkout."""
    package = Path(__file__).resolve().parent.parent  # the interpreter package
    installed = package / "_data" / name
    if installed.is_dir():
        return installed
    return package.parent / name


def schemas_dir() -> Path:
    return data_dir("schemas")


def rulesets_dir() -> Path:
    return data_dir("rulesets")


def bundled_ruleset() -> Path:
    """The ruleset used when ``--ruleset`` is not given: the seed's rules."""
    return rulesets_dir() / "magipunk"
