"""Turns a procedure's violations and report lines into text a player can read, with the message
templates and the labels of the rule document (Japanese or English)."""
from __future__ import annotations

from collections.abc import Mapping

from rules_dsl.words import localized

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SEPARATOR = "list_separator"  # message id of the separator between listed items
ENTRY = "entry"  # message id of one ``name value`` entry of a listed mapping
LAYOUT = frozenset({SEPARATOR, ENTRY})


def fields(template: Any) -> set[str]:
    """The argument names a ``{ja, en}`` template uses, in either language."""
    # start-up: string loads only when a template's fields are listed
    import string

    names = set()
    for text in (template.values() if isinstance(template, Mapping) else [template]):
        for _, field, _, _ in string.Formatter().parse(str(text)):
            if field:
                names.add(field.split(".")[0].split("[")[0])
    return names


class Renderer:
    """Renders message templates of one rule document in one language."""

    def __init__(self, messages: Mapping[str, Any], labels: Mapping[str, Any], lang: str) -> None:
        self.messages = messages
        self.labels = labels
        self.lang = lang
        self.separator = localized(messages.get(SEPARATOR, ", "), lang)
        self.entry = localized(messages.get(ENTRY, "{label} {value}"), lang)

    def label(self, value: Any) -> Any:
        if isinstance(value, str) and value in self.labels:
            return localized(self.labels[value], self.lang)
        return value

    def argument(self, value: Any) -> Any:
        """Names become their labels; lists and mappings become one line of text."""
        if isinstance(value, Mapping):
            return self.separator.join(self.entry.format(label=self.label(k), value=v)
                                       for k, v in value.items()) or "-"
        if isinstance(value, (list, tuple)):
            return self.separator.join(str(self.label(v)) for v in value) or "-"
        return self.label(value)

    def text(self, template: Any, args: Mapping[str, Any]) -> str:
        """``template`` filled with ``args``; raises ``KeyError`` naming an argument not given."""
        return localized(template, self.lang).format(
            **{k: self.argument(v) for k, v in args.items()})
