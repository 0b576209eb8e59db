"""The keywords of the JSON Schemas a rule document writes (``inputs``, each ``param_schema``):
a key JSON Schema does not know checks nothing, so ``requried: [n]`` or ``propertes:`` would let
every input through without a word. ``check_schema_words`` warns at each such key, with the
keyword that was meant. Keys starting ``x-`` (mprules' own and a GM's annotations) and the
editors' ``markdownDescription`` are known; so are draft-07 names that draft 2020-12 still reads
as annotations (``definitions``, ``dependencies``).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules_dsl.errors import Diagnostic, define, diagnostic, did_you_mean

from interpreter.documents.sure_meta import KEYWORDS as DRAFT_KEYWORDS
from interpreter.documents.sure_meta import SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP
from interpreter.ruleset.model import Rule
from interpreter.ruleset.variant_edits import key_loc_of

UNKNOWN_KEYWORD = define(
    "MPR060", "{keyword!r} in the {where} of rule {rule} is not a JSON Schema keyword, so it checks "
    "nothing{hint}",
    "ルール {rule} の {where} にある {keyword!r} は JSON Schema のキーワードではないので、何も検査しません{hint}",
    severity="warning")

# The draft's keywords (``documents.sure_meta``), and the editors' description of their own.
KEYWORDS = DRAFT_KEYWORDS | {"markdownDescription"}
# The document fields that hold a schema: the field, and whether it maps names to schemas.
FIELDS = (("inputs", False), ("param_schema", True))
MAX_DEPTH = 64  # deeper than any schema a GM writes; the documents' own depth limit is lower


def check_schema_words(rule: Rule, lang: str) -> Iterator[Diagnostic]:
    """A warning at every key of the rule's ``inputs`` and ``param_schema`` schemas that JSON
    Schema does not know."""
    for field, named in FIELDS:
        value = rule.doc.get(field)
        if not isinstance(value, dict):
            continue
        schemas = value.items() if named else [(None, value)]
        for name, schema in schemas:
            path = (field,) if name is None else (field, name)
            for at, keyword in _unknown(schema, path, 0):
                yield diagnostic(UNKNOWN_KEYWORD, key_loc_of(rule.positions, at, rule.file), lang,
                                 keyword=keyword, where=field, rule=rule.id,
                                 hint=did_you_mean(keyword, KEYWORDS))


def _unknown(schema: Any, path: tuple, depth: int) -> Iterator[tuple[tuple, str]]:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return
    for key, value in schema.items():
        at = (*path, key)
        if not isinstance(key, str) or key.startswith("x-"):
            continue
        if key not in KEYWORDS:
            yield at, key
        elif key in SUBSCHEMA:
            yield from _unknown(value, at, depth + 1)
        elif key in SUBSCHEMA_LIST and isinstance(value, list):
            for index, item in enumerate(value):
                yield from _unknown(item, (*at, index), depth + 1)
        elif key in SUBSCHEMA_MAP and isinstance(value, dict):
            for name, item in value.items():
                yield from _unknown(item, (*at, name), depth + 1)
