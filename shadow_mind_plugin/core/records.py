"""The records every path shares: a live admitted run (:class:`RunEntry`), what
status and cards show about it (:class:`RunView`), the cycle that groups the
runs reviewing one watermark (:class:`Cycle`), and why a run was cancelled.
All of it is process-local: nothing here is ever written to a session log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.values import CancelToken

from ..vocabulary import BudgetTier, CancellationSource, Phase, ReasonCode, Stage

if TYPE_CHECKING:
    from ..definitions.model import ShadowDefinition
    from .owner import OwnerState


@attrs.define(eq=False, kw_only=True)
class Cancellation:
    reason: ReasonCode
    source: CancellationSource


@attrs.define(eq=False, kw_only=True)
class RunView:
    """What status, cycles and cards show about one run."""

    run_id: str
    shadow_id: str
    shadow_name: str
    captured_through_seq: int
    phase: Phase
    stage: Stage
    started_at: str
    child_session_id: str | None = None
    finished_at: str | None = None
    reason_code: ReasonCode | None = None
    cancellation_source: CancellationSource | None = None
    provider_stop_reason: str | None = None
    error: dict[str, Any] | None = None
    content: str | None = None
    relayed: bool | None = None
    deliberation_chars: int | None = None
    verdict: str | None = None
    refs: tuple[int, ...] | None = None
    severity: float | None = None
    independence: str | None = None
    route: str | None = None
    tools: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for field in attrs.fields(RunView):
            value = getattr(self, field.name)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            out[field.name] = str(value) if isinstance(value, (Phase, Stage, ReasonCode, CancellationSource)) else value
        return out


@attrs.define(eq=False, kw_only=True)
class Cycle:
    """All runs reviewing one capture watermark (usually a ``turn/end`` seq)."""

    captured_through_seq: int
    scheduling: bool = False
    runs: list[RunView] = attrs.field(factory=list)
    failure: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "captured_through_seq": self.captured_through_seq,
            "scheduling": self.scheduling,
            "runs": [r.to_json() for r in self.runs],
        }
        if self.failure:
            out["failure"] = self.failure
        return out


@attrs.define(eq=False, kw_only=True)
class RunEntry:
    """A live admitted run."""

    view: RunView
    owner: OwnerState
    definition: ShadowDefinition
    cycle: Cycle
    epoch: int
    manual: bool
    frugal_route: str | None = None
    escalated_effort: str | None = None
    budget_tier: BudgetTier = BudgetTier.STANDARD
    token: CancelToken = attrs.field(factory=CancelToken)
    cancellation: Cancellation | None = None
    cancellation_stage: Stage | None = None
    settled: bool = False
    scope: trio.CancelScope = attrs.field(factory=trio.CancelScope)
    cancel_requested: trio.Event = attrs.field(factory=trio.Event)
    done: trio.Event = attrs.field(factory=trio.Event)
    prompt_chars: int = 0
    #: the definition's holdout literals; everything the run shows is redacted
    holdout_keys: tuple[str, ...] = ()
