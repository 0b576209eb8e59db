"""Runs the ``examples`` embedded in rule documents (``mprules test``): each example's input,
parameter overrides, scripted dice or seed, and the value (``expect``, the whole value or with
``match: subset`` only what it writes) or error code (``expect_error``) it must give; a failure
carries a diff of expected and actual. An example without ``lang`` whose ``expect`` is written in
Japanese is compared with the Japanese rendering."""
from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import pickle
import re
from dataclasses import dataclass
from typing import Any

from rules_dsl.dice import DiceSource, ScriptedDice, SeededDice
from rules_dsl.frozen import replace
from rules_dsl.errors import Location, MprError

from interpreter.checks.loading import apply_caller
from interpreter.documents import shared
from interpreter.engine import runner as engine
from interpreter.engine.inputs import INVALID_INPUT, check_inputs
from interpreter.ruleset.model import Rule, Ruleset
from interpreter.engine.trace import jsonable


@dataclass(frozen=True)
class Outcome:
    """The result of one example."""

    rule: str
    name: str
    file: str | None
    line: int | None
    passed: bool
    expected: Any
    actual: Any
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "name": self.name, "file": self.file, "line": self.line,
                "passed": self.passed, "expected": jsonable(self.expected),
                "actual": jsonable(self.actual), "diff": self.diff}


def _with_params(ruleset: Ruleset, rule: Rule, index: int,
                 lang: str) -> tuple[Ruleset, list[Any]]:
    """A view of ``ruleset`` where ``rule`` is adopted and has example ``index``'s ``params``
    overridden (located in the example, so an expression error there points at it), and the
    findings about unknown parameter names."""
    params = rule.doc["examples"][index].get("params") or {}
    copy = replace(ruleset, rules=ruleset.rules.copy_rules())
    # The positions are copied (and the example's params placed) only for an example with params:
    # a copy for each example of a rule with thousands of them is quadratic work.
    view = copy.rules[rule.id] = replace(
        rule, params=dict(rule.params), adopted=True, param_layers=dict(rule.param_layers),
        positions=dict(rule.positions) if params else rule.positions, _compiled=dict(rule._compiled))
    problems = apply_caller(copy, {rule.id: params}, None, lang)
    for path, position in _by_example(rule).get(index, ()):
        if path[:1] == ("params",) and path[1:2] and path[1] in params:
            view.positions[path] = position
    return copy, problems


_INDEXED: dict[int, tuple[Any, dict[int, list[tuple[tuple, Any]]]]] = {}


def _by_example(rule: Rule) -> dict[int, list[tuple[tuple, Any]]]:
    """The positions of ``rule``'s examples, by example index (``(path after the index,
    position)``), made once per rule: every example looks up its own in constant time."""
    known = _INDEXED.get(id(rule.positions))
    if known is not None and known[0] is rule.positions:
        return known[1]
    index: dict[int, list[tuple[tuple, Any]]] = {}
    for key, position in rule.positions.items():
        if key[:1] == ("examples",) and len(key) > 1 and isinstance(key[1], int):
            index.setdefault(key[1], []).append((key[2:], position))
    if len(_INDEXED) > 4096:  # a long-lived process (tests, a language server) keeps the newest
        _INDEXED.clear()
    _INDEXED[id(rule.positions)] = (rule.positions, index)
    return index


def _dice(example: dict[str, Any], rule: Rule, index: int) -> DiceSource:
    if "dice" in example:
        return ScriptedDice(example["dice"], rule.loc("examples", index, "dice"))
    if "seed" in example:
        return SeededDice(int(example["seed"]))
    dice = SeededDice(0)  # reproducible, yet not chosen by the example: rules roll as on request
    dice.explicit = False
    return dice


def _positions(rule: Rule, index: int) -> dict:
    return {path[1:]: pos for path, pos in _by_example(rule).get(index, ()) if path[:1] == ("input",)}


def _diff(expected: Any, actual: Any) -> str:
    def lines(value: Any) -> list[str]:
        return json.dumps(jsonable(value), ensure_ascii=False, indent=2, sort_keys=True).splitlines()

    return "\n".join(difflib.unified_diff(lines(expected), lines(actual), "expected", "actual",
                                          lineterm=""))


