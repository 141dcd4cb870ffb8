"""Transcript import cost against ``json.loads`` of the same lines (issue 20, item 5).

For each format (Claude Code, Codex) one seeded transcript of real-shaped
lines is written to a file, then timed, like for like, interleaved, as CPU
time of this process (``time.process_time``; the machine is shared):

(a) ``json.loads``   — parse every line of the transcript (already in
    memory as ``str``), nothing else: the baseline;
(b) ``importer``     — ``import_source(read_source(path))``: read the file,
    frame and parse every line, run the format's parser and the event
    builder, which cleans every text it keeps (control characters made
    visible, credentials hidden by the one secret detector, sizes bounded)
    and builds the session-log events in memory. This is the importer the
    target is about;
(c) ``+ session log`` — (b) and then the events appended to a new session
    log in a temporary ``DSH_HOME`` (``write_offline``, what ``harness
    transcripts import`` and a first Stop do): each append validates the
    data, serializes the line, checks it for credentials and writes it; the
    log is fsynced when closed. Reported, no target.

The secret detector is in place as the host runs it: a provider key is
registered (``register_secret``, as the openai-compatible adapter does), and
the transcripts hold real-shaped secrets (``.env`` output with an
``sk-proj-`` key and a password) among code, test runs, git logs, lockfiles
and base64 images (the blobs of ``bench/secret_scan.py``).

Lines carry the metadata the tools write: Claude Code's ``uuid``,
``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``, ``version``,
``gitBranch``, ``requestId`` and usage counts, plus ``thinking`` blocks and
``progress`` / ``system`` lines; Codex's ``session_meta``, ``turn_context``,
``response_item`` (messages, ``function_call`` and its output, ``reasoning``)
and the ``event_msg`` lines that repeat them for UIs. Claude Code's lines are
shaped as 2.x writes them (see the recorded fixture
``tests/transcripts/fixtures/real_claude_code_2197.jsonl``): one content block
per assistant line, and a tool result's ``toolUseResult`` repeating the output
(Bash's ``stdout``, Read's file content, Edit's original file, an error's
text), which (a) parses and (b) parses and drops. An earlier generator packed
thinking, text and call into one line and left the repeat out: fewer, lighter
lines, which made (b)/(a) 1.2-1.4x what a real transcript's is.

Target: (b) <= 3.0x (a) for both formats. Run::

    python bench/importer.py [--lines 6000] [--reps 5] [--formats claude-code codex]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import Comparison, compare_many, summary
from secret_scan import BLOBS, PROSE

from harness.transcripts.reader import import_source, read_source
from harness.transcripts.session import write_offline
from hookspecs.secrets_detect import forget_registered_secrets, register_secret

PROVIDER_KEY = "sk-bench-provider-key-0123456789abcdef"
TARGET = 3.0


def _blob(rng: random.Random) -> str:
    if rng.random() < 0.02:  # the configured key echoed by a tool (a debug print, a failing request)
        return f"request failed: 401 for key {PROVIDER_KEY} at https://api.example.com/v1\n" + PROSE
    return rng.choice(BLOBS)(rng)


def claude_code(lines: int, seed: int = 20) -> list[str]:
    """Real-shaped Claude Code entries: turns of a prompt, assistant text and
    thinking, tool calls and their results, and the bookkeeping lines.

    As Claude Code 2.x writes them (``tests/transcripts/fixtures/real_claude_code_2197.jsonl``):
    one content block per assistant entry (thinking, text and tool_use each
    on a line of its own, sharing the message id), and a tool result entry
    whose ``toolUseResult`` repeats the output (Bash's ``stdout``, Read's
    file content, an error's text)."""
    rng = random.Random(seed)
    out: list[str] = []
    parent: str | None = None
    tool = "Bash"
    i = 0

    def entry(kind: str, **fields: Any) -> None:
        nonlocal parent
        uuid = f"{rng.getrandbits(128):032x}"
        base: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": "/home/me/app",
            "sessionId": "47bfd9da-1c2e-4f3a-9b8c-7d6e5f4a3b2c",
            "version": "2.1.197",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-01-02T03:{i // 60 % 60:02d}:{i % 60:02d}.678Z",
        }
        parent = uuid
        out.append(_dumps({**base, **fields}))

    while len(out) < lines:
        i += 1
        step = i % 8
        if step == 1:
            entry("user", message={"role": "user", "content": PROSE * rng.randint(1, 3)}, promptId=f"p{i}")
        elif step in (2, 4, 6):
            usage = {
                "input_tokens": 812,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 20480,
                "output_tokens": 96,
                "service_tier": "standard",
            }
            blocks: list[dict[str, Any]] = []
            if step == 2:
                blocks.append({"type": "thinking", "thinking": PROSE * 2, "signature": "Eq" + "A" * 600})
            blocks.append({"type": "text", "text": PROSE * rng.randint(1, 2)})
            tool = rng.choice(["Bash", "Edit", "Read"])
            call_input: dict[str, Any] = {"command": "pytest -q tests/", "description": "run the tests"}
            if tool == "Read":
                call_input = {"file_path": f"/home/me/app/src/m{i}.py"}
            elif tool == "Edit":
                old = _blob(rng)[:300]
                call_input = {"file_path": f"/home/me/app/src/m{i}.py", "old_string": old, "new_string": old + "\n"}
            blocks.append({"type": "tool_use", "id": f"toolu_{i:08d}", "name": tool, "input": call_input})
            for block in blocks:
                message = {
                    "id": f"msg_{i:08d}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [block],
                    "stop_reason": "tool_use" if block["type"] == "tool_use" else None,
                    "stop_sequence": None,
                    "usage": usage,
                }
                entry("assistant", message=message, requestId=f"req_{i:08d}")
        elif step in (3, 5, 7):
            output = _blob(rng)
            failed = rng.random() < 0.1
            result = {"type": "tool_result", "tool_use_id": f"toolu_{i - 1:08d}", "content": output, "is_error": failed}
            repeated: Any = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
            if failed:
                repeated = f"Error: {output}"
            elif tool == "Read":
                lines_read = output.count("\n") + 1
                repeated = {
                    "type": "text",
                    "file": {"filePath": "/home/me/app/src/m.py", "content": output, "numLines": lines_read,
                             "startLine": 1, "totalLines": lines_read},
                }  # fmt: skip
            elif tool == "Edit":
                repeated = {"filePath": "/home/me/app/src/m.py", "oldString": "a", "newString": "b",
                            "originalFile": output, "userModified": False, "replaceAll": False}  # fmt: skip
            entry(
                "user",
                message={"role": "user", "content": [result]},
                toolUseResult=repeated,
                sourceToolAssistantUUID=parent,
            )
        else:
            kind = rng.choice(["progress", "system"])
            entry(kind, subtype="hook", content="PostToolUse:Bash [ruff check]", level="info")
    return out[:lines]


def codex(lines: int, seed: int = 20) -> list[str]:
    """Real-shaped Codex rollout lines: the session's meta, turn contexts,
    response items and the event messages that repeat them."""
    rng = random.Random(seed)
    out = [
        _codex(
            0,
            "session_meta",
            {
                "id": "0199a1b2-c3d4",
                "cwd": "/home/me/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.171.0",
                "instructions": PROSE * 4,
            },
        )
    ]
    i = 0
    while len(out) < lines:
        i += 1
        step = i % 9
        if step == 1:
            text = PROSE * rng.randint(1, 3)
            out.append(
                _codex(
                    i,
                    "turn_context",
                    {
                        "cwd": "/home/me/app",
                        "approval_policy": "on-request",
                        "sandbox_policy": {"mode": "workspace-write"},
                        "model": "gpt-5-codex",
                        "effort": "medium",
                        "summary": "auto",
                    },
                )
            )
            out.append(
                _codex(
                    i,
                    "response_item",
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
                )
            )
            out.append(_codex(i, "event_msg", {"type": "user_message", "message": text, "images": []}))
        elif step in (2, 4, 6):
            out.append(
                _codex(
                    i,
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": PROSE}],
                        "encrypted_content": "gAAAA" + "x" * 400,
                    },
                )
            )
            command = {"command": ["bash", "-lc", "pytest -q tests/"], "workdir": "/home/me/app", "timeout_ms": 120000}
            out.append(
                _codex(
                    i,
                    "response_item",
                    {
                        "type": "function_call",
                        "name": "shell",
                        "arguments": json.dumps(command),
                        "call_id": f"call_{i:08d}",
                    },
                )
            )
        elif step in (3, 5, 7):
            output = json.dumps(
                {"output": _blob(rng), "metadata": {"exit_code": int(rng.random() < 0.1), "duration_seconds": 0.4}}
            )
            out.append(
                _codex(
                    i,
                    "response_item",
                    {"type": "function_call_output", "call_id": f"call_{i - 1:08d}", "output": output},
                )
            )
        else:
            text = PROSE * rng.randint(1, 2)
            out.append(
                _codex(
                    i,
                    "response_item",
                    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
                )
            )
            out.append(_codex(i, "event_msg", {"type": "agent_message", "message": text}))
            usage = {
                "input_tokens": 20480,
                "cached_input_tokens": 19000,
                "output_tokens": 96,
                "reasoning_output_tokens": 64,
                "total_tokens": 20576,
            }
            out.append(
                _codex(
                    i,
                    "event_msg",
                    {
                        "type": "token_count",
                        "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 272000},
                    },
                )
            )
    return out[:lines]


