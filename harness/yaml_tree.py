"""Checks on a loaded YAML value before code that assumes a tree walks it."""

from __future__ import annotations

from typing import Any


def recursive_alias_path(data: Any) -> str | None:
    """Where a loaded value first contains itself (a recursive YAML alias such
    as ``&a [*a]``), as a ``$``-rooted path, or None for a tree.

    Shared (non-recursive) aliases are visited once, so the walk is linear.
    """
    done: set[int] = set()
    active: set[int] = set()

    def visit(node: Any, path: str) -> str | None:
        if not isinstance(node, (dict, list)):
            return None
        key = id(node)
        if key in active:
            return path
        if key in done:
            return None
        active.add(key)
        if isinstance(node, dict):
            items = ((f"{path}.{name}", value) for name, value in node.items())
        else:
            items = ((f"{path}[{index}]", value) for index, value in enumerate(node))
        for where, value in items:
            found = visit(value, where)
            if found is not None:
                return found
        active.discard(key)
        done.add(key)
        return None

    return visit(data, "$")
