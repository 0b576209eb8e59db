"""The kind ``Plan``: checks a plan against constraints its document writes and computes the
values its document names. ``computed`` values are evaluated in order (an expression, a structure
of expressions, a parameter's formula, or another rule's run), optionally over ``for_each`` loops;
each of the ``constraints`` is an expression that must hold, with the input path it points at and
its message in ja/en as templates; ``result`` says what the value holds. A broken constraint of
severity ``error`` makes the plan illegal, one of severity ``note`` does not.
"""
from __future__ import annotations

from collections.abc import Mapping

from rules_dsl.errors import MprError, define

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule
from interpreter.engine.registry import Kind
from interpreter.kinds._derive import run_rule
from interpreter.kinds._plan_checks import check
from interpreter.engine.constraints import bindings as _bindings, condition as _condition, violations, where_of as _where

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

KEY_TWICE = define(
    "MPR561", "rule {rule}: {where} gives the key {key!r} twice (write group: true to collect the values of one key in a list)",
    "ルール {rule}: {where} がキー {key!r} を2回返しています（同じキーの値をリストに集めるには group: true と書きます）")
BAD_KEY = define(
    "MPR563", "rule {rule}: the key of {where} must be a text or a whole number, got {value!r}",
    "ルール {rule}: {where} のキーは文字列か整数でなければなりません（値: {value!r}）")
KIND_NAMES = ("legal", "errors", "notes")  # what ``result`` sees besides the computed values


def _shape(rule: Rule, path: tuple, node: Any, env: dict[str, Any], ctx: Context, label: str) -> Any:
    """A structure of expressions: a text is an expression, a mapping maps each key to its
    structure, any other scalar is itself."""
    if isinstance(node, str):
        return ctx.evaluate(rule, path, env, label=label)
    if isinstance(node, Mapping):
        return {key: _shape(rule, path + (key,), sub, env, ctx, f"{label}.{key}")
                for key, sub in node.items()}
    return node


def _formula(rule: Rule, name: str, env: dict[str, Any], ctx: Context, label: str) -> Any:
    # start-up: interpreter.engine.names loads only when _formula() runs
    from interpreter.engine.names import compiled

    expression = compiled(rule, ("params", name))
    mark = ctx.dice.mark()
    value = expression.evaluate(env, ctx.dice)
    detail: dict[str, Any] = {"expr": expression.text}
    dice = [d.value for d in ctx.dice.since(mark)]
    if dice:
        detail["dice"] = dice
    ctx.trace.add("expr", label, value, **detail)
    return value


def _one(rule: Rule, path: tuple, entry: Mapping[str, Any], env: dict[str, Any], ctx: Context,
         refusals: list[dict[str, str]], name: str) -> Any:
    """One value of a computed entry in ``env`` (``name`` labels its trace rows)."""
    if "rule" in entry:
        inputs = _shape(rule, path + ("inputs",), entry.get("inputs") or {}, env, ctx, name)
        inputs = {key: value for key, value in inputs.items() if value is not None}
        try:
            return run_rule(ctx, entry["rule"], inputs)
        except MprError as error:
            if error.code not in (entry.get("refusals") or []):
                raise
            refusals.append({"code": error.code, "message": error.message(ctx.lang),
                             "path": error.loc.path if error.loc and error.loc.path else ""})
            return None
    if "formula" in entry:
        return _formula(rule, entry["formula"], env, ctx, name)
    return _shape(rule, path + ("value",), entry.get("value"), env, ctx, name)


def _computed(rule: Rule, index: int, env: dict[str, Any], ctx: Context,
              refusals: list[dict[str, str]]) -> Any:
    entry = rule.doc["computed"][index]
    path, where = ("computed", index), _where("computed", index, entry)
    if "formula" in entry:
        ctx.param(rule, entry["formula"])
    if "when" in entry and not _condition(rule, path + ("when",), env, ctx, where):
        return None
    name = entry["name"]
    if "for_each" not in entry:
        return _one(rule, path, entry, env, ctx, refusals, name)
    keyed, group = "key" in entry, bool(entry.get("group"))
    out: Any = {} if keyed else []
    for inner in _bindings(rule, path, env, ctx, where, [0]):
        if not keyed:
            out.append(_one(rule, path, entry, inner, ctx, refusals, f"{name}[{len(out)}]"))
            continue
        key = ctx.evaluate(rule, path + ("key",), inner, label=f"{where}: key")
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise MprError(BAD_KEY, rule.loc(*path, "key"), rule=rule.id, where=where, value=key)
        value = _one(rule, path, entry, inner, ctx, refusals, f"{name}[{key}]")
        if group:
            out.setdefault(key, []).append(value)
        elif key in out:
            raise MprError(KEY_TWICE, rule.loc(*path, "key"), rule=rule.id, where=where, key=key)
        else:
            out[key] = value
    return out


def _violations(rule: Rule, index: int, env: dict[str, Any], ctx: Context,
                refusals: dict[str, list[dict[str, str]]]) -> list[dict[str, str]]:
    """The items a constraint reports: one per binding where it does not hold, or the refusals
    of the computed value its ``from`` names."""
    constraint = rule.doc["constraints"][index]
    if "from" in constraint:
        return list(refusals.get(constraint["from"], []))
    return violations(rule, index, env, ctx)


def _environment(rule: Rule, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs (every declared one; null when not given) and ``params``."""
    declared = (rule.doc.get("inputs") or {}).get("properties") or {}
    return {**{name: None for name in declared}, **inputs, "params": rule.params}


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> Any:
    env = _environment(rule, inputs)
    refusals: dict[str, list[dict[str, str]]] = {}
    for index, entry in enumerate(rule.doc.get("computed") or []):
        refused = refusals.setdefault(entry["name"], [])
        env[entry["name"]] = _computed(rule, index, env, ctx, refused)
    found: dict[str, list[dict[str, str]]] = {"error": [], "note": []}
    for index, constraint in enumerate(rule.doc.get("constraints") or []):
        for item in _violations(rule, index, env, ctx, refusals):
            found[constraint.get("severity", "error")].append(item)
            ctx.trace.add("note", f"{item['code']} {item['path']}", item["message"])
    env.update(legal=not found["error"], errors=found["error"], notes=found["note"])
    if "result" not in rule.doc:
        computed = {e["name"]: env[e["name"]] for e in rule.doc.get("computed") or []}
        return {"legal": env["legal"], **computed, "errors": env["errors"], "notes": env["notes"]}
    return _shape(rule, ("result",), rule.doc["result"], env, ctx, "result")


KIND = Kind("Plan", run, check=check, own_constraints=True)
