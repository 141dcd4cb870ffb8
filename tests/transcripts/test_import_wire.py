"""The importer writes messages in the session log's wire form.

The builder writes a message's JSON directly instead of building the attrs
value and unstructuring it (that round trip cost more than the rest of a
line), so each imported message must read back as a :class:`Message` and
write out again identical, key order included: the session file's bytes
are what a resume, the web client and a digest see.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.transcripts import import_transcript
from hookspecs.values.messages import message_from_json, message_to_json

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    "name", ["claude-code-small.jsonl", "codex-small.jsonl", "real_claude_code_2197.jsonl", "real_codex_0171.jsonl"]
)
def test_imported_messages_round_trip_through_the_wire_form(name: str) -> None:
    imported = import_transcript(FIXTURES / name, workspace="/home/u/proj")
    messages = [event.data["message"] for event in imported.events if "message" in event.data]
    assert {m["role"] for m in messages} == {"user", "assistant", "tool"}
    for message in messages:
        again = message_to_json(message_from_json(message))
        assert json.dumps(again) == json.dumps(message)  # same keys in the same order
    ids = [m["id"] for m in messages if m["role"] != "tool"]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch("[0-9a-f]{32}", i) for i in ids)


def test_a_message_source_is_not_shared_between_events() -> None:
    # a consumer that edits one event's message must not edit another's
    imported = import_transcript(FIXTURES / "claude-code-small.jsonl")
    sources = [event.data["message"]["source"] for event in imported.events if "message" in event.data]
    assert len({id(source) for source in sources}) == len(sources)
