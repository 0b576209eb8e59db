"""Expression text -> AST (``rules_dsl.ast``) with spans, through the LALR grammar ``grammar.lark``
(its tables stored by ``grammar_cache``, driven by ``lalr``: lark is not imported to parse).

Limits are enforced before the parser runs (length, bracket nesting, runs of prefix operators) and
while the tree is built (depth and node count), so hostile text meets a coded error, never deep
recursion.
"""
from __future__ import annotations

import functools
import re

from . import ast
from .errors import Location, MprError, define
from .grammar_cache import load_tables
from .lalr import Meta, Tables, Token, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from .lalr import parse as parse_tables
from .limits import (MAX_AST_DEPTH, MAX_AST_NODES, MAX_DICE_PER_TERM, MAX_EXPRESSION_LENGTH,
                     MAX_FACES, MAX_INT_BITS)
from .scopes import resolve
from .normalize import at, locate, normalize, position

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TypeVar

    Made = TypeVar("Made", bound=ast.Node)

TOO_LONG = define(
    "MPR100", "the expression is too long: {length} characters (the limit is {limit})",
    "式が長すぎます: {length} 文字（上限 {limit} 文字）")
EMPTY = define("MPR105", "the expression is empty", "式が空です")
DECIMAL = define(
    "MPR106", "{number}: there are no decimal numbers; write the exact fraction {fraction}",
    "{number}: 小数は書けません。厳密な分数 {fraction} と書いてください")
BAD_CHARACTER = define(
    "MPR110", "unexpected character {char!r} here; expected {expected}",
    "ここで文字 {char!r} は使えません。{expected_ja}が来るはずです")
BAD_TOKEN = define(
    "MPR111", "unexpected {got} here; expected {expected}",
    "ここで {got} は使えません。{expected_ja}が来るはずです")
EARLY_END = define(
    "MPR112", "the expression ends too early; expected {expected}",
    "式が途中で終わっています。{expected_ja}が来るはずです")
UNBALANCED = define(
    "MPR113", "{problem}", "{problem_ja}")
TOO_DEEP = define(
    "MPR114", "the expression is nested too deeply: more than {limit} levels of brackets, "
    "operators or calls", "式の入れ子が深すぎます（括弧・演算子・関数呼び出しが {limit} 段を超えています）")
TOO_MANY_NODES = define(
    "MPR115", "the expression is too large: more than {limit} parts",
    "式が大きすぎます（要素数が上限 {limit} を超えています）")
NUMBER_TOO_LARGE = define(
    "MPR116", "the number {digits} is too large (more than {limit} bits)",
    "数 {digits} が大きすぎます（{limit} ビットを超えています）")
TOO_MANY_DICE = define(
    "MPR120", "{text}: at most {limit} dice in one term", "{text}: 1つの項で振れるダイスは {limit} 個までです")
TOO_MANY_FACES = define(
    "MPR121", "{text}: a die has at most {limit} faces", "{text}: ダイスの面数は {limit} までです")
NO_FACES = define(
    "MPR122", "{text}: a die needs at least 1 face", "{text}: ダイスの面数は 1 以上が必要です")
NO_DICE = define(
    "MPR123", "{text} rolls no dice; write 0 if you mean zero",
    "{text} はダイスを1個も振りません。0 のつもりなら 0 と書いてください")
D66_COUNT = define(
    "MPR124", "{text}: d66 is one roll of a tens die and a units die; write d66 + d66 for two",
    "{text}: d66 は十の位と一の位のダイス1回分です。2回なら d66 + d66 と書いてください")

_CLOSERS = {")": "(", "]": "["}
_STRING_RE = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_PREFIX_RUN_RE = re.compile(r"(?:(?<![\w)\]])[-+]\s*|\bnot\b\s*)+")
_PREFIX_OP_RE = re.compile(r"[-+]|not")
_DECIMAL_RE = re.compile(r"([0-9]+)\.([0-9]+)")
_MAX_DIGITS = 30  # digits of a decimal number the hint reads on either side of its point
_SHOWN = {"RPAR": ")", "RSQB": "]", "COMMA": ",", "ELSE": "else", "IF": "if", "IN": "in",
          "FOR": "for", "EQUAL": "="}


@functools.lru_cache(maxsize=1)
def _tables() -> Tables:
    return load_tables()


def _span(meta: Meta) -> ast.Span:
    return ast.Span(meta.line, meta.column, meta.end_column, meta.end_line)


def _token_span(token: Token) -> ast.Span:
    # The parser propagates positions: its tokens always have them (the stubs allow None).
    return ast.Span(token.line or 1, token.column or 1, token.end_column or 1, token.end_line)


def _join(first: ast.Span, last: ast.Span) -> ast.Span:
    return ast.Span(first.line, first.column, last.end_column, last.last_line)


