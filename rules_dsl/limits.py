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
