"""Special files for input-file tests: FIFOs, ``/dev/zero`` symlinks, and a CLI
run that cannot hang the suite or eat the machine's memory when a reader
misbehaves (the guards turn a hang or a runaway read into a test failure)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]
#: a hang guard only: a correct reader refuses a FIFO at once
GUARD_SECONDS = 60
#: address-space cap of the child, so reading /dev/zero fails fast instead of swapping
MEMORY_CAP = 2 << 30


def fifo(path: Path) -> Path:
    """A FIFO at ``path`` that nobody writes to (reading it blocks forever)."""
    os.mkfifo(path)
    return path


def zero_link(path: Path) -> Path:
    """A symlink at ``path`` to ``/dev/zero`` (endless bytes, ``st_size`` 0)."""
    path.symlink_to("/dev/zero")
    return path


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def harness_guarded(
    *args: str, home: Path, cwd: Path = REPO, prefix: Sequence[str] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` in a subprocess (``prefix``: a launcher such as ``setpriv``;
    ``env``: extra variables); a hang fails the test instead of blocking it."""
    try:
        return subprocess.run(
            [*prefix, sys.executable, "-m", "harness", *args],
            cwd=cwd,
            env=cli_env(DSH_HOME=str(home), **env),
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
            preexec_fn=_cap_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"harness {' '.join(args)} hung")


def assert_one_line_refusal(done: subprocess.CompletedProcess[str], *names: str) -> str:
    """The run failed with exactly one ``harness: ...`` line naming ``names``, no traceback."""
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr, done.stderr
    assert len(lines) == 1 and lines[0].startswith("harness: "), done.stderr
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]
