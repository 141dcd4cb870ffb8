"""The outcome of one run, decided once after the child is disposed.

The rules are tried in order: a cancellation (unless disposal failed), a
captured failure, nothing to judge, a provider stop, the contract (the runtime
re-validates structured output as a backstop), quiet outcomes, liveness, an
invalid report, and finally acceptance: the report is bounded, counted,
recorded for coordination and queued for relay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..contract import narrow_output
from ..governance.holdout import redact
from ..governance.safe_errors import safe_error, sanitize
from ..utf16 import u16len, u16slice
from ..vocabulary import (
    BODY_DISCARDED_EVENT,
    STOP_DEGENERATE_OUTPUT,
    STOP_NO_STRUCTURED_OUTPUT,
    CancellationSource,
    OutputStatus,
    Phase,
    ReasonCode,
    Stage,
)
from .relay import PendingReport

if TYPE_CHECKING:
    from ..contract import ShadowOutput
    from ..core.context import RuntimeContext
    from ..core.owner import RunEntry
    from ..core.ports import Budget, Governance, Review, RunOutcome

_STOP_CODES = {
    "error": ReasonCode.PROVIDER_ERROR,
    "max-tokens": ReasonCode.PROVIDER_MAX_TOKENS,
    "refusal": ReasonCode.PROVIDER_REFUSAL,
    STOP_NO_STRUCTURED_OUTPUT: ReasonCode.STRUCTURED_OUTPUT_MISSING,
    STOP_DEGENERATE_OUTPUT: ReasonCode.DEGENERATE_OUTPUT,
}


class OutcomeRules:
    def __init__(
        self,
        ctx: RuntimeContext,
        *,
        governance: Governance,
        review: Review,
        budget: Budget,
        enqueue: Callable[[RunEntry, PendingReport], bool],
    ) -> None:
        self._ctx = ctx
        self._governance = governance
        self._review = review
        self._budget = budget
        self._enqueue = enqueue

    def decide(self, entry: RunEntry, outcome: RunOutcome) -> None:
        """Settle the run from what it produced, or queue its report; the first
        matching rule of the outcome table wins (cancellation, failure, provider
        stop, contract, liveness, acceptance)."""
        g = self._governance
        # refs are checked against what the reviewer was shown (never a whole projection)
        shown, result, failure, dispose_error, keys = (
            outcome.shown,
            outcome.result,
            outcome.failure,
            outcome.dispose_error,
            outcome.keys,
        )
        view = entry.view
        extra: dict[str, Any] = {}
        if result is not None:
            extra["provider_stop_reason"] = result.stop_reason
        cancellation = entry.cancellation
        # a: cancelled (unless disposal itself failed)
        if cancellation is not None and dispose_error is None:
            g.finish_run(
                entry,
                Phase.ABORTED,
                stage=entry.cancellation_stage or view.stage,
                reason=cancellation.reason,
                source=cancellation.source,
                **extra,
            )
            return
        # b: a captured failure
        if dispose_error is not None:
            error = dispose_error
            if failure is not None:
                error = ExceptionGroup("Shadow run and disposal failed", [_exc(failure[2]), _exc(dispose_error)])
            g.finish_run(entry, Phase.FAILED, stage=Stage.DISPOSE, reason=ReasonCode.SUBAGENT_DISPOSE_FAILED, error=safe_error(error), **extra)
            return
        if failure is not None:
            stage, code, exc = failure
            g.finish_run(entry, Phase.FAILED, stage=stage, reason=code, error=safe_error(exc), **extra)
            return
        # c: nothing to judge
        if result is None or shown is None:
            g.finish_run(
                entry,
                Phase.FAILED,
                reason=ReasonCode.UNKNOWN_FAILURE,
                error={"name": "Error", "message": "Shadow run settled without a result or trajectory projection"},
                **extra,
            )
            return
        stop = result.stop_reason
        # d, e: provider stop reasons
        if stop == "aborted":
            g.finish_run(
                entry, Phase.ABORTED, stage=Stage.RUN, reason=ReasonCode.PROVIDER_ABORTED, source=CancellationSource.PROVIDER, **extra
            )
            return
        if stop != "completed":
            code = _STOP_CODES.get(stop, ReasonCode.PROVIDER_STOPPED)
            if stop == STOP_DEGENERATE_OUTPUT:
                self._review.on_degenerate_output(entry)
            g.finish_run(
                entry,
                Phase.FAILED,
                stage=Stage.RUN,
                reason=code,
                error={"name": "ProviderStop", "message": sanitize(result.diagnostic or f"Subagent stopped with {stop}")},
                **extra,
            )
            return
        # f: the runtime re-validates the contract as a backstop
        g.set_stage(entry, Stage.VALIDATE)
        narrowed = narrow_output(result.structured, shown.seqs)
        if narrowed.output is None:
            g.finish_run(
                entry,
                Phase.FAILED,
                stage=Stage.VALIDATE,
                reason=ReasonCode.INVALID_STRUCTURED_OUTPUT,
                error={"name": "ContractError", "message": "Shadow returned invalid structured output: " + "; ".join(narrowed.violations)},
                **extra,
            )
            return
        self._judge(entry, narrowed.output, keys, extra)

    def _judge(self, entry: RunEntry, output: ShadowOutput, keys: tuple[str, ...], extra: dict[str, Any]) -> None:
        """Rules g–j, over a contract-valid output."""
        g = self._governance
        view = entry.view
        # g: quiet outcomes never reach the root
        if output.status != OutputStatus.REPORT:
            if output.discarded_body:
                body = output.discarded_body
                self._ctx.logger.warning(
                    "dsh-shadow-mind: shadow %s returned %s with a non-empty content body; the body is not relayed "
                    "and was discarded (run %s)",
                    entry.definition.id,
                    output.status,
                    view.run_id,
                )
                g.debug(
                    entry,
                    BODY_DISCARDED_EVENT,
                    status=str(output.status),
                    discarded_body_chars=u16len(body),
                    discarded_body_hash=hashlib.sha256(body.encode("utf-8")).hexdigest(),
                )
            g.finish_run(entry, Phase(str(output.status)), stage=Stage.VALIDATE, **extra)
            return
        # h: liveness (a forced review or retry was asked for explicitly: pause does not apply)
        if not self._ctx.accepts(entry.owner, entry.epoch, manual=entry.manual):
            cancellation = entry.cancellation
            g.finish_run(
                entry,
                Phase.ABORTED,
                stage=Stage.VALIDATE,
                reason=cancellation.reason if cancellation else ReasonCode.STALE_EPOCH,
                source=cancellation.source if cancellation else CancellationSource.RUNTIME,
                **extra,
            )
            return
        # i: a report needs a body and a child to point at (a check's finding has no child)
        content = output.content.strip()
        if keys:
            content = redact(content, keys)
        if not content or not (view.child_session_id or view.check):
            g.finish_run(
                entry,
                Phase.FAILED,
                stage=Stage.VALIDATE,
                reason=ReasonCode.INVALID_REPORT,
                error={"name": "Error", "message": f"Shadow returned an invalid report length ({u16len(content)})"},
                **extra,
            )
            return
        # j: accept
        bound = self._ctx.settings().max_report_chars
        if bound > 0 and u16len(content) > bound:
            content = u16slice(content, 0, bound - 1) + "…" if bound > 1 else u16slice(content, 0, bound)
        self._budget.spend(entry.owner, u16len(content), entry, "report")
        self._review.record_review(entry, str(output.verdict), output.refs)
        report = PendingReport(
            epoch=entry.epoch,
            shadow_id=entry.definition.id,
            shadow_name=entry.definition.name,
            run_id=view.run_id,
            child_session_id=view.child_session_id,
            captured_through_seq=view.captured_through_seq,
            content=content,
            verdict=str(output.verdict),
            refs=tuple(output.refs),
            severity=output.severity,
            holdout_keys=keys,
            manual=entry.manual,
            check=view.check,
        )
        view.verdict = str(output.verdict)
        view.refs = tuple(output.refs)
        view.severity = output.severity
        view.content = content
        view.relayed = False
        if not self._enqueue(entry, report):
            view.content = None
            g.finish_run(
                entry,
                Phase.FAILED,
                stage=Stage.RELAY,
                reason=ReasonCode.REPORT_DELIVERY_FAILED,
                error={"name": "Error", "message": "Shadow report batcher is stopped"},
                **extra,
            )
            return
        # accepted: phase shows ``report`` while it waits; it settles when relayed
        view.phase = Phase.REPORT
        view.stage = Stage.RELAY
        for key, value in extra.items():
            setattr(view, key, value)
        g.update_card(entry.owner, entry.cycle)


def _exc(error: BaseException) -> Exception:
    return error if isinstance(error, Exception) else Exception(str(error))
