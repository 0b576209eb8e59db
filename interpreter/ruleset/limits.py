"""Limits of the ruleset layer: how deep variants may stack, how much they may hold in all, how
many rulesets the cache keeps.
Documented in docs/limits.md and tested at and past its bound."""

MAX_VARIANT_LAYERS = 32  # rulesets in one extends graph
MAX_RULESET_BYTES = 8 * 1024 * 1024  # bytes of every file of one extends graph, read in all
MAX_RULESET_NODES = 500_000  # values (aliases expanded) of every file of one extends graph
MAX_RULESET_DOCUMENTS = 4_000  # YAML documents (rules) of every file of one extends graph
MAX_CACHED_RULESETS = 32  # entries the ruleset cache keeps (the oldest written are removed)
MAX_CACHED_FOLDED_ROWS = 20_000  # rows a variant's edits fold into its rules, in all, for the ruleset to be cached
MAX_CACHED_VALUES = 350_000  # values read from a ruleset's files, in all, for the ruleset to be cached
