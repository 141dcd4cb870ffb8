"""What the governance stage keeps per root: cycles for cards and status, the
last settled run and the value loop's open challenges and counts."""

from __future__ import annotations

import attrs

from ..core.records import Cycle, RunView
from .value_loop import ChallengeObserver


@attrs.define(eq=False, kw_only=True)
class GovernanceState:
    cycles: dict[int, Cycle] = attrs.field(factory=dict)
    last_run: RunView | None = None
    #: relayed challenges not classified yet, by run id
    pending_challenges: dict[str, ChallengeObserver] = attrs.field(factory=dict)
    #: value-loop counts per definition
    value_stats: dict[str, dict[str, int]] = attrs.field(factory=dict)

    def cycle_for(self, seq: int) -> Cycle:
        cycle = self.cycles.get(seq)
        if cycle is None:
            cycle = Cycle(captured_through_seq=seq)
            self.cycles[seq] = cycle
        return cycle

    def find_run(self, run_id: str) -> tuple[Cycle, RunView] | None:
        for cycle in self.cycles.values():
            for view in cycle.runs:
                if view.run_id == run_id:
                    return cycle, view
        return None
