"""The rebuild procedures (R17-R20) as pure checks of a plan: each returns the values it computed,
the constraints the plan breaks (by id, with the amounts), and the lines of a readable report."""
