"""The typed interfaces the stages call each other through.

The wiring (:mod:`shadow_mind_plugin.runtime.runtime`) builds one object per
stage and hands each the ports it needs; no stage imports another stage's logic.

=================  ===============================  ==========================
port               implemented by                   called by
=================  ===============================  ==========================
:class:`Governance` governance stage (settlement,    trigger, run, output,
                   cards, journals)                 coordination
:class:`Budget`    trigger stage's budget keeper     run, output
:class:`Review`    coordination stage                output
:class:`Outcomes`  output stage                      run
:class:`Launcher`  run stage                         trigger, controls
=================  ===============================  ==========================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..definitions.model import ShadowDefinition
    from ..vocabulary import BudgetTier, CancellationSource, Phase, ReasonCode, Stage
    from .owner import OwnerState, RunEntry
    from .records import Cancellation, Cycle


class Governance(Protocol):
    def finish_run(
        self,
        entry: RunEntry,
        phase: Phase,
        *,
        stage: Stage | None = None,
        reason: ReasonCode | None = None,
        source: CancellationSource | None = None,
        error: dict[str, Any] | None = None,
        **fields: Any,
    ) -> bool:
        """Record the run's one outcome; later calls are ignored (returns False)."""
        ...

    def admitted(self, entry: RunEntry) -> None:
        """A run was admitted (listeners)."""
        ...

    def set_stage(self, entry: RunEntry, stage: Stage) -> None: ...

    def cycle_for(self, state: OwnerState, seq: int) -> Cycle: ...

    def update_card(self, state: OwnerState, cycle: Cycle) -> None: ...

    def debug(self, entry: RunEntry, event: str, **extra: Any) -> None: ...

    def debug_quality(self, entry: RunEntry, **fields: Any) -> None: ...

    def quality_metadata(self, entry: RunEntry, result: Any, failure: Any) -> None: ...

    def record_child_telemetry(self, entry: RunEntry, child_events: Any) -> None: ...


class Budget(Protocol):
    def tier(self, state: OwnerState) -> BudgetTier: ...

    def spend(self, state: OwnerState, chars: int, entry: RunEntry, kind: str) -> None:
        """Count characters against the session budget (write-ahead when persisted)."""
        ...


class Review(Protocol):
    def record_review(self, entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
        """An accepted report, before it is batched (stagnation, decay)."""
        ...

    def on_degenerate_output(self, entry: RunEntry) -> None: ...


class Outcomes(Protocol):
    def decide(
        self,
        entry: RunEntry,
        projection: Any,
        result: Any,
        failure: tuple[Stage, ReasonCode, BaseException] | None,
        dispose_error: BaseException | None,
        keys: tuple[str, ...],
    ) -> None:
        """Settle the run (or queue its report) from what the child produced."""
        ...

    def discard_waiting(self, state: OwnerState, cancellation: Cancellation) -> None:
        """Every validated report not yet relayed becomes ``aborted`` at ``relay``."""
        ...


class Launcher(Protocol):
    def launch(
        self,
        state: OwnerState,
        cycle: Cycle,
        epoch: int,
        seq: int,
        definition: ShadowDefinition,
        *,
        manual: bool = False,
        trigger_check: str | None = None,
    ) -> RunEntry | None: ...
