"""rules_dsl: the expression language of mprules rule documents.

Text -> checked AST (with spans) -> compiled closure, or -> exact probability distribution.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .expression import Expression, compile_expression, parse

__all__ = ["Expression", "compile_expression", "parse"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        # start-up: the parser and compiler load on first use; commands without an expression skip them
        from . import expression

        value = getattr(expression, name)
        globals()[name] = value  # found directly next time: no call here per import statement
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
