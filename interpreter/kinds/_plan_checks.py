"""The semantic checks of a ``Plan`` document (``mprules validate``): every expression and template
uses only the names it can see (the inputs, ``params``, the computed values before it, the names
its loops bind), names are not reused, formulas name a parameter that holds an expression,
constraint ids and codes are unique and no code is one the message catalogue already gives."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import MESSAGES, Diagnostic, Location, MprError, define, diagnostic, did_you_mean

from interpreter.ruleset.model import Rule, Ruleset
from interpreter.kinds._reasons import FIELD_NAME
from interpreter.engine.constraints import RESULT, declared_inputs, template

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_NAME = define(
    "MPR566", "rule {rule}: {where} uses {name!r}, which is not an input, 'params', a computed value before it or a name its loops bind{hint}",
    "ルール {rule}: {where} が使う {name!r} は、入力・'params'・それより前の計算値・ループの名前のいずれでもありません{hint}")
LATER_NAME = define(
    "MPR567", "rule {rule}: {where} uses {name!r}, which is computed only later (computed[{index}]); values are computed in the order they are written",
    "ルール {rule}: {where} が使う {name!r} は後の computed[{index}] で計算されます。計算値は書かれた順に計算されます")
NAME_CLASH = define(
    "MPR568", "rule {rule}: the name {name!r} of {where} is already an input, 'params', a computed value, a loop's name or one the kind gives (legal, errors, notes)",
    "ルール {rule}: {where} の名前 {name!r} は、入力・'params'・計算値・ループの名前・種別が与える名前（legal, errors, notes）のいずれかと同じです")
USED_TWICE = define(
    "MPR569", "rule {rule}: {what[en]} {value!r} is used twice (also at {other})",
    "ルール {rule}: {what[ja]} {value!r} が2回使われています（もう一方: {other}）")
CATALOGUE_CODE = define(
    "MPR570", "rule {rule}: constraint {constraint} has the code {given}, which already means: {meaning}; give the constraint a code no message of mprules uses",
    "ルール {rule}: 制約 {constraint} のコード {given} はすでに別の意味（{meaning}）で使われています。mprules のメッセージが使っていないコードにしてください")
BAD_FROM = define(
    "MPR571", "rule {rule}: constraint {constraint} reports the refusals of {name!r}, which is not a computed value that runs a rule with refusals",
    "ルール {rule}: 制約 {constraint} が報告する {name!r} は、refusals を持つルール実行の計算値ではありません")
BAD_FORMULA = define(
    "MPR572", "rule {rule}: computed {name} uses the formula in parameter {param!r}, which {problem}",
    "ルール {rule}: 計算値 {name} が使うパラメータ {param!r} の式は{problem_ja}")

KIND_NAMES = ("legal", "errors", "notes")


def _located(origin: Location, span: Any) -> Location:
    if span is None or origin.line is None:
        return origin
    return origin.shifted(span.line - 1, span.column)


def _names_of(rule: Rule, path: tuple, expression: Any, allowed: set[str],
              later: Mapping[str, int], where: str, lang: str,
              origin: Location | None = None) -> Iterator[Diagnostic]:
    """Findings about the free names of one expression (located at the name); ``origin`` is
    given for a template's placeholder (its own position in the file)."""
    # start-up: rules_dsl loads only when _names_of() runs
    from rules_dsl import ast

    # start-up: interpreter.engine.names loads only when _names_of() runs
    from interpreter.engine.names import check_names

    placeholder = origin is not None
    origin = origin or rule.loc(*path)
    spans: dict[str, ast.Span | None] = {}
    for node in ast.walk(expression.ast):
        if isinstance(node, ast.Name):
            spans.setdefault(node.name, node.span)
    for name in sorted(expression.names - allowed):
        at = _located(origin, spans.get(name))
        if name in later:
            yield diagnostic(LATER_NAME, at, lang, rule=rule.id, where=where, name=name,
                             index=later[name])
        else:
            yield diagnostic(UNKNOWN_NAME, at, lang, rule=rule.id, where=where, name=name,
                             hint=did_you_mean(name, sorted(allowed)))
    if not placeholder:
        yield from check_names(rule, path, expression, lang)


