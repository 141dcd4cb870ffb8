"""Trajectory projection: formats, privacy, compaction windows and incrementality."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values import (
    EventTypes,
    ImageBlock,
    Message,
    ReasoningBlock,
    SessionEvent,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    message_to_json,
)
from shadow_mind_plugin.projection import (
    Entry,
    IncrementalProjector,
    Projection,
    project,
    summarize_tool_result,
    visible_text,
)

# --- builders in the exact shapes our host writes ----------------------------------------------


class Log:
    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def add(self, type_: str, data: Any) -> int:
        seq = len(self.events)
        self.events.append(SessionEvent(type=type_, seq=seq, time=1000.0 + seq, data=data))
        return seq

    def user(self, *blocks: Any, kind: str = "user") -> int:
        message = Message(id=f"u{len(self.events)}", role="user", content=_blocks(blocks), source={"kind": kind})
        return self.add(EventTypes.USER_MESSAGE, {"turn": 1, "step": 0, "message": message_to_json(message)})

    def assistant(self, *blocks: Any) -> int:
        message = Message(
            id=f"a{len(self.events)}", role="assistant", content=_blocks(blocks), source={"kind": "model"}
        )
        return self.add(EventTypes.ASSISTANT_MESSAGE, {"turn": 1, "step": 0, "message": message_to_json(message)})

    def call(self, call_id: str, name: str, arguments: str = '{"path":"secret.txt"}') -> int:
        return self.add(
            EventTypes.TOOL_CALL, {"turn": 1, "step": 0, "call_id": call_id, "name": name, "arguments": arguments}
        )

    def result(
        self,
        call_id: str,
        *blocks: Any,
        name: str | None = None,
        is_error: bool = False,
        error: dict[str, str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> int:
        message = Message(
            id=f"result-{call_id}",
            role="tool",
            content=(ToolResultBlock(tool_call_id=call_id, content=_blocks(blocks), is_error=is_error),),
            source={"kind": "tool", "call_id": call_id},
        )
        data: dict[str, Any] = {"turn": 1, "step": 0, "call_id": call_id, "message": message_to_json(message)}
        if name is not None:
            data["name"] = name
        if error is not None:
            data["error"] = error
        if meta is not None:
            data["meta"] = meta
        return self.add(EventTypes.TOOL_RESULT, data)

    def summary(self, text: str, compaction_id: str = "c1") -> int:
        return self.add(
            EventTypes.COMPACTION_SUMMARY, {"compaction_id": compaction_id, "summary": text, "shadowed_seqs": [0]}
        )

    def compaction_end(self, compaction_id: str = "c1", error: str | None = None) -> int:
        data: dict[str, Any] = {"compaction_id": compaction_id}
        if error is not None:
            data["error"] = error
        return self.add(EventTypes.COMPACTION_END, data)


def _blocks(blocks: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(TextBlock(text=b) if isinstance(b, str) else b for b in blocks)


def image() -> ImageBlock:
    return ImageBlock(media_type="image/png", data="aGVsbG8=")


# --- rendering ----------------------------------------------------------------------------------


def test_user_assistant_and_sources() -> None:
    log = Log()
    log.user("Fix the bug.")
    log.assistant(ReasoningBlock(text="hidden thoughts"), "Looking.", ToolCallBlock(id="c", name="read", arguments="{}"))
    log.user("Background report", kind="shadow-report")
    out = project(log.events, 10)
    assert out.text == (
        "[seq=0 user:user]\nFix the bug.\n\n[seq=1 assistant]\nLooking.\n\n[seq=2 user:shadow-report]\nBackground report"
    )
    assert out.seqs == frozenset({0, 1, 2})
    assert out.entries[0] == Entry(0, "[seq=0 user:user]\nFix the bug.", EventTypes.USER_MESSAGE)
    assert "hidden thoughts" not in out.text


def test_image_only_message_renders_placeholder() -> None:
    log = Log()
    log.user(image())
    assert project(log.events, 0).text == "[seq=0 user:user]\n[image omitted]"


def test_empty_and_reasoning_only_messages_render_nothing_and_no_anchor() -> None:
    log = Log()
    log.user("   \n ")
    log.assistant(ReasoningBlock(text="only thinking"))
    log.assistant(ToolCallBlock(id="c", name="read", arguments="{}"))
    log.user("kept")
    out = project(log.events, 10)
    assert out.text == "[seq=3 user:user]\nkept"
    assert out.seqs == frozenset({3})


def test_texts_join_with_newline_and_are_trimmed() -> None:
    assert visible_text([{"type": "text", "text": "  a"}, {"type": "image"}, {"type": "text", "text": "b \n"}]) == (
        "a\n[image omitted]\nb"
    )
    assert visible_text("not blocks") == ""


def test_tool_arguments_redacted_unless_full_and_result_text_never_shown() -> None:
    log = Log()
    log.call("c1", "read", '{"path":"secret.txt"}')
    log.result("c1", "TOP SECRET LINE\nsecond line\n\n", name="read")
    redacted = project(log.events, 5)
    assert redacted.text == (
        "[seq=0 tool call] read arguments=[redacted]\n\n"
        "[seq=1 tool result] read success: 2 non-empty lines, 29 text characters"
    )
    full = project(log.events, 5, disclosure="full")
    assert '[seq=0 tool call] read arguments={"path":"secret.txt"}' in full.text
    assert "TOP SECRET" not in full.text


def test_tool_name_comes_from_the_call_then_the_result_then_unknown() -> None:
    log = Log()
    log.call("c1", "grep")
    log.result("c1", "a\nb", name="something-else")  # the call wins
    log.result("orphan", "x", name="glob")  # no call: the result's own name
    log.result("ghost", "x", error={"code": "E", "message": "boom"})  # nothing: unknown-tool
    lines = project(log.events, 10).text.split("\n\n")
    assert lines[1] == "[seq=1 tool result] grep success: 2 result lines, 3 text characters"
    assert lines[2] == "[seq=2 tool result] glob success: 1 paths, 1 text characters"
    assert lines[3] == "[seq=3 tool result] unknown-tool error: 1 text characters; blocks text=1"


def test_failed_by_block_flag_or_error_field() -> None:
    log = Log()
    log.result("a", "x", name="read", is_error=True)
    log.result("b", "x", name="read", error={"code": "TOOL_FAILED", "message": "no"})
    log.result("c", "x", name="read")
    text = project(log.events, 10).text
    assert "[seq=0 tool result] read error:" in text
    assert "[seq=1 tool result] read error:" in text
    assert "[seq=2 tool result] read success:" in text


def test_summaries_by_tool() -> None:
    content = [
        {"type": "text", "text": "one\r\n\r\ntwo"},
        {"type": "reasoning", "text": "abc"},
        {"type": "image", "media_type": "image/png", "data": ""},
        {"type": "tool-result", "tool_call_id": "x", "content": [{"type": "text", "text": "z"}], "is_error": False},
    ]
    assert summarize_tool_result("custom", content, False) == (
        "custom success: 14 text characters; blocks image=1, reasoning=1, text=2, tool-result=1"
    )
    assert summarize_tool_result("custom", [], True) == "custom error: 0 text characters; blocks none"
    assert summarize_tool_result("grep", content, False) == "grep success: 3 result lines, 14 text characters"
    assert summarize_tool_result("glob", content, True) == "glob error: 3 paths, 14 text characters"
    assert summarize_tool_result("read", content, False) == "read success: 3 non-empty lines, 14 text characters"


def test_reference_custom_summary_example() -> None:
    # the reference's example: 19 text characters over text, reasoning and a nested result
    content = [
        {"type": "text", "text": "hello"},
        {"type": "reasoning", "text": "thinking"},
        {"type": "image", "media_type": "image/png", "data": ""},
        {"type": "tool-result", "tool_call_id": "n", "content": [{"type": "text", "text": "nested"}]},
    ]
    assert summarize_tool_result("custom", content, False) == (
        "custom success: 19 text characters; blocks image=1, reasoning=1, text=2, tool-result=1"
    )


def test_read_meta_lines_override_and_invalid_meta_falls_back() -> None:
    content = [{"type": "text", "text": "1: a\n2: \n3: ccc"}]
    meta = {"lines": [{"text": "a"}, {"text": "  "}, {"text": "ccc"}]}
    assert summarize_tool_result("read", content, False, meta) == "read success: 2 non-empty lines, 6 text characters"
    bad = {"lines": [{"text": "a"}, {"nope": 1}]}
    assert summarize_tool_result("read", content, False, bad) == "read success: 3 non-empty lines, 15 text characters"


def test_char_counts_are_utf16_units() -> None:
    assert summarize_tool_result("x", [{"type": "text", "text": "𠀀é"}], False) == (
        "x success: 3 text characters; blocks text=1"
    )


def test_watermark_cuts_inclusively() -> None:
    log = Log()
    for i in range(5):
        log.user(f"m{i}")
    out = project(log.events, 2)
    assert out.seqs == frozenset({0, 1, 2})
    assert project(log.events, -1) == Projection(text="", seqs=frozenset(), entries=())


def test_other_event_types_are_ignored() -> None:
    log = Log()
    log.add(EventTypes.TURN_START, {"turn": 1})
    log.add(EventTypes.ASSISTANT_CHUNK, {"turn": 1, "step": 0, "chunk": {"type": "text-delta", "text": "leak"}})
    log.add("plugin/custom", {"text": "leak"})
    assert project(log.events, 10).text == ""


def test_malformed_payloads_render_without_raising() -> None:
    log = Log()
    log.add(EventTypes.USER_MESSAGE, None)
    log.add(EventTypes.ASSISTANT_MESSAGE, {"message": "nope"})
    log.add(EventTypes.TOOL_RESULT, "broken")
    log.add(EventTypes.TOOL_CALL, {"name": "read"})
    out = project(log.events, 10)
    assert out.text == (
        "[seq=2 tool result] unknown-tool success: 0 text characters; blocks none\n\n"
        "[seq=3 tool call] read arguments=[redacted]"
    )


# --- since-compaction -------------------------------------------------------------------------------


def _compacted_log() -> Log:
    log = Log()
    log.user("old question")  # 0
    log.call("c1", "read")  # 1
    log.add(EventTypes.COMPACTION_START, {"compaction_id": "c1", "turn": 1})  # 2
    log.summary("The user asked an old question.")  # 3
    log.compaction_end("c1")  # 4
    log.result("c1", "late", name="read")  # 5: its call is before the boundary
    log.user("current question")  # 6
    return log


def test_since_compaction_keeps_summaries_and_drops_earlier_events() -> None:
    log = _compacted_log()
    out = project(log.events, 10, capture="since-compaction")
    assert out.seqs == frozenset({3, 5, 6})
    assert out.text == (
        "[seq=3 compaction summary]\nThe user asked an old question.\n\n"
        "[seq=5 tool result] read success: 1 non-empty lines, 4 text characters\n\n"
        "[seq=6 user:user]\ncurrent question"
    )
    # the full capture keeps everything
    assert project(log.events, 10).seqs == frozenset({0, 1, 3, 5, 6})


def _twice_compacted_log() -> Log:
    log = _compacted_log()  # 0-6, compaction c1 at 2-4
    log.add(EventTypes.COMPACTION_START, {"compaction_id": "c2", "turn": 2})  # 7
    log.summary("The user asked an old and a current question.", "c2")  # 8
    log.compaction_end("c2")  # 9
    log.user("newest question")  # 10
    return log


def test_since_compaction_keeps_only_the_newest_summary() -> None:
    # the newest summary stands for everything before it, the older ones included
    log = _twice_compacted_log()
    out = project(log.events, 10, capture="since-compaction")
    assert out.seqs == frozenset({8, 10})
    assert "old question." not in out.text and "[seq=3 " not in out.text
    projector = IncrementalProjector()
    assert projector.project(log.events, 6, capture="since-compaction").seqs == frozenset({3, 5, 6})
    assert projector.project(log.events, 10, capture="since-compaction") == out
    assert projector.rebuilds == 0


def test_since_compaction_keeps_the_summary_of_the_boundary_compaction() -> None:
    # a compaction that wrote its summary but failed to finish is no boundary, and its
    # summary does not stand for the history the successful one summarised
    log = Log()
    log.user("old")  # 0
    log.summary("the good summary", "c1")  # 1
    log.summary("a summary whose compaction failed", "c2")  # 2 (written out of order: the worst case)
    log.compaction_end("c1")  # 3
    log.compaction_end("c2", error="commit")  # 4
    log.user("new")  # 5
    assert project(log.events, 5, capture="since-compaction").seqs == frozenset({1, 5})


def test_reference_since_compaction_anchors() -> None:
    # the reference spec: a summary then the current message -> anchors [summary.seq, current.seq]
    log = Log()
    log.user("before")
    log.summary("summary text")
    log.compaction_end()
    log.user("current")
    assert sorted(project(log.events, 3, capture="since-compaction").seqs) == [1, 3]


def test_failed_compaction_is_no_boundary() -> None:
    log = Log()
    log.user("old")
    log.summary("partial")
    log.compaction_end(error="provider failed")
    log.user("new")
    assert project(log.events, 10, capture="since-compaction").seqs == frozenset({0, 1, 3})


def test_boundary_beyond_watermark_is_ignored() -> None:
    log = _compacted_log()
    assert project(log.events, 3, capture="since-compaction").seqs == frozenset({0, 1, 3})


def test_summary_with_content_blocks() -> None:
    log = Log()
    log.add(EventTypes.COMPACTION_SUMMARY, {"compaction_id": "c", "summary": [{"type": "text", "text": " s "}]})
    assert project(log.events, 0).text == "[seq=0 compaction summary]\ns"


# --- incremental projection -------------------------------------------------------------------------


def test_incremental_renders_only_new_events() -> None:
    log = Log()
    for i in range(50):
        log.user(f"m{i}")
    projector = IncrementalProjector()
    first = projector.project(log.events, 49)
    assert projector.last_rendered == 50
    for i in range(3):
        log.user(f"n{i}")
    second = projector.project(log.events, 52)
    assert projector.last_rendered == 3
    assert projector.rendered_events == 53
    assert second == project(log.events, 52)
    assert first.entries == second.entries[:50]
    # same watermark again: nothing rendered, same object
    assert projector.project(log.events, 52) is second
    assert projector.last_rendered == 0


def test_incremental_rebuilds_on_lower_watermark_other_options_or_other_log() -> None:
    log = _compacted_log()
    projector = IncrementalProjector()
    projector.project(log.events, 6)
    assert projector.project(log.events, 3) == project(log.events, 3)
    assert projector.rebuilds == 1
    assert projector.project(log.events, 6, disclosure="full") == project(log.events, 6, disclosure="full")
    assert projector.rebuilds == 2
    other = Log()
    for i in range(8):
        other.user(f"other {i}")
    assert projector.project(other.events, 7, disclosure="full") == project(other.events, 7, disclosure="full")
    assert projector.rebuilds == 3


def test_incremental_boundary_moves_forward() -> None:
    log = Log()
    log.user("a")
    log.call("c1", "read")
    projector = IncrementalProjector()
    assert projector.project(log.events, 1, capture="since-compaction").seqs == frozenset({0, 1})
    log.summary("sum")
    log.compaction_end()
    log.result("c1", "x")  # no name on the result: the pre-boundary call must be forgotten
    out = projector.project(log.events, 4, capture="since-compaction")
    assert out == project(log.events, 4, capture="since-compaction")
    assert out.seqs == frozenset({2, 4})
    assert "unknown-tool" in out.text


# weighted towards calls, results and compactions: the interesting interactions
_EVENT_KINDS = st.sampled_from(
    ["user", "user-empty", "assistant", "call", "call", "result", "result", "result-named"]
    + ["summary", "end-ok", "end-ok", "end-err", "other"]
)


def _build(kinds: list[tuple[str, int]]) -> Log:
    log = Log()
    for kind, n in kinds:
        call_id = f"c{n % 3}"
        if kind == "user":
            log.user(f"user {n}\n\nsecond paragraph", kind="user" if n % 2 else "shadow-report")
        elif kind == "user-empty":
            log.user(" ")
        elif kind == "assistant":
            log.assistant(ReasoningBlock(text="r"), f"answer {n}")
        elif kind == "call":
            log.call(call_id, ["read", "grep", "glob", "bash"][n % 4], f'{{"n":{n}}}')
        elif kind == "result":
            log.result(call_id, f"out {n}", is_error=n % 3 == 0)
        elif kind == "result-named":
            log.result(call_id, f"out {n}", name="edit", error={"code": "E", "message": "m"} if n % 2 else None)
        elif kind == "summary":
            log.summary(f"summary {n}")
        elif kind == "end-ok":
            log.compaction_end()
        elif kind == "end-err":
            log.compaction_end(error="failed")
        else:
            log.add(EventTypes.STEP_START, {"turn": 1, "step": n})
    return log


def _check_growth(kinds: list[tuple[str, int]], cuts: list[int], disclosure: Any, capture: Any) -> None:
    log = _build(kinds)
    projector = IncrementalProjector()
    for cut in cuts:
        # the log grows to `cut + 1` events; the watermark first lags by one, then catches up
        visible = log.events[: max(0, cut + 1)]
        for watermark in (cut - 1, cut):
            fresh = project(visible, watermark, disclosure=disclosure, capture=capture)
            assert projector.project(visible, watermark, disclosure=disclosure, capture=capture) == fresh


_KIND_LISTS = st.lists(st.tuples(_EVENT_KINDS, st.integers(0, 7)), min_size=2, max_size=40)


@settings(max_examples=100, deadline=None)
@given(kinds=_KIND_LISTS, cuts=st.lists(st.integers(0, 40), min_size=2, max_size=10).map(sorted))
def test_incremental_equals_fresh_projection_since_compaction(kinds: list[tuple[str, int]], cuts: list[int]) -> None:
    _check_growth(kinds, cuts, "redacted", "since-compaction")


@settings(max_examples=50, deadline=None)
@given(
    kinds=_KIND_LISTS,
    cuts=st.lists(st.integers(-1, 40), min_size=1, max_size=8),  # unsorted: watermarks also go down
    disclosure=st.sampled_from(["redacted", "full"]),
    capture=st.sampled_from(["full", "since-compaction"]),
)
def test_incremental_equals_fresh_projection(
    kinds: list[tuple[str, int]], cuts: list[int], disclosure: Any, capture: Any
) -> None:
    _check_growth(kinds, cuts, disclosure, capture)


@settings(max_examples=50, deadline=None)
@given(kinds=st.lists(st.tuples(_EVENT_KINDS, st.integers(0, 20)), min_size=1, max_size=40))
def test_growing_log_renders_each_event_at_most_once(kinds: list[tuple[str, int]]) -> None:
    log = _build(kinds)
    projector = IncrementalProjector()
    for end in range(len(log.events)):
        projector.project(log.events[: end + 1], end, capture="full")
    assert projector.rendered_events == len(log.events)
    assert projector.rebuilds == 0


def test_refs_allowlist_is_the_rendered_seqs() -> None:
    log = _compacted_log()
    out = project(log.events, 10, capture="since-compaction")
    assert all(f"[seq={seq} " in out.text for seq in out.seqs)
    assert "[seq=4 " not in out.text and 4 not in out.seqs  # compaction/end renders nothing


def test_a_projection_is_a_snapshot_the_growing_session_does_not_change() -> None:
    log = Log()
    for i in range(5):
        log.user(f"m{i}")
    projector = IncrementalProjector()
    first = projector.project(log.events, 4)
    text, entries = first.text, tuple(first.entries)
    log.call("c1", "read")
    log.user("later")
    second = projector.project(log.events, 6)
    assert first.text == text and tuple(first.entries) == entries and len(first.entries) == 5
    assert 5 not in first.seqs and 6 not in first.seqs and 6 in second.seqs
    assert first.seqs == frozenset(range(5)) and second.seqs == frozenset(range(7))
    assert second.text.startswith(first.text + "\n\n") and second.text.endswith("later")


def test_entries_and_seqs_behave_like_the_tuple_and_frozenset_they_stand_for() -> None:
    log = Log()
    for i in range(4):
        log.user(f"m{i}")
    out = project(log.events, 3)
    assert out.entries == tuple(out.entries) and tuple(out.entries) == out.entries
    assert out.entries[1:3] == tuple(out.entries)[1:3] and isinstance(out.entries[1:3], tuple)
    assert out.entries[-1].seq == 3 and list(reversed(out.entries)) == list(out.entries)[::-1]
    assert out.seqs == {0, 1, 2, 3} and sorted(out.seqs) == [0, 1, 2, 3] and len(out.seqs) == 4
    assert out.seqs & {1, 9} == frozenset({1}) and "1" not in out.seqs
    assert hash(out.seqs) == hash(frozenset(out.seqs))
    assert out == project(log.events, 3) and out != project(log.events, 2)


def test_line_counts_split_like_the_reference() -> None:
    # "\r\n" and "\n" break lines; a lone "\r" does not; blank means JS-trim blank
    assert summarize_tool_result("grep", [{"type": "text", "text": "a\r\nb\n \u3000\n\rc\r"}], False) == (
        "grep success: 3 result lines, 11 text characters"
    )
