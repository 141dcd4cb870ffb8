"""Project a root session into the plain-text trajectory a Shadow reviews.

The projection is privacy-preserving: it never contains reasoning, tool result
text or (unless ``disclosure="full"``) tool arguments. Each rendered event is
prefixed with ``[seq=N ...]``; the seqs that produced text are the only valid
``refs`` a report may cite.

:func:`project` renders from scratch; :class:`IncrementalProjector` keeps the
rendered entries of one growing root session so a later review only renders
the events appended since the previous one, with an identical result.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any, Final, Literal, TypeAlias

from hookspecs.values import EventTypes, SessionEvent

from .capture_window import is_compaction_boundary, kept_summary, skipped
from .rendered import EMPTY_PROJECTION, ENTRY_SEPARATOR, Entry, Projection, RenderedLog
from .utf16 import JS_SPACE, u16len

__all__ = [
    "EMPTY_PROJECTION",
    "ENTRY_SEPARATOR",
    "Entry",
    "IncrementalProjector",
    "Projection",
    "project",
    "render_event",
    "summarize_tool_result",
    "visible_text",
]

Disclosure: TypeAlias = Literal["redacted", "full"]
Capture: TypeAlias = Literal["full", "since-compaction"]

UNKNOWN_TOOL: Final = "unknown-tool"
IMAGE_PLACEHOLDER: Final = "[image omitted]"
REDACTED: Final = "[redacted]"

_SUMMARY: Final = EventTypes.COMPACTION_SUMMARY
_SEQ: Final = attrgetter("seq")
_RENDERED_KINDS: Final = frozenset(
    {EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE, _SUMMARY, EventTypes.TOOL_CALL, EventTypes.TOOL_RESULT}
)


# --- content helpers -----------------------------------------------------------------------


def _blocks(value: Any) -> list[Mapping[str, Any]]:
    """Content blocks of a JSON value; anything malformed is ignored, not fatal."""
    if not isinstance(value, list | tuple):
        return []
    return [block for block in value if isinstance(block, Mapping)]


def _text_of(block: Mapping[str, Any]) -> str:
    text = block.get("text")
    return text if isinstance(text, str) else ""


def visible_text(blocks: Any) -> str:
    """What the model saw as plain text: text blocks, images as a placeholder;
    reasoning and tool payloads are dropped. Trimmed (JS semantics)."""
    parts: list[str] = []
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind == "text":
            parts.append(_text_of(block))
        elif kind == "image":
            parts.append(IMAGE_PLACEHOLDER)
    # JavaScript's trim, so "blank" means what it meant there (no regex per line of output)
    return "\n".join(parts).strip(JS_SPACE)


def _content_chars(blocks: Any) -> int:
    # reasoning counts here: the summary reports size, never content
    total = 0
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind in ("text", "reasoning"):
            total += u16len(_text_of(block))
        elif kind == "tool-result":
            total += _content_chars(block.get("content"))
    return total


def _content_lines(blocks: Any) -> int:
    total = 0
    for block in _blocks(blocks):
        kind = block.get("type")
        if kind == "text":
            # a "\r" before the "\n" is JS whitespace: splitting on "\n" alone counts the same lines
            total += sum(1 for line in _text_of(block).split("\n") if line.strip(JS_SPACE))
        elif kind == "tool-result":
            total += _content_lines(block.get("content"))
    return total


def _content_kinds(blocks: Any, counts: dict[str, int]) -> dict[str, int]:
    for block in _blocks(blocks):
        kind = str(block.get("type"))
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "tool-result":
            _content_kinds(block.get("content"), counts)
    return counts


def _locale_key(kind: str) -> tuple[str, str]:
    # approximates JS localeCompare for these ids: case-insensitive first, lowercase before uppercase
    return kind.casefold(), kind.swapcase()


def _read_meta_counts(meta: Any) -> tuple[int, int] | None:
    """(non-empty lines, chars) from a read tool's ``meta.lines`` when it validates."""
    if not isinstance(meta, Mapping):
        return None
    lines = meta.get("lines")
    if not isinstance(lines, list):
        return None
    non_empty = chars = 0
    for line in lines:
        text = line.get("text") if isinstance(line, Mapping) else None
        if not isinstance(text, str):
            return None
        if text.strip(JS_SPACE):
            non_empty += 1
        chars += u16len(text)
    return non_empty, chars


