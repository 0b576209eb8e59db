"""Exact distributions of expressions: each dice term is its own independent random variable, so a
recursion over the syntax tree combines the distributions of a node's random parts by convolution,
exactly (whole-number weights over a common denominator, then ``Fraction``s), never by sampling.

The operators keep the language's own meaning: a node with random parts is compiled once with each
random part replaced by a placeholder name, and that closure is called on every combination of the
parts' values. Parts without dice are evaluated once, normally. ``if``/``and``/``or`` choose among
their branches' distributions, so a branch is only computed when some roll reaches it.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction

from . import ast
from .compiler import compile_ast
from .distribution import COMBINATIONS, OUTCOMES, TOO_LARGE, Distribution
from .errors import Location, MprError, define
from .limits import MAX_DISTRIBUTION_SIZE, MAX_INT_BITS, MAX_PROB_WORK
from .normalize import at
from .words import bilingual
from .prob_estimate import estimated_work
from . import prob_pools

BOOL_NUMBER_CLASH = define(
    "MPR190", "the outcomes mix true/false with the numbers 1/0, which a distribution cannot tell "
    "apart; make every branch give the same type",
    "結果に true/false と数値 1/0 が混在しており、確率分布では区別できません。"
    "すべての分岐が同じ型の値を返すようにしてください")

DICE_IN_LOOP = define(
    "MPR135", "the exact distribution cannot roll dice inside a 'for' (here {text}): each round "
    "would roll anew; roll the dice into a list first, e.g. [d6, d6, d6]",
    "'for' の中のダイス（ここでは {text}）は厳密な確率分布では扱えません（繰り返しごとに振り直しになるため）。"
    "先にリストとして振ってください（例: [d6, d6, d6]）")

_LIMIT = 2 ** MAX_INT_BITS  # whole numbers stay strictly between -_LIMIT and _LIMIT (as the compiler's)
_FOLDABLE = ("sum", "min", "max", "any", "all")  # f(xs) == f([f(xs[:-1]), xs[-1]])
TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    Closure = Callable[[Mapping[str, Any], Any], Any]
    Compiler = Callable[[ast.Node], Closure]


class _Truth:
    """A boolean inside a distribution, kept apart from the numbers 1 and 0 (``True == 1``)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "true" if self.value else "false"


TRUE, FALSE = _Truth(True), _Truth(False)
_MISSING = object()


class _Map(tuple):  # type: ignore[type-arg]
    """A mapping inside a distribution: its (key, value) items sorted by key, hashable."""


def freeze(value: Any) -> Hashable:
    """A value as a distribution key: booleans apart from numbers, lists as tuples, dicts as _Map."""
    if value is True:
        return TRUE
    if value is False:
        return FALSE
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return _Map(sorted(((k, freeze(v)) for k, v in value.items()), key=lambda kv: str(kv[0])))
    scalar: Hashable = value
    return scalar


def thaw(key: Hashable) -> Any:
    """The language value of a distribution key."""
    if isinstance(key, _Truth):
        return key.value
    if isinstance(key, _Map):
        return {k: thaw(v) for k, v in key}
    if isinstance(key, tuple):
        return [thaw(v) for v in key]
    return key


def _external(key: Hashable) -> Hashable:
    """The key shown to callers: real booleans, lists as tuples, mappings as tuples of items."""
    if isinstance(key, _Truth):
        return key.value
    if isinstance(key, _Map):
        return tuple((k, _external(v)) for k, v in key)
    if isinstance(key, tuple):
        return tuple(_external(v) for v in key)
    return key


class _Weights:
    """A distribution as whole-number weights over one denominator: P(v) = weights[v] / total.
    Whole numbers keep convolution fast; probabilities become ``Fraction``s only at the end."""

    __slots__ = ("weights", "total")

    def __init__(self, weights: dict[Hashable, int], total: int) -> None:
        if len(weights) > MAX_DISTRIBUTION_SIZE:
            raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
        self.weights = weights
        self.total = total

    @classmethod
    def constant(cls, key: Hashable) -> "_Weights":
        return cls({key: 1}, 1)

    def __len__(self) -> int:
        return len(self.weights)


