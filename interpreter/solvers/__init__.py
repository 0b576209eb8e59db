"""The mechanisms kinds share, as pure functions of their inputs: no solver knows a game, every
number, field name and text comes from the rule document or the ruleset's parameters.

- The plan-checking solvers of the ``Procedure`` kind (``registry``, ``plan``, ``setup``,
  ``render`` and one module per solver): each returns the values it computed, the constraints the
  plan breaks (by id, with the amounts), and the lines of a readable report.
- The dice pool check (``dice_pool``) and its notation ``nMPmCx`` (``pool_notation``), used by the
  ``Check`` kind and by ``mprules check``.
- A deck of cards (``cards``): its state, draw, discard, shuffle and the invariant that no card is
  lost, used by the ``Deck`` and ``Circulation`` kinds and by the campaign; and the circulation of
  held cards over it (``circulation``: discard, then redraw as many), used by the ``Circulation``
  kind and by the campaign.
- The rows of a roll table (``roll_rows``) and a repeat policy for tables rolled once per member
  (``repeat_policy``), used by the ``RollTable`` and ``RollPerMember`` kinds.
"""
