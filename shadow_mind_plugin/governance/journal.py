"""Metadata-only journals: ``logs/<id>.jsonl`` (lifecycle and quality records
of a definition with ``debug: true``) and ``value-loop.jsonl``.

Never prompts, trajectories, report bodies, tool arguments, credentials or
absolute paths. :meth:`Journal.write` is called from host observers, so it
never blocks: it encodes the record (a bad record fails at once, never as a
partial line) and queues the line. One writer task appends queued lines in
order, in a worker thread, so the file order is the lifecycle order; the
writer ends when the queue is empty.
:meth:`Journal.flush` waits for everything queued so far; teardown flushes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from hookspecs.fsutil import append_line

from ..core.tracker import TaskTracker
from ..definitions.journal import encode_record

if TYPE_CHECKING:
    from ..core.owner import RunEntry
    from ..definitions.registry import ShadowRegistry

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
        # only a checks-only review's records carry it
        **({"check": view.check} if view.check else {}),
        # a model review's leads: a person tells them from the model's own finding
        **({"leads": list(view.leads)} if view.leads else {}),
        **({"trigger_check": view.trigger_check} if view.trigger_check else {}),
    }


class Journal:
    """The one way journal lines reach disk."""

    def __init__(
        self,
        registry: ShadowRegistry,
        logger: logging.Logger,
        *,
        spawn: Callable[..., None],
    ) -> None:
        self._registry = registry
        self._logger = logger
        self._spawn = spawn
        self._send, self._receive = trio.open_memory_channel[tuple[Path, str]](math.inf)
        #: lines queued and not yet written
        self._queued = TaskTracker()
        self._writer_started = False

    def write(self, shadow_id: str, record: Mapping[str, Any]) -> None:
        """Queue one record for ``logs/<shadow_id>.jsonl``. Raises for an unsafe
        id or a record JSON cannot hold; never blocks."""
        self._queue(self._registry.debug_log_path(shadow_id), encode_record(record))

    def value_loop(self, record: Mapping[str, Any]) -> None:
        """Queue one challenge-outcome record for ``value-loop.jsonl``."""
        self._queue(self._registry.value_loop_path, encode_record(record))

    async def flush(self) -> None:
        """Wait until every line queued so far is written (or its write failed)."""
        await self._queued.wait_idle()

    def _queue(self, path: Path, line: str) -> None:
        self._queued.enter()
        self._send.send_nowait((path, line))
        if not self._writer_started:
            self._writer_started = True
            self._spawn(self._writer, name="shadow-mind:journal")

    async def _writer(self) -> None:
        """Write until the queue is empty, then end (the next line starts a new
        writer), so an idle journal holds no background task."""
        try:
            while True:
                batch: list[tuple[Path, str]] = []
                while True:
                    try:
                        batch.append(self._receive.receive_nowait())
                    except trio.WouldBlock:
                        break
                if not batch:
                    return
                try:
                    await trio.to_thread.run_sync(self._append_batch, batch)
                finally:
                    for _ in batch:
                        self._queued.exit()
        finally:
            self._writer_started = False

    def _append_batch(self, batch: list[tuple[Path, str]]) -> None:
        for path, line in batch:
            try:
                append_line(path, line)
            except OSError as exc:  # diagnostics never break a run
                self._logger.warning("dsh-shadow-mind: failed to write journal %s: %s", path.name, type(exc).__name__)
