"""An expression's life: text -> parsed AST (cached) -> static check -> compiled ``Expression``.

A text compiled before, by this process or by an earlier command (``rules_dsl.codecache``), is not
parsed, checked or compiled again: its generated code is made again from the kept data, and its AST
and closures are made only if something asks for them (an explanation, a distribution, or a value
the generated code hands over)."""
from __future__ import annotations

import functools

from .errors import Location, MprError
from .generated import links, made_again, relinked

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from . import ast
    from .ast import Node
    from .dice import DiceSource
    from .distribution import Distribution

    Fn = Callable[..., Any]


class Expression:
    """A parsed, checked and compiled expression (immutable; equal only to itself).

    ``names`` are its free root variable names (``item`` in ``item.price``); ``has_dice`` tells
    whether evaluating it rolls dice. ``origin`` is where its text starts in its file. ``fields``
    are the ``(root, name)`` of every ``root.name`` written on a variable, in the order of
    ``ast.walk``, each once (kept with the code, so that reading them parses nothing).
    """

    text: str
    ast: Node
    names: frozenset[str]
    has_dice: bool
    origin: Location | None
    fields: tuple[tuple[str, str], ...]
    _fn: Fn

    def __init__(self, text: str, ast: Node | None, names: frozenset[str], has_dice: bool,
                 origin: Location | None = None, _fn: Fn = None) -> None:  # type: ignore[assignment]
        setter = object.__setattr__
        for name, value in (("text", text), ("names", names), ("has_dice", has_dice),
                            ("origin", origin)):
            setter(self, name, value)
        if ast is not None:  # else made from the text when asked for
            setter(self, "ast", ast)
        if _fn is not None:
            setter(self, "_fn", _fn)
            # start-up: the code generator loads only for an expression compiled anew
            from .codegen import generate

            # The instance attribute is the generated function itself: one call per evaluation.
            fast = generate(ast, _fn) if ast is not None else None
            if fast is not None:
                setter(self, "evaluate", fast)

    @classmethod
    def kept(cls, text: str, entry: tuple[Any, ...]) -> Expression:
        """The expression of ``text`` made again from its kept data (``kept_data()``)."""
        names, has_dice, chain, fields = entry
        expression = cls(text, None, frozenset(names), has_dice)
        object.__setattr__(expression, "fields", fields)
        if chain is not None:
            object.__setattr__(expression, "evaluate", made_again(list(chain), expression._slow))
        return expression

    def kept_data(self) -> tuple[Any, ...]:
        """What ``kept()`` makes this expression again from: its names, whether it rolls dice and
        its generated code (None when it has none), and its ``fields``."""
        fast = self.__dict__.get("evaluate")
        chain = tuple(links(fast)) if fast is not None else None
        return tuple(sorted(self.names)), self.has_dice, chain or None, self.fields

    def __getattr__(self, name: str) -> Any:
        """The AST and the closures of an expression made from kept data, made on first use."""
        if name == "ast":
            value: Any = parse(self.text, None)
        elif name == "_fn":
            # start-up: the closure compiler loads only when a kept expression needs its closures
            from .compiler import compile_ast

            value = compile_ast(self.ast, None)
        elif name == "fields":
            value = fields_of(self.ast)
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        object.__setattr__(self, name, value)
        return value

    def _slow(self, env: Mapping[str, Any], dice: DiceSource | None = None) -> Any:
        return self._fn(env, dice)

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

    def weights(self, env: Mapping[str, Any]) -> tuple[dict[Any, int], int]:
        """``distribution`` in whole numbers: each value's weight (none 0) over the total."""
        # start-up: the exact-distribution machinery loads only for a distribution
        from .prob import whole_weights

        return whole_weights(self, env)


def fields_of(tree: Node) -> tuple[tuple[str, str], ...]:
    """The ``(root, name)`` of every ``root.name`` on a variable in ``tree``, in walk order, once each."""
    # start-up: the AST classes load only when a tree is walked
    from . import ast

    return tuple(dict.fromkeys(
        (node.target.name, node.name) for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.target, ast.Name)))


@functools.lru_cache(maxsize=4096)
def _parse_unlocated(text: str) -> ast.Node:
    # start-up: the parser loads only for a text whose AST is asked for
    from .parser import parse as parse_text

    return parse_text(text, None)


def parse(text: str, origin: Location | None = None) -> ast.Node:
    """The AST of ``text`` (cached by text); errors are located at ``origin`` shifted by the column."""
    try:
        return _parse_unlocated(text)
    except MprError as error:
        # start-up: normalize loads only when an error is placed
        from .normalize import at

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
    # start-up: normalize loads only when an error is placed
    from .normalize import at

    return MprError(error.code, at(origin, loc.line or 1, loc.column or 1), **error.args_)


@functools.lru_cache(maxsize=4096)
def _compile_text(text: str, names: frozenset[str] | None) -> Expression:
    """The compiled ``text``: made again from the code an earlier command kept when there is
    some, else parsed, checked and compiled (and its code kept for the next command)."""
    # start-up: the kept code is read only when an expression is compiled
    from . import codecache

    key = codecache.key(text, names)
    entry = codecache.lookup(key)
    if entry is not None:
        return Expression.kept(text, entry)
    compiled = _compiled_anew(text, names)
    codecache.remember(key, compiled.kept_data())
    return compiled


def _compiled_anew(text: str, names: frozenset[str] | None) -> Expression:
    # start-up: the checker and the compilers load only for a text no command compiled before
    from . import ast
    from .checker import check
    from .compiler import compile_ast

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
    def located_slow(env: Mapping[str, Any], dice: DiceSource | None = None) -> Any:
        try:
            return compiled._fn(env, dice)
        except MprError as error:
            raise relocated(error, origin) from None

    view = Expression(compiled.text, compiled.__dict__.get("ast"), compiled.names,
                      compiled.has_dice, origin)
    if "fields" in compiled.__dict__:
        object.__setattr__(view, "fields", compiled.fields)
    fast = compiled.__dict__.get("evaluate")
    setter = object.__setattr__
    setter(view, "_fn", located_slow)
    if fast is not None:  # the generated functions again, falling back to the located closures
        setter(view, "evaluate", relinked(fast, located_slow))
    return view
