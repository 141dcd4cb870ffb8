"""The durable session log: header, events and the core event vocabulary.

Event ``data`` is plain JSON (dicts, lists, strings, numbers); plugins read it
with ordinary indexing. The shapes of the core payloads are documented in
``docs/events.md`` and summarised next to each constant below.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

import attrs

#: Version written to line 1 of every ``session.jsonl``.
SESSION_FORMAT_VERSION: Final = 1

Origin: TypeAlias = Literal["subagent"]


@attrs.frozen(kw_only=True)
class SessionHeader:
    """Immutable facts about a session, kept outside the event log.

    A root session has no ``parent_session``, no ``origin`` and depth 0; a child
    created by a subagent provider has ``origin="subagent"``, its parent's id and
    ``delegation_depth = parent + 1``.
    """

    id: str
    #: epoch milliseconds
    created_at: float
    cwd: str | None = None
    parent_session: str | None = None
    origin: Origin | None = None
    delegation_depth: int = 0
    version: int = SESSION_FORMAT_VERSION

    @property
    def is_root(self) -> bool:
        return self.parent_session is None and self.delegation_depth == 0


@attrs.frozen(kw_only=True, slots=True)
class SessionEvent:
    """One committed log entry. ``seq`` is its index: contiguous from 0.

    ``time`` is epoch milliseconds from the host clock. ``ignorable`` marks an
    event a host that does not know its type may skip when loading.
    """

    type: str
    seq: int
    time: float
    data: Any
    ignorable: bool = False


class EventTypes:
    """Names of the core event types every host knows (a namespace, not an enum)."""

    #: ``{turn}``
    TURN_START: Final = "turn/start"
    #: ``{turn, reason: {kind, ...}}``; see :class:`TurnEndKinds`.
    TURN_END: Final = "turn/end"
    #: ``{turn, step}``
    STEP_START: Final = "step/start"
    #: ``{turn, step}``
    STEP_END: Final = "step/end"
    #: ``{turn?, step?, message, surface_op?, source_event_seqs?}``; a message entered into the
    #: model history. A compaction checkpoint carries ``surface_op: {op: replace, start, end}``.
    USER_MESSAGE: Final = "user/message"
    #: ``{turn, step, chunk: {type, ...}}``; the raw stream (text, reasoning, tool-call deltas).
    ASSISTANT_CHUNK: Final = "assistant/chunk"
    #: ``{turn, step, message, usage?, stop?, interrupted?}``
    ASSISTANT_MESSAGE: Final = "assistant/message"
    #: ``{turn, step, call_id, name, arguments}``; ``arguments`` is the raw JSON text.
    TOOL_CALL: Final = "tool/call"
    #: ``{turn, step, call_id, name, message, error?: {code, message}, meta?}``
    TOOL_RESULT: Final = "tool/result"
    #: ``{provider, model, reasoning_effort?}``; written when the request route changes.
    REQUEST_CONTEXT: Final = "request/context"
    #: ``{turn, step, attempt, delay_seconds, code, status?}``; an LLM retry.
    LLM_RETRY: Final = "llm/retry"
    #: ``{command_id, name, input?, source}``
    COMMAND_RUN: Final = "command/run"
    #: ``{command_id, kind: success|error, text?}``
    COMMAND_DONE: Final = "command/done"
    #: ``{request_id, kind, summary, tool?, call_id?}``
    APPROVAL_ASKED: Final = "approval/asked"
    #: ``{request_id, outcome}``
    APPROVAL_DECIDED: Final = "approval/decided"
    #: ``{policy: ask|never, source}``
    APPROVAL_POLICY: Final = "approval/policy"
    #: ``{mode, source}``
    SANDBOX_MODE: Final = "sandbox/mode"
    #: ``{provider, label?, mode}``; written inside a child's first turn.
    SUBAGENT_DESCRIPTOR: Final = "subagent/descriptor"
    #: ``{compaction_id, turn: int | None, trigger, source_command_id?}``; a lock until ``compaction/end``.
    COMPACTION_START: Final = "compaction/start"
    #: ``{compaction_id, summary, shadowed_seqs, shadowed_range: [first, last], shadowed_token_count, provider, model}``
    COMPACTION_SUMMARY: Final = "compaction/summary"
    #: ``{compaction_id, error?: {code, message}}``; without ``error`` it is the since-compaction boundary.
    COMPACTION_END: Final = "compaction/end"

    CORE: Final[frozenset[str]] = frozenset(
        {
            TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE, ASSISTANT_CHUNK,
            ASSISTANT_MESSAGE, TOOL_CALL, TOOL_RESULT, REQUEST_CONTEXT, LLM_RETRY,
            COMMAND_RUN, COMMAND_DONE, APPROVAL_ASKED, APPROVAL_DECIDED, APPROVAL_POLICY,
            SANDBOX_MODE, SUBAGENT_DESCRIPTOR, COMPACTION_START, COMPACTION_SUMMARY,
            COMPACTION_END,
        }
    )


class TurnEndKinds:
    """``turn/end`` ``reason.kind`` values.

    ``aborted`` carries ``by`` (``user | parent | hook | disposed``) and an optional
    ``reason`` text; ``error`` carries ``error: {message, code, status?, request_id?}``;
    ``interrupted`` is written only by crash repair, never by a live loop.
    """

    COMPLETED: Final = "completed"
    ABORTED: Final = "aborted"
    BLOCKED: Final = "blocked"
    ERROR: Final = "error"
    MAX_TOKENS: Final = "max-tokens"
    INTERRUPTED: Final = "interrupted"

    ALL: Final[frozenset[str]] = frozenset({COMPLETED, ABORTED, BLOCKED, ERROR, MAX_TOKENS, INTERRUPTED})


TurnEndKind: TypeAlias = Literal["completed", "aborted", "blocked", "error", "max-tokens", "interrupted"]


def turn_end_kind(event: SessionEvent) -> str | None:
    """The ``reason.kind`` of a ``turn/end`` event (None for any other event)."""
    if event.type != EventTypes.TURN_END:
        return None
    reason = event.data.get("reason") if isinstance(event.data, dict) else None
    kind = reason.get("kind") if isinstance(reason, dict) else None
    return kind if isinstance(kind, str) else None
