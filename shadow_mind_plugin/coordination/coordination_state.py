"""What the coordination stage keeps per root: the review window."""

from __future__ import annotations

import attrs

from .review_window import ReviewWindow


@attrs.define(eq=False, kw_only=True)
class CoordinationState:
    #: accepted envelopes per definition (stagnation and decay)
    review_window: ReviewWindow = attrs.field(factory=ReviewWindow)

    def decay_factor(self, shadow_id: str) -> float:
        return self.review_window.decay_factor(shadow_id)
