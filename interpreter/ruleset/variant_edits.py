"""Edits a variant makes inside one rule document: rows replaced by id (or ``at: N``), added or
removed; earlier layers' examples pinned to their values or dropped; examples and probes appended;
the file positions of every moved value carried along so findings still point at their line."""
from __future__ import annotations

import copy
from typing import Any

from rules_dsl.errors import Location, define, did_you_mean
from rules_dsl.words import define_words, vocabulary

Item = tuple[Any, dict, str]  # a row, its positions (relative), the layer it came from

NO_SUCH_ROW = define(
    "MPR904", "rule {rule} has no row {row} to {action}{hint}",
    "ルール {rule} に{action}する行 {row} はありません{hint}")
AMBIGUOUS_ROW = define(
    "MPR905", "rule {rule} has {count} rows with id {row!r} (rows {positions}); address one with at: N",
    "ルール {rule} には id {row!r} の行が {count} 個あります（{positions} 行目）。at: N で1つを指定してください")
NO_ROWS = define(
    "MPR906", "rule {rule} (kind {kind}) has no rows to override",
    "ルール {rule}（種別 {kind}）には上書きできる行がありません")
ROW_WITHOUT_ADDRESS = define(
    "MPR907", "a row override of rule {rule} needs an id (replace or add) or at: N (replace or remove row N)",
    "ルール {rule} の行の上書きには id（置き換えまたは追加）か at: N（N 行目を置き換えまたは削除）が必要です")
ROW_ACTIONS = define_words("variant.row_action", {"replace": "replace", "remove": "remove"},
                           {"replace": "置き換え", "remove": "削除"})


def loc_of(positions: dict, path: tuple, file: str | None) -> Location:
    # start-up: interpreter.documents.loader loads only when loc_of() runs
    from interpreter.documents.loader import locate

    return locate(positions, tuple(path), file)


def key_loc_of(positions: dict, path: tuple, file: str | None) -> Location:
    # start-up: interpreter.documents.loader loads only when key_loc_of() runs
    from interpreter.documents.loader import KEY

    pos = positions.get((*path, KEY))
    if pos is None:
        return loc_of(positions, path, file)
    return Location(pos[0], pos[1], pos[2], ".".join(map(str, path)))


def subtree(positions: dict, prefix: tuple) -> dict[tuple, Any]:
    """The positions under ``prefix``, keyed by the rest of their path."""
    n = len(prefix)
    return {key[n:]: pos for key, pos in positions.items() if key[:n] == prefix}


def subtrees(positions: dict, prefix: tuple) -> dict[Any, dict[tuple, Any]]:
    """The positions under ``prefix``, grouped by the next element of their path (one pass:
    rows and entries are looked up in this instead of scanning every position per entry)."""
    n = len(prefix)
    groups: dict[Any, dict[tuple, Any]] = {}
    for key, pos in positions.items():
        if len(key) > n and key[:n] == prefix:
            groups.setdefault(key[n], {})[key[n + 1:]] = pos
    return groups


def graft(rule: Any, positions: dict, prefix: tuple) -> None:
    """Place ``positions`` (relative paths) under ``prefix`` of the rule, replacing what was there."""
    n = len(prefix)
    for key in [k for k in rule.positions if k[:n] == prefix]:
        del rule.positions[key]
    for key, pos in positions.items():
        rule.positions[prefix + key] = pos


def row_key(row: Any, index: int) -> str:
    """How a row is named in traces and overrides: its id, else ``#N`` (1-based)."""
    if isinstance(row, dict) and row.get("id") is not None:
        return str(row["id"])
    return f"#{index + 1}"


