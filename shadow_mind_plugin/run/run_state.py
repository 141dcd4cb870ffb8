"""What the run stage keeps per root: the active runs and the projector."""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from ..checks import ViewBuilder
from ..projection import IncrementalProjector

#: the live run record (``core.owner.RunEntry``); generic so this module
#: needs nothing from the owner state that contains it
E = TypeVar("E")


@attrs.define(eq=False, kw_only=True)
class RunState(Generic[E]):
    #: at most one active run per definition
    active: dict[str, E] = attrs.field(factory=dict)
    total_runs: int = 0
    #: renders only the events appended since the previous review
    projector: IncrementalProjector = attrs.field(factory=IncrementalProjector)
    #: the evidence checks' view of the root session, fed the same way
    checks: ViewBuilder = attrs.field(factory=ViewBuilder)
