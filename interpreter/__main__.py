import sys

from interpreter.cli import entry

sys.exit(entry())
