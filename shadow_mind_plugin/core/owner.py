"""Everything Shadow Mind tracks about one root agent, and the live run that
points back to it.

The lifecycle core (epoch, pause, release, in-flight work) is shared; each
stage keeps its own state object, so a stage's data has one owner. The run
stage's state is generic over the run record, so no stage's state module
imports this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import trio

from hookspecs.values import CancelToken

from ..coordination.coordination_state import CoordinationState
from ..governance.governance_state import GovernanceState
from ..output.output_state import OutputState
from ..run.run_state import RunState
from ..trigger.trigger_state import TriggerState
from ..vocabulary import BudgetTier, Stage
from .records import Cancellation, Cycle, RunView
from .tracker import TaskTracker

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..definitions.model import ShadowDefinition


@attrs.define(eq=False, kw_only=True)
class OwnerState:
    root: Agent
    #: advanced by real user input, user cancellation, pause and disposal;
    #: work admitted at an older epoch never reaches the root
    epoch: int = 0
    paused: bool = False
    released: bool = False
    draining: bool = False
    #: schedule tasks and run lifecycles
    work: TaskTracker = attrs.field(factory=TaskTracker)
    trigger: TriggerState = attrs.field(factory=TriggerState)
    run: RunState[RunEntry] = attrs.field(factory=RunState)
    output: OutputState
    coordination: CoordinationState = attrs.field(factory=CoordinationState)
    governance: GovernanceState = attrs.field(factory=GovernanceState)

    @property
    def root_id(self) -> str:
        return self.root.id


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
