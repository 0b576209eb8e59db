"""Limits of the documents layer: rule files, YAML and the data files a command reads.
Each is a named constant, documented in docs/limits.md and tested at and past its bound."""

MAX_RULE_FILE_BYTES = 4_000_000  # one rule file
MAX_YAML_DEPTH = 64  # nesting of mappings and sequences
MAX_YAML_ALIASES = 100  # alias uses in one file
MAX_YAML_NODES = 1_000_000  # nodes of one file, aliases expanded
MAX_YAML_ALIAS_NODES = 100_000  # nodes the aliases of one file copy, in all
MAX_DOCUMENTS_PER_FILE = 200
MAX_INPUT_FILE_BYTES = 1_000_000  # --input files and characters.yaml
MAX_YAML_INT_DIGITS = 100  # characters of one integer scalar, checked before converting it
MAX_KEPT_TEXTS = 256  # data texts the cache folder texts/ keeps (kept_yaml; the oldest removed)
MAX_KEPT_TEXT_BYTES = 256 * 1024  # a data text larger than this is read by PyYAML every time
MAX_SHARED_COST = 1_000_000  # values (Document.cost) of the parses shared.py keeps for later readers
