"""The builder's faster text helpers say exactly what the slower spellings say:
a call's arguments as ``json.dumps(..., ensure_ascii=False)`` writes them, an
error's first line as ``str.splitlines`` finds it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.transcripts.builder import argument_text, first_line

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.sampled_from(
    ["\u2028", "a\r\nb", "\x1c\x1d\x1e", "\x85x", "\ud800", '"\\/']
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_arguments_are_written_as_json_dumps_writes_them(value: Any) -> None:
    expected = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    assert argument_text(value) == expected


def test_a_value_json_cannot_write_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(TypeError):
        argument_text({"a": object()})


@settings(max_examples=300, deadline=None)
@given(_TEXT.filter(bool))
def test_the_first_line_is_the_one_splitlines_finds(text: str) -> None:
    assert first_line(text) == text.splitlines()[0]


@pytest.mark.parametrize("text", ["x\n", "\n", "a\rb", "a\x0bb", "a\x0cb", "a\u2029b", "tail" * 5000 + "\nrest"])
def test_the_first_line_ends_where_splitlines_ends_it(text: str) -> None:
    assert first_line(text) == text.splitlines()[0]
