"""Limits of the mechanisms kinds share: the dice pool check, members and sessions of rolls,
the plan-checking solvers, decks and their holders. Each is a named constant, documented in
docs/limits.md and tested at and past its bound."""

MAX_HOLDERS = 1_000
MAX_DECK_CARDS = 10_000
MAX_CHECK_DICE = 100  # n of the core check nMPmCx
MAX_CHECK_NUMBER = 9_999  # m and x of the core check
MAX_MEMBERS = 100  # members of one allocation or plan (a split of a cost, a session of rolls)
MAX_SESSION_MEMBERS = 50  # members of one exact distribution of a session of rolls (RollPerMember)
MAX_SESSION_TABLE_SPAN = 1_000  # rolls from the lowest to the highest row of a table rolled per member
MAX_SESSION_STATES = 100_000  # distinct sets of once-only results reachable in one exact session distribution
MAX_SPLIT_CANDIDATES = 200_000  # final allocations a bounded split searches for the nearest legal plan
MAX_PLAN_ENTRIES = 1_000  # entries of one list of a checked plan
