"""Limits of the ruleset layer: how deep variants may stack.
Documented in docs/limits.md and tested at and past its bound."""

MAX_VARIANT_LAYERS = 32  # rulesets in one extends graph
