"""A real ``harness serve`` in a subprocess: a temporary DSH_HOME, a profile with
the scripted model and the Shadow Mind bundle, a workspace with one file."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from ..cli_env import cli_env

ROOT = Path(__file__).resolve().parents[2]
#: the launch line: the origin, then where the credential travels (``#token=…``)
URL = re.compile(r"harness serve: ((http://[^/\s]+)/\S*?token=(\S+))")
#: a wait bound for the subprocess, not a timing assertion
START_LIMIT = 60.0
#: a profile row adding ``/notice TEXT`` (see ``notice_plugin.py``)
NOTICE_ROW = "- id: web-test-notices\n  name: tests.web.notice_plugin:NoticePlugin\n"

#: the models every scripted test profile offers, as the head of a script (``responses:`` follows)
MODELS = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
"""
#: a first turn that reads a file (so Shadow Mind reviews it), for a prompt containing the key
READ_FIRST = """  - match: {{depth: 0, last_user_contains: "{key}"}}
    reply:
      tool_calls: [{{name: read, arguments: {{path: notes.txt}}}}]
"""

#: every review reports ``content`` and the root answers each relay "Noted." (the tail of a script)
REPORTS_NOTED = """  - match: {{depth: 0, last_user_contains: "Shadow reports"}}
    repeat: true
    reply: {{text: "Noted."}}
  - match: {{depth: 1, has_tools: [structured_output]}}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {{status: report, verdict: {verdict}, severity: {severity}, content: "{content}"}}
"""

DEFINITION = """---
id: default
name: Reviewer
enabled: true
activation_probability: 1.0
run_with_model: scripted/shadow-model
---

Check the root's claims against its tool results.
"""


class Server:
    """``with Server(...) as served:`` starts it and stops it (Ctrl-C) at the end."""

    def __init__(
        self, tmp: Path, script: str, *, definition: str = DEFINITION, settings: str = "", rows: str = "", port: int = 0, args: tuple[str, ...] = ()
    ) -> None:
        self.tmp = tmp
        #: 0 picks a free port; a restart passes the port of the server it replaces
        self.port = port
        self.args = args
        self.home = tmp / "home"
        self.work = tmp / "work"
        self.home.mkdir(exist_ok=True, mode=0o700)
        self.work.mkdir(exist_ok=True)
        (self.work / "notes.txt").write_text("the deploy target is staging\n")
        (tmp / "script.yml").write_text(script)
        minds = self.home / "shadow-minds"
        if not minds.exists():
            minds.mkdir(mode=0o700)
            (minds / "default.md").write_text(definition)
        (tmp / "profile.yml").write_text(
            f"""- id: llm
  name: scripted-llm
  config: {{script: {tmp / "script.yml"}}}
- id: agent-loop
  name: agent-loop
  config: {{model: scripted/root-model}}
- bundle: shadow-mind
- id: shadow-mind-runtime
  config: {{resultBatchWindowMs: 0, randomSeed: 7, managementTools: true{settings}}}
{rows}"""
        )
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""
        self.token = ""
        #: the URL as printed, credential included
        self.launch = ""
        self.output: list[str] = []

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "serve", "--profile", str(self.tmp / "profile.yml"), "--port", str(self.port), "--cwd", str(self.work), *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # the repository root on the path, so a ``tests.web`` plugin row resolves from any cwd
            env=cli_env(DSH_HOME=str(self.home), PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)),
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + START_LIMIT
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            line = self.proc.stdout.readline()
            if not line:
                break
            self.output.append(line)
            found = URL.search(line)
            if found:
                self.launch, self.base, self.token = found.group(1), found.group(2), found.group(3)
                return self
        self.proc.kill()
        raise AssertionError(f"harness serve did not start: {self.output} {self.proc.stderr.read() if self.proc.stderr else ''}")

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, path: str = "/") -> str:
        """The printed launch URL with another path (and query) in front of its credential."""
        credential = self.launch[len(self.base) + 1 :]
        if credential.startswith("?") and "?" in path:
            credential = "&" + credential[1:]
        return self.base + path + credential

    def client(self) -> httpx.Client:
        """An API client carrying the credential as the page does: a header on every request."""
        return httpx.Client(base_url=self.base, headers={"authorization": f"Bearer {self.token}"}, timeout=30)

    def stop(self) -> tuple[int, str, str]:
        """Ctrl-C, as a person would; the exit code and the rest of the output."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            out, err = self.proc.communicate(timeout=START_LIMIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return self.proc.returncode, "".join(self.output) + out, err


def new_session(client: httpx.Client) -> str:
    """A new root session through the API; its id."""
    return str(client.post("/api/sessions", json={}).json()["id"])
