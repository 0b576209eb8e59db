"""Generic plan-checking solvers of the ``Procedure`` kind, as pure functions of a plan and a
``Setup`` (parameters and field names from the rule document): each returns the values it
computed, the constraints the plan breaks (by id, with the amounts), and the lines of a readable
report. No solver knows a game: every number, field name and text comes from the document."""
