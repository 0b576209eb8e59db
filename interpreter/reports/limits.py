"""Limits of the reports: how many probe inputs a comparison of rulesets runs, and how much of a
value a command prints. Documented in docs/limits.md and tested at and past its bound."""

MAX_DIFF_PROBES = 50  # probe inputs compared per rule by mprules diff and doc
MAX_OUTPUT_BYTES = 16_000_000  # what one command prints of a value (estimated before printing)
