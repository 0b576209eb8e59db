"""Limits of the expression language: each a named constant, documented in docs/limits.md and
tested at and past its bound. Bad input meets one of these, never a hang or a crash. The limits of
the layers above live with them (``interpreter/<layer>/limits.py``); docs/limits.md lists them all."""

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
MAX_ELEMENTS_HELD = 1_000_000  # elements a list made by `for` holds, its elements' own elements counted
MAX_LOOP_NESTING = 4  # `for` clauses around any part of an expression (nested comprehensions too)
MAX_LOOP_ITERATIONS = 100_000  # rounds of all `for` clauses together in one evaluation
MAX_DISTRIBUTION_SIZE = 100_000  # distinct outcomes of one exact distribution
MAX_DISTRIBUTION_WORK = 5_000_000  # outcome pairs combined while computing one distribution

MAX_PROB_WORK = 5_000_000  # outcome pairs combined in all while computing one exact distribution

# The kept code of compiled expressions (rules_dsl.codecache)
MAX_CACHED_EXPRESSIONS = 4_096  # expression texts whose code the cache file keeps (the oldest dropped)
MAX_CODE_CACHE_BYTES = 16 * 1024 * 1024  # size of that file's entries together (the oldest dropped)
