"""The user settings document: one YAML file, ``{namespace: {field: value}}``.

Parsed in ruamel round-trip mode so a write can keep the user's comments, key
order and quoting; the service only ever sees plain JSON copies of sections.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import math
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import trio
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from hookspecs.errors import InputFileError, SettingsError
from hookspecs.fsutil import FILE_MODE, ensure_private_dir, read_regular_bytes
from hookspecs.values.wire import describe_value

from ..yaml_tree import YamlProblem, bounded_yaml, load_tree

try:  # advisory cross-process lock; absent on Windows, where writes stay atomic but unfenced
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


@attrs.frozen(kw_only=True)
class Section:
    """One namespace's section as JSON.

    ``data`` holds the fields that are JSON; ``errors`` maps a field name (or
    ``""`` for the whole section) to why it could not be read.
    """

    data: dict[str, Any]
    errors: dict[str, str] = attrs.field(factory=dict)


def make_yaml() -> YAML:
    yaml = bounded_yaml("rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap the user's long strings
    return yaml


#: The settings document is a page of YAML; anything near this size is not one.
SETTINGS_LIMIT = 1 << 20


def read_text(path: Path) -> str:
    """The document's text; a missing file is an empty document.

    A file that is not UTF-8, cannot be read (a directory, no permission), is
    not a regular file (a FIFO would hang the host, ``/dev/zero`` would be read
    until memory runs out) or is over :data:`SETTINGS_LIMIT` raises
    ``SettingsError`` naming it: the service's callers keep their last good
    values on a ``SettingsError``.
    """
    what = "settings document"
    try:
        data = read_regular_bytes(path, limit=SETTINGS_LIMIT, what=what)
    except InputFileError as exc:
        if not os.path.lexists(path):
            return ""
        reason = exc.message.removeprefix(f"{what} {path}: ")
        raise SettingsError(f"{path}: cannot read the {what}: {reason}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse(text: str, *, where: str) -> CommentedMap:
    """The round-trip tree; invalid YAML raises ``SettingsError`` naming the line."""
    try:
        root = load_tree(text, yaml=make_yaml())
    except YamlProblem as exc:
        raise SettingsError(f"{where}: invalid YAML: {exc}") from None
    if root is None:
        return CommentedMap()
    if not isinstance(root, CommentedMap):
        raise SettingsError(f"{where}: expected a mapping of namespaces at the top level, got {describe_value(root)}")
    return root


def dump(root: CommentedMap) -> str:
    if not root:
        return ""
    out = io.StringIO()
    make_yaml().dump(root, out)
    return out.getvalue()


def sections(root: CommentedMap) -> dict[str, Section]:
    """Every string-keyed top-level section as JSON (unregistered ones included)."""
    return {key: read_section(key, node) for key, node in root.items() if isinstance(key, str)}


def read_section(namespace: str, node: Any) -> Section:
    if node is None:
        return Section(data={})
    if not isinstance(node, dict):
        return Section(data={}, errors={"": f"{namespace}: expected a mapping of fields, got {describe_value(node)}"})
    data: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, value in node.items():
        if not isinstance(key, str):
            errors[""] = f"{namespace}: field name {key!r} is not a string"
            continue
        try:
            data[key] = to_plain(value, f"{namespace}.{key}")
        except ValueError as exc:
            errors[key] = str(exc)
    return Section(data=data, errors=errors)


def to_plain(value: Any, where: str) -> Any:
    """A plain JSON copy of a round-trip node; ``ValueError`` names what is not JSON.

    ruamel hands back subclasses (``ScalarFloat``, ``CommentedSeq``...) that the
    strict converter would refuse by exact type, so everything is normalised.
    """
    if value is None or isinstance(value, str):
        return None if value is None else str(value)
    if isinstance(value, bool) or type(value).__name__ == "ScalarBoolean":
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not a finite JSON number")
        return float(value)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where}: key {key!r} is not a string")
            out[str(key)] = to_plain(item, f"{where}.{key}")
        return out
    if isinstance(value, list):
        return [to_plain(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.datetime)):
        raise ValueError(f"{where}: a date is not a JSON value (quote it to make it a string)")
    raise ValueError(f"{where}: {type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> str:
    """Key-sorted compact JSON: equal settings give equal text (revisions, change checks)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@contextlib.asynccontextmanager
async def file_lock(path: Path) -> AsyncIterator[None]:
    """Hold ``<file>.lock`` so another process's read-modify-write cannot interleave.

    ``flock`` may block on another process, so it is taken in a worker thread.
    """
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = await trio.to_thread.run_sync(_acquire, path)
    try:
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _acquire(path: Path) -> int:
    ensure_private_dir(path.parent)
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd
