"""``harness demo --serve`` and the demo's further questions (issue 21, item 10):
the demo runs, then the web client serves its session on loopback (real HTTP);
a second question gets the demo's scripted fallback, not ``SCRIPT_EXHAUSTED``;
Ctrl-C stops the server and removes the demo's temporary files."""

from __future__ import annotations

import json
import re
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from ..cli_env import cli_env
from .test_demo import PROMPT, harness_command

URL = re.compile(r"harness serve: (http://127\.0\.0\.1:\d+)/#token=(\S+)")
#: hang guards, not timing assertions: a missing line or item would otherwise block the suite
START_LIMIT = 120.0
STREAM_LIMIT = 60.0
FALLBACK = "This is the **offline demo**"


def read_until_url(proc: subprocess.Popen[str], seen: list[str]) -> tuple[str, str]:
    assert proc.stdout is not None
    give_up = time.monotonic() + START_LIMIT
    while time.monotonic() < give_up:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = URL.search(line)
        if found:
            return found.group(1), found.group(2)
    proc.kill()
    raise AssertionError(f"harness demo --serve printed no URL: {seen}")


def sse_items(response: httpx.Response) -> Iterator[dict[str, Any]]:
    give_up = time.monotonic() + STREAM_LIMIT
    for line in response.iter_lines():
        if time.monotonic() > give_up:
            raise AssertionError("the expected item never came")
        if line.startswith("data: "):
            yield json.loads(line[6:])


def test_demo_serve_serves_the_page_and_the_demo_session(tmp_path: Path) -> None:
    cwd, temp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    temp.mkdir()
    proc = subprocess.Popen(
        [*harness_command(), "demo", "--serve", "--port", "0"],
        cwd=cwd,
        env=cli_env(TMPDIR=str(temp), HOME=str(tmp_path)),  # no DSH_HOME: the demo's own
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[str] = []
    try:
        base, token = read_until_url(proc, seen)
        assert "Correction: the reviewer is right" in "".join(seen)  # the demo ran first
        page = httpx.get(base + "/", timeout=30)
        assert page.status_code == 200 and "<html" in page.text.lower()
        with httpx.Client(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
            (session,) = client.get("/api/sessions").json()["sessions"]
            assert session["title"] == PROMPT
            events = client.get(f"/api/sessions/{session['id']}/events").json()["events"]
            texts = [e.get("text", "") for e in events if e["type"] == "assistant/message"]
            assert texts[-1].startswith("Correction: the reviewer is right")
            # a second question, in the web client: the scripted fallback answers it
            last = events[-1]["seq"]
            with client.stream("GET", f"/api/sessions/{session['id']}/stream", params={"after": last}) as stream:
                sent = client.post(f"/api/sessions/{session['id']}/send", json={"text": "What else can you do?"})
                assert sent.json() == {"ok": True, "text": ""}
                ends = []
                for item in sse_items(stream):
                    event = item.get("event", {})
                    if event.get("type") == "assistant/message":
                        assert event["text"].startswith(FALLBACK)
                    if event.get("type") == "turn/end":
                        ends.append(event)
                        break
            assert ends[0]["text"] == ""  # completed: no error line (no SCRIPT_EXHAUSTED)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=START_LIMIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "harness serve: stopped" in out
    assert "Traceback" not in err
    assert list(temp.iterdir()) == []  # the demo's copy and DSH_HOME are gone
    assert list(cwd.iterdir()) == []


def test_the_demo_chat_answers_a_second_question(tmp_path: Path) -> None:
    """Piped into ``harness demo --chat``: the demo's question, then another."""
    run = subprocess.run(
        [*harness_command(), "demo", "--chat"],
        cwd=tmp_path,
        env=cli_env(DSH_HOME=str(tmp_path / "home")),
        input=f"{PROMPT}\nAnd which license does it use?\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "Correction: the reviewer is right" in run.stdout
    assert "offline demo" in run.stdout
    assert "SCRIPT_EXHAUSTED" not in run.stdout + run.stderr
