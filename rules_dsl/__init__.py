"""rules_dsl: the expression language of mprules rule documents.

Text -> checked AST (with spans) -> compiled closure, or -> exact probability distribution.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .expression import Expression, compile_expression, parse

__all__ = ["Expression", "compile_expression", "parse"]


def __getattr__(name: str) -> Any:
    # The parser (lark) loads on first use, so commands that never read an expression start fast.
    if name in __all__:
        from . import expression

        return getattr(expression, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
