"""Checks of a ruleset beyond its schemas (names, references, expressions, rule cycles, parameters), loading a checked ruleset, its embedded examples, and what validate checks for a list of paths."""
