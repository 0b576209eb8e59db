"""Exact distributions of pools: a list of the same dice expression written n times (``[d6, d6,
d6]``, ``[d6 >= 5, d6 >= 5]``) read by an order-free function, computed from the counts of each
outcome instead of every ordered roll, as the literature on dice pools and icepool do.

The items of such a list are independent and identically distributed, so the multiset of their
values is all an order-free function sees. Going through the outcomes of one item from one end,
the number of items showing the current outcome, given how many are left, is binomial; a state
keeps only what the function needs (the first d values met, for the d values nearest that end).
The work is polynomial in the number of items and of outcomes, where the joint rolls are
exponential: keep-highest-3 of 20d6 is about 60 states, not 6**20 rolls.

Recognised (``recognise``), with ``P`` such a list of n >= 2 items:

- ``count(P)``, ``any(P)``, ``all(P)`` (items true/false), ``count(P, v)`` (``v`` without dice):
  the number of items that count is binomial;
- ``max(P)``, ``min(P)`` and ``max(x, x, ...)`` of the same dice expression (numbers): the value
  nearest one end;
- ``sorted(P)``, ``sorted(P)[i]`` and ``let s = sorted(P) in BODY`` where ``BODY`` reads ``s`` only
  as ``s[i]`` and ``len(s)`` with whole-number literals ``i``: the d sorted values nearest the end
  the indices are closest to (a value of ``s`` that ``BODY`` never reads is left as null).

Every other shape, and a recognised shape whose item values the function would refuse (``max``
of strings, ``count`` of numbers), goes the general way, which gives the same values and errors.
The results are whole-number weights over ``total ** n``, exactly equal to enumerating the rolls.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from fractions import Fraction

from . import ast

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_COUNTING = ("count", "any", "all")
_EXTREMES = ("max", "min")


class Shape:
    """A recognised pool: ``kind`` (count, count_value, any, all, max, min, sorted), the ``item``
    written ``n`` times, and for ``sorted`` the ``depth`` of values needed from the ``top`` (or
    bottom) end; ``value`` is count's second argument, ``index`` the literal of ``sorted(P)[i]``.
    ``reads`` (sorted only) maps each position counted from that end that is read to how many
    times it is added (None: every position is read); ``summed``: the whole expression is the sum
    of those reads (``s[-1] + s[-2] + s[-3]``), so only the running sum is kept."""

    __slots__ = ("kind", "item", "n", "depth", "top", "value", "index", "reads", "summed")

    def __init__(self, kind: str, item: ast.Node, n: int, depth: int = 0, top: bool = False,
                 value: ast.Node | None = None, index: int | None = None,
                 reads: dict[int, int] | None = None, summed: bool = False) -> None:
        self.kind, self.item, self.n, self.depth, self.top = kind, item, n, depth, top
        self.value, self.index, self.reads, self.summed = value, index, reads, summed


def pool(node: ast.Node, random: set[int]) -> tuple[ast.Node, int] | None:
    """(the item, how many times) when ``node`` is a list of one dice expression written n >= 2 times."""
    if not isinstance(node, ast.ListLiteral) or len(node.items) < 2:
        return None
    return _same(node.items, random)


def _same(items: Sequence[ast.Node], random: set[int]) -> tuple[ast.Node, int] | None:
    first = items[0]
    if id(first) not in random:
        return None
    text = ast.dump(first)
    if all(id(item) in random and ast.dump(item) == text for item in items[1:]):
        return first, len(items)
    return None


def _literal(node: ast.Node) -> int | None:
    if isinstance(node, ast.Number):
        return node.value
    if isinstance(node, ast.Unary) and node.op in ("-", "+") and isinstance(node.operand, ast.Number):
        return -node.operand.value if node.op == "-" else node.operand.value
    return None


def _depth(indices: Sequence[int], n: int) -> tuple[int, bool]:
    """How many sorted values from which end (top: the largest first) the indices need. An index
    outside the list needs none: the general evaluation raises its error on every outcome."""
    inside = [i if i >= 0 else n + i for i in indices if -n <= i < n]
    if not inside:
        return 1, False
    bottom, top = max(inside) + 1, n - min(inside)
    return (top, True) if top < bottom else (bottom, False)


def _positions(indices: Sequence[int], n: int, top: bool) -> dict[int, int] | None:
    """Each index read as a position counted from the end the values are met at (top: the
    largest is 0) -> how many times it is read; None when an index is outside the list (the
    general evaluation gives its error)."""
    if not all(-n <= i < n for i in indices):
        return None
    reads: dict[int, int] = {}
    for i in indices:
        ascending = i % n
        position = n - 1 - ascending if top else ascending
        reads[position] = reads.get(position, 0) + 1
    return reads


def _summands(body: ast.Node, name: str) -> list[int] | None:
    """The literal indices of ``body`` when it is only ``name[i] + name[j] + ...``, else None."""
    if isinstance(body, ast.Binary) and body.op == "+":
        left, right = _summands(body.left, name), _summands(body.right, name)
        return None if left is None or right is None else left + right
    if isinstance(body, ast.Index) and isinstance(body.target, ast.Local) and body.target.name == name:
        index = _literal(body.index)
        return None if index is None else [index]
    return None


def _sorted_pool(node: ast.Node, random: set[int]) -> tuple[ast.Node, int] | None:
    if isinstance(node, ast.Call) and node.name == "sorted" and len(node.args) == 1:
        return pool(node.args[0], random)
    return None


def _reads(body: ast.Node, name: str) -> list[int] | None:
    """The literal indices ``body`` reads the local ``name`` at, or None when it reads it otherwise."""
    indices: list[int] = []
    allowed: set[int] = set()
    for node in ast.walk(body):
        if isinstance(node, ast.Index) and isinstance(node.target, ast.Local) \
                and node.target.name == name:
            index = _literal(node.index)
            if index is not None:
                indices.append(index)
                allowed.add(id(node.target))
        elif isinstance(node, ast.Call) and node.name == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Local) and node.args[0].name == name:
            allowed.add(id(node.args[0]))
    for node in ast.walk(body):
        if isinstance(node, ast.Local) and node.name == name and id(node) not in allowed:
            return None
    return indices


def recognise(node: ast.Node, random: set[int]) -> Shape | None:
    """The pool shape of ``node``, or None."""
    if isinstance(node, ast.Call):
        args = node.args
        if node.name in _EXTREMES and len(args) >= 2:
            found = _same(args, random)
            return None if found is None else Shape(node.name, *found)
        if not args:
            return None
        found = pool(args[0], random)
        if found is None:
            return None
        if node.name in _COUNTING and len(args) == 1:
            return Shape(node.name, *found)
        if node.name == "count" and len(args) == 2 and id(args[1]) not in random:
            return Shape("count_value", *found, value=args[1])
        if node.name in _EXTREMES and len(args) == 1:
            return Shape(node.name, *found)
        if node.name == "sorted" and len(args) == 1:
            return Shape("sorted", *found, depth=found[1])
        return None
    if isinstance(node, ast.Index):
        found = _sorted_pool(node.target, random)
        index = _literal(node.index)
        if found is None or index is None:
            return None
        depth, top = _depth([index], found[1])
        return Shape("sorted", *found, depth=depth, top=top, index=index,
                     reads=_positions([index], found[1], top))
    return None


def let_shape(node: ast.Let, random: set[int]) -> Shape | None:
    """``let s = sorted(P) in BODY`` with ``BODY`` reading ``s`` by literal indices (and ``len``)."""
    found = _sorted_pool(node.value, random)
    if found is None:
        return None
    indices = _reads(node.body, node.name)
    if indices is None:
        return None
    depth, top = _depth(indices, found[1])
    reads = _positions(indices, found[1], top)
    summed = reads is not None and _summands(node.body, node.name) is not None
    return Shape("sorted", *found, depth=depth, top=top, reads=reads if reads else None,
                 summed=summed)


def work(shape: Shape, outcomes: int, span: int | None = None) -> int:
    """An upper bound on the steps of ``shape`` over an item of ``outcomes`` outcomes (``span``:
    max - min of its values when they are whole numbers)."""
    n = shape.n
    if shape.kind == "sorted":
        return outcomes * min(states(shape, outcomes, span), 10 ** 12) * (n + 1)
    return outcomes * (n + 1)


def states(shape: Shape, outcomes: int, span: int | None = None) -> int:
    """An upper bound on the states a sorted pool keeps at once: the values read so far (the
    multisets of ``k`` of ``outcomes`` values), or their sum, times how many values were met."""
    if not outcomes:
        return 1
    if shape.reads is None:
        return math.comb(shape.depth + outcomes - 1, outcomes - 1)
    k = sum(1 for p in shape.reads if p < shape.depth)
    kept = math.comb(k + outcomes - 1, outcomes - 1)
    if shape.summed and span is not None:
        kept = min(kept, sum(shape.reads.values()) * span + 1)
    return shape.depth * kept


def result_outcomes(shape: Shape, outcomes: int, span: int | None = None) -> int:
    """An upper bound on the outcomes of ``shape`` (``span`` as for ``work``)."""
    if shape.kind == "sorted":
        if not outcomes:
            return 1
        if shape.reads is None:
            return math.comb(shape.depth + outcomes - 1, outcomes - 1)
        kept = math.comb(sum(1 for p in shape.reads if p < shape.depth) + outcomes - 1, outcomes - 1)
        if shape.summed and span is not None:
            kept = min(kept, sum(shape.reads.values()) * span + 1)
        return kept
    if shape.kind in ("any", "all"):
        return 2
    if shape.kind in ("max", "min"):
        return outcomes
    return shape.n + 1


def nearest_read(outcomes: Sequence[tuple[Hashable, int]], n: int, depth: int,
                 reads: dict[int, int], summed: bool) -> dict[Any, int]:
    """As ``nearest``, keeping only the values at the positions ``reads`` names: the tuple of
    them in the order met (positions not read are never kept), or their sum counted with
    ``reads``' multiplicities when ``summed`` (whole-number values) -> the weight over total ** n.

    A state is (values met, what is kept of them): keep-highest-3 of 12d100 keeps at most
    3 * 298 sums, where the tuples of the three values are 171,700."""
    weights = [w for _, w in outcomes]
    beyond = [0] * (len(outcomes) + 1)
    for j in range(len(outcomes) - 2, -1, -1):
        beyond[j] = beyond[j + 1] + weights[j + 1]
    # gains[m][c]: how much c more values at positions m, m+1, ... add (read times, or count read)
    gains = [[0] * (n + 1) for _ in range(depth + 1)]
    for m in range(depth + 1):
        for c in range(1, n + 1):
            p = m + c - 1
            read = reads.get(p, 0) if p < depth else 0
            gains[m][c] = gains[m][c - 1] + (read if summed else min(read, 1))
    out: dict[Any, int] = {}
    empty: Any = 0 if summed else ()
    now: dict[tuple[int, Any], int] = {(0, empty): 1}
    for j, (value, w) in enumerate(outcomes):
        below = beyond[j]
        after: dict[tuple[int, Any], int] = {}
        for (met, kept), weight in now.items():
            r = n - met
            need = depth - met
            ways = 1
            for c in range(r + 1):
                if c:
                    ways = ways * (r - c + 1) // c * w
                if c >= need:
                    rest = below ** (r - c)
                    if rest:
                        gain = gains[met][need]
                        key = kept + value * gain if summed else kept + (value,) * gain  # type: ignore[operator]  # summed: whole numbers
                        out[key] = out.get(key, 0) + weight * ways * rest
                elif below:
                    gain = gains[met][c]
                    state = (met + c, kept + value * gain if summed  # type: ignore[operator]  # whole numbers
                             else kept + (value,) * gain)
                    after[state] = after.get(state, 0) + weight * ways
        now = after
        if not now:
            break
    return out


# --- counting, in whole numbers --------------------------------------------------------------

def binomial(yes: int, no: int, n: int) -> dict[int, int]:
    """k -> the weight of k of n items counting, when one item counts with weight ``yes`` of ``yes + no``."""
    return {k: math.comb(n, k) * yes ** k * no ** (n - k) for k in range(n + 1)
            if (yes or not k) and (no or k == n)}


def ordered(values: Sequence[Hashable]) -> list[Hashable] | None:
    """The values in ascending order when they are all numbers or all strings, else None."""
    if all(type(v) is int or type(v) is Fraction for v in values) \
            or all(type(v) is str for v in values):
        return sorted(values)  # type: ignore[type-var]  # numbers, or strings: ordered
    return None


def nearest(outcomes: Sequence[tuple[Hashable, int]], n: int, depth: int) -> dict[tuple[Any, ...], int]:
    """The ``depth`` values nearest the start of ``outcomes`` (an item's outcomes with their weights,
    in the order read) among n items, as a tuple in that order -> its weight over total ** n.

    A state is the values met so far (fewer than ``depth``; ``nearest_read`` keeping them all);
    at each outcome, c of the r items left show it in ``comb(r, c) * w ** c`` ways, and once
    ``depth`` values are met the rest lie beyond this outcome in ``below ** rest`` ways.
    """
    if depth > 1:
        return nearest_read(outcomes, n, depth, {p: 1 for p in range(depth)}, False)
    weights = [w for _, w in outcomes]
    beyond = [0] * (len(outcomes) + 1)  # beyond[j]: the weight of the outcomes after j
    for j in range(len(outcomes) - 1, -1, -1):
        beyond[j] = beyond[j + 1] + weights[j + 1] if j + 1 < len(outcomes) else 0
    out: dict[tuple[Any, ...], int] = {}
    for j, (value, w) in enumerate(outcomes):  # every item at or beyond it, less every item beyond
        weight = (w + beyond[j]) ** n - beyond[j] ** n
        if weight:
            out[(value,)] = weight
    return out
