"""YAML reading with line numbers, and plain-data conversion."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from hookspecs.errors import ProfileError
from hookspecs.fsutil import read_regular_text

from ..yaml_tree import YamlProblem, load_tree

#: A profile or patch is a page of YAML; anything near this size is not one.
PROFILE_LIMIT = 1 << 20


def read_text(path: Path, *, what: str = "profile") -> str:
    """The UTF-8 text of ``path``; failures are one line naming the file.

    A FIFO, a device (``/dev/zero``), a directory or a file over
    :data:`PROFILE_LIMIT` is refused at once (``InputFileError``) rather than
    hanging the CLI or reading until memory runs out.
    """
    return read_regular_text(path, limit=PROFILE_LIMIT, what=what)


def load_yaml(text: str, *, source: str) -> Any:
    """Round-trip load (nodes keep ``.lc`` line info); invalid YAML names the line (``hookspecs.values.wire.describe_yaml_error``)."""
    try:
        return load_tree(text, typ="rt")
    except YamlProblem as exc:
        raise ProfileError(f"{source}: invalid YAML: {exc}") from None


def line_of_item(seq: Any, index: int) -> int | None:
    """1-based line of ``seq[index]`` when the loader recorded it."""
    try:
        return int(seq.lc.item(index)[0]) + 1
    except Exception:
        return None


def line_of_value(mapping: Any, key: Any) -> int | None:
    """1-based line of ``mapping[key]`` when the loader recorded it."""
    try:
        return int(mapping.lc.value(key)[0]) + 1
    except Exception:
        return None


def line_of_key(mapping: Any, key: Any) -> int | None:
    """1-based line of ``key`` in ``mapping`` when the loader recorded it."""
    try:
        return int(mapping.lc.key(key)[0]) + 1
    except Exception:
        return None


def to_plain(node: Any) -> Any:
    """Strip ruamel's round-trip types (``LiteralScalarString``, ``HexInt``...)
    so strict converters see ``str``/``int``/``float``/``bool``/``dict``/``list``.
    """
    if isinstance(node, dict):
        return {to_plain(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if isinstance(node, bool):
        return bool(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, datetime.datetime):
        return datetime.datetime.fromisoformat(node.isoformat())
    return node
