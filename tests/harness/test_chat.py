"""``harness chat``, run for real: stdin piped in subprocesses, and once through a pty."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from harness.cli.approver import preview_arguments
from harness.cli.chat_input import LineReader

from ..cli_env import cli_env
from .helpers import poll_until, scripted_profile
from .helpers import run_chat as chat

REPO = Path(__file__).resolve().parents[2]
HELLO = "examples/profiles/scripted-hello.yml"
DEADLINE = 20.0

WRITE_SCRIPT = """
models:
  - id: m
responses:
  - match: {last_user_contains: write}
    reply:
      text: "Writing the file."
      tool_calls:
        - name: write
          arguments: {path: out.txt, content: "hello from chat\\n"}
  - match: {depth: 0}
    repeat: true
    reply: {text: "All done."}
"""

HANG_SCRIPT = """
models:
  - id: m
responses:
  - match: {last_user_contains: hang}
    reply: {text: "Thinking very hard", hang: true}
  - match: {depth: 0}
    repeat: true
    reply: {text: "Back again."}
"""


def chat_env(home: Path) -> dict[str, str]:
    return cli_env(DSH_HOME=str(home))


def session_id(stdout: str) -> str:
    match = re.search(r"session ([0-9a-f]{8,})", stdout)
    assert match, stdout
    return match.group(1)


def session_events(home: Path, sid: str) -> list[dict[str, Any]]:
    lines = (home / "sessions" / sid / "session.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]  # line 1 is the header


def of_type(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["type"] == type_]


# --- piped stdin ------------------------------------------------------------------------


def test_prompt_streams_the_answer_and_eof_exits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = chat("--profile", HELLO, stdin="What is this project?\n", home=home)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "model scripted/hello-model" in out and "/help" in out.splitlines()[0]
    assert "you> What is this project?" in out  # piped input is echoed after the prompt
    assert "I should look at the README first." in out  # reasoning is shown
    assert '⚙ read(path="README.md")' in out
    assert "this project is Shadow Mind for Python" in out
    sid = session_id(out)
    ends = of_type(session_events(home, sid), "turn/end")
    assert ends == [{"turn": 1, "reason": {"kind": "completed"}}]
    show = subprocess.run(
        [sys.executable, "-m", "harness", "sessions", "show", sid],
        cwd=REPO, env=chat_env(home), capture_output=True, text=True, timeout=60,
    )
    assert "you: What is this project?" in show.stdout


def test_help_unknown_commands_and_slash_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = chat("--profile", HELLO, stdin="/help\n\n/nope now\n /nope is a path\n", home=home)
    assert run.returncode == 0, run.stderr
    assert "Commands:" in run.stdout
    assert re.search(r"^\s+/help\s+List the available commands$", run.stdout, re.M)
    assert "✗ unknown command /nope; type /help for the list" in run.stdout
    assert "you>  /nope is a path" in run.stdout and "this project is Shadow Mind" in run.stdout
    events = session_events(home, session_id(run.stdout))
    assert [d["name"] for d in of_type(events, "command/run")] == ["help"]
    # commands never reach the model; only the space-prefixed line did
    texts = [m["message"]["content"][0]["text"] for m in of_type(events, "user/message")]
    assert texts == ["/nope is a path"]


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [("y\n", "allowed-once"), ("yes\n", "allowed-once"), ("n\n", "rejected"), ("", "cancelled")],
)
def test_approval_is_asked_on_the_terminal(tmp_path: Path, answer: str, outcome: str) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    profile = scripted_profile(tmp_path, WRITE_SCRIPT)
    run = chat("--profile", str(profile), "--cwd", str(work), stdin="please write the file\n" + answer, home=home)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "? approval needed: write" in out
    assert "path: out.txt" in out  # the argument preview
    assert "Allow? [y/N]" in out
    assert "All done." in out  # the turn went on after the answer
    events = session_events(home, session_id(out))
    assert [d["outcome"] for d in of_type(events, "approval/decided")] == [outcome]
    target = work / "out.txt"
    if outcome == "allowed-once":
        assert target.read_text() == "hello from chat\n"
    else:
        assert not target.exists()
        assert "write failed [NOT_APPROVED]" in out
        assert f"was not approved ({outcome})" in out


def test_resume_continues_the_same_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, WRITE_SCRIPT)
    first = chat("--profile", str(profile), stdin="first question\n", home=home)
    assert first.returncode == 0, first.stderr
    sid = session_id(first.stdout)
    second = chat("--profile", str(profile), "--session", sid, stdin="second question\n", home=home)
    assert second.returncode == 0, second.stderr
    assert session_id(second.stdout) == sid
    assert "resumed after turn 1" in second.stdout
    assert "you: first question" in second.stdout  # the summary of the last lines
    events = session_events(home, sid)
    assert [d["turn"] for d in of_type(events, "turn/end")] == [1, 2]
    texts = [m["message"]["content"][0]["text"] for m in of_type(events, "user/message")]
    assert texts == ["first question", "second question"]


def test_bad_session_is_a_usage_error(tmp_path: Path) -> None:
    run = chat("--profile", HELLO, "--session", "missing-session", stdin="", home=tmp_path / "home")
    assert run.returncode == 2
    assert "missing-session" in run.stderr


# --- a real terminal --------------------------------------------------------------------


class Pty:
    """``harness chat`` on a pseudo-terminal: Ctrl-C and Ctrl-D as a person sends them."""

    def __init__(self, args: list[str], home: Path) -> None:
        import pty

        env = {**chat_env(home), "TERM": "xterm"}
        argv = [sys.executable, "-m", "harness", "chat", *args]
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal
            try:
                os.chdir(REPO)
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = b""
        self._seen = 0
        self.status: int | None = None

    def expect(self, text: str, timeout: float = DEADLINE) -> None:
        """Read until ``text`` appears after what earlier expects consumed."""
        deadline = time.monotonic() + timeout
        needle = text.encode()
        while (at := self.output.find(needle, self._seen)) < 0:
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"no {text!r} within {timeout}s; output: {self.output!r}")
        self._seen = at + len(needle)

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait(self, timeout: float = DEADLINE) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
            self._read(0.05)  # keep the pty drained so the child never blocks writing
        raise AssertionError(f"chat did not exit within {timeout}s; output: {self.output!r}")

    def _read(self, timeout: float) -> bool:
        if timeout <= 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        self.output += chunk
        return bool(chunk)

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.fixture
def terminal(tmp_path: Path) -> Any:
    if not hasattr(os, "fork"):
        pytest.skip("needs a POSIX pseudo-terminal")
    started: list[Pty] = []

    def start(*args: str) -> Pty:
        session = Pty(list(args), tmp_path / "home")
        started.append(session)
        return session

    yield start
    for session in started:
        session.close()


def wait_for_turn_end(home: Path, sid: str) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        ends = of_type(session_events(home, sid), "turn/end")
        if ends:
            return ends[-1]
        time.sleep(0.05)
    raise AssertionError("no turn/end in the session log")


def test_ctrl_c_aborts_the_turn_and_ctrl_d_exits(tmp_path: Path, terminal: Any) -> None:
    profile = scripted_profile(tmp_path, HANG_SCRIPT)
    chat_tty = terminal("--profile", str(profile), "--cwd", str(tmp_path))
    chat_tty.expect("you>")
    chat_tty.send(b"please hang\r")
    chat_tty.expect("Thinking very hard")  # the turn is running and hangs
    chat_tty.send(b"\x03")
    chat_tty.expect("aborted by user")
    sid = session_id(chat_tty.output.decode(errors="replace"))
    end = wait_for_turn_end(tmp_path / "home", sid)
    assert end == {"turn": 1, "reason": {"kind": "aborted", "by": "user"}}
    chat_tty.expect("you>")  # back at the prompt, and it still works
    chat_tty.send(b"again\r")
    chat_tty.expect("Back again.")
    chat_tty.expect("you>")
    chat_tty.send(b"\x04")
    assert chat_tty.wait() == 0
    turns = of_type(session_events(tmp_path / "home", sid), "turn/end")
    assert [t["reason"]["kind"] for t in turns] == ["aborted", "completed"]


def test_ctrl_c_twice_at_the_prompt_quits(tmp_path: Path, terminal: Any) -> None:
    profile = scripted_profile(tmp_path, HANG_SCRIPT)
    chat_tty = terminal("--profile", str(profile), "--cwd", str(tmp_path))
    chat_tty.expect("you>")
    chat_tty.send(b"\x03")
    chat_tty.expect("Ctrl-C again to quit")
    deadline = time.monotonic() + DEADLINE
    while True:  # a slow machine may let the 2 s window pass; pressing again re-arms it
        chat_tty.send(b"\x03")
        pid, status = 0, 0
        for _ in range(20):
            pid, status = os.waitpid(chat_tty.pid, os.WNOHANG)
            if pid:
                break
            chat_tty._read(0.05)
        if pid:
            chat_tty.status = os.waitstatus_to_exitcode(status)
            break
        assert time.monotonic() < deadline, chat_tty.output
    assert chat_tty.status == 0


# --- the pieces, in process ---------------------------------------------------------------


class QueueSource:
    """A line source fed by the test (reads block in the worker thread)."""

    shows_prompt = False
    echo_input = False

    def __init__(self) -> None:
        import queue

        self.lines: queue.Queue[str | None] = queue.Queue()
        self.forgotten = 0

    def read(self, prompt: str) -> str | None:
        return self.lines.get(timeout=DEADLINE)

    def forget_last(self) -> None:
        self.forgotten += 1

    def pending_text(self) -> str:
        return ""


async def test_newest_asker_gets_the_line_and_stale_lines_are_dropped() -> None:
    import io

    source, out = QueueSource(), io.StringIO()
    reader = LineReader(out, source)
    got: dict[str, str | None] = {}

    async def ask(name: str, prompt: str, history: bool = True) -> None:
        got[name] = await reader.readline(prompt, history=history)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader.serve)
        nursery.start_soon(ask, "prompt", "you> ")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(ask, "approval", "Allow? ", False)  # asked while the prompt waits
        await trio.testing.wait_all_tasks_blocked()
        source.lines.put("y")
        await poll_until(lambda: "approval" in got)
        assert got == {"approval": "y"} and source.forgotten == 1
        source.lines.put("hello")
        await poll_until(lambda: "prompt" in got)
        assert got["prompt"] == "hello"
        # an asker that gives up leaves its read running; the late line is dropped
        with trio.move_on_after(0.05):
            await reader.readline("Allow? ")
        source.lines.put("late answer")
        # the reader takes the late line and drops it (nobody waits): only then is
        # the next asker's line the end of input; a fixed sleep raced the thread
        await poll_until(lambda: not reader.prompt_visible)
        source.lines.put(None)
        assert await reader.readline("you> ") is None
        assert reader.eof and await reader.readline("you> ") is None
    # the prompt is shown again after the approval took the line it was waiting for
    assert out.getvalue() == "you> Allow? you> Allow? you> "


def test_argument_preview_is_short() -> None:
    lines = preview_arguments({"path": "a.txt", "content": "x\n" * 500, "mode": 3})
    assert lines[0] == "path: a.txt"
    assert lines[1].endswith("(500 lines, 1000 chars)") and len(lines[1]) < 220
    assert lines[2] == "mode: 3"
    assert preview_arguments(None) == []