def _codex(i: int, kind: str, payload: dict[str, Any]) -> str:
    return _dumps(
        {"timestamp": f"2026-01-02T03:{i // 60 % 60:02d}:{i % 60:02d}.678Z", "type": kind, "payload": payload}
    )


def _dumps(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


CORPORA: dict[str, Callable[[int], list[str]]] = {"claude-code": claude_code, "codex": codex}


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def bench_format(fmt: str, lines: list[str], root: Path, reps: int) -> dict[str, Comparison]:
    path = root / f"{fmt}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    homes = iter(range(1_000_000))
    imported = import_source(read_source(path))
    print(
        f"\n{fmt}: {len(lines)} lines, {path.stat().st_size / 1e6:.1f} MB, {len(imported.events)} events; "
        f"secrets left: {_leaks(imported)}"
    )

    def parse() -> float:
        return cpu(lambda: [json.loads(line) for line in lines])

    def importer() -> float:
        return cpu(lambda: import_source(read_source(path)))

    def into_log() -> float:
        home = root / f"home-{fmt}-{next(homes)}"
        home.mkdir(mode=0o700)
        return cpu(lambda: write_offline(read_source(path), home, record=None, format=None))

    return compare_many(
        [("(a) json.loads", parse), ("(b) importer", importer), ("(c) + session log", into_log)],
        reps=reps,
        targets={"(b) importer": TARGET},
        units=len(lines),
        unit="lines",
    )


def _leaks(imported: Any) -> int:
    text = json.dumps([event.data for event in imported.events])
    return sum(text.count(secret) for secret in ("hunter2hunter2", "Ab12Cd34Ef56", PROVIDER_KEY[8:20]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=6000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--formats", nargs="+", choices=sorted(CORPORA), default=sorted(CORPORA))
    args = parser.parse_args()

    register_secret(PROVIDER_KEY)
    rows: list[tuple[str, Comparison]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-importer-") as tmp:
            for fmt in args.formats:
                found = bench_format(fmt, CORPORA[fmt](args.lines), Path(tmp), args.reps)
                rows += [(f"{fmt} {name} / json.loads", found[name]) for name in found]
    finally:
        forget_registered_secrets()
    summary(rows)


if __name__ == "__main__":
    main()
