"""interpreter: rule documents -> validated ruleset -> execution, the campaign store, the CLI."""

__version__ = "0.1.0"
