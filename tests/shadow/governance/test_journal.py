"""The one journal path: queued from observers without blocking, written in
order by a worker thread, files 0600 under 0700 directories."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.lowlevel

from shadow_mind_plugin.definitions import DefinitionError
from shadow_mind_plugin.definitions.registry import ShadowRegistry
from shadow_mind_plugin.governance import journal as journal_module
from shadow_mind_plugin.governance.journal import Journal

from ..test_definitions import mode


async def test_debug_journal(registry: ShadowRegistry, home: Path) -> None:
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test"), spawn=nursery.start_soon)
        journal.write("default", {"event": "run-admitted", "error": None, "nested": {"a": None, "b": 1}})
        journal.write("default", {"event": "run-finished", "text": "ü", "bad": float("nan")})
        await journal.flush()
    path = registry.log_root / "default.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [
        '{"event":"run-admitted","nested":{"b":1}}',
        '{"event":"run-finished","text":"ü","bad":null}',
    ]
    assert mode(path) == 0o600
    assert mode(registry.log_root) == 0o700 and mode(registry.root) == 0o700 and mode(home) == 0o700


async def test_debug_journal_rejects_unsafe_ids_at_once(registry: ShadowRegistry) -> None:
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test"), spawn=nursery.start_soon)
        for bad in ("../x", "", "A", "a/b"):
            with pytest.raises(DefinitionError, match=r"shadow id must match /\^\[a-z0-9\]"):
                journal.write(bad, {"event": "x"})
        with pytest.raises(TypeError):
            journal.write("default", {"path": Path("/secret")})
        await journal.flush()
    assert not registry.root.exists()


async def test_lines_keep_their_order_per_file(registry: ShadowRegistry) -> None:
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test"), spawn=nursery.start_soon)
        for i in range(20):
            journal.write("default", {"i": i})
            journal.write("other", {"i": i})
            if i % 7 == 0:
                await trio.lowlevel.checkpoint()  # let a writer start mid-stream
        await journal.flush()
    for name in ("default", "other"):
        records = [json.loads(line) for line in (registry.log_root / f"{name}.jsonl").read_text().splitlines()]
        assert [r["i"] for r in records] == list(range(20))


async def test_value_loop_journal(registry: ShadowRegistry) -> None:
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test"), spawn=nursery.start_soon)
        journal.value_loop({"classification": "ignored", "refs": [1, 2], "runId": "r1", "x": None})
        journal.value_loop({"classification": "challenge_adopted"})
        await journal.flush()
    lines = registry.value_loop_path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"classification": "ignored", "refs": [1, 2], "runId": "r1"},
        {"classification": "challenge_adopted"},
    ]
    assert mode(registry.value_loop_path) == 0o600 and mode(registry.root) == 0o700


async def test_write_never_touches_the_disk_on_the_event_loop(
    registry: ShadowRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Observers call ``write``: it only queues; the append happens in a worker
    thread, and an idle journal leaves no background task behind."""
    loop_thread = threading.get_ident()
    writes: list[int] = []
    real_append = journal_module.append_line

    def spy(path: Path, line: str) -> Any:
        writes.append(threading.get_ident())
        return real_append(path, line)

    monkeypatch.setattr(journal_module, "append_line", spy)
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test"), spawn=nursery.start_soon)
        journal.write("default", {"event": "run-admitted"})
        assert writes == [] and not (registry.log_root / "default.jsonl").exists()
        await journal.flush()
        assert writes and all(thread != loop_thread for thread in writes)
    # the nursery closed by itself: the writer ended when the queue was empty


async def test_a_failed_append_is_logged_and_later_lines_still_go_out(
    registry: ShadowRegistry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_append = journal_module.append_line
    calls = {"n": 0}

    def flaky(path: Path, line: str) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(28, "No space left on device")
        return real_append(path, line)

    monkeypatch.setattr(journal_module, "append_line", flaky)
    async with trio.open_nursery() as nursery:
        journal = Journal(registry, logging.getLogger("test-journal"), spawn=nursery.start_soon)
        journal.write("default", {"i": 0})
        await journal.flush()
        journal.write("default", {"i": 1})
        await journal.flush()
    assert "failed to write journal default.jsonl: OSError" in caplog.text
    lines = (registry.log_root / "default.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"i": 1}]
