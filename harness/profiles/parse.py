"""Parse profile and patch files into rows and ops, collecting every problem.

Each problem names the source, the line, the row (1-based index and id) and the
field: ``profile.yml:7: row 2 (id 'x'): field 'disabled': expected true or false,
got the string 'no'``. All problems of one file are raised as one ProfileError.
"""

from __future__ import annotations

import re
from typing import Any

from hookspecs.errors import ProfileError

from .model import BundleRef, InsertOp, PatchDoc, PatchOp, ProfileDoc, RowSpec
from .yamlio import describe, line_of_item, line_of_key, line_of_value, load_yaml, to_plain

#: A row id: lowercase letters, digits, ``_`` and ``-``; no leading punctuation.
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")

ROW_KEYS = ("id", "name", "config", "disabled")


class _Problems:
    """Collects located messages for one source; ``check()`` raises them together."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[str] = []

    def at(self, line: int | None) -> str:
        return f"{self.source}:{line}" if line is not None else self.source

    def add(self, line: int | None, message: str) -> None:
        self.items.append(f"{self.at(line)}: {message}")

    def check(self) -> None:
        if self.items:
            raise ProfileError("\n".join(self.items))


def parse_profile(text: str, *, source: str) -> ProfileDoc:
    """A profile: a list of plugin rows and ``{bundle: <name>}`` items."""
    data = _load_list(text, source=source, what="profile", empty_hint="write [] for a profile without plugins")
    problems = _Problems(source)
    bundles: list[BundleRef] = []
    rows: list[RowSpec] = []
    seen_ids: dict[str, str] = {}
    seen_bundles: dict[str, int] = {}
    for index, item in enumerate(data):
        number, line = index + 1, line_of_item(data, index)
        if isinstance(item, dict) and "bundle" in item:
            ref = _parse_bundle_ref(item, number=number, line=line, problems=problems)
            if ref is None:
                continue
            if ref.name in seen_bundles:
                problems.add(line, f"item {number}: bundle {ref.name!r} already listed as item {seen_bundles[ref.name]}")
                continue
            seen_bundles[ref.name] = number
            bundles.append(ref)
            continue
        row = _parse_row(item, label=f"row {number}", line=line, problems=problems, mode="row")
        if row is None:
            continue
        if row.id in seen_ids:
            problems.add(line, f"row {number} (id {row.id!r}): field 'id': duplicate id (first used by {seen_ids[row.id]})")
            continue
        seen_ids[row.id] = f"row {number}"
        rows.append(row)
    problems.check()
    return ProfileDoc(source=source, bundles=tuple(bundles), rows=tuple(rows))


def parse_patch(text: str, *, source: str) -> PatchDoc:
    """A patch file: a list of ``{insert: [rows]}`` and id-targeted ops."""
    data = _load_list(text, source=source, what="patch file", empty_hint="write [] to disable this layer")
    problems = _Problems(source)
    ops: list[PatchOp] = []
    for index, item in enumerate(data):
        number, line = index + 1, line_of_item(data, index)
        label = f"op {number}"
        if isinstance(item, dict) and "insert" in item:
            op: PatchOp | None = _parse_insert(item, label=label, line=line, problems=problems)
        elif isinstance(item, dict) and "id" in item:
            op = _parse_row(item, label=label, line=line, problems=problems, mode="op")
        else:
            keys = ", ".join(sorted(map(str, item))) if isinstance(item, dict) else None
            got = f"a mapping with keys: {keys}" if keys else describe(item)
            problems.add(line, f"{label}: expected {{insert: [rows...]}} or {{id: ..., config/disabled/name: ...}}, got {got}")
            op = None
        if op is not None:
            ops.append(op)
    problems.check()
    return PatchDoc(source=source, ops=tuple(ops))


def _load_list(text: str, *, source: str, what: str, empty_hint: str) -> list[Any]:
    data = load_yaml(text, source=source)
    if data is None:
        raise ProfileError(f"{source}: empty {what}; {empty_hint}")
    if not isinstance(data, list):
        raise ProfileError(f"{source}: a {what} must be a YAML list at top level, got {describe(data)}")
    return data


def _parse_bundle_ref(item: dict[Any, Any], *, number: int, line: int | None, problems: _Problems) -> BundleRef | None:
    extra = sorted(str(k) for k in item if k != "bundle")
    name = item["bundle"]
    if extra:
        problems.add(line, f"item {number}: a bundle reference takes no other keys; unknown field(s): {', '.join(extra)}")
        return None
    if not isinstance(name, str) or not name:
        problems.add(line, f"item {number}: field 'bundle': expected a bundle name, got {describe(name)}")
        return None
    return BundleRef(name=str(name), where=f"{problems.at(line)}: item {number} (bundle {str(name)!r})")


def _parse_insert(item: dict[Any, Any], *, label: str, line: int | None, problems: _Problems) -> InsertOp | None:
    extra = sorted(str(k) for k in item if k != "insert")
    if extra:
        problems.add(line, f"{label}: an insert op takes no other keys; unknown field(s): {', '.join(extra)}")
        return None
    rows_node = item["insert"]
    if not isinstance(rows_node, list):
        problems.add(line_of_value(item, "insert") or line, f"{label}: field 'insert': expected a list of rows, got {describe(rows_node)}")
        return None
    rows: list[RowSpec] = []
    seen: set[str] = set()
    for index, row_node in enumerate(rows_node):
        row_line = line_of_item(rows_node, index) or line
        row_label = f"{label} insert row {index + 1}"
        row = _parse_row(row_node, label=row_label, line=row_line, problems=problems, mode="insert")
        if row is None:
            continue
        if row.id in seen:
            problems.add(row_line, f"{row_label} (id {row.id!r}): field 'id': duplicate id in this insert")
            continue
        seen.add(row.id)
        rows.append(row)
    return InsertOp(rows=tuple(rows), where=f"{problems.at(line)}: {label}")


def _parse_row(node: Any, *, label: str, line: int | None, problems: _Problems, mode: str) -> RowSpec | None:
    """One row; ``None`` after a problem (recorded in ``problems``).

    ``mode`` is ``"insert"`` (name required; config and disabled default to
    ``{}``/``false``), ``"row"`` (a profile row: absent fields stay ``None`` so an
    override of a bundle row keeps them) or ``"op"`` (an id-targeted patch op:
    like ``"row"``, but must change something).
    """
    if not isinstance(node, dict):
        problems.add(line, f"{label}: expected a mapping {{id, name, config?, disabled?}}, got {describe(node)}")
        return None
    before = len(problems.items)
    raw_id = node.get("id")
    ident = f"{label} (id {str(raw_id)!r})" if isinstance(raw_id, str) else label

    def bad(key: str, message: str) -> None:
        problems.add(line_of_value(node, key) or line, f"{ident}: field {key!r}: {message}")

    unknown = [k for k in node if k not in ROW_KEYS]
    if unknown:
        names = ", ".join(sorted(map(str, unknown)))
        problems.add(line_of_key(node, unknown[0]) or line, f"{ident}: unknown field(s): {names} (allowed: {', '.join(ROW_KEYS)})")
    if "id" not in node:
        problems.add(line, f"{ident}: field 'id': required field missing")
    elif not isinstance(raw_id, str):
        bad("id", f"expected a string, got {describe(raw_id)}")
    elif not ID_RE.match(raw_id):
        bad("id", f"invalid id {str(raw_id)!r}; ids match {ID_RE.pattern}")
    name = node.get("name")
    if "name" not in node:
        if mode == "insert":
            problems.add(line, f"{ident}: field 'name': required field missing")
    elif not isinstance(name, str) or not name.strip():
        bad("name", f"expected a plugin name (entry point or module:attr), got {describe(name)}")
    config = node.get("config")
    if config is not None and not isinstance(config, dict):
        bad("config", f"expected a mapping, got {describe(config)}")
    elif isinstance(config, dict) and not all(isinstance(k, str) for k in config):
        bad("config", "mapping keys must be strings")
    disabled = node.get("disabled")
    if "disabled" in node and not isinstance(disabled, bool):
        bad("disabled", f"expected true or false, got {describe(disabled)}")
    if mode == "op" and not any(k in node for k in ("name", "config", "disabled")):
        problems.add(line, f"{ident}: nothing to change; give config, disabled or name")
    if len(problems.items) > before:
        return None

    defaults = mode == "insert"
    return RowSpec(
        id=str(raw_id),
        name=str(name) if name is not None else None,
        # ``config:`` left empty (null) means an empty mapping.
        config=to_plain(config or {}) if "config" in node else ({} if defaults else None),
        disabled=bool(disabled) if "disabled" in node else (False if defaults else None),
        where=f"{problems.at(line)}: {label} (id {str(raw_id)!r})",
    )
