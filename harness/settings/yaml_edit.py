"""Leaf-level edits of a ruamel round-trip tree that keep the user's comments.

Writes are computed on plain dicts; :func:`sync_mapping` then carries only the
differences into the round-trip tree, so untouched keys keep their formatting,
comments and order, changed keys are replaced in place and new keys appended.

ruamel stores the full-line comments that sit *between* two keys on the first
key (after its end-of-line comment). Deleting a key naively would drop comments
that describe the next key, so :func:`delete_key` moves them onto whatever now
precedes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from .document import canonical_json, to_plain

_EOL = 2  # slot of a mapping key's end-of-line/trailing comment in ``ca.items``
_SEQ_EOL = 0  # same slot for sequence items


def sync_mapping(target: CommentedMap, wanted: Mapping[str, Any]) -> None:
    """Make ``target`` equal ``wanted`` (plain JSON) touching as little as possible."""
    for key in [k for k in target if k not in wanted]:
        delete_key(target, key)
    for key, value in wanted.items():
        if key not in target:
            append_key(target, key, value)
            continue
        current = target[key]
        if _same_json(current, value):
            continue  # equal already: keep quoting, flow style and comments
        if isinstance(current, CommentedMap) and isinstance(value, dict) and value:
            sync_mapping(current, value)  # nested dict fields: recurse so inner comments survive
        else:
            target[key] = to_node(value)  # in place: the key keeps its position and comment


def append_key(mapping: CommentedMap, key: str, value: Any) -> None:
    """Add ``key`` last; comments that followed the old last key (they introduce
    whatever comes after this mapping) move below the new one."""
    orphans = _detach_trailing(mapping, list(mapping)[-1]) if mapping else ""
    mapping[key] = to_node(value)
    if orphans:
        _append_trailing(mapping, key, orphans)


def delete_key(mapping: CommentedMap, key: Any) -> None:
    """Remove ``key`` but keep the full-line comments that followed it."""
    keys = list(mapping)
    index = keys.index(key)
    value = mapping[key]
    orphans = take_leading(value) if isinstance(value, CommentedMap) and not value else ""
    orphans += _detach_trailing(mapping, key)
    del mapping[key]
    mapping.ca.items.pop(key, None)
    if not orphans:
        return
    if index > 0:
        _append_trailing(mapping, keys[index - 1], orphans)
        return
    # The key was first: the comments now precede the new first key (or sit in
    # the emptied map, from where deleting the map itself collects them).
    pre = mapping.ca.comment
    if pre is None:
        mapping.ca.comment = pre = [None, []]
    while len(pre) < 2:
        pre.append(None)
    if pre[1] is None:
        pre[1] = []
    pre[1].append(CommentToken(orphans, CommentMark(0)))


def take_leading(mapping: CommentedMap) -> str:
    """Detach the comments kept in front of ``mapping``'s first key, as indented lines."""
    pre = mapping.ca.comment
    if not pre or len(pre) < 2 or not pre[1]:
        return ""
    lines = []
    for token in pre[1]:
        if token is None:
            continue
        column = getattr(token.start_mark, "column", 0) or 0
        text = token.value
        lines.append(" " * column + text if text.startswith("#") else text)
    pre[1] = []
    return "".join(lines)


def to_node(value: Any) -> Any:
    """Plain JSON as round-trip nodes, so comments can later be attached inside it."""
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = to_node(item)
        return node
    if isinstance(value, list):
        return CommentedSeq(to_node(item) for item in value)
    return value


def _same_json(node: Any, value: Any) -> bool:
    try:
        return canonical_json(to_plain(node, "value")) == canonical_json(value)
    except ValueError:  # the node is not JSON (a date...): it differs
        return False


def _is_block(value: Any) -> bool:
    return isinstance(value, (CommentedMap, CommentedSeq)) and len(value) > 0 and not value.fa.flow_style()


def _last_slot(container: CommentedMap | CommentedSeq, key: Any) -> tuple[CommentedMap | CommentedSeq, Any, int]:
    """Where the comment after ``container[key]``'s subtree is stored."""
    value = container[key]
    if _is_block(value):
        last = list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1
        return _last_slot(value, last)
    return container, key, _SEQ_EOL if isinstance(container, CommentedSeq) else _EOL


def _detach_trailing(mapping: CommentedMap, key: Any) -> str:
    """Cut the full-line comments after ``key``'s subtree, leaving its own EOL comment."""
    container, slot_key, slot = _last_slot(mapping, key)
    entry = container.ca.items.get(slot_key)
    token = entry[slot] if entry and len(entry) > slot else None
    if not isinstance(token, CommentToken):
        return ""
    text = token.value
    newline = text.find("\n")
    if newline < 0:
        return ""
    token.value = text[: newline + 1]
    return text[newline + 1 :]


def _append_trailing(mapping: CommentedMap, key: Any, text: str) -> None:
    container, slot_key, slot = _last_slot(mapping, key)
    entry = container.ca.items.setdefault(slot_key, [None, None, None, None])
    while len(entry) <= slot:
        entry.append(None)
    token = entry[slot]
    if isinstance(token, CommentToken):
        token.value = token.value + text
    else:
        # No end-of-line comment: the token starts with the value's own newline.
        entry[slot] = CommentToken("\n" + text, CommentMark(0))
