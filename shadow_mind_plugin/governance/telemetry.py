"""Child-run telemetry for diagnostics (docs/shadow-mind.md §7 "Diagnostics"): how much the reviewer
deliberated before answering, and how it used its tools. Names and counts
only; never arguments or text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from hookspecs.values.events import SessionEvent

from ..utf16 import u16len
from ..vocabulary import STRUCTURED_OUTPUT_TOOL

_DELTA_TYPES: Final = frozenset({"text-delta", "reasoning-delta"})
INVALID_ARGS: Final = "INVALID_ARGS"
UNPAIRED: Final = "(unpaired)"


def _data(event: SessionEvent) -> Mapping[str, Any]:
    return event.data if isinstance(event.data, Mapping) else {}


def deliberation_chars(child_events: Sequence[SessionEvent]) -> int:
    """UTF-16 units of text and reasoning deltas streamed before the first
    ``structured_output`` call (all of them when there is none)."""
    capture_seq = next(
        (
            e.seq
            for e in child_events
            if e.type == "tool/call" and _data(e).get("name") == STRUCTURED_OUTPUT_TOOL
        ),
        None,
    )
    total = 0
    for event in child_events:
        if event.type != "assistant/chunk" or (capture_seq is not None and event.seq >= capture_seq):
            continue
        chunk = _data(event).get("chunk")
        if isinstance(chunk, Mapping) and chunk.get("type") in _DELTA_TYPES:
            text = chunk.get("text")
            if isinstance(text, str):
                total += u16len(text)
    return total


@attrs.frozen(kw_only=True)
class ToolTelemetry:
    """Tool calls by name and ``INVALID_ARGS`` results by the tool they answer."""

    calls: int
    by_name: dict[str, int]
    invalid_args: int
    invalid_args_by_tool: dict[str, int]


def tool_telemetry(child_events: Iterable[SessionEvent]) -> ToolTelemetry:
    """Count every ``tool/call``, and every ``tool/result`` whose error code is
    ``INVALID_ARGS`` under the name of the call with the same ``call_id``
    (``(unpaired)`` when no such call exists)."""
    events = list(child_events)
    names: dict[str, str] = {}
    by_name: dict[str, int] = {}
    calls = 0
    for event in events:
        if event.type != "tool/call":
            continue
        data = _data(event)
        name = data.get("name")
        name = name if isinstance(name, str) else ""
        calls += 1
        by_name[name] = by_name.get(name, 0) + 1
        call_id = data.get("call_id")
        if isinstance(call_id, str):
            names.setdefault(call_id, name)
    invalid = 0
    invalid_by_tool: dict[str, int] = {}
    for event in events:
        if event.type != "tool/result":
            continue
        data = _data(event)
        error = data.get("error")
        if not isinstance(error, Mapping) or error.get("code") != INVALID_ARGS:
            continue
        call_id = data.get("call_id")
        tool = names.get(call_id, UNPAIRED) if isinstance(call_id, str) else UNPAIRED
        invalid += 1
        invalid_by_tool[tool] = invalid_by_tool.get(tool, 0) + 1
    return ToolTelemetry(calls=calls, by_name=by_name, invalid_args=invalid, invalid_args_by_tool=invalid_by_tool)
