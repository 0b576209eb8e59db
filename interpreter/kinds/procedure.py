"""Kind ``Procedure``: a constraint procedure that checks a plan and explains itself.

A document names a generic solver (``interpreter.solvers``: Python knows its algorithm; the
document gives every number as a parameter, typed by the kind schema, every field name of the plan
in ``fields`` and, in ``value_names``, its own names for the solver's values), declares the
constraints the solver reports (each with a code MPR830-899 and a message template in ja/en) and
may add its own: ``derive`` values and ``constraints`` with a ``check`` expression. The value is ``{legal, ...the solver's values, errors: [{code, message, path}]}``; the
readable report (verdict, each violation, the split or budget found, a nearby legal plan) is the
trace's ``report`` step, one line per note, in the run's language.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from rules_dsl.errors import Diagnostic, Location, MprError, define, diagnostic

from interpreter.engine.runner import Context
from interpreter.ruleset.model import Path_, Rule, Ruleset
from interpreter.solvers.plan import Outcome, Violation
from interpreter.solvers.registry import SOLVERS, Solver
from interpreter.solvers.setup import solve
from interpreter.solvers.render import LAYOUT, Renderer, fields
from interpreter.solvers.setup import Setup
from interpreter.engine.registry import Kind
from interpreter.kinds._procedure_params import param_findings
from interpreter.kinds._reasons import FIELD_NAME

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_SOLVER = define(
    "MPR813", "rule {rule}: unknown solver {solver!r}; known solvers: {known}",
    "ルール {rule}: 不明なソルバー {solver!r} です。使えるソルバー: {known}")
UNDECLARED_CONSTRAINT = define(
    "MPR814", "rule {rule}: solver {solver} reports constraint {constraint!r}, which the document "
    "does not declare (give it a code and a message)",
    "ルール {rule}: ソルバー {solver} が報告する制約 {constraint!r} が文書で宣言されていません"
    "（コードとメッセージを指定してください）")
UNDECLARED_MESSAGE = define(
    "MPR815", "rule {rule}: solver {solver} writes report line {message!r}, which has no text in "
    "messages", "ルール {rule}: ソルバー {solver} が出力する報告行 {message!r} の文面が messages にありません")
CODE_RANGE = define(
    "MPR816",
    "rule {rule}: constraint {constraint} has code {given}; plan constraints use MPR830-MPR899",
    "ルール {rule}: 制約 {constraint} のコード {given} は範囲外です。計画の制約には MPR830〜MPR899 を使います")
CODE_TWICE = define(
    "MPR817", "rule {rule}: {what[en]} {value} is used twice (also at {other})",
    "ルール {rule}: {what[ja]} {value} が2回使われています（もう一方: {other}）")
NEVER_REPORTED = define(
    "MPR818",
    "rule {rule}: constraint {constraint} has no check and solver {solver} never reports it",
    "ルール {rule}: 制約 {constraint} には check がなく、ソルバー {solver} も報告しません",
    severity="warning")
BAD_TEMPLATE = define(
    "MPR819", "rule {rule}: the text of {what} uses {{{name}}}, which is not one of its values "
    "({known})", "ルール {rule}: {what} の文面が {{{name}}} を使っていますが、その値はありません（使える値: {known}）")
BAD_PART = define(
    "MPR820", "rule {rule}: part {part} must name a Procedure rule whose solver is not composite "
    "(given: {found})",
    "ルール {rule}: 項目 {part} には composite 以外のソルバーを使う Procedure ルールを指定してください"
    "（指定: {found}）")
NAME_CLASH = define(
    "MPR821", "rule {rule}: derived value {name!r} hides an input or a value of the solver",
    "ルール {rule}: 導出値 {name!r} が入力またはソルバーの値と同じ名前です")
NOT_BOOLEAN = define(
    "MPR822", "rule {rule}: the check of constraint {constraint} gave {value!r}, not true or false",
    "ルール {rule}: 制約 {constraint} の check の結果が {value!r} で、真偽値ではありません")


def _solver(rule: Rule) -> Solver | None:
    name = rule.doc.get("solver")
    if name is None:
        return None
    if name not in SOLVERS:
        raise MprError(UNKNOWN_SOLVER, rule.loc("solver"), rule=rule.id, solver=name,
                       known=", ".join(SOLVERS))
    return SOLVERS[name]


def _parts(rule: Rule, ruleset: Ruleset) -> dict[str, Any]:
    """The rules a composite combines, by part name, each a Procedure with a plain solver; every
    step names one of them."""
    # start-up: interpreter.engine.runner loads only when _parts() runs
    from interpreter.engine.runner import NOT_ADOPTED

    found = {}
    for part, rule_id in (rule.doc.get("parts") or {}).items():
        other = ruleset.rules.get(rule_id) if isinstance(rule_id, str) else None
        solver = SOLVERS.get(str(other.get("solver"))) if other is not None else None
        if other is None or other.kind != "Procedure" or solver is None or solver.composite:
            raise MprError(BAD_PART, rule.loc("parts", part), rule=rule.id, part=part,
                           found=rule_id or "-")
        if not other.adopted:
            raise MprError(NOT_ADOPTED, rule.loc("parts", part), rule=other.id,
                           title=other.title())
        found[part] = other
    for i, step in enumerate((rule.doc.get("fields") or {}).get("steps") or []):
        if step.get("part") not in found:
            raise MprError(BAD_PART, rule.loc("fields", "steps", i, "part"), rule=rule.id,
                           part=step.get("part"), found="-")
    return found


def _params(rule: Rule, ctx: Context) -> dict[str, Any]:
    """Every parameter of ``rule``, traced with the ruleset layer it came from."""
    return {name: ctx.param(rule, name) for name in rule.params}


def _setup(rule: Rule, ctx: Context, parts: Mapping[str, Any]) -> Setup:
    """What the solver is given: the parameters (checked against the solver's types when the
    ruleset was loaded), the document's field names and value names, the links' expressions
    (evaluated and traced) and a composite's parts."""

    def evaluate(path: tuple[str | int, ...], env: Mapping[str, Any]) -> Any:
        return ctx.evaluate(rule, ("fields", *path), dict(env), label=".".join(map(str, path)))

    return Setup(_params(rule, ctx), rule.doc.get("fields") or {},
                 rule.doc.get("value_names") or {}, evaluate,
                 {p: (SOLVERS[r.doc["solver"]], _setup(r, ctx, {})) for p, r in parts.items()})


