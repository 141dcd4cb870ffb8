"""A script whose mappings have non-string keys (``?`` is a null key) is a clear
``ScriptError``, not a ``TypeError`` from formatting the unknown keys."""

from __future__ import annotations

import pytest

from harness.llm.script import ScriptError
from harness.llm.scripted import ScriptedAdapter

CASES = [
    ("---\n?", "<script>: required field missing @ $.responses; unknown field(s): None @ $"),
    ("responses:\n- reply: {}\n  ? \n", "<script>: unknown field(s): None @ $.responses[0]"),
    ("responses: []\n? [1]\n", "<script>: unknown field(s): (1,) @ $"),
    ("responses: []\n1: a\nzed: b\n", "<script>: unknown field(s): 1, zed @ $"),
]


@pytest.mark.parametrize(("text", "message"), CASES)
def test_non_string_keys_are_named_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        ScriptedAdapter.from_text(text)
    assert info.value.message == message


def test_a_valid_script_still_loads() -> None:
    adapter = ScriptedAdapter.from_text("responses:\n- reply: {text: hi}\n")
    assert adapter.script.responses[0].reply.text == "hi"
