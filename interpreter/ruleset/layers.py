"""Names of layers that are not directories of a ruleset.

``CALLER_LAYER`` is the layer of the values a caller gives when it loads a ruleset (its parameter
overrides): where such a value "is written" in findings and traces. A caller may name it otherwise
(the command line names it by the flag that gave the values), so that they point at where the
caller took them from."""
from __future__ import annotations

CALLER_LAYER = "caller"
