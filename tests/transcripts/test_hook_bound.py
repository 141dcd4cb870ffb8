"""The Stop hook's whole run is bounded by ``--timeout``, the import included
(issue 20, item 3): past it the hook answers ``{}`` (the agent stops), exits 0
and writes one line to stderr. Behaviour is asserted, never elapsed time: the
work that overruns blocks for ever, so only the bound can end it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from harness.transcripts import bound

from ..cli_env import cli_env
from .reviewer import REPO, claude_transcript

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the bound needs fork")


def test_work_inside_the_bound_answers(capfd: pytest.CaptureFixture[str]) -> None:
    assert bound.run_bounded(lambda: {"decision": "block", "reason": "r"}, seconds=30) == {
        "decision": "block",
        "reason": "r",
    }
    assert capfd.readouterr().err == ""


def test_work_that_never_ends_is_cut_at_the_bound(capfd: pytest.CaptureFixture[str]) -> None:
    def stuck() -> dict[str, object]:
        threading.Event().wait()  # a step that ignores every cancellation: only the bound ends it
        return {"decision": "block", "reason": "too late"}

    assert bound.run_bounded(stuck, seconds=0.2) == {}
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("harness shadow hook: ") and "--timeout" in err[0], err


def test_work_that_dies_without_an_answer_answers_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    def dies() -> dict[str, object]:
        os._exit(3)

    assert bound.run_bounded(dies, seconds=30) == {}
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("harness shadow hook: "), err


def test_no_time_left_answers_at_once(capfd: pytest.CaptureFixture[str]) -> None:
    called: list[bool] = []
    assert bound.run_bounded(lambda: called.append(True) or {}, seconds=0) == {}
    assert not called and len(capfd.readouterr().err.splitlines()) == 1


def test_the_import_counts_against_the_bound(tmp_path: Path) -> None:
    """A bound shorter than the interpreter's own start: spent before the hook's
    entry, so the hook answers ``{}`` without reading its input."""
    transcript = claude_transcript(tmp_path)
    stdin = json.dumps({"session_id": "cc-1", "transcript_path": str(transcript), "stop_hook_active": False})
    run = subprocess.run(
        [sys.executable, "-m", "harness", "shadow", "hook", "claude-code", "--timeout", "0.000001"],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(tmp_path / "home")),
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0 and json.loads(run.stdout) == {}
    err = run.stderr.decode().splitlines()
    assert len(err) == 1 and "--timeout" in err[0], err
    assert not (tmp_path / "home" / "imports").exists()  # it stopped before doing anything


def test_the_timeout_is_read_before_anything_else() -> None:
    assert bound.timeout_of(["claude-code", "--timeout", "7.5"], default=50.0) == 7.5
    assert bound.timeout_of(["claude-code", "--timeout=2"], default=50.0) == 2.0
    assert bound.timeout_of(["claude-code"], default=50.0) == 50.0
    # a bad value is the parser's to report; the bound keeps the default
    assert bound.timeout_of(["claude-code", "--timeout", "nan"], default=50.0) == 50.0
