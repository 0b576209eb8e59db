"""An expression's life: text -> parsed AST (cached) -> static check -> compiled ``Expression``."""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from . import ast
from .checker import check
from .codegen import generate, relinked
from .compiler import Fn, compile_ast
from .dice import DiceSource
from .errors import Location, MprError
from .normalize import at
from .parser import parse as _parse

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from .ast import Node
    from typing import Any

    from .distribution import Distribution


class Expression:
    """A parsed, checked and compiled expression (immutable; equal only to itself).

    ``names`` are its free root variable names (``item`` in ``item.price``); ``has_dice`` tells
    whether evaluating it rolls dice. ``origin`` is where its text starts in its file.
    """

    text: str
    ast: Node
    names: frozenset[str]
    has_dice: bool
    origin: Location | None
    _fn: Fn

    def __init__(self, text: str, ast: Node, names: frozenset[str], has_dice: bool,
                 origin: Location | None = None, _fn: Fn = None) -> None:  # type: ignore[assignment]
        setter = object.__setattr__
        for name, value in (("text", text), ("ast", ast), ("names", names),
                            ("has_dice", has_dice), ("origin", origin), ("_fn", _fn)):
            setter(self, name, value)
        # The instance attribute is the generated function itself: one call per evaluation.
        fast = generate(ast, _fn) if _fn is not None else None
        if fast is not None:
            setter(self, "evaluate", fast)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return (f"Expression(text={self.text!r}, ast={self.ast!r}, names={self.names!r}, "
                f"has_dice={self.has_dice!r}, origin={self.origin!r})")

    def evaluate(self, env: Mapping[str, Any], dice: DiceSource | None = None) -> Any:
        """The value of the expression with ``env`` bound to its names, rolling through ``dice``."""
        return self._fn(env, dice)

    def distribution(self, env: Mapping[str, Any]) -> "Distribution":
        """The exact distribution of the value over every roll of its dice."""
        # start-up: the exact-distribution machinery loads only for a distribution
        from .prob import distribution

        return distribution(self, env)


@functools.lru_cache(maxsize=4096)
def _parse_unlocated(text: str) -> ast.Node:
    return _parse(text, None)


def parse(text: str, origin: Location | None = None) -> ast.Node:
    """The AST of ``text`` (cached by text); errors are located at ``origin`` shifted by the column."""
    try:
        return _parse_unlocated(text)
    except MprError as error:
        loc = error.loc or Location()
        raise MprError(error.code, at(origin, loc.line or 1, loc.column or 1),
                       **error.args_) from None


def compile_expression(text: str, origin: Location | None = None,
                       names: Iterable[str] | None = None) -> Expression:
    """Parse, check and compile ``text``; raises the first MprError found (located in its file).

    ``names``, when given, are the root names the expression may use (others are an error now
    rather than at evaluation). Each distinct text (with its names) is compiled once; the same
    text written at another place is the same compiled expression with that place attached, so
    its errors still point there.
    """
    key = None if names is None else frozenset(names)
    try:
        compiled = _compile_text(text, key)
    except MprError as error:
        raise relocated(error, origin) from None
    return compiled if origin is None else _located(compiled, origin)


def relocated(error: MprError, origin: Location | None) -> MprError:
    """``error``, raised by an expression compiled without a place, at its place ``origin``."""
    loc = error.loc
    if origin is None or loc is None or loc.file is not None or loc.path is not None:
        return error
    return MprError(error.code, at(origin, loc.line or 1, loc.column or 1), **error.args_)


@functools.lru_cache(maxsize=4096)
def _compile_text(text: str, names: frozenset[str] | None) -> Expression:
    node = parse(text, None)
    findings = check(node, None, names)
    if findings:
        raise findings[0]
    free = frozenset(n.name for n in ast.walk(node) if isinstance(n, ast.Name))
    has_dice = any(isinstance(n, (ast.Dice, ast.D66)) for n in ast.walk(node))
    return Expression(text, node, free, has_dice, None, compile_ast(node, None))


@functools.lru_cache(maxsize=16384)
def _located(compiled: Expression, origin: Location) -> Expression:
    """``compiled`` at ``origin``: the same code, its errors relocated (nothing compiled again)."""
    slow = compiled._fn

    def located_slow(env: Mapping[str, Any], dice: DiceSource | None = None) -> Any:
        try:
            return slow(env, dice)
        except MprError as error:
            raise relocated(error, origin) from None

    view = Expression(compiled.text, compiled.ast, compiled.names, compiled.has_dice, origin)
    fast = compiled.__dict__.get("evaluate")
    setter = object.__setattr__
    setter(view, "_fn", located_slow)
    if fast is not None:  # the generated functions again, falling back to the located closures
        setter(view, "evaluate", relinked(fast, located_slow))
    return view
