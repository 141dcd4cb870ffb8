"""One reviewer run: prepare → start → run → dispose, then the output stage
decides the outcome.

Failures are captured with the reason code of the segment they happened in;
the outcome is decided once, after disposal (see
:mod:`shadow_mind_plugin.output.outcome`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hookspecs.values import (
    Capabilities,
    ModelInfo,
    StoredPrompt,
    SubagentRequest,
    SubagentResult,
    TextBlock,
    ToolFilter,
)

from ..checks.leads import fit_leads, lead_record
from ..contract import OUTPUT_SCHEMA
from ..core.ports import RunOutcome, ShownSeqs
from ..prompt import FramedPrompt, build_prompt, window_token_budget
from ..prompt_record import stored_prompt
from ..routes import ModelSelection, model_selection, root_route
from ..utf16 import u16len
from ..vocabulary import CHILD_LABEL_PREFIX, PROVIDER_NAME, ReasonCode, Stage
from .checks_review import check_review, fired

if TYPE_CHECKING:
    from hookspecs.protocols import SubagentRun

    from ..checks.finding import CheckFinding
    from ..core.context import RuntimeContext
    from ..core.owner import RunEntry
    from ..core.ports import Budget, Governance, Outcomes, RunFailure
    from ..rendered import Projection

#: How long ``dispose()`` may take.
DISPOSE_SECONDS = 30.0


class CapabilityError(Exception):
    pass


def required_capabilities(selection: ModelSelection | None, minimal: bool, think_first: bool) -> list[str]:
    missing: list[str] = []
    if selection is not None:
        missing.append(Capabilities.MODEL_SELECTION)
    if minimal:
        missing.append(Capabilities.CONTEXT_INHERITANCE)
    if think_first:
        missing.append(Capabilities.THINK_FIRST)
    return missing


class ReviewPipeline:
    def __init__(self, ctx: RuntimeContext, *, governance: Governance, budget: Budget, outcomes: Outcomes) -> None:
        self._ctx = ctx
        self._governance = governance
        self._budget = budget
        self._outcomes = outcomes

    async def run(self, entry: RunEntry) -> None:
        governance = self._governance
        failure_code = ReasonCode.TRAJECTORY_BUILD_FAILED
        failure: RunFailure | None = None
        dispose_error: BaseException | None = None
        framed: _Framed | None = None
        result: SubagentResult | None = None
        run: SubagentRun | None = None
        keys: tuple[str, ...] = ()
        checked: ShownSeqs | None = None  # a checks-only review's refs allowlist
        try:
            governance.set_stage(entry, Stage.PREPARE)
            if entry.definition.holdout:
                keys = tuple(self._ctx.registry.holdout_keys(entry.definition.id))
            projection, disclosure = self._project(entry)
            if entry.definition.reviewer == "checks":
                # no child and no model: the checks' finding is the structured output
                governance.set_stage(entry, Stage.RUN)
                result, finding, checked = check_review(
                    entry.owner.run, entry.owner.root.session.events, entry.view.captured_through_seq, projection
                )
                entry.view.check = str(finding.kind) if finding is not None else None
            else:
                failure_code = ReasonCode.MODEL_SELECTION_INVALID
                framed = self._frame(entry, projection, disclosure, keys)
                failure_code = ReasonCode.SUBAGENT_START_FAILED
                governance.set_stage(entry, Stage.START)
                run = await self._ctx.host.subagents.start(PROVIDER_NAME, _request(entry, framed))
                entry.view.child_session_id = run.id
                governance.debug(entry, "child-started")
                failure_code = ReasonCode.SUBAGENT_RESULT_FAILED
                governance.set_stage(entry, Stage.RUN)
                result = await run.result()
                child = run.local_agent
                if child is not None:
                    governance.record_child_telemetry(entry, child.session.events)
        except Exception as exc:
            failure = (entry.view.stage, failure_code, exc)
        finally:
            if run is not None:
                governance.set_stage(entry, Stage.DISPOSE)
                dispose_error = await _dispose(run)
        governance.quality_metadata(entry, result, failure)
        # refs are checked against what the reviewer was shown, not the whole projection
        shown = framed.prompt.shown if framed is not None else checked
        outcome = RunOutcome(shown=shown, result=result, failure=failure, dispose_error=dispose_error, keys=keys)
        self._outcomes.decide(entry, outcome)

    def _project(self, entry: RunEntry) -> tuple[Projection, str]:
        """The trajectory through the watermark, as the reviewer will read it,
        and the argument disclosure it was rendered with."""
        state = entry.owner
        disclosure = self._ctx.settings().argument_disclosure
        projection = state.run.projector.project(
            state.root.session.events,
            entry.view.captured_through_seq,
            disclosure=disclosure,
            capture=entry.definition.capture,
        )
        return projection, disclosure

    def _frame(self, entry: RunEntry, projection: Projection, projection_disclosure: str, keys: tuple[str, ...]) -> _Framed:
        """Model selection, capability checks and the framed prompt (counted
        against the budget)."""
        ctx = self._ctx
        root = entry.owner.root
        definition = entry.definition
        root_path = root_route(root)
        selection = model_selection(
            run_with_model=definition.run_with_model,
            reasoning_effort=definition.reasoning_effort,
            root=root_path,
            override_route=entry.frugal_route,
            override_effort=entry.escalated_effort,
        )
        minimal = definition.context == "minimal"
        provider = ctx.host.subagents.get(PROVIDER_NAME)
        if provider is None:
            raise CapabilityError("Shadow Mind subagent provider is not registered")
        capabilities = provider.capabilities
        needed = required_capabilities(selection, minimal, definition.think_first)
        missing = [c for c in needed if not capabilities.get(c)]
        if missing:
            raise CapabilityError(f"Shadow Mind subagent provider lacks required capabilities: {', '.join(missing)}")
        # the reviewer's own route bounds its prompt: the selection, else the root's
        route = selection.route if selection is not None else root_path
        watermark = entry.view.captured_through_seq
        max_chars = ctx.settings().max_prompt_chars
        max_tokens = window_token_budget(self._model_info(route))
        findings = self._leads(entry, watermark, projection)
        prompt, leads = fit_leads(
            lambda section: build_prompt(
                definition.name,
                definition.id,
                definition.prompt,
                projection,
                watermark,
                think_first=definition.think_first,
                max_prompt_chars=max_chars,
                max_prompt_tokens=max_tokens,
                keys=keys,
                leads=section,
            ),
            findings,
            max_prompt_chars=max_chars,
            max_prompt_tokens=max_tokens,
        )
        entry.view.leads = tuple(lead_record(lead) for lead in leads) or None
        entry.prompt_chars = u16len(prompt.text)
        self._budget.spend(entry.owner, entry.prompt_chars, entry, "prompt")
        stored = stored_prompt(
            prompt,
            root_session_id=root.id,
            watermark=entry.view.captured_through_seq,
            capture=definition.capture,
            disclosure=projection_disclosure,
            holdout=bool(keys),
            leads=entry.view.leads or (),
        )
        return _Framed(prompt=prompt, stored=stored, selection=selection, minimal=minimal, capabilities=capabilities)

    def _leads(self, entry: RunEntry, watermark: int, projection: Projection) -> list[CheckFinding]:
        """The checks that fired: leads to confirm or dismiss, citing only seqs
        shown. A fault in a check costs the leads, never the model's review."""
        try:
            return fired(entry.owner.run, entry.owner.root.session.events, watermark, projection.seqs)
        except Exception as exc:
            self._ctx.logger.warning("dsh-shadow-mind: evidence checks failed; reviewing without leads: %s", type(exc).__name__)
            return []

    def _model_info(self, route: str | None) -> ModelInfo | None:
        if not route:
            return None
        provider, _, model = route.partition("/")
        try:
            return self._ctx.host.llm.model_info(provider, model)
        except Exception:
            return None


