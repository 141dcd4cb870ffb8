"""The one delivery channel for review prompts and result notices.

``followup`` (its own next turn, wakes the agent) when the option is on and
the agent has it — called on the agent itself, never detached — else
``inject`` (joins the next step; an idle agent keeps it until something wakes
it). A refused delivery returns ``"refused"`` so the caller keeps its latch
and counters and retries at the next completed boundary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from hookspecs.errors import DshError
from hookspecs.values import Message, create_user_message

from .vocabulary import NOTICE_KIND, PLUGIN_NAME

if TYPE_CHECKING:
    import logging

    from hookspecs.protocols import Agent

Delivered = Literal["followup", "inject", "refused"]


def notice_message(text: str, summary: str) -> Message:
    """A delivery: a user-role message whose source says it is this plugin's."""
    return create_user_message(text, {"kind": NOTICE_KIND, "plugin": PLUGIN_NAME, "form": "notice", "summary": summary})


def deliver_message(agent: Agent, message: Message, *, wake: bool, logger: logging.Logger) -> Delivered:
    summary = message.source.get("summary", "")
    use_followup = wake and callable(getattr(agent, "followup", None))
    try:
        if use_followup:
            agent.followup(message)
        else:
            agent.inject(message)
    except DshError as exc:
        logger.warning("evolution-review: %s delivery to %s refused: %s", summary, agent.id, exc)
        return "refused"
    return "followup" if use_followup else "inject"