def run_example(ruleset: Ruleset, rule: Rule, index: int, lang: str = "en") -> Outcome:
    """Run example ``index`` of ``rule`` and compare its value (or error code) with the expected.

    The value is computed in the example's own ``lang`` (default ``en``), so an example holds
    whatever language the report is printed in; ``lang`` is only the report's language."""
    example = rule.doc["examples"][index]
    name = str(example.get("name") or f"#{index + 1}")
    loc = rule.loc("examples", index)
    expect_error = example.get("expect_error")
    expected: Any = {"error": expect_error} if expect_error is not None else example.get("expect")
    subset = example.get("match") == "subset"
    langs = [str(example["lang"])] if "lang" in example else (
        ["en", "ja"] if _has_japanese(expected) else ["en"])
    for lang in langs:  # a Japanese expectation is compared with the Japanese rendering too
        actual = _outcome(ruleset, rule, index, lang)
        if expect_error is not None:
            passed = isinstance(actual, dict) and actual.get("error") == expect_error
        else:
            passed = matches(jsonable(expected), actual, subset)
        if passed:
            break
    return Outcome(rule.id, name, loc.file, loc.line, passed, expected, actual,
                   "" if passed else _diff(expected, actual))


def _outcome(ruleset: Ruleset, rule: Rule, index: int, lang: str) -> Any:
    view, problems = _with_params(ruleset, rule, index, lang)
    if problems:
        return _error(problems[0].code, problems[0].message,
                      Location(problems[0].file, problems[0].line, problems[0].column,
                               problems[0].path))
    return _actual(view, rule, index, lang)


def matches(expected: Any, actual: Any, subset: bool = False) -> bool:
    """Whether ``actual`` is ``expected``; with ``subset``, whether it holds what ``expected``
    writes: the fields of a mapping it names, the first items of a list, scalars equal."""
    if not subset:
        return expected == actual
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and matches(value, actual[key], True) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) <= len(actual) and all(
            matches(e, a, True) for e, a in zip(expected, actual))
    return expected == actual and type(expected) is type(actual)


def _has_japanese(value: Any) -> bool:
    text = json.dumps(jsonable(value), ensure_ascii=False)
    return any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in text)


def _actual(view: Ruleset, rule: Rule, index: int, lang: str) -> Any:
    """The example's value as plain JSON data, or ``{"error": code, "message": ...}``."""
    example = rule.doc["examples"][index]
    try:
        dice = _dice(example, rule, index)
        result = engine.run(view, rule.id, example.get("input") or {}, dice, lang=lang,
                            input_positions=_positions(rule, index), input_file=rule.file)
    except MprError as error:
        error = _with_written_texts(error, rule, index, lang)
        return _error(error.code, error.message(lang), error.loc)
    if isinstance(dice, ScriptedDice) and dice.unused:
        return {"value": jsonable(result.value), "unused_dice": dice.unused}
    return jsonable(result.value)


def _with_written_texts(error: MprError, rule: Rule, index: int, lang: str) -> MprError:
    """An input error of example ``index`` checked again with the text written for each value,
    so that a YAML 1.1 trap (``no``, ``1:30``, ``010``) says "write it in quotes"."""
    if error.code != INVALID_INPUT or not rule.file:
        return error
    try:
        documents = shared.read(rule.file, copy_data=False)  # read once, not per example
    except MprError:
        return error
    prefix = ("examples", index, "input")
    texts = {path[len(prefix):]: text for doc in documents
             if isinstance(doc.data, dict) and doc.data.get("id") == rule.id
             for path, text in doc.texts.items() if path[:len(prefix)] == prefix}
    try:
        check_inputs(rule, rule.doc["examples"][index].get("input") or {}, _positions(rule, index),
                     rule.file, lang, texts)
    except MprError as better:
        return better
    return error


def _error(code: str, message: str, where: Location | None) -> dict[str, Any]:
    """An example's error as data: its code, message and, when known, where it is."""
    at = str(where) if where is not None else ""
    return {"error": code, "message": message, **({"at": at} if at else {})}


_RAN: dict[tuple, Outcome] = shared.memo()  # (lang, rule, index, what it reads) -> its outcome
MAX_RAN = 65536
_WORD = re.compile(r"[A-Za-z_][\w.\-]*")


