"""Applying ``SettingsOp``s to a plain copy of a namespace's user section."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookspecs.errors import JsonDataError, SettingsError
from hookspecs.values.json import check_json
from hookspecs.values.settings import SettingsOp

#: What ``describe(redact_secrets=True)`` shows instead of a secret.
REDACTED = "***"


def apply_ops(
    namespace: str,
    user: Mapping[str, Any],
    ops: Sequence[SettingsOp],
    *,
    fields: Collection[str],
    secrets: Collection[str],
    resolved: Mapping[str, Any],
) -> dict[str, Any]:
    """The user section after ``ops``; ``user`` itself is left alone.

    A nested path edits a dict-typed field. When the user section does not
    override that field yet, editing starts from its resolved value, so the
    keys a form shows (from base or defaults) are kept rather than dropped.
    """
    out = copy.deepcopy(dict(user))
    for op in ops:
        where = ".".join((namespace, *op.path))
        if not op.path or not all(isinstance(part, str) for part in op.path):
            raise SettingsError(f"{namespace}: an op path must be a non-empty tuple of strings, got {op.path!r}")
        field = op.path[0]
        if field not in fields:
            raise SettingsError(f"{where}: unknown field")
        if op.op == "set":
            _check_value(where, op.value, secret=field in secrets)
            if len(op.path) == 1:
                out[field] = copy.deepcopy(op.value)
                continue
            if field not in out:
                out[field] = copy.deepcopy(resolved.get(field))
            parent = _walk(out, op.path, where, create=True)
            assert parent is not None  # created on the way
            parent[op.path[-1]] = copy.deepcopy(op.value)
        elif op.op == "unset":
            if len(op.path) == 1:
                out.pop(field, None)
                continue
            if field not in out:
                out[field] = copy.deepcopy(resolved.get(field))
            parent = _walk(out, op.path, where, create=False)
            if parent is not None:
                parent.pop(op.path[-1], None)
        else:
            raise SettingsError(f"{where}: unknown op {op.op!r} (expected 'set' or 'unset')")
    return out


def _check_value(where: str, value: Any, *, secret: bool) -> None:
    try:
        check_json(value, where)
    except JsonDataError as exc:
        raise SettingsError(exc.message) from exc
    if secret and value == REDACTED:
        # A client echoing a redacted view back would replace the real secret.
        raise SettingsError(f"{where}: refusing to store the redaction placeholder {REDACTED!r}")


def _walk(root: dict[str, Any], path: Sequence[str], where: str, *, create: bool) -> dict[str, Any] | None:
    """The dict holding ``path[-1]``; ``None`` when absent and not ``create``."""
    node: Any = root
    for depth, key in enumerate(path[:-1]):
        child = node.get(key)
        if child is None and create:
            child = node[key] = {}
        if child is None:
            return None
        if not isinstance(child, dict):
            at = ".".join(path[: depth + 1])
            raise SettingsError(f"{where}: {at} is not a mapping, so it has no key {path[depth + 1]!r}")
        node = child
    return node
