"""What the output stage keeps per root: the batcher."""

from __future__ import annotations

import attrs

from .batcher import ReportBatcher
from .relay import PendingReport


@attrs.define(eq=False, kw_only=True)
class OutputState:
    #: accepted reports wait here for the batching window (the output stage
    #: keeps the run each one belongs to)
    batcher: ReportBatcher[PendingReport]
    #: relays that entered the root's history since the last real user message
    #: (the trigger stage bounds automatic reviews by it)
    relays_since_user: int = 0
