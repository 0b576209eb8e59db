"""The typing mistakes of Japanese input that break YAML or a number: a full-width space in
the indentation, a full-width colon after a key, a number written in full-width digits. Each
has its own message, so a GM learns what to retype instead of reading a YAML syntax error."""
from __future__ import annotations

import re
import unicodedata

from rules_dsl.errors import Location, MprError, define

FULLWIDTH_INDENT = define(
    "MPR240", "a full-width space (U+3000) in the indentation: indent with half-width spaces",
    "字下げに全角スペース（U+3000）が入っています。字下げは半角スペースで書いてください")
FULLWIDTH_COLON = define(
    "MPR241", "a full-width colon '：' after the key {key}: write a half-width colon and a space "
    "({key}: ...)",
    "キー {key} の後ろのコロンが全角の「：」です。半角のコロンと半角スペースで書いてください（{key}: …）")
FULLWIDTH_NUMBER = define(
    "MPR242", "{text} is written in full-width characters: write the number as {fixed}",
    "{text} は全角で書かれています。数は半角で {fixed} と書いてください")

KEY_THEN_FULLWIDTH_COLON = re.compile(r"(?:^|(?<=[\s{,\-]))([A-Za-z_][A-Za-z0-9_.]*)[ \t]*：")
_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?")


def fullwidth_number(text: str) -> str | None:
    """``１２`` -> ``12``, ``－３`` -> ``-3``: the half-width number a text of full-width digits
    and signs means; None when it is not one (or is already half-width)."""
    fixed = unicodedata.normalize("NFKC", text).replace("−", "-").strip()
    return fixed if fixed != text.strip() and _NUMBER.fullmatch(fixed) else None


def typing_mistake(text: str, file: str, line: int) -> MprError | None:
    """A Japanese typing mistake that explains a YAML syntax error found at ``line``: a
    full-width space in the indentation or a full-width colon after a key, on that line or just
    before it (where YAML noticed nothing yet)."""
    lines = text.splitlines()
    for number in range(min(line, len(lines)), max(0, line - 3), -1):
        written = lines[number - 1]
        lead = len(written) - len(written.lstrip(" \t\u3000"))
        if "\u3000" in written[:lead]:
            return MprError(FULLWIDTH_INDENT, Location(file, number, written.index("\u3000") + 1))
        match = KEY_THEN_FULLWIDTH_COLON.search(written.split(" #")[0])
        if match:
            return MprError(FULLWIDTH_COLON, Location(file, number, match.end()), key=match.group(1))
    return None
