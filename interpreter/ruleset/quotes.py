"""What a rule document quotes and what it interprets, as ``validate`` checks it.

A rule's texts (title, text, row labels and texts, value labels) quote the source. Where the source
is silent, the document says what it decided in ``interpretations`` (``{text, params}``), shown in
the handout as 「解釈」. A parameter's default is *quoted* when its value is written in one of the
rule's own texts (a number as a number, a list element by element, ``{params.NAME}`` filled in),
or when ``quotes: {NAME: words}`` gives the source's words that state it (found in some text of the
ruleset); it is *marked* when an interpretation lists it. In the bundled ruleset a default that is
neither is a warning: a player could not tell the source from the ruleset's reading. A null or
empty default states nothing and needs neither.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rules_dsl.errors import Diagnostic, Location, define, diagnostic, did_you_mean
from rules_dsl.words import LANGS

from interpreter.ruleset.model import Rule, Ruleset
from interpreter.ruleset.texts import _mentions, render_text, text_paths

UNQUOTED = define(
    "MPR844", "parameter {name} of rule {rule} has the default {value}, which no text of the rule quotes and no interpretation marks: quote the source's words (quotes: {{{name}: ...}}) or say why in interpretations",
    "ルール {rule} のパラメータ {name} の既定値 {value} は、ルールのどの文にも引用されておらず、解釈としても示されていません。原文の語句を quotes: {{{name}: …}} に書くか、interpretations に理由を書いてください",
    severity="warning")
QUOTE_NOT_FOUND = define(
    "MPR845", "rule {rule} quotes {words!r} for parameter {name}, but no text of the ruleset has these words",
    "ルール {rule} はパラメータ {name} の引用として {words!r} を挙げていますが、ルールセットのどの文にもこの語句がありません",
    severity="warning")
NOT_SHOWN_IN = define(
    "MPR846", "rule {rule} says the opening of its text is shown in {host}, but {reason}",
    "ルール {rule} は本文の始めが {host} に載っているとしていますが、{reason_ja}",
    severity="warning")
UNKNOWN_PARAM = define(
    "MPR847", "rule {rule} names parameter {name} in {field}, but the rule has no such parameter{hint}",
    "ルール {rule} の {field} がパラメータ {name} を挙げていますが、そのようなパラメータはありません{hint}",
    severity="warning")
UNKNOWN_ORDER = define(
    "MPR848", "the handout order of ruleset {ruleset} names rule {rule}, which the ruleset does not have{hint}",
    "ルールセット {ruleset} の資料の順（order）にあるルール {rule} はルールセットにありません{hint}",
    severity="warning")


def _interpretation_path(path: tuple) -> bool:
    return bool(path) and path[0] == "interpretations"


def quoted_texts(rule: Rule, lang: str = "ja") -> list[str]:
    """The rule's texts that quote the source, placeholders filled: every text but its
    interpretations."""
    out = []
    for path in text_paths(rule):
        if _interpretation_path(path):
            continue
        text = render_text(rule, path, lang)
        if text:
            out.append(text)
    return out


def ruleset_texts(ruleset: Ruleset) -> str:
    """Every quoting text of the ruleset in Japanese, one string (kept on the ruleset object for
    the checks of its other rules)."""
    cached = getattr(ruleset, "_quoting_texts", None)
    if cached is None:
        cached = "\n".join(t for rule in ruleset.rules.values() for t in quoted_texts(rule))
        try:
            object.__setattr__(ruleset, "_quoting_texts", cached)
        except AttributeError:
            pass
    return cached


def _written(text: str, value: Any) -> bool:
    """Whether ``text`` writes ``value``: each element of a list, each value of a mapping, a
    localized entry by its Japanese."""
    if isinstance(value, list):
        return all(_written(text, v) for v in value)
    if isinstance(value, dict):
        if any(k in LANGS for k in value):
            return _written(text, value.get("ja") or value.get("en"))
        return all(_written(text, v) for v in value.values())
    if isinstance(value, str):
        return bool(value) and value in text
    return _mentions(text, value)


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def interpreted(rule: Rule) -> set[str]:
    """The parameters an interpretation of ``rule`` marks."""
    found = rule.doc.get("interpretations")
    return {p for e in found if isinstance(e, dict) for p in e.get("params") or [] if isinstance(p, str)} \
        if isinstance(found, list) else set()


def _in_bundled(rule: Rule) -> bool:
    # start-up: interpreter.documents.resources loads only when the bundled ruleset is asked about
    from interpreter.documents.resources import bundled_ruleset

    if rule.file is None:
        return False
    try:
        return Path(rule.file).resolve().parent == bundled_ruleset().resolve()
    except OSError:
        return False


def check_quotes(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Quotes are found, interpretations name the rule's parameters, a ``shown_in`` text is in its
    host; in the bundled ruleset every default is quoted or marked."""
    params = written if isinstance(written := rule.doc.get("params"), dict) else {}
    quotes = given if isinstance(given := rule.doc.get("quotes"), dict) else {}
    marked = interpreted(rule)
    for name in sorted(marked - set(params)):
        yield diagnostic(UNKNOWN_PARAM, rule.loc("interpretations"), lang, rule=rule.id, name=name,
                         field="interpretations", hint=did_you_mean(name, params))
    everything = ruleset_texts(ruleset) if quotes else ""
    for name, words in quotes.items():
        if name not in params:
            yield diagnostic(UNKNOWN_PARAM, rule.loc("quotes", name), lang, rule=rule.id, name=name,
                             field="quotes", hint=did_you_mean(name, params))
        elif isinstance(words, str) and words not in everything:
            yield diagnostic(QUOTE_NOT_FOUND, rule.loc("quotes", name), lang, rule=rule.id, name=name,
                             words=words)
    yield from _check_shown_in(rule, ruleset, lang)
    if not _in_bundled(rule):
        return
    own = "\n".join(quoted_texts(rule))
    for name, value in params.items():
        if _empty(value) or name in marked or name in quotes or _written(own, value):
            continue
        yield diagnostic(UNQUOTED, rule.loc("params", name), lang, rule=rule.id, name=name,
                         value=_shown(value))


