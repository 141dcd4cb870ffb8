"""A script whose mappings have non-string keys (``?`` is a null key), a bad tag
or deep nesting is a clear one-line ``ScriptError``, not a ``TypeError``,
``IndexError`` or ``RecursionError``."""

from __future__ import annotations

import pytest

from harness.llm.script import ScriptError
from harness.llm.scripted import ScriptedAdapter

CASES = [
    ("---\n?", "<script>: required field missing @ $.responses; unknown field(s): None @ $"),
    ("responses:\n- reply: {}\n  ? \n", "<script>: unknown field(s): None @ $.responses[0]"),
    ("responses: []\n? [1]\n", "<script>: unknown field(s): (1,) @ $"),
    ("responses: []\n1: a\nzed: b\n", "<script>: unknown field(s): 1, zed @ $"),
    ("responses: !!int\n", "<script>: invalid YAML: a tagged value cannot be built (string index out of range)"),
    ("responses: !!float xyz\n", "<script>: invalid YAML: a tagged value cannot be built (could not convert string to float: 'xyz')"),
    ("responses: " + "[" * 5000 + "]" * 5000 + "\n", "<script>: invalid YAML: nested too deeply (more than 100 levels) (line 1, column 111)"),
]


@pytest.mark.parametrize(("text", "message"), CASES)
def test_non_string_keys_are_named_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        ScriptedAdapter.from_text(text)
    assert info.value.message == message


def test_a_valid_script_still_loads() -> None:
    adapter = ScriptedAdapter.from_text("responses:\n- reply: {text: hi}\n")
    assert adapter.script.responses[0].reply.text == "hi"
