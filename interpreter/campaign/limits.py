"""Limits of the campaign store and its commands. Each is a named constant, documented in
docs/limits.md and tested at and past its bound."""

MAX_CAMPAIGN_FILE_BYTES = 256_000_000  # a write past it is refused (MPR689); reading has no limit
QUICK_CHECK_MAX_BYTES = 16_000_000  # files up to this size get SQLite's quick_check on every open
CAMPAIGN_BUSY_TIMEOUT_SECONDS = 5  # how long a command waits for another one writing the same campaign
MAX_ADVANCE_MINUTES = 525_600  # one clock advance or rest: at most a year (and so 365 dawns)
MAX_SLEEP_HOURS = 10_000  # --hours of one sleep
MAX_CARD_MOVES = 20_000  # holders' circulations in one command (dawns crossed x items holding cards)
MAX_KEPT_CAMPAIGNS = 64  # campaign files whose checked state the cache keeps (the least recently kept dropped)
MAX_JOURNAL_SHOWN = 1_000  # entries `campaign log` prints (the newest)
MAX_ID_LENGTH = 64  # characters of a character's or an item's id
