"""One reviewer run: prepare → start → run → dispose → validate → (relay).

Failures are captured with the reason code of the segment they happened in;
the outcome is decided once, after disposal, by the first matching rule of the
outcome table (cancellation, failure, provider stop, contract, liveness,
acceptance).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import trio

from hookspecs.values import Capabilities, SubagentRequest, TextBlock, ToolFilter

from ..contract import OUTPUT_SCHEMA, narrow_output
from ..governance.holdout import redact
from ..governance.safe_errors import safe_error, sanitize
from ..prompt import build_prompt
from ..routes import model_selection, root_route
from ..tokens import prompt_token_budget
from ..utf16 import u16len, u16slice
from ..vocabulary import (
    DEFAULT_SHADOW_TOOLS,
    PROVIDER_NAME,
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
    from .runtime import ShadowRuntime
    from .state import RunEntry

_STOP_CODES = {
    "error": ReasonCode.PROVIDER_ERROR,
    "max-tokens": ReasonCode.PROVIDER_MAX_TOKENS,
    "refusal": ReasonCode.PROVIDER_REFUSAL,
    STOP_NO_STRUCTURED_OUTPUT: ReasonCode.STRUCTURED_OUTPUT_MISSING,
    STOP_DEGENERATE_OUTPUT: ReasonCode.DEGENERATE_OUTPUT,
}


class CapabilityError(Exception):
    pass


def required_capabilities(selection: Any, minimal: bool, think_first: bool) -> list[str]:
    missing: list[str] = []
    if selection is not None:
        missing.append(Capabilities.MODEL_SELECTION)
    if minimal:
        missing.append(Capabilities.CONTEXT_INHERITANCE)
    if think_first:
        missing.append(Capabilities.THINK_FIRST)
    return missing


async def run_pipeline(rt: ShadowRuntime, entry: RunEntry) -> None:
    state = entry.owner
    root = state.root
    definition = entry.definition
    settings = rt.settings()
    watermark = entry.view.captured_through_seq
    failure_code = ReasonCode.TRAJECTORY_BUILD_FAILED
    failure: tuple[Stage, ReasonCode, BaseException] | None = None
    dispose_error: BaseException | None = None
    projection: Any = None
    result: Any = None
    run: Any = None
    keys: tuple[str, ...] = ()
    try:
        rt.set_stage(entry, Stage.PREPARE)
        if definition.holdout:
            keys = tuple(rt.registry.holdout_keys(definition.id))
        projection = state.projector.project(
            root.session.events, watermark, disclosure=settings.argumentDisclosure, capture=definition.capture
        )
        failure_code = ReasonCode.MODEL_SELECTION_INVALID
        root_path = root_route(root.options.provider, root.options.model)
        selection = model_selection(
            run_with_model=definition.run_with_model,
            reasoning_effort=definition.reasoning_effort,
            root=root_path,
            override_route=entry.frugal_route,
            override_effort=entry.escalated_effort,
        )
        minimal = definition.context == "minimal"
        provider = rt.host.subagents.get(PROVIDER_NAME)
        if provider is None:
            raise CapabilityError("Shadow Mind subagent provider is not registered")
        capabilities = provider.capabilities
        missing = [c for c in required_capabilities(selection, minimal, definition.think_first) if not capabilities.get(c)]
        if missing:
            raise CapabilityError(f"Shadow Mind subagent provider lacks required capabilities: {', '.join(missing)}")
        route = entry.frugal_route or definition.run_with_model or root_path
        info = None
        if route:
            p, _, m = route.partition("/")
            try:
                info = rt.host.llm.model_info(p, m)
            except Exception:
                info = None
        prompt = build_prompt(
            definition.name,
            definition.id,
            definition.prompt,
            projection.text,
            watermark,
            think_first=definition.think_first,
            max_prompt_chars=settings.maxPromptChars,
            max_prompt_tokens=prompt_token_budget(info),
        )
        if keys:
            prompt = redact(prompt, keys)
        entry.prompt_chars = u16len(prompt)
        rt.spend(state, entry.prompt_chars, entry, "prompt")
        failure_code = ReasonCode.SUBAGENT_START_FAILED
        rt.set_stage(entry, Stage.START)
        tools = list(dict.fromkeys([*DEFAULT_SHADOW_TOOLS, *definition.tools]))
        extensions: dict[str, Any] = {}
        if selection is not None:
            extensions[Capabilities.MODEL_SELECTION] = {
                "provider": selection.provider,
                "model": selection.model,
                "reasoning_effort": selection.reasoning_effort,
            }
        if minimal:
            extensions[Capabilities.CONTEXT_INHERITANCE] = "none"
        if definition.think_first:
            extensions[Capabilities.THINK_FIRST] = True
        if capabilities.get("anchor_seqs"):
            extensions["anchor_seqs"] = sorted(projection.seqs)
        request = SubagentRequest(
            label=f"shadow:{definition.id}",
            prompt=(TextBlock(text=prompt),),
            parent=root,
            cancel=entry.token,
            max_depth=1,
            tool_filter=ToolFilter.of(tools),
            output_schema=OUTPUT_SCHEMA,
            extensions=extensions,
        )
        run = await rt.host.subagents.start(PROVIDER_NAME, request)
        entry.view.child_session_id = run.id
        rt.debug(entry, "child-started")
        failure_code = ReasonCode.SUBAGENT_RESULT_FAILED
        rt.set_stage(entry, Stage.RUN)
        result = await run.result()
        child = run.local_agent
        if child is not None:
            rt.record_child_telemetry(entry, child.session.events)
    except Exception as exc:
        failure = (entry.view.stage, failure_code, exc)
    finally:
        if run is not None:
            rt.set_stage(entry, Stage.DISPOSE)
            with trio.CancelScope(shield=True):
                with trio.move_on_after(rt.dispose_seconds()) as scope:
                    try:
                        await run.dispose()
                    except Exception as exc:
                        dispose_error = exc
                if scope.cancelled_caught:
                    dispose_error = TimeoutError(f"disposal did not finish within {rt.dispose_seconds():g}s")
    rt.quality_metadata(entry, result, failure)
    decide_outcome(rt, entry, projection, result, failure, dispose_error, keys)


def decide_outcome(
    rt: ShadowRuntime,
    entry: RunEntry,
    projection: Any,
    result: Any,
    failure: tuple[Stage, ReasonCode, BaseException] | None,
    dispose_error: BaseException | None,
    keys: tuple[str, ...],
) -> None:
    view = entry.view
    extra: dict[str, Any] = {}
    if result is not None:
        extra["provider_stop_reason"] = result.stop_reason
    cancellation = entry.cancellation
    # a: cancelled (unless disposal itself failed)
    if cancellation is not None and dispose_error is None:
        rt.finish_run(
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
        rt.finish_run(entry, Phase.FAILED, stage=Stage.DISPOSE, reason=ReasonCode.SUBAGENT_DISPOSE_FAILED, error=safe_error(error), **extra)
        return
    if failure is not None:
        stage, code, exc = failure
        rt.finish_run(entry, Phase.FAILED, stage=stage, reason=code, error=safe_error(exc), **extra)
        return
    # c: nothing to judge
    if result is None or projection is None:
        rt.finish_run(
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
        rt.finish_run(
            entry, Phase.ABORTED, stage=Stage.RUN, reason=ReasonCode.PROVIDER_ABORTED, source=CancellationSource.PROVIDER, **extra
        )
        return
    if stop != "completed":
        code = _STOP_CODES.get(stop, ReasonCode.PROVIDER_STOPPED)
        if stop == STOP_DEGENERATE_OUTPUT:
            rt.on_degenerate_output(entry)
        rt.finish_run(
            entry,
            Phase.FAILED,
            stage=Stage.RUN,
            reason=code,
            error={"name": "ProviderStop", "message": sanitize(result.diagnostic or f"Subagent stopped with {stop}")},
            **extra,
        )
        return
    # f: the runtime re-validates the contract as a backstop
    rt.set_stage(entry, Stage.VALIDATE)
    narrowed = narrow_output(result.structured, projection.seqs)
    if narrowed.output is None:
        rt.finish_run(
            entry,
            Phase.FAILED,
            stage=Stage.VALIDATE,
            reason=ReasonCode.INVALID_STRUCTURED_OUTPUT,
            error={"name": "ContractError", "message": "Shadow returned invalid structured output: " + "; ".join(narrowed.violations)},
            **extra,
        )
        return
    output = narrowed.output
    # g: quiet outcomes never reach the root
    if output.status != OutputStatus.REPORT:
        if output.discarded_body:
            body = output.discarded_body
            rt.logger.warning(
                "dsh-shadow-mind: shadow %s returned %s with a non-empty content body; the body is not relayed "
                "and was discarded (run %s)",
                entry.definition.id,
                output.status,
                view.run_id,
            )
            rt.debug(
                entry,
                "non-report-body-discarded",
                status=str(output.status),
                discarded_body_chars=u16len(body),
                discarded_body_hash=hashlib.sha256(body.encode("utf-8")).hexdigest(),
            )
        rt.finish_run(entry, Phase(str(output.status)), stage=Stage.VALIDATE, **extra)
        return
    # h: liveness (a forced review or retry was asked for explicitly: pause does not apply)
    if not rt.accepts(entry.owner, entry.epoch, manual=entry.manual):
        cancellation = entry.cancellation
        rt.finish_run(
            entry,
            Phase.ABORTED,
            stage=Stage.VALIDATE,
            reason=cancellation.reason if cancellation else ReasonCode.STALE_EPOCH,
            source=cancellation.source if cancellation else CancellationSource.RUNTIME,
            **extra,
        )
        return
    # i: a report needs a body and a child to point at
    content = output.content.strip()
    if keys:
        content = redact(content, keys)
    if not content or not view.child_session_id:
        rt.finish_run(
            entry,
            Phase.FAILED,
            stage=Stage.VALIDATE,
            reason=ReasonCode.INVALID_REPORT,
            error={"name": "Error", "message": f"Shadow returned an invalid report length ({u16len(content)})"},
            **extra,
        )
        return
    # j: accept
    bound = rt.settings().maxReportChars
    if bound > 0 and u16len(content) > bound:
        content = u16slice(content, 0, bound - 1) + "…" if bound > 1 else u16slice(content, 0, bound)
    rt.spend(entry.owner, u16len(content), entry, "report")
    rt.record_review(entry, str(output.verdict), output.refs)
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
    )
    view.verdict = str(output.verdict)
    view.refs = tuple(output.refs)
    view.severity = output.severity
    view.content = content
    view.relayed = False
    if not rt.enqueue_report(entry, report):
        view.content = None
        rt.finish_run(
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
    rt.update_card(entry.owner, entry.cycle)


def _exc(error: BaseException) -> Exception:
    return error if isinstance(error, Exception) else Exception(str(error))
