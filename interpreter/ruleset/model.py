"""The loaded ruleset as the engine sees it: rules by id, each with its document, effective
parameters (and the layer each came from), adoption, and where every value stands in its file."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rules_dsl.errors import Location, MprError, define, did_you_mean

from interpreter.ruleset.texts import render_text

if TYPE_CHECKING:
    from rules_dsl.expression import Expression

UNKNOWN_RULE = define(
    "MPR401", "no rule {rule!r} in ruleset {ruleset}{hint}",
    "ルールセット {ruleset} にルール {rule!r} はありません{hint}")

Path_ = tuple[str | int, ...]
Positions = dict[Path_, tuple[str | None, int | None, int | None]]  # a path -> (file, line, column)


@dataclass
class Rule:
    """One rule document after loading and layering.

    ``doc`` is the plain data of the document (after variant overrides); ``params`` the effective
    parameters; ``param_layers`` names the ruleset layer that set each parameter, ``row_layers``
    the layer of each row (by id, or ``#N``);
    ``positions`` maps a path inside ``doc`` to (file, line, column).
    """

    id: str
    kind: str
    doc: dict[str, Any]
    params: dict[str, Any] = field(default_factory=dict)
    param_layers: dict[str, str] = field(default_factory=dict)
    row_layers: dict[str, str] = field(default_factory=dict)  # row id (or "#N") -> its layer
    adopted: bool = True
    layer: str = ""
    file: str | None = None
    positions: Positions = field(default_factory=dict)
    texts: dict[Path_, str] = field(default_factory=dict)  # written text of YAML-read scalars
    _compiled: dict[Path_, Any] = field(default_factory=dict, repr=False)  # expressions, templates

    @property
    def source(self) -> str | None:
        return self.doc.get("source")

    def title(self, lang: str = "ja") -> str:
        """The title in ``lang``, its ``{params.NAME}`` placeholders filled with the effective values."""
        return render_text(self, ("title",), lang) or self.id

    def loc(self, *path: str | int) -> Location:
        """The file position of ``doc[path]``, or of its nearest located parent."""
        probe: Path_ = tuple(path)
        while True:
            pos = self.positions.get(probe)
            if pos is not None:
                return Location(pos[0], pos[1], pos[2], ".".join(map(str, path)) or None)
            if not probe:
                return Location(self.file, None, None, ".".join(map(str, path)) or None)
            probe = probe[:-1]

    def get(self, *path: str | int, default: Any = None) -> Any:
        node: Any = self.doc
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return default
        return node

    def expression(self, *path: str | int, names: Iterable[str] | None = None) -> Expression:
        """The compiled expression written at ``doc[path]`` (cached; errors located in the file)."""
        # start-up: rules_dsl loads only when expression() runs
        from rules_dsl import compile_expression

        key = tuple(path)
        compiled: Expression | None = self._compiled.get(key)
        if compiled is None:
            text = self.get(*path)
            compiled = compile_expression(str(text), origin=self.loc(*path), names=names)
            self._compiled[key] = compiled
        return compiled


@dataclass
class Ruleset:
    """Rules by id plus the manifest data of every layer (base first, the variant last)."""

    id: str
    root: str
    manifest: dict[str, Any]
    rules: dict[str, Rule] = field(default_factory=dict)
    layers: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)  # ruleset-wide parameters
    parameter_schema: dict[str, Any] = field(default_factory=dict)  # group -> its JSON Schema
    parameter_positions: dict[Path_, Any] = field(default_factory=dict)  # ("parameters", ...) -> pos
    parameter_texts: dict[Path_, str] = field(default_factory=dict)
    campaign: dict[str, Any] = field(default_factory=dict)  # the manifest's campaign wiring
    campaign_at: dict[str, Location] = field(default_factory=dict)  # where each wiring key is written
    content_hash: str = ""
    files: list[str] = field(default_factory=list)  # every file it was built from (absolute)
    listings: dict[str, list[str]] = field(default_factory=dict)  # layer directory -> its globs

    def rule(self, rule_id: str) -> Rule:
        try:
            return self.rules[rule_id]
        except KeyError:
            raise unknown_rule(self, rule_id) from None


def unknown_rule(ruleset: Ruleset, rule_id: str) -> MprError:
    return MprError(UNKNOWN_RULE, Location(path=rule_id), rule=rule_id, ruleset=ruleset.id,
                    hint=did_you_mean(rule_id, ruleset.rules))
