"""What the output path keeps per root: the batcher and the reports in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from .batcher import ReportBatcher
from .relay import PendingReport

if TYPE_CHECKING:
    from ..core.records import RunEntry


@attrs.define(eq=False, kw_only=True)
class OutputState:
    batcher: ReportBatcher[PendingReport]
    #: validated reports waiting in the batcher, by run id
    awaiting_relay: dict[str, RunEntry] = attrs.field(factory=dict)
