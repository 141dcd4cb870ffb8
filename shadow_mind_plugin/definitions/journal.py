"""JSON Lines journals (debug logs, value loop): one compact record per line.

Records are encoded the way the reference's ``JSON.stringify`` would write
them: ``None`` stands for JavaScript's ``undefined`` and its keys are dropped
(at every mapping level), non-finite floats become ``null``, output is compact
and not ASCII-escaped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookspecs.fsutil import append_line


def encode_record(record: Mapping[str, Any]) -> str:
    """One JSON line (without the newline). Raises TypeError for values JSON
    cannot hold (paths, objects): journals carry plain metadata only."""
    return json.dumps(_clean(record), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def append_record(path: Path, record: Mapping[str, Any]) -> None:
    """Append ``record`` to ``path`` (file 0600, missing directories 0700).

    Blocking: async callers run it in a worker thread. The line is encoded
    first, so a bad record never leaves a partial line behind.
    """
    append_line(path, encode_record(record))


def _clean(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
