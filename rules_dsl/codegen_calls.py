"""The generated code of function calls and comprehensions (part of ``rules_dsl.codegen``).

Functions on whole numbers (``min``, ``max``, ``clamp``, ``abs``, ``floor``, ...) become inline
Python; ``for`` clauses become Python loops whose rounds are counted once per list, not per round;
``sum``, ``count``, ``any`` and ``all`` of a generator accumulate as they go instead of making a list
(``any``/``all`` stop at the first element that decides, as the closures do).
"""
from __future__ import annotations

from . import ast
from .limits import MAX_ELEMENTS_HELD, MAX_INT_BITS, MAX_LIST_LENGTH, MAX_LOOP_ITERATIONS
from .generated import BINARY_NAME

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable

    from .codegen import Generator

GUARD_BITS = 30  # a speculated whole number is within +-(2**30 - 1): one CPython digit
GUARD = 2 ** GUARD_BITS - 1
_ROUND_BITS = MAX_LOOP_ITERATIONS.bit_length()  # a count of rounds has at most this many bits
_LONGEST = 2 ** _ROUND_BITS - 1  # a list summed inline is at most this long


def _is_int_literal(code: str) -> bool:
    return code.lstrip("-").isdigit()


def loops(g: Generator, node: ast.Comprehension, d: int,
          element: Callable[[str, int], None]) -> None:
    """Emit the ``for``/``if`` clauses of ``node``, then ``element(code, depth)`` innermost."""
    depth, bound, facts = d, [], g.facts()
    for clause in node.clauses:
        if isinstance(clause, ast.ForClause):
            values = g.value(clause.iterable, depth)
            g.emit(depth, f"if type({values}) is not list: raise _Fallback")
            g.emit(depth, f"_rounds += len({values})")
            g.emit(depth, f"if _rounds > {MAX_LOOP_ITERATIONS}: raise _Fallback")
            var, old = g.bind(clause.name)
            bound.append((clause.name, old))
            g.emit(depth, f"for {var} in {values}:")
            depth += 1
        else:
            assert isinstance(clause, ast.IfClause)  # a clause is a for or an if
            c = g.value(clause.condition, depth)
            g.need_boolean(c, depth)
            g.emit(depth, f"if not {c}: continue")
    element(g.value(node.element, depth), depth)
    for name, old in reversed(bound):
        g.unbind(name, old)
    g.restore(facts)


def emit_comprehension(g: Generator, node: ast.Comprehension, d: int) -> str:
    t = g.temp()
    g.emit(d, f"{t} = []")

    def element(code: str, depth: int) -> None:
        if g.bits(code) is not None or code in g.booleans or code in ("True", "False", "None"):
            g.emit(depth, f"{t}.append({code})")  # a number or a truth value: no list in it
            return
        if not code.isidentifier():
            value = g.temp()
            g.emit(depth, f"{value} = {code}")
            code = value
        g.emit(depth, f"{t}.append({code})")
        g.emit(depth, f"if type({code}) is list:")  # a list, maybe: its elements count
        g.emit(depth + 1, f"_held += len({code})")  # counted over the whole evaluation
        g.emit(depth + 1, f"if _held > {MAX_ELEMENTS_HELD}: raise _Fallback")
    loops(g, node, d, element)
    g.emit(d, f"if len({t}) > {MAX_LIST_LENGTH}: raise _Fallback")
    return t


def _generator_call(g: Generator, node: ast.Call, inner: ast.Comprehension, d: int) -> str:
    t, name = g.temp(), node.name
    single = sum(isinstance(c, ast.ForClause) for c in inner.clauses) == 1
    if name in ("any", "all") and single:
        g.emit(d, f"{t} = {name == 'all'}")
        g.booleans.add(t)

        def decide(code: str, depth: int) -> None:
            g.need_boolean(code, depth)
            g.emit(depth, f"if {'not ' if name == 'all' else ''}{code}:")
            g.emit(depth + 1, f"{t} = {name == 'any'}")
            g.emit(depth + 1, "break")
        loops(g, inner, d, decide)
        return t
    if name == "count":
        g.emit(d, f"{t} = 0")
        loops(g, inner, d, lambda code, depth: g.emit(depth, f"if {code} is not False: {t} += 1"))
        g.ints[t] = _ROUND_BITS
        return t
    if name == "sum" and g.speculate and not isinstance(inner.element, ast.ListLiteral):
        g.emit(d, f"{t} = 0")
        found: list[int] = []

        def add(code: str, depth: int) -> None:
            bits = g.whole(code, depth)
            if bits is None:  # not a whole number: the generic function sums it
                g.speculated = True
                g.emit(depth, "raise _Fallback")
            found.append(MAX_INT_BITS if bits is None else bits)
            g.emit(depth, f"{t} += {code}")
        loops(g, inner, d, add)
        if found[0] + _ROUND_BITS <= MAX_INT_BITS:
            g.ints[t] = found[0] + _ROUND_BITS
            return t
        g.emit(d, f"if not -{2 ** MAX_INT_BITS} < {t} < {2 ** MAX_INT_BITS}: raise _Fallback")
        return t
    listed = emit_comprehension(g, inner, d)
    g.emit(d, f"{t} = _f_{name}({listed})")
    return t


