"""The checks of ``real_agents_check.py``: what a real CLI run must show, scenario by scenario."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from real_agents_models import (
    CLAIM,
    OWNED_UP,
    PROMPT,
    QUIET_ANSWER,
    RELAY_MARK,
    SUBAGENT_DONE,
    SUBAGENT_PROMPT,
    ModelServer,
)
from real_agents_world import Run, environment

from harness.transcripts import import_transcript

Check = dict[str, Any]


def check(name: str, ok: bool, detail: str = "") -> Check:
    return {"check": name, "ok": bool(ok), "detail": detail}


def transcript_checks(path: Path | None, reason: str) -> list[Check]:
    """What our importer makes of the file the CLI really wrote (the report scenario)."""
    if path is None:
        return [check("the CLI wrote a transcript", False, "none found")]
    checks = [check("the CLI wrote a transcript", True, path.name)]
    try:
        imported = import_transcript(path)
    except Exception as exc:  # the check reports any failure of the importer, whatever it is
        return [*checks, check("the importer read it", False, f"{type(exc).__name__}: {exc}")]
    calls = [e for e in imported.events if e.type == "tool/call"]
    results = [e for e in imported.events if e.type == "tool/result"]
    paired = sorted(e.data["call_id"] for e in calls) == sorted(e.data["call_id"] for e in results)
    failed = [e for e in results if e.data.get("error")]
    said = [e for e in imported.events if e.type == "user/message"]
    hooks = [e for e in said if e.data["message"]["source"].get("kind") == "hook"]
    persons = [e for e in said if e.data["message"]["source"].get("kind") == "user"]
    cited = [e.data["transcript_line"] for e in failed]
    return [
        *checks,
        check("the importer read it", True, f"{imported.lines} lines, {len(imported.events)} events"),
        check("no entry kind unknown to the importer", not imported.unknown, json.dumps(dict(imported.unknown))),
        check("every tool call has exactly one result", bool(calls) and paired and imported.synthesised == 0),
        check("the failed command's result is flagged as an error", len(failed) == 1),
        check(
            "the finding cites the failed result's transcript line",
            bool(cited) and f"transcript line {cited[0]}" in reason,
            f"lines {cited}",
        ),
        check("the Stop hook's feedback is imported as the hook's, not the person's", len(hooks) == 1),
        check(
            "the person's only message is the prompt",
            len(persons) == 1 and PROMPT in json.dumps(persons[0].data["message"]),
            f"{len(persons)} user messages",
        ),
    ]


def relayed(bodies: list[dict[str, Any]]) -> str:
    """The first text the agent sent its model that carries a Shadow report (the hook's reason), or ""."""
    stack: list[Any] = list(bodies)
    while stack:
        value = stack.pop(0)
        if isinstance(value, str) and RELAY_MARK in value:
            return value
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return ""


def report_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    reason = relayed(server.recorder.bodies(run.part))
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook reviewed once, with a report",
            state.get("last_outcome") == "report" and len(server.recorder.bodies("reviewer")) == 1,
        ),
        check(
            "the transcript the hook read already held the agent's last message",
            CLAIM in json.dumps(server.recorder.bodies("reviewer")),
        ),
        check("the CLI sent the finding to its model as the next input", bool(reason)),
        check("the second stop passed on stop_hook_active", state.get("last_skip") == "stop_hook_active"),
        check(
            "the agent answered the finding before it stopped",
            OWNED_UP in run.stdout and CLAIM not in run.stdout.split(OWNED_UP)[-1],
        ),
        trace_check(run, state),
        *transcript_checks(run.transcript, reason),
    ]


def trace_check(run: Run, state: dict[str, Any]) -> Check:
    """``harness shadow trace`` explains the review the hook ran."""
    session = state.get("last_review_session")
    if not isinstance(session, str):
        return check("harness shadow trace explains the review", False, "no review session in the state file")
    argv = [sys.executable, "-m", "harness", "shadow", "trace", session]
    done = subprocess.run(argv, env=environment(run.paths), capture_output=True, text=True, timeout=120)
    ok = done.returncode == 0 and re.search(r"outcome: report\b.*relayed yes", done.stdout) is not None
    return check("harness shadow trace explains the review", ok, f"exit {done.returncode}")


def quiet_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    agent_requests = server.recorder.bodies(run.part)
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook reviewed once, quietly",
            state.get("last_outcome") == "silent" and len(server.recorder.bodies("reviewer")) == 1,
            str(state.get("last_outcome")),
        ),
        check(
            "the agent stopped without another model turn",
            len(agent_requests) == 2 and not relayed(agent_requests) and QUIET_ANSWER in run.stdout,
            f"{len(agent_requests)} model requests",
        ),
    ]


def ephemeral_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook answered {} for a null transcript_path, without a review",
            state.get("last_skip") == "no_transcript" and not server.recorder.bodies("reviewer"),
            str(state.get("last_skip")),
        ),
        check("the agent stopped after its turn", len(server.recorder.bodies(run.part)) == 2 and CLAIM in run.stdout),
    ]




def subagent_checks(run: Run, server: ModelServer) -> list[Check]:
    """Claude Code's ``SubagentStop``: the subagent's own transcript is reviewed and its corrected answer reaches the parent."""
    states = run.states()
    session = next((s["session_id"] for s in states.values() if isinstance(s.get("session_id"), str)), "")
    main = states.get(f"{run.agent}-{session}.json", {})
    subs = [s for name, s in states.items() if name != f"{run.agent}-{session}.json"]
    bodies = server.recorder.bodies(run.part)
    reason = relayed(bodies)
    failed: list[int] = []
    if len(run.subagent_transcripts) == 1:
        results = import_transcript(run.subagent_transcripts[0]).events
        failed = [e.data["transcript_line"] for e in results if e.type == "tool/result" and e.data.get("error")]
    parent_saw = [b for b in bodies if SUBAGENT_PROMPT in json.dumps(b.get("messages", [])[:1]) and OWNED_UP in json.dumps(b)]
    return [
        check("the CLI exited 0", run.rc == 0 and SUBAGENT_DONE in run.stdout, run.tail()),
        check(
            "SubagentStop: the hook reviewed the subagent, with a report, and passed its second stop",
            len(subs) == 1 and subs[0].get("last_outcome") == "report" and subs[0].get("last_skip") == "stop_hook_active",
        ),
        check(
            "the finding cites the failed result's line in the subagent's own transcript",
            len(failed) == 1 and f"transcript line {failed[0]}" in reason,
            f"lines {failed}",
        ),
        check("the parent received the subagent's corrected answer", bool(parent_saw)),
        check(
            "the parent's Stop was reviewed on its own transcript (quiet)",
            main.get("last_outcome") == "silent" and len(server.recorder.bodies("reviewer")) == 2,
            str(main.get("last_outcome")),
        ),
    ]
