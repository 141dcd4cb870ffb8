"""A CLI setup where every Shadow review hangs: the scripted reviewer streams a
line and then waits until it is cancelled, so a test can watch what the
terminal does while a review runs (and how it is stopped)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pexpect

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]

#: ``alpha`` and ``gamma`` are tool turns (each starts a review); ``beta`` and
#: anything else is a plain answer; every reviewer request hangs.
SCRIPT = """
models:
  - id: m
responses:
  - match: {depth: 0, last_user_contains: alpha}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: alpha}
    reply: {text: "Read alpha."}
  - match: {depth: 0, last_user_contains: gamma}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: gamma}
    reply: {text: "Read gamma."}
  - match: {depth: 0, last_user_contains: hang}
    reply: {text: "Root thinking", hang: true}
  - match: {depth: 1}
    repeat: true
    reply: {text: "Reviewing slowly", hang: true}
  - match: {depth: 0}
    repeat: true
    reply: {text: "Plain answer."}
"""

DEFINITION = """---
id: default
name: Reviewer
enabled: true
activation_probability: 1
---

Check the root's claims against its tool results.
"""


@attrs.frozen(kw_only=True)
class Setup:
    home: Path
    work: Path
    profile: Path

    def env(self, **extra: str) -> dict[str, str]:
        return cli_env(DSH_HOME=str(self.home), **extra)

    def argv(self, command: str, *args: str) -> list[str]:
        return [sys.executable, "-m", "harness", command, "--profile", str(self.profile), "--cwd", str(self.work), *args]

    def events(self, session_id: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self._lines(session_id)[1:]]

    def sessions(self, *, children: bool) -> list[str]:
        """Root sessions, or the child sessions (the reviewers'), by their header."""
        found = []
        for path in sorted((self.home / "sessions").iterdir()):
            header = json.loads(self._lines(path.name)[0])
            if bool(header.get("parent_session")) == children:
                found.append(path.name)
        return found

    def turn_ends(self, session_id: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events(session_id) if e["type"] == "turn/end"]

    def _lines(self, session_id: str) -> list[str]:
        # line 1 is the session header
        return (self.home / "sessions" / session_id / "session.jsonl").read_text().splitlines()


def chat_setup(tmp_path: Path, script: str, runtime: str, rows: str = "") -> Setup:
    """A DSH home whose default reviewer always runs (probability 1), a
    workspace with a file to read, and a profile with the Shadow Mind bundle
    whose model plays ``script``; ``runtime`` is the runtime row's config and
    ``rows`` more profile rows."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / "shadow-minds").mkdir(parents=True, mode=0o700)
    (home / "shadow-minds" / "default.md").write_text(DEFINITION)
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    script_path = tmp_path / "script.yml"
    script_path.write_text(script)
    profile = tmp_path / "profile.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script_path}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/m}\n"
        "- bundle: shadow-mind\n"
        f"- id: shadow-mind-runtime\n  config: {runtime}\n" + rows
    )
    return Setup(home=home, work=work, profile=profile)


def hanging_review(tmp_path: Path) -> Setup:
    """:func:`chat_setup` with the hanging reviewer's script, reports relayed at once."""
    return chat_setup(tmp_path, SCRIPT, "{resultBatchWindowMs: 0}")


@contextmanager
def chats(*, term: str, columns: int, timeout: float) -> Iterator[Callable[..., pexpect.spawn]]:
    """``start(setup, columns=columns)``: ``harness chat`` of ``setup`` on a pseudo-terminal
    40 rows high; every chat started is closed on the way out."""
    started: list[pexpect.spawn] = []

    def start(setup: Setup, columns: int = columns) -> pexpect.spawn:
        argv = setup.argv("chat")
        child = pexpect.spawn(
            argv[0],
            argv[1:],
            cwd=str(REPO),
            env=setup.env(TERM=term, COLUMNS=str(columns)),
            encoding="utf-8",
            timeout=timeout,
            dimensions=(40, columns),
        )
        started.append(child)
        return child

    try:
        yield start
    finally:
        for child in started:
            child.close(force=True)


def expect_all(child: pexpect.spawn, *patterns: str) -> None:
    """Wait until every pattern has appeared, in whatever order they arrive
    (a card may land before or after the prompt comes back)."""
    remaining = list(patterns)
    while remaining:
        remaining.pop(child.expect(remaining))
