"""Limits of the ruleset layer: how deep variants may stack, how many rulesets the cache keeps.
Documented in docs/limits.md and tested at and past its bound."""

MAX_VARIANT_LAYERS = 32  # rulesets in one extends graph
MAX_CACHED_RULESETS = 32  # entries the ruleset cache keeps (the oldest written are removed)
