"""The records every stage shares: what status and cards show about a run
(:class:`RunView`), the cycle that groups the runs reviewing one watermark
(:class:`Cycle`), and why a run was cancelled. The live run itself,
:class:`~.owner.RunEntry`, lives beside the owner state it points back to.
All of it is process-local: nothing here is ever written to a session log."""

from __future__ import annotations

import attrs

from hookspecs.values.json import JSON

from ..vocabulary import CancellationSource, Phase, ReasonCode, Stage


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
    error: dict[str, JSON] | None = None
    #: a failed run's error as one short scrubbed line (cards, status)
    cause: str | None = None
    content: str | None = None
    relayed: bool | None = None
    deliberation_chars: int | None = None
    verdict: str | None = None
    refs: tuple[int, ...] | None = None
    severity: float | None = None
    independence: str | None = None
    route: str | None = None
    tools: dict[str, JSON] | None = None
    #: the evidence check whose finding this run reports (a checks-only review)
    check: str | None = None
    #: a model review's leads: the check findings its prompt gave it (``kind``, ``verdict``, ``refs``)
    leads: tuple[dict[str, JSON], ...] | None = None
    #: the evidence check that started this run (``review_on_check``), when the roll did not
    trigger_check: str | None = None

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {}
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
    failure: dict[str, JSON] | None = None
    #: why no run was started for this watermark (``{"reason_code": …, …}``), shown
    skipped: dict[str, JSON] | None = None
    #: why the turn started no review in the ordinary course (the roll, the budget,
    #: a cooldown, a disabled or paused Shadow): kept on the card, which stays hidden
    declined: dict[str, JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "captured_through_seq": self.captured_through_seq,
            "scheduling": self.scheduling,
            "runs": [r.to_json() for r in self.runs],
        }
        if self.failure:
            out["failure"] = self.failure
        if self.skipped:
            out["skipped"] = self.skipped
        if self.declined:
            out["declined"] = self.declined
        return out

    def decline(self, reason: ReasonCode) -> None:
        """Scheduling ended without a run, for an ordinary ``reason``."""
        self.scheduling = False
        self.declined = {"reason_code": str(reason)}
