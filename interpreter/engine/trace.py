"""Results and their explanations: a value plus a tree of steps (rows matched, expressions and
their values, dice rolled, parameters used and the ruleset layer each came from)."""
from __future__ import annotations

from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)

from rules_dsl.plain import fraction_text as fraction_text  # re-exported: kinds and reports read it here
from rules_dsl.plain import json_text, reduced
from rules_dsl.plain import jsonable as jsonable
from rules_dsl.words import localized

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from fractions import Fraction
    from typing import Any


class Step(Record):
    """One node of a trace. ``kind`` says what it is: rule, row, expr, dice, param, note, unresolved."""

    kind: str
    label: str
    value: Any = None
    detail: dict[str, Any] = field(default_factory=dict)
    children: list["Step"] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "label": self.label, "value": jsonable(self.value)}
        if self.detail:
            out["detail"] = jsonable(self.detail)
        if self.children:
            out["children"] = [c.to_json() for c in self.children]
        return out


class Trace:
    """Collects steps as a tree; ``with trace.group(...)`` nests the steps made inside it."""

    def __init__(self) -> None:
        self.root: list[Step] = []
        self._stack: list[list[Step]] = [self.root]

    def add(self, kind: str, label: str, value: Any = None, **detail: Any) -> Step:
        step = Step(kind, label, value, detail)
        self._stack[-1].append(step)
        return step

    def group(self, kind: str, label: str, value: Any = None, **detail: Any) -> _Group:
        """``with trace.group(...) as step:``: the steps added inside go under ``step``."""
        step = self.add(kind, label, value, **detail)
        self._stack.append(step.children)
        return _Group(self._stack, step)

    def to_json(self) -> list[dict[str, Any]]:
        return [s.to_json() for s in self.root]


class _Group:
    """What ``Trace.group`` returns (contextlib is not loaded for it: start-up): gives the step,
    and ends the group however the block ends."""

    __slots__ = ("stack", "step")

    def __init__(self, stack: list[list[Step]], step: Step) -> None:
        self.stack, self.step = stack, step

    def __enter__(self) -> Step:
        return self.step

    def __exit__(self, *exc: object) -> None:
        self.stack.pop()


class Result(Record):
    """What ``engine.run`` returns: the rule's value and how it was reached."""

    rule: str
    value: Any
    trace: list[Step]
    seed: int | None = None
    dice: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "value": jsonable(self.value),
                "trace": [s.to_json() for s in self.trace], "seed": self.seed}


def render_tree(steps: list[Step], indent: str = "", *, values: bool = True,
                lang: str = "en") -> list[str]:
    """The trace as indented text lines (the CLI's text output); ``values=False`` leaves out the
    values of these top steps (shown elsewhere), not of their children. A step whose detail has a
    ``text`` ({ja, en}, e.g. a row's label) shows it in ``lang`` after its label."""
    lines = []
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        branch = "└─ " if last else "├─ "
        text = step.label
        words = localized(step.detail.get("text"), lang) if isinstance(step.detail.get("text"), dict) else ""
        if words:
            text += f" ({words})"
        if values and step.value is not None:
            text += f" = {_short(step.value)}"
        if step.detail.get("layer"):
            text += f"  [{step.detail['layer']}]"
        lines.append(indent + branch + text)
        lines.extend(render_tree(step.children, indent + ("   " if last else "│  "), lang=lang))
    return lines


def _short(value: Any) -> str:
    plain = jsonable(value)
    if isinstance(plain, str):
        return plain
    written = json_text(plain)  # as json writes it, without loading json (start-up)
    if written is not None:
        return written
    # start-up: json loads only for a value json_text leaves to it (a float)
    import json

    return json.dumps(plain, ensure_ascii=False)


class ProbRow(Record):
    """One outcome of a rule's distribution: its value, an optional label, its exact probability.

    A kind that counts in whole numbers makes its rows with ``counted``: ``p`` (a ``Fraction``) is
    then made the first time it is read, and printing the row (``ratio``, ``to_json``) loads no
    ``fractions`` at all."""

    value: Any
    p: Fraction
    label: str | None = None

    @classmethod
    def counted(cls, value: Any, weight: int, total: int, label: str | None = None) -> ProbRow:
        """The row of an outcome that ``weight`` of ``total`` equally likely cases give."""
        row = cls.__new__(cls)
        row.__dict__.update(value=value, label=label, _ratio=reduced(weight, total))
        return row

    def __getattr__(self, name: str) -> Any:
        """``p`` of a ``counted`` row, made on first use."""
        ratio = self.__dict__.get("_ratio")
        if name != "p" or ratio is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        # start-up: fractions loads only when a counted row's Fraction is asked for
        from fractions import Fraction

        p = self.__dict__["p"] = Fraction(*ratio)
        return p

    def ratio(self) -> tuple[int, int]:
        """``(numerator, denominator)`` of ``p``, in lowest terms."""
        own = self.__dict__
        if "p" not in own:
            ratio: tuple[int, int] = own["_ratio"]
            return ratio
        p = own["p"]
        return p.numerator, p.denominator

    def to_json(self) -> dict[str, Any]:
        numerator, denominator = self.ratio()
        out = {"value": jsonable(self.value),
               "p": str(numerator) if denominator == 1 else f"{numerator}/{denominator}",
               "percent": round(numerator / denominator * 100, 2)}
        if self.label is not None:
            out["label"] = self.label
        return out


