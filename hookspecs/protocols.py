"""The host services a plugin may call, as ``typing.Protocol`` classes.

A plugin receives a :class:`Host` in ``dsh_plugin_setup`` and keeps it. Every
registration returns a :data:`Disposer`; the host also runs a plugin's
disposers at teardown, so calling them is only needed for early removal.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import attrs

from .values.agents import AgentOptions, AgentStatus, CancelCause, InboxTarget, PromptSection
from .values.cancel import CancelToken
from .values.client import Card, CardRenderer, CardView, Notice, SettingsTab, Stylesheet
from .values.commands import CommandDefinition, CommandResult
from .values.compaction import CompactionResult, CompactionTrigger
from .values.events import SessionEvent, SessionHeader
from .values.llm import LlmRequest, ModelInfo, StreamChunk
from .values.messages import Message
from .values.settings import SettingsDescriptor, SettingsOp, SettingsSpec
from .values.subagents import DelegatedPolicy, SubagentRequest, SubagentResult
from .values.tools import ApprovalOutcome, ApprovalRequest, ToolDefinition, ToolExecution, ToolFilter

#: Undoes one registration. Idempotent.
Disposer = Callable[[], None]


# --- sessions --------------------------------------------------------------------------


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
        """An immutable snapshot of every committed event (cheap: no copy)."""
        ...

    def events_since(self, seq: int) -> Sequence[SessionEvent]:
        """Committed events with ``event.seq >= seq`` (a snapshot)."""
        ...

    def append(self, type: str, data: Any, *, ignorable: bool = False) -> SessionEvent:
        """Commit one event and publish it to ``dsh_session_event`` observers.

        ``data`` must be lossless JSON and ``type`` a registered event type.
        Raises :class:`~hookspecs.errors.SessionError` when called from inside a
        ``dsh_session_event`` observer (schedule the work with ``host.spawn``).
        """
        ...


@attrs.frozen(kw_only=True)
class SessionSummary:
    """One line of ``host.sessions.list()``."""

    id: str
    created_at: float
    cwd: str | None
    parent_session: str | None
    delegation_depth: int
    events: int
    title: str = ""


class EventTypeRegistrar(Protocol):
    """The ``register`` callback of ``dsh_register_event_types``."""

    def __call__(self, name: str, *, ignorable: bool = False) -> None:
        """Make the event type ``name`` (lowercase ``area/name``) appendable;
        events of an ``ignorable`` type are written with ``ignorable: true``."""
        ...


class SessionStore(Protocol):
    def register_event_type(self, name: str, *, ignorable: bool = False) -> Disposer:
        """Make ``name`` appendable. ``ignorable`` types are written with
        ``ignorable: true`` so hosts without the plugin can still load the log."""
        ...

    def is_known_type(self, name: str) -> bool: ...

    def get(self, session_id: str) -> Session | None:
        """A live (open) session, or None."""
        ...

    def list(self) -> builtins.list[SessionSummary]:
        """Persisted sessions, newest first."""
        ...

    def read(self, session_id: str) -> tuple[SessionHeader, Sequence[SessionEvent]]:
        """Read a persisted log without opening it (repairs are not written)."""
        ...


# --- agents ------------------------------------------------------------------------------


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


class ScopedTools(Protocol):
    """Tools visible to one agent; registrations unwind with the agent."""

    def register(self, tool: ToolDefinition) -> Disposer:
        """An agent-scoped tool; shadows a global tool of the same name."""
        ...

    def restrict(self, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> Disposer:
        """Hide tools from the model *and* refuse them at execution. Restrictions
        only narrow: several restrictions intersect."""
        ...

    def guard(self, guard: Callable[[ToolExecution], str | None]) -> Disposer:
        """A final deny check run for every call of this agent; returning a
        reason refuses the call. Guards are monotonic: nothing re-allows."""
        ...


class ScopedPrompt(Protocol):
    def section(self, section: PromptSection) -> Disposer:
        """Add (or shadow by name) a system-prompt section for this agent."""
        ...

    def suppress_runtime_context(self) -> Disposer:
        """Drop every ``runtime-context`` section from this agent's prompt."""
        ...


@runtime_checkable
class AgentScope(Protocol):
    """Agent-local contributions, made in ``CreateAgentOptions.setup``."""

    @property
    def agent(self) -> Agent: ...

    @property
    def tools(self) -> ScopedTools: ...

    @property
    def system_prompt(self) -> ScopedPrompt: ...

    def add_plugin(self, plugin: object, name: str | None = None) -> Disposer:
        """Register an object with ``@hookimpl`` methods whose agent-related hooks
        fire only for this agent (and never for others)."""
        ...

    def on_dispose(self, callback: Callable[[], Any]) -> None:
        """Run ``callback`` (sync or async) when the agent is disposed."""
        ...


