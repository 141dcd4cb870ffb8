"""Everything Shadow Mind tracks about one root agent.

The lifecycle core (epoch, pause, release, in-flight work) is shared; each
path keeps its own state object, so a path's data has one owner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ..coordination.state import CoordinationState
from ..governance.state import GovernanceState
from ..output.state import OutputState
from ..run.state import RunState
from ..trigger.state import TriggerState
from .tracker import TaskTracker

if TYPE_CHECKING:
    from hookspecs.protocols import Agent


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
    run: RunState = attrs.field(factory=RunState)
    output: OutputState
    coordination: CoordinationState = attrs.field(factory=CoordinationState)
    governance: GovernanceState = attrs.field(factory=GovernanceState)

    @property
    def root_id(self) -> str:
        return self.root.id
