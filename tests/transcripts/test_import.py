"""Importing Claude Code and Codex transcripts into session-log events."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from harness.transcripts import ImportedTranscript, TranscriptError, import_transcript
from harness.transcripts.builder import UNANSWERED_CODE

FIXTURES = Path(__file__).parent / "fixtures"
# ../shared/transcripts next to the repository; a worktree elsewhere names it in the environment
SHARED = Path(
    os.environ.get("SHADOW_TRANSCRIPTS_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "transcripts"
)


#: the fixtures' lines of a kind the importer does not know
WEIRD_LINE = 9
MYSTERY_LINE = 15

def _types(t: ImportedTranscript) -> Counter[str]:
    return Counter(e.type for e in t.events)


def assert_paired(t: ImportedTranscript) -> None:
    """Every call has exactly one result, after it."""
    calls = [e.data["call_id"] for e in t.events if e.type == "tool/call"]
    results = [e.data["call_id"] for e in t.events if e.type == "tool/result"]
    assert sorted(calls) == sorted(results)
    assert len(set(results)) == len(results)
    seen: set[str] = set()
    for event in t.events:
        if event.type == "tool/call":
            seen.add(event.data["call_id"])
        elif event.type == "tool/result":
            assert event.data["call_id"] in seen
    starts, ends = _types(t)["turn/start"], _types(t)["turn/end"]
    assert starts == ends


def _result(t: ImportedTranscript, call_id: str) -> dict:
    return next(e.data for e in t.events if e.type == "tool/result" and e.data["call_id"] == call_id)


def test_claude_code_fixture() -> None:
    t = import_transcript(FIXTURES / "claude-code-small.jsonl", workspace="/home/u/proj")
    assert (t.format, t.source_id, t.cwd) == ("claude-code", "cc-1", "/home/u/proj")
    counts = _types(t)
    assert counts["user/message"] == 2
    assert counts["assistant/message"] == 4
    assert counts["tool/call"] == counts["tool/result"] == 3
    assert counts["turn/start"] == 2
    assert [counts[f"compaction/{k}"] for k in ("start", "summary", "end")] == [1, 1, 1]
    assert_paired(t)
    # source pointers: the Read call sits on line 5, its result on line 6
    call = next(e for e in t.events if e.type == "tool/call" and e.data["call_id"] == "toolu_1")
    assert call.line == 5
    assert call.data["arguments"] == '{"file_path": "src/app.py"}'  # the workspace is written relative
    assert next(e for e in t.events if e.type == "tool/result" and e.data["call_id"] == "toolu_1").line == 6
    assert _result(t, "toolu_2")["message"]["content"][0]["is_error"] is True
    assert _result(t, "toolu_1")["message"]["content"][0]["is_error"] is False
    # the last call was never answered: a synthesised error result, as crash repair writes
    assert _result(t, "toolu_3")["error"]["code"] == UNANSWERED_CODE and t.synthesised == 1
    # thinking is dropped, bookkeeping is counted, the unknown kind is counted apart
    assert "secret plan" not in repr(t.events)
    assert t.skipped["thinking"] == 1 and t.skipped["progress"] == 1 and t.skipped["user:meta"] == 1
    assert t.unknown == {"weird-kind": 1}
    assert t.unknown_lines == {"weird-kind": [WEIRD_LINE]}  # so a person can find it
    summary = next(e for e in t.events if e.type == "compaction/summary")
    assert summary.line == 12 and "claimed success" in summary.data["summary"]
    history = [i for i, e in enumerate(t.events) if e.type in ("user/message", "assistant/message", "tool/result")]
    assert summary.data["shadowed_seqs"] == [i for i in history if i < t.events.index(summary)]
    assert t.line_of_seq(t.events.index(call)) == 5


def test_codex_fixture() -> None:
    t = import_transcript(FIXTURES / "codex-small.jsonl")
    assert (t.format, t.source_id, t.cwd) == ("codex", "cx-1", "/home/u/proj")
    counts = _types(t)
    assert counts["user/message"] == 2  # the developer message is not a user message
    assert counts["tool/call"] == counts["tool/result"] == 4
    assert counts["compaction/summary"] == 1
    assert_paired(t)
    assert _result(t, "call_1")["message"]["content"][0]["is_error"] is False
    assert _result(t, "call_2")["message"]["content"][0]["is_error"] is True  # exit code 1
    assert _result(t, "call_3")["message"]["content"][0]["is_error"] is True  # the patch failed
    assert _result(t, "call_4")["error"]["code"] == UNANSWERED_CODE
    patch = next(e for e in t.events if e.type == "tool/call" and e.data["call_id"] == "call_3")
    assert patch.line == 11 and patch.data["name"] == "apply_patch" and '"input"' in patch.data["arguments"]
    assert t.skipped["reasoning"] == 1 and t.skipped["message:developer"] == 1
    assert t.unknown == {"mystery": 1}
    assert t.unknown_lines == {"mystery": [MYSTERY_LINE]}
    assert "thinking" not in repr([e.data for e in t.events])


def test_secrets_and_control_characters_are_cleaned(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"user","cwd":"/w","message":{"role":"user","content":"key sk-abcdefghijklmnop at /etc/x/y \\u001b[31m"}}\n'
    )
    text = import_transcript(path).events[2].data["message"]["content"][0]["text"]
    assert "sk-abcdefghijklmnop" not in text and "\x1b" not in text
    assert "at /etc/x/y" in text  # a path is the person's own: kept for the reviewer, only credentials go


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude-code-small.jsonl").read_text().splitlines()
    lines[6] = lines[6][:40]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(TranscriptError) as info:
        import_transcript(bad)
    assert str(info.value).startswith("bad.jsonl:7: line 7 is not JSON")
    assert "\n" not in str(info.value)


def test_truncated_last_line_names_the_line(tmp_path: Path) -> None:
    raw = (FIXTURES / "codex-small.jsonl").read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(raw[: len(raw) - 30])
    with pytest.raises(TranscriptError, match=r"^cut\.jsonl:19: line 19 is cut short"):
        import_transcript(cut)


def test_a_json_value_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    path.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n[1, 2]\n')
    with pytest.raises(TranscriptError, match=r"list\.jsonl:2: line 2 is not a JSON object"):
        import_transcript(path)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(TranscriptError, match="no entries"):
        import_transcript(tmp_path / "empty.jsonl")
    with pytest.raises(TranscriptError, match="missing.jsonl: no such file"):
        import_transcript(tmp_path / "missing.jsonl")


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/transcripts next to the repository")
def test_every_shared_transcript_imports_with_every_call_paired() -> None:
    files = sorted(SHARED.glob("*/*.jsonl"))
    assert files
    for path in files:
        t = import_transcript(path)
        assert t.format == ("codex" if path.parent.name == "codex" else "claude-code"), path.name
        assert_paired(t)
        assert _types(t)["tool/call"] > 0, path.name
        assert all(1 <= e.line <= t.lines for e in t.events), path.name


def test_a_repeated_call_id_is_one_call_with_one_result(tmp_path: Path) -> None:
    use = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}'
    result = (
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}'
    )
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([use, result, use, result]) + "\n")
    t = import_transcript(path)
    assert_paired(t)
    assert _types(t)["tool/call"] == 1
    assert t.skipped == {"repeated tool call id": 1, "empty assistant message": 1, "tool result without a call": 1}


def test_a_subagent_s_prompt_is_the_delegating_agent_s_not_the_person_s(tmp_path: Path) -> None:
    """In a Claude Code subagent transcript (``isSidechain``) the text user
    entries are the parent agent's: imported with source ``delegation``, so the
    plugin does not count them as the person's input (budget windows, relay
    bound) and the reviewer sees who asked."""
    lines = [
        {"type": "user", "isSidechain": True, "agentId": "a93c", "sessionId": "s1", "cwd": "/w",
         "message": {"role": "user", "content": "Explore the router and summarise it."}},
        {"type": "assistant", "isSidechain": True, "agentId": "a93c",
         "message": {"role": "assistant", "model": "claude-x", "content": [
             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/router.ex"}}]}},
        {"type": "user", "isSidechain": True, "agentId": "a93c",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "defmodule"}]}},
        {"type": "assistant", "isSidechain": True, "agentId": "a93c",
         "message": {"role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "It routes /hooks."}]}},
        {"type": "user", "isSidechain": False, "sessionId": "s1",
         "message": {"role": "user", "content": [{"type": "text", "text": "the person, in a main transcript"}]}},
    ]  # fmt: skip
    path = tmp_path / "agent-a93c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    imported = import_transcript(path)
    said = [e.data["message"]["source"] for e in imported.events if e.type == "user/message"]
    assert said == [{"kind": "delegation", "agent": "claude-code", "agent_id": "a93c"}, {"kind": "user"}]
    assert_paired(imported)


def test_unknown_lines_are_named_for_a_person() -> None:
    from harness.transcripts.cli import unknown_text

    assert unknown_text({"x": [3], "weird-kind": [9, 12]}) == "weird-kind (lines 9, 12); x (line 3)"
