"""The loaded ruleset as the engine sees it: rules by id, each with its document, effective
parameters (and the layer each came from), adoption, and where every value stands in its file."""
from __future__ import annotations

from rules_dsl.frozen import Record, field  # a dataclass without importing dataclasses (start-up)
from collections.abc import Iterable

from rules_dsl.errors import Location, MprError, define, did_you_mean

from interpreter.ruleset.texts import render_text

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from rules_dsl.expression import Expression

UNKNOWN_RULE = define(
    "MPR401", "no rule {rule!r} in ruleset {ruleset}{hint}",
    "ルールセット {ruleset} にルール {rule!r} はありません{hint}")

Path_ = tuple[str | int, ...]
Positions = dict[Path_, tuple[str | None, int | None, int | None]]  # a path -> (file, line, column)


class Rule(Record):
    """One rule document after loading and layering.

    ``doc`` is the plain data of the document (after variant overrides); ``params`` the effective
    parameters; ``param_layers`` names the ruleset layer that set each parameter, ``row_layers``
    the layer of each row (by id, or ``#N``);
    ``positions`` maps a path inside ``doc`` to (file, line, column).

    Provenance: every value of ``doc`` keeps the position of the layer that wrote it (a document,
    a ``based_on`` base, an override in a manifest): ``written_by(*path)`` gives the layer, file
    and line of the nearest written value at ``path`` (``file_layers`` names the layer of each
    file), ``provenance()`` that of every field; ``replaced`` names the ids this rule answers to
    in place of rules it replaced, with the layer that replaced each; ``example_layers`` the
    layer of each example.
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
    replaced: dict[str, str] = field(default_factory=dict)  # an id it replaced -> the replacing layer
    example_layers: list[str] = field(default_factory=list)  # the layer of each example
    file_layers: dict[str, str] = field(default_factory=dict)  # a file -> its layer (shared)
    _compiled: dict[Path_, Any] = field(default_factory=dict, repr=False, compare=False)  # expressions, templates (a cache)

    @classmethod
    def from_fields(cls, values: tuple[Any, ...]) -> Rule:
        """The rule whose fields have ``values``, in the order of ``_fields`` (as the ruleset cache
        keeps it)."""
        rule = cls.__new__(cls)
        rule.__dict__.update(zip(cls._fields, values))
        return rule

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

    def written_by(self, *path: str | int) -> tuple[str, Location]:
        """The layer that wrote ``doc[path]`` (or its nearest located parent) and where."""
        loc = self.loc(*path)
        return self.file_layers.get(str(loc.file), str(loc.file) if loc.file else self.layer), loc

    def provenance(self) -> dict[Path_, tuple[str, Location]]:
        """Every field of the document (top-level key, and each item of a list keyed by id or
        name as ``(field, KEY)``) -> the layer and location that wrote it."""
        out: dict[Path_, tuple[str, Location]] = {}
        for name, value in self.doc.items():
            out[(name,)] = self.written_by(name)
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, dict) and (item.get("id") or item.get("name")) is not None:
                        out[(name, str(item.get("id") or item.get("name")))] = self.written_by(name, index)
        return out

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
        key = tuple(path)
        compiled: Expression | None = self._compiled.get(key)
        if compiled is None:
            # start-up: rules_dsl loads only when an expression is first compiled (an import
            # statement run on every call costs more than the lookup above)
            from rules_dsl import compile_expression

            text = self.get(*path)
            compiled = compile_expression(str(text), origin=self.loc(*path), names=names)
            self._compiled[key] = compiled
        return compiled


class Rules(dict):
    """Rules by id; an id a variant replaced under a new id (``aliases``: old -> new) still finds
    the rule that replaced it (``rules[old]``, ``old in rules``, ``rules.get(old)``), while
    iterating gives each rule once, by its own id."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases: dict[str, str] = {}

    def __missing__(self, key: str) -> Rule:
        new = self.aliases.get(key)
        if new is None or not dict.__contains__(self, new):
            raise KeyError(key)
        return dict.__getitem__(self, new)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or (
            isinstance(key, str) and dict.__contains__(self, self.aliases.get(key, "")))

    def copy_rules(self) -> Rules:
        """A shallow copy, with its aliases."""
        out = Rules(self)
        out.aliases = dict(self.aliases)
        return out

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except (KeyError, TypeError):
            return default


