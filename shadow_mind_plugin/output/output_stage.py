"""The output stage: outcome, batching and the durable relay.

Accepted reports wait in the root's batcher; when its window closes they are
ordered by severity and relayed as one user message with ``shadow-report``
provenance — after the exact root identity and epoch are checked again. The
relay then waits in the root's inbox; its runs settle when it enters the
history (``dsh_agent_pre_step``), where the epoch is checked once more: a relay
that went stale in the inbox is dropped and its runs are ``aborted`` at
``relay``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.records import Cancellation
from ..governance.safe_errors import safe_error
from ..vocabulary import CancellationSource, Phase, ReasonCode, Stage
from .batcher import ReportBatcher
from .outcome import OutcomeRules
from .output_state import OutputState
from .relay import HoldoutLeak, PendingReport, build_relay, order_by_severity, relay_run_ids

if TYPE_CHECKING:
    from hookspecs.values import Message

    from ..core.context import RuntimeContext
    from ..core.owner import OwnerState, RunEntry
    from ..core.ports import Budget, Governance, Review, RunOutcome


class OutputStage:
    def __init__(self, ctx: RuntimeContext, *, governance: Governance, review: Review, budget: Budget) -> None:
        self._ctx = ctx
        self._governance = governance
        #: validated reports waiting in a batcher, by run id (run ids are unique)
        self._awaiting: dict[str, RunEntry] = {}
        #: relayed reports still in a root's inbox, by run id: they settle on entry
        self._in_inbox: dict[str, RunEntry] = {}
        self._rules = OutcomeRules(ctx, governance=governance, review=review, budget=budget, enqueue=self._enqueue)

    def new_state(self) -> OutputState:
        return OutputState(
            batcher=ReportBatcher(
                window_seconds=lambda: self._ctx.settings().result_batch_window_ms / 1000.0,
                deliver=self._deliver,
                spawn=self._ctx.host.spawn,
                logger=self._ctx.logger,
            )
        )

    def decide(self, entry: RunEntry, outcome: RunOutcome) -> None:
        self._rules.decide(entry, outcome)

    def relays_since_user(self, state: OwnerState) -> int:
        return state.output.relays_since_user

    def busy(self, state: OwnerState) -> bool:
        """Reports wait in the root's batcher or are being delivered."""
        return state.output.batcher.busy

    async def drain(self, state: OwnerState) -> None:
        await state.output.batcher.drain()

    async def dispose(self, state: OwnerState) -> list[BaseException]:
        """The root is released: flush its batcher; what failed to deliver."""
        return await state.output.batcher.dispose()

    def _enqueue(self, entry: RunEntry, report: PendingReport) -> bool:
        if not entry.owner.output.batcher.add(report):
            return False
        self._awaiting[entry.view.run_id] = entry
        return True

    def discard_waiting(self, state: OwnerState, cancellation: Cancellation) -> None:
        """Every validated report not yet relayed becomes ``aborted`` at ``relay``."""
        for report in state.output.batcher.take_waiting():
            entry = self._awaiting.pop(report.run_id, None)
            if entry is not None:
                self._abort_at_relay(entry, cancellation)
        for entry in self._in_inbox.values():
            if entry.owner is state:
                self._abort_at_relay(entry, cancellation)  # kept until claimed: it is dropped there

    @staticmethod
    def reset(state: OwnerState) -> None:
        """Real user input: relay-driven cycles are counted afresh."""
        state.output.relays_since_user = 0

    def forget(self, state: OwnerState) -> None:
        """The root's state is released: its queued relays are no longer tracked."""
        for run_id in [r for r, e in self._in_inbox.items() if e.owner is state]:
            del self._in_inbox[run_id]

    @property
    def relays_in_inbox(self) -> bool:
        """Whether any relay waits in a root's inbox (nothing to check otherwise)."""
        return bool(self._in_inbox)

    def entering(self, messages: Sequence[Message]) -> tuple[list[Message], list[tuple[Message, list[RunEntry]]]]:
        """The claimed messages that may enter the history, and our relays among them.

        A relay whose runs were settled while it waited in the inbox (the epoch
        advanced) or that is no longer current is left out."""
        keep: list[Message] = []
        relays: list[tuple[Message, list[RunEntry]]] = []
        for message in messages:
            entries = [self._in_inbox.pop(r) for r in relay_run_ids(message) if r in self._in_inbox]
            if entries and not all(self._still_current(e) for e in entries):
                stale = Cancellation(reason=ReasonCode.STALE_EPOCH, source=CancellationSource.RUNTIME)
                for entry in entries:
                    self._abort_at_relay(entry, stale)  # a no-op for runs settled in the inbox
                continue
            keep.append(message)
            if entries:
                relays.append((message, entries))
        return keep, relays

    def entered(self, relays: list[tuple[Message, list[RunEntry]]], entered: Sequence[Message]) -> None:
        """The step entered ``entered``: those relays are delivered; the rest were
        left out by a later link and are lost."""
        governance = self._governance
        for message, entries in relays:
            delivered = any(m is message for m in entered)
            if delivered:
                entries[0].owner.output.relays_since_user += 1
            for entry in entries:
                if delivered:
                    governance.finish_run(entry, Phase.REPORT, stage=Stage.RELAY, relayed=True)
                    governance.debug(entry, "report-delivered")
                else:
                    self._delivery_failed(entry)

    def inbox_discarded(self, message: Message) -> None:
        """The host dropped a queued relay (a cancel cleared the root's inbox)."""
        discarded = Cancellation(reason=ReasonCode.RELAY_DISCARDED, source=CancellationSource.ROOT_LIFECYCLE)
        for run_id in relay_run_ids(message):
            entry = self._in_inbox.pop(run_id, None)
            if entry is not None:
                self._abort_at_relay(entry, discarded)

    def _still_current(self, entry: RunEntry) -> bool:
        return not entry.settled and self._ctx.accepts(entry.owner, entry.epoch, manual=entry.manual)

    def _abort_at_relay(self, entry: RunEntry, cancellation: Cancellation) -> None:
        entry.view.content = None
        entry.view.relayed = False
        self._governance.finish_run(
            entry, Phase.ABORTED, stage=Stage.RELAY, reason=cancellation.reason, source=cancellation.source
        )
        self._governance.debug(entry, "report-delivery-discarded")

    async def _deliver(self, reports: list[PendingReport]) -> None:
        entries = {r.run_id: self._awaiting.pop(r.run_id) for r in reports if r.run_id in self._awaiting}
        if not entries:
            return
        state = next(iter(entries.values())).owner
        ctx = self._ctx
        if ctx.stopped or not ctx.is_current(state):
            cancellation = (
                Cancellation(reason=ReasonCode.PLUGIN_DISPOSED, source=CancellationSource.PLUGIN_LIFECYCLE)
                if ctx.stopped
                else Cancellation(reason=ReasonCode.ROOT_DISPOSED, source=CancellationSource.ROOT_LIFECYCLE)
            )
            for waiting in entries.values():
                self._abort_at_relay(waiting, cancellation)
            return
        current: list[PendingReport] = []
        for report in reports:
            entry = entries.get(report.run_id)
            if report.epoch != state.epoch or (state.paused and not report.manual):
                if entry is not None:
                    self._abort_at_relay(
                        entry, Cancellation(reason=ReasonCode.STALE_EPOCH, source=CancellationSource.RUNTIME)
                    )
                continue
            current.append(report)
        if current:
            self._relay(state, order_by_severity(current), entries)

    def _relay(self, state: OwnerState, ordered: list[PendingReport], entries: dict[str, RunEntry]) -> None:
        try:
            message = build_relay(ordered)
            for report in ordered:  # tracked before the send: its observers may advance the epoch
                if report.run_id in entries:
                    self._in_inbox[report.run_id] = entries[report.run_id]
            root = state.root
            if root.status == "running":
                root.steer(message)
            else:
                root.followup(message)
        except Exception as exc:
            for report in ordered:
                self._in_inbox.pop(report.run_id, None)
            error = safe_error(exc) if not isinstance(exc, HoldoutLeak) else {"name": "HoldoutLeak", "message": str(exc)}
            for report in ordered:
                entry = entries.get(report.run_id)
                if entry is not None:
                    self._delivery_failed(entry, error)
            raise

    def _delivery_failed(self, entry: RunEntry, error: dict[str, Any] | None = None) -> None:
        entry.view.relayed = False
        self._governance.finish_run(
            entry, Phase.FAILED, stage=Stage.RELAY, reason=ReasonCode.REPORT_DELIVERY_FAILED, error=error
        )
        self._governance.debug(entry, "report-delivery-failed")