@attrs.frozen(kw_only=True)
class CreateAgentOptions:
    """How to create an agent.

    :param owner: the agent that owns this one at runtime (subagents); None for roots.
    :param setup: runs before the agent is published; scoped tools, prompt
        sections, restrictions and plugins registered there exist before the
        first ``dsh_session_created``. A raise rolls everything back.
    :param cancel: creation-only cancellation.
    """

    session_id: str | None = None
    cwd: str | None = None
    owner: Agent | None = attrs.field(default=None, eq=False, repr=False)
    parent_session: str | None = None
    origin: str | None = None
    delegation_depth: int = 0
    agent_options: AgentOptions = AgentOptions()
    setup: Callable[[AgentScope], Awaitable[None] | None] | None = attrs.field(default=None, eq=False, repr=False)
    cancel: CancelToken | None = attrs.field(default=None, eq=False, repr=False)
    label: str | None = None


class AgentHandle(Protocol):
    """Returned to an agent's creator; only the creator may dispose it."""

    @property
    def agent(self) -> Agent: ...

    async def dispose(self) -> None:
        """Cancel, drain to quiescence, fire ``dsh_agent_disposed`` and unwind the
        scope. Idempotent."""
        ...


class AgentRegistry(Protocol):
    def get(self, agent_id: str) -> Agent | None: ...

    def list(self) -> Sequence[Agent]:
        """Every live agent (a snapshot)."""
        ...

    def roots(self) -> Sequence[Agent]:
        """The live agents without an owner (a snapshot)."""
        ...

    def owner_of(self, agent_id: str) -> Agent | None: ...

    async def create(self, options: CreateAgentOptions) -> AgentHandle: ...

    async def resume(
        self,
        session_id: str,
        *,
        agent_options: AgentOptions | None = None,
        setup: Callable[[AgentScope], Awaitable[None] | None] | None = None,
    ) -> AgentHandle:
        """Open a persisted session (repairing a crashed tail) and drive it."""
        ...


# --- tools, commands, approval -----------------------------------------------------------


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


class ToolRegistry(Protocol):
    def register(self, tool: ToolDefinition) -> Disposer:
        """A global tool; a duplicate name is an error."""
        ...

    def get(self, name: str, agent: Agent | None = None) -> ToolDefinition | None:
        """The tool ``agent`` would get for ``name`` (scoped first), or None when
        unknown or hidden from it."""
        ...

    def visible(self, agent: Agent) -> list[ToolDefinition]:
        """The tools ``agent``'s model is offered, in name order."""
        ...


class CommandRegistry(Protocol):
    def register(self, command: CommandDefinition) -> Disposer: ...

    def list(self) -> builtins.list[CommandDefinition]: ...

    async def execute(self, agent: Agent, line: str) -> CommandResult | None:
        """Run ``/name raw-input`` for ``agent``; None when ``line`` is not a
        known command. Records ``command/run`` and ``command/done``."""
        ...


class ApprovalService(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        """Walk the ``dsh_approval_request`` chain. With no answerer the outcome is
        ``unavailable`` (fail closed); a session whose approval policy is
        ``never`` gets ``rejected`` without asking."""
        ...


# --- settings -------------------------------------------------------------------------------


class SettingsService(Protocol):
    def register(self, spec: SettingsSpec) -> Disposer: ...

    def get(self, namespace: str) -> Any:
        """The resolved value (an instance of the namespace's schema class)."""
        ...

    def revision(self, namespace: str) -> str: ...

    def describe(self, *, redact_secrets: bool = True) -> list[SettingsDescriptor]: ...

    async def mutate(
        self,
        namespace: str,
        ops: Sequence[SettingsOp],
        *,
        expected_revision: str | None = None,
    ) -> Any:
        """Apply ``ops`` to the user document and persist it atomically; returns the
        new resolved value. Raises ``SettingsConflictError`` on a stale revision
        and ``SettingsError`` naming the field when the result would be invalid."""
        ...


# --- LLMs -------------------------------------------------------------------------------------


@runtime_checkable
class LlmAdapter(Protocol):
    """Talks to one provider. ``stream`` yields chunks and raises ``LlmError``."""

    @property
    def provider(self) -> str: ...

    def models(self) -> Sequence[ModelInfo]: ...

    def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]: ...


class LlmService(Protocol):
    def register_adapter(self, adapter: LlmAdapter) -> Disposer: ...

    def providers(self) -> list[str]: ...

    def models(self, provider: str) -> list[ModelInfo]: ...

    def model_info(self, provider: str, model: str) -> ModelInfo | None: ...

    def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]: ...


# --- subagents --------------------------------------------------------------------------------