def run_examples(ruleset: Ruleset, lang: str = "en", files: set[str] | None = None) -> list[Outcome]:
    """Every example of every rule (of ``files`` only, when given), in file order.

    Within a process (``shared.enabled()``), an example already run for another ruleset (a base
    that this variant extends) is run again only when something it can read differs: its rule's
    merged document, parameters, adoption, layers and positions, those of every rule whose id any
    text of these names (transitively), the ruleset-wide parameters, campaign wiring and
    replaced ids. An outcome that is an error (its message may name the ruleset) is never shared."""
    outcomes = []
    reads = _Reads(ruleset) if shared.enabled() else None
    for rule in ruleset.rules.values():
        if files is not None and rule.file not in files:
            continue
        for index in range(len(rule.doc.get("examples") or [])):
            key = (lang, rule.id, index, reads.of(rule.id)) if reads is not None else None
            outcome = _RAN.get(key) if key is not None else None
            if outcome is None:
                outcome = run_example(ruleset, rule, index, lang)
                if key is not None and not _is_error(outcome.actual):
                    if len(_RAN) >= MAX_RAN:
                        _RAN.clear()
                    _RAN[key] = outcome
            outcomes.append(outcome)
    return sorted(outcomes, key=lambda o: (o.file or "", o.line or 0))


def _is_error(actual: Any) -> bool:
    return isinstance(actual, dict) and "error" in actual


class _Reads:
    """A digest of what the examples of a rule can read in ``ruleset`` (conservative: a rule is
    in when any text of a rule already in names its id, or the id of a rule it replaced)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        rules = ruleset.rules
        self.ids: dict[str, str] = {rule_id: rule_id for rule_id in rules}
        self.ids.update({old: new for old, new in rules.aliases.items() if new in rules})
        self.whole = _digest((ruleset.parameters, ruleset.campaign, ruleset.parameter_schema,
                              ruleset.parameter_positions, ruleset.parameter_texts,
                              sorted(rules.aliases.items())))
        self.own: dict[str, bytes] = {}
        self.named: dict[str, set[str]] = {}
        self.done: dict[str, bytes] = {}

    def _own(self, rule_id: str) -> bytes:
        if rule_id not in self.own:
            rule = self.ruleset.rules[rule_id]
            self.own[rule_id] = _digest((
                rule.id, rule.kind, rule.doc, rule.params, rule.adopted, rule.param_layers,
                rule.row_layers, rule.layer, rule.file, rule.positions, rule.texts, rule.replaced,
                rule.example_layers))
        return self.own[rule_id]

    def _names(self, rule_id: str) -> set[str]:
        if rule_id not in self.named:
            rule = self.ruleset.rules[rule_id]
            found: set[str] = set()
            ids = self.ids
            for text in set(_texts((rule.doc, rule.params))):
                for name in _names_in(text):
                    target = ids.get(name)
                    if target is not None:
                        found.add(target)
            self.named[rule_id] = found
        return self.named[rule_id]

    def of(self, rule_id: str) -> bytes:
        if rule_id not in self.done:
            reached, todo = {rule_id}, [rule_id]
            while todo:
                for other in self._names(todo.pop()) - reached:
                    reached.add(other)
                    todo.append(other)
            digest = hashlib.blake2b(self.whole, digest_size=20)
            for other in sorted(reached):
                digest.update(other.encode() + b"\0" + self._own(other))
            self.done[rule_id] = digest.digest()
        return self.done[rule_id]


@functools.lru_cache(maxsize=65536)
def _names_in(text: str) -> tuple[str, ...]:
    """Every word of ``text`` and each of its dotted beginnings (``a.b.c``: a, a.b, a.b.c)."""
    names: set[str] = set()
    for token in _WORD.findall(text):
        parts = token.split(".")
        names.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return tuple(names)


def _digest(value: Any) -> bytes:
    """A digest of plain data; for anything that cannot be written out (a kind from outside
    keeping its own objects) one that matches nothing, so the example runs again."""
    try:
        written = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - whatever it is, the example simply runs again
        return os.urandom(20)
    return hashlib.blake2b(written, digest_size=20).digest()


def _texts(value: Any) -> Any:
    """Every text in plain data, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
