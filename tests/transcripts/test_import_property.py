"""Any sequence of JSON-object lines imports or fails with a TranscriptError; an import always pairs every call."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.transcripts import TranscriptError, import_transcript

from .test_import import assert_paired

_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "x", "toolu_1", "call_1", "/w/a b"])
)
_json = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text", "id", "content"]), inner, max_size=3)
    ),
    max_leaves=8,
)
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "input_text", "output_text", 3])},
    optional={
        "text": _json,
        "id": _json,
        "name": _json,
        "input": _json,
        "tool_use_id": _json,
        "content": _json,
        "is_error": _json,
    },
)
_claude = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "summary", "progress", "odd", 1])},
    optional={
        "message": st.one_of(_json, st.fixed_dictionaries({"content": st.one_of(_json, st.lists(_block, max_size=3))})),
        "isCompactSummary": st.booleans(),
        "isMeta": st.booleans(),
        "cwd": _json,
        "sessionId": _json,
    },
)
_item = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "function_call",
                "function_call_output",
                "custom_tool_call",
                "custom_tool_call_output",
                "local_shell_call",
                "reasoning",
                "odd",
            ]
        )
    },
    optional={
        "role": _json,
        "content": st.one_of(_json, st.lists(_block, max_size=2)),
        "call_id": _json,
        "name": _json,
        "arguments": _json,
        "input": _json,
        "action": _json,
        "output": _json,
    },
)
_codex = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["session_meta", "response_item", "event_msg", "turn_context", "compacted", "odd"]),
        "payload": st.one_of(_json, _item),
    }
)
EXAMPLES = 60


def _check(entries: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
        try:
            transcript = import_transcript(path)
        except TranscriptError as exc:
            assert "\n" not in str(exc)
            return
        assert_paired(transcript)


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_claude, min_size=1, max_size=8))
def test_claude_code_shaped_lines_never_crash(entries: list[Any]) -> None:
    _check(entries)


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_codex, min_size=1, max_size=8))
def test_codex_shaped_lines_never_crash(entries: list[Any]) -> None:
    _check(entries)


# Found by the property test above: a `type` that is a list or an object is a
# skipped unknown entry, wherever the importers look a type up.
@pytest.mark.parametrize(
    "entries",
    [
        [{"type": "response_item", "payload": {"type": []}}],
        [{"type": "response_item", "payload": {"type": {}}}],
        [{"type": ["user"], "message": {"content": "hi"}}],
        [{"type": "session_meta", "payload": {}}, {"type": [1], "payload": {}}],
        [{"type": "session_meta", "payload": {}}, {"type": "event_msg", "payload": {"type": ["x"]}}],
        [{"type": "user", "message": {"content": [{"type": ["tool_result"]}]}}],
        [{"type": "assistant", "message": {"type": None, "content": 1}}],
        [{"type": "assistant", "message": {"content": {"type": "text"}}}],
    ],
)
def test_a_type_of_any_json_shape_is_skipped(entries: list[Any]) -> None:
    _check(entries)
