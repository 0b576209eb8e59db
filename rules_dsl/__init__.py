"""rules_dsl: the expression language of mprules rule documents.

Text -> checked AST (with spans) -> compiled closure, or -> exact probability distribution.
"""
