"""The live objects a value points at: the agent, its session and inbox, and
what a tool's ``execute`` is given.

They are ``typing.Protocol`` classes like the host services in
:mod:`hookspecs.protocols` (which re-exports them, their public home), but they
sit with the values because values carry them: a :class:`ToolExecution`,
:class:`CommandInvocation`, :class:`ApprovalRequest` or :class:`SubagentRequest`
names its agent. Defined here, the values import nothing from the protocols, so
the contract has no import circle, even for the type checker.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: importing a protocol creates no value class
    from .agents import AgentOptions, AgentStatus, CancelCause, InboxTarget
    from .cancel import CancelToken
    from .events import SessionEvent, SessionHeader
    from .messages import Message


@runtime_checkable
class Session(Protocol):
    """A durable, append-only event log. ``seq`` equals the number of events."""

    @property
    def id(self) -> str: ...

    @property
    def header(self) -> SessionHeader: ...

    @property
    def seq(self) -> int:
        """The next sequence number (== number of committed events)."""
        ...

    @property
    def events(self) -> Sequence[SessionEvent]:
        """An immutable snapshot of every committed event (cheap: no copy).

        A host may resume a long log without reading it whole: the events
        before the part it read are loaded when first read (an index or slice
        before it, iterating from the start); reading backwards from the end
        reads the loaded part first. Such a load may raise the host's
        :class:`~hookspecs.errors.SessionFormatError` for a log damaged there.
        ``len``, ``seq`` and :meth:`events_since` a recent seq never load."""
        ...

    def events_since(self, seq: int) -> Sequence[SessionEvent]:
        """Committed events with ``event.seq >= seq`` (a snapshot)."""
        ...

    @property
    def loaded_seq(self) -> int:
        """The seq of the first event in memory (0 once the whole log is): reading
        an earlier one loads the log's earlier part (see :attr:`events`)."""
        ...

    def append(self, type: str, data: Any, *, ignorable: bool = False) -> SessionEvent:
        """Commit one event and publish it to ``dsh_session_event`` observers.

        ``data`` must be lossless JSON and ``type`` a registered event type.
        Raises :class:`~hookspecs.errors.SessionError` when called from inside a
        ``dsh_session_event`` observer (schedule the work with ``host.spawn``).
        """
        ...


@runtime_checkable
class Inbox(Protocol):
    @property
    def next_turn(self) -> Sequence[Message]: ...

    @property
    def next_step(self) -> Sequence[Message]: ...

    @property
    def has_pending(self) -> bool: ...


@runtime_checkable
class Agent(Protocol):
    """A live agent driving one session. ``id == session.id``."""

    @property
    def id(self) -> str: ...

    @property
    def session(self) -> Session: ...

    @property
    def options(self) -> AgentOptions: ...

    @property
    def resolved_route(self) -> str | None:
        """The ``provider/model`` route the agent's requests start from (before
        ``dsh_agent_request`` hooks): ``options`` when they name both parts, else
        the host's default (the reference host: the profile's ``agent-loop.model``).
        None when neither names a complete route. Read-only; never blocks."""
        ...

    @property
    def status(self) -> AgentStatus: ...

    @property
    def inbox(self) -> Inbox: ...

    @property
    def is_root(self) -> bool:
        """True for an agent whose session has no parent and depth 0."""
        ...

    @property
    def cwd(self) -> Path:
        """The working directory tools are confined to."""
        ...

    @property
    def disposed(self) -> bool: ...

    def send(self, message: Message, target: InboxTarget, wake: bool) -> None:
        """Queue ``message``. The single primitive behind the three aliases."""
        ...

    def followup(self, message: Message) -> None:
        """``send(message, "next-turn", wake=True)``: its own turn, starts now if idle."""
        ...

    def steer(self, message: Message) -> None:
        """``send(message, "next-step", wake=True)``: joins the running turn's next
        step, or starts a turn when idle."""
        ...

    def inject(self, message: Message) -> None:
        """``send(message, "next-step", wake=False)``: claimed at the next step
        boundary; an idle agent keeps it pending until something wakes it."""
        ...

    def cancel(self, cause: CancelCause, *, keep_inbox: bool = False) -> bool:
        """Abort the active turn (the first cause wins) and clear the inbox unless
        ``keep_inbox``. A no-op returning False when idle."""
        ...

    async def when_idle(self) -> None:
        """Return once the agent is idle with nothing waking it."""
        ...

    async def run_maintenance(
        self, task: Callable[[CancelToken], Awaitable[Any]], cancel: CancelToken | None = None
    ) -> Any:
        """Run ``task(token)`` — non-turn work such as a manual compaction — from
        true idle and return its result. Status stays ``idle``; a waking message
        sent meanwhile queues and its turn starts once the task settled.
        ``token`` is cancelled with ``cancel`` and when the agent is disposed.
        Raises ``AgentError`` ``AGENT_BUSY`` unless idle with nothing queued."""
        ...


@runtime_checkable
class ToolRunContext(Protocol):
    """What a tool's ``execute`` may use."""

    @property
    def agent(self) -> Agent: ...

    @property
    def call_id(self) -> str: ...

    @property
    def cancel(self) -> CancelToken: ...

    @property
    def cwd(self) -> Path: ...

    def conclude_turn(self) -> None:
        """End the turn after this step (unless something steers it)."""
        ...
