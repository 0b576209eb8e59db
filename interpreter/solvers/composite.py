"""A composite plan: several parts, each checked by its own rule's solver, run in the steps the
document lists, the later parts fed by the values of the earlier ones.

The document (``fields``) declares:

- ``shared``: the plan's own top-level fields (name -> default), which the links may read;
- ``steps``: ``[{part, set, fill}]`` in order. ``set`` writes a field of the part's plan (a dotted
  path) with an expression over the shared fields and the values of the parts run before (by part
  name; a part run twice is seen with its last values); a field it sets may not be given in the
  plan (MPR812). ``fill`` writes a field only when the plan leaves it out; a value the plan gives
  must equal the expression's, or the step reports the constraint named by ``mismatch``;
- ``fixed``: ``[{path, value, reason}]``, fields of the plan that must hold ``value`` (MPR824
  with the document's reason).

The value is each part's ``{legal, ...values}`` by part name; the violations are the composite's
own, then each part's, located under the part's name."""
from __future__ import annotations

from collections.abc import Mapping

from rules_dsl.errors import Location, MprError, define
from rules_dsl.words import localized

from interpreter.solvers.plan import Line, Outcome, Violation, join, linked, mapping, whole
from interpreter.solvers.setup import Setup, solve

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

FIXED_VALUE = define(
    "MPR824", "{name} must be {expected} in this plan, not {value}: {reason_en}",
    "この計画では {name} は {value} ではなく {expected} にしてください。{reason_ja}")

_MISSING = object()


class within:  # used as ``with within(part):``; contextlib is not loaded for it (start-up)
    """Locate an input error raised inside ``part`` under the part's name (``after.x`` ->
    ``<part>.after.x``); parameter errors keep their path and name the part."""

    __slots__ = ("part",)

    def __init__(self, part: str) -> None:
        self.part = part

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        if isinstance(error, MprError):
            error.part = self.part  # type: ignore[attr-defined]
            loc = error.loc
            if loc is not None and loc.path and not loc.path.startswith("params."):
                error.loc = Location(loc.file, loc.line, loc.column, join(self.part, loc.path))
        # None: the error goes on


def _get(data: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, Mapping) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _put(data: dict[str, Any], path: str, value: Any, where: str) -> None:
    *heads, last = path.split(".")
    for i, key in enumerate(heads):
        inner = data.get(key, {})
        data[key] = dict(mapping(inner, join(where, ".".join(heads[:i + 1]))))
        data = data[key]
    data[last] = value


def _refuse_fixed(plan: Mapping[str, Any], fixed: list[Mapping[str, Any]]) -> None:
    for rule in fixed:
        path = str(rule["path"])
        value = _get(plan, path)
        if value is not _MISSING and value != rule["value"]:
            reason = rule.get("reason") or {}
            raise MprError(FIXED_VALUE, Location(path=path), name=path, expected=rule["value"],
                           value=value, reason_en=localized(reason, "en"),
                           reason_ja=localized(reason, "ja"))


def _tag(outcome: Outcome, part: str) -> tuple[tuple[Violation, ...], tuple[Line, ...]]:
    return (tuple(Violation(v.constraint, join(part, v.path), v.args, part)
                  for v in outcome.violations),
            tuple(Line(r.message, r.args, part) for r in outcome.report))


def check(plan: Mapping[str, Any], setup: Setup) -> Outcome:
    """Check a composite plan ``{<shared fields>, <part>: <the part's plan>, ...}``; ``setup.parts``
    holds each part's ``(solver, setup)`` and ``setup.evaluate`` the links' expressions."""
    steps = list(setup.fields.get("steps") or [])
    given = {p: dict(mapping(plan.get(p), p)) for p in setup.parts}
    for step in steps:
        for target in step.get("set") or {}:
            if _get(given[step["part"]], str(target)) is not _MISSING:
                raise linked(join(step["part"], str(target)), str(target))
    _refuse_fixed(plan, list(setup.fields.get("fixed") or []))
    env: dict[str, Any] = {name: plan.get(name, default)
                           for name, default in (setup.fields.get("shared") or {}).items()}
    assert setup.evaluate is not None, "a composite needs its links evaluated"
    found: list[Violation] = []
    outcomes: dict[str, Outcome] = {}
    for i, step in enumerate(steps):
        part = str(step["part"])
        # start-up: copy loads only when a composite copies a part's input
        import copy

        data = copy.deepcopy(given[part])
        for target in step.get("set") or {}:
            _put(data, str(target), setup.evaluate(("steps", i, "set", target), env), part)
        for target, rule in (step.get("fill") or {}).items():
            computed = setup.evaluate(("steps", i, "fill", target, "expr"), env)
            stated = _get(given[part], str(target))
            if stated is _MISSING:
                _put(data, str(target), computed, part)
            elif whole(stated, join(part, str(target))) != computed:
                found.append(Violation(str(rule["mismatch"]), join(part, str(target)), {
                    "given": stated, "computed": computed,
                    "difference": abs(stated - computed)}))
        solver, part_setup = setup.parts[part]
        with within(part):
            outcomes[part] = solve(solver, data, part_setup)
        env[part] = {**outcomes[part].values, **outcomes[part].details}
    report: list[Line] = []
    values: dict[str, Any] = {}
    for part in (p for p in setup.parts if p in outcomes):
        violations, lines = _tag(outcomes[part], part)
        found += violations
        report += lines
        values[part] = {"legal": outcomes[part].legal, **outcomes[part].values}
    return Outcome(values, tuple(found), tuple(report))
