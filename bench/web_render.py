"""The web page's cost of opening a dense session: empty vs ``--events`` events.

Both sides do the same thing in real headless Chromium (Debian's ``chromium``,
driven by Playwright) against one real ``harness serve`` subprocess: open a new
page at the session's address with the launch credential, and wait until the
page has drawn every entry of the session and its stream says ``ready``
(the header reads *Connected*). One side opens an empty session, the other a
session of ``--events`` durable events the page shows (turns of a prompt, an
assistant message calling a tool, the call, its result, the answer and the
turn's end), written beforehand with ``SessionStore``.

The primary sample is the wall time from ``goto`` to that state; the Chrome
DevTools Performance metrics ``ScriptDuration``, ``LayoutDuration`` and
``RecalcStyleDuration`` of the page are reported beside it. Target: the dense
session within 2x the empty one (it was ~7x while every entry scrolled the page
on its own). Run::

    python bench/web_render.py [--events 1000] [--reps 5] [--quick]
"""

from __future__ import annotations

import argparse
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import compare_many, temp_dsh_home

TARGET = 2.0
URL = re.compile(r"harness serve: (http://[^/\s]+)/#token=(\S+)")
CHROMIUM = os.environ.get("DSH_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
#: events per turn the builder writes, every one of them shown by the page
PER_TURN = 7
ANSWER = "The loader reads the profile rows in order, applies the patch, then **validates** each plugin's settings."


def write_sessions(home: Path, events: int) -> tuple[str, str]:
    """An empty session and one of ``events`` shown events; their ids."""
    from harness.clock import HostClock
    from harness.sessions import SessionStore
    from hookspecs.values import (
        EventTypes,
        Message,
        SessionHeader,
        TextBlock,
        ToolCallBlock,
        ToolResultBlock,
        create_user_message,
        message_to_json,
    )

    def assistant(turn: int, text: str, call: ToolCallBlock | None) -> dict[str, Any]:
        content: list[Any] = [TextBlock(text=text)] + ([call] if call else [])
        message = Message(id=f"m-{turn}-{bool(call)}", role="assistant", content=tuple(content), source={"kind": "model"})
        return {"turn": turn, "step": 0, "message": message_to_json(message), "stop": "tool-calls" if call else "stop"}

    async def build() -> tuple[str, str]:
        clock = HostClock()
        store = SessionStore(sessions_dir=home / "sessions", on_event=lambda _s, _e: None, now_ms=clock.now_ms)
        ids = []
        for name, count in (("empty", 0), ("dense", events)):
            log = store.create(SessionHeader(id=f"bench-{name}", created_at=time.time() * 1000, cwd=str(home)))
            turn = written = 0
            while written < count:
                turn += 1
                call_id = f"call-{turn}"
                call = ToolCallBlock(id=call_id, name="read", arguments='{"path": "notes.txt"}')
                result = Message(
                    id=f"r-{turn}", role="tool", source={"kind": "tool", "call_id": call_id},
                    content=(ToolResultBlock(tool_call_id=call_id, content=(TextBlock(text="line one\nline two"),)),),
                )  # fmt: skip
                for etype, data in (
                    (EventTypes.TURN_START, {"turn": turn}),
                    (EventTypes.USER_MESSAGE, {"turn": turn, "message": message_to_json(create_user_message(f"Question {turn}?"))}),
                    (EventTypes.ASSISTANT_MESSAGE, assistant(turn, "Let me read the notes.", call)),
                    (EventTypes.TOOL_CALL, {"turn": turn, "call_id": call_id, "name": "read", "arguments": call.arguments}),
                    (EventTypes.TOOL_RESULT, {"turn": turn, "call_id": call_id, "name": "read", "message": message_to_json(result)}),
                    (EventTypes.ASSISTANT_MESSAGE, assistant(turn, ANSWER, None)),
                    (EventTypes.TURN_END, {"turn": turn, "reason": {"kind": "completed"}}),
                ):
                    if written < count:
                        log.append(etype, data)
                        written += 1
            store.close(log.id)
            ids.append(log.id)
        return ids[0], ids[1]

    return trio.run(build)


def start_server(home: Path, tmp: Path) -> tuple[subprocess.Popen[str], str, str]:
    (tmp / "script.yml").write_text("models:\n  - {id: m, context_window: 128000}\nresponses: []\n")
    (tmp / "profile.yml").write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {tmp / 'script.yml'}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/m}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")} | {"DSH_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "serve", "--profile", str(tmp / "profile.yml"), "--port", "0", "--cwd", str(tmp)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    deadline = time.monotonic() + 60  # a bound on start-up, not a measurement
    while time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 1.0)[0]:
            found = URL.search(proc.stdout.readline())
            if found:
                return proc, found.group(1), found.group(2)
    proc.kill()
    raise SystemExit(f"harness serve did not start: {proc.stderr.read() if proc.stderr else ''}")


METRICS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
DONE = """(count) => document.querySelectorAll('#log > [data-seq]').length >= count
    && document.getElementById('connection').dataset.state === 'connected'"""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="200 events, 2 reps: a check that it runs")
    args = parser.parse_args()
    if args.quick:
        args.events, args.reps = 200, 2
    if not Path(CHROMIUM).is_file():
        raise SystemExit(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with temp_dsh_home(prefix="dsh-bench-web-") as home:
        empty, dense = write_sessions(home, args.events)
        proc, base, token = start_server(home, home.parent)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)

                def opener(session: str, count: int) -> Any:
                    def run() -> dict[str, float]:
                        page = browser.new_page(viewport={"width": 1280, "height": 800})
                        cdp = page.context.new_cdp_session(page)
                        cdp.send("Performance.enable")
                        start = time.perf_counter()
                        page.goto(f"{base}/?session={session}#token={token}")
                        page.wait_for_function(DONE, arg=count, timeout=120_000)
                        seconds = time.perf_counter() - start
                        got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                        page.context.close()
                        return {"seconds": seconds, **{name: got.get(name, 0.0) for name in METRICS}}

                    return run

                print(f"web page: an empty session vs {args.events:,} shown events; {args.reps} interleaved reps, medians")
                compare_many(
                    [("empty session", opener(empty, 0)), (f"{args.events} events", opener(dense, args.events))],
                    reps=args.reps,
                    targets={f"{args.events} events": TARGET},
                )
                browser.close()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