def shared_opening(rule: Rule, ruleset: Ruleset, lang: str = "ja") -> int:
    """How many opening lines of ``rule``'s text its ``shown_in`` host prints already: the lines,
    from the first, that the host's text also has (a shared introduction of tiers, or the whole
    text when it is one sentence of the host's). 0 without a host."""
    host_id = rule.doc.get("shown_in")
    host = ruleset.rules.get(host_id) if isinstance(host_id, str) else None
    if host is None:
        return 0
    theirs = set((render_text(host, ("text",), lang) or "").splitlines())
    count = 0
    for line in (render_text(rule, ("text",), lang) or "").splitlines():
        if line not in theirs:
            break
        count += 1
    return count


def _check_shown_in(rule: Rule, ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    host_id = rule.doc.get("shown_in")
    if not isinstance(host_id, str):
        return
    if host_id not in ruleset.rules:
        yield diagnostic(NOT_SHOWN_IN, rule.loc("shown_in"), lang, rule=rule.id, host=host_id,
                         reason="the ruleset has no such rule", reason_ja="そのようなルールはありません")
    elif shared_opening(rule, ruleset) == 0:
        first = (render_text(rule, ("text",), "ja") or "").split("\n")[0]
        yield diagnostic(NOT_SHOWN_IN, rule.loc("shown_in"), lang, rule=rule.id, host=host_id,
                         reason=f"its text does not have {first!r}",
                         reason_ja=f"その本文に {first!r} がありません")


def check_order(ruleset: Ruleset, lang: str) -> Iterator[Diagnostic]:
    """Every rule the manifest's handout ``order`` names is a rule of the ruleset."""
    order = ruleset.manifest.get("order")
    for rule_id in order if isinstance(order, list) else []:
        if isinstance(rule_id, str) and rule_id not in ruleset.rules:
            manifest = str(Path(ruleset.root) / "ruleset.yaml")
            yield diagnostic(UNKNOWN_ORDER, Location(manifest, None, None, "order"), lang,
                             ruleset=ruleset.id, rule=rule_id, hint=did_you_mean(rule_id, ruleset.rules))


def _shown(value: Any) -> str:
    # start-up: rules_dsl.template loads only when a finding is written
    from rules_dsl.template import show

    return "null" if value is None else show(value, "en")
