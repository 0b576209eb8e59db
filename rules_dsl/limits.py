"""Every size limit of mprules in one place: each a named constant, documented in docs/limits.md
and tested at and past its bound. Bad input meets one of these, never a hang or a crash."""

# Expression language
MAX_EXPRESSION_LENGTH = 4_000  # characters of one expression
MAX_AST_DEPTH = 64  # nesting of parentheses, operators and calls
MAX_AST_NODES = 2_000  # nodes of one parsed expression
MAX_DICE_PER_TERM = 100  # N of NdM
MAX_DICE_PER_EVALUATION = 1_000  # dice rolled by one evaluation
MAX_FACES = 1_000  # M of NdM
MAX_INT_BITS = 256  # size of any integer an expression produces (checked before ** and *)
MAX_EXPONENT = 64  # right operand of **
MAX_STRING_LENGTH = 10_000  # characters of a string an expression produces
MAX_LIST_LENGTH = 10_000  # elements of a list an expression produces
MAX_LOOP_NESTING = 4  # `for` clauses around any part of an expression (nested comprehensions too)
MAX_LOOP_ITERATIONS = 100_000  # rounds of all `for` clauses together in one evaluation
MAX_DISTRIBUTION_SIZE = 100_000  # distinct outcomes of one exact distribution
MAX_DISTRIBUTION_WORK = 5_000_000  # outcome pairs combined while computing one distribution

# YAML documents
MAX_RULE_FILE_BYTES = 1_000_000  # one rule file
MAX_YAML_DEPTH = 64  # nesting of mappings and sequences
MAX_YAML_ALIASES = 100  # alias uses in one file
MAX_YAML_NODES = 100_000  # nodes of one file, aliases expanded
MAX_DOCUMENTS_PER_FILE = 200
MAX_INPUT_FILE_BYTES = 1_000_000  # --input files and characters.yaml

# Campaigns
MAX_CAMPAIGN_FILE_BYTES = 256_000_000
MAX_HOLDERS = 1_000
MAX_DECK_CARDS = 10_000

# Core check and exact distributions (probability engineer)
MAX_CHECK_DICE = 100  # n of the core check nMPmCx
MAX_CHECK_NUMBER = 9_999  # m and x of the core check
MAX_PROB_WORK = 5_000_000  # outcome pairs combined in all while computing one exact distribution

# Members of a split and sessions of rolls per member
MAX_MEMBERS = 100  # members of one allocation or plan (a split of a cost, a session of rolls)
MAX_SESSION_MEMBERS = 50  # members of one exact distribution of a session of rolls (RollPerMember)
MAX_SESSION_TABLE_SPAN = 1_000  # rolls from the lowest to the highest row of a table rolled per member
MAX_SESSION_STATES = 100_000  # distinct sets of once-only results reachable in one exact session distribution

# Plan-checking solvers of the Procedure kind (interpreter/solvers)
MAX_SPLIT_CANDIDATES = 200_000  # final allocations a bounded split searches for the nearest legal plan
MAX_PLAN_ENTRIES = 1_000  # entries of one list of a checked plan

# YAML documents (interpreter.documents.loader)
MAX_YAML_INT_DIGITS = 100  # characters of one integer scalar, checked before converting it

# Campaign store and deck (campaign engineer)
CAMPAIGN_BUSY_TIMEOUT_SECONDS = 5  # how long a command waits for another one writing the same campaign
MAX_ADVANCE_MINUTES = 525_600  # one clock advance or rest: at most a year (and so 365 dawns)
MAX_SLEEP_HOURS = 10_000  # --hours of one sleep
MAX_CARD_MOVES = 20_000  # holders' circulations in one command (dawns crossed x items holding cards)
MAX_JOURNAL_SHOWN = 1_000  # entries `campaign log` prints (the newest)

# Variants, diff and handout (variants engineer)
MAX_VARIANT_LAYERS = 32  # rulesets in one extends graph
MAX_DIFF_PROBES = 50  # probe inputs compared per rule by mprules diff and doc