def summarize_tool_result(tool: str, content: Any, failed: bool, meta: Any = None) -> str:
    """A size-only summary of a tool result; its text is never disclosed."""
    outcome = "error" if failed else "success"
    chars = _content_chars(content)
    if tool == "read":
        lines, chars = _read_meta_counts(meta) or (_content_lines(content), chars)
        return f"read {outcome}: {lines} non-empty lines, {chars} text characters"
    if tool == "grep":
        return f"grep {outcome}: {_content_lines(content)} result lines, {chars} text characters"
    if tool == "glob":
        return f"glob {outcome}: {_content_lines(content)} paths, {chars} text characters"
    counts = _content_kinds(content, {})
    kinds = ", ".join(f"{kind}={counts[kind]}" for kind in sorted(counts, key=_locale_key)) or "none"
    return f"{tool} {outcome}: {chars} text characters; blocks {kinds}"


# --- per-event rendering -----------------------------------------------------------------------


def _message(data: Any) -> Mapping[str, Any]:
    message = data.get("message") if isinstance(data, Mapping) else None
    return message if isinstance(message, Mapping) else {}


def _call_key(value: Any) -> str | None:
    """Call ids are strings; anything else is stringified so lookups stay consistent."""
    if value is None or isinstance(value, str):
        return value
    return str(value)


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _arguments_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    return json.dumps(raw, separators=(",", ":"), ensure_ascii=False)


def _render_tool_result(seq: int, data: Any, calls: Mapping[str, tuple[str, int]]) -> str:
    data = data if isinstance(data, Mapping) else {}
    content: Any = _message(data).get("content")
    blocks = _blocks(content)
    first = blocks[0] if blocks and blocks[0].get("type") == "tool-result" else None
    call_id = _call_key(data.get("call_id"))
    if call_id is None and first is not None:
        call_id = _call_key(first.get("tool_call_id"))
    # the paired call names the tool (as in the reference); our results also carry the name
    paired = calls.get(call_id) if call_id is not None else None
    tool = paired[0] if paired is not None else _name(data.get("name")) or UNKNOWN_TOOL
    failed = data.get("error") is not None or (first is not None and first.get("is_error") is True)
    result_content = first.get("content") if first is not None else content
    return f"[seq={seq} tool result] {summarize_tool_result(tool, result_content, failed, data.get('meta'))}"


def render_event(event: SessionEvent, calls: dict[str, tuple[str, int]], disclosure: Disclosure) -> str | None:
    """The text block of one event, or None when it renders nothing.

    ``tool/call`` records ``call_id -> (name, seq)`` in ``calls`` so later results
    can be named.
    """
    kind, seq, data = event.type, event.seq, event.data
    if kind not in _RENDERED_KINDS:
        return None  # most events (streamed chunks, step markers) render nothing: one set lookup
    if kind == EventTypes.USER_MESSAGE:
        message = _message(data)
        text = visible_text(message.get("content"))
        if not text:
            return None
        source = message.get("source")
        source_kind = source.get("kind") if isinstance(source, Mapping) else None
        return f"[seq={seq} user:{source_kind if isinstance(source_kind, str) else 'unknown'}]\n{text}"
    if kind == EventTypes.ASSISTANT_MESSAGE:
        text = visible_text(_message(data).get("content"))
        return f"[seq={seq} assistant]\n{text}" if text else None
    if kind == _SUMMARY:
        summary = data.get("summary") if isinstance(data, Mapping) else None
        text = summary.strip(JS_SPACE) if isinstance(summary, str) else visible_text(summary)
        return f"[seq={seq} compaction summary]\n{text}" if text else None
    if kind == EventTypes.TOOL_CALL:
        data = data if isinstance(data, Mapping) else {}
        name = _name(data.get("name")) or UNKNOWN_TOOL
        call_id = _call_key(data.get("call_id"))
        if call_id is not None:
            calls[call_id] = (name, seq)
        arguments = _arguments_text(data.get("arguments", "")) if disclosure == "full" else REDACTED
        return f"[seq={seq} tool call] {name} arguments={arguments}"
    if kind == EventTypes.TOOL_RESULT:
        return _render_tool_result(seq, data, calls)
    return None


# --- full projection -----------------------------------------------------------------------


