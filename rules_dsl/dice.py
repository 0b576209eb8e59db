"""Where dice come from: a seeded generator or the dice a player rolled at the table.

Every source records each die it gives (faces and value) so results can show them.
A seed gives the same dice on every machine and Python 3.11+ (``random.Random`` with an integer
seed and ``randrange`` are stable across versions). The generator is ``random.Random``'s own core,
``_random.Random`` (the Mersenne Twister in C, seeded the same way), with ``randrange`` and
``shuffle`` written here as ``random`` writes them: the same dice, without loading module
``random`` (and ``warnings``, ``bisect``, ``_sha512`` with it: 3 million instructions, more than a
warm ``run`` of a roll table spends on the rule). The core loads with the first die a seeded source
gives (or its first shuffle), not before: an evaluation that rolls nothing skips it.
"""
from __future__ import annotations

import os

from .errors import Location, MprError, define
from .frozen import Frozen
from .limits import MAX_DICE_PER_EVALUATION

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Sequence
    from typing import Any, TypeVar

    T = TypeVar("T")

SCRIPT_EXHAUSTED = define(
    "MPR150", "not enough dice given: die #{index} (a d{faces}) was needed, {given} given",
    "ダイスが足りません: {index} 個目のダイス（d{faces}）が必要ですが、{given} 個しか与えられていません")
SCRIPT_OUT_OF_RANGE = define(
    "MPR151", "die #{index} is {value}, but a d{faces} shows 1 to {faces}",
    "{index} 個目のダイスが {value} ですが、d{faces} の出目は 1〜{faces} です")
SCRIPT_UNUSED = define(
    "MPR152", "{unused} scripted dice were not used ({values}); {used} were needed",
    "指定されたダイスのうち {unused} 個が使われませんでした（{values}）。必要なのは {used} 個です",
    severity="warning")
TOO_MANY_DICE = define(
    "MPR153", "too many dice in one evaluation: more than {limit}",
    "1回の評価で振るダイスが多すぎます（上限 {limit} 個）")


class Die(Frozen):
    """One die given: its number of faces and the face it shows."""

    __slots__ = ("faces", "value")
    faces: int
    value: int


class DiceSource:
    """Gives dice one at a time; remembers every die given.

    ``explicit`` tells whether the user chose the dice (scripted, or a seed given) rather than
    leaving them to chance: a rule may roll only on request (a check whose outcome is rolled on request)."""

    explicit = True

    def __init__(self) -> None:
        self.rolled: list[Die] = []

    def roll(self, faces: int, count: int = 1) -> list[int]:
        if len(self.rolled) + count > MAX_DICE_PER_EVALUATION:
            raise MprError(TOO_MANY_DICE, limit=MAX_DICE_PER_EVALUATION)
        values = []
        for _ in range(count):  # record each die at once: a scripted source reads its position
            values.append(self._next(faces))
            self.rolled.append(Die(faces, values[-1]))
        return values

    def _next(self, faces: int) -> int:
        raise NotImplementedError

    def choose(self, options: Sequence[T], count: int) -> list[T]:
        """Pick ``count`` distinct options at random (for random card selection), recorded as dice."""
        pool = list(options)
        picked: list[T] = []
        for _ in range(count):
            index = self.roll(len(pool))[0] - 1
            picked.append(pool.pop(index))
        return picked

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy (Fisher-Yates with this source's dice)."""
        return self.choose(items, len(items))

    @property
    def values(self) -> list[int]:
        return [d.value for d in self.rolled]

    def mark(self) -> int:
        """Position to take ``since`` from, to know the dice of one sub-evaluation."""
        return len(self.rolled)

    def since(self, mark: int) -> list[Die]:
        return self.rolled[mark:]


class Replay:
    """The dice ``source`` gave since ``mark``, given again in order, then new dice from ``source``:
    an evaluation that starts over (generated code handing over to the closures) rolls exactly the
    dice it rolled the first time, and ``source`` records each die once."""

    def __init__(self, source: DiceSource, mark: int) -> None:
        self.source = source
        self.next = mark
        self.end = len(source.rolled)

    def roll(self, faces: int, count: int = 1) -> list[int]:
        given = self.source.rolled[self.next:min(self.next + count, self.end)]
        assert all(die.faces == faces for die in given)  # the same evaluation, in the same order
        self.next += len(given)
        values = [die.value for die in given]
        if len(values) < count:
            values += self.source.roll(faces, count - len(values))
        return values


class SeededDice(DiceSource):
    """Pseudo-random dice from an integer seed; the same seed gives the same dice everywhere."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.explicit = seed is not None
        if seed is None:  # below 2**31, from the system's randomness (as SystemRandom would give)
            seed = int.from_bytes(os.urandom(4)) >> 1
        self.seed = seed
        self._random: Any = None

    def _generator(self) -> Any:
        """The generator of ``seed`` (``random.Random(seed)``'s core), made when it is first needed."""
        if self._random is None:
            # start-up: the generator loads with the first die (or shuffle); a source that gives
            # none skips it
            import _random

            self._random = _random.Random(self.seed)
        return self._random

    def _below(self, n: int) -> int:
        """``random.Random(seed).randrange(n)``: ``n.bit_length()`` bits drawn again until below ``n``."""
        bits = (self._random or self._generator()).getrandbits
        k = n.bit_length()
        r: int = bits(k)
        while r >= n:
            r = bits(k)
        return r

    def _next(self, faces: int) -> int:
        return self._below(faces) + 1

    def shuffle(self, items: Sequence[T]) -> list[T]:
        # Fisher-Yates without recording each step as a die (a deck shuffle is not a roll), as
        # ``random.Random.shuffle`` does it
        shuffled = list(items)
        for i in reversed(range(1, len(shuffled))):
            j = self._below(i + 1)
            shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
        return shuffled


class ScriptedDice(DiceSource):
    """The dice rolled at the table, given in order; too few or out of range is an error."""

    def __init__(self, values: Iterable[int], loc: Location | None = None) -> None:
        super().__init__()
        self.script = list(values)
        self.loc = loc or Location(path="dice")
        self.seed = None

    def _next(self, faces: int) -> int:
        index = len(self.rolled) + 1
        if index > len(self.script):
            raise MprError(SCRIPT_EXHAUSTED, self.loc, index=index, faces=faces,
                           given=len(self.script))
        value = self.script[index - 1]
        if not 1 <= value <= faces:
            raise MprError(SCRIPT_OUT_OF_RANGE, self.loc, index=index, value=value, faces=faces)
        return value

    @property
    def unused(self) -> list[int]:
        return self.script[len(self.rolled):]
