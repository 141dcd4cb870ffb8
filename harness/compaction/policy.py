"""When to compact and where to cut: the ``compaction`` settings namespace, the
pressure threshold and the choice of the shadowed prefix."""

from __future__ import annotations

from collections.abc import Sequence

from hookspecs.values import Message, Settings, SettingsSpec, ToolCallBlock, ToolResultBlock, setting
from hookspecs.values.compaction import is_checkpoint_source

COMPACTION_NAMESPACE = "compaction"
#: the summarise request's input budget when the model's window is unknown
UNKNOWN_WINDOW_INPUT_TOKENS = 24_000


class CompactionSettings(Settings):
    """When to compact, one :func:`hookspecs.values.setting` a line."""

    enabled: bool = setting(alias="enabled", default=True, description="Compact automatically when a request would not fit (/compact always works).")
    threshold: float = setting(alias="threshold", default=0.8, minimum=0.1, maximum=0.95, description="Share of the model's context window a request may fill before compacting.")
    keep_recent: float = setting(alias="keep_recent", default=0.25, minimum=0.0, maximum=0.6, description="Share of the window of the newest history kept verbatim after a compaction.")
    summary_max_tokens: int = setting(alias="summary_max_tokens", default=1024, minimum=64, maximum=32_768, description="Output token limit of the summarising request.")


COMPACTION_SETTINGS = SettingsSpec(
    namespace=COMPACTION_NAMESPACE,
    schema=CompactionSettings,
    title="Compaction",
    description="When the reference host replaces old history with a summary.",
    applies="live",
)


def under_pressure(request_tokens: int, window: int | None, settings: CompactionSettings) -> bool:
    """True when a request of ``request_tokens`` exceeds the threshold share of ``window``."""
    return window is not None and request_tokens > settings.threshold * window


def valid_cuts(messages: Sequence[Message]) -> list[int]:
    """Indexes ``c`` where ``messages[:c]`` may be replaced by a summary: every
    tool call before ``c`` is answered before ``c`` and ``messages[c]`` (if any)
    is no tool result. Ascending; ``0`` excluded."""
    cuts: list[int] = []
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                open_calls.add(block.id)
            elif isinstance(block, ToolResultBlock):
                open_calls.discard(block.tool_call_id)
        following = messages[index + 1] if index + 1 < len(messages) else None
        if not open_calls and (following is None or following.role != "tool"):
            cuts.append(index + 1)
    return cuts


def choose_cut(messages: Sequence[Message], tokens: Sequence[int], keep_tokens: int) -> int:
    """How many leading messages to shadow: the most whose kept remainder stays
    within ``keep_tokens`` (at least everything but the newest cuttable tail when
    nothing fits). 0 when there is nothing worth compacting: no valid cut, or the
    cut would only replace the previous checkpoint."""
    cuts = valid_cuts(messages)
    if not cuts:
        return 0
    suffix = [0] * (len(messages) + 1)
    for index in range(len(messages) - 1, -1, -1):
        suffix[index] = suffix[index + 1] + tokens[index]
    fitting = [cut for cut in cuts if suffix[cut] <= keep_tokens]
    chosen = fitting[0] if fitting else cuts[-1]
    if chosen == 1 and is_checkpoint_source(messages[0].source):
        return 0
    return chosen
