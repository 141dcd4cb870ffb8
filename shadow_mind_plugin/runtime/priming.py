"""Projecting a resumed root before its first review.

After a resume the runtime's projector has seen nothing of the session, so
the first review would render the whole log (a quarter of a second at 100k
events) between the root's turn end and the relay. A resumed root with a
scheduled reviewer is projected in the background instead, in slices with a
checkpoint between them so the host stays responsive; its owner state takes
the projector when it is created. The result is the same projector the first
review would have built (the projector extends it, or rebuilds on other
options).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from ..projection import Capture, IncrementalProjector
from ..tokens import estimate_tokens
from ..utf16 import u16len
from ..vocabulary import DEFAULT_SHADOW_ID

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..core.context import RuntimeContext

#: shorter sessions cost the first review little: not worth a task
PRIME_MIN_EVENTS = 2_000
#: events rendered between two checkpoints
PRIME_SLICE = 10_000


class ProjectionPrimer:
    def __init__(self, ctx: RuntimeContext) -> None:
        self._ctx = ctx
        #: root agent id -> (the agent, its projector); the owner state takes it
        self._primed: dict[str, tuple[Agent, IncrementalProjector]] = {}

    def start(self, agent: Agent) -> None:
        """A root appeared (new or resumed): project a long log in the background."""
        if self._ctx.stopped or not agent.is_root or len(agent.session.events) < PRIME_MIN_EVENTS:
            return
        default = self._ctx.registry.list().get(DEFAULT_SHADOW_ID)
        if default is None or not default.enabled or default.activation_probability <= 0:
            return  # no review will need it
        projector = IncrementalProjector()
        self._primed[agent.id] = (agent, projector)
        self._ctx.host.spawn(self._prime, agent, projector, default.capture, name="shadow-mind:prime-projection")

    async def _prime(self, agent: Agent, projector: IncrementalProjector, capture: Capture) -> None:
        events = agent.session.events  # a snapshot: later events are the first review's
        if not events:
            return
        disclosure = self._ctx.settings().argument_disclosure
        last = events[-1].seq
        for index in range(PRIME_SLICE - 1, len(events) + PRIME_SLICE - 1, PRIME_SLICE):
            await trio.lowlevel.checkpoint()
            mark = events[min(index, len(events) - 1)].seq
            if self._ctx.stopped or agent.disposed or projector.watermark > mark:
                return  # gone, or a review already projected past this slice
            projection = projector.project(events, min(mark, last), disclosure=disclosure, capture=capture)
        # the prompt builder measures the whole trajectory; seeded, the first review measures its tail
        await trio.lowlevel.checkpoint()
        if projector.watermark == last:
            text = projection.text
            u16len(text)
            estimate_tokens(text)
            # the child spawn asks for the root's sandbox mode: the host then reads only newer events
            self._ctx.host.subagents.toolkit.delegated_policy(agent)

    def take(self, agent: Agent) -> IncrementalProjector | None:
        """The primed projector of ``agent`` (once), or None."""
        primed = self._primed.pop(agent.id, None)
        if primed is None or primed[0] is not agent:
            return None
        return primed[1]

    def forget(self, agent: Agent) -> None:
        primed = self._primed.get(agent.id)
        if primed is not None and primed[0] is agent:
            del self._primed[agent.id]
