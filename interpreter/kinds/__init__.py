"""The rule kinds: one module per kind, each exporting ``KIND = Kind(...)``
(``interpreter.engine.registry``), with its document shape in ``schemas/kinds/<module>.json``.
Modules whose names start with ``_`` hold mechanisms several kinds share; a kind never imports
another kind."""