@attrs.frozen(kw_only=True)
class _Framed:
    prompt: FramedPrompt
    #: what the child's log keeps instead of a second copy of the trajectory
    stored: StoredPrompt
    selection: ModelSelection | None
    minimal: bool
    capabilities: Mapping[str, bool]


def _request(entry: RunEntry, framed: _Framed) -> SubagentRequest:
    definition = entry.definition
    selection = framed.selection
    extensions: dict[str, Any] = {}
    if selection is not None:
        extensions[Capabilities.MODEL_SELECTION] = {
            "provider": selection.provider,
            "model": selection.model,
            "reasoning_effort": selection.reasoning_effort,
        }
    if framed.minimal:
        extensions[Capabilities.CONTEXT_INHERITANCE] = "none"
    if definition.think_first:
        extensions[Capabilities.THINK_FIRST] = True
    if framed.capabilities.get("anchor_seqs"):
        extensions["anchor_seqs"] = sorted(framed.prompt.seqs)
    return SubagentRequest(
        label=f"{CHILD_LABEL_PREFIX}{definition.id}",
        prompt=(TextBlock(text=framed.prompt.text),),
        stored_prompt=framed.stored,
        parent=entry.owner.root,
        cancel=entry.token,
        max_depth=1,
        tool_filter=ToolFilter.of(list(definition.reviewer_tools)),
        output_schema=OUTPUT_SCHEMA,
        extensions=extensions,
    )


async def _dispose(run: SubagentRun) -> BaseException | None:
    """Dispose of the child, shielded from the run's cancellation and bounded."""
    with trio.CancelScope(shield=True):
        with trio.move_on_after(DISPOSE_SECONDS) as scope:
            try:
                await run.dispose()
            except Exception as exc:
                return exc
        if scope.cancelled_caught:
            return TimeoutError(f"disposal did not finish within {DISPOSE_SECONDS:g}s")
    return None
