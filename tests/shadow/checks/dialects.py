"""One scenario, three tool dialects: the host's own log, and Claude Code and
Codex transcripts imported the way ``harness transcripts`` imports them.

A scenario is a list of steps; each dialect renders a step in its own tool
shapes (``bash`` vs ``Bash`` vs ``shell``; ``edit`` vs ``Edit`` vs
``apply_patch``...), so a check is tested on every shape with one story.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from harness.transcripts.reader import import_transcript
from hookspecs.values import EventTypes, SessionEvent
from shadow_mind_plugin.checks import CheckFinding, check_session, validate
from shadow_mind_plugin.projection import Projection, project

CWD = "/home/u/proj"
DIALECTS = ("host", "claude-code", "codex")


@attrs.frozen
class User:
    text: str


@attrs.frozen
class Shell:
    command: str
    exit: int = 0
    output: str = ""


@attrs.frozen
class Read:
    path: str
    ok: bool = True


@attrs.frozen
class Search:
    pattern: str
    output: str


@attrs.frozen
class Edit:
    path: str
    ok: bool = True


@attrs.frozen
class Write:
    """A whole-file write; ``created`` False: it replaced an existing file."""

    path: str
    created: bool = True


@attrs.frozen
class Answer:
    text: str


Step = User | Shell | Read | Search | Edit | Write | Answer


@attrs.frozen
class Outcome:
    events: list[SessionEvent]
    projection: Projection
    findings: list[CheckFinding]

    def kinds(self) -> list[str]:
        return [f.kind.value for f in self.findings]

    def of(self, kind: str) -> CheckFinding:
        return next(f for f in self.findings if f.kind.value == kind)

    def seq_of(self, event_type: str, nth: int = -1) -> int:
        return [e.seq for e in self.events if e.type == event_type][nth]


def run(dialect: str, steps: Sequence[Step], tmp_path: Path) -> Outcome:
    """Render, project through the last event and check; every finding must
    pass the report contract against the projection's seqs."""
    if dialect == "host":
        events = HostLog().render(steps)
    else:
        lines = (claude_code if dialect == "claude-code" else codex)(steps)
        path = tmp_path / f"{dialect}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        # the hook passes the agent's own cwd as the accepted workspace: paths under it are relative
        imported = import_transcript(path, workspace=CWD)
        events = [SessionEvent(type=e.type, seq=i, time=0.0, data=e.data) for i, e in enumerate(imported.events)]
    watermark = events[-1].seq
    projection = project(events, watermark)
    findings = check_session(events, watermark, projection.seqs)
    for finding in findings:
        assert set(finding.refs) <= set(projection.seqs), finding
        assert validate(finding, projection.seqs).ok, finding
    return Outcome(events=events, projection=projection, findings=findings)


# --- the host's own log ------------------------------------------------------------------------


