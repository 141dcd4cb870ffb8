"""Session folders the CLI cannot trust: an unreadable folder, a log symlinked
outside ``$DSH_HOME``, a header naming another session. Each is one line
naming the folder or file (no traceback) for ``sessions show``, ``run
--session`` and ``sessions list``; ``list`` still lists the valid neighbours."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ECHO, scripted_profile
from .special_files import assert_one_line_refusal, harness_guarded

#: root reads a mode-000 folder anyway, so as root the CLI runs as ``nobody``
NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


class Cli:
    """``harness`` with one ``DSH_HOME``, optionally as another user."""

    def __init__(self, home: Path, profile: Path, *, prefix: list[str] | None = None) -> None:
        self.home, self.profile, self.prefix = home, profile, prefix or []

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        home = self.home
        return harness_guarded(*args, home=home, cwd=home.parent, prefix=self.prefix, HOME=str(home.parent))

    def new_session(self, prompt: str = "hi") -> str:
        done = self("run", "--profile", str(self.profile), "--json", prompt)
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["session_id"])

    def folder(self, session_id: str) -> Path:
        return self.home / "sessions" / session_id


@pytest.fixture
def world() -> Iterator[Path]:
    """A directory every user may enter (``tmp_path`` is root's, mode 0700)."""
    top = Path(tempfile.mkdtemp(prefix="dsh-folders-"))
    os.chmod(top, 0o755)
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def cli_in(world: Path) -> Cli:
    profile = scripted_profile(world, ECHO)
    for path in (profile, world / "script.yml"):
        os.chmod(path, 0o644)
    return Cli(world / "home", profile)


def as_unprivileged(cli: Cli) -> Cli:
    """The same CLI as a user whom mode 000 stops (``nobody`` when we are root)."""
    if os.geteuid() != 0:
        return cli
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: mode 000 cannot be made unreadable")
    for root, dirs, files in os.walk(cli.home):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), NOBODY, NOBODY)
    os.chown(cli.home, NOBODY, NOBODY)
    return Cli(cli.home, cli.profile, prefix=AS_NOBODY)


def test_an_unreadable_session_folder_is_one_line(world: Path) -> None:
    cli = cli_in(world)
    good, bad = cli.new_session("first"), cli.new_session("second")
    user = as_unprivileged(cli)
    os.chmod(cli.folder(bad), 0)
    name = f"sessions/{bad}"

    listing = user("sessions", "list")
    assert listing.returncode == 0, listing.stderr
    assert good in listing.stdout and bad not in listing.stdout
    problems = listing.stderr.strip().splitlines()
    assert len(problems) == 1 and name in problems[0] and "Traceback" not in listing.stderr, listing.stderr

    assert_one_line_refusal(user("sessions", "show", bad), name)
    assert_one_line_refusal(user("run", "--profile", str(cli.profile), "--session", bad, "again"), name)


def test_a_session_log_symlinked_outside_the_home_is_refused(world: Path) -> None:
    cli = cli_in(world)
    good, linked = cli.new_session("first"), cli.new_session("second")
    outside = world / "elsewhere.jsonl"
    log = cli.folder(linked) / "session.jsonl"
    shutil.move(log, outside)
    log.symlink_to(outside)
    before = outside.read_bytes()
    name = f"sessions/{linked}/session.jsonl"

    assert_one_line_refusal(cli("sessions", "show", linked), name)
    assert_one_line_refusal(cli("run", "--profile", str(cli.profile), "--session", linked, "again"), name)
    listing = cli("sessions", "list")
    assert good in listing.stdout and linked not in listing.stdout
    assert name in listing.stderr and "Traceback" not in listing.stderr
    assert outside.read_bytes() == before  # neither read into a session nor written through


def test_a_session_folder_symlinked_outside_the_home_is_refused(world: Path) -> None:
    cli = cli_in(world)
    linked = cli.new_session()
    outside = world / "elsewhere"
    shutil.move(cli.folder(linked), outside)
    cli.folder(linked).symlink_to(outside, target_is_directory=True)
    before = (outside / "session.jsonl").read_bytes()

    assert_one_line_refusal(cli("sessions", "show", linked), f"sessions/{linked}")
    assert_one_line_refusal(cli("run", "--profile", str(cli.profile), "--session", linked, "again"), f"sessions/{linked}")
    assert (outside / "session.jsonl").read_bytes() == before


def test_a_header_naming_another_session_is_refused(world: Path) -> None:
    cli = cli_in(world)
    original = cli.new_session()
    copy = "copied-session-0001"
    shutil.copytree(cli.folder(original), cli.folder(copy))
    (cli.folder(copy) / "session.lock").unlink(missing_ok=True)
    name = f"sessions/{copy}/session.jsonl"

    line = assert_one_line_refusal(cli("sessions", "show", copy), name)
    assert original in line
    assert_one_line_refusal(cli("run", "--profile", str(cli.profile), "--session", copy, "again"), name)
    listing = cli("sessions", "list")
    assert listing.stdout.count(original) == 1 and copy not in listing.stdout
    assert name in listing.stderr