def _solve(rule: Rule, solver: Solver, inputs: Mapping[str, Any], ctx: Context) -> tuple[Outcome, dict]:
    """Run the solver; an error in a parameter is located in the document that sets it."""
    parts = _parts(rule, ctx.ruleset) if solver.composite else {}
    setup = _setup(rule, ctx, parts)
    try:
        return solve(solver, inputs, setup), parts
    except MprError as error:
        part = getattr(error, "part", None)
        owner = parts.get(part, rule) if isinstance(part, str) else rule
        path = error.loc.path if error.loc else None
        if path and path.startswith("params."):
            error.at(owner.loc(*path.split(".")))
        raise


def _error(rule: Rule, violation: Violation, renderer: Renderer) -> dict[str, str]:
    """One item of ``errors``: the code and text the document gives the constraint."""
    constraint = _constraints(rule).get(violation.constraint)
    if constraint is None:
        raise MprError(UNDECLARED_CONSTRAINT, rule.loc("constraints"), rule=rule.id,
                       solver=rule.doc.get("solver"), constraint=violation.constraint)
    return {"code": constraint["code"],
            "message": _text(rule, constraint["message"], violation.args, renderer,
                             violation.constraint),
            "path": violation.path}


def _line(rule: Rule, message: str, args: Mapping[str, Any], lang: str) -> str:
    """One report line in the words of ``rule``'s ``messages``."""
    template = (rule.doc.get("messages") or {}).get(message)
    if template is None:
        raise MprError(UNDECLARED_MESSAGE, rule.loc("messages"), rule=rule.id,
                       solver=rule.doc.get("solver"), message=message)
    return _text(rule, template, args, _renderer(rule, lang), message)


def _text(rule: Rule, template: Any, args: Mapping[str, Any], renderer: Renderer, what: str) -> str:
    try:
        return renderer.text(template, args)
    except (KeyError, IndexError) as missing:
        raise MprError(BAD_TEMPLATE, rule.loc(), rule=rule.id, what=what,
                       name=str(missing).strip("'"), known=", ".join(args)) from None


def _constraints(rule: Rule) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in rule.doc.get("constraints") or []}


def _renderer(rule: Rule, lang: str) -> Renderer:
    return Renderer(rule.doc.get("messages") or {}, rule.doc.get("labels") or {}, lang)


