"""Limits of the reports: how many probe inputs a comparison of rulesets runs.
Documented in docs/limits.md and tested at and past its bound."""

MAX_DIFF_PROBES = 50  # probe inputs compared per rule by mprules diff and doc
