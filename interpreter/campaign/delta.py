"""The state before a command, kept in its journal entry as what changed (schema version 3 on):
a patch that turns the state after the command into the state before it, with the digest of the
state it applies to. The pin (the ruleset's rules, the deck with every card) is stored once, in
its table; an entry holds it only when the command changed it (``repin``). A deck of 10,000 cards
costs an entry the cards that moved, not 10,000 names.

A patch is one of
- ``{"v": value}``: the value before, whole;
- ``{"d": {key: patch}, "x": [key, ...]}``: a mapping, with the patches of the keys that differ
  (a key missing after the command has the patch ``{"v": ...}``) and the keys to drop (``x``);
- ``{"l": [head, tail, items]}``: a list whose first ``head`` and last ``tail`` elements are the
  same before and after, and whose elements between them were ``items``.

Undo applies an entry's patch to the campaign as it is then, which is the state after that entry
(undo takes back the newest command not yet undone, one at a time): the digest kept with the patch
is checked first, so a patch is never applied to any other state."""
from __future__ import annotations

try:  # start-up: the C module itself (hashlib would load OpenSSL's, ten times the cost)
    from _blake2 import blake2b
except ImportError:  # a Python without it
    from hashlib import blake2b

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

PATCH = "@patch"  # the keys of a journal entry's ``before`` in the format of version 3
BASE = "@base"


def canonical(data: Any) -> str:
    """The JSON text a state is compared and digested by (sorted keys, as stored)."""
    # start-up: json loads only for a command that writes (a reading reads JSON without it: integrity)
    import json

    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def digest(text: str) -> str:
    """The digest of a state's canonical text (its ``canonical`` JSON)."""
    return blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def diff(after: Any, before: Any) -> dict[str, Any] | None:
    """The patch that turns ``after`` into ``before`` (``None`` when they are equal)."""
    if type(after) is type(before) and after == before:
        return None
    if isinstance(after, dict) and isinstance(before, dict):
        changed: dict[str, Any] = {}
        for key, value in before.items():
            if key in after:
                sub = diff(after[key], value)
                if sub is not None:
                    changed[key] = sub
            else:
                changed[key] = {"v": value}
        return {"d": changed, "x": [key for key in after if key not in before]}
    if isinstance(after, list) and isinstance(before, list):
        head = 0
        shortest = min(len(after), len(before))
        while head < shortest and _same(after[head], before[head]):
            head += 1
        tail = 0
        while tail < shortest - head and _same(after[-1 - tail], before[-1 - tail]):
            tail += 1
        return {"l": [head, tail, before[head:len(before) - tail]]}
    return {"v": before}


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def apply(value: Any, patch: Any) -> Any:
    """``patch`` applied to ``value`` (a copy; ``value`` itself is not changed). ``ValueError``
    when the patch is not one of the three shapes or does not fit ``value``."""
    if not isinstance(patch, dict):
        raise ValueError("a patch is a mapping")
    if "v" in patch and len(patch) == 1:
        return patch["v"]
    if set(patch) == {"d", "x"} and isinstance(value, dict) and isinstance(patch["d"], dict) \
            and isinstance(patch["x"], list):
        result = {k: v for k, v in value.items() if k not in patch["x"]}
        for key, sub in patch["d"].items():
            result[key] = apply(value.get(key), sub) if key in value else apply(None, sub)
        return result
    if set(patch) == {"l"} and isinstance(value, list) and isinstance(patch["l"], list) \
            and len(patch["l"]) == 3:
        head, tail, items = patch["l"]
        if not (_whole(head) and _whole(tail) and isinstance(items, list)) or head + tail > len(value):
            raise ValueError("a list patch does not fit the list")
        return value[:head] + items + (value[len(value) - tail:] if tail else [])
    raise ValueError("not a patch of this value")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def entry_before(after: dict[str, Any], before: dict[str, Any], after_text: str) -> dict[str, Any]:
    """What a journal entry keeps of the state before its command: the patch from the state
    after it, and the digest of that state's canonical text ``after_text``."""
    return {PATCH: diff(after, before) or {"d": {}, "x": []}, BASE: digest(after_text)}


def is_patch(stored: Any) -> bool:
    return isinstance(stored, dict) and set(stored) == {PATCH, BASE}
