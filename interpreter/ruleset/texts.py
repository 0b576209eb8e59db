"""The texts of a rule (title, text, labels, a table row's text) as templates that follow the
parameters: ``{params.allowance}`` is filled with the effective value (a variant's, the command
line's), lists joined the Japanese way. ``render_text`` is what traces and handouts show;
``stale_texts`` finds a text that still names a value a variant changed (a quoted source text
saying 合計で6回まで when the allowance is now 8); ``check_texts`` reports both at ``validate``.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from rules_dsl.frozen import Record  # a dataclass without importing dataclasses (start-up)

from rules_dsl.errors import Diagnostic, MprError, define, diagnostic
from rules_dsl.template import compile_template, has_placeholders, show
from rules_dsl.words import LANGS

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:  # types only: the model renders its titles with this module
    from typing import Any

    from interpreter.ruleset.model import Rule, Ruleset


TEXT_FIELDS = frozenset({"title", "text", "label", "value_label"})
NOT_TEXTS = frozenset({"examples", "probes", "inputs", "param_schema", "param_docs", "params"})

TEXT_NAME = define(
    "MPR427", "a text of rule {rule} reads {name!r}: a text may only show parameters ({{params.NAME}})",
    "ルール {rule} の文が {name!r} を読んでいます。文に埋め込めるのはパラメータ（{{params.名前}}）だけです")
STALE = define(
    "MPR428", "this text of rule {rule} names {old} but layer {layer} changed parameter {name} to {new}: write {{params.{name}}} in the text so it follows the value",
    "ルール {rule} のこの文は {old} と書いていますが、{layer} がパラメータ {name} を {new} に変えています。値に合わせるには文に {{params.{name}}} と書いてください",
    severity="warning")


class StaleText(Record, frozen=True):
    """A text (``path`` into the document, ``lang``) that names ``old``, a value of parameter
    ``name`` that layer ``layer`` changed to ``new``."""

    path: tuple
    lang: str
    name: str
    old: Any
    new: Any
    layer: str


def text_paths(rule: Rule) -> list[tuple]:
    """The paths of every text of the document: title, text and labels, anywhere but examples,
    probes, inputs and parameters."""
    found: list[tuple] = []

    def walk(node: Any, path: tuple) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not path and key in NOT_TEXTS:
                    continue
                if key in TEXT_FIELDS and _is_text(value):
                    found.append((*path, key))
                elif isinstance(value, (dict, list)):  # a text is never below anything else
                    walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if type(value) is dict and TEXT_FIELDS.isdisjoint(value) \
                        and _SCALARS.issuperset(map(type, value.values())):
                    continue  # a row of numbers and expressions: no text in it
                if isinstance(value, (dict, list)):
                    walk(value, (*path, index))

    walk(rule.doc, ())
    return found


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _is_text(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, dict) and bool(value)
                                      and all(k in LANGS and isinstance(v, str)
                                              for k, v in value.items()))


def _written(rule: Rule, path: tuple, lang: str | None) -> tuple[str | None, tuple]:
    """The text at ``path`` in ``lang`` (falling back to the other language) and its exact path."""
    value = rule.get(*path)
    if isinstance(value, str):
        return value, path
    if not isinstance(value, dict):
        return None, path
    for choice in (lang, *LANGS):
        if choice and isinstance(value.get(choice), str):
            return value[choice], (*path, choice)
    return None, path


def render_text(rule: Rule, path: tuple, lang: str = "ja") -> str | None:
    """The text at ``path`` in ``lang`` with its placeholders filled from the effective
    parameters; a text that cannot be filled is shown as written (``validate`` reports it)."""
    text, where = _written(rule, path, lang)
    if text is None or not has_placeholders(text):
        return text
    try:
        return compile_template(text, rule.loc(*where)).render({"params": rule.params}, lang)
    except MprError:
        return text


def render_localized(rule: Rule, value: Any) -> Any:
    """A ``{ja, en}`` text (or a plain one) of ``rule`` with its placeholders filled."""
    if isinstance(value, str):
        return _fill(rule, value, "ja")
    if isinstance(value, dict):
        return {lang: _fill(rule, text, lang) if isinstance(text, str) else text
                for lang, text in value.items()}
    return value


def fill_text(rule: Rule, text: str, lang: str = "ja") -> str:
    """A plain text with ``rule``'s parameters filled in (as written when it cannot be filled)."""
    return _fill(rule, text, lang)


def _fill(rule: Rule, text: str, lang: str) -> str:
    if not has_placeholders(text):
        return text
    try:
        return compile_template(text).render({"params": rule.params}, lang)
    except MprError:
        return text


