"""The run-time side of generated expression code (``rules_dsl.codegen`` writes it): the names its
functions see, the exception with which one gives up, and making a function again from its code and
constants, with the function it falls back to. It needs only what evaluation needs (operators,
functions, dice), never the parser or the code generator, so that an expression whose code was kept
(``rules_dsl.codecache``) runs without loading them.

A generated function is ``_expression(env, dice=None)`` in a namespace of ``HELPERS``, its own
constants (names ``_k<n>``) and ``_generic``: the function it hands over to when a value is not of
the kind its fast path handles. Its chain of fallbacks ends in a function that is not generated
(the closures of ``rules_dsl.compiler``), which gives the value or the located error."""
from __future__ import annotations

import types

from .dice import Replay, ScriptedDice, SeededDice
from .functions import FUNCTIONS, fn_ceil, fn_floor
from .operators import BINARY, COMPARE, UNARY, contains, field, index

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Fn = Callable[..., Any]
    # One generated function as data: (code, constants by name, default arguments).
    Link = tuple[types.CodeType, dict[str, Any], tuple[Any, ...] | None]

FILE = "<mprules expression>"  # the file name of every generated function's code


class Fallback(Exception):
    """Raised by generated code when a value is not of the kind its fast path handles."""


HELPERS: dict[str, Any] = {
    "_Fallback": Fallback, "_field": field, "_index": index, "_contains": contains,
    "_floor": fn_floor, "_ceil": fn_ceil, "_Replay": Replay,
    "_SOURCES": frozenset((SeededDice, ScriptedDice)),
    **{f"_op{i}": fn for i, fn in enumerate(BINARY.values())},
    **{f"_cmp{i}": fn for i, fn in enumerate(COMPARE.values())},
    **{f"_un{i}": fn for i, fn in enumerate(UNARY.values())},
    **{f"_f_{name}": f.impl for name, f in FUNCTIONS.items()},
}
BINARY_NAME = {op: f"_op{i}" for i, op in enumerate(BINARY)}
COMPARE_NAME = {op: f"_cmp{i}" for i, op in enumerate(COMPARE)}
UNARY_NAME = {op: f"_un{i}" for i, op in enumerate(UNARY)}
_OWN = ("_generic", "_expression", "__builtins__")  # names a namespace has that are not constants


def is_generated(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename == FILE


def links(fast: Fn) -> list[Link]:
    """The generated functions of ``fast``'s chain as data, ``fast`` first (the function that
    ends the chain is not generated, and not among them)."""
    chain: list[Link] = []
    fn = fast
    while is_generated(fn):
        namespace = fn.__globals__
        constants = {k: v for k, v in namespace.items() if k not in HELPERS and k not in _OWN}
        chain.append((fn.__code__, constants, fn.__defaults__))
        fn = namespace["_generic"]
    return chain


def made_again(chain: list[Link], slow: Fn) -> Fn:
    """The functions of ``links()`` made again, the last handing over to ``slow``."""
    fn = slow
    for code, constants, defaults in reversed(chain):
        namespace = {**HELPERS, **constants, "_generic": fn}
        fn = types.FunctionType(code, namespace, "_expression", defaults)
    return fn


def relinked(fast: Fn, slow: Fn) -> Fn:
    """``fast`` (a generated function) with the same code, falling back to ``slow`` in the end."""
    namespace = dict(fast.__globals__)
    after = namespace["_generic"]
    namespace["_generic"] = relinked(after, slow) if is_generated(after) else slow
    return types.FunctionType(fast.__code__, namespace, fast.__name__, fast.__defaults__)
