"""Running a rule: the kind protocol and registry, the run's inputs, the names an expression may use, the trace, and the runner that calls a kind."""