class HostLog:
    """Events in the shapes the reference host writes (docs/events.md)."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []
        self.turn = 0
        self.calls = 0

    def add(self, type_: str, data: Any) -> int:
        seq = len(self.events)
        self.events.append(SessionEvent(type=type_, seq=seq, time=1000.0 + seq, data=data))
        return seq

    def render(self, steps: Sequence[Step]) -> list[SessionEvent]:
        for step in steps:
            if isinstance(step, User):
                self.close()
                self.turn += 1
                self.add(EventTypes.TURN_START, {"turn": self.turn})
                message = {
                    "id": "u",
                    "role": "user",
                    "content": [{"type": "text", "text": step.text}],
                    "source": {"kind": "user"},
                }
                self.add(EventTypes.USER_MESSAGE, {"turn": self.turn, "step": 0, "message": message})
            elif isinstance(step, Answer):
                self.assistant(step.text, [])
            else:
                self.tool(step)
        self.close()
        return self.events

    def close(self) -> None:
        if self.turn and self.events[-1].type != EventTypes.TURN_END:
            self.add(EventTypes.TURN_END, {"turn": self.turn, "reason": {"kind": "completed"}})

    def assistant(self, text: str, calls: list[dict[str, Any]]) -> None:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool-call", **call} for call in calls]
        message = {"id": "a", "role": "assistant", "content": content, "source": {"kind": "model"}}
        self.add(EventTypes.ASSISTANT_MESSAGE, {"turn": self.turn, "step": 0, "message": message})

    def tool(self, step: Step) -> None:
        name, args, text, error = _host_call(step)
        self.calls += 1
        call_id = f"call-{self.calls}"
        arguments = json.dumps(args)
        self.assistant("", [{"id": call_id, "name": name, "arguments": arguments}])
        self.add(
            EventTypes.TOOL_CALL,
            {"turn": self.turn, "step": 0, "call_id": call_id, "name": name, "arguments": arguments},
        )
        block = {
            "type": "tool-result",
            "tool_call_id": call_id,
            "content": [{"type": "text", "text": text}],
            "is_error": error is not None,
        }
        data: dict[str, Any] = {
            "turn": self.turn,
            "step": 0,
            "call_id": call_id,
            "name": name,
            "message": {
                "id": f"result-{call_id}",
                "role": "tool",
                "content": [block],
                "source": {"kind": "tool", "call_id": call_id},
            },
        }
        if error is not None:
            data["error"] = {"code": error, "message": text.splitlines()[0]}
        self.add(EventTypes.TOOL_RESULT, data)


def _host_call(step: Step) -> tuple[str, dict[str, Any], str, str | None]:
    if isinstance(step, Shell):
        text = f"exit code {step.exit}\n{step.output or '(no output)'}"
        return "bash", {"command": step.command}, text, "NONZERO_EXIT" if step.exit else None
    if isinstance(step, Read):
        if step.ok:
            return "read", {"path": step.path}, "     1\tdef add(a, b):", None
        return "read", {"path": step.path}, f"cannot read {step.path!r}: no such file", "TOOL_FAILED"
    if isinstance(step, Search):
        return "grep", {"pattern": step.pattern}, step.output, None
    if isinstance(step, Edit):
        args = {"path": step.path, "old_text": "a - b", "new_text": "a + b"}
        if step.ok:
            return "edit", args, f"replaced 1 occurrence in {step.path}", None
        return "edit", args, f"old_text: not found in {step.path!r}", "INVALID_ARGS"
    assert isinstance(step, Write)
    return "write", {"path": step.path, "content": "x = 1\n"}, f"wrote 6 bytes to {step.path}", None


# --- Claude Code -------------------------------------------------------------------------------


def claude_code(steps: Sequence[Step]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    base = {"sessionId": "cc", "cwd": CWD}
    for number, step in enumerate(steps):
        if isinstance(step, User):
            lines.append({**base, "type": "user", "message": {"role": "user", "content": step.text}})
            continue
        if isinstance(step, Answer):
            content = [{"type": "text", "text": step.text}]
            lines.append(
                {**base, "type": "assistant", "message": {"role": "assistant", "model": "claude-x", "content": content}}
            )
            continue
        name, args, text, failed = _claude_call(step)
        use = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": args}
        lines.append(
            {**base, "type": "assistant", "message": {"role": "assistant", "model": "claude-x", "content": [use]}}
        )
        result = {"type": "tool_result", "tool_use_id": f"toolu_{number}", "content": text, "is_error": failed}
        lines.append({**base, "type": "user", "message": {"role": "user", "content": [result]}})
    return lines


def _claude_call(step: Step) -> tuple[str, dict[str, Any], str, bool]:
    if isinstance(step, Shell):
        if step.exit:
            return "Bash", {"command": step.command}, f"Exit code {step.exit}\n{step.output}", True
        return "Bash", {"command": step.command}, step.output, False
    if isinstance(step, Read):
        text = "     1\tdef add(a, b):" if step.ok else "File does not exist."
        return "Read", {"file_path": f"{CWD}/{step.path}"}, text, not step.ok
    if isinstance(step, Search):
        return "Grep", {"pattern": step.pattern, "output_mode": "content"}, step.output, False
    if isinstance(step, Edit):
        args = {"file_path": f"{CWD}/{step.path}", "old_string": "a - b", "new_string": "a + b"}
        if step.ok:
            return (
                "Edit",
                args,
                f"The file {CWD}/{step.path} has been updated. Here's the result of running `cat -n`",
                False,
            )
        return "Edit", args, "<tool_use_error>String to replace not found in file.</tool_use_error>", True
    assert isinstance(step, Write)
    args = {"file_path": f"{CWD}/{step.path}", "content": "x = 1\n"}
    if step.created:
        return "Write", args, f"File created successfully at: {CWD}/{step.path}", False
    return "Write", args, f"The file {CWD}/{step.path} has been updated. Here's the result of running `cat -n`", False


# --- Codex -------------------------------------------------------------------------------------


def codex(steps: Sequence[Step]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"type": "session_meta", "payload": {"id": "cx", "cwd": CWD}}]

    def item(payload: dict[str, Any]) -> None:
        lines.append({"type": "response_item", "payload": payload})

    for number, step in enumerate(steps):
        call_id = f"call_{number}"
        if isinstance(step, User | Answer):
            role, kind = ("user", "input_text") if isinstance(step, User) else ("assistant", "output_text")
            item({"type": "message", "role": role, "content": [{"type": kind, "text": step.text}]})
        elif isinstance(step, Edit | Write):
            action = "Add" if isinstance(step, Write) and step.created else "Update"
            patch = (
                f"*** Begin Patch\n*** {action} File: {step.path}\n-    return a - b\n+    return a + b\n*** End Patch"
            )
            item({"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch", "input": patch})
            ok = not isinstance(step, Edit) or step.ok
            output = (
                f"Success. Updated the following files:\nM {step.path}"
                if ok
                else "apply_patch verification failed: Failed to find expected lines"
            )
            item({"type": "custom_tool_call_output", "call_id": call_id, "output": output})
        else:
            command, output, code = _codex_shell(step)
            item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": call_id,
                    "arguments": json.dumps({"command": ["bash", "-lc", command], "workdir": CWD}),
                }
            )
            payload = json.dumps({"output": output, "metadata": {"exit_code": code}})
            item({"type": "function_call_output", "call_id": call_id, "output": payload})
    return lines


def _codex_shell(step: Step) -> tuple[str, str, int]:
    if isinstance(step, Shell):
        return step.command, step.output, step.exit
    if isinstance(step, Read):
        return (f"cat {step.path}", "def add(a, b):", 0) if step.ok else (f"cat {step.path}", "No such file", 1)
    assert isinstance(step, Search)
    return f"rg -n {step.pattern}", step.output, 0
