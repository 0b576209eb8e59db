"""Exact finite probability distributions with ``Fraction`` probabilities that sum exactly to 1.

The value type behind ``mprules prob``: built from dice and constants, combined by convolution
(``combine``), transformed (``map``), folded over independent draws (``fold``). Sizes are bounded
by ``MAX_DISTRIBUTION_SIZE`` and ``MAX_DISTRIBUTION_WORK`` so a hostile expression meets an error,
not a hang.
"""
from __future__ import annotations

from fractions import Fraction

from .errors import MprError, define
from .words import bilingual, define_word
from .limits import MAX_DISTRIBUTION_SIZE, MAX_DISTRIBUTION_WORK

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Iterator
    from typing import Any

TOO_LARGE = define(
    "MPR160", "the exact distribution is too large: more than {limit} {what[en]}",
    "厳密な確率分布が大きすぎます（{what[ja]}が上限 {limit} を超えました）")
OUTCOMES = define_word("distribution.outcomes", "outcomes", "結果の数")
COMBINATIONS = define_word("distribution.combinations", "combinations", "組み合わせの数")


class Distribution:
    """value -> probability, exact. Values are hashable (ints, Fractions, bools, strings, tuples)."""

    __slots__ = ("_p",)

    def __init__(self, probabilities: dict[Hashable, Fraction]) -> None:
        if len(probabilities) > MAX_DISTRIBUTION_SIZE:
            raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
        self._p = {v: p for v, p in probabilities.items() if p}

    # construction
    @classmethod
    def constant(cls, value: Hashable) -> "Distribution":
        return cls({value: Fraction(1)})

    @classmethod
    def uniform(cls, values: Iterable[Hashable]) -> "Distribution":
        items = list(values)
        p = Fraction(1, len(items))
        out: dict[Hashable, Fraction] = {}
        for v in items:
            out[v] = out.get(v, Fraction(0)) + p
        return cls(out)

    @classmethod
    def die(cls, faces: int) -> "Distribution":
        return cls.uniform(range(1, faces + 1))

    # access
    def __getitem__(self, value: Hashable) -> Fraction:
        return self._p.get(value, Fraction(0))

    # Reading gives the values as the builder put them in (ints, Fractions, tuples, ...): ``Any``,
    # since a distribution does not carry the type of its values.
    def __iter__(self) -> Iterator[Any]:
        return iter(self._p)

    def __len__(self) -> int:
        return len(self._p)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Distribution) and self._p == other._p

    def __repr__(self) -> str:
        return f"Distribution({self.items()!r})"

    def items(self) -> list[tuple[Any, Fraction]]:
        """(value, probability) pairs, sorted by value where values are comparable."""
        return by_value(self._p)

    def support(self) -> list[Any]:
        return [v for v, _ in self.items()]

    def probability(self, predicate: Callable[[Any], bool]) -> Fraction:
        return sum((p for v, p in self._p.items() if predicate(v)), Fraction(0))

    def total(self) -> Fraction:
        return sum(self._p.values(), Fraction(0))

    def mean(self) -> Fraction | None:
        """The expected value, or None when the values are not all numbers."""
        if not all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in self._p):
            return None
        return sum((Fraction(v) * p for v, p in self._p.items() if isinstance(v, (int, Fraction))),
                   Fraction(0))

    # transformation
    def map(self, f: Callable[[Any], Hashable]) -> "Distribution":
        out: dict[Hashable, Fraction] = {}
        for v, p in self._p.items():
            w = f(v)
            out[w] = out.get(w, Fraction(0)) + p
        return Distribution(out)

    def combine(self, other: "Distribution", f: Callable[[Any, Any], Hashable]) -> "Distribution":
        """The distribution of ``f(x, y)`` for independent x ~ self and y ~ other."""
        work = len(self._p) * len(other._p)
        if work > MAX_DISTRIBUTION_WORK:
            raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_WORK, what=bilingual(COMBINATIONS))
        out: dict[Hashable, Fraction] = {}
        for x, px in self._p.items():
            for y, py in other._p.items():
                w = f(x, y)
                out[w] = out.get(w, Fraction(0)) + px * py
                if len(out) > MAX_DISTRIBUTION_SIZE:
                    raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_SIZE, what=bilingual(OUTCOMES))
        return Distribution(out)

    def bind(self, f: Callable[[Any], "Distribution"]) -> "Distribution":
        """Dependent composition: for each x, the distribution ``f(x)``, weighted by P(x)."""
        out: dict[Hashable, Fraction] = {}
        work = 0
        for x, px in self._p.items():
            inner = f(x)
            work += len(inner._p)
            if work > MAX_DISTRIBUTION_WORK:
                raise MprError(TOO_LARGE, limit=MAX_DISTRIBUTION_WORK, what=bilingual(COMBINATIONS))
            for y, py in inner._p.items():
                out[y] = out.get(y, Fraction(0)) + px * py
        return Distribution(out)

    @staticmethod
    def fold(draws: Iterable["Distribution"], initial: Hashable,
             step: Callable[[Any, Any], Hashable]) -> "Distribution":
        """Distribution of the state after folding ``step`` over independent draws, in order.

        The state must be small (e.g. a summary tuple) for this to stay cheap: each step combines
        the current state distribution with one draw.
        """
        state = Distribution.constant(initial)
        for draw in draws:
            state = state.combine(draw, step)
        return state


def by_value(mapping: dict[Hashable, Any]) -> list[tuple[Any, Any]]:
    """The (value, probability or weight) pairs of ``mapping``, sorted by value where values are
    comparable, else by their ``repr``: the order of ``Distribution.items``."""
    try:
        return sorted(mapping.items(), key=lambda kv: kv[0])
    except TypeError:
        return sorted(mapping.items(), key=lambda kv: repr(kv[0]))


def sum_of(dists: Iterable[Distribution]) -> Distribution:
    """The distribution of the sum of independent variables (convolution)."""
    return Distribution.fold(dists, 0, lambda acc, x: acc + x)
