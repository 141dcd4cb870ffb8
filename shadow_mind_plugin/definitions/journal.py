"""How a journal record is encoded (debug logs, value loop): one compact JSON
line. The one writer is :class:`shadow_mind_plugin.governance.journal.Journal`.

Records are encoded the way the reference's ``JSON.stringify`` would write
them: ``None`` stands for JavaScript's ``undefined`` and its keys are dropped
(at every mapping level), non-finite floats become ``null``, output is compact
and not ASCII-escaped. Every string value passes the one secret detector
(``hookspecs.scrub.scrub_json``) first: records are metadata, but a reason
or an error message may quote what a tool or provider said.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from hookspecs.scrub import scrub_json


def encode_record(record: Mapping[str, Any]) -> str:
    """One JSON line (without the newline). Raises TypeError for values JSON
    cannot hold (paths, objects): journals carry plain metadata only."""
    return json.dumps(scrub_json(_clean(record)), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _clean(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
