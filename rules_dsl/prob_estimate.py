"""An upper bound on the work of an exact distribution, computed from the sizes of the supports
before any of it is spent, so ``prob`` refuses what it could not finish within ``MAX_PROB_WORK`` at
once (MPR160) instead of after seconds of computing.

The estimate follows ``rules_dsl.prob`` node by node: each random node gets a bound on the number of
its outcomes (a whole-number interval narrows the bound of ``+``, ``-`` and ``*``; ``min``/``max``
give at most the outcomes of their parts together; comparisons and ``and``/``or`` at most two) and
the outcome pairs combined to compute it. Arithmetic on exact fractions (``/``, or ``+ - *`` on
values without a whole-number interval) whose parts could combine into more outcomes than
``MAX_DISTRIBUTION_SIZE`` is refused at once: such values almost never coincide.
"""
from __future__ import annotations

from collections.abc import Iterable
from .frozen import Record  # a dataclass without importing dataclasses (start-up)

from . import ast, prob_pools
from .limits import MAX_DISTRIBUTION_SIZE

_CAP = MAX_DISTRIBUTION_SIZE  # more outcomes than this is refused anyway
_FOLDABLE = ("sum", "min", "max", "any", "all")
_REFUSED = 10 ** 18  # work of a node whose outcomes cannot stay within MAX_DISTRIBUTION_SIZE


class Size(Record, frozen=True):
    """At most ``outcomes`` values (within ``low..high`` when both are whole numbers), computed by
    combining at most ``work`` outcome pairs."""

    outcomes: int
    work: int
    low: int | None = None
    high: int | None = None


_ONE = Size(1, 0)


def _capped(n: int) -> int:
    return min(n, _CAP)


def _interval(op: str, a: Size, b: Size) -> tuple[int | None, int | None]:
    if None in (a.low, a.high, b.low, b.high):
        return None, None
    if op == "+":
        return a.low + b.low, a.high + b.high  # type: ignore[operator]
    if op == "-":
        return a.low - b.high, a.high - b.low  # type: ignore[operator]
    corners = [x * y for x in (a.low, a.high) for y in (b.low, b.high)]  # type: ignore[operator]
    return min(corners), max(corners)


def _within(outcomes: int, low: int | None, high: int | None) -> int:
    return _capped(outcomes if low is None or high is None else min(outcomes, high - low + 1))


