"""Shadow-mind files under ``$DSH_HOME/shadow-minds/`` that are not regular
files (a FIFO, a symlink to ``/dev/zero``) are refused at once: the holdout
key sidecar and ``default.md`` never hang the host or exhaust its memory."""

from __future__ import annotations

import os
import resource
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from shadow_mind_plugin.definitions.errors import DefinitionError, HoldoutKeyError
from shadow_mind_plugin.definitions.holdout_keys import load_holdout_document
from shadow_mind_plugin.definitions.registry import ShadowRegistry

#: a hang guard only: a correct reader refuses a FIFO at once
GUARD_SECONDS = 30


def guarded(call: Callable[[], Any], fifo: Path) -> BaseException | None:
    """Run ``call`` in a thread; the exception it raised, or a test failure when
    it blocks on ``fifo`` (which is then opened and closed for writing, so the
    reader sees end of file and the thread ends)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # unblock the reader
        thread.join(GUARD_SECONDS)
        pytest.fail(f"reading {fifo.name} blocked on a FIFO")
    return outcome[0]


@contextmanager
def memory_capped(extra: int = 1 << 30) -> Iterator[None]:
    """Cap this process's address space a little above its current size, so a
    reader that drains /dev/zero fails with MemoryError instead of taking the
    machine's memory (the cap is lifted afterwards)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_a_fifo_holdout_sidecar_is_refused_at_once(tmp_path: Path) -> None:
    sidecar = tmp_path / "holdout-keys.json"
    os.mkfifo(sidecar)
    error = guarded(lambda: load_holdout_document(sidecar), sidecar)
    assert isinstance(error, HoldoutKeyError)
    assert "not a regular file" in error.message and str(tmp_path) not in error.message


def test_a_holdout_sidecar_linked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    sidecar = tmp_path / "holdout-keys.json"
    sidecar.symlink_to("/dev/zero")
    with memory_capped(), pytest.raises(HoldoutKeyError, match="not a regular file"):
        load_holdout_document(sidecar)


def test_a_fifo_default_definition_is_refused_on_save(tmp_path: Path) -> None:
    registry = ShadowRegistry(tmp_path / "home")
    registry.root.mkdir(parents=True)
    os.mkfifo(registry.default_path)
    error = guarded(lambda: registry._save_default_sync({"name": "x"}), registry.default_path)
    assert isinstance(error, DefinitionError)
    assert "default.md" in str(error) and "not a regular file" in str(error)


def test_a_fifo_budget_ledger_is_an_error_not_a_hang(tmp_path: Path) -> None:
    from shadow_mind_plugin.trigger.ledger import BudgetLedger, root_hash

    ledger_path = tmp_path / f"{root_hash('root-1')}.json"
    os.mkfifo(ledger_path)
    loaded: list[BudgetLedger] = []
    error = guarded(lambda: loaded.append(BudgetLedger.load(tmp_path, "root-1", [])), ledger_path)
    assert error is None
    assert loaded[0].error is not None and "unreadable" in loaded[0].error


def test_trace_refuses_a_fifo_journal_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from ..cli_env import cli_env

    home = tmp_path / "home"
    (home / "sessions").mkdir(parents=True)
    registry = ShadowRegistry(home)
    registry.root.mkdir(parents=True)
    os.mkfifo(registry.value_loop_path)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "harness", "shadow", "trace", "0123456789abcdef"],
            env=cli_env(DSH_HOME=str(home)),
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("harness shadow trace hung on a FIFO journal")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and registry.value_loop_path.name in lines[0] and "FIFO" in lines[0], done.stderr


def test_trace_does_not_read_a_session_log_symlinked_elsewhere(tmp_path: Path) -> None:
    from shadow_mind_plugin.diagnostics.sessions import SessionLogs

    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"type": "session", "version": 1, "id": "s1", "created_at": 1}\n')
    folder = tmp_path / "home" / "sessions" / "s1"
    folder.mkdir(parents=True)
    (folder / "session.jsonl").symlink_to(outside)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "session.jsonl").write_text(outside.read_text())
    (tmp_path / "home" / "sessions" / "s2").symlink_to(tmp_path / "elsewhere")
    logs = SessionLogs(tmp_path / "home")
    assert logs.path("s1") is None and logs.path("s2") is None
    assert logs.ids() == [] and logs.header("s1") is None