def _expression(rule: Rule, path: tuple, allowed: set[str], later: Mapping[str, int], where: str,
                lang: str) -> Iterator[Diagnostic]:
    # start-up: interpreter.engine.names loads only when _expression() runs
    from interpreter.engine.names import compiled

    try:
        expression = compiled(rule, path)
    except MprError as error:
        yield error.at(rule.loc(*path)).diagnostic(lang)
        return
    yield from _names_of(rule, path, expression, allowed, later, where, lang)


def _template(rule: Rule, path: tuple, allowed: set[str], later: Mapping[str, int], where: str,
              lang: str) -> Iterator[Diagnostic]:
    try:
        text = template(rule, *path)
    except MprError as error:
        yield error.at(rule.loc(*path)).diagnostic(lang)
        return
    for part in text.parts:
        if not isinstance(part, str):
            yield from _names_of(rule, path, part, allowed, later, where, lang,
                                 origin=part.origin or rule.loc(*path))


def _shape(rule: Rule, path: tuple, node: Any, allowed: set[str], later: Mapping[str, int],
           where: str, lang: str) -> Iterator[Diagnostic]:
    if isinstance(node, str):
        yield from _expression(rule, path, allowed, later, where, lang)
    elif isinstance(node, Mapping):
        for key, sub in node.items():
            yield from _shape(rule, path + (key,), sub, allowed, later, where, lang)


def _loops(rule: Rule, path: tuple, entry: Mapping[str, Any], allowed: set[str],
           later: Mapping[str, int], where: str, lang: str) -> Iterator[Diagnostic | set[str]]:
    """Findings of the ``for_each`` loops; the last item yielded is the set of names they bind."""
    local = set(allowed)
    for j, loop in enumerate(entry.get("for_each") or []):
        here = path + ("for_each", j)
        yield from _expression(rule, here + ("in",), local, later, where, lang)
        for field in ("name", "index"):
            name = loop.get(field)
            if name is None:
                continue
            if name in local or name in later or name in KIND_NAMES:
                yield diagnostic(NAME_CLASH, rule.loc(*here, field), lang, rule=rule.id,
                                 where=where, name=name)
            local.add(name)
        if "where" in loop:
            yield from _expression(rule, here + ("where",), local, later, where, lang)
    yield local


def _split(found: Iterator[Any]) -> tuple[list[Diagnostic], set[str]]:
    items = list(found)
    return items[:-1], items[-1]


def _computed(rule: Rule, known: set[str], names: list[str], lang: str) -> Iterator[Diagnostic]:
    for i, entry in enumerate(rule.doc.get("computed") or []):
        path, name = ("computed", i), entry.get("name")
        where = f"computed[{i}] ({name})"
        later = {n: k for k, n in enumerate(names) if k > i and n not in known}
        if name in known or name in KIND_NAMES:
            yield diagnostic(NAME_CLASH, rule.loc(*path, "name"), lang, rule=rule.id, where=where,
                             name=name)
        if "when" in entry:
            yield from _expression(rule, path + ("when",), known, later, where, lang)
        findings, local = _split(_loops(rule, path, entry, known, later, where, lang))
        yield from findings
        if "key" in entry:
            yield from _expression(rule, path + ("key",), local, later, where, lang)
        for field in ("value", "inputs"):
            if field in entry:
                yield from _shape(rule, path + (field,), entry[field], local, later, where, lang)
        if "formula" in entry:
            yield from _formula(rule, entry, local, later, where, lang)
        known.add(name)


def _formula(rule: Rule, entry: Mapping[str, Any], local: set[str], later: Mapping[str, int],
             where: str, lang: str) -> Iterator[Diagnostic]:
    param = entry["formula"]
    problems = {"missing": ("the rule does not have", "ルールにありません"),
                "text": ("is not an expression (a text)", "式（文字列）ではありません")}
    problem = "missing" if param not in rule.params else \
        "text" if not isinstance(rule.params[param], str) else None
    if problem:
        en, ja = problems[problem]
        yield diagnostic(BAD_FORMULA, rule.loc("params", param) if problem == "text" else
                         rule.loc("computed"), lang, rule=rule.id, name=entry.get("name"),
                         param=param, problem=en, problem_ja=ja)
        return
    yield from _expression(rule, ("params", param), local, later, f"{where}: params.{param}", lang)


