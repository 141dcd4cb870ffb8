"""Wall-clock helpers on top of the host clock."""

from __future__ import annotations

from datetime import UTC, datetime


def iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