def apply_rows(merge: Any, rule: Any, items: list[Item], entries: list, path: tuple,
               layer: Any) -> list[Item]:
    """The rows of ``rule`` after this layer's ``entries`` (``items`` as they stand before it)."""
    slots: list[Item | None] = list(items)
    count = len(items)
    written = subtrees(layer.positions, path)
    by_id: dict[Any, list[int]] = {}
    for i, slot in enumerate(slots):
        if slot is not None and isinstance(slot[0], dict) and slot[0].get("id") is not None:
            by_id.setdefault(slot[0]["id"], []).append(i)
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue  # the schema reports it
        here = path + (index,)
        loc = loc_of(layer.positions, here, layer.manifest_file)
        row = {k: copy.deepcopy(v) for k, v in entry.items() if k not in ("at", "remove")}
        remove = entry.get("remove") is True
        action = vocabulary(ROW_ACTIONS, merge.out.lang)["remove" if remove else "replace"]
        target: int | None = None
        if "at" in entry:
            at = entry["at"]
            key = f"#{at}"
            if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= count \
                    or slots[at - 1] is None:
                merge.out.add(NO_SUCH_ROW, loc_of(layer.positions, here + ("at",), layer.manifest_file),
                              rule=rule.id, row=key, action=action, hint=f" (1..{count})")
                continue
            target = at - 1
        elif row.get("id") is not None:
            key = str(row["id"])
            matches = [i for i in by_id.get(row["id"], []) if (slot := slots[i]) is not None
                       and isinstance(slot[0], dict) and slot[0].get("id") == row["id"]]
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
        positions = {k: v for k, v in written.get(index, {}).items()
                     if not k or k[0] not in ("at", "remove")}
        if remove:
            slots[target] = None  # type: ignore[index]
        elif target is None:
            slots.append((row, positions, layer.id))
        else:
            slots[target] = (row, positions, layer.id)
            if row.get("id") is not None and target not in by_id.get(row["id"], []):
                by_id.setdefault(row["id"], []).append(target)
    return [slot for slot in slots if slot is not None]


def edit_rows(merge: Any, rule: Any, entries: list, path: tuple, layer: Any) -> bool:
    """Replace rows by id (or by ``at: N``), add rows with new ids, remove rows (``remove: true``);
    the earlier layers' examples of the rule give way. False when the rule has no rows."""
    rows = rule.doc.get("rows")
    if not isinstance(rows, list):
        merge.out.add(NO_ROWS, key_loc_of(layer.positions, path, layer.manifest_file),
                     rule=rule.id, kind=rule.kind)
        return False
    origins = merge.row_origins.setdefault(rule.id, [rule.layer] * len(rows))
    before = subtrees(rule.positions, ("rows",))
    items = [(row, before.get(i, {}), origins[i]) for i, row in enumerate(rows)]
    items = apply_rows(merge, rule, items, entries, path, layer)
    _replace_entries(rule, "rows", [(row, positions) for row, positions, _ in items])
    merge.row_origins[rule.id] = [origin for _, _, origin in items]
    rule._compiled.clear()
    drop_examples(merge.example_layers, rule, layer.id)
    return True


def drop_examples(example_layers: dict[str, list[str]], rule: Any, layer: str) -> None:
    """Rows changed: earlier layers' examples tested rows that no longer stand, so they go."""
    examples = rule.doc.get("examples") or []
    origins = example_layers.get(rule.id, [])
    before = subtrees(rule.positions, ("examples",))
    kept = [(e, before.get(i, {}), o) for i, (e, o) in enumerate(zip(examples, origins))
            if o == layer]
    _replace_entries(rule, "examples", [(e, p) for e, p, _ in kept])
    if not kept:
        del rule.doc["examples"]
    example_layers[rule.id] = [o for _, _, o in kept]


def _replace_entries(rule: Any, name: str, entries: list[tuple[Any, dict]]) -> None:
    """Set ``rule.doc[name]`` to ``entries`` (each with its relative positions) in one pass."""
    kept = {k: v for k, v in rule.positions.items()
            if not (len(k) > 1 and k[0] == name and isinstance(k[1], int))}
    rule.positions.clear()
    rule.positions.update(kept)
    rule.doc[name] = [entry for entry, _ in entries]
    for index, (_, positions) in enumerate(entries):
        for key, pos in positions.items():
            rule.positions[(name, index) + key] = pos


def append_entries(example_layers: dict[str, list[str]], rule: Any, name: str, entries: list,
                   path: tuple, layer: Any) -> None:
    """Examples or probes a layer adds to a rule, their positions in the layer's manifest."""
    current = rule.doc.setdefault(name, [])
    written = subtrees(layer.positions, path)
    for index, entry in enumerate(entries):
        for key, pos in written.get(index, {}).items():
            rule.positions[(name, len(current)) + key] = pos
        current.append(copy.deepcopy(entry))
        if name == "examples":
            example_layers.setdefault(rule.id, []).append(layer.id)


def pin_examples(example_layers: dict[str, list[str]], rule: Any, name: str, layer: str) -> None:
    """Earlier layers' examples keep testing what their layer wrote: the old value of the
    parameter is pinned into each of them that does not set it itself."""
    examples = rule.doc.get("examples") or []
    for index, origin in enumerate(example_layers.get(rule.id, [])):
        example = examples[index]
        if origin != layer and isinstance(example, dict):
            pinned = example.setdefault("params", {})
            pinned.setdefault(name, copy.deepcopy(rule.params[name]))