def render_value(rule: Rule, value: Any, lang: str = "ja") -> Any:
    """A rule's result with the texts inside it filled: every ``text``, ``label``, ``title`` or
    ``value_label`` (a ``{ja, en}`` text or a plain one) that has placeholders, at any depth (a
    row's ``value.text``); the value itself when there is nothing to fill."""
    if isinstance(value, list):
        out = [render_value(rule, v, lang) for v in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if not isinstance(value, dict):
        return value
    changed: dict[Any, Any] = {}
    for key, item in value.items():
        if key in TEXT_FIELDS and isinstance(item, str):
            new = _fill(rule, item, lang)
        elif key in TEXT_FIELDS and _is_text(item):
            new = render_localized(rule, item)
        else:
            new = render_value(rule, item, lang)
        if new is not item and new != item:
            changed[key] = new
    return {**value, **changed} if changed else value


def render_steps(rule: Rule, steps: list[Any]) -> None:
    """Fill the placeholders of the texts a rule's trace steps show (not those of nested rules)."""
    for step in steps:
        if "text" in step.detail:
            step.detail["text"] = render_localized(rule, step.detail["text"])
        if step.kind != "rule" and isinstance(getattr(step, "value", None), (dict, list)):
            step.value = render_value(rule, step.value)
        if step.kind != "rule":
            render_steps(rule, step.children)


# --- what validate says ------------------------------------------------------------------------

def _mentions(text: str, value: Any) -> bool:
    """Whether ``text`` names ``value``: a number standing alone (half- or full-width digits), or
    a text as written."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        digits = str(value)
        wide = digits.translate(str.maketrans("0123456789.-", "０１２３４５６７８９．－"))
        return any(re.search(rf"(?<![0-9０-９.．]){re.escape(d)}(?![0-9０-９])", text)
                   for d in {digits, wide})
    if isinstance(value, str):
        return len(value) >= 2 and value in text
    return False


def named_values(old: Any, new: Any, text: str) -> list[Any]:
    """The old values a text names that the new value no longer holds; for lists, an element
    removed, or (when the text lists at least two elements) an element added and not named."""
    if isinstance(old, list) and isinstance(new, list):
        gone = [v for v in old if v not in new and _mentions(text, v)]
        named = [v for v in old if v in new and _mentions(text, v)]
        added = [v for v in new if v not in old and not _mentions(text, v)]
        return gone or (added and len(named) >= 2 and [old]) or []
    if old != new and _mentions(text, old) and not _mentions(text, new):
        return [old]
    return []


def stale_texts(rule: Rule) -> list[StaleText]:
    """Every text of ``rule`` that names a value a later layer (or the caller) changed and does
    not interpolate that parameter: what a handout marks as no longer true."""
    own = written_params if isinstance(written_params := rule.doc.get("params"), dict) else {}
    changed = {name: (own[name], value) for name, value in rule.params.items()
               if name in own and own[name] != value}
    found: list[StaleText] = []
    if not changed:
        return found
    for path in text_paths(rule):
        value = rule.get(*path)
        texts = value.items() if isinstance(value, dict) else [(None, value)]
        for lang, text in texts:
            for name, (old, new) in changed.items():
                if f"params.{name}" in text or not named_values(old, new, text):
                    continue
                found.append(StaleText(path if lang is None else (*path, lang), lang or "ja",
                                       name, old, new, rule.param_layers.get(name, rule.layer)))
    return found


def check_texts(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every text's placeholders compile and read only ``params``; a text a variant made
    untrue is a warning."""
    for path in text_paths(rule):
        value = rule.get(*path)
        texts = value.items() if isinstance(value, dict) else [(None, value)]
        for text_lang, text in texts:
            where = path if text_lang is None else (*path, text_lang)
            if not has_placeholders(text):
                continue
            try:
                template = compile_template(text, rule.loc(*where))
            except MprError as error:
                yield error.diagnostic(lang)
                continue
            for name in sorted(template.names - {"params"}):
                yield diagnostic(TEXT_NAME, rule.loc(*where), lang, rule=rule.id, name=name)
            if template.names <= {"params"}:
                try:
                    template.render({"params": rule.params}, text_lang or "ja")
                except MprError as error:
                    yield error.at(rule.loc(*where)).diagnostic(lang)
    for stale in stale_texts(rule):
        yield diagnostic(STALE, rule.loc(*stale.path), lang, rule=rule.id, old=_as_written(stale.old, lang),
                         layer=stale.layer, name=stale.name, new=_as_written(stale.new, lang))


def _as_written(value: Any, lang: str) -> str:
    """A parameter's value in a message, ``null`` as the GM writes it (a text shows nothing)."""
    return "null" if value is None else show(value, lang)
