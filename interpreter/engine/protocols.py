"""The typed signatures of what a kind gives the engine (``interpreter.engine.registry.Kind``):
``Run``, ``Check`` and ``Distribution``. For type checkers and readers; the engine never imports
this module to run a rule, so ``typing`` stays off the start-up path."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rules_dsl.errors import Diagnostic

    from interpreter.engine.runner import Context
    from interpreter.engine.trace import ProbTable
    from interpreter.ruleset.model import Rule, Ruleset


class Run(Protocol):
    """``run(rule, inputs, ctx)``: the value of a rule for an input (defaults filled in)."""

    def __call__(self, rule: Rule, inputs: Mapping[str, Any], ctx: Context, /) -> Any: ...


class Check(Protocol):
    """``check(rule, ruleset, lang)``: the kind's own findings about a rule, for ``validate``."""

    def __call__(self, rule: Rule, ruleset: Ruleset, lang: str = "en", /) -> Iterator[Diagnostic]: ...


class Distribution(Protocol):
    """``distribution(rule, inputs, ctx)``: the exact probabilities of a rule's outcomes."""

    def __call__(self, rule: Rule, inputs: Mapping[str, Any], ctx: Context, /) -> list[ProbTable]: ...
