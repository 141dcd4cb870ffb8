# Hook specifications are declarations: pluggy never runs their bodies.
# mypy: disable-error-code="empty-body"
"""Compaction hooks: provide the ``compaction`` engine, observe compactions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .protocols import Agent, CompactionEngine
    from .values.compaction import CompactionResult


@hookspec
def dsh_register_compaction_engine(register: Callable[[CompactionEngine], None]) -> None:
    """Provide the host's compaction engine.

    When: once at host start, with the other ``dsh_register_*`` hooks.

    Arguments: ``register(engine)`` — ``engine`` implements
    :class:`~hookspecs.protocols.CompactionEngine`; it replaces the host's own.
    A second registration fails the host start with both plugins named.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_compaction_ended(agent: Agent, result: CompactionResult) -> Awaitable[None] | None:
    """A compaction wrote its ``compaction/end``.

    When: after every compaction attempt that wrote a trace (automatic or
    manual, successful or failed), once the host rebuilt the agent's history.
    Attempts refused before any trace (``busy``) are not reported.

    Arguments: ``agent`` — the compacted agent; ``result`` — the
    :class:`~hookspecs.values.compaction.CompactionResult` (``compacted`` and
    ``shadowed_seqs`` on success, ``error`` on failure).

    Return: nothing (an awaitable is run in the background).

    Semantics: observer; exceptions are logged and contained.

    Timing: must not block.
    """
