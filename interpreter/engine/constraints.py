"""Constraints a document writes, checked after its kind's own logic: the vocabulary of ``Plan``
(``id``, ``check``, ``for_each``, ``when``, ``once``, ``path``, ``message {ja, en}``, ``severity``,
optional ``code``) on every kind. The runner calls ``apply`` with the run's inputs, the rule's
parameters and the kind's value (``result``); ``Plan`` evaluates its own constraints with the same
loops and reports (``bindings``, ``violations``).

A broken constraint of severity ``error`` makes a value that has ``legal`` illegal (its report is
added to ``errors``); in any other value it refuses the run (MPR780, located at the input path the
constraint names or at the constraint). A broken ``note`` is added to ``notes`` (or the trace)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from rules_dsl.errors import Location, MprError, define, render
from rules_dsl.words import LANGS, text_language

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, NoReturn
    from rules_dsl.template import Template

    from interpreter.engine.runner import Context
    from interpreter.ruleset.model import Path_, Rule

NOT_A_COLLECTION = define(
    "MPR560", "rule {rule}: the for_each of {where} must give a list or a mapping, got {value!r}",
    "ルール {rule}: {where} の for_each はリストかマッピングを返さなければなりません（値: {value!r}）")
NOT_BOOLEAN = define(
    "MPR562", "rule {rule}: {where} gave {value!r}, not true or false",
    "ルール {rule}: {where} の結果が {value!r} で、真偽値ではありません")
TOO_MANY_ITEMS = define(
    "MPR564", "rule {rule}: {where} goes through more than {limit} items",
    "ルール {rule}: {where} が {limit} 件を超える要素をたどっています")
REFUSED = define(
    "MPR780", "rule {rule} refuses: {message[en]} (constraint {constraint}, {given}){rest}",
    "ルール {rule} の制約により行えません: {message[ja]}（制約 {constraint}、{given}）{rest}")

NOT_IN_ODDS = define(
    "MPR565", "the constraint {constraint} reads the rolled value (result) or rolls dice, so these odds do not "
    "apply it: every roll counts as it is, whatever the constraint says of it",
    "制約 {constraint} は出た値（result）を読むかダイスを振るので、この確率には反映していません"
    "（制約がその出目について何と言っても、どの出目もそのまま数えています）")

MAX_ITEMS = 10_000
RESULT = "result"  # the name the kind's value has in a constraint


def where_of(section: str, index: int, entry: Mapping[str, Any]) -> str:
    return f"{section}[{index}] ({entry.get('name') or entry.get('id')})"


def condition(rule: Rule, path: Path_, env: dict[str, Any], ctx: Context, where: str) -> bool:
    """The value of the condition at ``rule.doc[path]``, which must be true or false."""
    value = ctx.evaluate(rule, path, env, label=f"{where}: {path[-1]}")
    if not isinstance(value, bool):
        raise MprError(NOT_BOOLEAN, rule.loc(*path), rule=rule.id, where=f"{where}.{path[-1]}",
                       value=value)
    return value


def bindings(rule: Rule, path: Path_, env: dict[str, Any], ctx: Context, where: str,
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
        if "where" in loop and not condition(rule, here + ("where",), inner, ctx, where):
            continue
        yield from bindings(rule, path, inner, ctx, where, count, depth + 1)


def template(rule: Rule, *path: str | int) -> Template:
    """The compiled template written at ``rule.doc[path]`` (cached with the rule's expressions)."""
    key = ("__template__",) + tuple(path)
    found = rule._compiled.get(key)
    if found is None:
        # start-up: templates are compiled only when a constraint's message is shown
        from rules_dsl.template import compile_template

        found = rule._compiled[key] = compile_template(str(rule.get(*path)), rule.loc(*path))
    return found


def message_path(message: Any, lang: str) -> tuple[str, ...]:
    """Where the text of ``lang`` stands in a ``{ja, en}`` message (or a plain text)."""
    if not isinstance(message, Mapping):
        return ()
    return (text_language(dict(message), lang),)


def reports(rule: Rule, index: int, env: dict[str, Any],
            ctx: Context) -> Iterator[tuple[dict[str, str], dict[str, Any]]]:
    """Each report of ``constraints[index]`` with the names bound where it does not hold."""
    constraint = rule.doc["constraints"][index]
    path, where = ("constraints", index), where_of("constraints", index, constraint)
    for inner in bindings(rule, path, env, ctx, where, [0]):
        if "when" in constraint and not condition(rule, path + ("when",), inner, ctx, where):
            continue
        if condition(rule, path + ("check",), inner, ctx, where):
            continue
        yield {"code": constraint.get("code", constraint["id"]),
               "message": message(rule, index, inner, ctx.lang),
               "path": template(rule, *path, "path").render(inner, ctx.lang)
               if "path" in constraint else ""}, inner
        if constraint.get("once"):
            break


def message(rule: Rule, index: int, env: dict[str, Any], lang: str) -> str:
    """The message of ``constraints[index]`` in ``lang``, filled in ``env``."""
    path = ("constraints", index, "message")
    text = template(rule, *path, *message_path(rule.doc["constraints"][index]["message"], lang))
    return text.render(env, lang)


def violations(rule: Rule, index: int, env: dict[str, Any], ctx: Context) -> list[dict[str, str]]:
    """The reports of ``constraints[index]``: one ``{code, message, path}`` per binding where it
    does not hold (the first only with ``once``)."""
    return [item for item, _ in reports(rule, index, env, ctx)]


def environment(rule: Rule, inputs: Mapping[str, Any], value: Any) -> dict[str, Any]:
    """What a constraint sees: every declared input (null when not given), ``params`` and the
    kind's value as ``result``."""
    return {**{name: None for name in declared_inputs(rule)}, **inputs, "params": rule.params,
            RESULT: value}


def declared_inputs(rule: Rule) -> list[str]:
    """The names of the inputs a rule takes: those its kind always takes (``Kind.inputs``) and
    those its document's ``inputs`` declare."""
    # start-up: the registry is asked only when a document has constraints
    from interpreter.engine import registry

    kind = registry.get(rule.kind)
    own = list((kind.inputs if kind is not None else None) or {})
    return [*own, *((rule.doc.get("inputs") or {}).get("properties") or {})]


def has_verdict(value: Any) -> bool:
    """Whether the kind's value says itself whether it is legal (``{legal: bool, errors: [...]}``)."""
    return isinstance(value, Mapping) and isinstance(value.get("legal"), bool)


def decided_before_roll(rule: Rule, index: int) -> bool:
    """Whether ``constraints[index]`` is decided by the inputs and parameters alone: none of its
    expressions (loops, ``when``, ``check``) rolls dice, and none of them, nor its message or path,
    reads ``result`` (unless a loop binds that name)."""
    constraint = rule.doc["constraints"][index]
    path: Path_ = ("constraints", index)
    bound = False  # a loop named ``result`` hides the kind's value from what follows it

    def undecided(*where: str | int) -> bool:
        expression = rule.expression(*path, *where)
        return expression.has_dice or (RESULT in expression.names and not bound)

    for i, loop in enumerate(constraint.get("for_each") or []):
        if undecided("for_each", i, "in"):
            return False
        bound = bound or loop.get("name") == RESULT
        if "where" in loop and undecided("for_each", i, "where"):
            return False
    if any(undecided(key) for key in ("when", "check") if key in constraint):
        return False
    if bound:
        return True
    message = constraint.get("message")
    texts: list[tuple[str, ...]] = [("message", lang) for lang in message] \
        if isinstance(message, Mapping) else [("message",)]
    texts += [("path",)] if "path" in constraint else []
    return not any(RESULT in template(rule, *path, *where).names for where in texts)


def _broken(rule: Rule, indexes: Iterable[int], env: dict[str, Any], ctx: Context
            ) -> tuple[dict[str, list[dict[str, str]]], tuple[int, dict[str, Any]] | None]:
    """The reports of the constraints at ``indexes`` by severity (each traced as a note), and the
    first broken ``error``: its index and the names bound where it broke."""
    constraints = rule.doc["constraints"]
    found: dict[str, list[dict[str, str]]] = {"error": [], "note": []}
    first: tuple[int, dict[str, Any]] | None = None
    for index in indexes:
        severity = constraints[index].get("severity", "error")
        for item, inner in reports(rule, index, env, ctx):
            found[severity].append(item)
            if severity == "error" and first is None:
                first = (index, inner)
            ctx.trace.add("note", f"{item['code']} {item['path']}".strip(), item["message"])
    return found, first


def before_odds(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> list[str]:
    """The document's ``constraints`` for the odds of a rule's outcome (``prob``): those decided
    by the inputs and parameters alone are checked as a run checks them (a broken ``error``
    refuses, MPR780); the others cannot be, and each gives a note (MPR565), returned in
    ``ctx.lang`` with the broken ``note``s."""
    constraints = rule.doc.get("constraints") or []
    decided = [i for i in range(len(constraints)) if decided_before_roll(rule, i)]
    found, first = _broken(rule, decided, environment(rule, inputs, None), ctx)
    if first is not None:
        _refuse(rule, *first, found["error"][0], found["error"][1:])
    notes = [f"{NOT_IN_ODDS} " + render(NOT_IN_ODDS, {"constraint": constraints[i]["id"]}, ctx.lang)
             for i in range(len(constraints)) if i not in decided]
    return notes + [f"{item['code']} {item['path']}: {item['message']}" if item["path"]
                    else f"{item['code']}: {item['message']}" for item in found["note"]]


def _refuse(rule: Rule, index: int, inner: dict[str, Any], item: dict[str, str],
            others: list[dict[str, str]]) -> NoReturn:
    """Refuse the run for the broken ``constraints[index]`` (MPR780), the other broken ones after it."""
    constraints = rule.doc["constraints"]
    where = Location(path=item["path"]) if item["path"] else rule.loc("constraints", index)
    rest = "".join(f"\n  {other['path'] + ': ' if other['path'] else ''}{other['message']} ({other['code']})"
                   for other in others)
    texts = {lang: message(rule, index, inner, lang) for lang in LANGS}
    raise MprError(REFUSED, where, rule=rule.id, message=texts, constraint=constraints[index]["id"],
                   given=item["code"], rest=rest)


def apply(rule: Rule, inputs: Mapping[str, Any], value: Any, ctx: Context) -> Any:
    """The kind's value after the document's ``constraints``: a verdict gets their reports (and is
    illegal after a broken ``error``); any other value is refused by a broken ``error``."""
    constraints = rule.doc.get("constraints") or []
    if not constraints:
        return value
    found, first = _broken(rule, range(len(constraints)), environment(rule, inputs, value), ctx)
    if has_verdict(value):
        verdict = dict(value)
        verdict["errors"] = [*(verdict.get("errors") or []), *found["error"]]
        verdict["notes"] = [*(verdict.get("notes") or []), *found["note"]]
        verdict["legal"] = bool(value["legal"]) and not found["error"]
        return verdict
    if first is not None:
        _refuse(rule, *first, found["error"][0], found["error"][1:])
    return value
