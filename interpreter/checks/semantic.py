"""Semantic checks of a loaded ruleset, after the schema: each check is a generator of diagnostics
with the signature ``(rule, ruleset, lang)``, and ``check_ruleset`` collects them all.

Where expressions are: a kind schema marks every string that holds an expression with the
annotation ``"x-expression": "<role>"`` (e.g. ``condition``, ``value``, ``roll``) and every string
that names another rule with ``"x-rule-ref": true``; ``annotated_paths`` walks a document along
its kind schema to find them, so a new kind gets these checks by annotating its schema
(``"x-binds": "<key>"`` on an object schema adds the name written at ``<key>`` for the expressions
inside it). Expressions see the run input's top-level names (the ``inputs`` schema's properties)
and ``params``; the name checks themselves are in ``expression_names``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic, did_you_mean
from rules_dsl.expression import compile_expression

from interpreter.engine import registry as kinds
from interpreter.engine.runner import UNKNOWN_KIND
from interpreter.engine.names import NOT_IN_ENUM, check_names, compiled, unknown_roots
from interpreter.documents.resources import bundled_ruleset
from interpreter.documents.schema_messages import FIELDS, ITEMS, LENGTH, RANGE
from interpreter.ruleset.enum_from import check_enum_from
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.checks.schema_words import check_schema_words
from interpreter.ruleset.texts import check_texts as texts
from interpreter.ruleset.quotes import check_order, check_quotes
from interpreter.ruleset.wiring import check_wiring
from interpreter.checks.rule_graph import check_cycles
from interpreter.kinds._plan_checks import check_constraints
from interpreter.checks.annotations import (Alike, annotated, annotated_groups, annotated_paths,
                                            kind_schema_file, schema_file)

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_REFERENCE = define(
    "MPR354", "rule {rule} refers to rule {target!r}, which is not in the ruleset{hint}",
    "ルール {rule} が参照するルール {target!r} はルールセットにありません{hint}")
BUNDLED_SOURCE_CODE = define(
    "MPR420", "rule {rule} of the bundled ruleset has source {source!r}: write the rule it encodes, R0 to R21 or Rc",
    "同梱ルールセットのルール {rule} の source が {source!r} です。対応するルールの番号（R0〜R21 または Rc）を書いてください")
BUNDLED_SOURCE = re.compile(r"^(R([0-9]|1[0-9]|2[01])|Rc)$")
KIND_CHECK_FAILED = define(
    "MPR356", "the checks of kind {kind} could not run on rule {rule}: {detail}",
    "ルール {rule} に種別 {kind} の検査を実行できませんでした: {detail}")

Check = Callable[[Rule, Ruleset, str], Iterator[Diagnostic]]


# --- the checks --------------------------------------------------------------------------------

def input_names(rule: Rule) -> set[str]:
    """The root names an expression of ``rule`` may use."""
    props = (rule.doc.get("inputs") or {}).get("properties") or {}
    return set(props) | {"params"}


def check_expressions(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every expression parses and passes the static checker; its names resolve. The names of
    one text are checked once per rule: what they resolve to depends on the rule's parameters
    and inputs, not on where the text stands (a table of many rows repeats a few conditions), so
    a text found clean once is clean at every path; one with findings is checked at each. The
    rows of a table that are of one shape are read as one group (``Alike``): a row whose texts
    were found clean costs a look-up each, no path."""
    inputs = input_names(rule)
    clean: set[str] = set()
    passed: set[tuple[Any, frozenset[str]]] = set()  # (text, bound names) found clean: skipped
    for entry in annotated_groups(rule, "x-expression"):
        if type(entry) is Alike and entry.path[0] != "params":
            items, known, at = entry.items, entry.known, entry.path
            for index in entry.indexes:
                item = items[index]
                for inner, _role, bound in known:
                    text = item[inner[0]] if len(inner) == 1 else _inside(item, inner)
                    if (text, bound) not in passed:
                        yield from _expression(rule, at + (index,) + inner, bound, inputs, clean,
                                               passed, lang)
            continue
        for path, _role, bound in entry.flat() if type(entry) is Alike else (entry,):
            if path[0] == "params" and not isinstance(rule.params.get(path[1]), str):
                continue  # parameters: their effective values
            yield from _expression(rule, path, bound, inputs, clean, passed, lang)


