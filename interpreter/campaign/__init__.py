"""Campaign state between commands: the SQLite store, the characters file, the ruleset pin, the
clock, and the commands of `mprules campaign`."""