def project(
    events: Sequence[SessionEvent],
    watermark: int,
    *,
    disclosure: Disclosure = "redacted",
    capture: Capture = "full",
) -> Projection:
    """Render ``events`` up to and including seq ``watermark`` (from scratch)."""
    boundary: int | None = None
    kept: int | None = None
    if capture == "since-compaction":
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if event.seq <= watermark and is_compaction_boundary(event):
                boundary, kept = event.seq, kept_summary(events, index)
                break
    calls: dict[str, tuple[str, int]] = {}
    rendered = RenderedLog()
    for event in events:
        if event.seq > watermark:
            break
        if skipped(event, boundary, kept):
            continue
        text = render_event(event, calls, disclosure)
        if text is not None:
            rendered.append(Entry(event.seq, text, event.type))
    return rendered.snapshot()


# --- incremental projection -----------------------------------------------------------------


class IncrementalProjector:
    """Projects one growing (append-only) root session, rendering each event once.

    Call :meth:`project` with the session's current events each time; when the
    events extend those of the previous call, the watermark did not go down and
    the disclosure/capture are unchanged, only the new events are rendered.
    Anything else (a different session, a lower watermark, other options)
    falls back to a full rebuild. The result always equals :func:`project`.

    ``rendered_events`` counts events handed to the renderer (cumulative),
    ``last_rendered`` those of the latest call and ``rebuilds`` the resets.
    """

    def __init__(self) -> None:
        self.rendered_events = 0
        self.last_rendered = 0
        self.rebuilds = 0
        self._options: tuple[str, str] | None = None
        self._reset(None)

    def _reset(self, options: tuple[str, str] | None) -> None:
        self._options = options
        self._watermark = -1
        self._consumed = 0  # index of the first event not yet looked at
        self._last: SessionEvent | None = None  # events[_consumed - 1], to detect a different log
        self._rendered = RenderedLog()
        self._calls: dict[str, tuple[str, int]] = {}
        self._boundary: int | None = None
        self._kept: int | None = None  # the seq of the summary kept before the boundary
        self._cached: Projection = EMPTY_PROJECTION

    def reset(self) -> None:
        """Forget everything (e.g. when the root session is replaced)."""
        self._reset(None)

    @property
    def watermark(self) -> int:
        """The watermark of the latest call (-1 before the first)."""
        return self._watermark

    def _continues(self, events: Sequence[SessionEvent]) -> bool:
        if len(events) < self._consumed:
            return False
        if self._consumed == 0:
            return True
        previous = events[self._consumed - 1]
        return previous is self._last or previous == self._last

    def project(
        self,
        events: Sequence[SessionEvent],
        watermark: int,
        *,
        disclosure: Disclosure = "redacted",
        capture: Capture = "full",
    ) -> Projection:
        options = (disclosure, capture)
        if options != self._options or watermark < self._watermark or not self._continues(events):
            if self._options is not None:
                self.rebuilds += 1
            self._reset(options)
        start = self._consumed
        # seqs ascend: a binary search, not a walk over the log (the first call sees all of it)
        stop = bisect_right(events, watermark, lo=start, key=_SEQ)
        self._watermark = watermark
        self.last_rendered = 0
        if stop == start:
            return self._cached
        changed = capture == "since-compaction" and self._advance_boundary(events, start, stop)
        # one slice, not an index per event: a session's events are a view whose
        # item lookup is Python code (twice the cost of rendering a resumed log)
        for event in events[start:stop]:
            if skipped(event, self._boundary, self._kept):
                continue
            self.last_rendered += 1
            text = render_event(event, self._calls, disclosure)
            if text is not None:
                self._rendered.append(Entry(event.seq, text, event.type))
                changed = True
        self.rendered_events += self.last_rendered
        self._consumed = stop
        self._last = events[stop - 1]
        if changed:
            self._cached = self._rendered.snapshot()  # copies nothing
        return self._cached

    def _advance_boundary(self, events: Sequence[SessionEvent], start: int, stop: int) -> bool:
        """The boundary only moves forward, to the newest successful compaction/end
        among the new events; older entries (but the kept summary) and calls then
        go. Returns whether it moved."""
        for index in range(stop - 1, start - 1, -1):
            event = events[index]
            if is_compaction_boundary(event):
                boundary = event.seq
                break
        else:
            return False
        if boundary == self._boundary:
            return False
        self._boundary, self._kept = boundary, kept_summary(events, index)
        kept = self._kept
        # a new log: snapshots handed out earlier keep the old one
        self._rendered = RenderedLog(e for e in self._rendered.entries if e.seq >= boundary or e.seq == kept)
        self._calls = {key: call for key, call in self._calls.items() if call[1] >= boundary}
        return True
