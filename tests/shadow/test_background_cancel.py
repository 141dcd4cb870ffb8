"""The person stops the root's background work (``dsh_agent_background_cancel``,
Ctrl-C at ``harness chat``'s prompt) while a report waits out the relay window:
the report settles ``aborted`` ``USER_CANCELLED`` at ``relay``, is never
relayed, and the window closes at once (no timer keeps the host busy)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import trio

from hookspecs.values import CancelCause
from shadow_mind_plugin.output.batcher import ReportBatcher

from .helpers import wait_for_waiting_report
from .test_outcomes import REPORT, relays, run_once

WINDOW_MS = 600_000


async def test_cancel_background_aborts_the_report_waiting_to_be_relayed(tmp_path: Path, autojump_clock: Any) -> None:
    cancelled_at: list[float] = []

    async def during(host: Any, runtime: Any, root: Any) -> None:
        await wait_for_waiting_report(runtime, root)
        cancelled_at.append(trio.current_time())
        root.cancel_background(CancelCause(by="user", reason="Ctrl-C"))

    view, root, _ = await run_once(tmp_path, REPORT, config={"resultBatchWindowMs": WINDOW_MS}, during=during)
    assert (view.phase, view.stage, view.reason_code) == ("aborted", "relay", "USER_CANCELLED")
    assert view.content is None and view.relayed is False
    assert not relays(root)
    # settled without waiting the window out (virtual time, autojump clock)
    assert trio.current_time() - cancelled_at[0] < WINDOW_MS / 1000


async def test_taking_the_waiting_reports_closes_the_window(autojump_clock: Any) -> None:
    delivered: list[list[str]] = []

    async def deliver(batch: list[str]) -> None:
        delivered.append(batch)

    async with trio.open_nursery() as nursery:
        batcher: ReportBatcher[str] = ReportBatcher(
            window_seconds=lambda: 600.0,
            deliver=deliver,
            spawn=lambda fn, *args, name: nursery.start_soon(fn, *args),
            logger=logging.getLogger("test"),
        )
        start = trio.current_time()
        assert batcher.add("r1")
        assert batcher.take_waiting() == ["r1"]
        await batcher.drain()
        assert trio.current_time() == start  # nothing slept the window out
        assert batcher.add("r2")  # a new report opens a new window
        await batcher.drain()
    assert delivered == [["r2"]]
