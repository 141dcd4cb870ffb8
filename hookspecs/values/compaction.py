"""Values of the optional ``compaction`` host service.

A compaction replaces the oldest part of an agent's model history with a
summary. Its durable trace is four events (see ``docs/compaction.md``):
``compaction/start`` (a lock until the end), ``compaction/summary``, the
checkpoint ``user/message`` that replaces the shadowed range, and
``compaction/end`` (with ``error`` when it failed). The checkpoint message is
the commit point: a host derives the compacted history from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias

import attrs

#: ``pressure``: the next request would exceed the configured share of the window;
#: ``context-overflow``: the provider rejected a request as too long;
#: ``manual``: ``/compact`` (or a plugin calling ``compact_now``).
CompactionTrigger: TypeAlias = Literal["pressure", "context-overflow", "manual"]

#: ``ManualCompactionError.code`` values (as in the reference host).
ManualCompactionCode: TypeAlias = Literal["busy", "cancelled", "changed", "summary", "commit", "persistence"]

#: ``source.plugin`` of a checkpoint message.
CHECKPOINT_PLUGIN: Final = "compact"


@attrs.frozen(kw_only=True)
class CompactionResult:
    """What one compaction request did.

    ``compacted`` is False when nothing was needed (``reason`` says why, e.g.
    the request fits) — not an error. On success ``compaction_id`` names the
    trace, ``shadowed_seqs`` lists the surface events the summary replaced and
    ``tokens_before``/``tokens_after`` are the engine's estimates of the history.
    A failed automatic compaction returns ``compacted=False`` with ``error``.
    """

    compacted: bool
    trigger: CompactionTrigger
    compaction_id: str | None = None
    shadowed_seqs: tuple[int, ...] = ()
    tokens_before: int = 0
    tokens_after: int = 0
    reason: str = ""
    #: set when a trace was written and the compaction failed: ``{code, message}``
    #: exactly as recorded in ``compaction/end``
    error: Mapping[str, str] | None = None


def checkpoint_source(compaction_id: str, source_command_id: str | None = None) -> dict[str, Any]:
    """The ``source`` of a checkpoint ``user/message``."""
    source: dict[str, Any] = {"kind": "plugin", "plugin": CHECKPOINT_PLUGIN, "compaction_id": compaction_id}
    if source_command_id is not None:
        source["source_command_id"] = source_command_id
    return source


def is_checkpoint_source(source: object) -> bool:
    """True for the ``source`` of a compaction checkpoint message."""
    return (
        isinstance(source, Mapping)
        and source.get("kind") == "plugin"
        and source.get("plugin") == CHECKPOINT_PLUGIN
        and isinstance(source.get("compaction_id"), str)
    )