class ProbTable(Record):
    """What a kind's ``distribution`` returns (a list of these): a titled table of outcomes.

    A kind that counts in whole numbers may make it with ``counted``: its outcomes are then kept
    as columns (values, weights over one total, labels) and its ``rows`` made only when asked
    for, so that printing a table of 100,000 outcomes (``outcomes``, ``to_json``) makes no
    object per row and reduces each distinct weight once."""

    title: str
    rows: list[ProbRow]
    mean: Fraction | None = None
    note: str | None = None
    mean_label: str | None = None  # what the mean is the mean of, in words

    @classmethod
    def counted(cls, title: str, values: list[Any], weights: list[int], total: int,
                labels: list[str | None], mean: Fraction | None = None) -> ProbTable:
        """The table whose i-th outcome is ``values[i]`` (labelled ``labels[i]``), which
        ``weights[i]`` of ``total`` equally likely cases give."""
        table = cls.__new__(cls)
        table.__dict__.update(title=title, mean=mean, note=None, mean_label=None,
                              _columns=(values, weights, total, labels))
        return table

    def __getattr__(self, name: str) -> Any:
        """``rows`` of a ``counted`` table, made on first use (the columns are then dropped: the
        rows are the table from then on)."""
        columns = self.__dict__.get("_columns")
        if name != "rows" or columns is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        values, weights, total, labels = columns
        counted = ProbRow.counted
        rows = self.__dict__["rows"] = [counted(v, w, total, label)
                                        for v, w, label in zip(values, weights, labels)]
        del self.__dict__["_columns"]
        return rows

    def relabel(self, change: Callable[[str], str]) -> None:
        """Each row's label, but an empty one or None, replaced by ``change(label)``."""
        columns = self.__dict__.get("_columns")
        if columns is None:
            for row in self.rows:
                if row.label:
                    new = change(row.label)
                    if new is not row.label:
                        row.label = new
            return
        values, weights, total, labels = columns
        changed: dict[str, str] = {}  # each distinct label changed once
        for label in labels:
            if label and label not in changed:
                changed[label] = change(label)
        self.__dict__["_columns"] = (values, weights, total,
                                     [changed[label] if label else label for label in labels])

    def outcomes(self) -> tuple[list[Any], list[str | None], list[tuple[int, int]]]:
        """The values, the labels and the probabilities (each as ``(numerator, denominator)`` in
        lowest terms) of the rows, in order."""
        columns = self.__dict__.get("_columns")
        if columns is None:
            rows = self.rows
            return [r.value for r in rows], [r.label for r in rows], [r.ratio() for r in rows]
        values, weights, total, labels = columns
        return values, labels, _ratios(weights, total)

    def to_json(self) -> dict[str, Any]:
        columns = self.__dict__.get("_columns")
        if columns is None:
            rows = [r.to_json() for r in self.rows]
        else:
            values, weights, total, labels = columns
            shown: dict[int, tuple[str, float]] = {}  # each distinct weight's p and percent
            for w in weights:
                if w not in shown:
                    n, d = reduced(w, total)
                    shown[w] = (str(n) if d == 1 else f"{n}/{d}", round(n / d * 100, 2))
            rows = []
            for v, w, label in zip(values, weights, labels):
                p, percent = shown[w]
                row = {"value": v if type(v) is int or type(v) is str else jsonable(v), "p": p,
                       "percent": percent}
                if label is not None:
                    row["label"] = label
                rows.append(row)
        out: dict[str, Any] = {"title": self.title, "rows": rows}
        if self.mean is not None:
            out["mean"] = jsonable(self.mean)
        if self.mean_label:
            out["mean_label"] = self.mean_label
        if self.note:
            out["note"] = self.note
        return out


def _ratios(weights: list[int], total: int) -> list[tuple[int, int]]:
    """Each ``weight / total`` in lowest terms, each distinct weight reduced once (the same tuple
    for the same weight)."""
    made: dict[int, tuple[int, int]] = {}
    out = []
    for w in weights:
        ratio = made.get(w)
        if ratio is None:
            ratio = made[w] = reduced(w, total)
        out.append(ratio)
    return out
