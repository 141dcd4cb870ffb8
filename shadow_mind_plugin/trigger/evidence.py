"""``review_on_check``: whether an evidence check fires on the turn to review.

The checks run over the window the reviewer would be shown (the projection
through the turn's watermark, with the definition's capture) and cite only
what it renders, as a checks-only review and a model's leads do; both the
view builder and the projector are the root's incremental ones, so the
question costs the events appended since the previous one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..checks import most_severe, run_checks

if TYPE_CHECKING:
    from ..core.owner import OwnerState
    from ..definitions.model import ShadowDefinition
    from ..projection import Disclosure


def check_fired(state: OwnerState, definition: ShadowDefinition, seq: int, disclosure: Disclosure) -> str | None:
    """The kind of the most severe finding through ``seq``, None when no check fires."""
    events = state.root.session.events
    projection = state.run.projector.project(events, seq, disclosure=disclosure, capture=definition.capture)
    builder = state.run.checks
    builder.extend(events, seq)
    finding = most_severe(run_checks(builder.view(), projection.seqs))
    return str(finding.kind) if finding is not None else None
