"""A failing automatic compaction pauses instead of costing one summary request
before every request: the real host and loop, the scripted model (its
summariser always fails), and the one warning the person gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.compaction.backoff import FIRST_WAIT_REQUESTS, MAX_WAIT_REQUESTS, RetryBackoff
from hookspecs.values import EventTypes

from .helpers import new_root, run_chat, say, scripted_host, scripted_profile

SCRIPT = """
models:
  - {id: m, context_window: 4000}
responses:
  - match: {system_contains: "working memory"}
    repeat: true
    reply: {error: {message: "summariser overloaded", code: OVERLOADED, status: 529}}
  - match: {depth: 0, last_user_contains: "huge"}
    reply: {error: {message: "maximum context length exceeded", code: CONTEXT_OVERFLOW, status: 400}}
  - match: {depth: 0}
    repeat: true
    reply: {text: "%s"}
""" % ("answer " * 20)


def turns_of_starts(agent: Any) -> list[tuple[int, str]]:
    """(the turn number, the trigger) of each compaction attempt."""
    turn, out = 0, []
    for event in agent.session.events:
        if event.type == EventTypes.TURN_START:
            turn = event.data["turn"]
        elif event.type == EventTypes.COMPACTION_START:
            out.append((turn, event.data["trigger"]))
    return out


def warnings(host: Any) -> list[str]:
    return [n.text for n in host.client.notices() if n.level == "warning" and "compaction" in n.text]


async def test_a_failing_compaction_waits_before_it_is_tried_again(tmp_path: Path) -> None:
    async with scripted_host(tmp_path, SCRIPT) as (host, _adapter):
        agent = (await new_root(host)).agent
        number = 0
        while not turns_of_starts(agent):  # until the history is under pressure
            await say(agent, f"question {number}")
            number += 1
            assert number < 200, "the history never came under pressure"
        first = turns_of_starts(agent)[0][0]
        # the provider's overflow complaint is not gated by the pause: tried once, then the error
        await say(agent, "a huge question")
        ends = [e.data["reason"] for e in agent.session.events if e.type == EventTypes.TURN_END]
        assert ends[-1]["kind"] == "error" and ends[-1]["error"]["code"] == "CONTEXT_OVERFLOW"
        assert turns_of_starts(agent)[1] == (first + 1, "context-overflow")
        for _ in range(30):
            await say(agent, f"question {number}")
            number += 1
        pressure = [turn for turn, trigger in turns_of_starts(agent) if trigger == "pressure"]
        gaps = [b - a for a, b in zip(pressure, pressure[1:], strict=False)]
        # every request was under pressure; unpaused, each would have asked for a summary
        assert 2 <= len(pressure) <= 5, pressure
        assert all(gap > FIRST_WAIT_REQUESTS for gap in gaps), gaps
        assert all(e.data["reason"]["kind"] == "completed" for e in agent.session.events[-5:] if e.type == EventTypes.TURN_END)
        [warning] = warnings(host)  # once for the streak, not once per failure
        assert warning.startswith("automatic compaction failed (summary): the summarising request failed")
        assert "summariser overloaded" in warning and "/compact" in warning


def test_the_pause_grows_with_failures_and_ends_on_growth_or_success() -> None:
    backoff = RetryBackoff()
    assert backoff.skip("s", 3_500, 4_000) is None  # never failed: try
    assert backoff.failed("s", "summary", 3_500)  # the first failure starts a pause
    assert [backoff.skip("s", 3_500, 4_000) is not None for _ in range(FIRST_WAIT_REQUESTS + 1)] == [True] * FIRST_WAIT_REQUESTS + [False]
    assert not backoff.failed("s", "summary", 3_600)  # a failure in a row: no second warning
    assert backoff.wait_after("s") == 2 * FIRST_WAIT_REQUESTS
    assert backoff.skip("s", 3_600, 4_000) is not None
    assert backoff.skip("s", 3_600 + 500, 4_000) is None  # the request grew by an eighth of the window
    for _ in range(10):
        backoff.failed("s", "summary", 3_600)
    assert backoff.wait_after("s") == MAX_WAIT_REQUESTS
    assert not backoff.failed("other", "cancelled", 3_600) and backoff.skip("other", 3_600, 4_000) is None
    backoff.succeeded("s")
    assert backoff.skip("s", 3_600, 4_000) is None and backoff.wait_after("s") == 0


def test_the_chat_prints_the_warning_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, SCRIPT)  # routes to scripted/m
    questions = "".join(f"question {n}\n" for n in range(45))
    done = run_chat("--profile", str(profile), stdin=questions, home=home, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "automatic compaction failed" in line]
    assert len(lines) == 1, done.stdout[-2000:]
    assert lines[0].startswith("[warning] automatic compaction failed (summary)")
    (log,) = (home / "sessions").glob("*/session.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    assert 2 <= sum(e["type"] == EventTypes.COMPACTION_START for e in events) <= 5  # not one per request


async def test_a_disposed_session_leaves_no_compaction_state(tmp_path: Path) -> None:
    """The built-in engine counts each session's requests and pauses a failing
    one; a long-running host (``harness serve``) must not keep that for every
    session it ever had."""
    async with scripted_host(tmp_path, SCRIPT) as (host, _adapter):
        engine = host.compaction.builtin
        handles = []
        for index in range(3):
            handle = await new_root(host)
            number = 0
            while not turns_of_starts(handle.agent):  # a failed compaction: a paused session
                await say(handle.agent, f"question {index}.{number}")
                number += 1
                assert number < 200, "the history never came under pressure"
            handles.append(handle)
        assert engine.remembered() == 3
        for handle in handles:
            await handle.dispose()
        assert engine.remembered() == 0