def _inside(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


def _expression(rule: Rule, path: tuple, bound: frozenset[str], inputs: set[str], clean: set[str],
                passed: set[tuple[Any, frozenset[str]]], lang: str) -> Iterator[Diagnostic]:
    """The findings of the expression at ``path`` (``check_expressions``); ``clean`` and
    ``passed`` are what the rule's texts seen so far left."""
    allowed = inputs | bound
    if path[0] != "params":  # a clean text seen before: its compiled code, not placed
        text = rule.get(*path)
        if (text, bound) in passed:
            return
        try:
            shared = compile_expression(str(text))
        except MprError:
            shared = None
        if shared is not None and shared.text in clean and not shared.names - allowed:
            passed.add((text, bound))
            return
    try:
        expression = compiled(rule, path)
    except MprError as error:
        yield error.at(rule.loc(*path)).diagnostic(lang)
        return
    if expression.names - allowed:
        yield from unknown_roots(rule, path, expression, allowed, lang)
    if expression.text in clean:
        return
    found = list(check_names(rule, path, expression, lang))
    if found:
        yield from found
    else:
        clean.add(expression.text)


def check_example_params(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """An example's parameter overrides that are expressions (``params: {roll: 2d6+1}``) parse
    and pass the static checker, located where the example writes them."""
    file = kind_schema_file(rule.kind)
    if file is None:
        return
    for index, example in enumerate(rule.doc.get("examples") or []):
        overrides = example.get("params") if isinstance(example, dict) else None
        if not isinstance(overrides, dict) or not overrides:
            continue
        probe = dict(rule.doc, params={**(rule.doc.get("params") or {}), **overrides})
        for path, _role, _bound in annotated_paths(probe, schema_file(file), file, "x-expression"):
            if path[:1] != ("params",) or path[1] not in overrides or len(path) != 2:
                continue
            text = overrides[path[1]]
            if not isinstance(text, str):
                continue
            try:
                compile_expression(text, origin=rule.loc("examples", index, "params", path[1]))
            except MprError as error:
                yield error.diagnostic(lang)


def check_references(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every string a kind schema marks ``x-rule-ref`` names a rule of the ruleset."""
    for path, _, _ in annotated(rule, "x-rule-ref"):
        target = rule.get(*path)
        if target not in ruleset.rules:
            yield diagnostic(UNKNOWN_REFERENCE, rule.loc(*path), lang, rule=rule.id,
                             target=target, hint=did_you_mean(target, ruleset.rules))


def check_kind(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """The kind exists; then the kind's own checks."""
    kind = kinds.get(rule.kind)
    if kind is None:
        yield diagnostic(UNKNOWN_KIND, rule.loc("kind"), lang, kind=rule.kind,
                         hint=did_you_mean(rule.kind, kinds.registry()))
        return
    if kind.check is None and not rule.doc.get("constraints"):
        return
    try:
        if kind.check is not None:
            yield from kind.check(rule, ruleset, lang)
        if rule.doc.get("constraints") and not kind.own_constraints:
            yield from check_constraints(rule, ruleset, lang)
    except MprError as error:
        yield error.at(rule.loc()).diagnostic(lang)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        yield diagnostic(KIND_CHECK_FAILED, rule.loc(), lang, kind=rule.kind, rule=rule.id,
                         detail=f"{type(error).__name__}: {error}")


def check_source(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """``source:`` is any short label, except in the bundled ruleset's own files, which name the
    rule they encode by its number (R0-R21, Rc)."""
    source = rule.doc.get("source")
    if not isinstance(source, str) or rule.file is None or BUNDLED_SOURCE.match(source):
        return
    try:
        inside = Path(rule.file).resolve().parent == bundled_ruleset().resolve()
    except OSError:
        return
    if inside:
        yield diagnostic(BUNDLED_SOURCE_CODE, rule.loc("source"), lang, rule=rule.id, source=source)


def check_texts(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Texts (title, text, labels) that interpolate parameters compile; stale texts are warned."""
    yield from texts(rule, ruleset, lang)
    yield from check_quotes(rule, ruleset, lang)


def check_enums(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every ``x-enum-from`` of the rule's inputs gives a list from the parameters."""
    yield from check_enum_from(rule, lang)


def check_schemas(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every key of the rule's own JSON Schemas (``inputs``, ``param_schema``) is a keyword."""
    yield from check_schema_words(rule, lang)


CHECKS: tuple[Check, ...] = (check_expressions, check_example_params, check_references,
                             check_source, check_texts, check_enums, check_schemas, check_kind)


def check_ruleset(ruleset: Ruleset, lang: str = "en", *,
                  skip: frozenset[str] = frozenset(),
                  refused: Sequence[Diagnostic] = ()) -> list[Diagnostic]:
    """Every semantic finding of ``ruleset``. A rule in ``skip`` (its document failed the schema)
    is checked too, as far as its shape allows: a check that cannot read it ends that rule's checks
    without a word, and a finding about a field the schema refused (``refused``: the schema's
    findings), or about what holds it, is left out (the schema error says what is wrong); so a roll
    gap shows beside a misspelt field of the same document."""
    findings: list[Diagnostic] = [*check_cycles(ruleset, lang), *check_wiring(ruleset, lang),
                                  *check_order(ruleset, lang)]
    for rule in ruleset.rules.values():
        if rule.id in skip:
            findings.extend(_as_far_as_it_reads(rule, ruleset, lang, refused))
            continue
        findings.extend(_checks(rule, ruleset, lang))
    return findings


def _checks(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    expression_errors = False
    for check in CHECKS:
        if check is check_kind and expression_errors:
            continue  # a kind's checks need its expressions to compile
        for finding in check(rule, ruleset, lang):
            yield finding
            expression_errors |= (check is check_expressions and finding.severity == "error"
                                  and finding.code != NOT_IN_ENUM)  # names resolve: kinds can run


def _as_far_as_it_reads(rule: Rule, ruleset: Ruleset, lang: str,
                        refused: Sequence[Diagnostic]) -> list[Diagnostic]:
    lines = [pos[1] for pos in rule.positions.values() if pos[0] == rule.file and pos[1]]
    first, last = (min(lines), max(lines)) if lines else (0, 0)
    mine = [d for d in refused if d.severity == "error" and d.file == rule.file
            and d.line is not None and first <= d.line <= last]
    if any(d.code in BOUNDS for d in mine):
        return []  # a value past a schema's bound: the checks' work is bounded by those bounds
    if not rule.kind:
        return []  # no kind yet (its base is missing, or a cycle): nothing to check it against
    fields = [_field(d.path) for d in mine]
    found: list[Diagnostic] = []
    try:
        for finding in _checks(rule, ruleset, lang):
            if finding.code == KIND_CHECK_FAILED:
                break  # the kind could not read the document the schema refused
            at = _field(finding.path)
            if not any(at == f[:len(at)] or f == at[:len(f)] for f in fields):
                found.append(finding)
    except Exception:  # a shape the schema refused; its error is reported  # noqa: BLE001
        pass
    return found


# The schema's bounds (a number's range, the size of a text, list or mapping): past one, a rule
# is not checked further, since the checks' work (a roll table's coverage, a distribution) is
# bounded by them.
BOUNDS = frozenset({RANGE, LENGTH, ITEMS, FIELDS})


def _field(path: str | None) -> tuple[str, ...]:
    return tuple(path.split(".")) if path else ()