def _sum_list(g: Generator, xs: str, d: int) -> str:
    """``sum(xs)`` of a list of speculated whole numbers, inline."""
    t, v = g.temp(), g.temp()
    g.emit(d, f"if type({xs}) is not list or len({xs}) > {_LONGEST}: raise _Fallback")
    g.emit(d, f"{t} = 0")
    g.emit(d, f"for {v} in {xs}:")
    g.emit(d + 1, f"if type({v}) is not int or {v} < -{GUARD} or {v} > {GUARD}: raise _Fallback")
    g.emit(d + 1, f"{t} += {v}")
    g.speculated = True
    g.ints[t] = GUARD_BITS + _ROUND_BITS
    return t


def emit_call(g: Generator, node: ast.Call, d: int) -> str:
    args, name = node.args, node.name
    if len(args) == 1 and isinstance(args[0], ast.Comprehension):
        return _generator_call(g, node, args[0], d)
    t = g.temp()
    if name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], ast.Binary) \
            and args[0].op == "/":
        division = args[0]
        a, b = g.value(division.left, d), g.value(division.right, d)
        fast = f"-(-{a} // {b})" if name == "ceil" else f"{a} // {b}"
        found = g.wholes((division.left, division.right), [a, b], d)
        if found is not None:  # a zero divisor raises: the closures report it
            g.emit(d, f"{t} = {fast}")
            g.ints[t] = found[0]
            return t
        nonzero = "" if _is_int_literal(b) and int(b) != 0 else f" and {b}"
        g.emit(d, f"{t} = {fast} if {g.guard(a, b)}{nonzero} "
                  f"else _{name}({BINARY_NAME['/']}({a}, {b}))")
        return t
    values = [g.value(a, d) for a in args]
    inline = _inline(g, name, args, values, t, d)
    if inline is not None:
        return inline
    g.emit(d, f"{t} = _f_{name}({', '.join(values)})")
    return t


def _inline(g: Generator, name: str, args: tuple[ast.Node, ...], values: list[str], t: str,
            d: int) -> str | None:
    """The code of a call on whole numbers written as Python, or None."""
    if name in ("floor", "ceil", "round") and len(values) == 1:
        (x,) = values
        if g.bits(x) is not None:
            return x
        g.emit(d, f"{t} = {x} if type({x}) is int else _f_{name}({x})")
        return t
    if name == "sum" and len(values) == 1 and g.speculate and values[0].startswith("_t"):
        return _sum_list(g, values[0], d)
    if name not in ("min", "max", "abs", "clamp") or (name in ("min", "max") and len(values) != 2):
        return None
    found = g.wholes(args, values, d)
    if found is not None:
        if name == "abs":
            (x,) = values
            g.emit(d, f"{t} = {x} if {x} >= 0 else -{x}")
        elif name == "clamp":
            x, lo, hi = values
            if not (_is_int_literal(lo) and _is_int_literal(hi) and int(lo) <= int(hi)):
                g.emit(d, f"if {lo} > {hi}: raise _Fallback")  # the closures report the bounds
            g.emit(d, f"{t} = {lo} if {x} < {lo} else {hi} if {x} > {hi} else {x}")
        else:
            x, y = values
            g.emit(d, f"{t} = {x} if {x} {'<=' if name == 'min' else '>='} {y} else {y}")
        g.ints[t] = max(found)
        return t
    if name in ("min", "max"):
        x, y = values
        keep = "<=" if name == "min" else ">="
        g.emit(d, f"{t} = ({x} if {x} {keep} {y} else {y}) if {g.guard(x, y)} else _f_{name}({x}, {y})")
        return t
    if name == "abs":
        (x,) = values
        g.emit(d, f"{t} = ({x} if {x} >= 0 else -{x}) if type({x}) is int else _f_abs({x})")
        return t
    x, lo, hi = values
    if _is_int_literal(lo) and _is_int_literal(hi) and int(lo) <= int(hi):
        g.emit(d, f"{t} = ({lo} if {x} < {lo} else {hi} if {x} > {hi} else {x}) "
                  f"if type({x}) is int else _f_clamp({x}, {lo}, {hi})")
        return t
    return None