def _own_constraints(rule: Rule, env: dict[str, Any], ctx: Context) -> list[dict[str, str]]:
    """The document's ``check`` constraints: each false one is an error with its message."""
    errors = []
    renderer = _renderer(rule, ctx.lang)
    for i, constraint in enumerate(rule.doc.get("constraints") or []):
        if "check" not in constraint:
            continue
        holds = ctx.evaluate(rule, ("constraints", i, "check"), env, label=constraint["id"])
        if not isinstance(holds, bool):
            raise MprError(NOT_BOOLEAN, rule.loc("constraints", i, "check"), rule=rule.id,
                           constraint=constraint["id"], value=holds)
        if not holds:
            args = {k: ctx.evaluate(rule, ("constraints", i, "args", k), env, label=k)
                    for k in constraint.get("args") or {}}
            errors.append({"code": constraint["code"],
                           "message": _text(rule, constraint["message"], args, renderer,
                                            constraint["id"]),
                           "path": str(constraint.get("path", ""))})
    return errors


def run(rule: Rule, inputs: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    solver = _solver(rule)
    values: dict[str, Any] = {}
    errors: list[dict[str, str]] = []
    lines: list[str] = []
    if solver is not None:
        outcome, parts = _solve(rule, solver, inputs, ctx)
        values = dict(outcome.values)
        for violation in outcome.violations:
            owner = parts.get(violation.part, rule) if violation.part else rule
            errors.append(_error(owner, violation, _renderer(owner, ctx.lang)))
        for line in outcome.report:
            owner = parts.get(line.part, rule) if line.part else rule
            text = _line(owner, line.message, line.args, ctx.lang)
            lines.append(f"{owner.title(ctx.lang)}: {text}" if owner is not rule else text)
    env = {**inputs, **values, "params": rule.params}
    for i, derived in enumerate(rule.doc.get("derive") or []):
        value = ctx.evaluate(rule, ("derive", i, "expr"), env, label=derived["name"])
        values[derived["name"]] = env[derived["name"]] = value
    errors += _own_constraints(rule, env, ctx)
    legal = not errors
    renderer = _renderer(rule, ctx.lang)
    verdict = "legal" if legal else "illegal"
    summary = [_text(rule, (rule.doc.get("messages") or {}).get(verdict, verdict),
                     {"errors": len(errors)}, renderer, verdict)]
    summary += [f"{e['code']} {e['path']}: {e['message']}" for e in errors] + lines
    with ctx.trace.group("report", summary[0]):
        for text in summary[1:]:
            ctx.trace.add("note", text)
    return {"legal": legal, **values, "errors": errors}


def check(rule: Rule, ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """The document against its solver: every reported constraint and report line has a text,
    codes are in range and unique, composite parts exist, message templates use known values."""
    name = rule.doc.get("solver")
    solver = SOLVERS.get(name) if name is not None else None
    if name is not None and solver is None:
        yield diagnostic(UNKNOWN_SOLVER, rule.loc("solver"), lang, rule=rule.id, solver=name,
                         known=", ".join(SOLVERS))
    constraints = rule.doc.get("constraints") or []
    declared = {c.get("id") for c in constraints}
    messages = rule.doc.get("messages") or {}
    if solver is not None:
        for missing in sorted(_reported(rule, solver) - declared):
            yield diagnostic(UNDECLARED_CONSTRAINT, rule.loc("constraints"), lang, rule=rule.id,
                             solver=solver.name, constraint=missing)
        for missing in sorted(solver.messages - set(messages)):
            yield diagnostic(UNDECLARED_MESSAGE, rule.loc("messages"), lang, rule=rule.id,
                             solver=solver.name, message=missing)
        yield from param_findings(rule, solver.name, lang)
        if solver.composite:
            try:
                _parts(rule, ruleset)
            except MprError as error:
                yield error.diagnostic(lang)
    yield from _check_constraints(rule, ruleset, solver, lang)
    for key in ("legal", "illegal"):
        unknown = sorted(fields(messages.get(key, "")) - {"errors"})
        if unknown:
            yield diagnostic(BAD_TEMPLATE, rule.loc("messages", key), lang, rule=rule.id, what=key,
                             name=unknown[0], known="errors")
    for key in LAYOUT & set(messages):
        unknown = sorted(fields(messages[key]) - {"label", "value"})
        if unknown:
            yield diagnostic(BAD_TEMPLATE, rule.loc("messages", key), lang, rule=rule.id, what=key,
                             name=unknown[0], known="label, value")
    yield from _check_expressions(rule, solver, lang)


def _check_expressions(rule: Rule, solver: Solver | None, lang: str) -> Iterator[Diagnostic]:
    """``derive`` and ``check`` expressions parse and use only the names they can see: the inputs,
    ``params``, the solver's values and the values derived before them."""
    # start-up: interpreter.engine.names loads only when _check_expressions() runs
    from interpreter.engine.names import check_names, unknown_roots

    names = set(((rule.doc.get("inputs") or {}).get("properties") or {}))
    if solver:
        names |= solver.value_names(rule.doc.get("fields") or {}, rule.doc.get("value_names") or {},
                                    rule.doc.get("parts"))
    paths: list[tuple[Path_, set[str]]] = []
    for i, derived in enumerate(rule.doc.get("derive") or []):
        paths.append((("derive", i, "expr"), set(names)))
        if derived.get("name") in names:
            yield diagnostic(NAME_CLASH, rule.loc("derive", i, "name"), lang, rule=rule.id,
                             name=derived.get("name"))
        names.add(derived.get("name"))
    for i, constraint in enumerate(rule.doc.get("constraints") or []):
        if "check" in constraint:
            paths.append((("constraints", i, "check"), names))
            paths += [(("constraints", i, "args", k), names) for k in constraint.get("args") or {}]
    links = _link_paths(rule)
    for path, allowed in [(path, allowed | {"params"}) for path, allowed in paths] + links:
        try:
            expression = rule.expression(*path)
        except MprError as error:
            yield error.at(rule.loc(*path)).diagnostic(lang)
            continue
        yield from unknown_roots(rule, path, expression, allowed, lang)
        if (path, allowed) not in links:  # links read the parts' values, not the inputs
            yield from check_names(rule, path, expression, lang)


def _link_paths(rule: Rule) -> list[tuple[Path_, set[str]]]:
    """A composite's link expressions, each seeing the shared fields and the parts' values."""
    fields_ = rule.doc.get("fields") or {}
    names = set(fields_.get("shared") or {}) | set(rule.doc.get("parts") or {})
    paths: list[tuple[Path_, set[str]]] = []
    for i, step in enumerate(fields_.get("steps") or []):
        paths += [(("fields", "steps", i, "set", k), names) for k in step.get("set") or {}]
        paths += [(("fields", "steps", i, "fill", k, "expr"), names)
                  for k in step.get("fill") or {}]
    return paths


def _reported(rule: Rule, solver: Solver | None) -> set[str]:
    """The constraint ids the solver may report: its own and a composite's ``mismatch`` ids."""
    if solver is None:
        return set()
    steps = (rule.doc.get("fields") or {}).get("steps") or []
    return set(solver.constraints) | {str(f.get("mismatch")) for s in steps
                                      for f in (s.get("fill") or {}).values()}


def _check_constraints(rule: Rule, ruleset: Ruleset, solver: Solver | None, lang: str
                       ) -> Iterator[Diagnostic]:
    seen_ids: dict[str, Location] = {}
    codes = _codes_elsewhere(rule, ruleset)
    for i, constraint in enumerate(rule.doc.get("constraints") or []):
        here = rule.loc("constraints", i)
        cid, code = constraint.get("id"), str(constraint.get("code", ""))
        if cid in seen_ids:
            yield diagnostic(CODE_TWICE, here, lang, rule=rule.id, what=FIELD_NAME["id"], value=cid,
                             other=str(seen_ids[cid]))
        seen_ids[cid] = here
        if not (code.startswith("MPR") and code[3:].isdigit() and 830 <= int(code[3:]) <= 899):
            yield diagnostic(CODE_RANGE, rule.loc("constraints", i, "code"), lang, rule=rule.id,
                             constraint=cid, given=code)
        if code in codes:
            yield diagnostic(CODE_TWICE, rule.loc("constraints", i, "code"), lang, rule=rule.id,
                             what=FIELD_NAME["code"], value=code, other=str(codes[code]))
        codes[code] = here
        if "check" not in constraint and cid not in _reported(rule, solver):
            yield diagnostic(NEVER_REPORTED, here, lang, rule=rule.id, constraint=cid,
                             solver=solver.name if solver else "-")


def _codes_elsewhere(rule: Rule, ruleset: Ruleset) -> dict[str, Location]:
    """Constraint codes of the Procedure rules before this one, so a code means one thing."""
    codes: dict[str, Location] = {}
    for other in ruleset.rules.values():
        if other is rule:
            break
        if other.kind == "Procedure":
            for i, constraint in enumerate(other.doc.get("constraints") or []):
                codes.setdefault(str(constraint.get("code", "")), other.loc("constraints", i))
    return codes


KIND = Kind(name="Procedure", run=run, check=check, own_constraints=True)
