"""The SSE decoder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.llm.openai_compat.sse import MAX_LINE_BYTES, LineTooLong, SseDecoder


def decode(*blocks: bytes) -> list[tuple[int, bytes]]:
    decoder = SseDecoder()
    out = []
    for block in blocks:
        out.extend(decoder.feed(block))
    out.extend(decoder.close())
    return out


def test_events_comments_and_line_numbers() -> None:
    stream = b': keep-alive\n\ndata: {"a":1}\n\nevent: x\nid: 7\ndata: {"b":2}\n\ndata: [DONE]\n\n'
    assert decode(stream) == [(3, b'{"a":1}'), (7, b'{"b":2}'), (9, b"[DONE]")]


def test_crlf_no_space_and_multiline_data() -> None:
    stream = b'data:{"a":1}\r\n\r\ndata: {"b":\r\ndata: 2}\r\n\r\n'
    assert decode(stream) == [(1, b'{"a":1}'), (3, b'{"b":\n2}')]


def test_an_unterminated_last_event_is_flushed_at_close() -> None:
    assert decode(b'data: {"a":1}\n\ndata: {"b"', b":2}") == [(1, b'{"a":1}'), (3, b'{"b":2}')]
    assert decode(b'data: {"a":1}\n') == [(1, b'{"a":1}')]
    assert decode(b"") == []


def test_split_inside_crlf() -> None:
    assert decode(b"data: x\r", b"\n\r", b"\n") == [(1, b"x")]


def test_an_endless_line_is_refused() -> None:
    decoder = SseDecoder()
    decoder.feed(b"data: ok\n\n")
    with pytest.raises(LineTooLong) as info:
        decoder.feed(b"data: " + b"x" * MAX_LINE_BYTES)
    assert info.value.line == 3


EVENTS = st.lists(
    st.tuples(
        st.sampled_from([b"", b": ping\n", b"event: message\n"]),
        st.binary(max_size=40).filter(lambda b: b"\n" not in b and b"\r" not in b),
        st.sampled_from([b"\n", b"\r\n"]),
    ),
    max_size=12,
)


@given(EVENTS, st.data())
def test_any_split_into_blocks_gives_the_same_payloads(events: list[tuple[bytes, bytes, bytes]], data: st.DataObject) -> None:
    stream = b"".join(prefix + b"data: " + payload + nl + nl for prefix, payload, nl in events)
    whole = decode(stream)
    assert [p for _, p in whole] == [payload for _, payload, _ in events]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    blocks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    assert decode(*blocks) == whole