class _ToAst:
    """Parse-tree nodes -> AST, folding flat chains; tracks depth and node count as it builds.

    Called for each node as the parser reduces it (children first, left to right); the first
    MprError is kept and reported once the whole text has parsed, so a syntax error anywhere wins
    over a bound broken earlier in the text, as when the tree was built before being read.
    """

    def __init__(self, origin: Location | None, text: str) -> None:
        self.failed: MprError | None = None
        self.origin = origin
        self.text = text
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.depth: dict[int, int] = {}
        self.count = 0
        self.binds = False  # a let or a comprehension was seen: names need resolving

    def __call__(self, name: str, meta: Meta, children: list[Any]) -> Any:
        if self.failed is not None:
            return None
        try:
            return getattr(self, name)(meta, children)
        except MprError as error:
            self.failed = error
            return None

    def _made(self, node: Made, *kids: ast.Node) -> Made:
        depth = 1 + max((self.depth.get(id(k), 1) for k in kids), default=0)
        self.count += 1
        if depth > MAX_AST_DEPTH:
            raise MprError(TOO_DEEP, self._loc(node.span), limit=MAX_AST_DEPTH)
        if self.count > MAX_AST_NODES:
            raise MprError(TOO_MANY_NODES, self._loc(node.span), limit=MAX_AST_NODES)
        self.depth[id(node)] = depth
        return node

    def _loc(self, span: ast.Span) -> Location:
        return at(self.origin, span.line, span.column)

    # literals
    def number(self, meta: Meta, children: Sequence[Any]) -> Any:
        token = children[0]
        value = int(token) if len(token) <= 100 else None  # 100 digits are past any bound
        if value is None or value.bit_length() > MAX_INT_BITS:
            raise MprError(NUMBER_TOO_LARGE, self._loc(_span(meta)),
                           digits=_short(str(token)), limit=MAX_INT_BITS)
        return self._made(ast.Number(value=value, span=_span(meta)))

    def string(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.String(value=_unescape(str(children[0])[1:-1]), span=_span(meta)))

    def true(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.Boolean(value=True, span=_span(meta)))

    def false(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.Boolean(value=False, span=_span(meta)))

    def null(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.Null(span=_span(meta)))

    def name(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.Name(name=str(children[0]), span=_span(meta)))

    def list(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.ListLiteral(items=tuple(children), span=_span(meta)), *children)

    def dice(self, meta: Meta, children: Sequence[Any]) -> Any:
        text = str(children[0])
        count_text, faces_text = re.split("[dD]", text)
        span = _span(meta)
        loc = self._loc(span)
        if len(count_text) > 12 or (count_text and int(count_text) > MAX_DICE_PER_TERM):
            raise MprError(TOO_MANY_DICE, loc, text=_short(text), limit=MAX_DICE_PER_TERM)
        if len(faces_text) > 12 or int(faces_text) > MAX_FACES:
            raise MprError(TOO_MANY_FACES, loc, text=_short(text), limit=MAX_FACES)
        count = int(count_text) if count_text else 1
        faces = int(faces_text)
        if faces == 0:
            raise MprError(NO_FACES, loc, text=text)
        if count == 0:
            raise MprError(NO_DICE, loc, text=text)
        if faces == 66:
            if count != 1:
                raise MprError(D66_COUNT, loc, text=text)
            return self._made(ast.D66(span=span))
        return self._made(ast.Dice(count=count, faces=faces, span=span))

    # paths and calls
    def attribute(self, meta: Meta, children: Sequence[Any]) -> Any:
        target, name = children
        return self._made(ast.Attribute(target=target, name=str(name), span=_span(meta)), target)

    def index(self, meta: Meta, children: Sequence[Any]) -> Any:
        target, index = children
        node = ast.Index(target=target, index=index, span=_span(meta),
                         op_span=self._bracket_before(index.span))
        return self._made(node, target, index)

    def _bracket_before(self, span: ast.Span) -> ast.Span | None:
        """The ``[`` opening the index whose expression starts at ``span`` (only brackets and
        blanks can stand between them)."""
        i = self.line_starts[span.line - 1] + span.column - 2
        while i >= 0 and self.text[i] in "( \t\r\n":
            i -= 1
        if i < 0 or self.text[i] != "[":
            return None
        line = self.text.count("\n", 0, i) + 1
        column = i - self.line_starts[line - 1] + 1
        return ast.Span(line, column, column + 1)

    def call(self, meta: Meta, children: Sequence[Any]) -> Any:
        name, *args = children
        node = ast.Call(name=str(name), args=tuple(args), name_span=_token_span(name),
                        span=_span(meta))
        return self._made(node, *args)

    # local names
    def binding(self, meta: Meta, children: Sequence[Any]) -> Any:
        return children[0], children[1]

    def let(self, meta: Meta, children: Sequence[Any]) -> Any:
        *bindings, body = children
        self.binds = True
        node = body
        for i, (name, value) in reversed(list(enumerate(bindings))):
            span = _span(meta) if i == 0 else _join(_token_span(name), body.span)
            node = self._made(ast.Let(name=str(name), value=value, body=node, span=span,
                                      name_span=_token_span(name)), value, node)
        return node

    def comp_for(self, meta: Meta, children: Sequence[Any]) -> Any:
        name, iterable = children
        return self._made(ast.ForClause(name=str(name), iterable=iterable, span=_span(meta),
                                        name_span=_token_span(name)), iterable)

    def comp_if(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.IfClause(condition=children[0], span=_span(meta)), children[0])

    def _comprehension(self, children: Sequence[Any], span: ast.Span, generator: bool) -> ast.Comprehension:
        element, *clauses = children
        self.binds = True
        node = ast.Comprehension(element=element, clauses=tuple(clauses), generator=generator,
                                 span=span)
        return self._made(node, element, *clauses)

    def list_comprehension(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._comprehension(children, _span(meta), False)

    def call_generator(self, meta: Meta, children: Sequence[Any]) -> Any:
        name, *rest = children
        inner = self._comprehension(rest, _join(rest[0].span, rest[-1].span), True)
        node = ast.Call(name=str(name), args=(inner,), name_span=_token_span(name),
                        span=_span(meta))
        return self._made(node, inner)

    # operators
    def conditional(self, meta: Meta, children: Sequence[Any]) -> Any:
        then, condition, otherwise = children
        node = ast.Conditional(condition=condition, then=then, otherwise=otherwise,
                               span=_span(meta))
        return self._made(node, *children)

    def _fold_logical(self, op: str, children: Sequence[Any]) -> Any:
        node = children[0]
        for right in children[1:]:
            node = self._made(ast.Logical(op=op, left=node, right=right,
                                          span=_join(node.span, right.span)), node, right)
        return node

    def or_expr(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._fold_logical("or", children)

    def and_expr(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._fold_logical("and", children)

    def not_(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._made(ast.Unary(op="not", operand=children[0], span=_span(meta)), children[0])

    def comp_op(self, meta: Meta, children: Sequence[Any]) -> Any:
        return " ".join(str(t) for t in children), _token_span(children[0])

    def comparison(self, meta: Meta, children: Sequence[Any]) -> Any:
        operands, ops = tuple(children[0::2]), children[1::2]
        node = ast.Compare(ops=tuple(op for op, _ in ops), operands=operands, span=_span(meta),
                           op_spans=tuple(where for _, where in ops))
        return self._made(node, *operands)

    def _fold_binary(self, children: Sequence[Any]) -> Any:
        node = children[0]
        for i in range(1, len(children), 2):
            op, right = children[i], children[i + 1]
            node = self._made(ast.Binary(op=str(op), left=node, right=right,
                                         span=_join(node.span, right.span),
                                         op_span=_token_span(op)), node, right)
        return node

    def sum(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._fold_binary(children)

    def product(self, meta: Meta, children: Sequence[Any]) -> Any:
        return self._fold_binary(children)

    def power(self, meta: Meta, children: Sequence[Any]) -> Any:
        left, op, right = children
        return self._made(ast.Binary(op="**", left=left, right=right, span=_span(meta),
                                     op_span=_token_span(op)), left, right)

    def sign(self, meta: Meta, children: Sequence[Any]) -> Any:
        op, operand = children
        return self._made(ast.Unary(op=str(op), operand=operand, span=_span(meta)), operand)


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "…"


def precheck(text: str, origin: Location | None) -> None:
    """Cheap checks on normalised text before the parser runs: balanced brackets, bracket depth and
    runs of prefix operators within MAX_AST_DEPTH (so nothing later can recurse deeply)."""
    masked = _STRING_RE.sub(lambda m: m.group()[0] + " " * (len(m.group()) - 2) + m.group()[-1],
                            text)
    stack: list[int] = []
    for index, ch in enumerate(masked):
        if ch in "([":
            stack.append(index)
            if len(stack) > MAX_AST_DEPTH:
                raise MprError(TOO_DEEP, locate(origin, text, index), limit=MAX_AST_DEPTH)
        elif ch in ")]":
            if not stack:
                raise MprError(UNBALANCED, locate(origin, text, index),
                               problem=f"'{ch}' has no matching '{_CLOSERS[ch]}'",
                               problem_ja=f"'{ch}' に対応する '{_CLOSERS[ch]}' がありません")
            opener = masked[stack.pop()]
            if opener != _CLOSERS[ch]:
                raise MprError(UNBALANCED, locate(origin, text, index),
                               problem=f"'{opener}' is closed by '{ch}'",
                               problem_ja=f"'{opener}' が '{ch}' で閉じられています")
    if stack:
        opener = masked[stack[-1]]
        closer = ")" if opener == "(" else "]"
        raise MprError(UNBALANCED, locate(origin, text, stack[-1]),
                       problem=f"this '{opener}' is never closed: add '{closer}'",
                       problem_ja=f"この '{opener}' が閉じられていません。'{closer}' を書いてください")
    for run in _PREFIX_RUN_RE.finditer(masked):
        if len(_PREFIX_OP_RE.findall(run.group())) > MAX_AST_DEPTH:
            raise MprError(TOO_DEEP, locate(origin, text, run.start()), limit=MAX_AST_DEPTH)


def _expected(names: set[str]) -> tuple[str, str]:
    """(English, Japanese) descriptions of what the parser would have accepted."""
    en: list[str] = []
    ja: list[str] = []
    if names == {"NAME"}:
        en.append("a field name")
        ja.append("フィールド名")
    elif names & {"INT", "NAME", "STRING"}:
        en.append("a value (a number, a name, 2d6, 'text', a list or a bracket)")
        ja.append("値（数・名前・2d6・'文字列'・リスト・括弧）")
    elif names & {"STAR", "SLASH", "PLUS", "MINUS"}:
        en.append("an operator")
        ja.append("演算子")
    else:
        for name in sorted(names & set(_SHOWN), key=list(_SHOWN).index):
            en.append(f"'{_SHOWN[name]}'")
            ja.append(f"'{_SHOWN[name]}'")
    if "$END" in names:
        en.append("the end of the expression")
        ja.append("式の終わり")
    return " or ".join(en) or "something else", "・".join(ja) or "別のもの"


def _syntax_error(error: UnexpectedInput, text: str, origin: Location | None) -> MprError:
    if isinstance(error, UnexpectedCharacters):
        en, ja = _expected(set(error.allowed or ()))
        return MprError(BAD_CHARACTER, at(origin, error.line, error.column),
                        char=text[error.pos_in_stream or 0], expected=en, expected_ja=ja)
    expected = set(getattr(error, "expected", ()) or ())
    en, ja = _expected(expected)
    token = getattr(error, "token", None)
    if not isinstance(error, UnexpectedToken) or token is None or token.type == "$END":
        line, column = _end(text)
        return MprError(EARLY_END, at(origin, line, column), expected=en, expected_ja=ja)
    if token.type == "EQUAL":  # `x = 1`: a comparison is `==`; `=` only names a value after `let`
        return MprError(BAD_CHARACTER, at(origin, token.line, token.column), char="=",
                        expected=en, expected_ja=ja)
    decimal = _decimal_at(text, token.start_pos) if token.type == "INT" else None
    if decimal is not None:
        start, number = decimal
        line, column = position(text, start)
        # start-up: fractions loads only to write the hint of a decimal number
        from fractions import Fraction

        return MprError(DECIMAL, at(origin, line, column), number=number,
                        fraction=str(Fraction(number)))
    got = f"'{_short(str(token))}'"
    return MprError(BAD_TOKEN, at(origin, token.line, token.column), got=got,
                    expected=en, expected_ja=ja)


def _decimal_at(text: str, pos: int) -> tuple[int, str] | None:
    """(start, text) of the decimal number ``1.5`` whose digits after the point start at ``pos``."""
    for match in _DECIMAL_RE.finditer(text, max(0, pos - 1 - _MAX_DIGITS), pos + _MAX_DIGITS):
        whole = (match.start() == 0 or not text[match.start() - 1].isalnum()) and (
            match.end() == len(text) or not text[match.end()].isdigit())
        if match.start(2) == pos and whole:
            return match.start(), match.group()
    return None


def _end(text: str) -> tuple[int, int]:
    stripped = text.rstrip()
    line = stripped.count("\n") + 1
    return line, len(stripped) - (stripped.rfind("\n") + 1) + 1


def parse(text: str, origin: Location | None = None) -> ast.Node:
    """Parse expression text into its AST; every error is an MprError located in ``origin``'s file."""
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise MprError(TOO_LONG, at(origin, 1, 1), length=len(text), limit=MAX_EXPRESSION_LENGTH)
    normal = normalize(text, origin)
    if not normal.strip():
        raise MprError(EMPTY, at(origin, 1, 1))
    precheck(normal, origin)
    builder = _ToAst(origin, normal)
    try:
        node = parse_tables(_tables(), normal, builder)
    except UnexpectedInput as error:
        raise _syntax_error(error, normal, origin) from None
    if builder.failed is not None:
        raise builder.failed
    return resolve(node, origin) if builder.binds else node
