# Hook specifications are declarations: pluggy never runs their bodies.
# mypy: disable-error-code="empty-body"
"""Session and agent hooks: the durable log, agent lifecycle, the loop's chains.

Observer hooks run after the fact, are called for every implementation even if
one raises (the error is logged), and must not block: an implementation may
return an awaitable, which the host runs in the background. Chain hooks receive
``call_next``: ``await call_next()`` returns the downstream decision; keyword
arguments to ``call_next`` replace the chain's input for the links after it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from .markers import hookspec

if TYPE_CHECKING:
    from .protocols import Agent, EventTypeRegistrar, Session
    from .values.agents import (
        AgentStatus,
        CancelCause,
        InboxChange,
        InboxTarget,
        LlmCallConfig,
        PreStepDecision,
        PromptAssembly,
        StreamFrame,
    )
    from .values.events import SessionEvent
    from .values.messages import Message


@hookspec
def dsh_register_event_types(register: EventTypeRegistrar) -> None:
    """Declare the session event types a plugin appends.

    When: once at host start, before ``dsh_plugin_setup``.

    Arguments: ``register(name, *, ignorable=False)`` — an
    :class:`~hookspecs.protocols.EventTypeRegistrar`; makes ``name`` appendable.
    Events of an ``ignorable`` type are written with ``"ignorable": true`` so a
    host without the plugin still loads the log; a non-ignorable unknown type
    makes loading refuse.

    Return: nothing.

    Semantics: register hook.

    Timing: synchronous and quick.
    """


@hookspec
def dsh_session_created(session: Session) -> Awaitable[None] | None:
    """A session was opened (new, resumed, or a child's).

    When: after the agent scope's ``setup`` ran and before the first event of the
    new agent is appended.

    Arguments: ``session`` — the live :class:`~hookspecs.protocols.Session`.

    Return: nothing (an awaitable is run in the background).

    Semantics: observer; exceptions are logged and contained.

    Timing: must not block.
    """


@hookspec
def dsh_session_event(session: Session, event: SessionEvent) -> Awaitable[None] | None:
    """An event was committed to a session log.

    When: synchronously inside ``session.append``, after the event is durable in
    memory and written to the log file, for every event in seq order.

    Arguments: ``session`` — the log; ``event`` — the committed
    :class:`~hookspecs.values.events.SessionEvent` (``event.seq == session.seq - 1``).

    Return: nothing. An awaitable result is scheduled in the background, not awaited.

    Semantics: observer (post-commit broadcast); exceptions are logged and
    contained. Appending to any session from inside this hook raises
    ``SessionError`` — schedule such work with ``host.spawn``.

    Timing: must not block; it runs on the loop's hot path.
    """


@hookspec
def dsh_session_disposed(session: Session) -> Awaitable[None] | None:
    """A live session was closed (its agent was disposed).

    When: after ``dsh_agent_disposed`` for the session's agent.

    Arguments: ``session`` — the closed session; it no longer accepts appends.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """


@hookspec
def dsh_agent_created(agent: Agent) -> Awaitable[None] | None:
    """An agent was published.

    When: after its ``setup`` and ``dsh_session_created``, before it can run.

    Arguments: ``agent`` — the new :class:`~hookspecs.protocols.Agent`.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """


@hookspec
def dsh_agent_status(agent: Agent, status: AgentStatus) -> Awaitable[None] | None:
    """An agent changed between ``idle`` and ``running``.

    When: ``running`` just before a turn's ``turn/start``; ``idle`` after the last
    ``turn/end`` when nothing waits in the inbox.

    Arguments: ``agent``; ``status`` — the new status.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block.
    """


@hookspec
def dsh_agent_inbox(agent: Agent, change: InboxChange, message: Message, target: InboxTarget) -> Awaitable[None] | None:
    """An inbox message was queued, claimed into a step, or discarded.

    When: ``inserted`` inside ``agent.send``; ``claimed`` when a step takes it;
    ``discarded`` when a cancel or disposal drops it.

    Arguments: ``agent``; ``change``; ``message`` — the queued message (its
    ``source`` tells real user input, ``{"kind": "user"}``, from plugin
    deliveries); ``target`` — ``next-turn`` or ``next-step``.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer. Calling ``agent.send`` from here is allowed.

    Timing: must not block.
    """


@hookspec
def dsh_agent_stream(agent: Agent, frame: StreamFrame) -> Awaitable[None] | None:
    """A live model stream frame, before it is committed.

    When: ``StreamStart`` before a request, one ``StreamDelta`` per chunk, then
    ``StreamEnd`` (also after a failure or cancellation).

    Arguments: ``agent``; ``frame`` — see :mod:`hookspecs.values.agents`.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer; watchdogs may call ``agent.cancel`` from here.

    Timing: must not block; it runs once per streamed chunk.
    """


@hookspec
def dsh_agent_disposed(agent: Agent) -> Awaitable[None] | None:
    """An agent was disposed.

    When: after its loop stopped and drained, before its scope unwinds and
    before ``dsh_session_disposed``.

    Arguments: ``agent`` — no longer accepts messages.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer.

    Timing: must not block; start cleanup with ``host.spawn``.
    """


@hookspec
def dsh_agent_background_cancel(agent: Agent, cause: CancelCause) -> Awaitable[None] | None:
    """The person asked to stop the background work done for ``agent``.

    When: the host's front end relays the request (the reference chat: Ctrl-C
    at the prompt while background work runs); ``agent`` is a root, usually idle.

    Arguments: ``agent`` — the root the work is for; ``cause`` — who asked
    (``by: "user"``) and why.

    Return: nothing (``None``, or an awaitable the host runs in the background, never awaited).

    Semantics: observer. Cancel what is run or held for ``agent`` — a review,
    a report waiting to be relayed — as for a user abort of its turn. Runs the
    host tracks are cancelled through their request's token as well.

    Timing: must not block.
    """


@hookspec
def dsh_agent_pre_step(
    agent: Agent,
    turn: int,
    step: int,
    messages: Sequence[Message],
    call_next: Callable[..., Awaitable[PreStepDecision]],
) -> PreStepDecision | Awaitable[PreStepDecision]:
    """Decide whether a step runs and which messages enter it.

    When: at each step boundary, after the inbox batch was claimed and before
    ``step/start``.

    Arguments: ``agent``; ``turn`` and ``step`` numbers; ``messages`` — the
    claimed messages; ``call_next(messages=...)`` — the rest of the chain.

    Return: ``Enter(messages)`` to run the step with those messages entered, or
    ``Reject(reason)`` to end the turn ``blocked``. The host's default is
    ``Enter(messages)``. An entered first step with no messages ends the turn
    ``completed`` without a model call.

    Semantics: chain (waterfall), sync or async links.

    Timing: may await; it delays the step.
    """


@hookspec
def dsh_agent_request(
    agent: Agent,
    turn: int,
    step: int,
    config: LlmCallConfig,
    call_next: Callable[..., Awaitable[LlmCallConfig]],
) -> LlmCallConfig | Awaitable[LlmCallConfig]:
    """Choose the route and limits of the next model request.

    When: after the system prompt was assembled, before the request streams.

    Arguments: ``agent``; ``turn``; ``step``; ``config`` — the
    :class:`~hookspecs.values.agents.LlmCallConfig` built from the agent's options;
    ``call_next(config=...)``.

    Return: the config to use (the host's default returns ``config``). A route
    change is recorded as ``request/context``.

    Semantics: chain.

    Timing: may await.
    """


@hookspec
def dsh_agent_turn_stopping(agent: Agent, turn: int) -> Awaitable[None] | None:
    """A turn is about to end normally.

    When: when a step finished with no tool calls (or a tool concluded the turn)
    and nothing waits for the next step.

    Arguments: ``agent``; ``turn``.

    Return: nothing (``None``, or an awaitable the host awaits). To object, call ``agent.steer(message)``: the turn then runs
    another step with that message.

    Semantics: awaited, serially in call order.

    Timing: may await; the turn waits.
    """


@hookspec
def dsh_system_prompt_assemble(
    agent: Agent,
    assembly: PromptAssembly,
    call_next: Callable[..., Awaitable[PromptAssembly]],
) -> PromptAssembly | Awaitable[PromptAssembly]:
    """Adjust the system prompt and tool list of one request.

    When: before every model request of ``agent``.

    Arguments: ``agent``; ``assembly`` — sections and visible tool schemas after
    scoping and restrictions; ``call_next(assembly=...)``.

    Return: the assembly to send (default: unchanged). Removing tools hides them
    for this request only; it does not make them executable if they were hidden.

    Semantics: chain.

    Timing: may await.
    """


