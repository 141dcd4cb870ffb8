"""Subagent hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .protocols import Agent, SubagentProvider, SubagentRun
    from .values.subagents import SubagentRequest, SubagentResult


@hookspec
def dsh_register_subagent_providers(register: Callable[[SubagentProvider], None]) -> None:
    """Contribute subagent providers.

    When: once at host start, before ``dsh_plugin_setup``. A plugin that must
    register a name only when it is free does so in ``dsh_plugin_setup`` with
    ``host.subagents.get(name)`` instead.

    Arguments: ``register(provider)``; a duplicate name fails the start.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_subagent_started(parent: Agent, run: SubagentRun, request: SubagentRequest) -> Awaitable[None] | None:
    """A subagent run was published.

    When: after the provider's ``start`` returned, before the caller gets the run.

    Arguments: ``parent`` — the delegating agent; ``run``; ``request``.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """


@hookspec
def dsh_subagent_ended(parent: Agent, run: SubagentRun, result: SubagentResult) -> Awaitable[None] | None:
    """A subagent run settled.

    When: once per run, when its result is known (before disposal completes).

    Arguments: ``parent``; ``run``; ``result`` — with its stop reason.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """
