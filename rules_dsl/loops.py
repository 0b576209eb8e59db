"""Evaluation of local names: ``let``, list comprehensions and generator arguments.

Locals live in a ``Scope``: a small dict layered over the caller's environment (which is never
written), made once per evaluation by ``scoped``. A ``for`` clause sets its name in the scope for
each element and restores it afterwards; a ``let`` sets its name for its body. All ``for`` rounds of
one evaluation share one budget (``MAX_LOOP_ITERATIONS``), so nested comprehensions stay bounded.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from . import ast
from .errors import Location, MprError, define
from .functions import KIND_JA, kind
from .limits import MAX_ELEMENTS_HELD, MAX_LIST_LENGTH, MAX_LOOP_ITERATIONS
from .operators import TOO_LONG, truth

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Generator
    from typing import Any

NOT_A_LIST = define(
    "MPR128", "'for' goes through a list, got {kind}{hint}",
    "'for' で回せるのはリストです（{kind_ja}でした）{hint_ja}")
TOO_MUCH_HELD = define(
    "MPR161", "the lists made by 'for' would hold more than {limit} elements in one evaluation (the "
              "elements of the lists they hold): refused before they are made",
    "'for' で作るリストが、1回の評価で上限 {limit} 個を超える要素（中に入れるリストの要素）を持つことに"
    "なります。作る前に止めました")
TOO_MANY_ROUNDS = define(
    "MPR134", "the 'for' clauses go round more than {limit} times in one evaluation",
    "'for' の繰り返しが1回の評価で上限 {limit} 回を超えました")

if TYPE_CHECKING:
    Fn = Callable[[Mapping[str, Any], Any], Any]
    _Names = dict[str, Any]
else:
    Fn = Callable  # the precise types are for the type checker only
    _Names = dict
BUDGET = "$rounds"  # the scope key of the shared round counter (no name can contain '$')
_MISSING = object()


class Scope(_Names):
    """Local names over an environment: a missing key is looked up in ``outer``."""

    __slots__ = ("outer",)

    def __init__(self, outer: Mapping[str, Any]) -> None:
        super().__init__()
        self.outer = outer
        self[BUDGET] = [0, 0]  # rounds of `for` clauses, elements of the lists `for` holds

    def __missing__(self, key: str) -> Any:
        return self.outer[key]

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key, self.outer.get(key, default))

    def keys(self) -> list[str]:  # type: ignore[override]  # a list: the names of both levels
        return [k for k in {**dict.fromkeys(self.outer.keys()), **dict.fromkeys(super().keys())}
                if not k.startswith("$")]


def scoped(fn: Fn) -> Fn:
    """``fn`` evaluated with a fresh Scope (for expressions that bind local names)."""
    def evaluate(env: Mapping[str, Any], dice: Any) -> Any:
        return fn(Scope(env), dice)
    return evaluate


def _set(env: Any, name: str, value: Any) -> Any:
    old = dict.get(env, name, _MISSING)
    env[name] = value
    return old


def _restore(env: Any, name: str, old: Any) -> None:
    if old is _MISSING:
        dict.pop(env, name, None)
    else:
        env[name] = old


def _rounds(env: Any) -> list[int]:
    try:
        return dict.__getitem__(env, BUDGET)
    except (KeyError, TypeError):
        return [0, 0]


class LoopCompiler:
    """The part of the Compiler for locals; mixed into ``rules_dsl.compiler.Compiler``."""

    loc: Callable[[Any], Location]
    compile: Callable[[ast.Node], Fn]

    def _local(self, node: ast.Local) -> Fn:
        name = node.name
        return lambda env, dice: env[name]

    def _let(self, node: ast.Let) -> Fn:
        value, body, name = self.compile(node.value), self.compile(node.body), node.name

        def let(env: Any, dice: Any) -> Any:
            old = _set(env, name, value(env, dice))
            try:
                return body(env, dice)
            finally:
                _restore(env, name, old)
        return let

    def each(self, node: ast.Comprehension) -> Callable[[Any, Any], Generator[Any, None, None]]:
        """A function giving the comprehension's elements one at a time (so ``any``/``all`` stop
        at the first that decides)."""
        element = self.compile(node.element)
        steps: list[tuple[str, list[tuple[Fn, Location]]]] = []
        for clause in node.clauses:
            if isinstance(clause, ast.ForClause):
                steps.append((clause.name, [(self.compile(clause.iterable),
                                             self.loc(clause.iterable))]))
            elif isinstance(clause, ast.IfClause):
                steps[-1][1].append((self.compile(clause.condition), self.loc(clause.condition)))
        loc = self.loc(node)

        def rounds(env: Any, dice: Any, i: int, budget: list[int]) -> Iterator[Any]:
            name, ((iterable, where), *conditions) = steps[i]
            values = iterable(env, dice)
            if not isinstance(values, (list, tuple)):
                k = kind(values)
                mapping = k == "mapping"
                raise MprError(NOT_A_LIST, where, kind=k, kind_ja=KIND_JA.get(k, k),
                               hint="; write keys(m) or values(m) for a mapping" if mapping else "",
                               hint_ja="。マップには keys(m) か values(m) と書きます" if mapping else "")
            old = dict.get(env, name, _MISSING)
            try:
                for value in values:
                    budget[0] += 1
                    if budget[0] > MAX_LOOP_ITERATIONS:
                        raise MprError(TOO_MANY_ROUNDS, loc, limit=MAX_LOOP_ITERATIONS)
                    env[name] = value
                    if not all(_test(c(env, dice), at) for c, at in conditions):
                        continue
                    if i + 1 < len(steps):
                        yield from rounds(env, dice, i + 1, budget)
                    else:
                        yield element(env, dice)
            finally:
                _restore(env, name, old)

        def iterate(env: Any, dice: Any) -> Any:
            return rounds(env, dice, 0, _rounds(env))
        return iterate

    def _comprehension(self, node: ast.Comprehension) -> Fn:
        each, loc = self.each(node), self.loc(node)

        def comprehension(env: Any, dice: Any) -> Any:
            out: list[Any] = []
            budget = _rounds(env)
            for value in each(env, dice):
                out.append(value)
                if len(out) > MAX_LIST_LENGTH:
                    raise MprError(TOO_LONG, loc, op="for", limit=MAX_LIST_LENGTH)
                if type(value) is list:  # what the lists of one evaluation hold, counted together
                    budget[1] += len(value)
                    if budget[1] > MAX_ELEMENTS_HELD:
                        raise MprError(TOO_MUCH_HELD, loc, limit=MAX_ELEMENTS_HELD)
            return out
        return comprehension

    def generator_call(self, node: ast.Call, impl: Callable[..., Any]) -> Fn:
        """``f(element for ...)``: ``any``/``all`` stop early; ``count`` counts the elements that
        are not ``false``; other functions take the list of elements."""
        (inner,) = node.args
        assert isinstance(inner, ast.Comprehension)  # the parser makes only these generator arguments
        loc = self.loc(node)
        if node.name in ("any", "all", "count"):
            each, name = self.each(inner), node.name

            def lazy(env: Any, dice: Any) -> Any:
                elements = each(env, dice)
                total = 0
                try:
                    for value in elements:
                        if name == "count":
                            total += value is not False
                            continue
                        if type(value) is not bool:
                            try:
                                impl([value])
                            except MprError as error:
                                raise error.at(loc) from None
                        if value is (name == "any"):
                            return value
                finally:
                    elements.close()
                return total if name == "count" else name == "all"
            return lazy
        listed = self._comprehension(inner)

        def call(env: Any, dice: Any) -> Any:
            values = listed(env, dice)
            try:
                return impl(values)
            except MprError as error:
                raise error.at(loc) from None
        return call


def _test(value: Any, loc: Location) -> bool:
    if value is True or value is False:
        return value
    try:
        return truth(value, "'if'")
    except MprError as error:
        raise error.at(loc) from None