def _constraints(rule: Rule, ruleset: Ruleset, known: set[str], lang: str) -> Iterator[Diagnostic]:
    runs = {e.get("name") for e in rule.doc.get("computed") or []
            if "rule" in e and e.get("refusals")}
    ids: dict[str, Location] = {}
    codes = _codes_elsewhere(rule, ruleset)
    for i, constraint in enumerate(rule.doc.get("constraints") or []):
        path, cid = ("constraints", i), constraint.get("id")
        where = f"constraints[{i}] ({cid})"
        if cid in ids:
            yield diagnostic(USED_TWICE, rule.loc(*path, "id"), lang, rule=rule.id, what=FIELD_NAME["id"],
                             value=cid, other=str(ids[cid]))
        ids[cid] = rule.loc(*path)
        yield from _code(rule, path, constraint, codes, lang)
        if "from" in constraint:
            if constraint["from"] not in runs:
                yield diagnostic(BAD_FROM, rule.loc(*path, "from"), lang, rule=rule.id,
                                 constraint=cid, name=constraint["from"])
            continue
        findings, local = _split(_loops(rule, path, constraint, known, {}, where, lang))
        yield from findings
        for field in ("when", "check"):
            if field in constraint:
                yield from _expression(rule, path + (field,), local, {}, where, lang)
        if "path" in constraint:
            yield from _template(rule, path + ("path",), local, {}, where, lang)
        message = constraint.get("message")
        for lang_key in (message if isinstance(message, Mapping) else {}):
            yield from _template(rule, path + ("message", lang_key), local, {}, where, lang)


def _code(rule: Rule, path: tuple, constraint: Mapping[str, Any], codes: dict[str, Location],
          lang: str) -> Iterator[Diagnostic]:
    code = constraint.get("code")
    if code is None:
        return
    if code in MESSAGES:
        yield diagnostic(CATALOGUE_CODE, rule.loc(*path, "code"), lang, rule=rule.id,
                         constraint=constraint.get("id"), given=code,
                         meaning=getattr(MESSAGES[code], lang, MESSAGES[code].en))
    if code in codes:
        yield diagnostic(USED_TWICE, rule.loc(*path, "code"), lang, rule=rule.id, what=FIELD_NAME["code"],
                         value=code, other=str(codes[code]))
    codes[code] = rule.loc(*path)


def _codes_elsewhere(rule: Rule, ruleset: Ruleset) -> dict[str, Location]:
    """Constraint codes of the documents before this one, so that a code means one thing."""
    codes: dict[str, Location] = {}
    for other in ruleset.rules.values():
        if other is rule:
            break
        for i, constraint in enumerate(other.doc.get("constraints") or []):
            if isinstance(constraint, Mapping) and constraint.get("code"):
                codes.setdefault(str(constraint["code"]), other.loc("constraints", i))
    return codes


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """Every finding of a Plan document (see the module's docstring)."""
    known = set((rule.doc.get("inputs") or {}).get("properties") or {}) | {"params"}
    names = [e.get("name") for e in rule.doc.get("computed") or []]
    yield from _computed(rule, known, names, lang)
    yield from _constraints(rule, ruleset, known, lang)
    if "result" in rule.doc:
        yield from _shape(rule, ("result",), rule.doc["result"], known | set(KIND_NAMES), {},
                          "result", lang)



def check_constraints(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """The findings of the ``constraints`` of a document of any kind but Plan (the engine checks
    them after the kind's logic): their expressions and templates use only the inputs,
    ``params``, ``result`` (the kind's value) and the names their loops bind; ids and codes are
    unique."""
    yield from _constraints(rule, ruleset, set(declared_inputs(rule)) | {"params", RESULT}, lang)
