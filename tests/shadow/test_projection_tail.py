"""A long log projected from its end frames the prompt a whole projection does
(issue 20, 8a): same entries, seqs allowlist, marker (count and seqs), cut and
text, for bounds anywhere, with compaction summaries, results named by calls
far back, and a log that grows between reviews."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values import SessionEvent
from shadow_mind_plugin import projection_tail
from shadow_mind_plugin.event_render import render_event, renders
from shadow_mind_plugin.projection import IncrementalProjector, project
from shadow_mind_plugin.projection_tail import TailProjection, stop_index
from shadow_mind_plugin.prompt import build_prompt
from shadow_mind_plugin.utf16 import u16len

from .test_projection import _EVENT_KINDS, Log, _build


@contextmanager
def chunk(size: int) -> Iterator[None]:
    """Small steps backwards, so short generated logs cross many of them."""
    saved = projection_tail.CHUNK
    projection_tail.CHUNK = size  # type: ignore[misc]
    try:
        yield
    finally:
        projection_tail.CHUNK = saved  # type: ignore[misc]


def _frame(projection: Any, watermark: int, chars: int, tokens: int) -> Any:
    return build_prompt(
        "Reviewer",
        "default",
        "Check.",
        projection,
        watermark,
        think_first=False,
        max_prompt_chars=chars,
        max_prompt_tokens=tokens,
    )


#: the header of ``_frame``'s prompts is 884 characters (~442 tokens)
HEADER = 885


def _bounds(total: int) -> list[tuple[int, int]]:
    room = sorted({-10, 20, 60, 110, *range(150, 700, 30), total // 3, total // 2, total + 500})
    return [(chars, tokens) for chars in (0, *(HEADER + r for r in room)) for tokens in (0, chars // 2 - 20)]


def _same(tail: Any, full: Any, watermark: int, events: int) -> None:
    """The prompts first (they render only what they read), then everything else."""
    for chars, tokens in _bounds(u16len(full.text)):
        assert _frame(tail, watermark, chars, tokens) == _frame(full, watermark, chars, tokens), (chars, tokens)
    for seq in range(-2, events + 2):
        assert (seq in tail.seqs) == (seq in full.seqs), seq
    assert len(tail.entries) == len(full.entries) and len(tail.seqs) == len(full.seqs)
    assert tail == full and tail.seqs == full.seqs and tail.entries == full.entries


_KINDS = st.lists(st.tuples(_EVENT_KINDS, st.integers(0, 7)), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(
    kinds=_KINDS,
    cuts=st.lists(st.integers(0, 61), min_size=1, max_size=5).map(sorted),
    disclosure=st.sampled_from(["redacted", "full"]),
    capture=st.sampled_from(["full", "since-compaction"]),
    step=st.integers(1, 9),
    long=st.booleans(),
)
def test_a_log_projected_from_its_end_frames_the_prompt_a_whole_projection_does(
    kinds: list[tuple[str, int]], cuts: list[int], disclosure: Any, capture: Any, step: int, long: bool
) -> None:
    log = _build(kinds)
    if long:  # an entry too large for some bounds on its own: its head is shown
        log.assistant("word " * 120 + "配置 😀")
    projector = IncrementalProjector(tail_from=0)
    earlier: list[tuple[Any, Any, int, int]] = []
    with chunk(step):
        for cut in cuts:
            visible = log.events[: cut + 1]
            watermark = min(cut, len(visible) - 1)
            tail = projector.project(visible, watermark, disclosure=disclosure, capture=capture)
            full = project(visible, watermark, disclosure=disclosure, capture=capture)
            assert isinstance(tail, TailProjection)
            _same(tail, full, watermark, len(visible))
            earlier.append((tail, full, watermark, len(visible)))
        for tail, full, watermark, events in earlier:  # snapshots: the growth since changed none
            _same(tail, full, watermark, events)


def test_a_result_is_named_by_its_call_far_before_the_window() -> None:
    log = Log()
    log.user("go")
    log.call("far", "grep")
    for n in range(40):
        log.call(f"near{n}", "read")
        log.result(f"near{n}", f"line {n}")
    log.result("far", "found it")
    with chunk(4):
        tail = IncrementalProjector(tail_from=0).project(log.events, len(log.events) - 1)
        newest = tail.entries[-1]
        assert newest.text.startswith(f"[seq={len(log.events) - 1} tool result] grep success")
        assert tail == project(log.events, len(log.events) - 1)


def test_a_bounded_prompt_renders_only_the_entries_it_reads() -> None:
    log = Log()
    for n in range(3_000):
        log.user(f"question {n}")
        log.call(f"c{n}", "read")
        log.result(f"c{n}", f"answer {n}")
    last = len(log.events) - 1
    projector = IncrementalProjector()
    tail = projector.project(log.events, last)
    framed = _frame(tail, last, 4_000, 0)
    projector.project(log.events, last)  # counts what the prompt rendered
    assert framed.elided > 8_900 and framed.elided_seqs == (0, last - len(framed.seqs))
    assert projector.rendered_events < 2 * projection_tail.CHUNK + 60
    assert framed == _frame(project(log.events, last), last, 4_000, 0)


@given(seqs=st.lists(st.integers(0, 50), unique=True, max_size=40).map(sorted), watermark=st.integers(-2, 60))
def test_the_stop_index_searched_from_the_end_is_bisect_right(seqs: list[int], watermark: int) -> None:
    log = Log()
    for seq in seqs:
        log.add("step/start", {"turn": 1, "step": seq})
        log.events[-1] = log.events[-1].__class__(type="step/start", seq=seq, time=0.0, data={})
    expected = sum(1 for seq in seqs if seq <= watermark)
    assert stop_index(log.events, watermark) == expected
    for lo in range(len(seqs) + 1):
        assert stop_index(log.events, watermark, lo) == max(lo, expected)


_BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "reasoning", "tool-call", 3])},
    optional={"text": st.one_of(st.sampled_from(["", " ", "\n\u3000", "a", " b "]), st.integers())},
)
_CONTENT = st.one_of(
    st.none(), st.text(max_size=3), st.lists(st.one_of(_BLOCK, st.integers(), st.text(max_size=2)), max_size=4)
)
_DATA = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {}, optional={"message": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"content": _CONTENT}))}
    ),
    st.fixed_dictionaries({}, optional={"summary": st.one_of(_CONTENT, st.sampled_from(["", " \n", "s"]))}),
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(
        ["user/message", "assistant/message", "compaction/summary", "tool/call", "tool/result", "turn/end"]
    ),
    data=_DATA,
)
def test_counting_agrees_with_rendering_on_any_payload(kind: str, data: Any) -> None:
    event = SessionEvent(type=kind, seq=0, time=0.0, data=data)
    assert renders(event) == (render_event(event, {}, "redacted") is not None)
