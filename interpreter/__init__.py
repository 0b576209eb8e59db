"""mprules as a library: load a ruleset, run a rule, its exact distribution, validate files,
compile an expression. Everything else is internal. The names load on first use, so importing
``interpreter`` costs nothing (the command line imports only what each command needs).

    >>> from interpreter import compile_expression
    >>> compile_expression("2d6 + 1").has_dice
    True

See ``docs/api.md``.
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time (start-up)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from typing import Any

    from rules_dsl.dice import ScriptedDice, SeededDice
    from rules_dsl.errors import Diagnostic, MprError
    from rules_dsl.expression import Expression, compile_expression

    from interpreter.engine.runner import distribution, run
    from interpreter.ruleset.model import Rule, Ruleset
    from interpreter.checks.loading import load_ruleset
    from interpreter.engine.trace import Result
    from interpreter.checks.validation import validate_paths

# public name -> the module that defines it
_EXPORTS = {
    "load_ruleset": "interpreter.checks.loading",
    "run": "interpreter.engine.runner",
    "distribution": "interpreter.engine.runner",
    "validate_paths": "interpreter.checks.validation",
    "compile_expression": "rules_dsl.expression",
    "Expression": "rules_dsl.expression",
    "MprError": "rules_dsl.errors",
    "Diagnostic": "rules_dsl.errors",
    "Ruleset": "interpreter.ruleset.model",
    "Rule": "interpreter.ruleset.model",
    "Result": "interpreter.engine.trace",
    "SeededDice": "rules_dsl.dice",
    "ScriptedDice": "rules_dsl.dice",
}

__all__ = ["Diagnostic", "Expression", "MprError", "Result", "Rule", "Ruleset", "ScriptedDice",
           "SeededDice", "__version__", "compile_expression", "distribution", "load_ruleset", "run",
           "validate_paths"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    __import__(module)  # importlib itself is not loaded for it: start-up
    return getattr(sys.modules[module], name)
