"""Spans from the host's committed events, after the GenAI semantic conventions.

One ``invoke_agent`` span per agent turn (root and child sessions alike), one
``chat`` span per model request and one ``execute_tool`` span per tool call,
both children of their turn. A child session's turns are children of what
its parent was doing when it was created: the one tool call in flight (a
``subagent`` tool), else the running turn, else the parent's last turn (a
Shadow reviewer starts right after the turn it reviews ended). Only the
plugin's own (private) tracer is used. Names, ids and codes from outside are
scrubbed and bounded like everything else the host stores; message content
is exported only when asked for (:mod:`.content`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from opentelemetry.context import Context
from opentelemetry.trace import (
    NonRecordingSpan,
    Span,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    Tracer,
    set_span_in_context,
)

from hookspecs.values import SessionEvent

from .content import Content, label

#: turn ends remembered per session, to find the turn a late review is about
TURN_ENDS_KEPT = 256


class _Session:
    """What one live session's spans need between its events."""

    def __init__(self, session_id: str, parent_id: str | None, depth: int) -> None:
        self.id = session_id
        self.parent_id = parent_id
        self.depth = depth
        self.name = "root" if depth == 0 else "subagent"
        self.parent: Context | None = None
        self.parent_resolved = False
        self.turn: Span | None = None
        self.turn_number = 0
        self.chat: Span | None = None
        self.tools: dict[str, Span] = {}
        self.route: tuple[str, str] | None = None
        self.inputs: list[dict[str, Any]] = []
        self.last_turn: SpanContext | None = None
        self.turn_ends: OrderedDict[int, SpanContext] = OrderedDict()


