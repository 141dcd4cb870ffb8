"""The approval service: asks the ``dsh_approval_request`` chain, records both
the question and the answer in the asking agent's open turn."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from hookspecs.values import ApprovalOutcome, ApprovalRequest, EventTypes

if TYPE_CHECKING:
    from .hook_facade import HostHooks


class ApprovalServiceImpl:
    """Implements :class:`hookspecs.protocols.ApprovalService`. Fails closed."""

    def __init__(self, hooks: HostHooks) -> None:
        self._hooks = hooks

    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        agent = request.agent
        if agent.status != "running":
            # approvals belong to an open turn; outside one nobody can be asked
            return "unavailable"
        session = agent.session
        request_id = uuid.uuid4().hex
        asked = {"request_id": request_id, "kind": request.kind, "summary": request.summary}
        if request.tool:
            asked["tool"] = request.tool
        if request.call_id:
            asked["call_id"] = request.call_id
        session.append(EventTypes.APPROVAL_ASKED, asked)
        outcome: ApprovalOutcome = "cancelled"
        try:
            if getattr(agent, "approval_policy", "ask") == "never":
                outcome = "rejected"
            else:
                outcome = await self._hooks.approval_request(request)
        finally:
            session.append(EventTypes.APPROVAL_DECIDED, {"request_id": request_id, "outcome": outcome})
        return outcome