class Ruleset(Record):
    """Rules by id plus the manifest data of every layer (base first, the variant last).

    ``rules`` also answers to the ids of rules replaced under a new id (``rules.aliases``);
    ``bases`` holds the abstract documents others are ``based_on`` (not runnable rules); each
    rule's provenance (which layer, file and line wrote each field) is on the rule
    (``Rule.written_by``, ``Rule.provenance``), ``file_layers`` names the layer of every file."""

    id: str
    root: str
    manifest: dict[str, Any]
    rules: Rules = field(default_factory=Rules)
    bases: dict[str, Rule] = field(default_factory=dict)  # abstract documents (abstract: true), by id
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
    file_layers: dict[str, str] = field(default_factory=dict)  # a file as positions name it -> its layer
    values_read: int = 0  # values its files held (aliases expanded), as reading counted them

    def rule(self, rule_id: str) -> Rule:
        pending = self.__dict__.get("_pending")
        if pending is not None and "rules" not in self.__dict__:  # one rule, unpickled alone
            found = pending.rule(rule_id)
            if found is not None:
                return found
        try:
            return self.rules[rule_id]
        except KeyError:
            raise unknown_rule(self, rule_id) from None

    def kept_rules(self, blobs: Mapping[str, bytes | None], aliases: dict[str, str], marshalled: bool = False,
                   rebuild: Callable[[], Ruleset] | None = None) -> Ruleset:
        """A shallow copy of this ruleset whose rules are ``blobs`` (each rule kept alone, by its
        id: pickled, or the values of its fields in marshal's format) and ``aliases``: ``rule(id)``
        makes that rule alone, and ``rules`` (all of them) is made on first use, so either way the
        rules are the same. A blob found damaged when it is read (None) is not used: the rules are
        then those of ``rebuild()``, the ruleset made again from its files."""
        shell = type(self).__new__(type(self))
        shell.__dict__.update(self.__dict__)
        shell.__dict__.pop("rules", None)
        shell.__dict__["_pending"] = PendingRules(blobs, aliases, marshalled, rebuild)
        return shell

    def __getattr__(self, name: str) -> Any:
        """``rules`` of a ruleset read back from the cache, unpickled on first use."""
        pending = self.__dict__.get("_pending")
        if name != "rules" or pending is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        rules = self.__dict__["rules"] = pending.all()
        del self.__dict__["_pending"]
        return rules


class PendingRules:
    """The rules of a ruleset read back from the cache, each still pickled (``Ruleset.kept_rules``):
    unpickled one by one as they are asked for, each once."""

    def __init__(self, blobs: Mapping[str, bytes | None], aliases: dict[str, str], marshalled: bool = False,
                 rebuild: Callable[[], Ruleset] | None = None) -> None:
        self.blobs, self.aliases, self.marshalled, self.rebuild = blobs, aliases, marshalled, rebuild
        self.made: dict[str, Rule] = {}

    def rule(self, rule_id: str) -> Rule | None:
        """The rule ``rule_id`` (or the one that replaced it), or None when there is none."""
        key = rule_id if rule_id in self.blobs else self.aliases.get(rule_id)
        if key is None or key not in self.blobs:
            return None
        found = self.made.get(key)
        if found is None:
            blob = self.blobs[key]
            if blob is None:  # damaged: every rule as the ruleset's files give it
                if self.rebuild is None:
                    raise KeyError(key)
                fresh = self.rebuild().rules
                self.made.update((rule_id, fresh[rule_id]) for rule_id in self.blobs if rule_id in fresh)
                return self.made.get(key)
            if self.marshalled:
                import marshal  # start-up: built in

                found = self.made[key] = Rule.from_fields(marshal.loads(blob))
            else:
                # start-up: pickle is loaded already (the ruleset itself was unpickled)
                import pickle

                found = self.made[key] = pickle.loads(blob)
        return found

    def all(self) -> Rules:
        """Every rule, by id, with the aliases (the ones already asked for as they were made)."""
        rules = Rules()
        for rule_id in self.blobs:
            rules[rule_id] = self.rule(rule_id)
        rules.aliases = dict(self.aliases)
        return rules


def unknown_rule(ruleset: Ruleset, rule_id: str) -> MprError:
    return MprError(UNKNOWN_RULE, Location(path=rule_id), rule=rule_id, ruleset=ruleset.id,
                    hint=did_you_mean(rule_id, ruleset.rules))
