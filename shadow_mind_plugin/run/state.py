"""What the run path keeps per root: the active runs and the projector."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ..projection import IncrementalProjector

if TYPE_CHECKING:
    from ..core.records import RunEntry


@attrs.define(eq=False, kw_only=True)
class RunState:
    #: at most one active run per definition
    active: dict[str, RunEntry] = attrs.field(factory=dict)
    total_runs: int = 0
    #: renders only the events appended since the previous review
    projector: IncrementalProjector = attrs.field(factory=IncrementalProjector)
