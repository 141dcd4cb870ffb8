"""``harness run`` stopped from outside, for real in subprocesses: Ctrl-C
(SIGINT) while a review or the turn runs, and a reader that went away
(``harness run … | head -1``)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from harness.cli.common import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED

from .hanging_review import REPO, Setup, hanging_review

DEADLINE = 30


@pytest.fixture
def spawn_run() -> Iterator[Callable[..., PopenSpawn]]:
    """Start ``harness run`` on pipes (stdout and stderr merged on one stream);
    whatever a failed test leaves running is killed."""
    started: list[PopenSpawn] = []

    def start(setup: Setup, prompt: str, *args: str) -> PopenSpawn:
        child = PopenSpawn(setup.argv("run", prompt, *args), cwd=str(REPO), env=setup.env(), encoding="utf-8", timeout=DEADLINE)
        started.append(child)
        return child

    yield start
    for child in started:
        if child.proc.poll() is None:
            child.proc.kill()
            child.proc.wait()


def finish(child: PopenSpawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    status = child.wait()
    return status, child.before


def test_first_ctrl_c_while_only_a_review_runs_exits_at_once(tmp_path: Path, spawn_run: Any) -> None:
    setup = hanging_review(tmp_path)
    child = spawn_run(setup, "alpha: read the notes")
    child.expect("Read alpha.")
    child.expect("Reviewer reviewing")  # the root is idle; only the hanging review is left
    child.kill(signal.SIGINT)
    status, rest = finish(child)
    assert status == EXIT_INTERRUPTED == 130
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest
    assert rest.count("harness: interrupted") == 1
    # the review was cancelled: a reviewer child that started ended its turn aborted
    for reviewer in setup.sessions(children=True):
        assert {end["reason"]["kind"] for end in setup.turn_ends(reviewer)} <= {"aborted"}


def test_first_ctrl_c_during_the_turn_aborts_it_and_exits(tmp_path: Path, spawn_run: Any) -> None:
    setup = hanging_review(tmp_path)
    child = spawn_run(setup, "please hang")
    child.expect("Root thinking")
    child.kill(signal.SIGINT)
    status, rest = finish(child)
    assert status == EXIT_INTERRUPTED
    assert "Traceback" not in rest
    assert rest.count("harness: interrupted") == 1
    (root,) = setup.sessions(children=False)
    assert setup.turn_ends(root) == [{"turn": 1, "reason": {"kind": "aborted", "by": "user"}}]


@pytest.mark.parametrize(
    ("prompt", "json_mode"),
    [
        ("alpha: read the notes", False),  # the review it starts would hang
        ("please hang", False),  # the turn itself would hang
        ("beta", True),  # the transcript is written at the end, to the broken pipe
    ],
)
def test_a_reader_that_went_away_ends_the_run_quietly(tmp_path: Path, prompt: str, json_mode: bool) -> None:
    """``harness run … | head -1``: stdout is a pipe nobody reads. The run stops
    at the first write it cannot make (a hanging turn or review included),
    prints no traceback and exits 141 (128 + SIGPIPE, what a shell reports for a
    writer a broken pipe killed)."""
    setup = hanging_review(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    try:
        run = subprocess.run(
            setup.argv("run", prompt, *(["--json"] if json_mode else [])),
            cwd=REPO,
            env=setup.env(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=DEADLINE,
            check=False,
        )
    finally:
        os.close(write_end)
    assert run.returncode == EXIT_BROKEN_PIPE == 141
    # --json streams the turn to stderr; otherwise nothing at all is said there
    assert run.stderr == ("Plain answer.\n" if json_mode else "")