class Estimator:
    def __init__(self, random: set[int]) -> None:
        self.random = random
        self.known: dict[int, Size] = {}

    def of(self, node: ast.Node) -> Size:
        size = self.known.get(id(node))
        if size is None:
            size = self.known[id(node)] = self._of(node)
        return size

    def _of(self, node: ast.Node) -> Size:
        if id(node) not in self.random:
            if isinstance(node, ast.Number):
                return Size(1, 0, node.value, node.value)
            return _ONE
        if isinstance(node, ast.Dice):
            work = sum(k * (node.faces - 1) + 1 for k in range(2, node.count + 1))
            return Size(_capped(node.count * (node.faces - 1) + 1), work, node.count,
                        node.count * node.faces)
        if isinstance(node, ast.D66):
            return Size(36, 36, 11, 66)
        if isinstance(node, (ast.Call, ast.Index)):
            shape = prob_pools.recognise(node, self.random)
            if shape is not None:
                return self._pool(shape)
        if isinstance(node, ast.Conditional):
            c, t, e = self.of(node.condition), self.of(node.then), self.of(node.otherwise)
            low = None if None in (t.low, e.low) else min(t.low, e.low)  # type: ignore[type-var]
            high = None if None in (t.high, e.high) else max(t.high, e.high)  # type: ignore[type-var]
            work = c.work + t.work + e.work + c.outcomes * (1 + max(t.outcomes, e.outcomes))
            return Size(_capped(t.outcomes + e.outcomes), work, low, high)
        if isinstance(node, ast.Logical):
            a, b = self.of(node.left), self.of(node.right)
            return Size(2, a.work + b.work + a.outcomes * (1 + 2 * b.outcomes))
        if isinstance(node, ast.Let):
            shape = prob_pools.let_shape(node, self.random)
            v = self.of(node.value) if shape is None else self._pool(shape)
            body = self.of(node.body)
            if id(node.body) not in self.random:
                return Size(v.outcomes, v.work + v.outcomes)
            return Size(_capped(v.outcomes * body.outcomes),
                        v.work + v.outcomes * (1 + body.work + body.outcomes))
        if isinstance(node, ast.Comprehension):
            first = self.of(node.clauses[0].iterable)  # type: ignore[attr-defined]
            return Size(first.outcomes, first.work + first.outcomes)
        if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(
                node.args[0], ast.Comprehension):
            inner = self.of(node.args[0])
            return Size(inner.outcomes, inner.work + inner.outcomes)
        if isinstance(node, ast.Call) and node.name in _FOLDABLE:
            items = None
            if len(node.args) == 1 and isinstance(node.args[0], ast.ListLiteral) \
                    and len(node.args[0].items) >= 2:
                items = node.args[0].items
            elif len(node.args) >= 2 and node.name in ("min", "max"):
                items = node.args
            if items is not None:
                return self._folded(node.name, items)
        return self._lifted(node)

    def _pool(self, shape: prob_pools.Shape) -> Size:
        """A pool counted by its outcomes (``rules_dsl.prob_pools``)."""
        item = self.of(shape.item)
        span = item.high - item.low if isinstance(item.low, int) and isinstance(item.high, int) else None
        outcomes = _capped(prob_pools.result_outcomes(shape, item.outcomes, span))
        work = item.work + prob_pools.work(shape, item.outcomes, span)
        if shape.kind in ("max", "min") or shape.index is not None:
            return Size(outcomes, work + outcomes, item.low, item.high)
        if shape.summed and isinstance(item.low, int) and isinstance(item.high, int) and shape.reads:
            times = sum(shape.reads.values())
            return Size(outcomes, work + outcomes, item.low * times, item.high * times)
        if shape.kind in ("count", "count_value"):
            return Size(outcomes, work, 0, shape.n)
        return Size(outcomes, work)

    def _folded(self, name: str, items: Iterable[ast.Node]) -> Size:
        sizes = [self.of(item) for item in items]
        state = sizes[0]
        work = sum(s.work for s in sizes)
        for item in sizes[1:]:
            work += state.outcomes * item.outcomes
            if name == "sum":
                low, high = _interval("+", state, item)
                state = Size(_within(state.outcomes * item.outcomes, low, high), 0, low, high)
            elif name in ("min", "max"):
                both = None in (state.low, item.low, state.high, item.high)
                low = None if both else min(state.low, item.low)  # type: ignore[type-var]
                high = None if both else max(state.high, item.high)  # type: ignore[type-var]
                state = Size(_capped(state.outcomes + item.outcomes), 0, low, high)
            else:
                state = Size(2, 0)
        return Size(state.outcomes, work, state.low, state.high)

    def _lifted(self, node: ast.Node) -> Size:
        parts = [self.of(c) for c in node.children() if id(c) in self.random]
        work = sum(p.work for p in parts)
        joint = 1
        for i, part in enumerate(parts):
            joint = joint * part.outcomes
            if i or len(parts) > 2:
                work += joint
        if len(parts) != 2:
            work += joint  # the map over the joint outcomes
        outcomes = _capped(joint)
        if isinstance(node, ast.Compare) or (isinstance(node, ast.Unary) and node.op == "not"):
            return Size(min(outcomes, 2), work)
        if isinstance(node, ast.Binary) and node.op in ("+", "-", "*"):
            low, high = _interval(node.op, self.of(node.left), self.of(node.right))
            if low is None and joint > _CAP:  # exact fractions rarely coincide: past the limit
                return Size(_CAP, _REFUSED)
            return Size(_within(outcomes, low, high), work, low, high)
        if isinstance(node, ast.Binary) and node.op == "/" and joint > _CAP:
            return Size(_CAP, _REFUSED)
        if isinstance(node, ast.Unary) and node.op == "-" and len(parts) == 1:
            p = parts[0]
            low = None if p.high is None else -p.high
            high = None if p.low is None else -p.low
            return Size(outcomes, work, low, high)
        return Size(outcomes, work)


def estimated_work(tree: ast.Node, random: set[int]) -> int:
    """The outcome pairs computing ``tree``'s distribution may combine, at most."""
    return Estimator(random).of(tree).work
