"""Approval prompts answered by the person at the web page.

Registered ``trylast`` like the terminal's approver, so policy plugins answer
first. A pending request is pushed to every open page (a page shows one session, but
the agent asking waits for whoever answers) and waits for a click; cancelling
the request (its token) withdraws it. Each names its session, and an answer
must name the same one: the page offers Allow and Reject only while it shows
that session, so nobody approves a call without seeing whose it is.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio

from hookspecs import hookimpl
from hookspecs.errors import DshError
from hookspecs.values import ApprovalOutcome, ApprovalRequest

from .feed import Feed
from .payloads import arguments_preview, clean, session_label, session_title


@attrs.define(eq=False)
class Pending:
    id: str
    session_id: str
    payload: dict[str, Any]
    done: trio.Event = attrs.field(factory=trio.Event)
    outcome: ApprovalOutcome = "cancelled"


class WebApprover:
    def __init__(self, feed: Feed) -> None:
        self._feed = feed
        self._pending: dict[str, Pending] = {}

    def pending(self) -> list[dict[str, Any]]:
        return [p.payload for p in self._pending.values()]

    def answer(self, request_id: str, session_id: str, allow: bool) -> None:
        """Settle a pending request, answered from a page showing ``session_id``."""
        pending = self._pending.get(request_id)
        if pending is None:
            raise DshError("that approval is no longer pending", code="NOT_FOUND")
        if session_id != pending.session_id:
            label = pending.payload["session_label"]
            raise DshError(f"that approval is for session {label}, not the one shown; open it to answer", code="CONFLICT")
        pending.outcome = "allowed-once" if allow else "rejected"
        pending.done.set()

    @hookimpl(trylast=True)
    async def dsh_approval_request(
        self, request: ApprovalRequest, call_next: Callable[..., Awaitable[ApprovalOutcome]]
    ) -> ApprovalOutcome:
        if request.cancel is not None and request.cancel.cancelled:
            return "cancelled"
        session = request.agent.session
        pending = Pending(id=secrets.token_hex(8), session_id=request.agent.id, payload={})
        pending.payload = {
            "id": pending.id,
            "session_id": clean(request.agent.id, 120),
            "session_label": session_label(request.agent.id, session_title(session.events)),
            "tool": clean(request.tool or request.kind, 120),
            "summary": clean(request.summary, 1000),
            "arguments": arguments_preview(request.arguments),
        }
        self._pending[pending.id] = pending
        self._feed.publish(None, {"kind": "approval", "approval": pending.payload})
        try:
            with trio.CancelScope() as scope:
                unbind = request.cancel.bind(scope) if request.cancel is not None else None
                try:
                    await pending.done.wait()
                finally:
                    if unbind is not None:
                        unbind()
            return pending.outcome if not scope.cancelled_caught else "cancelled"
        finally:
            del self._pending[pending.id]
            self._feed.publish(None, {"kind": "approval-done", "id": pending.id})
