"""Metadata-only lifecycle journals (``logs/<id>.jsonl`` when ``debug: true``).

Never prompts, trajectories, report bodies, tool arguments, credentials or
absolute paths. Lines are appended synchronously so their order is the
lifecycle order; each append is one small write.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from hookspecs.fsutil import append_line

from ..definitions.journal import encode_record

if TYPE_CHECKING:
    from ..definitions.registry import ShadowRegistry
    from .state import RunEntry

SCHEMA_VERSION = 1

LIFECYCLE_EVENTS = frozenset(
    {
        "run-admitted",
        "child-started",
        "run-cancellation-requested",
        "run-finished",
        "report-delivered",
        "report-delivery-failed",
        "report-delivery-discarded",
    }
)


def lifecycle_record(entry: RunEntry, event: str, time: str) -> dict[str, Any]:
    view = entry.view
    return {
        "schema_version": SCHEMA_VERSION,
        "time": time,
        "event": event,
        "run_id": view.run_id,
        "shadow_id": view.shadow_id,
        "root_session_id": entry.owner.root_id,
        "child_session_id": view.child_session_id,
        "captured_through_seq": view.captured_through_seq,
        "phase": str(view.phase),
        "stage": str(view.stage),
        "reason_code": str(view.reason_code) if view.reason_code else None,
        "cancellation_source": str(view.cancellation_source) if view.cancellation_source else None,
        "provider_stop_reason": view.provider_stop_reason,
        "error": view.error,
        "relayed": view.relayed,
    }


class Journal:
    def __init__(self, registry: ShadowRegistry, logger: logging.Logger) -> None:
        self._registry = registry
        self._logger = logger

    def write(self, shadow_id: str, record: dict[str, Any]) -> None:
        try:
            append_line(self._registry.debug_log_path(shadow_id), encode_record(record))
        except Exception as exc:  # diagnostics never break a run
            self._logger.warning("dsh-shadow-mind: failed to write debug log for %s: %s", shadow_id, type(exc).__name__)

    def value_loop(self, record: dict[str, Any]) -> None:
        try:
            append_line(self._registry.value_loop_path, encode_record(record))
        except Exception as exc:
            self._logger.warning("dsh-shadow-mind: failed to write value-loop log: %s", type(exc).__name__)
