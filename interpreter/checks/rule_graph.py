"""Which rule uses which: every string a kind schema marks ``x-rule-ref`` (a rule another one
derives from or runs) is an edge. A cycle of such edges would make a run never end, so
``check_cycles`` reports each cycle at ``validate`` (located at the reference that closes it,
naming the path); at run time the runner refuses a nested run that comes back to a rule already
running (``interpreter.engine.runner``).
"""
from __future__ import annotations

from collections.abc import Iterator

from rules_dsl.errors import Diagnostic, define, diagnostic

from interpreter.checks.annotations import annotated
from interpreter.ruleset.model import Ruleset

CYCLE = define(
    "MPR430", "rules use each other in a cycle: {chain}", "ルールが循環して互いを使っています: {chain}")


def edges(ruleset: Ruleset) -> dict[str, list[tuple[str, tuple]]]:
    """rule id -> [(the rule it names, the path where it names it)], in document order."""
    graph: dict[str, list[tuple[str, tuple]]] = {}
    for rule in ruleset.rules.values():
        for path, _, _ in annotated(rule, "x-rule-ref"):
            target = rule.get(*path)
            if isinstance(target, str) and target in ruleset.rules:
                graph.setdefault(rule.id, []).append((target, path))
    return graph


def cycles(ruleset: Ruleset) -> list[list[tuple[str, tuple]]]:
    """Each elementary cycle found by a depth-first walk once: [(rule, path of its reference)]."""
    graph = edges(ruleset)
    found: list[list[tuple[str, tuple]]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[tuple[str, tuple]] = []

    def visit(root: str) -> None:  # iterative: a long chain of rules never meets Python's limit
        state[root] = 1
        pending = [(root, iter(graph.get(root, [])))]
        while pending:
            rule_id, targets = pending[-1]
            step = next(targets, None)
            if step is None:
                state[rule_id] = 2
                pending.pop()
                if stack:
                    stack.pop()
                continue
            target, path = step
            if state.get(target) == 1:
                cycle = stack[next(i for i, (r, _) in enumerate(stack) if r == target):] \
                    if any(r == target for r, _ in stack) else []
                cycle = [*cycle, (rule_id, path)]
                key = frozenset(r for r, _ in cycle)
                if key not in seen:
                    seen.add(key)
                    found.append(cycle)
            elif state.get(target) is None:
                stack.append((rule_id, path))
                state[target] = 1
                pending.append((target, iter(graph.get(target, []))))

    for rule_id in sorted(graph):
        if rule_id not in state:
            visit(rule_id)
    return found


def check_cycles(ruleset: Ruleset, lang: str = "en") -> Iterator[Diagnostic]:
    """A finding per cycle, at the reference of the cycle's first rule (by id)."""
    for cycle in cycles(ruleset):
        first = min(range(len(cycle)), key=lambda i: cycle[i][0])
        ordered = cycle[first:] + cycle[:first]
        chain = " -> ".join([r for r, _ in ordered] + [ordered[0][0]])
        rule_id, path = ordered[0]
        yield diagnostic(CYCLE, ruleset.rules[rule_id].loc(*path), lang, chain=chain)