class _Prob:
    """One computation: the environment, the compiler of placeholder nodes, the work budget."""

    def __init__(self, tree: ast.Node, env: Mapping[str, Any], compile_node: Compiler,
                 origin: Location | None = None) -> None:
        self.origin = origin
        self.random = random_nodes(tree)
        self.scope: dict[str, Any] = dict(env)
        self.compile_node = compile_node
        self.work = 0
        self.placeholders = 0
        self.truth_tests: dict[int, tuple[str, Closure]] = {}
        self.compiled: dict[tuple[str, int], Any] = {}  # a let's body is computed once per value
        self.dice: dict[tuple[int, int], _Weights] = {}

    # --- the arithmetic of weights -------------------------------------------------------------
    def _charge(self, pairs: int) -> None:
        self.work += pairs
        if self.work > MAX_PROB_WORK:
            raise MprError(TOO_LARGE, limit=MAX_PROB_WORK, what=bilingual(COMBINATIONS))

    def _map(self, a: _Weights, f: Callable[[Any], Hashable]) -> _Weights:
        self._charge(len(a))
        out: dict[Hashable, int] = {}
        for x, w in a.weights.items():
            y = f(x)
            out[y] = out.get(y, 0) + w
        return _Weights(out, a.total)

    def _combine(self, a: _Weights, b: _Weights, f: Callable[[Any, Any], Hashable]) -> _Weights:
        """``f(x, y)`` for independent x ~ a and y ~ b."""
        self._charge(len(a) * len(b))
        out: dict[Hashable, int] = {}
        for x, wx in a.weights.items():
            for y, wy in b.weights.items():
                z = f(x, y)
                out[z] = out.get(z, 0) + wx * wy
            if len(out) > MAX_DISTRIBUTION_SIZE:
                raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
        return _Weights(out, a.total * b.total)

    def _added(self, a: _Weights, b: _Weights, minus: bool, f: Callable[[Any, Any], Hashable]) -> _Weights:
        """``_combine`` of whole numbers added (``minus``: subtracted), as the language adds them
        (a sum out of its bounds is left to ``f``, the language's own ``+``, for its error) without
        a call per pair: a roll of (1d100 - 1) * 1000 + 1d1000 adds 100,000 pairs."""
        self._charge(len(a) * len(b))
        out: dict[Hashable, int] = {}
        get = out.get
        pairs: list[tuple[Any, int]] = list(b.weights.items())  # whole numbers, checked by the caller
        rows: list[tuple[Any, int]] = list(a.weights.items())
        for x, wx in rows:
            for y, wy in pairs:
                z = x - y if minus else x + y
                if not -_LIMIT < z < _LIMIT:
                    z = f(x, y)
                out[z] = get(z, 0) + wx * wy
            if len(out) > MAX_DISTRIBUTION_SIZE:
                raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
        return _Weights(out, a.total * b.total)

    def _bind(self, a: _Weights, f: Callable[[Any], _Weights]) -> _Weights:
        """For each x ~ a the distribution ``f(x)``, weighted by P(x) (branches of if/and/or)."""
        self._charge(len(a))
        inner = [(w, f(x)) for x, w in a.weights.items()]
        common = math.lcm(*(d.total for _, d in inner))
        out: dict[Hashable, int] = {}
        for w, d in inner:
            self._charge(len(d))
            scale = w * (common // d.total)
            for y, wy in d.weights.items():
                out[y] = out.get(y, 0) + scale * wy
        return _Weights(out, a.total * common)

    def _cached(self, what: str, node: ast.Node, build: Callable[[], Any]) -> Any:
        key = (what, id(node))
        known = self.compiled.get(key)
        if known is None:
            known = self.compiled[key] = build()
        return known

    # --- placeholders and truth ------------------------------------------------------------------
    def _placeholder(self, like: ast.Node) -> ast.Name:
        self.placeholders += 1
        return ast.Name(span=like.span, name=f"${self.placeholders}")

    def _truth(self, key: Hashable, node: ast.Node) -> bool:
        """The language's truth of a value, through its own conditional (compiled once per node)."""
        test = self.truth_tests.get(id(node))
        if test is None:
            name = self._placeholder(node)
            closure = self.compile_node(ast.Conditional(
                span=node.span, condition=name, then=ast.Boolean(span=node.span, value=True),
                otherwise=ast.Boolean(span=node.span, value=False)))
            test = self.truth_tests[id(node)] = (name.name, closure)
        self.scope[test[0]] = thaw(key)
        return bool(test[1](self.scope, None))

    # --- the recursion ---------------------------------------------------------------------------
    def of(self, node: ast.Node) -> _Weights:
        if id(node) not in self.random:
            closure = self._cached("constant", node, lambda: self.compile_node(node))
            return _Weights.constant(freeze(closure(self.scope, None)))
        if isinstance(node, ast.Dice):
            return self._dice(node.count, node.faces)
        if isinstance(node, (ast.Call, ast.Index)):
            shape = self._shape(node)
            if shape is not None:
                pooled = self._pool(node, shape)
                if pooled is not None:
                    return pooled
        if isinstance(node, ast.D66):
            die = self._dice(1, 6)
            return self._combine(die, die, lambda tens, units: 10 * tens + units)
        if isinstance(node, ast.Conditional):
            return self._conditional(node)
        if isinstance(node, ast.Let):
            return self._let(node)
        if isinstance(node, ast.Comprehension):
            return self._comprehension(node, lambda inner: inner)
        if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(
                node.args[0], ast.Comprehension):
            return self._comprehension(node.args[0],
                                       lambda inner: ast.replace(node, args=(inner,)))
        if isinstance(node, ast.Logical):
            return self._logical(node)
        if isinstance(node, ast.Call) and node.name in _FOLDABLE:
            if len(node.args) == 1 and isinstance(node.args[0], ast.ListLiteral) \
                    and len(node.args[0].items) >= 2:
                listed = node.args[0]
                return self._folded(node, listed.items, lambda a, b: ast.replace(
                    node, args=(ast.replace(listed, items=(a, b)),)))
            if len(node.args) >= 2 and node.name in ("min", "max"):
                return self._folded(node, node.args, lambda a, b: ast.replace(node, args=(a, b)))
        return self._lifted(node)

    def _shape(self, node: ast.Node) -> prob_pools.Shape | None:
        """The pool shape of a node (``rules_dsl.prob_pools``), looked at once per computation."""
        key = ("shape", id(node))
        if key not in self.compiled:
            self.compiled[key] = prob_pools.let_shape(node, self.random) if isinstance(
                node, ast.Let) else prob_pools.recognise(node, self.random)
        found: prob_pools.Shape | None = self.compiled[key]
        return found

    def _dice(self, count: int, faces: int) -> _Weights:
        """The sum of ``count`` dice of ``faces`` faces: the ways to reach each total, one die at a
        time (a sliding window over the previous ways), over faces**count (cached)."""
        known = self.dice.get((count, faces))
        if known is None:
            if count * (faces - 1) + 1 > MAX_DISTRIBUTION_SIZE:
                raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
            # one step per added die k = 2..count, each building k * (faces - 1) + 1 counts
            self._charge(sum(k * (faces - 1) + 1 for k in range(2, count + 1)))
            ways = [1] * faces  # ways[i]: ways to roll (dice so far) + i
            for _ in range(count - 1):
                prefix = [0]
                for w in ways:
                    prefix.append(prefix[-1] + w)
                n = len(ways)
                ways = [prefix[min(i + 1, n)] - prefix[max(0, i - faces + 1)]
                        for i in range(n + faces - 1)]
            known = _Weights({count + i: w for i, w in enumerate(ways)}, faces ** count)
            self.dice[(count, faces)] = known
        return known

    def _conditional(self, node: ast.Conditional) -> _Weights:
        branches: dict[bool, _Weights] = {}

        def chosen(key: Hashable) -> _Weights:
            truth = self._truth(key, node.condition)
            if truth not in branches:
                branches[truth] = self.of(node.then if truth else node.otherwise)
            return branches[truth]

        return self._bind(self.of(node.condition), chosen)

    def _let(self, node: ast.Let) -> _Weights:
        """``let x = value in body``: the body's distribution for each value, weighted by it."""
        shape = self._shape(node)
        if shape is not None and shape.summed:
            summed = self._summed_pool(shape)
            if summed is not None:
                return summed
        scope, name = self.scope, node.name
        if id(node.body) not in self.random:  # no dice in the body: one value per bound value
            closure = self._cached("constant", node.body, lambda: self.compile_node(node.body))

            def value(key: Hashable) -> Hashable:
                old = scope.get(name, _MISSING)
                scope[name] = thaw(key)
                try:
                    return freeze(closure(scope, None))
                finally:
                    _unset(scope, name, old)

            return self._map(self._let_value(node), value)

        def body(key: Hashable) -> _Weights:
            old = scope.get(name, _MISSING)
            scope[name] = thaw(key)
            try:
                return self.of(node.body)
            finally:
                _unset(scope, name, old)

        return self._bind(self._let_value(node), body)

    def _let_value(self, node: ast.Let) -> _Weights:
        """The distribution of a let's value: ``sorted`` of a pool by the values its body reads."""
        shape = self._shape(node)
        if shape is not None:
            pooled = self._sorted_pool(shape)
            if pooled is not None:
                return pooled
        return self.of(node.value)

    # --- pools: one dice expression written n times, read by an order-free function ---------------
    def _single(self, node: ast.Call, shape: prob_pools.Shape) -> Callable[[Hashable], Hashable]:
        """The function of the call on a list of one item: how one item's value counts."""
        def build() -> tuple[ast.Name, Closure]:
            placeholder = self._placeholder(shape.item)
            listed = ast.ListLiteral(span=node.span, items=(placeholder,))
            args = (listed,) if shape.kind != "count_value" else (listed, node.args[1])
            return placeholder, self.compile_node(ast.replace(node, args=args))

        placeholder, closure = self._cached("pool", node, build)
        scope = self.scope

        def one(x: Hashable) -> Hashable:
            scope[placeholder.name] = thaw(x)
            return freeze(closure(scope, None))

        return one

    def _pool(self, node: ast.Call | ast.Index, shape: prob_pools.Shape) -> _Weights | None:
        """A recognised pool by counts (``rules_dsl.prob_pools``), or None to go the general way."""
        if shape.kind == "sorted":
            listed = self._sorted_pool(shape)
            if listed is None or not isinstance(node, ast.Index):
                return listed
            return self._lifted(node, {id(node.target): listed})
        assert isinstance(node, ast.Call)
        item = self.of(shape.item)
        n, total = shape.n, item.total
        self._charge(prob_pools.work(shape, len(item)))
        if shape.kind in ("max", "min") and prob_pools.ordered(list(item.weights)) is not None \
                and not any(type(x) is str for x in item.weights):
            counted: dict[Hashable, Hashable] = {x: x for x in item.weights}  # numbers: themselves
        elif shape.kind in ("count", "any", "all") and all(x is TRUE or x is FALSE for x in item.weights):
            counted = {x: (x is TRUE) + 0 for x in item.weights}  # true/false: as they count
        else:  # the function of each value on its own: the language's values and errors
            one = self._single(node, shape)
            counted = {x: one(x) for x in item.weights}
        if shape.kind in ("max", "min"):
            values = prob_pools.ordered(list(counted.values()))
            if values is None:
                return None
            merged: dict[Hashable, int] = {}
            for x, w in item.weights.items():
                merged[counted[x]] = merged.get(counted[x], 0) + w
            outcomes = [(v, merged[v]) for v in (reversed(values) if shape.kind == "max" else values)]
            return _Weights({key[0]: w for key, w in prob_pools.nearest(outcomes, n, 1).items()},
                            total ** n)
        yes = sum(w for x, w in item.weights.items() if counted[x] == 1 or counted[x] is TRUE)
        if shape.kind == "any":
            return _Weights({k: w for k, w in ((TRUE, total ** n - (total - yes) ** n),
                                               (FALSE, (total - yes) ** n)) if w}, total ** n)
        if shape.kind == "all":
            return _Weights({k: w for k, w in ((TRUE, yes ** n), (FALSE, total ** n - yes ** n)) if w},
                            total ** n)
        counts: dict[Hashable, int] = {k: w for k, w in prob_pools.binomial(yes, total - yes, n).items()}
        return _Weights(counts, total ** n)

    def _summed_pool(self, shape: prob_pools.Shape) -> _Weights | None:
        """``let s = sorted(P) in s[i] + s[j] + ...`` of whole numbers: the sum's distribution,
        kept as a running sum of the values read (``prob_pools.nearest_read``)."""
        item = self.of(shape.item)
        numbers = [v for v in item.weights if type(v) is int]
        if not numbers or len(numbers) != len(item.weights) or shape.reads is None:
            return None  # not whole numbers: the general way gives the language's values and errors
        values: list[int] = sorted(numbers)  # whole numbers, checked above
        self._charge(prob_pools.work(shape, len(item), values[-1] - values[0]))
        order = list(reversed(values)) if shape.top else values
        sums = prob_pools.nearest_read([(v, item.weights[v]) for v in order], shape.n, shape.depth,
                                       shape.reads, True)
        return _Weights(dict(sums), item.total ** shape.n)

    def _sorted_pool(self, shape: prob_pools.Shape) -> _Weights | None:
        """The sorted list of a pool, as far as ``shape.depth`` values from one end (null beyond;
        with ``shape.reads``, null at every position the expression never reads)."""
        item = self.of(shape.item)
        values = prob_pools.ordered(list(item.weights))
        if values is None:  # sorted() refuses them: the general way gives its error
            return None
        ints = [v for v in values if type(v) is int]
        span = max(ints) - min(ints) if len(ints) == len(values) else None
        self._charge(prob_pools.work(shape, len(item), span))
        n, depth = shape.n, shape.depth
        order = list(reversed(values)) if shape.top else values
        out: dict[Hashable, int] = {}
        if shape.reads is not None:
            read = sorted(p for p in shape.reads if p < depth)
            at = [n - 1 - p if shape.top else p for p in read]  # their ascending indices
            for kept, w in prob_pools.nearest_read([(v, item.weights[v]) for v in order], n, depth,
                                                   shape.reads, False).items():
                full: list[Any] = [None] * n
                for index, value in zip(at, kept):
                    full[index] = value
                out[tuple(full)] = w
            return _Weights(out, item.total ** n)
        for met, w in prob_pools.nearest([(v, item.weights[v]) for v in order], n, depth).items():
            if depth == n:
                key: tuple[Any, ...] = tuple(reversed(met)) if shape.top else met
            elif shape.top:
                key = (None,) * (n - depth) + tuple(reversed(met))
            else:
                key = met + (None,) * (n - depth)
            out[key] = w
        return _Weights(out, item.total ** n)

    def _comprehension(self, node: ast.Comprehension,
                       wrap: Callable[[ast.Comprehension], ast.Node]) -> _Weights:
        """Dice only in the list the first ``for`` goes through (it is read once); dice anywhere
        else in a comprehension would roll anew each round, which is refused."""
        first = node.clauses[0]
        assert isinstance(first, ast.ForClause)  # the parser starts every comprehension with a for
        for part in (node.element, first.iterable, *node.clauses[1:]):
            inside = part is not first.iterable
            if inside and id(part) in self.random:
                die = next(n for n in ast.walk(part) if isinstance(n, (ast.Dice, ast.D66)))
                text = "d66" if isinstance(die, ast.D66) else f"{die.count}d{die.faces}"
                raise MprError(DICE_IN_LOOP, at(self.origin, die.span.line, die.span.column),
                               text=text)

        def build() -> tuple[ast.Name, Closure]:
            placeholder = self._placeholder(first.iterable)
            clauses = (ast.replace(first, iterable=placeholder), *node.clauses[1:])
            return placeholder, self.compile_node(wrap(ast.replace(node, clauses=clauses)))

        placeholder, closure = self._cached("comprehension", node, build)
        scope = self.scope

        def one(x: Hashable) -> Hashable:
            scope[placeholder.name] = thaw(x)
            return freeze(closure(scope, None))

        return self._map(self.of(first.iterable), one)

    def _logical(self, node: ast.Logical) -> _Weights:
        def build() -> tuple[ast.Name, ast.Name, Closure]:
            a, b = self._placeholder(node.left), self._placeholder(node.right)
            return a, b, self.compile_node(ast.replace(node, left=a, right=b))

        a, b, closure = self._cached("logical", node, build)
        scope = self.scope
        right: list[_Weights] = []

        def value(key: Hashable) -> _Weights:
            if self._truth(key, node.left) == (node.op == "or"):  # decided by the left side alone
                scope[a.name], scope[b.name] = thaw(key), None
                return _Weights.constant(freeze(closure(scope, None)))
            if not right:
                right.append(self.of(node.right))

            def both(other: Hashable) -> Hashable:
                scope[a.name], scope[b.name] = thaw(key), thaw(other)
                return freeze(closure(scope, None))

            return self._map(right[0], both)

        return self._bind(self.of(node.left), value)

    def _folded(self, node: ast.Node, items: tuple[ast.Node, ...],
                pair: Callable[[ast.Name, ast.Name], ast.Node]) -> _Weights:
        """sum/min/max/any/all of several items, one item at a time: f([f(earlier), item]) is
        f(all items) for these functions, and the running value stays small."""
        def build() -> tuple[ast.Name, ast.Name, Closure]:
            a, b = self._placeholder(node), self._placeholder(node)
            return a, b, self.compile_node(pair(a, b))

        a, b, closure = self._cached("folded", node, build)
        scope = self.scope

        def step(acc: Hashable, x: Hashable) -> Hashable:
            scope[a.name], scope[b.name] = thaw(acc), thaw(x)
            return freeze(closure(scope, None))

        state = self._combine(self.of(items[0]), self.of(items[1]), step)
        for item in items[2:]:
            state = self._combine(state, self.of(item), step)
        return state

    def _lifted(self, node: ast.Node, known: dict[int, _Weights] | None = None) -> _Weights:
        """Any other node: its random children as placeholders, evaluated on every combination
        (``known``: the distributions of some children, by id, already computed)."""
        def build() -> tuple[list[str], Closure]:
            names: list[str] = []

            def swap(child: Any) -> Any:
                if isinstance(child, ast.Node) and id(child) in self.random:
                    placeholder = self._placeholder(child)
                    names.append(placeholder.name)
                    return placeholder
                return child

            changes = {}
            for name in ast.fields(node):
                value = getattr(node, name)
                if isinstance(value, ast.Node) and name != "span":
                    changes[name] = swap(value)
                elif isinstance(value, tuple):
                    changes[name] = tuple(swap(v) for v in value)
            return names, self.compile_node(ast.replace(node, **changes))

        names, closure = self._cached("lifted", node, build)
        parts = [known[id(child)] if known and id(child) in known else self.of(child)
                 for child in node.children() if id(child) in self.random]
        scope = self.scope
        if len(parts) == 1:
            (k,) = names

            def one(x: Hashable) -> Hashable:
                scope[k] = thaw(x)
                return freeze(closure(scope, None))

            return self._map(parts[0], one)
        if len(parts) == 2:
            k1, k2 = names

            def two(x: Hashable, y: Hashable) -> Hashable:
                scope[k1], scope[k2] = thaw(x), thaw(y)
                return freeze(closure(scope, None))

            if isinstance(node, ast.Binary) and node.op in ("+", "-") and all(
                    type(v) is int for part in parts for v in part.weights):
                return self._added(parts[0], parts[1], node.op == "-", two)
            return self._combine(parts[0], parts[1], two)
        joint = _Weights.constant(())
        for part in parts:
            joint = self._combine(joint, part, lambda acc, x: acc + (x,))

        def many(values: tuple[Any, ...]) -> Hashable:
            for k, x in zip(names, values):
                scope[k] = thaw(x)
            return freeze(closure(scope, None))

        return self._map(joint, many)


def _unset(scope: dict[str, Any], name: str, old: Any) -> None:
    if old is _MISSING:
        del scope[name]
    else:
        scope[name] = old


def random_nodes(tree: ast.Node) -> set[int]:
    """The ids of the nodes that contain a dice term (children are seen before their parents)."""
    found: set[int] = set()
    for node in reversed(list(ast.walk(tree))):
        if isinstance(node, (ast.Dice, ast.D66)) or any(id(c) in found for c in node.children()):
            found.add(id(node))
    return found


def weights_of(tree: ast.Node, env: Mapping[str, Any], compile_node: Compiler,
               origin: Location | None = None) -> tuple[dict[Hashable, int], int]:
    """The exact distribution of the expression ``tree`` in ``env`` as whole numbers: each value's
    weight (none of them 0) over the total, ``P(v) = weights[v] / total`` (not in lowest terms);
    ``compile_node`` gives the language's closure ``(env, dice) -> value`` of a node."""
    prob = _Prob(tree, env, compile_node, origin)
    if estimated_work(tree, prob.random) > MAX_PROB_WORK:  # refused before any of it is spent
        raise MprError(TOO_LARGE, limit=MAX_PROB_WORK, what=bilingual(COMBINATIONS))
    result = prob.of(tree)
    out: dict[Hashable, int] = {}
    for key, weight in result.weights.items():
        shown = key if type(key) is int else _external(key)
        if shown in out:
            raise MprError(BOOL_NUMBER_CLASH)
        if weight:
            out[shown] = weight
    return out, result.total


def distribution(expression: Any, env: Mapping[str, Any]) -> Distribution:
    """The exact distribution of a compiled ``Expression`` (``rules_dsl.compile_expression``) in ``env``."""
    weights, total = whole_weights(expression, env)
    return Distribution({value: Fraction(weight, total) for value, weight in weights.items()})


def whole_weights(expression: Any, env: Mapping[str, Any]) -> tuple[dict[Hashable, int], int]:
    """``weights_of`` a compiled ``Expression`` in ``env``: what ``distribution`` gives, in whole
    numbers (no ``Fraction`` per value: a roll of 100,000 outcomes makes none)."""
    origin = getattr(expression, "origin", None)
    try:
        return weights_of(expression.ast, env, lambda node: compile_ast(node, origin), origin)
    except MprError as error:  # a limit of the whole computation: located at the expression
        raise error.at(origin or Location(line=1, column=1)) from None
