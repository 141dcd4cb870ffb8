"""A live agent: inbox, status, cancellation and the driver task that runs turns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import trio

from hookspecs.errors import AgentError, LlmError, SessionError
from hookspecs.scrub import scrub_text
from hookspecs.values import (
    AgentOptions,
    AgentStatus,
    CancelCause,
    CancelToken,
    EventTypes,
    InboxTarget,
    Message,
)

from ..sessions.history import SurfaceFold
from ..sessions.latest import LatestEventData
from ..tools.registry import check_tool_definition
from .inbox import Inbox, InboxItem
from .scope import AgentScopeImpl
from .turn import resolve_route, run_turn_body

if TYPE_CHECKING:
    from ..runtime import Runtime
    from ..sessions.log import SessionLog

T = TypeVar("T")


class LoopAgent:
    """Implements :class:`hookspecs.protocols.Agent`.

    One driver task per agent runs turns one at a time. ``send`` never blocks:
    it queues and, for waking sends, sets the wake event the driver waits on.
    """

    def __init__(
        self,
        *,
        runtime: Runtime,
        session: SessionLog,
        options: AgentOptions,
        cwd: Path,
        owner: LoopAgent | None = None,
        label: str | None = None,
    ) -> None:
        self.runtime = runtime
        self._session = session
        self._policy = LatestEventData(EventTypes.APPROVAL_POLICY)
        self._options = options
        self._cwd = cwd
        self.owner = owner
        self.label = label
        self.scope = AgentScopeImpl(self, runtime.hooks, check_tool_definition)
        self._inbox = Inbox()
        self._status: AgentStatus = "idle"
        self._wake = trio.Event()
        self._idle = trio.Event()
        self._idle.set()
        self._turn_scope: trio.CancelScope | None = None
        self._turn_token: CancelToken | None = None
        self._cancel_cause: CancelCause | None = None
        self._disposing = False
        self._disposed = False
        self._driver_done = trio.Event()
        self._maintenance: trio.Event | None = None  # set when the running maintenance task settled
        self._maintenance_token: CancelToken | None = None
        #: the model history, folded from the log when first needed: an agent
        #: that never asks its model (a mirrored import's root) never decodes it
        self._history: list[Message] | None = None
        self._counted = 0  # events the turn counter and the route have seen
        self.turn_number = 0
        self._route: Any = None  # the last route, or _UNKNOWN: not in the events counted
        self._fold = SurfaceFold()
        self.reload_from_log()

    @property
    def history(self) -> list[Message]:
        if self._history is None:
            self._fold.feed(self._session.events_since(self._fold.consumed))
            self._history = list(self._fold.messages)
        return self._history

    @history.setter
    def history(self, messages: list[Message]) -> None:
        self._history = messages

    def reload_from_log(self) -> None:
        """Rebuild history, turn counter and route from the log (after resume/repair);
        the history is folded when first read. A log read from its last clean
        point counts turns from the number recorded there, and looks back for
        the route only when it is asked for, so neither loads the log's earlier part."""
        self._fold = SurfaceFold()
        self._history = None
        self._counted, self.turn_number = self._session.clean or (0, 0)
        self._route = _UNKNOWN if self._counted else None
        self._count()

    @property
    def last_route(self) -> tuple[str, str, str | None] | None:
        """The (provider, model, effort) of the log's last ``request/context``."""
        if self._route is _UNKNOWN:
            self._route = None
            for event in reversed(self._session.events):
                if event.type == EventTypes.REQUEST_CONTEXT:
                    self._route = _route_of(event.data)
                    break
        return cast("tuple[str, str, str | None] | None", self._route)

    @last_route.setter
    def last_route(self, route: tuple[str, str, str | None] | None) -> None:
        self._route = route

    def follow_log(self) -> None:
        """Take in what another writer appended to the log (an importer mirroring
        a foreign agent): only the events since the last fold are folded, unless
        a turn of this agent changed the history since, which rebuilds it whole."""
        fold, history = self._fold, self._history
        if history is None:  # not folded yet: its first read folds the new events too
            self._count()
            return
        untouched = len(history) == len(fold.messages) and all(
            a is b for a, b in zip(history, fold.messages, strict=True)
        )
        if not untouched:
            self.reload_from_log()
            return
        self._count()
        fold.feed(self._session.events_since(fold.consumed))
        self._history = list(fold.messages)

    def _count(self) -> None:
        """The turn counter and the last route, from the events not counted yet."""
        events = self._session.events_since(self._counted)
        self._counted += len(events)
        self.turn_number += sum(1 for e in events if e.type == EventTypes.TURN_START)
        for event in reversed(events):
            if event.type == EventTypes.REQUEST_CONTEXT:
                self._route = _route_of(event.data)
                break

    @property
    def approval_policy(self) -> str:
        """``never`` once the log says so (delegated children); else ``ask``."""
        data = self._policy.of(self._session)
        return str(data.get("policy", "ask")) if data is not None else "ask"

    # --- protocol properties -----------------------------------------------------------

    @property
    def id(self) -> str:
        return self._session.id

    @property
    def session(self) -> SessionLog:
        return self._session

    @property
    def options(self) -> AgentOptions:
        return self._options

    @options.setter
    def options(self, value: AgentOptions) -> None:
        self._options = value

    @property
    def resolved_route(self) -> str | None:
        route = resolve_route(self._options, self.runtime.loop_settings())
        return f"{route[0]}/{route[1]}" if route is not None else None

    @property
    def status(self) -> AgentStatus:
        return self._status

    @property
    def inbox(self) -> Inbox:
        return self._inbox

    @property
    def is_root(self) -> bool:
        return self._session.header.is_root

    @property
    def cwd(self) -> Path:
        return self._cwd

    @property
    def disposed(self) -> bool:
        return self._disposed

    @property
    def turn_token(self) -> CancelToken | None:
        """The running turn's cancellation token (None when idle)."""
        return self._turn_token

    # --- sending ----------------------------------------------------------------------------

    def send(self, message: Message, target: InboxTarget, wake: bool) -> None:
        if self._disposing:
            raise AgentError(f"agent {self.id} is disposed and accepts no messages", code="AGENT_DISPOSED")
        if not isinstance(message, Message) or message.role != "user":
            raise AgentError("agents accept user-role messages only (use create_user_message)")
        if target not in ("next-turn", "next-step"):
            raise AgentError(f"unknown inbox target {target!r}")
        if target == "next-step" and wake and self._cancel_cause is not None:
            # the running turn is being aborted: a wake joins the next turn instead
            target = "next-turn"
        self._inbox.put(InboxItem(message=message, target=target, wake=wake))
        self.runtime.hooks.agent_inbox(self, "inserted", message, target)
        if wake:
            if self._idle.is_set():
                self._idle = trio.Event()
            self._wake.set()

    def followup(self, message: Message) -> None:
        self.send(message, "next-turn", True)

    def steer(self, message: Message) -> None:
        self.send(message, "next-step", True)

    def inject(self, message: Message) -> None:
        self.send(message, "next-step", False)

    # --- cancellation and idleness ---------------------------------------------------------------

    def cancel(self, cause: CancelCause, *, keep_inbox: bool = False) -> bool:
        if self._status != "running" or self._turn_scope is None:
            return False
        if not keep_inbox:
            self._discard_inbox()
        if self._cancel_cause is None:
            self._cancel_cause = cause
        self._turn_scope.cancel()
        if self._turn_token is not None:
            self._turn_token.cancel(cause)
        return True

    def cancel_background(self, cause: CancelCause) -> None:
        """The person asked to stop the background work plugins do for this
        agent (``dsh_agent_background_cancel``); a running turn is not touched."""
        self.runtime.hooks.agent_background_cancel(self, cause)

    def discard_pending(self) -> None:
        """Drop everything queued (an owner withdrawing work that never started)."""
        self._discard_inbox()

    def _discard_inbox(self) -> None:
        for item in self._inbox.clear():
            self.runtime.hooks.agent_inbox(self, "discarded", item.message, item.target)

    async def when_idle(self) -> None:
        while not self._idle.is_set():
            await self._idle.wait()

    @property
    def quiescent(self) -> bool:
        return self._idle.is_set()

    # --- maintenance -------------------------------------------------------------------------

    async def run_maintenance(self, task: Callable[[CancelToken], Awaitable[T]], cancel: CancelToken | None = None) -> T:
        """Run ``task(token)`` from true idle (no turn, nothing queued to wake one).

        Status stays ``idle``; a waking ``send`` meanwhile queues as usual and its
        turn starts once the task settled; ``when_idle`` waits for the task.
        ``token`` is cancelled with ``cancel`` and when the agent is disposed.
        Raises ``AgentError`` ``AGENT_BUSY`` when not idle (or another task runs).
        """
        if self._disposing:
            raise AgentError(f"agent {self.id} is disposed", code="AGENT_DISPOSED")
        if self._status != "idle" or self._maintenance is not None or self._inbox.wants_turn:
            raise AgentError(f"agent {self.id} is running", code="AGENT_BUSY")
        done = trio.Event()
        token = cancel.child() if cancel is not None else CancelToken()
        self._maintenance, self._maintenance_token = done, token
        if self._idle.is_set():
            self._idle = trio.Event()
        try:
            return await task(token)
        finally:
            self._maintenance = self._maintenance_token = None
            done.set()
            if not self._inbox.wants_turn or self._disposing:
                self._idle.set()

    # --- driver ----------------------------------------------------------------------------------

    async def drive(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run turns while something asks for one; otherwise wait for a wake."""
        task_status.started()
        try:
            while True:
                if self._disposing:
                    break
                if not self._inbox.wants_turn:
                    self._become_idle()
                    self._wake = trio.Event()
                    await self._wake.wait()
                    continue
                if self._maintenance is not None:
                    await self._maintenance.wait()  # waking input waits until maintenance settled
                    continue
                await self._run_turn()
        finally:
            self._become_idle()
            self._driver_done.set()

    def _become_idle(self) -> None:
        if self._status != "idle":
            self._status = "idle"
            self.runtime.hooks.agent_status(self, "idle")
        if (not self._inbox.wants_turn or self._disposing) and self._maintenance is None:
            self._idle.set()

    async def _run_turn(self) -> None:
        session = self._session
        self.turn_number += 1
        turn = self.turn_number
        self._cancel_cause = None
        token = CancelToken()
        self._turn_token = token
        if self._idle.is_set():
            self._idle = trio.Event()
        if self._status != "running":
            self._status = "running"
            self.runtime.hooks.agent_status(self, "running")
        scope = trio.CancelScope()
        self._turn_scope = scope
        reason: dict[str, object] = {"kind": "completed"}
        session.append(EventTypes.TURN_START, {"turn": turn})
        try:
            with scope:
                reason = await run_turn_body(self, turn, token)
            if scope.cancelled_caught:
                reason = (self._cancel_cause or CancelCause(by="hook")).to_json()
        except LlmError as exc:
            reason = {"kind": "error", "error": _scrubbed_failure(exc)}
        except trio.Cancelled:
            reason = CancelCause(by="disposed").to_json()
            raise
        except Exception as exc:  # a bug or a plugin fault: the turn still ends
            failure = session.write_failure
            if failure is not None:
                # the log cannot record anything more: stop the driver with the one
                # error that names the session (resume closes the turn as interrupted)
                raise SessionError(failure.message, code=failure.code) from None
            self.runtime.logger.exception("turn %s of agent %s failed", turn, self.id)
            reason = {"kind": "error", "error": {"message": scrub_text(str(exc) or type(exc).__name__), "code": "INTERNAL"}}
        finally:
            self._turn_scope = None
            self._turn_token = None
            self._cancel_cause = None
            if session.write_failure is None:
                session.append(EventTypes.TURN_END, {"turn": turn, "reason": reason})
                session.sync()

    async def shutdown(self) -> None:
        """Stop the driver: abort the active turn, drop the inbox, wait for quiescence."""
        if self._disposing:
            await self._driver_done.wait()
            return
        self._disposing = True
        self.cancel(CancelCause(by="disposed"))
        if self._maintenance_token is not None:
            self._maintenance_token.cancel(CancelCause(by="disposed"))
        self._discard_inbox()
        self._wake.set()
        await self._driver_done.wait()
        self._disposed = True


#: the last route lies before the events counted: looked for when asked
_UNKNOWN: Any = object()


def _route_of(data: Any) -> tuple[str, str, str | None]:
    return (data.get("provider"), data.get("model"), data.get("reasoning_effort"))


def _scrubbed_failure(exc: LlmError) -> dict[str, object]:
    data = exc.to_json()
    data["message"] = scrub_text(str(data.get("message", "")))
    return data