class SpanTracker:
    """Turns ``dsh_session_event`` / ``dsh_agent_stream`` calls into spans."""

    def __init__(self, tracer: Tracer, content: Content) -> None:
        self._tracer = tracer
        self._content = content
        self._sessions: dict[str, _Session] = {}

    # --- lookups ---------------------------------------------------------------------------

    def turn_context(self, session_id: str, seq: int | None) -> Context | None:
        """The context of the turn of ``session_id`` that ended at ``seq`` (else its
        latest turn ending before ``seq``, else its latest turn), for an event about it."""
        state = self._sessions.get(session_id)
        if state is None:
            return None
        found = state.last_turn
        if seq is not None and state.turn_ends:
            before = [ctx for end, ctx in state.turn_ends.items() if end <= seq]
            found = state.turn_ends.get(seq) or (before[-1] if before else found)
        return set_span_in_context(NonRecordingSpan(found)) if found is not None else None

    # --- events ----------------------------------------------------------------------------

    def on_event(self, session: Any, event: SessionEvent) -> None:
        state = self._sessions.get(session.id)
        if state is None:
            header = session.header
            state = self._sessions[session.id] = _Session(session.id, header.parent_session, header.delegation_depth)
        handler = _HANDLERS.get(event.type)
        if handler is not None:
            handler(self, state, event)

    def on_stream_start(self, session_id: str, step: int) -> None:
        state = self._sessions.get(session_id)
        if state is None or state.turn is None:
            return
        self._end_chat(state, error="superseded")
        provider, model = state.route or ("", "")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": state.id,
            "dsh.step": step,
        }
        if provider:
            attributes["gen_ai.provider.name"] = provider
        if model:
            attributes["gen_ai.request.model"] = model
        state.chat = self._tracer.start_span(
            f"chat {model}".rstrip(), context=set_span_in_context(state.turn), kind=SpanKind.CLIENT, attributes=attributes
        )

    def close_session(self, session_id: str) -> None:
        state = self._sessions.pop(session_id, None)
        if state is not None:
            self._end_open(state, "session closed")

    def close_all(self) -> None:
        for session_id in list(self._sessions):
            self.close_session(session_id)

    # --- handlers --------------------------------------------------------------------------

    def _turn_start(self, state: _Session, event: SessionEvent) -> None:
        self._end_open(state, "superseded")
        if not state.parent_resolved:
            state.parent_resolved = True
            state.parent = self._parent_of(state)
        state.turn_number = int(event.data.get("turn", state.turn_number + 1))
        state.inputs = []
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": state.name,
            "gen_ai.agent.id": state.id,
            "gen_ai.conversation.id": state.id,
            "dsh.turn": state.turn_number,
            "dsh.delegation_depth": state.depth,
        }
        if state.parent_id is not None:
            attributes["dsh.parent_session"] = state.parent_id
        if state.route is not None:
            attributes["gen_ai.provider.name"], attributes["gen_ai.request.model"] = state.route
        state.turn = self._tracer.start_span(
            f"invoke_agent {state.name}", context=state.parent, kind=SpanKind.INTERNAL, attributes=attributes
        )

    def _turn_end(self, state: _Session, event: SessionEvent) -> None:
        turn = state.turn
        if turn is None:
            return
        self._end_chat(state, error="turn ended")
        for call_id in list(state.tools):
            self._end_tool(state, call_id, "ABORTED")
        reason = event.data.get("reason") or {}
        kind = label(reason.get("kind"))
        turn.set_attribute("dsh.turn.end", kind)
        if kind == "aborted":
            turn.set_attribute("dsh.turn.aborted_by", label(reason.get("by")))
        elif kind == "error":
            code = label((reason.get("error") or {}).get("code")) or "error"
            turn.set_attribute("error.type", code)
            turn.set_status(Status(StatusCode.ERROR, code))
        if state.inputs:
            turn.set_attribute("gen_ai.input.messages", self._content.messages(state.inputs))
        turn.end()
        state.turn = None
        state.last_turn = turn.get_span_context()
        state.turn_ends[event.seq] = state.last_turn
        while len(state.turn_ends) > TURN_ENDS_KEPT:
            state.turn_ends.popitem(last=False)

    def _user_message(self, state: _Session, event: SessionEvent) -> None:
        if self._content.enabled and state.turn is not None:
            state.inputs.append(event.data.get("message") or {})

    def _route(self, state: _Session, event: SessionEvent) -> None:
        state.route = (label(event.data.get("provider")), label(event.data.get("model")))
        if state.turn is not None:
            state.turn.set_attribute("gen_ai.provider.name", state.route[0])
            state.turn.set_attribute("gen_ai.request.model", state.route[1])
        if state.chat is not None:  # the route is recorded just before the request streams
            state.chat.set_attribute("gen_ai.provider.name", state.route[0])
            state.chat.set_attribute("gen_ai.request.model", state.route[1])
            state.chat.update_name(f"chat {state.route[1]}")

    def _assistant_message(self, state: _Session, event: SessionEvent) -> None:
        chat = state.chat
        if chat is None:
            return
        data = event.data
        message = data.get("message") or {}
        source = message.get("source") or {}
        if source.get("model"):
            chat.set_attribute("gen_ai.response.model", label(source.get("model")))
        usage = data.get("usage") or {}
        for key, name in _USAGE:
            if isinstance(usage.get(key), int):
                chat.set_attribute(name, usage[key])
        if data.get("stop"):
            chat.set_attribute("gen_ai.response.finish_reasons", [label(data["stop"])])
        if self._content.enabled:
            chat.set_attribute("gen_ai.output.messages", self._content.messages([message]))
        if data.get("interrupted"):
            chat.set_attribute("error.type", "interrupted")
            chat.set_status(Status(StatusCode.ERROR, "interrupted"))
        chat.end()
        state.chat = None

    def _tool_call(self, state: _Session, event: SessionEvent) -> None:
        if state.turn is None:
            return
        data = event.data
        call_id, name = label(data.get("call_id")), label(data.get("name"))
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": state.id,
        }
        if self._content.enabled:
            attributes["gen_ai.tool.call.arguments"] = self._content.text(data.get("arguments"))
        old = state.tools.pop(call_id, None)
        if old is not None:
            old.end()
        state.tools[call_id] = self._tracer.start_span(
            f"execute_tool {name}", context=set_span_in_context(state.turn), kind=SpanKind.INTERNAL, attributes=attributes
        )

    def _tool_result(self, state: _Session, event: SessionEvent) -> None:
        data = event.data
        error = data.get("error") or {}
        span = state.tools.get(label(data.get("call_id")))
        if span is not None and self._content.enabled:
            span.set_attribute("gen_ai.tool.call.result", self._content.tool_result(data.get("message") or {}))
        self._end_tool(state, label(data.get("call_id")), label(error.get("code")) if error else None)

    def _subagent_descriptor(self, state: _Session, event: SessionEvent) -> None:
        name = label(event.data.get("label") or event.data.get("provider")) or state.name
        state.name = name
        if state.turn is not None:
            state.turn.set_attribute("gen_ai.agent.name", name)
            state.turn.update_name(f"invoke_agent {name}")

    def _step_end(self, state: _Session, event: SessionEvent) -> None:
        self._end_chat(state, error="no response")

    # --- helpers ---------------------------------------------------------------------------

    def _parent_of(self, state: _Session) -> Context | None:
        parent = self._sessions.get(state.parent_id) if state.parent_id else None
        if parent is None:
            return None
        if len(parent.tools) == 1:
            return set_span_in_context(next(iter(parent.tools.values())))
        if parent.turn is not None:
            return set_span_in_context(parent.turn)
        if parent.last_turn is not None:
            return set_span_in_context(NonRecordingSpan(parent.last_turn))
        return None

    def _end_tool(self, state: _Session, call_id: str, code: str | None) -> None:
        span = state.tools.pop(call_id, None)
        if span is None:
            return
        span.set_attribute("dsh.tool.outcome", code or "ok")
        if code:
            span.set_attribute("error.type", code)
            span.set_status(Status(StatusCode.ERROR, code))
        span.end()

    def _end_chat(self, state: _Session, *, error: str) -> None:
        if state.chat is not None:
            state.chat.set_attribute("error.type", error)
            state.chat.set_status(Status(StatusCode.ERROR, error))
            state.chat.end()
            state.chat = None

    def _end_open(self, state: _Session, why: str) -> None:
        self._end_chat(state, error=why)
        for call_id in list(state.tools):
            self._end_tool(state, call_id, why)
        if state.turn is not None:
            state.turn.set_attribute("dsh.turn.end", why)
            state.turn.end()
            state.last_turn = state.turn.get_span_context()
            state.turn = None


_USAGE = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
    ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
)

_HANDLERS = {
    "turn/start": SpanTracker._turn_start,
    "turn/end": SpanTracker._turn_end,
    "step/end": SpanTracker._step_end,
    "user/message": SpanTracker._user_message,
    "request/context": SpanTracker._route,
    "assistant/message": SpanTracker._assistant_message,
    "tool/call": SpanTracker._tool_call,
    "tool/result": SpanTracker._tool_result,
    "subagent/descriptor": SpanTracker._subagent_descriptor,
}

#: the event types the plugin's ``dsh_session_event`` declares
EVENT_TYPES = tuple(_HANDLERS)
