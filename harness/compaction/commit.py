"""Writing a compaction's durable trace.

``compaction/start`` (the lock), ``compaction/summary``, the checkpoint
``user/message`` (the commit point: it replaces the shadowed range in the
derived history) and ``compaction/end``. A failure after the start still
writes ``compaction/end`` with ``error`` so the log stays consistent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from hookspecs.protocols import Session
from hookspecs.values import EventTypes, Message, create_user_message, message_to_json
from hookspecs.values.compaction import CompactionTrigger, checkpoint_source

CHECKPOINT_HEADER = "[Summary of the earlier conversation, which was compacted to fit the context window]\n\n"


def open_compaction(
    session: Session, *, trigger: CompactionTrigger, turn: int | None, source_command_id: str | None
) -> str:
    """Append ``compaction/start``; returns the new compaction id."""
    compaction_id = uuid.uuid4().hex
    data: dict[str, Any] = {"compaction_id": compaction_id, "turn": turn, "trigger": trigger}
    if source_command_id is not None:
        data["source_command_id"] = source_command_id
    session.append(EventTypes.COMPACTION_START, data)
    return compaction_id


def write_summary(
    session: Session,
    *,
    compaction_id: str,
    summary: str,
    shadowed_seqs: Sequence[int],
    shadowed_tokens: int,
    provider: str,
    model: str,
) -> None:
    session.append(
        EventTypes.COMPACTION_SUMMARY,
        {
            "compaction_id": compaction_id,
            "summary": summary,
            "shadowed_seqs": list(shadowed_seqs),
            "shadowed_range": [min(shadowed_seqs), max(shadowed_seqs)],
            "shadowed_token_count": shadowed_tokens,
            "provider": provider,
            "model": model,
        },
    )


def checkpoint_message(compaction_id: str, summary: str, source_command_id: str | None) -> Message:
    return create_user_message(CHECKPOINT_HEADER + summary, checkpoint_source(compaction_id, source_command_id))


def write_checkpoint(
    session: Session,
    *,
    message: Message,
    shadowed_seqs: Sequence[int],
    positions: tuple[int, int],
    turn: int | None,
    step: int | None,
) -> None:
    data: dict[str, Any] = {}
    if turn is not None:
        data["turn"] = turn
    if step is not None:
        data["step"] = step
    data["message"] = message_to_json(message)
    data["surface_op"] = {"op": "replace", "start": positions[0], "end": positions[1]}
    data["source_event_seqs"] = list(shadowed_seqs)
    session.append(EventTypes.USER_MESSAGE, data)


def close_compaction(session: Session, compaction_id: str, error: dict[str, str] | None = None) -> None:
    data: dict[str, Any] = {"compaction_id": compaction_id}
    if error is not None:
        data["error"] = error
    session.append(EventTypes.COMPACTION_END, data)