@runtime_checkable
class SubagentRun(Protocol):
    @property
    def id(self) -> str:
        """The child session id."""
        ...

    @property
    def local_agent(self) -> Agent | None: ...

    async def result(self) -> SubagentResult:
        """Wait for the child to settle. Never raises for a child failure."""
        ...

    async def dispose(self) -> None:
        """Cancel, wait to quiescence and release the child. Idempotent; callers
        always await it."""
        ...


@runtime_checkable
class SubagentProvider(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Mapping[str, bool]: ...

    @property
    def stop_reasons(self) -> frozenset[str]:
        """Extension stop reasons this provider may return besides the core ones."""
        ...

    async def start(self, request: SubagentRequest) -> SubagentRun: ...


@runtime_checkable
class StructuredCapture(Protocol):
    """The state of a child's ``structured_output`` tool."""

    @property
    def captured(self) -> bool:
        """True once a valid call's result was committed."""
        ...

    @property
    def value(self) -> Any:
        """The committed arguments (None until captured)."""
        ...


#: ``finish(result, child) -> result``: a provider's last word on a run's result.
FinishRun = Callable[[SubagentResult, "Agent"], SubagentResult]


class SubagentToolkit(Protocol):
    """Reusable pieces of the host's in-process providers.

    A plugin's own provider composes these instead of re-implementing child
    creation, policy inheritance, composition and structured output.
    """

    def child_depth(self, parent: Agent, max_depth: int | None) -> int:
        """The child's delegation depth; raises ``SubagentError``
        (``DEPTH_EXCEEDED``) when it would exceed ``max_depth`` (an absolute cap)."""
        ...

    def delegated_policy(self, parent: Agent) -> DelegatedPolicy:
        """Capture what the child inherits; call before the first ``await``."""
        ...

    def apply_delegated_policy(self, child: Agent, policy: DelegatedPolicy) -> None:
        """Record the inherited policy in the child's log (``approval/policy``,
        ``sandbox/mode``); the host enforces it from there."""
        ...

    def compose(
        self,
        scope: AgentScope,
        *,
        persona: str | None = None,
        tool_filter: ToolFilter | None = None,
        delegation_note: bool = True,
    ) -> None:
        """Persona (shadows the deployment persona), tool restriction (hides and
        refuses) and, unless disabled, a runtime-context line telling the child
        it works for another agent."""
        ...

    def attach_structured_output(
        self,
        scope: AgentScope,
        schema: Mapping[str, Any],
        *,
        validate: Callable[[Any], Sequence[str]] | None = None,
        description: str | None = None,
        instruction: str | None = None,
    ) -> StructuredCapture:
        """Add a scoped ``structured_output`` tool whose parameters are ``schema``.

        Arguments are checked against the schema and then ``validate`` (every
        violation is returned at once as a retryable ``INVALID_ARGS``); a valid
        call concludes the turn, every later tool call is refused, and the value
        is committed only after the authoritative tool result succeeded.
        """
        ...

    async def start_in_process(
        self,
        request: SubagentRequest,
        *,
        provider: str,
        setup: Callable[[AgentScope, StructuredCapture | None], Awaitable[None] | None] | None = None,
        agent_options: AgentOptions | None = None,
        finish: FinishRun | None = None,
        validate_output: Callable[[Any], Sequence[str]] | None = None,
        output_description: str | None = None,
        output_instruction: str | None = None,
    ) -> SubagentRun:
        """Create one fresh child of ``request.parent`` and start it on the prompt.

        Applies depth check, delegated policy, composition (persona, tool filter)
        and structured output from the request (checked further by
        ``validate_output``), then the provider's ``setup``.
        The run's result maps the child's turn end to a stop reason
        (``completed``, ``max-tokens``, ``aborted``, ``refusal`` for a blocked
        turn, else ``error``; ``no-structured-output`` when a requested capture
        is missing) and passes it through ``finish``.
        """
        ...


class SubagentService(Protocol):
    @property
    def toolkit(self) -> SubagentToolkit:
        """Helpers for building in-process providers."""
        ...

    def register_provider(self, provider: SubagentProvider) -> Disposer:
        """Raises ``SubagentError`` (``DUPLICATE_PROVIDER``) when the name is taken."""
        ...

    def get(self, name: str) -> SubagentProvider | None: ...

    def list(self) -> builtins.list[SubagentProvider]: ...

    async def start(self, name: str, request: SubagentRequest) -> SubagentRun:
        """Check every capability the request uses, then delegate; fails with
        ``NO_PROVIDER`` or ``UNSUPPORTED_CAPABILITY`` before the provider starts."""
        ...


# --- client -------------------------------------------------------------------------------------


class ClientService(Protocol):
    """Process-local cards and notices for user interfaces (``host.client``);
    nothing here becomes a session event. Every member is synchronous and quick."""

    def upsert_card(self, card: Card) -> None: ...

    def remove_card(self, session_id: str, key: str) -> None: ...

    def cards(self, session_id: str) -> list[Card]: ...

    def restore(self, session_id: str, events: Sequence[SessionEvent]) -> list[Card]:
        """When a client opens a session (after a restart its live cards are
        gone): each renderer's ``restore`` rebuilds cards from the session's
        durable ``events``; a live card with the same key wins, a renderer that
        raises is logged and skipped. Returns the session's cards, as ``cards``."""
        ...

    def view(self, card: Card) -> CardView:
        """The card's view model from its kind's renderer; a kind without a
        ``view`` (or one that raises, logged) shows its terminal text as the
        banner. Recomputed on every call, so it may read live settings."""
        ...

    def notice(self, notice: Notice) -> None: ...

    def notices(self) -> list[Notice]:
        """The latest notices (bounded, oldest first), for a client that connects late."""
        ...

    def subscribe(self, listener: Callable[[Card | Notice], None]) -> Disposer:
        """Call ``listener`` with every card pushed (a removed one once more, with
        ``visibility`` ``hidden``) and every notice, synchronously; a listener
        that raises is logged and stays subscribed."""
        ...

    def settings_tabs(self) -> list[SettingsTab]: ...

    def renderer(self, kind: str) -> CardRenderer | None: ...

    def stylesheets(self) -> list[Stylesheet]:
        """Plugin stylesheets in plugin-name order (rich clients load them)."""
        ...


# --- compaction ----------------------------------------------------------------------------


class CompactionEngine(Protocol):
    """The optional ``compaction`` service (``host.compaction``; None when off).

    An engine writes the durable trace (``compaction/start``,
    ``compaction/summary``, the checkpoint ``user/message`` with ``surface_op``
    ``replace``, ``compaction/end``); the host derives the compacted history
    from the log after every call, so an engine never edits live state.
    """

    async def compact_if_needed(
        self, agent: Agent, trigger: CompactionTrigger, cancel: CancelToken, *, request: LlmRequest | None = None
    ) -> CompactionResult:
        """Automatic compaction, called by the loop inside a turn: ``pressure``
        right before ``request`` is sent, ``context-overflow`` after the provider
        rejected it (the loop then retries once). Never raises for a failed
        compaction: the failure is recorded in ``compaction/end`` and the result
        says ``compacted=False``."""
        ...

    async def compact_now(
        self, agent: Agent, cancel: CancelToken, *, source_command_id: str | None = None
    ) -> CompactionResult:
        """Manual compaction from idle (``/compact``). Raises
        :class:`~hookspecs.errors.ManualCompactionError` (``busy``,
        ``cancelled``, ``changed``, ``summary``, ``commit``, ``persistence``)."""
        ...


# --- host -----------------------------------------------------------------------------------------


class SystemPromptRegistry(Protocol):
    def section(self, section: PromptSection) -> Disposer:
        """A global system-prompt section (agent scopes may shadow it by name)."""
        ...


class Paths(Protocol):
    @property
    def dsh_home(self) -> Path: ...

    @property
    def sessions_dir(self) -> Path: ...

    @property
    def settings_file(self) -> Path: ...


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock epoch seconds. Under trio's MockClock it advances with
        virtual time, so wall-clock cooldowns are testable without sleeping."""
        ...


class Host(Protocol):
    """Everything a plugin may use. Passed to ``dsh_plugin_setup``."""

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def agents(self) -> AgentRegistry: ...

    @property
    def subagents(self) -> SubagentService: ...

    @property
    def settings(self) -> SettingsService: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def commands(self) -> CommandRegistry: ...

    @property
    def llm(self) -> LlmService: ...

    @property
    def approval(self) -> ApprovalService: ...

    @property
    def compaction(self) -> CompactionEngine | None:
        """The compaction engine (a plugin's from ``dsh_register_compaction_engine``,
        else the host's own); None when the host compacts nothing."""
        ...

    @property
    def client(self) -> ClientService: ...

    @property
    def system_prompt(self) -> SystemPromptRegistry: ...

    @property
    def paths(self) -> Paths: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def logger(self) -> logging.Logger: ...

    @property
    def headless(self) -> bool:
        """True when no person is attached (``harness run``): plugins should drain
        their background work instead of waiting for input."""
        ...

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any, name: str | None = None) -> None:
        """Run ``fn(*args)`` in the host's background task group. Exceptions are
        logged, never propagated; headless runs wait for these tasks to finish;
        remaining tasks are cancelled after ``dsh_plugin_teardown``."""
        ...
