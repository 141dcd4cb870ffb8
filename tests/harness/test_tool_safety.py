"""What the built-in tools must never do to the host: a pattern that freezes
it, a hardlink that reads past the workspace, a shell that writes outside it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

from hookspecs.errors import ToolError
from hookspecs.values import EventTypes, SessionEvent, ToolResult

from .helpers import poll_until
from .test_builtin_tools import FakeContext, call, call_error

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ctx(tmp_path: Path) -> FakeContext:
    """A context on a fresh, empty workspace ``tmp_path/ws``."""
    (tmp_path / "ws").mkdir()
    return FakeContext(cwd=tmp_path / "ws")


@pytest.fixture
def ws(ctx: FakeContext) -> Path:
    return ctx.cwd


# --- grep: no pattern can block the host -------------------------------------------------

GREP_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import trio

    from harness.tools.builtin.grep import TOOL
    from hookspecs.values.cancel import CancelToken


    class Context:
        cwd = Path(sys.argv[1])
        cancel = CancelToken()
        call_id = "call-1"
        agent = None

        def conclude_turn(self):
            pass


    result = trio.run(TOOL.execute, {"pattern": sys.argv[2]}, Context())
    print(result.text_content)
    """
)


def test_a_catastrophic_pattern_does_not_block_the_host(tmp_path: Path) -> None:
    # under a backtracking engine each extra "a" doubles the time: 32 of them take hours
    (tmp_path / "evil.txt").write_text("a" * 32 + "!\n")
    script = tmp_path / "grep_once.py"
    script.write_text(GREP_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), "(a+)+$"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no matches"
    assert done.stderr == ""  # the engine logs nothing of its own to the terminal


async def test_grep_refuses_what_a_linear_engine_cannot_do(ctx: FakeContext) -> None:
    for pattern in [r"(a)\1", "(?=x)y", "(?<!x)y"]:
        error = await call_error("grep", {"pattern": pattern}, ctx)
        (violation,) = error.violations
        assert violation.startswith("pattern: not supported by the linear-time engine (RE2): "), violation
        assert "\n" not in violation


async def test_grep_still_matches_case_insensitively_and_on_unicode(ctx: FakeContext, ws: Path) -> None:
    (ws / "u.txt").write_text("Grüße TODO\nnothing\n")
    hit = await call("grep", {"pattern": r"grÜße|todo\b", "ignore_case": True}, ctx)
    assert hit.text_content == "u.txt:1:Grüße TODO"


# --- hard links: a name inside, a file outside ------------------------------------------


async def test_a_hard_link_to_an_outside_file_is_not_read(ctx: FakeContext, ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET needle\n")
    os.link(secret, ws / "innocent.txt")
    (ws / "plain.txt").write_text("a needle here\n")
    error = await call_error("read", {"path": "innocent.txt"}, ctx)
    assert "hard link" in error.message and "TOP SECRET" not in error.message
    found = await call("grep", {"pattern": "needle"}, ctx)
    assert found.text_content == "plain.txt:1:a needle here"
    alone = await call("grep", {"pattern": "needle", "path": "innocent.txt"}, ctx)
    assert "TOP SECRET" not in alone.text_content


# --- the terminal shows model text, never obeys it --------------------------------------

HOSTILE = "Done.\x1b[2J\x1b]0;pwned\x07\r\x1b[32muser@host$\x1b[0m rm -rf ~\n\tindented\x9b31m"


def test_control_sequences_in_model_text_are_shown_not_obeyed(tmp_path: Path) -> None:
    script = tmp_path / "hostile.yml"
    script.write_text(f"responses:\n  - reply: {{text: {json.dumps(HOSTILE)}}}\n")
    profile = tmp_path / "p.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/x}\n"
    )
    env = {**os.environ, "DSH_HOME": str(tmp_path / "home")}
    env.pop("DSH_PROFILE", None)

    def harness(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "harness", *args], cwd=REPO, env=env, capture_output=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.decode("utf-8")  # bytes: text mode would turn a lone \r into \n

    streamed = harness("run", "--profile", str(profile), "hi")
    session_id = harness("sessions", "list").split()[0]
    shown = harness("sessions", "show", session_id)
    for out in (streamed, shown):
        assert "Done.^[[2J^[]0;pwned^G^M^[[32muser@host$^[[0m rm -rf ~\n\tindented" in out
        assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in out), repr(out)


# --- bash: unconfined by default, sandboxed by the session's sandbox mode ----------------

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def under_mode(ws: Path, mode: str) -> FakeContext:
    """A context whose agent's log sets ``sandbox/mode`` to ``mode``."""
    event = SessionEvent(type=EventTypes.SANDBOX_MODE, seq=0, time=0, data={"mode": mode, "source": "test"})
    return FakeContext(cwd=ws, agent=SimpleNamespace(session=SimpleNamespace(events=[event])))


