"""The kind ``Plan``: checks a plan against constraints its document writes and computes the
values its document names. ``computed`` values are evaluated in order (an expression, a structure
of expressions, a parameter's formula, or another rule's run), optionally over ``for_each`` loops;
each of the ``constraints`` is an expression that must hold, with the input path it points at and
its message in ja/en as templates; ``result`` says what the value holds. A broken constraint of
severity ``error`` makes the plan illegal, one of severity ``note`` does not.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rules_dsl.errors import MprError, define
from rules_dsl.words import text_language

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Rule
from interpreter.engine.registry import Kind
from interpreter.kinds._derive import run_rule
from interpreter.kinds._plan_checks import check, template

NOT_A_COLLECTION = define(
    "MPR560", "rule {rule}: the for_each of {where} must give a list or a mapping, got {value!r}",
    "ルール {rule}: {where} の for_each はリストかマッピングを返さなければなりません（値: {value!r}）")
KEY_TWICE = define(
    "MPR561", "rule {rule}: {where} gives the key {key!r} twice (write group: true to collect the values of one key in a list)",
    "ルール {rule}: {where} がキー {key!r} を2回返しています（同じキーの値をリストに集めるには group: true と書きます）")
NOT_BOOLEAN = define(
    "MPR562", "rule {rule}: {where} gave {value!r}, not true or false",
    "ルール {rule}: {where} の結果が {value!r} で、真偽値ではありません")
BAD_KEY = define(
    "MPR563", "rule {rule}: the key of {where} must be a text or a whole number, got {value!r}",
    "ルール {rule}: {where} のキーは文字列か整数でなければなりません（値: {value!r}）")
TOO_MANY_ITEMS = define(
    "MPR564", "rule {rule}: {where} goes through more than {limit} items",
    "ルール {rule}: {where} が {limit} 件を超える要素をたどっています")

MAX_ITEMS = 10_000
KIND_NAMES = ("legal", "errors", "notes")  # what ``result`` sees besides the computed values


def _where(section: str, index: int, entry: Mapping[str, Any]) -> str:
    return f"{section}[{index}] ({entry.get('name') or entry.get('id')})"


def _condition(rule: Rule, path: tuple, env: dict[str, Any], ctx: Context, where: str) -> bool:
    value = ctx.evaluate(rule, path, env, label=f"{where}: {path[-1]}")
    if not isinstance(value, bool):
        raise MprError(NOT_BOOLEAN, rule.loc(*path), rule=rule.id, where=f"{where}.{path[-1]}",
                       value=value)
    return value


def _bindings(rule: Rule, path: tuple, env: dict[str, Any], ctx: Context, where: str,
              count: list[int], depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every binding of the ``for_each`` loops of the entry at ``path`` (nested, in order; each
    loop sees the names bound before it), filtered by each loop's ``where``."""
    loops = rule.get(*path, "for_each") or []
    if depth == len(loops):
        yield env
        return
    loop, here = loops[depth], path + ("for_each", depth)
    items = ctx.evaluate(rule, here + ("in",), env, label=f"{where}: {loop['name']} in")
    if items is None:
        items = []
    elif isinstance(items, Mapping):
        items = list(items)
    elif not isinstance(items, list):
        raise MprError(NOT_A_COLLECTION, rule.loc(*here, "in"), rule=rule.id, where=where,
                       value=items)
    for index, item in enumerate(items):
        count[0] += 1
        if count[0] > MAX_ITEMS:
            raise MprError(TOO_MANY_ITEMS, rule.loc(*here), rule=rule.id, where=where,
                           limit=MAX_ITEMS)
        inner = {**env, loop["name"]: item}
        if "index" in loop:
            inner[loop["index"]] = index
        if "where" in loop and not _condition(rule, here + ("where",), inner, ctx, where):
            continue
        yield from _bindings(rule, path, inner, ctx, where, count, depth + 1)


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


def message_path(message: Any, lang: str) -> tuple[str, ...]:
    """Where the text of ``lang`` stands in a ``{ja, en}`` message (or a plain text)."""
    if not isinstance(message, Mapping):
        return ()
    return (text_language(dict(message), lang),)


def _violations(rule: Rule, index: int, env: dict[str, Any], ctx: Context,
                refusals: dict[str, list[dict[str, str]]]) -> list[dict[str, str]]:
    """The items a constraint reports: one per binding where it does not hold."""
    constraint = rule.doc["constraints"][index]
    if "from" in constraint:
        return list(refusals.get(constraint["from"], []))
    path, where = ("constraints", index), _where("constraints", index, constraint)
    found = []
    for inner in _bindings(rule, path, env, ctx, where, [0]):
        if "when" in constraint and not _condition(rule, path + ("when",), inner, ctx, where):
            continue
        if _condition(rule, path + ("check",), inner, ctx, where):
            continue
        text = template(rule, *path, "message", *message_path(constraint["message"], ctx.lang))
        found.append({"code": constraint.get("code", constraint["id"]),
                      "message": text.render(inner, ctx.lang),
                      "path": template(rule, *path, "path").render(inner, ctx.lang)
                      if "path" in constraint else ""})
        if constraint.get("once"):
            break
    return found


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


KIND = Kind("Plan", run, check=check)
