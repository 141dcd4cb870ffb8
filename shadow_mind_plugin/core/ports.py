"""The typed interfaces the stages call each other through, and the values
they carry.

The wiring (:mod:`shadow_mind_plugin.runtime.runtime`) builds one object per
stage and hands each the ports it needs; no stage imports another stage's
logic or touches another stage's per-root state (``tests/test_stage_boundaries.py``).

=================  ===============================  ==========================
port               implemented by                   called by
=================  ===============================  ==========================
:class:`Governance` governance stage (settlement,   trigger, run, output,
                   cards, journals)                 coordination
:class:`Budget`    trigger stage's budget keeper    run, output
:class:`Throttles` trigger stage's throttle keeper  run, coordination
:class:`Review`    coordination stage               output, trigger
:class:`Outcomes`  output stage                     run
:class:`Relays`    output stage                     trigger
:class:`Launcher`  run stage                        trigger, controls
:class:`Evidence`  run stage                        trigger
=================  ===============================  ==========================

This module is checked with ``disallow_any_explicit`` (``pyproject.toml``):
untyped JSON is spelled :data:`~hookspecs.values.json.JSON`, never ``Any``.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Protocol, TypeAlias

import attrs

from ..vocabulary import ReasonCode, Stage

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hookspecs.values import SessionEvent, SubagentResult
    from hookspecs.values.json import JSON

    from ..definitions.model import ShadowDefinition
    from ..vocabulary import BudgetTier, CancellationSource, Phase
    from .owner import OwnerState, RunEntry
    from .records import Cancellation, Cycle

#: where a run failed, its reason code and the error (what the pipeline captured)
RunFailure: TypeAlias = tuple[Stage, ReasonCode, BaseException]


@attrs.frozen
class ShownSeqs:
    """The seqs of the entries a reviewer was actually shown: the only refs its
    report may cite. Built by the framed prompt (a model review) or by a
    checks-only review over the projection its checks read; a whole
    :class:`~shadow_mind_plugin.rendered.Projection` is not one, so passing it
    where the allowlist belongs is a type error (and rejected at runtime by
    :class:`RunOutcome`)."""

    #: a snapshot set (the framed prompt's view is not copied: it is per review)
    seqs: AbstractSet[int] = attrs.field()

    @seqs.validator
    def _a_set(self, _attribute: object, value: object) -> None:
        if not isinstance(value, AbstractSet):
            raise TypeError(f"ShownSeqs holds a set of seqs, not {type(value).__name__}")


@attrs.frozen(kw_only=True)
class RunOutcome:
    """What a run produced, handed once to :meth:`Outcomes.decide` after disposal."""

    #: the refs allowlist; None when nothing was shown (the run failed before framing)
    shown: ShownSeqs | None = attrs.field(validator=attrs.validators.optional(attrs.validators.instance_of(ShownSeqs)))
    result: SubagentResult | None
    failure: RunFailure | None
    dispose_error: BaseException | None
    #: the definition's holdout literals
    keys: tuple[str, ...]


class Governance(Protocol):
    def finish_run(
        self,
        entry: RunEntry,
        phase: Phase,
        *,
        stage: Stage | None = None,
        reason: ReasonCode | None = None,
        source: CancellationSource | None = None,
        error: dict[str, JSON] | None = None,
        **fields: object,
    ) -> bool:
        """Record the run's one outcome (``fields`` are :class:`~.records.RunView`
        attributes); later calls are ignored (returns False)."""
        ...

    def admitted(self, entry: RunEntry) -> None:
        """A run was admitted (listeners)."""
        ...

    def set_stage(self, entry: RunEntry, stage: Stage) -> None: ...

    def cycle_for(self, state: OwnerState, seq: int) -> Cycle: ...

    def update_card(self, state: OwnerState, cycle: Cycle) -> None: ...

    def debug(self, entry: RunEntry, event: str, **extra: object) -> None: ...

    def debug_quality(self, entry: RunEntry, **fields: object) -> None: ...

    def quality_metadata(self, entry: RunEntry, result: SubagentResult | None, failure: RunFailure | None) -> None: ...

    def record_child_telemetry(self, entry: RunEntry, child_events: Sequence[SessionEvent]) -> None: ...


class Budget(Protocol):
    def tier(self, state: OwnerState) -> BudgetTier: ...

    def spend(self, state: OwnerState, chars: int, entry: RunEntry, kind: str) -> None:
        """Count characters against the session budget (write-ahead when persisted)."""
        ...


class Throttles(Protocol):
    def reserve_escalation(self, state: OwnerState, shadow_id: str, effort: str) -> None:
        """The definition's next run uses one higher reasoning effort."""
        ...

    def take_escalation(self, state: OwnerState, shadow_id: str) -> str | None:
        """The reserved effort for a run being admitted (used once)."""
        ...

    def install_cooldown(self, state: OwnerState, shadow_id: str, until: float, patterns: tuple[str, ...]) -> None:
        """No automatic review of the definition before ``until`` (wall clock)."""
        ...


class Review(Protocol):
    def record_review(self, entry: RunEntry, verdict: str, refs: tuple[int, ...]) -> None:
        """An accepted report, before it is batched (stagnation, decay)."""
        ...

    def on_degenerate_output(self, entry: RunEntry) -> None: ...

    def decay(self, state: OwnerState, shadow_id: str) -> float:
        """The factor on the definition's activation probability (stale reports)."""
        ...


class Outcomes(Protocol):
    def decide(self, entry: RunEntry, outcome: RunOutcome) -> None:
        """Settle the run (or queue its report) from what it produced."""
        ...

    def discard_waiting(self, state: OwnerState, cancellation: Cancellation) -> None:
        """Every validated report not yet relayed becomes ``aborted`` at ``relay``."""
        ...


class Relays(Protocol):
    def relays_since_user(self, state: OwnerState) -> int:
        """Relays that entered the root's history since the last real user message."""
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

    def running(self, state: OwnerState) -> bool:
        """Whether a reviewer of the root is running (turns then wait in the queue)."""
        ...


class Evidence(Protocol):
    def check_fired(self, state: OwnerState, definition: ShadowDefinition, seq: int) -> str | None:
        """The kind of the most severe evidence-check finding over the window the
        reviewer would be shown through ``seq``; None when no check fires."""
        ...
