"""Limits of the reports: how many probe inputs a comparison of rulesets runs, how much of a value
a command prints, and how much of what diff and doc print the cache keeps. Documented in
docs/limits.md and tested at and past its bound."""

MAX_DIFF_PROBES = 50  # probe inputs compared per rule by mprules diff and doc
MAX_DIFF_OUTCOMES = 50_000  # outcomes (rows of both sides' tables) one probe's comparison goes through
MAX_OUTPUT_BYTES = 16_000_000  # what one command prints of a value (estimated before printing)
MAX_KEPT_OUTPUT_BYTES = 4_194_304  # bytes (4 MiB, UTF-8) of one output diff or doc keeps in the cache
MAX_KEPT_OUTPUTS = 128  # outputs of diff and doc the cache keeps (the oldest written removed)
