"""What the run stage keeps per root: the active runs, the projector and the window tally."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

import attrs

from ..projection import IncrementalProjector
from ..window_tally import TallyKeeper

if TYPE_CHECKING:
    from ..checks import ViewBuilder

#: the live run record (``core.owner.RunEntry``); generic so this module
#: needs nothing from the owner state that contains it
E = TypeVar("E")


@attrs.define(eq=False, kw_only=True)
class RunState(Generic[E]):
    #: at most one active run per definition
    active: dict[str, E] = attrs.field(factory=dict)
    total_runs: int = 0
    #: the window start and the person's messages of the root's log, kept between hosts
    tally: TallyKeeper = attrs.field(factory=lambda: TallyKeeper(None))
    #: renders only the events appended since the previous review
    projector: IncrementalProjector = attrs.field(
        default=attrs.Factory(lambda self: IncrementalProjector(window=self.tally.window), takes_self=True)
    )
    #: the evidence checks' view (:attr:`checks`), made when first asked for:
    #: the checks' modules cost more to import than a run's start-up needs
    _checks: ViewBuilder | None = attrs.field(default=None, init=False)

    @property
    def checks(self) -> ViewBuilder:
        """The evidence checks' view of the root session, fed the same way as the projector."""
        if self._checks is None:
            from ..checks import ViewBuilder
            from ..checks.people import protect

            tally = self.tally
            self._checks = ViewBuilder(people=lambda events, stop: tally.earlier(events, stop, protect))
        return self._checks
