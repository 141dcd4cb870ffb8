"""Holdout redaction covers every encoding the projection produces (issue 10,
item 8): with ``argumentDisclosure: full`` tool arguments are rendered as JSON,
so a literal with ``"``, ``\\``, a newline or non-ASCII text appears escaped."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from shadow_mind_plugin.event_render import _arguments_text
from shadow_mind_plugin.governance.holdout import REDACTED_HOLDOUT, contains_literal, encodings, redact

LITERAL = st.text(alphabet=st.sampled_from('AB9"\\\n\t/秘é'), min_size=3, max_size=10).map(lambda s: "HK" + s)


def rendered_forms(literal: str) -> list[str]:
    """How the projection shows the literal: in prose, in JSON arguments (as
    rendered), and in raw string arguments a model sent JSON-escaped."""
    return [
        f"The value is {literal}.",
        f"[seq=3 tool call] grep arguments={_arguments_text({'pattern': literal, 'n': 1})}",
        f"[seq=4 tool call] grep arguments={json.dumps({'pattern': literal})}",
    ]


def assert_gone(text: str, literal: str) -> None:
    for form in (literal, json.dumps(literal, ensure_ascii=False)[1:-1], json.dumps(literal)[1:-1]):
        assert form not in text
    assert not contains_literal(text, [literal])


def test_a_quoted_literal_is_redacted_in_json_arguments() -> None:
    literal = 'HK"secret"'
    text = rendered_forms(literal)[1]
    assert '\\"secret\\"' in text  # how it is rendered
    out = redact(text, [literal])
    assert REDACTED_HOLDOUT in out
    assert_gone(out, literal)


@given(literal=LITERAL)
def test_every_encoding_is_redacted(literal: str) -> None:
    for text in rendered_forms(literal):
        out = redact(text, [literal])
        assert_gone(out, literal)


def test_encodings_are_longest_first() -> None:
    forms = encodings('a"b\\c\n秘')
    assert forms[0] == json.dumps('a"b\\c\n秘')[1:-1]
    assert 'a"b\\c\n秘' in forms
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)