async def test_bash_without_a_sandbox_mode_is_not_confined(ctx: FakeContext, tmp_path: Path) -> None:
    # what the docs say: without a sandbox mode bash runs with the host's rights
    result = await call("bash", {"command": f"head -c5 /etc/passwd; echo x > {tmp_path}/outside.txt"}, ctx)
    assert result.value["exit_code"] == 0 and (tmp_path / "outside.txt").exists()


@needs_bwrap
async def test_workspace_write_keeps_writes_in_the_workspace(ws: Path, tmp_path: Path) -> None:
    # /tmp is private to the sandbox: what lands there never reaches the host's
    command = f"echo in > inside.txt; head -c5 /etc/passwd; echo; echo x > {tmp_path}/outside.txt; touch /etc/probe"
    result = await call("bash", {"command": command}, under_mode(ws, "workspace-write"))
    assert (ws / "inside.txt").read_text() == "in\n"
    assert not (tmp_path / "outside.txt").exists() and not Path("/etc/probe").exists()
    assert "root:" in result.text_content and "Read-only file system" in result.text_content


@needs_bwrap
async def test_read_only_writes_nothing(ws: Path) -> None:
    result = await call("bash", {"command": "echo in > inside.txt"}, under_mode(ws, "read-only"))
    assert result.is_error and not (ws / "inside.txt").exists()


@needs_bwrap
async def test_the_sandbox_has_no_network(ws: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        result = await call("bash", {"command": f"{sys.executable} -c \"{probe}\""}, under_mode(ws, "workspace-write"))
        assert result.value["exit_code"] != 0
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody reached the host's loopback


async def test_an_unknown_sandbox_mode_refuses_to_run(ws: Path) -> None:
    with pytest.raises(ToolError, match="unknown sandbox mode 'jail'") as info:
        await call("bash", {"command": "touch ran"}, under_mode(ws, "jail"))
    assert info.value.code == "SANDBOX_UNAVAILABLE" and not (ws / "ran").exists()


async def test_a_missing_bwrap_is_named(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ToolError, match=r"needs bubblewrap \(bwrap\), which is not installed") as info:
        await call("bash", {"command": "touch ran"}, under_mode(ws, "workspace-write"))
    assert info.value.code == "SANDBOX_UNAVAILABLE" and not (ws / "ran").exists()


async def test_a_bwrap_that_cannot_start_is_reported(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # what bwrap prints where unprivileged user namespaces are disabled
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ToolError, match="the sandbox cannot start here: bwrap: No permissions to create new namespace") as info:
        await call("bash", {"command": "touch ran"}, under_mode(ws, "workspace-write"))
    assert info.value.code == "SANDBOX_UNAVAILABLE" and not (ws / "ran").exists()
    assert "\n" not in info.value.message


def test_the_cli_records_the_sandbox_mode(tmp_path: Path) -> None:
    env = {**os.environ, "DSH_HOME": str(tmp_path / "home")}
    env.pop("DSH_PROFILE", None)
    profile = "examples/profiles/scripted-hello.yml"
    args = ["run", "--profile", profile, "--sandbox", "workspace-write", "--json", "hi"]
    run = subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, env=env, capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    session_id = json.loads(run.stdout)["session_id"]
    show = ["sessions", "show", session_id, "--json"]
    shown = subprocess.run([sys.executable, "-m", "harness", *show], cwd=REPO, env=env, capture_output=True, timeout=60)
    modes = [e["data"] for e in map(json.loads, shown.stdout.splitlines()) if e["type"] == "sandbox/mode"]
    assert modes == [{"mode": "workspace-write", "source": "cli"}]


def _running(marker: str) -> bool:
    """Whether a host process has ``marker`` in its command line."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


@needs_bwrap
async def test_cancelling_kills_everything_in_the_sandbox(ws: Path) -> None:
    marker = "31.4159"  # a sleep nobody else runs: the PID inside the sandbox means nothing outside
    ctx = under_mode(ws, "workspace-write")
    results: list[ToolResult] = []

    async def run() -> None:
        results.append(await call("bash", {"command": f"sleep {marker} & touch started; wait"}, ctx))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        await poll_until(lambda: (ws / "started").exists(), what="the command to start", give_up_after=10)
        assert _running(marker)
        ctx.cancel.cancel("user pressed stop")
    (result,) = results
    assert result.error is not None and result.error.code == "ABORTED"
    await poll_until(lambda: not _running(marker), what="the command to stop", give_up_after=5)
