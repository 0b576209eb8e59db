"""Kind ``SumTable``: the value is the sum of the values of every row whose condition holds
(a table of modifiers). Each row counts once; every row is traced, matched or not.

Rows: ``{when: condition, value: expression or integer, id?, label?: {ja, en}}``. Expressions see
the run input by its top-level names and the rule's parameters as ``params``. A row with
``each: <list expression>`` and ``as: <name>`` counts once when its condition holds for any
element of the list, bound to that name ("a material part is one of ..."). A row value that is a
fraction is rounded by the parameter ``rounding`` (``floor`` | ``ceil`` | ``round``, half away from
zero) when the rule declares it, so "÷500 rounds down" is written ``x / params.divisor`` with
``rounding: floor`` and a variant can change the rounding without touching the rows. An optional
``result`` expression turns the sum (bound as ``total``) into the value, e.g. a cap taken from a
parameter: ``total if params.cap == null else min(total, params.cap)``.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic
from rules_dsl.functions import fraction, is_fraction

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.names import params_used
from interpreter.engine.registry import Kind

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from rules_dsl import ast

NOT_A_NUMBER = define(
    "MPR510", "row {row} of {rule} has value {value!r}, not a number",
    "{rule} の行 {row} の値 {value!r} が数値ではありません")
NOT_A_LIST = define(
    "MPR513", "row {row} of {rule}: each gives {value!r}, not a list",
    "{rule} の行 {row}: each の値 {value!r} がリストではありません")
NEVER_HOLDS = define(
    "MPR360", "row {row} of {rule} can never count: its condition {condition!r} is never true",
    "{rule} の行 {row} は決して数えられません: 条件 {condition!r} が真になることはありません",
    severity="warning")
EMPTY_TABLE = define(
    "MPR361", "sum table {rule} has no rows: its value is always 0",
    "合計表 {rule} に行がありません。値は常に 0 です", severity="info")
CONDITION_NOT_BOOLEAN = define(
    "MPR512", "the condition of row {row} of {rule} is {value!r}, not true or false",
    "{rule} の行 {row} の条件が {value!r} で、真偽値ではありません")

ROUNDINGS = {
    "floor": math.floor,
    "ceil": math.ceil,
    "round": lambda x: int(math.copysign(math.floor(abs(x) + fraction()(1, 2)), x)),
}


def row_name(rule: Rule, index: int) -> str:
    row = rule.doc["rows"][index]
    return str(row.get("id") or f"#{index + 1}")


def environment(rule: Rule, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """What a row's expressions see: the input's top-level names and ``params``."""
    env = dict(inputs)
    env["params"] = rule.params
    return env


def _rounded(rule: Rule, value: Any, ctx: Context) -> Any:
    if not is_fraction(value) or value.denominator == 1 or "rounding" not in rule.params:
        return value.numerator if is_fraction(value) and value.denominator == 1 else value
    return ROUNDINGS[ctx.param(rule, "rounding")](value)


def _trace_params(rule: Rule, path: tuple, ctx: Context) -> None:
    """Trace every parameter the expression at ``path`` reads, with the layer that set it."""
    for name in params_used(rule.expression(*path)):
        if name in rule.params:
            ctx.param(rule, name)


def _evaluate(rule: Rule, path: tuple, env: dict[str, Any], ctx: Context, label: str) -> Any:
    _trace_params(rule, path, ctx)
    return ctx.evaluate(rule, path, env, label=label)


def _holds(rule: Rule, index: int, env: dict[str, Any], ctx: Context, label: str) -> bool:
    holds = ctx.evaluate(rule, ("rows", index, "when"), env, label=label)
    if not isinstance(holds, bool):
        raise MprError(CONDITION_NOT_BOOLEAN, rule.loc("rows", index, "when"), rule=rule.id,
                       row=row_name(rule, index), value=holds)
    return holds


def _matching(rule: Rule, index: int, env: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The environment in which row ``index`` holds (with its ``as`` name bound), or None."""
    row = rule.doc["rows"][index]
    _trace_params(rule, ("rows", index, "when"), ctx)
    if "each" not in row:
        return env if _holds(rule, index, env, ctx, str(row["when"])) else None
    elements = _evaluate(rule, ("rows", index, "each"), env, ctx, str(row["each"]))
    if elements is None:
        return None
    if not isinstance(elements, list):
        raise MprError(NOT_A_LIST, rule.loc("rows", index, "each"), rule=rule.id,
                       row=row_name(rule, index), value=elements)
    for element in elements:
        bound = {**env, row["as"]: element}
        if _holds(rule, index, bound, ctx, f"{row['when']}  [{row['as']} = {element}]"):
            return bound
    return None


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> Any:
    env = environment(rule, inputs)
    total: Any = 0
    for index, row in enumerate(rule.doc.get("rows") or []):
        name = row_name(rule, index)
        with ctx.trace.group("row", name, text=row.get("label")) as step:
            row_env = _matching(rule, index, env, ctx)
            step.detail["matched"] = row_env is not None
            if row_env is None:
                continue
            value = row["value"]
            if isinstance(value, str):
                value = _evaluate(rule, ("rows", index, "value"), row_env, ctx, value)
            if isinstance(value, bool) or not (isinstance(value, int) or is_fraction(value)):
                raise MprError(NOT_A_NUMBER, rule.loc("rows", index, "value"), rule=rule.id,
                               row=name, value=value)
            value = _rounded(rule, value, ctx)
            step.value = value
            total += value
    if "result" in rule.doc:
        _trace_params(rule, ("result",), ctx)
        total = ctx.evaluate(rule, ("result",), {**env, "total": total})
        if isinstance(total, bool) or not (isinstance(total, int) or is_fraction(total)):
            raise MprError(NOT_A_NUMBER, rule.loc("result"), rule=rule.id, row="result",
                           value=total)
        total = _rounded(rule, total, ctx)
    return total


