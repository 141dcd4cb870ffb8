"""A CLI setup where every Shadow review hangs: the scripted reviewer streams a
line and then waits until it is cancelled, so a test can watch what the
terminal does while a review runs (and how it is stopped)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import attrs

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


def hanging_review(tmp_path: Path) -> Setup:
    """A DSH home whose default reviewer always runs (probability 1), a
    workspace with a file to read, and a profile with the Shadow Mind bundle."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / "shadow-minds").mkdir(parents=True, mode=0o700)
    (home / "shadow-minds" / "default.md").write_text(DEFINITION)
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    script = tmp_path / "script.yml"
    script.write_text(SCRIPT)
    profile = tmp_path / "profile.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/m}\n"
        "- bundle: shadow-mind\n"
        "- id: shadow-mind-runtime\n  config: {resultBatchWindowMs: 0}\n"
    )
    return Setup(home=home, work=work, profile=profile)
