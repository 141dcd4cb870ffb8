"""Per-root state and run records. All of it is process-local: nothing here is
ever written to a session log."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.values import CancelToken

from ..governance.review_window import ReviewWindow
from ..projection import IncrementalProjector
from ..vocabulary import BudgetTier, CancellationSource, Phase, ReasonCode, Stage
from .budget import BudgetLedger
from .tracker import TaskTracker

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..definitions.model import ShadowDefinition
    from ..governance.value_loop import ChallengeObserver
    from .batcher import ReportBatcher


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


@attrs.define(eq=False, kw_only=True)
class PendingTurn:
    cycle: Cycle
    epoch: int
    seq: int


@attrs.define(eq=False, kw_only=True)
class Cooldown:
    until: float
    patterns: tuple[str, ...]


@attrs.define(eq=False, kw_only=True)
class OwnerState:
    """Everything Shadow Mind tracks about one root agent."""

    root: Agent
    batcher: ReportBatcher
    epoch: int = 0
    paused: bool = False
    active: dict[str, RunEntry] = attrs.field(factory=dict)
    cycles: dict[int, Cycle] = attrs.field(factory=dict)
    pending: deque[PendingTurn] = attrs.field(factory=deque)
    total_runs: int = 0
    spent_chars: int = 0
    cooldowns: dict[str, Cooldown] = attrs.field(factory=dict)
    pending_escalations: dict[str, str] = attrs.field(factory=dict)
    last_run: RunView | None = None
    #: schedule tasks and run lifecycles
    work: TaskTracker = attrs.field(factory=TaskTracker)
    released: bool = False
    draining: bool = False
    #: renders only the events appended since the previous review
    projector: IncrementalProjector = attrs.field(factory=IncrementalProjector)
    #: the persisted character budget (loaded when the state is created)
    ledger: BudgetLedger | None = None
    #: validated reports waiting in the batcher, by run id
    awaiting_relay: dict[str, RunEntry] = attrs.field(factory=dict)
    #: accepted envelopes per definition (stagnation and decay)
    review_window: ReviewWindow = attrs.field(factory=ReviewWindow)
    #: relayed challenges not classified yet, by run id
    pending_challenges: dict[str, ChallengeObserver] = attrs.field(factory=dict)
    #: value-loop counts per definition
    value_stats: dict[str, dict[str, int]] = attrs.field(factory=dict)

    @property
    def root_id(self) -> str:
        return self.root.id

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