def _constant_false(expression: Any) -> bool:
    if expression.names or expression.has_dice:
        return False
    try:
        return expression.evaluate({}) is False
    except MprError:
        return False


def _conjuncts(node: ast.Node) -> Iterator[ast.Node]:
    from rules_dsl import ast  # start-up: the syntax tree's classes load only for the semantic check

    if isinstance(node, ast.Logical) and node.op == "and":
        yield from _conjuncts(node.left)
        yield from _conjuncts(node.right)
    else:
        yield node


FLIPPED = {"==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _literal(node: ast.Node) -> tuple[str, Any] | None:
    """A literal as ``(type, value)`` (``-3`` included), else None."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only for the semantic check

    if isinstance(node, ast.Unary) and node.op == "-" and isinstance(node.operand, ast.Number):
        return "Number", -node.operand.value
    if isinstance(node, (ast.String, ast.Number, ast.Boolean, ast.Null)):
        return type(node).__name__, getattr(node, "value", None)
    return None


def _comparisons(tree: ast.Node) -> Iterator[tuple[str, str, tuple[str, Any]]]:
    """``(path, op, literal)`` for each comparison of a dice-free expression with a literal that
    the condition requires (a conjunct, or a link of a chained comparison)."""
    from rules_dsl import ast  # start-up: the syntax tree's classes load only for the semantic check

    for part in _conjuncts(tree):
        if not isinstance(part, ast.Compare):
            continue
        for op, left, right in zip(part.ops, part.operands, part.operands[1:]):
            if op not in FLIPPED:
                continue
            if _literal(left) is not None:
                left, right, op = right, left, FLIPPED[op]
            literal = _literal(right)
            if literal is not None and _literal(left) is None and not _has_dice(left):
                yield ast.dump(left), op, literal


def _contradiction(tree: ast.Node) -> bool:
    """One path required to equal two different literals (``x == 'a' and x == 'b'``), or to lie
    in an empty interval of numbers (``n > 5 and n < 3``, ``n == 2 and n >= 4``)."""
    equal: dict[str, tuple[str, Any]] = {}
    low: dict[str, tuple[int, bool]] = {}  # the bound and whether it is strict
    high: dict[str, tuple[int, bool]] = {}
    for key, op, (kind, value) in _comparisons(tree):
        if op == "==" and equal.setdefault(key, (kind, value)) != (kind, value):
            return True
        if kind != "Number":
            continue
        if op in ("==", ">", ">=") and (key not in low or (value, op == ">") > low[key]):
            low[key] = (value, op == ">")
        if op in ("==", "<", "<=") and (key not in high or (value, op != "<") < (
                high[key][0], not high[key][1])):
            high[key] = (value, op == "<")
    return any(key in high and (low[key][0] > high[key][0] or (
        low[key][0] == high[key][0] and (low[key][1] or high[key][1]))) for key in low)


def _has_dice(node: ast.Node) -> bool:
    from rules_dsl import ast  # start-up: the syntax tree's classes load only for the semantic check

    return any(isinstance(n, (ast.Dice, ast.D66)) for n in ast.walk(node))


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Rows whose condition is decidably always false; an empty table. (Parameters are checked
    against their schemas by ``interpreter.checks.param_schema``, not here.)"""
    rows = rule.doc.get("rows") or []
    if not rows:
        yield diagnostic(EMPTY_TABLE, rule.loc("rows"), lang, rule=rule.id)
    never: dict[str, bool] = {}  # by text: a table repeats a few conditions
    for index, row in enumerate(rows):
        condition = row.get("when")
        if not isinstance(condition, str):
            continue
        verdict = never.get(condition)
        if verdict is None:
            try:
                expression = rule.expression("rows", index, "when")
            except MprError:
                continue  # reported by the expression check
            verdict = never[condition] = _contradiction(expression.ast) or _constant_false(expression)
        if verdict:
            yield diagnostic(NEVER_HOLDS, rule.loc("rows", index, "when"), lang, rule=rule.id,
                             row=row_name(rule, index), condition=condition)


KIND = Kind(name="SumTable", run=run, check=check)
