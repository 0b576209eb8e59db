"""Rules running each other (``engine.runner.guard``): a rule already running is refused (MPR431),
and runs nested as deep as the limit (four times the variant layers) are refused (MPR432); any
shallower nesting runs."""
from __future__ import annotations

import pytest

from rules_dsl.errors import MprError
from interpreter.engine.runner import guard, max_nested_runs
from interpreter.ruleset.limits import MAX_VARIANT_LAYERS


def _chain(n: int) -> list[str]:
    return [f"r.x{i}" for i in range(n)]


@pytest.mark.parametrize(("running", "rule_id", "code"), [
    ([], "r.a", None),
    (["r.a"], "r.b", None),
    (["r.a", "r.b"], "r.a", "MPR431"),
    (_chain(3), "r.x1", "MPR431"),
    (_chain(4), "r.a", None),
    (_chain(4 * MAX_VARIANT_LAYERS - 1), "r.a", None),
    (_chain(4 * MAX_VARIANT_LAYERS), "r.a", "MPR432"),
    (_chain(4 * MAX_VARIANT_LAYERS + 3), "r.a", "MPR432"),
])
def test_a_run_inside_others_is_refused_only_in_a_cycle_or_past_the_limit(running, rule_id, code) -> None:
    assert max_nested_runs() == 4 * MAX_VARIANT_LAYERS
    if code is None:
        guard(running, rule_id)
        return
    with pytest.raises(MprError) as raised:
        guard(running, rule_id)
    assert raised.value.code == code
