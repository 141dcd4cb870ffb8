"""Framing a transcript's lines (issue 20, item 5): the faster framing takes
exactly the lines ``json.loads`` of each line takes, names the same line when
one is refused, and leaves the garbage collector as it found it."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.transcripts import TranscriptError
from harness.transcripts.reader import frame, paused_gc


def loads_each_line(raw: bytes) -> list[tuple[int, Any]]:
    """The framing as it was: each line decoded on its own and given to ``json.loads``."""
    out = []
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        if chunk.strip():
            out.append((number, json.loads(chunk.decode("utf-8", errors="surrogateescape"))))
    return out


EDGES = [
    b'{"a": 1}\n',
    b'  {"a": 1}\n',  # leading white space
    b'{"a": 1}  \t\n',  # trailing white space
    b'{"a": 1}\r\n{"b": 2}\r\n',  # CRLF line ends
    b'\n \t \n{"a": 1}\n\x0b\x0c\n',  # blank lines of every ASCII white space
    b'{"a": "\xff\xfe caf\xc3\xa9"}\n',  # invalid UTF-8 kept as lone surrogates
    b'{"a": "\xe2\x82"}\n{"b": 1}\n',  # a sequence cut by the end of its line
    b'{"a": "\\u001b[31m", "b": [1, 2.5e3, null, true]}\n',
]


@pytest.mark.parametrize("raw", EDGES)
def test_the_lines_json_loads_takes(raw: bytes) -> None:
    assert frame(raw, "t.jsonl") == loads_each_line(raw)


@given(st.lists(st.dictionaries(st.text(max_size=8), st.one_of(st.text(max_size=20), st.integers())), max_size=5))
@settings(max_examples=60, deadline=None)
def test_any_object_lines(objects: list[dict[str, Any]]) -> None:
    raw = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode("utf-8", "surrogatepass")
    if objects:
        assert frame(raw, "t.jsonl") == loads_each_line(raw)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1}\n{"a": 1} x\n', "t.jsonl:2: line 2 is not JSON (Extra data)"),
        (b'{"a": 1}\n\xef\xbb\xbf{"a": 1}\n', "t.jsonl:2: line 2 is not JSON (Unexpected UTF-8 BOM"),
        (b'{"a": 1}\nnope\n', "t.jsonl:2: line 2 is not JSON (Expecting value)"),
        (b'{"a": 1}\n{"a": ', "t.jsonl:2: line 2 is cut short"),
        (b'{"a": 1}\n  [1]\n', "t.jsonl:2: line 2 is not a JSON object"),
        (b"[" * 100_000 + b"\n", "t.jsonl:1: line 1 is not JSON (RecursionError)"),
    ],
)
def test_a_refused_line_is_named(raw: bytes, message: str) -> None:
    with pytest.raises(TranscriptError) as info:
        frame(raw, "t.jsonl")
    assert str(info.value).startswith(message)


def test_the_collector_is_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        frame(path.read_bytes(), "t.jsonl")
        assert not gc.isenabled()  # one the caller turned off stays off
    finally:
        gc.enable()
    with pytest.raises(TranscriptError), paused_gc():
        frame(b"nope\n", "t.jsonl")
    assert gc.isenabled()  # also after a refused line


def test_what_was_made_while_paused_is_not_visited_when_the_collector_resumes() -> None:
    passes: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        with paused_gc():
            made = [[i] for i in range(50_000)]  # far more containers than the first generation's threshold
        after = [[i] for i in range(100)]  # allocations that would start the pass over them
    finally:
        gc.callbacks.remove(count)
    assert passes == []
    assert len(made) == 50_000 and len(after) == 100


def test_a_cycle_made_while_paused_is_still_collected() -> None:
    class Node:
        other: object = None

    with paused_gc():
        node = Node()
        node.other = node
        ref = weakref.ref(node)
        del node
    gc.collect()
    assert ref() is None


def test_a_heap_frozen_by_the_caller_stays_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_gc():
            made = [[i] for i in range(1000)]
        assert gc.get_freeze_count() == frozen  # nothing thawed, nothing added
        assert len(made) == 1000
    finally:
        gc.unfreeze()
