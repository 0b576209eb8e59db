"""Running another rule of the ruleset from inside a rule, to use its value: the inputs are
checked against that rule's own ``inputs`` schema first, and the run is traced as a nested step."""
from __future__ import annotations

from collections.abc import Mapping

from interpreter.engine.runner import Context

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def run_rule(ctx: Context, rule_id: str, inputs: Mapping[str, Any]) -> Any:
    """The value of rule ``rule_id`` run on ``inputs`` (an input error names that rule)."""
    # start-up: interpreter.engine.inputs loads only when run_rule() runs
    from interpreter.engine.inputs import check_inputs

    check_inputs(ctx.ruleset.rule(rule_id), inputs, lang=ctx.lang)
    return ctx.run(rule_id, inputs)
