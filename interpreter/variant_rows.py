"""Row overrides of a variant (``overrides: {rule: {rows: [...]}}``): a row with an existing id
replaces that row whole, a row with a new id is added at the end, ``at: N`` addresses row N (1-based,
as the rows stand before this layer) of rows without ids, ``remove: true`` removes the row."""
from __future__ import annotations

import copy
from typing import Any

from .engine import did_you_mean

Item = tuple[Any, dict, str]  # a row, its positions (relative), the layer it came from


def apply_rows(merge: Any, rule: Any, items: list[Item], entries: list, path: tuple,
               layer: Any) -> list[Item]:
    """The rows of ``rule`` after this layer's ``entries`` (``items`` as they stand before it)."""
    from .variants import (AMBIGUOUS_ROW, NO_SUCH_ROW, ROW_ACTIONS, ROW_WITHOUT_ADDRESS, _loc,
                           subtree)

    slots: list[Item | None] = list(items)
    count = len(items)
    lang = "ja" if merge.out.lang == "ja" else "en"
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue  # the schema reports it
        here = path + (index,)
        loc = _loc(layer.positions, here, layer.manifest_file)
        row = {k: copy.deepcopy(v) for k, v in entry.items() if k not in ("at", "remove")}
        remove = entry.get("remove") is True
        action = ROW_ACTIONS[lang]["remove" if remove else "replace"]
        target: int | None = None
        if "at" in entry:
            at = entry["at"]
            key = f"#{at}"
            if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= count \
                    or slots[at - 1] is None:
                merge.out.add(NO_SUCH_ROW, _loc(layer.positions, here + ("at",), layer.manifest_file),
                              rule=rule.id, row=key, action=action, hint=f" (1..{count})")
                continue
            target = at - 1
        elif row.get("id") is not None:
            key = str(row["id"])
            matches = [i for i, slot in enumerate(slots[:count])
                       if slot is not None and isinstance(slot[0], dict) and slot[0].get("id") == row["id"]]
            if len(matches) > 1:
                merge.out.add(AMBIGUOUS_ROW, loc, rule=rule.id, row=key, count=len(matches),
                              positions=", ".join(str(i + 1) for i in matches))
                continue
            target = matches[0] if matches else None
            if target is None and remove:
                ids = [s[0].get("id") for s in slots if s is not None and isinstance(s[0], dict)]
                merge.out.add(NO_SUCH_ROW, loc, rule=rule.id, row=key, action=action,
                              hint=did_you_mean(key, [i for i in ids if i is not None]))
                continue
        else:
            merge.out.add(ROW_WITHOUT_ADDRESS, loc, rule=rule.id)
            continue
        if not merge.write((rule.id, "rows", key), layer.id, None if remove else row, loc):
            continue
        positions = {k: v for k, v in subtree(layer.positions, here).items()
                     if not k or k[0] not in ("at", "remove")}
        if remove:
            slots[target] = None  # type: ignore[index]
        elif target is None:
            slots.append((row, positions, layer.id))
        else:
            slots[target] = (row, positions, layer.id)
    return [slot for slot in slots if slot is not None]
