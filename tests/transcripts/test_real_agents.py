"""What the real Codex and Claude Code CLIs write, and the bridge run under them.

The ``real_*`` fixtures are hand-written in the formats Codex CLI 0.171.0 and
Claude Code 2.1.197 wrote when ``scripts/real_agents_check.py`` ran them with
the Stop hook installed: the agent's prompt, a failed ``cat notes.txt``, a false
claim, the hook's finding fed back (Codex: a ``<hook_prompt>`` user message;
Claude Code: an ``isMeta`` "Stop hook feedback" user entry) and the agent's
answer to it, with each CLI's bookkeeping lines around them.

The runs of the real CLIs need their binaries (``SHADOW_CODEX_BIN`` /
``SHADOW_CLAUDE_BIN``; ``npm install @openai/codex @anthropic-ai/claude-code``)
and are skipped without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.transcripts import TranscriptError, import_transcript
from harness.transcripts.model import ImportedTranscript

from ..cli_env import cli_env
from .reviewer import FIXTURES, REPO

SCRIPT = REPO / "scripts" / "real_agents_check.py"
CODEX = FIXTURES / "real_codex_0171.jsonl"
CLAUDE = FIXTURES / "real_claude_code_2197.jsonl"
PROMPT = "Read notes.txt and tell me what it says."
RELAY_START = "Background Shadow reports follow."


def _said(imported: ImportedTranscript, kind: str) -> list[Any]:
    return [
        e for e in imported.events if e.type == "user/message" and e.data["message"]["source"].get("kind") == kind
    ]


def _text(event: Any) -> str:
    return "".join(block["text"] for block in event.data["message"]["content"])


@pytest.mark.parametrize("path", [CODEX, CLAUDE], ids=["codex", "claude-code"])
def test_every_line_kind_the_cli_writes_is_known(path: Path) -> None:
    imported = import_transcript(path)
    assert imported.unknown == {}
    calls = [e.data["call_id"] for e in imported.events if e.type == "tool/call"]
    results = [e for e in imported.events if e.type == "tool/result"]
    assert calls == [r.data["call_id"] for r in results] and len(calls) == 1
    assert results[0].data["error"] is not None and imported.synthesised == 0


@pytest.mark.parametrize(("path", "line", "cited"), [(CODEX, 17, 13), (CLAUDE, 9, 7)], ids=["codex", "claude-code"])
def test_the_stop_hooks_feedback_is_the_hooks_not_the_persons(path: Path, line: int, cited: int) -> None:
    imported = import_transcript(path)
    [person] = _said(imported, "user")
    assert _text(person) == PROMPT
    [hook] = _said(imported, "hook")
    assert hook.data["transcript_line"] == line
    assert hook.data["message"]["source"]["event"] == "Stop"
    # the agent's wrapper ("<hook_prompt ...>", "Stop hook feedback:") is taken off: the finding is what was said
    assert _text(hook).startswith(RELAY_START) and _text(hook).endswith(f"Evidence: transcript line {cited}.")
    turns = [e.data["transcript_line"] for e in imported.events if e.type == "turn/start"]
    assert len(turns) == 2  # the prompt's turn, and the one the finding started


def test_claude_codes_mode_line_is_bookkeeping(tmp_path: Path) -> None:
    # `claude -p --continue` (2.1.197) appends {"type": "mode", "mode": "normal"} after a local command
    path = tmp_path / "continued.jsonl"
    path.write_bytes(CLAUDE.read_bytes() + json.dumps({"type": "mode", "mode": "normal"}).encode() + b"\n")
    imported = import_transcript(path)
    assert imported.unknown == {} and imported.skipped["mode"] == 1


def test_codexs_environment_context_is_bookkeeping_not_a_user_turn() -> None:
    imported = import_transcript(CODEX)
    texts = [_text(e) for e in imported.events if e.type == "user/message"]
    assert not any("<environment_context>" in t for t in texts)
    assert imported.skipped["message:harness"] == 1


def test_a_session_id_that_starts_with_digits_names_the_file(tmp_path: Path) -> None:
    # Claude Code names the transcript by its session id; a real run's started "148a..." and the
    # importer's file label, scrubbed with that name as the path marker, failed with re.error
    named = tmp_path / "148aac11-9c4e-4b6f-8a0e-5f1d2c3b4a59.jsonl"
    named.write_bytes(CLAUDE.read_bytes())
    assert import_transcript(named).lines == 13
    named.write_bytes(CLAUDE.read_bytes() + b'{"type": "user"')
    with pytest.raises(TranscriptError) as cut:
        import_transcript(named)
    assert str(cut.value).startswith(f"{named.name}:14: line 14 is cut short")


def test_the_script_starts_and_skips_a_missing_cli(tmp_path: Path) -> None:
    env = cli_env()
    env.pop("SHADOW_CODEX_BIN", None)
    env.pop("SHADOW_CLAUDE_BIN", None)
    helped = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert helped.returncode == 0 and "--codex" in helped.stdout
    missing = str(tmp_path / "no-such-codex")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--codex", missing, "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    agents = {a["agent"]: a for a in json.loads(run.stdout)["agents"]}
    assert agents["codex"] == {"agent": "codex", "status": "skipped", "reason": f"no executable at {missing!r}"}
    assert agents["claude"]["status"] == "skipped"


def _real_run(flag: str, binary: str) -> dict[str, Any]:
    env = cli_env()
    env.pop("SHADOW_CODEX_BIN", None)
    env.pop("SHADOW_CLAUDE_BIN", None)
    run = subprocess.run(
        [sys.executable, str(SCRIPT), flag, binary, "--json"], capture_output=True, text=True, env=env, timeout=600
    )
    [agent] = [a for a in json.loads(run.stdout)["agents"] if a["status"] != "skipped"]
    failed = [c for c in agent["checks"] if not c["ok"]]
    assert run.returncode == 0 and not failed, json.dumps(failed, indent=2)
    return agent


def _binary(var: str) -> str | None:
    value = os.environ.get(var)
    return shutil.which(value) if value else None


@pytest.mark.timeout(900)  # above the suite's 300 s: the real run has its own 600 s bound
@pytest.mark.skipif(_binary("SHADOW_CODEX_BIN") is None, reason="set SHADOW_CODEX_BIN to a codex CLI to run it")
def test_the_bridge_under_the_real_codex() -> None:
    agent = _real_run("--codex", str(_binary("SHADOW_CODEX_BIN")))
    assert agent["status"] == "passed"
    assert {c["scenario"] for c in agent["checks"]} == {"report", "quiet", "ephemeral"}


@pytest.mark.timeout(900)  # above the suite's 300 s: the real run has its own 600 s bound
@pytest.mark.skipif(_binary("SHADOW_CLAUDE_BIN") is None, reason="set SHADOW_CLAUDE_BIN to a claude CLI to run it")
def test_the_bridge_under_the_real_claude_code() -> None:
    agent = _real_run("--claude", str(_binary("SHADOW_CLAUDE_BIN")))
    assert agent["status"] == "passed"
    assert {c["scenario"] for c in agent["checks"]} == {"report", "quiet", "subagent"}
